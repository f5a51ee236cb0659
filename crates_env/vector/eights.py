"""The compiled Crazy Eights family (``crazy_eights``, ``zimbabwe``): ``crates_env.eights``,
function for function.

Each function carries the name of the :class:`crates_env.eights.EightsGame` method it mirrors;
read them side by side. What a card does is ``R.role[kind]`` (``crates_env.rules.CardRole``),
what may be played the masks of ``crates_env.eights.EightsMasks`` over kinds; the draw procedure,
the deal and the hand's end are the shared base's (``table``, ``lifecycle``). As there, a draw that
meets a blocked stock ends the hand on the spot: a function returns after checking
``G.hand_over``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import DRAW, NUM_ACTIONS, PASS, REVERSE_ONCE, REVERSE_PERMANENT, STOP, SUIT
from ..cards import JOKER
from ..rules import CardRole, DrawRule, EmptyStock, GameEnd, HandScoring
from ..state import Decision
from .layout import OUT, STALLED
from .table import (
    NO_SEAT,
    ONE,
    ZERO,
    decide,
    draw,
    end_hand,
    give,
    kind_bit,
    mark_kinds,
    score_hand_counts,
)

PLAY_, SUIT_ = int(Decision.PLAY), int(Decision.SUIT)
PLAY_OR_PASS, MORE = int(Decision.PLAY_OR_PASS), int(Decision.MORE)
REVERSE_, DEFLECT = int(Decision.REVERSE), int(Decision.DEFLECT)
REGULAR, OFFENSIVE, DEFENSIVE, SKIP, DECLARE, REVERSE, CONTINUE = map(int, CardRole)
UNTIL_PLAY = int(DrawRule.UNTIL_PLAY)
RESHUFFLE, BLOCKED_STOCK = int(EmptyStock.RESHUFFLE), int(EmptyStock.BLOCKED)
WINNER_COLLECTS = int(HandScoring.WINNER_COLLECTS)
TARGET, LAST_PLAYER = int(GameEnd.TARGET), int(GameEnd.LAST_PLAYER)


# ---------------------------------------------------------------------------- seats
@njit(cache=True)
def next_seat(G, R, seat):
    """``EightsGame.next_seat``: the next seat in the current direction, passing players
    knocked out."""
    for _ in range(R.n):
        seat = (seat + G.direction) % R.n
        if G.active[seat]:
            return seat
    raise ValueError(NO_SEAT)


@njit(cache=True)
def players_left(G, R):
    left = 0
    for s in range(R.n):
        left += G.active[s]
    return left


# ---------------------------------------------------------------------------- turns
@njit(cache=True)
def begin(G, seat):
    """``EightsTurn.begin`` (``_start_turn``)."""
    G.seat = seat
    G.decision = PLAY_
    G.group_count = 0


@njit(cache=True)
def end_turn(G, R, p):
    """``_end_turn``: p's turn ended without a play to resolve (a pass, or a demand drawn)."""
    restore_once(G, R, p)
    begin(G, next_seat(G, R, p))


@njit(cache=True)
def turn_starter(G, R):
    """``_turn_starter``: the starter only sets the suit and rank (§1.2, C-27, E-62)."""
    G.n_stock -= 1
    kind = G.stock[G.n_stock]
    G.discard[G.n_discard] = kind
    G.n_discard += 1
    G.played[kind] += 1
    set_top_card(G, kind)
    begin(G, next_seat(G, R, G.dealer))


@njit(cache=True)
def set_top_card(G, kind):
    if kind == JOKER:
        G.suit = -1
        G.rank = -1
    else:
        G.suit = kind // 13
        G.rank = kind % 13


# ---------------------------------------------------------------------------- legal actions
@njit(cache=True)
def play_mask(G, R):
    if G.free_play:
        return R.full_mask
    if G.rank < 0:  # a Joker on top: a 2 or a wild (C-28)
        return R.on_joker
    return R.match[G.suit, G.rank]


@njit(cache=True)
def can_draw(G, R):
    return G.n_stock > 0 or (R.empty_stock == RESHUFFLE and G.n_discard > 1)


@njit(cache=True)
def legal_into(G, R, out):
    """``EightsGame._compute_legal`` as an action mask (``out`` int8, zeroed)."""
    decision = G.decision
    if decision < 0:
        return
    hand = G.held[G.seat]
    if decision == PLAY_:  # _turn_actions
        if G.demand:  # block, stack, or draw the total [003:95]
            mark_kinds(out, hand & R.answers)
            out[DRAW] = 1
            return
        plays = hand & play_mask(G, R)
        mark_kinds(out, plays)
        if can_draw(G, R):
            out[DRAW] = 1
        elif plays == ZERO:  # nothing to draw: who can play must (E-63, §1.10)
            out[DRAW if R.empty_stock == BLOCKED_STOCK else PASS] = 1
    elif decision == PLAY_OR_PASS:
        mark_kinds(out, hand & play_mask(G, R))
        out[PASS] = 1
    elif decision == MORE:
        mark_kinds(out, hand & G.group_mask)
        out[STOP] = 1
    elif decision == DEFLECT:
        mark_kinds(out, hand & R.skip_mask)
        out[PASS] = 1
    elif decision == REVERSE_:
        out[REVERSE_PERMANENT] = 1
        out[REVERSE_ONCE] = 1
    else:
        for s in range(4):
            if G.suit_choices >> s & 1:
                out[SUIT + s] = 1


@njit(cache=True)
def is_legal(G, R, action):
    """Whether ``action`` is legal now, decided apart from ``legal_into`` (the fuzz holds the
    two equal)."""
    decision = G.decision
    if decision < 0 or action < 0 or action >= NUM_ACTIONS:
        return False
    if action < SUIT:  # a card: held, and allowed by the decision
        if decision == PLAY_:
            allowed = R.answers if G.demand else play_mask(G, R)
        elif decision == PLAY_OR_PASS:
            allowed = play_mask(G, R)
        elif decision == MORE:
            allowed = G.group_mask
        elif decision == DEFLECT:
            allowed = R.skip_mask
        else:
            return False
        return G.held[G.seat] & allowed & kind_bit(action) != ZERO
    if action < SUIT + 4:
        return decision == SUIT_ and (G.suit_choices >> (action - SUIT)) & 1 == 1
    if decision == PLAY_:
        if action != DRAW and action != PASS:
            return False
        if G.demand or can_draw(G, R):
            return action == DRAW
        if G.held[G.seat] & play_mask(G, R) != ZERO:
            return False
        return (action == DRAW) == (R.empty_stock == BLOCKED_STOCK)
    if action == PASS:
        return decision in (PLAY_OR_PASS, DEFLECT)
    if action == STOP:
        return decision == MORE
    return decision == REVERSE_ and action in (REVERSE_PERMANENT, REVERSE_ONCE)


# ---------------------------------------------------------------------------- acting
@njit(cache=True)
def act(G, R, action):
    """``EightsGame._act`` for a legal action."""
    decision = G.decision
    p = G.seat
    if decision == SUIT_:
        declare(G, R, p, action - SUIT)
    elif decision == REVERSE_:
        reverse(G, R, p, action == REVERSE_ONCE)
    elif action == DRAW:
        draw_action(G, R, p)
    elif action == PASS:
        pass_turn(G, R, p, decision)
    elif action == STOP:
        resolve_group(G, R, p)
    else:
        if decision == DEFLECT:
            G.skips -= 1  # "they counter the skip effect and shift this" [003:79]
        play(G, R, p, action)


@njit(cache=True)
def draw_action(G, R, p):
    """``_draw_action``: the demand's total, and the turn missed (C-23); or one card."""
    if G.demand:
        total = G.demand
        G.demand = 0
        draw(G, R, p, total)
        if G.hand_over:
            return
        end_turn(G, R, p)
        return
    draw(G, R, p, 1)  # crazy_eights with an empty stock: the hand is blocked here
    if G.hand_over:
        return
    G.passes = 0
    decide(G, p, PLAY_ if R.draw_rule == UNTIL_PLAY else PLAY_OR_PASS)


@njit(cache=True)
def pass_turn(G, R, p, decision):
    """``_pass``."""
    if decision == DEFLECT:
        skip(G, R, p)
        return
    if decision == PLAY_:  # nothing to draw, nothing to play (§1.10 zimbabwe)
        G.passes += 1
        if G.passes >= players_left(G, R):
            end_hand(G, STALLED)
            return
    end_turn(G, R, p)


@njit(cache=True)
def play(G, R, p, kind):
    """``_play``: one card; the group of its rank goes on or resolves."""
    give(G, p, kind)
    top = G.discard[G.n_discard - 1]
    G.discard[G.n_discard] = kind
    G.n_discard += 1
    G.played[kind] += 1
    G.passes = 0
    if G.group_count == 0:
        G.group_base = top
        G.group_suit_before = G.suit
        G.group_on_declared = G.declared
        G.group_mask = R.joker_kinds if kind == JOKER else R.rank_kinds[kind % 13]
    G.group_count += 1
    role = R.role[kind]
    if role == OFFENSIVE:
        G.demand += R.demand[kind]
    elif role == DEFENSIVE and G.demand:
        G.demand = 0  # "nullify the effects of a joker or a two" [003:111,115]
    set_top_card(G, kind)
    G.declared = False
    G.free_play = (R.free_after >> np.uint64(kind)) & ONE == ONE
    if R.multi_card_plays and G.held[p] & G.group_mask != ZERO:
        decide(G, p, MORE)
        return
    resolve_group(G, R, p)


# ---------------------------------------------------------------------------- resolving a play
@njit(cache=True)
def resolve_group(G, R, p):
    """``_resolve_group``: the cards of one rank just played act as successive plays (C-57);
    then the turn moves."""
    count = G.group_count
    G.group_count = 0
    kind = G.discard[G.n_discard - 1]
    role = R.role[kind]
    restore_once(G, R, p)
    if G.sizes[p] == 0 and wins(R, kind, G.group_base):
        G.went_out = p
        end_hand(G, OUT)
        return
    if role == DECLARE:
        after_eight(G, R, p)
    elif role == SKIP:  # each 7 skips one more player (C-57), never its own player
        G.skips = min(G.skips + count, players_left(G, R) - 1)
        skip_next(G, R, next_seat(G, R, p))
    elif role == CONTINUE:  # "allowing the player to play again" [003:91]
        begin(G, p)
    elif role == REVERSE:
        after_jacks(G, R, p, count)
    else:
        begin(G, next_seat(G, R, p))


@njit(cache=True)
def wins(R, kind, base):
    """``_wins``: going out wins unless ``in_air``: then the last card must be regular and the
    card it was played on neither offensive nor defensive (C-26)."""
    if not R.in_air:
        return True
    return R.role[kind] == REGULAR and R.role[base] != OFFENSIVE and R.role[base] != DEFENSIVE


@njit(cache=True)
def after_eight(G, R, p):
    """``_after_eight``: name a suit, unless an 8 counters a declaring 8 and keeps its own."""
    if G.group_on_declared and R.eight_counter_keeps_suit:
        begin(G, next_seat(G, R, p))
        return
    choices = 0b1111
    if R.eight_must_change_suit and G.group_suit_before >= 0:  # (C-22)
        choices &= ~(1 << G.group_suit_before)
    G.suit_choices = choices
    decide(G, p, SUIT_)


@njit(cache=True)
def declare(G, R, p, suit):
    G.suit = suit
    G.declared = True
    begin(G, next_seat(G, R, p))


@njit(cache=True)
def after_jacks(G, R, p, count):
    if players_left(G, R) == 2:  # 'a "reverse" allows the player to play again' [003:87]
        begin(G, p)
    elif count % 2 == 0:  # only the parity of the jacks matters (C-57)
        begin(G, next_seat(G, R, p))
    elif count == 1:  # the one-turn option exists only for a single J (C-57)
        decide(G, p, REVERSE_)
    else:
        reverse(G, R, p, False)


@njit(cache=True)
def reverse(G, R, p, once):
    """``_reverse``: for the rest of the hand, or only until the previous player has played
    (E-57)."""
    G.direction = -G.direction
    nxt = next_seat(G, R, p)
    if once:
        G.once_seat = nxt
    begin(G, nxt)


@njit(cache=True)
def restore_once(G, R, p):
    """``_restore_once``: a one-turn reversal ends as its player has played."""
    if G.once_seat == p:
        G.once_seat = -1
        G.direction = -G.direction


@njit(cache=True)
def skip_next(G, R, target):
    """``_skip_next`` and ``_skip`` in turn: each skip falls on the next player, who may pass it
    on with a 7 (E-56)."""
    while G.held[target] & R.skip_mask == ZERO:
        G.skips -= 1
        target = next_seat(G, R, target)
        if G.skips <= 0:  # (< 0 in no game: the bound of the loop)
            begin(G, target)
            return
    decide(G, target, DEFLECT)


@njit(cache=True)
def skip(G, R, target):
    """``_skip``: ``target`` takes the skip."""
    G.skips -= 1
    nxt = next_seat(G, R, target)
    if G.skips:
        skip_next(G, R, nxt)
    else:
        begin(G, nxt)


# ---------------------------------------------------------------------------- end of hand
@njit(cache=True)
def settle_hand(G, R):
    """``_settle_hand``: players in air when another wins "must pick a card" [003:126]."""
    for s in range(R.n):
        if G.active[s] and G.sizes[s] == 0 and s != G.went_out:
            draw(G, R, s, 1)


@njit(cache=True)
def score_hand(G, R, points):
    """``_score_hand``; ``points`` (per seat) gets what the hand adds to the scores."""
    n = R.n
    values = np.zeros(n, np.int64)
    for s in range(n):
        values[s] = score_hand_counts(R, G.counts[s])
    points[:] = 0
    if R.hand_scoring == WINNER_COLLECTS:
        collect(G, R, values, points)
    else:
        eliminate(G, R, values)
        points[:n] = values
    for s in range(n):
        G.scores[s] += points[s]


@njit(cache=True)
def collect(G, R, values, points):
    """``_collect``: the player who went out collects every hand's points; in a blocked hand
    the lowest hand scores the differences to each other hand (E-63)."""
    n = R.n
    if G.went_out >= 0:
        points[G.went_out] = values.sum()
        return
    low = values.min()
    total = values.sum() - n * low
    for s in range(n):
        if values[s] == low:
            points[s] = total


@njit(cache=True)
def eliminate(G, R, values):
    """``_eliminate``: the highest hand leaves the game; players tied for highest draw one card
    each, in seat order, until one is strictly highest (E-60); with nothing to draw all of
    them go, or share the game when they are everybody left."""
    n = R.n
    tied = np.zeros(n, np.bool_)
    while True:
        high = values.min()
        for s in range(n):
            if G.active[s] and values[s] > high:
                high = values[s]
        n_tied = 0
        for s in range(n):
            tied[s] = G.active[s] and values[s] == high
            n_tied += tied[s]
        if n_tied == 1:
            break
        drawn = 0
        for s in range(n):
            if tied[s]:
                drawn += draw(G, R, s, 1)
                values[s] = score_hand_counts(R, G.counts[s])
        if not drawn:
            if n_tied == players_left(G, R):
                G.shared = True
                return
            break
    for s in range(n):
        if tied[s]:
            G.active[s] = False
            G.out_hand[s] = G.hands_scored


@njit(cache=True)
def game_decided(G, R):
    """``_game_decided``: a score reaches the target, or one player is left (or they share)."""
    if R.game_end == TARGET:  # "the first player to reach a specific number" [003:49]
        return G.scores[: R.n].max() >= R.target_score
    return players_left(G, R) <= 1 or G.shared

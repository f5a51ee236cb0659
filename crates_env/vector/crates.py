"""The compiled Crates family (``crates``, ``chicago1970``, ``kreights``, ``craits``,
``creights``): ``crates_env.crates.CratesGame``, the one-card call (``crates_env.calls``) and the
kreights penalty cards (``crates_env.misplays``), function for function.

Each function carries the name of the reference method it mirrors; read them side by side (the
rule map in docs/engine.md pairs them). What both families share (seats, the draw procedure,
scoring) is ``crates_env.vector.table``. As there, a draw that meets an empty stock with nothing
to reshuffle ends the hand on the spot: a function returns after checking ``G.hand_over``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import ANNOUNCE, DRAW, NUM_ACTIONS, SUIT
from ..cards import ACE, EIGHT, JACK, JOKER, NINE, SIX, THREE, TWO
from ..state import Decision
from .layout import COUNT, OUT, PRESSURE
from .table import (
    ONE,
    ZERO,
    decide,
    draw,
    end_hand,
    give,
    kind_bit,
    mark_kinds,
    next_seat,
    prev_seat,
    rank_of,
    score_hand_counts,
    team_of,
)

PLAY_ = int(Decision.PLAY)
SUIT_ = int(Decision.SUIT)
STARTER_SUIT_ = int(Decision.STARTER_SUIT)
PENALTY_CARD_ = int(Decision.PENALTY_CARD)
CLUBS_SPADES = 0b1001  # suit_choices bits: a 9 names a suit of its own colour
DIAMONDS_HEARTS = 0b0110


@njit(cache=True, inline="always")
def _same_colour(suit):
    return DIAMONDS_HEARTS if suit == 1 or suit == 2 else CLUBS_SPADES


@njit(cache=True)
def turn_starter(G, R):
    """``CratesGame._turn_starter``: the dealer's effects and suit come first."""
    d = G.dealer
    begin(G, d)
    G.decision = -1
    G.n_stock -= 1
    kind = G.stock[G.n_stock]
    G.discard[G.n_discard] = kind
    G.n_discard += 1
    G.played[kind] += 1
    if kind == JOKER:
        G.suit = -1  # nothing beneath: the first play is free (E-35)
        G.rank = -1
    else:
        G.suit = kind // 13
        G.rank = kind % 13
        if G.rank == TWO:
            G.count = 2
        G.jack_run = 1 if G.rank == JACK else 0
    card_effect(G, R, d, kind)
    if G.hand_over:
        return
    rank = rank_of(kind)
    if rank in (EIGHT, NINE):
        ask_suit(G, R, d, kind, STARTER_SUIT_, False)
    else:
        after_play(G, R, d, kind, False)


# ---------------------------------------------------------------------------- turns
@njit(cache=True)
def begin(G, seat):
    """``CratesTurn.begin``."""
    G.seat = seat
    G.decision = PLAY_
    G.plays = 0
    G.called = False
    G.call_missed = False
    G.announced = False
    G.six_missed = False
    G.cooper_draw = 1
    G.pending_kind = -1
    G.chooser = -1
    G.forced = -1


@njit(cache=True)
def start_turn(G, R, seat):
    """``CratesGame._start_turn``: a seat owing a one-card penalty loses the turn and draws two."""
    while G.count == 0 and G.penalty_owed[seat]:
        G.penalty_owed[seat] = False
        G.seat = seat
        draw(G, R, seat, 2)
        if G.hand_over:
            return
        seat = next_seat(G, R, seat, 1)
    begin(G, seat)
    if G.exposed_held[seat] != ZERO:
        offer_penalty_choice(G, R, seat)


@njit(cache=True)
def offer_penalty_choice(G, R, p):
    """``Misplays._offer_penalty_choice``: with several playable penalty cards, "the player who
    has just previously played chooses" [001:71] before ``p`` acts."""
    G.forced = -1
    options = penalty_options(G, R, p)
    if options & (options - ONE) != ZERO:  # two kinds or more
        G.decision = PENALTY_CARD_
        G.chooser = prev_seat(G, R, p)


# ---------------------------------------------------------------------------- legal actions
@njit(cache=True)
def play_mask(G, R):
    if G.count:
        return R.count_mask
    if G.free_play or G.suit < 0:
        return R.full_mask
    return R.match[G.suit, G.rank]


@njit(cache=True)
def sixes_held(G, R, seat):
    total = 0
    for suit in range(4):
        total += G.counts[seat, suit * 13 + SIX]
    return total


@njit(cache=True)
def call_offered(G, R, p, plays):
    """``OneCardCalls._call_offered``."""
    if G.announced or G.called:
        return False
    if G.call_on_deal[p]:
        return True
    size = G.sizes[p]
    if R.one_card_per_turn:
        if G.plays:
            return False
        sixes = sixes_held(G, R, p)
        return size == 2 or (size == 1 and sixes == 1) or (size >= 3 and sixes >= size - 2)
    if size == 2:
        return True
    return size == 1 and R.one_card_last_six and (plays & R.six_mask) != ZERO


@njit(cache=True)
def mark_suits(G, out):
    for s in range(4):
        if G.suit_choices >> s & 1:
            out[SUIT + s] = 1


@njit(cache=True)
def plays_of(G, R, p):
    """The kinds ``p`` may play now: those held that fit, only the penalty cards among them
    when there are any (``Misplays._forced_plays``)."""
    plays = G.held[p] & play_mask(G, R)
    if G.exposed_held[p] == ZERO:
        return plays
    forced = plays & G.exposed_held[p]  # penalty cards that can be played must be [001:71]
    if forced != ZERO and G.forced >= 0:
        forced &= kind_bit(G.forced)
    return forced if forced != ZERO else plays


@njit(cache=True)
def penalty_options(G, R, p):
    """``p``'s playable penalty cards, one of which the previous player picks."""
    return G.held[p] & G.exposed_held[p] & play_mask(G, R)


@njit(cache=True)
def legal_into(G, R, out):
    """``CratesGame._compute_legal`` as an action mask: ``out`` (int8, zeroed) gets a 1 per legal
    action of the game's pending decision."""
    if G.decision < 0:
        return
    p = G.seat
    if G.decision == PLAY_:
        plays = plays_of(G, R, p)
        if plays == ZERO:
            out[DRAW] = 1
            if G.call_on_deal[p]:
                out[ANNOUNCE] = 1
            return
        mark_kinds(out, plays)
        if call_offered(G, R, p, plays):
            out[ANNOUNCE] = 1
        return
    if G.decision == PENALTY_CARD_:
        mark_kinds(out, penalty_options(G, R, p))
        return
    mark_suits(G, out)


@njit(cache=True)
def is_legal(G, R, action):
    if G.decision < 0 or action < 0 or action >= NUM_ACTIONS:
        return False
    p = G.seat
    if G.decision == PLAY_:
        plays = plays_of(G, R, p)
        if action == DRAW:
            return plays == ZERO
        if action == ANNOUNCE:
            return (plays == ZERO and G.call_on_deal[p]) or (
                plays != ZERO and call_offered(G, R, p, plays)
            )
        return action < SUIT and (plays >> np.uint64(action)) & ONE == ONE
    if G.decision == PENALTY_CARD_:
        return action < SUIT and (penalty_options(G, R, p) >> np.uint64(action)) & ONE == ONE
    return SUIT <= action < SUIT + 4 and (G.suit_choices >> (action - SUIT)) & 1 == 1


# ---------------------------------------------------------------------------- acting
@njit(cache=True)
def act(G, R, action):
    """``CratesGame._act`` for a legal action."""
    if G.decision == PLAY_:
        p = G.seat
        if action == ANNOUNCE:
            G.announced = True
            G.called = True
            G.call_on_deal[p] = False
            return
        if G.call_on_deal[p]:
            G.call_on_deal[p] = False
            missed_call(G, R, p)
            if G.hand_over:
                return
        if action == DRAW:
            draw_move(G, R, p)
        else:
            play(G, R, p, action)
        return
    if G.decision == PENALTY_CARD_:  # Misplays._pick_penalty_card
        G.forced = action
        G.chooser = -1
        G.decision = PLAY_
        return
    # a suit named after a wild: CratesGame._name_suit
    kind, plain = G.pending_kind, G.pending_plain
    G.pending_kind = -1
    G.suit = action - SUIT
    after_play(G, R, G.seat, kind, plain)


@njit(cache=True)
def play(G, R, p, kind):
    """``CratesGame._play``."""
    size_before = G.sizes[p]
    if G.exposed[p, kind]:  # a penalty card leaves the table first
        G.exposed[p, kind] -= 1
        if G.exposed[p, kind] == 0:
            G.exposed_held[p] &= ~kind_bit(kind)
    give(G, p, kind)
    G.discard[G.n_discard] = kind
    G.n_discard += 1
    G.played[kind] += 1
    G.plays += 1
    series = G.series_left
    plain = series > 1  # the first two cards of a face-K series have no function
    if series:
        G.series_left = series - 1
    announced = G.announced
    G.announced = False
    rank = rank_of(kind)
    if rank >= 0:
        G.rank = rank
        if rank != EIGHT and rank != NINE:
            G.suit = kind // 13
        G.free_play = False
        G.jack_run = G.jack_run + 1 if rank == JACK else 0
    if G.count:
        if rank == ACE:
            G.count += 1
        elif rank == TWO:
            G.count += 2
    elif rank == TWO and not plain:
        G.count = 2
    check_call(G, R, p, size_before, kind, announced)
    if G.hand_over:
        return
    if R.one_card_per_turn and G.sizes[p] == 1:
        check_turn_call(G, R, p)
        if G.hand_over:
            return
    if G.sizes[p] == 0 and G.count == 0 and not must_play_again(G, R, kind, plain):
        G.went_out = p  # out now, even if this card's draws end the hand on a pressure
    if not plain and R.n_draws[kind]:
        card_effect(G, R, p, kind)
        if G.hand_over:
            return
    if rank in (EIGHT, NINE) and (G.sizes[p] or G.series_left):
        ask_suit(G, R, p, kind, SUIT_, plain)
        return
    after_play(G, R, p, kind, plain)


@njit(cache=True)
def ask_suit(G, R, p, kind, decision, plain):
    if kind % 13 == EIGHT or (decision == STARTER_SUIT_ and R.nine_starter_any_suit):
        G.suit_choices = 0b1111
    elif decision == STARTER_SUIT_ or G.suit < 0:
        G.suit_choices = _same_colour(kind // 13)  # the 9's own colour [000:52]
    else:
        G.suit_choices = _same_colour(G.suit)  # the current suit's colour (C-16)
    G.pending_kind = kind
    G.pending_plain = plain
    decide(G, p, decision)


@njit(cache=True)
def after_play(G, R, p, kind, plain):
    """``CratesGame._after_play``: move the turn after a card (or the starter) has resolved."""
    if G.count:
        if G.sizes[p] == 0:
            seen = False
            for i in range(G.n_out):
                seen = seen or G.out_order[i] == p
            if not seen:
                G.out_order[G.n_out] = p
                G.n_out += 1
        start_turn(G, R, prev_seat(G, R, p) if kind == JOKER else next_seat(G, R, p, 1))
        return
    if must_play_again(G, R, kind, plain):
        if not plain and R.series[kind] and not G.series_left:
            G.series_left = R.series[kind]
        G.cooper_draw = 2 if G.six_missed else 1  # _play_again
        decide(G, p, PLAY_)
        if G.exposed_held[p] != ZERO:
            offer_penalty_choice(G, R, p)
        return
    if R.reverses[kind]:  # before the out check: a final 10 counts for the next deal
        G.direction = -G.direction
    if G.sizes[p] == 0:
        end_hand(G, OUT)
        return
    if kind == JOKER:  # transparent, and play comes back to the previous player
        start_turn(G, R, prev_seat(G, R, p))
    else:
        start_turn(G, R, next_seat(G, R, p, R.next_player[kind]))


@njit(cache=True)
def must_play_again(G, R, kind, plain):
    if G.series_left:
        return True
    return not plain and R.again[kind]


@njit(cache=True)
def card_effect(G, R, p, kind):
    """Draws a card forces on others, in order; the hand may end on one."""
    for i in range(R.n_draws[kind]):
        target = next_seat(G, R, p, R.draw_seat[kind, i])
        cards = R.draw_cards[kind, i]
        draw(G, R, target, cards * G.jack_run if R.per_jack[kind] else cards)
        if G.hand_over:
            return


@njit(cache=True)
def draw_move(G, R, p):
    """``CratesGame._draw_move``: draw the count, or draw when no play is legal."""
    if G.count:
        total = G.count
        G.count = 0
        draw(G, R, p, total)
        if G.hand_over:
            return
        count_over(G, R, p)
        return
    draw(G, R, p, G.cooper_draw if G.plays else 1)
    if G.hand_over:
        return
    G.series_left = 0
    if R.one_card_per_turn and G.plays and G.sizes[p] == 1:
        check_turn_call(G, R, p)
        if G.hand_over:
            return
    start_turn(G, R, next_seat(G, R, p, 1))


@njit(cache=True)
def count_over(G, R, drawer):
    """``CratesGame._count_over``: the hand ends if someone went out during the count."""
    if G.n_out:
        G.ha_ha = drawer == G.out_order[0]
        someone_empty = False
        for s in range(R.n):
            someone_empty = someone_empty or G.sizes[s] == 0
        if not R.count_continues_hand or someone_empty:
            end_hand(G, COUNT)
            return
        G.n_out = 0
    G.free_play = R.free_play_after_count
    start_turn(G, R, next_seat(G, R, drawer, 1))


# ---------------------------------------------------------------------------- one-card calls
@njit(cache=True)
def check_call(G, R, p, size_before, kind, announced):
    G.six_missed = False
    if R.one_card_per_turn:
        return
    if size_before == 2 and not announced:
        missed_call(G, R, p)
    elif size_before == 1 and R.one_card_last_six and rank_of(kind) == SIX and not announced:
        G.six_missed = True  # draws two instead of one, nothing more [000:139]


@njit(cache=True)
def check_turn_call(G, R, p):
    if not G.called and not G.call_missed:
        G.call_missed = True
        missed_call(G, R, p)


@njit(cache=True)
def missed_call(G, R, p):
    if G.mulligans_left[p]:
        G.mulligans_left[p] = False
        return
    if R.idiot_card:
        draw(G, R, p, 1)
    else:
        G.penalty_owed[p] = True


# ---------------------------------------------------------------------------- end of hand
@njit(cache=True)
def settle_hand(G, R):
    """Draws owed when the hand ends: kreights and creights serve one-card penalties."""
    if R.penalty_drawn_at_end and G.ended_by != PRESSURE:
        for s in range(R.n):
            if G.penalty_owed[s]:
                G.penalty_owed[s] = False
                draw(G, R, s, 2)
                if G.ended_by == PRESSURE:  # nothing left to reshuffle ends the drawing (E-5)
                    return


@njit(cache=True)
def score_hand(G, R, points):
    """``CratesGame._score_hand``; ``points`` (per team) gets what the hand adds to the scores."""
    n = R.n
    first_out = G.out_order[0] if G.n_out else G.went_out
    ha_ha = R.stars and G.ha_ha
    points[:] = G.pressure_points + G.revoke_points
    for s in range(n):
        value = score_hand_counts(R, G.counts[s])
        if R.empty_hand_points and G.sizes[s] == 0:
            value += R.empty_hand_points
        points[team_of(R, s)] += value
        if R.stars and G.sizes[s] and only_threes(G.counts[s]):
            G.stars[s] += 2  # caught with only threes [001:65]
    if R.stars and first_out >= 0 and not ha_ha:
        G.stars[first_out] += 1
    for t in range(R.teams):
        G.scores[t] += points[t]


@njit(cache=True)
def only_threes(counts):
    others = 0
    for k in range(JOKER + 1):
        if rank_of(k) != THREE:
            others += counts[k]
    return others == 0

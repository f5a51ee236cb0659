"""The compiled engine's shared base and the Crates family: the reference engine's rules,
function for function.

Each function here carries the name of the reference method it mirrors (``crates_env.game``,
``crates_env.crates``, ``crates_env.calls``, the penalty cards of ``crates_env.misplays``); read
them side by side. The Crazy Eights family is ``crates_env.vector.eights``, the misplays
``penalize`` accepts ``crates_env.vector.misplays``, and the game's lifecycle for both families
(the deal, finishing a hand, applying an action) ``crates_env.vector.game``. ``G`` is one game's
record (``layout.STATE``), ``R`` the rules record (``layout.RULES``). Where the reference raises
``HandEnded`` to abandon the rest of an action, a function here returns after checking
``G.hand_over``: a draw that meets an empty stock with nothing to reshuffle ends the hand on the
spot, and nothing after it in that action happens.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import ANNOUNCE, DRAW, NUM_ACTIONS, SUIT
from ..cards import ACE, EIGHT, JACK, JOKER, NINE, SIX, THREE, TWO
from ..rules import EmptyStock, GameEnd, Pressure, ThreeScoring
from ..settings import RewardMode
from ..state import Decision
from .layout import BLOCKED, COUNT, OUT, PRESSURE
from .rng import permutation_into

# The rules' and the environment's names as the numbers the records hold (R.pressure, ...).
PLAY_ = int(Decision.PLAY)
SUIT_ = int(Decision.SUIT)
STARTER_SUIT_ = int(Decision.STARTER_SUIT)
PENALTY_CARD_ = int(Decision.PENALTY_CARD)
CAP20, FLAT5, NO_PRESSURE = int(Pressure.CAP20), int(Pressure.FLAT5), int(Pressure.NONE)
CRATES_THREES, KREIGHTS_THREES = int(ThreeScoring.CRATES), int(ThreeScoring.KREIGHTS)
PUNITIVE_THREES, COVER8_THREES = int(ThreeScoring.PUNITIVE), int(ThreeScoring.COVER8)
PLAIN_THREES = int(ThreeScoring.NONE)
RESHUFFLE, BLOCKED_STOCK = int(EmptyStock.RESHUFFLE), int(EmptyStock.BLOCKED)
LAST_PLAYER = int(GameEnd.LAST_PLAYER)
RELATIVE, WIN = int(RewardMode.RELATIVE), int(RewardMode.WIN)
ONE = np.uint64(1)
ZERO = np.uint64(0)
CLUBS_SPADES = 0b1001  # suit_choices bits: a 9 names a suit of its own colour
DIAMONDS_HEARTS = 0b0110


@njit(cache=True, inline="always")
def kind_bit(kind):
    return ONE << np.uint64(kind)


@njit(cache=True, inline="always")
def _rank_of(kind):
    return -1 if kind == JOKER else kind % 13


@njit(cache=True, inline="always")
def _same_colour(suit):
    return DIAMONDS_HEARTS if suit == 1 or suit == 2 else CLUBS_SPADES


@njit(cache=True, inline="always")
def next_seat(G, R, seat, steps):
    return (seat + steps * G.direction) % R.n


@njit(cache=True, inline="always")
def prev_seat(G, R, seat):
    return (seat - G.direction) % R.n


@njit(cache=True)
def to_play(G, R):
    """The seat that decides: the player on turn, except that Figgy's decisions are made by
    prev(Figgy) [000:161] and the previous player picks among several playable penalty cards
    [001:71]."""
    if G.chooser >= 0:
        return G.chooser
    return prev_seat(G, R, G.seat) if G.seat == R.dummy_seat else G.seat


@njit(cache=True, inline="always")
def team_of(R, seat):
    return seat % 2 if R.partnerships else seat


@njit(cache=True)
def pressure_value(n, progression):
    """``crates_env.scoring.pressure_value``; -1 where int64 overflows."""
    if progression == FLAT5:
        return 5
    if progression == NO_PRESSURE:
        return 0
    if progression == CAP20 and n > 4:
        return 40 + 20 * (n - 4)
    if n > 58:  # the sum of a side's pressures would pass int64
        return -1
    return 5 << (n - 1)


# ---------------------------------------------------------------------------- cards in hand
@njit(cache=True, inline="always")
def take(G, seat, kind):
    """One card of ``kind`` into ``seat``'s hand."""
    G.counts[seat, kind] += 1
    G.held[seat] |= kind_bit(kind)
    G.sizes[seat] += 1


@njit(cache=True, inline="always")
def give(G, seat, kind):
    """One card of ``kind`` out of ``seat``'s hand."""
    G.counts[seat, kind] -= 1
    if G.counts[seat, kind] == 0:
        G.held[seat] &= ~kind_bit(kind)
    G.sizes[seat] -= 1


# ---------------------------------------------------------------------------- drawing (D)
@njit(cache=True)
def draw(G, R, seat, k):
    """``Game._draw``: procedure D; returns the cards drawn. The hand may end (``hand_over``)."""
    got = 0
    while True:
        while got < k and G.n_stock > 0:
            G.n_stock -= 1
            take(G, seat, G.stock[G.n_stock])
            got += 1
        if got == k:
            return k
        if not refill(G, R, seat):
            return got


@njit(cache=True)
def refill(G, R, seat):
    """``Game._refill``: the stock is empty with cards still to draw; False: the draw stops
    short. Crates family: a pressure each time, and the hand ends when nothing can be
    reshuffled (E-1). zimbabwe: a free reshuffle, and the draw is skipped when there is nothing
    to reshuffle. crazy_eights: no reshuffle, the hand is blocked (E-63)."""
    policy = R.empty_stock
    if policy == BLOCKED_STOCK:
        end_hand(G, BLOCKED)
        return False
    if policy != RESHUFFLE:
        charge_pressure(G, R, seat)
    if G.n_discard > 1:
        reshuffle(G)
        return True
    if policy != RESHUFFLE:
        end_hand(G, PRESSURE)
    return False


@njit(cache=True)
def charge_pressure(G, R, seat):
    if seat == R.dummy_seat:  # Figgy "never receives a pressure" [000:162]: "the next player
        seat = next_seat(G, R, G.seat, 1)  # to play" after the turn's seat (C-19, DV-31)
        if seat == R.dummy_seat:
            seat = next_seat(G, R, seat, 1)
    team = team_of(R, seat)
    G.pressure_count[team] += 1
    value = pressure_value(G.pressure_count[team], R.pressure)
    if value < 0:
        G.overflow = True
        value = 0
    G.pressure_points[team] += value
    G.pressures[team] += 1
    G.seat_pressures[seat] += 1


@njit(cache=True)
def reshuffle(G):
    """``Game._reshuffle``: all but the top card, in the reshuffle stream's order."""
    n = G.n_discard - 1
    order = np.empty(n, np.int64)
    permutation_into(G.rng[1], order)
    for i in range(n):
        G.stock[i] = G.discard[order[i]]
    G.n_stock = n
    G.discard[0] = G.discard[n]
    G.n_discard = 1


@njit(cache=True)
def end_hand(G, reason):
    G.hand_over = True
    G.ended_by = reason
    G.decision = -1


# ---------------------------------------------------------------------------- the deal
@njit(cache=True)
def new_hand(G, R, deal_size):
    """``CratesHand.new`` and ``EightsHand.new``: what every deal resets."""
    G.deal_size = deal_size
    G.counts[:] = 0
    G.held[:] = ZERO
    G.sizes[:] = 0
    G.n_stock = 0
    G.n_discard = 0
    G.played[:] = 0
    G.pressure_points[:] = 0
    G.pressures[:] = 0
    G.seat_pressures[:] = 0
    G.direction = 1
    G.suit = -1
    G.rank = -1
    G.free_play = False
    G.hand_over = False
    G.ended_by = 0
    G.went_out = -1
    G.decisions = 0
    G.count = 0
    G.n_out = 0
    G.penalty_owed[:] = False
    G.ha_ha = False
    G.jack_run = 0
    G.series_left = 0
    G.call_on_deal[:] = R.call_on_one_card_deal and deal_size == 1
    G.revoke_points[:] = 0
    G.exposed[:] = 0
    G.exposed_held[:] = ZERO
    G.demand = 0
    G.skips = 0
    G.declared = False
    G.passes = 0
    G.once_seat = -1
    G.shared = False


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
    rank = _rank_of(kind)
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
def decide(G, seat, decision):
    G.seat = seat
    G.decision = decision
    G.announced = False


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
def mark_kinds(out, kinds):
    """``out[k] = 1`` for every kind ``k`` in the bitmask ``kinds`` (the others left as they
    are)."""
    k = 0
    while kinds >> np.uint64(k) != ZERO:
        out[k] |= (kinds >> np.uint64(k)) & ONE
        k += 1


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
    rank = _rank_of(kind)
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
    elif size_before == 1 and R.one_card_last_six and _rank_of(kind) == SIX and not announced:
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
        if _rank_of(k) != THREE:
            others += counts[k]
    return others == 0


@njit(cache=True)
def _top(R, counts, j, no_eights, no_aces, threes_too):
    """The sum of the ``j`` highest card values in a hand, threes aside: ``no_eights`` and
    ``no_aces`` leave those ranks out, ``threes_too`` more cards worth 3 join in. The kinds are
    walked from the highest value down (``R.by_points``), so nothing is sorted or allocated."""
    total = 0
    for i in range(JOKER + 1):
        if j <= 0:
            return total
        k = R.by_points[i]
        rank = _rank_of(k)
        if rank == THREE or (no_eights and rank == EIGHT) or (no_aces and rank == ACE):
            continue
        v = R.kind_points[k]
        if threes_too and v < 3:
            take = min(j, threes_too)
            total += 3 * take
            j -= take
            threes_too = 0
        take = min(j, counts[k])
        total += take * v
        j -= take
    take = min(j, threes_too)
    return total + 3 * take


@njit(cache=True)
def score_hand_counts(R, counts):
    """``crates_env.scoring.score_kinds`` for a hand given as copies per kind: the sum of its
    cards, unless it holds threes that count otherwise."""
    threes = 0
    if R.three_scoring != PLAIN_THREES:  # (the Crazy Eights family's threes are plain cards)
        for suit in range(4):
            threes += counts[suit * 13 + THREE]
    if threes == 0:
        total = 0
        for k in range(JOKER + 1):
            total += counts[k] * R.kind_points[k]
        return total
    return _score_threes(R, counts)


@njit(cache=True)
def _score_threes(R, counts):
    """``score_kinds`` for a hand that holds threes (RULES.md §1.15)."""
    threes = 0
    total_cards = 0
    plain_sum = 0
    eights = 0
    others_big = 0  # cards that are neither threes nor eights, worth more than 3
    not_eight = 0
    eligible = 0  # cards a punitive three may cover
    algorithm = R.three_scoring
    for k in range(JOKER + 1):
        c = counts[k]
        if not c:
            continue
        total_cards += c
        rank = _rank_of(k)
        if rank == THREE:
            threes += c
            continue
        v = R.kind_points[k]
        plain_sum += c * v
        if rank == EIGHT:
            eights += c * v
        else:
            not_eight += c
            if v > 3:
                others_big += c
        if not (rank == ACE or (rank == EIGHT and algorithm == PUNITIVE_THREES)):
            eligible += c
    if threes == total_cards:  # a hand of threes only (kreights' own table [001:41])
        if threes <= R.n_all_threes:
            return R.all_threes[threes - 1]
        return -50 * threes
    if algorithm == CRATES_THREES:
        if not_eight == 0:
            return eights + 3  # the threes collapse into one pair (or one bare three)
        j = min(threes, max(1, others_big))
        return plain_sum - _top(R, counts, j, True, False, 0) + 3 * j
    if algorithm == KREIGHTS_THREES:  # threes may cancel each other [001:48]
        extra = threes if threes > 1 else 0
        return plain_sum + 3 * threes - _top(R, counts, threes, True, False, extra)
    if algorithm == COVER8_THREES:
        return plain_sum - _top(R, counts, threes, False, False, 0) + 3 * threes
    j = min(threes, eligible)  # punitive, and punitive_cover8
    barred_eights = algorithm == PUNITIVE_THREES
    return plain_sum - _top(R, counts, j, barred_eights, True, 0) + 3 * j + 100 * (threes - j)


@njit(cache=True)
def deal_goes_right(G, R):
    return R.deal_follows_direction and G.last_direction == -1


@njit(cache=True)
def log_hand(G, points):
    """Keep the finished hand's score (``crates_env.state.HandScore``) in the hand log."""
    h = G.hand_index % G.log_deal_size.shape[0]
    G.log_deal_size[h] = G.deal_size
    G.log_ended_by[h] = G.ended_by
    G.log_went_out[h] = G.out_order[0] if G.n_out else G.went_out
    G.log_points[h] = points
    G.log_pressure_points[h] = G.pressure_points
    G.log_seat_pressures[h] = G.seat_pressures


@njit(cache=True)
def next_dealer(G, R):
    """``Game._next_dealer``: the deal passes left (right after a counter-clockwise craits
    finish), skipping seats that never deal (Figgy) and players knocked out."""
    step = -1 if deal_goes_right(G, R) else 1
    seat = G.dealer
    while True:
        seat = (seat + step) % R.n
        if G.active[seat] and R.dealer_seats[seat]:
            return seat


@njit(cache=True)
def stop_truncated(G):
    G.truncated = True
    G.game_over = True
    G.decision = -1


# ---------------------------------------------------------------------------- the environment
@njit(cache=True)
def reward_unpaid(G, R, hand_points, rewards):
    """``crates_env.payouts.Payouts._pay_unpaid``: every seat's reward for ``hand_points``
    (per team, this hand's so far) less the pressure points already paid."""
    if R.reward_mode == WIN:
        return
    teams = R.teams
    any_points = False
    for t in range(teams):
        any_points = any_points or hand_points[t] - G.paid[t] != 0
    if not any_points:
        return
    sign = float(R.point_sign)
    for s in range(R.n):
        team = team_of(R, s)
        value = sign * (hand_points[team] - G.paid[team])
        if R.reward_mode == RELATIVE:  # the margin over the others' mean
            others = 0
            for t in range(teams):
                if t != team:
                    others += hand_points[t] - G.paid[t]
            value -= sign * others / (teams - 1)
        rewards[s] += value * R.reward_scale


@njit(cache=True)
def final_standing(G, R, team):
    """``crates_env.env.final_standing`` of one side, larger is better: its score as the preset
    ranks it (``Ruleset.standing``), or in an elimination game the result in which it was
    knocked out (the winner never is)."""
    if R.game_end == LAST_PLAYER:
        return G.out_hand[team] if G.out_hand[team] >= 0 else G.hands_scored + 1
    return R.point_sign * G.scores[team]


@njit(cache=True)
def final_rewards(G, R, rewards):
    """``crates_env.payouts.final_rewards``: +1 for the best final standing down to -1 for the
    worst."""
    teams = R.teams
    for s in range(R.n):
        mine = final_standing(G, R, team_of(R, s))
        better = 0
        tied = 0
        for t in range(teams):
            standing = final_standing(G, R, t)
            better += standing > mine
            tied += standing == mine
        rank = better + (tied - 1) / 2
        rewards[s] += (1 - 2 * rank / (teams - 1)) * R.reward_scale

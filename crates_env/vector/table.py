"""What both families of the compiled engine share, below them: seats, moving cards, the draw
procedure D with its reshuffles and shuffle pressures, a hand's end and its scoring, the next
dealer, and what the environment pays: ``crates_env.game.Game``'s shared base (with
``crates_env.scoring`` and ``crates_env.payouts``), function for function.

Each function carries the name of the reference function it mirrors; read them side by side
(the rule map in docs/engine.md pairs them). The families stand on it: the Crates family in
``crates_env.vector.crates``, the Crazy Eights family in ``crates_env.vector.eights``, the
misplays ``penalize`` accepts in ``crates_env.vector.misplays``; the game's lifecycle for both
(the deal, applying an action, finishing a hand) in ``crates_env.vector.lifecycle``. ``G`` is one
game's record (``layout.STATE``), ``R`` the rules record (``layout.RULES``). Where the
reference raises ``HandEnded`` to abandon the rest of an action, a function here returns after
checking ``G.hand_over``: a draw that meets an empty stock with nothing to reshuffle ends the
hand on the spot, and nothing after it in that action happens.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import ACE, EIGHT, JOKER, THREE
from ..rules import EmptyStock, GameEnd, Pressure, ThreeScoring
from ..settings import RewardMode
from .layout import BLOCKED, PRESSURE
from .rng import permutation_into

# The rules' and the environment's names as the numbers the records hold (R.pressure, ...).
CAP20, FLAT5, NO_PRESSURE = int(Pressure.CAP20), int(Pressure.FLAT5), int(Pressure.NONE)
CRATES_THREES, KREIGHTS_THREES = int(ThreeScoring.CRATES), int(ThreeScoring.KREIGHTS)
PUNITIVE_THREES, COVER8_THREES = int(ThreeScoring.PUNITIVE), int(ThreeScoring.COVER8)
PLAIN_THREES = int(ThreeScoring.NONE)
RESHUFFLE, BLOCKED_STOCK = int(EmptyStock.RESHUFFLE), int(EmptyStock.BLOCKED)
LAST_PLAYER = int(GameEnd.LAST_PLAYER)
RELATIVE, WIN = int(RewardMode.RELATIVE), int(RewardMode.WIN)
ONE = np.uint64(1)
ZERO = np.uint64(0)
# A loop over the seats that finds none it wants ends with these (no game dealt or loaded
# comes to it; the record in ``VectorGame.states`` was written some other way).
NO_DEALER = "no seat in the game may deal: the record is no game reset or from_game wrote"
NO_SEAT = "no player is left in the game: the record is no game reset or from_game wrote"


@njit(cache=True, inline="always")
def kind_bit(kind):
    return ONE << np.uint64(kind)


@njit(cache=True, inline="always")
def rank_of(kind):
    return -1 if kind == JOKER else kind % 13


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
def decide(G, seat, decision):
    G.seat = seat
    G.decision = decision
    G.announced = False


@njit(cache=True)
def mark_kinds(out, kinds):
    """``out[k] = 1`` for every kind ``k`` in the bitmask ``kinds`` (the others left as they
    are)."""
    k = 0
    while kinds >> np.uint64(k) != ZERO:
        out[k] |= (kinds >> np.uint64(k)) & ONE
        k += 1


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
        rank = rank_of(k)
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
    """``score_kinds`` for a hand that holds threes (docs/rules.md §1.15)."""
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
        rank = rank_of(k)
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
    for _ in range(R.n):
        seat = (seat + step) % R.n
        if G.active[seat] and R.dealer_seats[seat]:
            return seat
    raise ValueError(NO_DEALER)


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

"""HeuristicAgent for a batch of positions in one compiled call (numba).

A twin of ``HeuristicAgent``'s play, method for method with the same names, so the two read side
by side: the Crates family's strategy, and the Crazy Eights family's (shed the costliest natural
card, keep the wilds). ``HeuristicAgent.act_batch`` calls it, and a test holds the two equal move
for move over random positions of every rule system. It reads the decoded batch (``Positions``) and
the table's rules as arrays (``TableArrays``); rows it cannot decide alone (a wild starter's suit,
named at random before the dealer looks at the hand) come back as -1 for the agent's own
generator.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from crates_env import Decision
from crates_env.actions import ANNOUNCE, DRAW, NUM_ACTIONS, SUIT
from crates_env.cards import FOUR, JOKER, NUM_KINDS, SEVEN, SIX, TEN, TWO
from crates_env.rules import COUNT_PIPS
from crates_env.vector.table import score_hand_counts
from crates_env.vector.vector_game import rules_record

from .base import Table
from .heuristic_data import (
    BLOCK,
    COOPER,
    COUNT_KEEP,
    DRAW_HURT,
    FOLLOW,
    LAST_SIX,
    LAST_WILD,
    OUT,
    PARTNER_LOW,
    SIX_FOLLOW,
    START_COUNT,
    SUIT_SHORT,
    THREAT_HURT,
    URGENCY,
    WILD_KEEP,
    WILD_KEEP_SMALL,
    Positions,
    follow_table,
    suit_naturals,
)

PENALTY_CARD = int(Decision.PENALTY_CARD)
STARTER_SUIT = int(Decision.STARTER_SUIT)
MAX_DRAWS = 12  # players a card's function may make draw (a 5 at a 12-seat craits table: 11)


class TableArrays(NamedTuple):
    """What HeuristicAgent knows of the table, as arrays the kernel reads."""

    n: int
    eights: bool  # a table of the Crazy Eights family (Table.engine == "eights")
    partner: int  # relative slot of the partner, -1 without partnerships
    card_points: np.ndarray  # (kinds,) int64
    copies: np.ndarray  # (kinds,) int64
    wild: np.ndarray  # (kinds,) bool: an 8 or 9 (not the Joker)
    follows: np.ndarray  # (4, 13, kinds) bool: heuristic_data.follow_table
    naturals: np.ndarray  # (4, kinds) bool: heuristic_data.suit_naturals
    count_pips: np.ndarray  # (13,) what each rank adds to a count, -1 if it is no count card
    n_draws: np.ndarray  # (kinds,) int64
    draw_seats: np.ndarray  # (kinds, MAX_DRAWS) seats on from the player
    draw_cards: np.ndarray  # (kinds, MAX_DRAWS)
    rules: np.record  # crates_env.vector's rules record: scores a hand as the rules do

    @classmethod
    def of(cls, table: Table) -> TableArrays:
        n_draws = np.zeros(NUM_KINDS, dtype=np.int64)
        seats = np.zeros((NUM_KINDS, MAX_DRAWS), dtype=np.int64)
        cards = np.zeros((NUM_KINDS, MAX_DRAWS), dtype=np.int64)
        for kind, function in enumerate(table.card_functions):
            n_draws[kind] = len(function.draws)
            for i, (seats_on, k) in enumerate(function.draws):
                seats[kind, i], cards[kind, i] = seats_on, k
        pips = np.full(13, -1, dtype=np.int64)
        for rank, value in COUNT_PIPS.items():
            pips[rank] = value
        return cls(
            n=table.num_players,
            eights=table.engine == "eights",
            partner=-1 if table.partner_slot is None else table.partner_slot,
            card_points=np.array(table.card_points, dtype=np.int64),
            copies=np.array(table.kind_copies, dtype=np.int64),
            wild=np.array([table.is_wild(k) for k in range(NUM_KINDS)]),
            follows=follow_table(table),
            naturals=suit_naturals(table),
            count_pips=pips,
            n_draws=n_draws,
            draw_seats=seats,
            draw_cards=cards,
            rules=rules_record(table.rules),
        )


def heuristic_actions(t: TableArrays, p: Positions, masks: np.ndarray) -> np.ndarray:
    """HeuristicAgent's action for each row (-1: a suit to name at random, before looking)."""
    out = np.empty(len(masks), dtype=np.int64)
    _actions(
        t,
        masks,
        p.hand,
        p.suit,
        p.rank,
        p.count,
        p.clockwise,
        p.sizes,
        p.played,
        p.stock,
        p.next_pressure,
        p.decision,
        out,
    )
    return out


@njit(cache=True)
def _actions(t, masks, hands, suits, ranks, counts, clockwise, sizes, played, stocks, pressure,
             decisions, out):  # fmt: skip
    for i in range(len(masks)):
        pos = (hands[i], suits[i], ranks[i], counts[i], clockwise[i], sizes[i], played[i],
               stocks[i], pressure[i])  # fmt: skip
        out[i] = _act(t, masks[i], pos, decisions[i])


@njit(cache=True)
def _act(t, mask, pos, decision):
    if mask[ANNOUNCE]:
        return ANNOUNCE  # rule 1
    hand = pos[0]
    first = -1
    for k in range(NUM_KINDS):
        if mask[k]:
            first = k
            break
    if first >= 0:
        if decision == PENALTY_CARD:
            best = first
            for k in range(first + 1, NUM_KINDS):
                if mask[k] and t.card_points[k] < t.card_points[best]:
                    best = k
            return best
        if t.eights:
            return _shed_keep_wilds(t, mask)
        if pos[3]:
            return _count_play(t, mask, first, pos)
        return _play(t, mask, first, pos)
    if mask[SUIT : SUIT + 4].any():
        if decision == STARTER_SUIT:
            return -1  # named before looking at the hand: the agent's own generator names it
        return SUIT + _best_suit(t, hand, pos, mask[SUIT : SUIT + 4])
    for a in range(SUIT + 4, NUM_ACTIONS):  # _fallback: draw only when nothing else is offered
        if mask[a] and a != DRAW:
            return a
    return DRAW


# ---------------------------------------------------------------------- seats
@njit(cache=True, inline="always")
def _slot(t, steps, pos):
    return (steps if pos[4] else -steps) % t.n


@njit(cache=True, inline="always")
def _side(t, slot):
    return -1 if slot == 0 or slot == t.partner else 1


@njit(cache=True, inline="always")
def _threat(size):
    return 1.0 if size <= 1 else 0.5 ** (size - 1)


@njit(cache=True)
def _danger(t, pos):
    danger = 0.0
    for s in range(1, t.n):
        danger = max(danger, _threat(pos[5][s]))
    return danger


@njit(cache=True, inline="always")
def _hurt_threat(t, slot, pos):
    return _side(t, slot) * _threat(pos[5][slot])


# ---------------------------------------------------------------------- rules 2-8, 10
@njit(cache=True)
def _play(t, mask, first, pos):
    hand = pos[0]
    held = hand.sum()
    if held == 1:
        last = np.argmax(hand)
        if last % 13 != SIX or last == JOKER:
            return first  # rule 2: the last card is the legal one
    danger = _danger(t, pos)
    points = score_hand_counts(t.rules, hand)
    natural_play = False
    for k in range(NUM_KINDS):
        if mask[k] and not t.wild[k]:
            natural_play = True
    unseen = _unseen(t, pos)
    allowed = mask[:NUM_KINDS].copy()
    if t.partner >= 0 and pos[5][t.partner] <= PARTNER_LOW:
        # rule 5: no card for a partner about to go out, unless nothing else is legal
        for k in range(NUM_KINDS):
            if allowed[k] and _hits_partner(t, k, pos):
                allowed[k] = False
        if not allowed.any():
            allowed = mask[:NUM_KINDS].copy()
    rest = hand.copy()
    best, best_value = -1, -np.inf
    for kind in range(NUM_KINDS):
        if not allowed[kind]:
            continue
        if best < 0:
            best = kind
        rest[kind] -= 1
        shed = points - score_hand_counts(t.rules, rest)
        value = shed * (1 + URGENCY * danger)  # rule 10 (and 7: the shed is three-aware)
        value += _effect(t, kind, rest, pos)
        value += _keep(t, kind, rest, danger, natural_play, pos)
        suit, rank = _leaves(t, kind, rest, pos)
        value += _shape(t, rest, suit, rank)
        value += _block(t, kind, suit, rank, unseen, pos)
        rest[kind] += 1
        if value > best_value:
            best, best_value = kind, value
    return best


@njit(cache=True)
def _leaves(t, kind, rest, pos):
    if kind == JOKER:
        return pos[1], pos[2]  # transparent
    if t.wild[kind]:
        return _best_suit(t, rest, pos, np.ones(4, dtype=np.bool_)), kind % 13
    return kind // 13, kind % 13


@njit(cache=True)
def _block(t, kind, suit, rank, unseen, pos):
    r = -1 if kind == JOKER else kind % 13
    if r in (SIX, TWO) or suit < 0 or rank < 0:
        return 0.0  # we play again, or a count starts: matching does not apply
    if r == FOUR:
        target = _slot(t, 2, pos)  # the next player is skipped
    elif r == TEN or kind == JOKER:
        target = _slot(t, -1, pos)  # the previous player plays next
    else:
        target = _slot(t, 1, pos)
    total = unseen.sum()
    if total <= 0:
        return 0.0
    match = 0
    for k in range(NUM_KINDS):
        if t.follows[suit, rank, k]:
            match += unseen[k]
    return BLOCK * _hurt_threat(t, target, pos) * (1 - match / total)


@njit(cache=True)
def _effect(t, kind, rest, pos):
    sizes = pos[5]
    if kind == JOKER:  # the previous player plays again
        prev = _slot(t, -1, pos)
        return -_side(t, prev) * THREAT_HURT * _threat(sizes[prev])
    rank = kind % 13
    nxt, prev = _slot(t, 1, pos), _slot(t, -1, pos)
    if rank == TWO:  # a count starts on the next player
        return _side(t, nxt) * START_COUNT * _threat(sizes[nxt]) ** 2
    if rank == FOUR:
        return _side(t, nxt) * (5 + THREAT_HURT * _threat(sizes[nxt]))
    if rank == TEN and t.n > 2:  # the previous player plays next instead
        return THREAT_HURT * (_hurt_threat(t, nxt, pos) - _hurt_threat(t, prev, pos))
    if rank == SIX:
        return _six(t, kind, rest, pos)
    value = 0.0
    for i in range(t.n_draws[kind]):
        s = _slot(t, t.draw_seats[kind, i], pos)
        value += _side(t, s) * (DRAW_HURT + THREAT_HURT * _threat(sizes[s])) * t.draw_cards[kind, i]
    return value + _pressure(t, kind, pos)


@njit(cache=True)
def _hits_partner(t, kind, pos):
    if kind == JOKER or kind % 13 != SEVEN or t.partner < 0:
        return False
    for i in range(t.n_draws[kind]):  # noqa: SIM110 (a loop compiles; a generator does not)
        if _slot(t, t.draw_seats[kind, i], pos) == t.partner:
            return True
    return False


@njit(cache=True)
def _pressure(t, kind, pos):
    """The shuffle pressure lands on whoever draws past the end of the stock."""
    left = pos[7]
    for i in range(t.n_draws[kind]):
        slot, k = _slot(t, t.draw_seats[kind, i], pos), t.draw_cards[kind, i]
        if k > left:
            return _side(t, slot) * pos[8][slot]
        left -= k
    return 0.0


@njit(cache=True)
def _six(t, six, rest, pos):
    follows = 0
    for k in range(NUM_KINDS):
        if rest[k] and _follows(t, k, six // 13, SIX):
            follows += rest[k]
    if not follows:
        return -COOPER - (pos[8][0] if pos[7] == 0 else 0.0)
    if rest.sum() == 1 and np.argmax(rest) % 13 != SIX:
        return OUT  # 6 then the last card: out this turn
    return SIX_FOLLOW


@njit(cache=True, inline="always")
def _follows(t, kind, suit, rank):
    if kind == JOKER or t.wild[kind]:
        return True
    return suit < 0 or kind // 13 == suit or kind % 13 == rank


@njit(cache=True)
def _keep(t, kind, rest, danger, natural_play, pos):
    calm = 1 - danger
    if t.wild[kind]:
        if not natural_play:
            return 0.0
        small = WILD_KEEP_SMALL if rest.sum() <= 2 else 0.0
        # A forced draw from a short stock is a shuffle pressure: a wild prevents it.
        short = pos[8][0] if pos[7] <= t.n else 0.0
        return -(WILD_KEEP + small) * calm - short
    if kind != JOKER and t.count_pips[kind % 13] >= 0:
        answers = 0
        for k in range(JOKER):
            if rest[k] and t.count_pips[k % 13] >= 0:
                answers += rest[k]
        return -COUNT_KEEP * calm if answers == 0 else -2.0 * calm
    return 0.0


@njit(cache=True)
def _shape(t, rest, suit, rank):
    if rest.sum() == 1:
        last = np.argmax(rest)
        if t.wild[last]:
            return LAST_WILD
        if last != JOKER and last % 13 == SIX:
            return -LAST_SIX
    follow = 0
    for k in range(NUM_KINDS):
        if rest[k] and _follows(t, k, suit, rank):
            follow += rest[k]
    return FOLLOW * min(follow, 3)


# ---------------------------------------------------------------------- rule 3
@njit(cache=True)
def _count_play(t, mask, first, pos):
    if pos[0].sum() == 1:
        return first  # out (the count goes on without us)
    best, best_value = -1, -np.inf
    for kind in range(NUM_KINDS):
        if not mask[kind]:
            continue
        if kind == JOKER:  # bounces the same count back to the previous player
            target, total = _slot(t, -1, pos), pos[3]
        else:
            pips = t.count_pips[kind % 13]
            target, total = _slot(t, 1, pos), pos[3] + max(pips, 0)
        value = t.card_points[kind] + _side(t, target) * 5.0 * total
        if value > best_value:
            best, best_value = kind, value
    return best


# ---------------------------------------------------------------------- rule 9
@njit(cache=True)
def _best_suit(t, hand, pos, suits):
    """The suit we hold most of, less what the others may still hold of it."""
    unseen = _unseen(t, pos)
    weight = SUIT_SHORT * (1 + _danger(t, pos))
    best, best_value = -1, -np.inf
    for suit in range(4):
        if not suits[suit]:
            continue
        held = 0
        short = 0
        for k in range(NUM_KINDS):
            if t.naturals[suit, k]:
                held += hand[k]
                short += unseen[k]
        value = held - weight * short
        if value > best_value:
            best, best_value = suit, value
    return best


@njit(cache=True)
def _unseen(t, pos):
    """Copies of each kind neither held nor played this hand: what the others may hold."""
    return np.maximum(t.copies - pos[0] - pos[6], 0)


# ---------------------------------------------------------------------- other families
@njit(cache=True)
def _shed_keep_wilds(t, mask):
    """The costliest legal natural card (the lowest kind on a tie), a wild only when nothing
    else is legal."""
    best = -1
    for wild in (False, True):
        for k in range(NUM_KINDS):
            if (
                mask[k]
                and t.wild[k] == wild
                and (best < 0 or t.card_points[k] > t.card_points[best])
            ):
                best = k
        if best >= 0:
            return best
    return best

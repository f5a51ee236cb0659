"""Fuzzing the compiled engine: random legal play with the game's invariants checked after every
step, as the reference engine's property tests check it.

``fuzz`` plays a batch of ``VectorGame`` games with uniformly random legal actions (with
``misplay_mode="penalize"``, one move in ``MISPLAY_SHARE`` a random misplay the rules penalise,
where there is one; finished slots are dealt new games) and after every step checks every game:

- every card is in exactly one place: each kind's copies in the hands, the stock and the discard
  pile add up to the deck's;
- sizes: each hand's size is its cards, the kinds marked held are the kinds it holds, the stock
  and the discard pile lie within the deck; penalty cards are cards of the hand, marked as such;
- a player knocked out holds no cards and is never to play;
- scores change only when a hand ends, and the hands finished never go down;
- the action mask is the legal moves: each of the 63 actions is in the mask exactly when the
  engine says it is legal, and in the mask of accepted actions exactly when the engine accepts
  it (two separate pieces of code each: ``legal_into`` and ``is_legal``, ``acceptable_into`` and
  ``is_acceptable``); a game in play offers at least one, a finished game none, and the seat to
  play is at the table.

The first broken invariant raises :class:`Broken` naming the table, the game's seed, the step and
what broke. The tests run a sample over random tables (``tests/test_vector_fuzz.py``, also with
numba's bounds checking on); ``benchmarks/vector_fuzz.py`` runs 10^7 decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from crates_env.vector import VectorGame
from crates_env.vector.layout import MAX_SEATS
from crates_env.vector.lifecycle import is_acceptable, is_legal
from crates_env.vector.table import to_play

MISPLAY_SHARE = 16  # with penalize, one move in 16 is a misplay where the rules accept one

# what broke (0: nothing)
CARDS, SIZES, HELD, PILES, SCORES, HANDS, MASK, NO_MOVE, OVER_MOVES, SEAT, EXPOSED, OUT = range(
    1, 13
)
WHAT = {
    CARDS: "a kind's copies in hands, stock and discard pile do not add up to the deck's",
    SIZES: "a hand's size is not the number of its cards",
    HELD: "the kinds marked held are not the kinds in the hand",
    PILES: "the stock or the discard pile lies outside the deck",
    SCORES: "the scores changed within a hand",
    HANDS: "the hands finished went down",
    MASK: "the action mask is not the moves the engine accepts",
    NO_MOVE: "a game in play offers no legal move",
    OVER_MOVES: "a finished game offers a move",
    SEAT: "the seat to play is not at the table",
    EXPOSED: "the penalty cards are not cards of the hand, marked as such",
    OUT: "a player knocked out holds cards or is to play",
}


class Broken(AssertionError):
    """An invariant of the game does not hold in the compiled engine."""


@dataclass
class Fuzzed:
    """What a fuzz run played: decisions checked, games finished."""

    decisions: int = 0
    games: int = 0


@njit(cache=True)
def _copies(R):
    """The deck's copies of each kind."""
    copies = np.zeros(R.kind_points.shape[0], np.int64)
    for i in range(R.deck_size):
        copies[R.deck_kinds[i]] += 1
    return copies


@njit(cache=True)
def check_games(states, R, masks, accepted, scores_before, hands_before, broken):
    """``broken[b]``: the first invariant game ``b`` breaks (0: none), after a step from
    ``scores_before`` and ``hands_before``; ``masks`` and ``accepted`` are its legal and
    accepted masks now."""
    copies = _copies(R)
    seen = np.zeros(copies.shape[0], np.int64)
    for b in range(states.shape[0]):
        G = states[b]
        broken[b] = 0
        if G.n_stock < 0 or G.n_discard < 0 or G.n_stock + G.n_discard > R.deck_size:
            broken[b] = PILES
            continue
        seen[:] = 0
        for i in range(G.n_stock):
            seen[G.stock[i]] += 1
        for i in range(G.n_discard):
            seen[G.discard[i]] += 1
        for s in range(R.n):
            size = 0
            for k in range(copies.shape[0]):
                held = G.counts[s, k]
                seen[k] += held
                size += held
                marked = (G.held[s] >> np.uint64(k)) & np.uint64(1) == np.uint64(1)
                if held < 0 or marked != (held > 0):
                    broken[b] = HELD
                exposed = G.exposed[s, k]
                shown = (G.exposed_held[s] >> np.uint64(k)) & np.uint64(1) == np.uint64(1)
                if exposed < 0 or exposed > held or shown != (exposed > 0):
                    broken[b] = EXPOSED
            if size != G.sizes[s]:
                broken[b] = SIZES
            if not G.active[s] and (size or (not G.game_over and to_play(G, R) == s)):
                broken[b] = OUT
        if broken[b]:
            continue
        for s in range(R.n, MAX_SEATS):
            if G.sizes[s] != 0 or G.held[s] != np.uint64(0):
                broken[b] = SIZES
        for k in range(copies.shape[0]):
            if seen[k] != copies[k]:
                broken[b] = CARDS
        if broken[b]:
            continue
        if G.hand_index < hands_before[b]:
            broken[b] = HANDS
            continue
        if G.hand_index == hands_before[b] and not G.game_over:
            for t in range(R.teams):
                if G.scores[t] != scores_before[b, t]:
                    broken[b] = SCORES
        if broken[b]:
            continue
        offered = 0
        for a in range(masks.shape[1]):
            offered += masks[b, a]
            if (masks[b, a] == 1) != is_legal(G, R, a):
                broken[b] = MASK
            if (accepted[b, a] == 1) != is_acceptable(G, R, a) or accepted[b, a] < masks[b, a]:
                broken[b] = MASK
        if broken[b]:
            continue
        if G.game_over and offered:
            broken[b] = OVER_MOVES
        elif not G.game_over and not offered:
            broken[b] = NO_MOVE
        elif not G.game_over and not 0 <= to_play(G, R) < R.n:
            broken[b] = SEAT


def fuzz(
    preset: str,
    num_players: int,
    decisions: int,
    seed: int,
    games: int = 256,
    **kwargs: Any,
) -> Fuzzed:
    """Play ``decisions`` random decisions on ``games`` slots of the table (new games dealt as
    old ones end; slot ``i`` first deals seed ``seed + i``), checking every invariant after
    every step; raises :class:`Broken` at the first that fails."""
    vg = VectorGame(games, preset, num_players, autoreset=True, **kwargs)
    vg.reset(seed)
    table = f"{preset} {num_players}p {kwargs}"
    rng = np.random.default_rng(seed)
    broken = np.zeros(games, dtype=np.int64)
    mask, accepted = vg.legal_mask(), vg.acceptable_mask()
    _check(vg, mask, accepted, vg.scores, vg.hands_played, broken, table, 0)
    played = Fuzzed()
    step = 0
    while played.decisions < decisions:
        scores, hands = vg.scores, vg.hands_played
        _, ended = vg.step(random_moves(vg, rng, mask, accepted))
        step += 1
        played.decisions += games
        played.games += int(ended.sum())
        # a slot dealt a new game starts over from that game's first deal
        scores[ended], hands[ended] = vg.scores[ended], vg.hands_played[ended]
        mask, accepted = vg.legal_mask(mask), vg.acceptable_mask(accepted)
        _check(vg, mask, accepted, scores, hands, broken, table, step)
    return played


def random_moves(
    vg: VectorGame, rng: np.random.Generator, mask: np.ndarray, accepted: np.ndarray
) -> np.ndarray:
    """A random legal move in every game; where the rules penalise misplays, one game in
    ``MISPLAY_SHARE`` with a misplay to make takes a random misplay instead."""
    moves = vg.random_actions(rng, mask)
    misplays = accepted & ~mask
    misplaying = misplays.any(axis=1) & (rng.integers(MISPLAY_SHARE, size=len(mask)) == 0)
    if misplaying.any():
        misplays[~misplaying] = mask[~misplaying]
        moves = np.where(misplaying, vg.random_actions(rng, misplays), moves)
    return moves


def _check(vg, mask, accepted, scores, hands, broken, table, step) -> None:
    check_games(vg.states, vg.R, mask, accepted, scores, hands, broken)
    bad = np.flatnonzero(broken)
    if bad.size:
        b = int(bad[0])
        where = f"{table}, slot {b} (game seed {vg.seeds[b]}), step {step}"
        raise Broken(f"{where}: {WHAT[int(broken[b])]}")

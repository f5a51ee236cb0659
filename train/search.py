"""A search teacher: HeuristicAgent, improved by rollouts where the stock runs short.

Shuffle pressures double all game long, so who meets the empty stock decides much of a game's
points, and that is a matter of counting: which play leaves the last cards of the stock to an
opponent. The teacher plays like HeuristicAgent until the stock is down to ``stock_max`` cards;
from there, at every real choice, it tries each legal move on ``samples`` deals of the unseen
cards (perfect-information Monte Carlo: the other hands and the stock re-dealt at random, sizes
kept), plays each to the end of the hand with HeuristicAgent in every seat, and picks the move
whose hands scored best for its side against the others. The same re-deals serve every move, so
the comparison between moves is not swamped by the luck of the re-deal.

It is a teacher for the warm start (``warm_start.teacher: search``), not an agent at the table:
it needs the engine to look ahead, and a few hundred milliseconds a move.
"""

from __future__ import annotations

import copy

import numpy as np

from agents import HeuristicAgent, Table
from crates_env.env import legal_mask
from crates_env.game import Game


class SearchTeacher:
    """Acts for the seat to play in ``env`` (a ``raw_env``) from its observation and mask."""

    def __init__(self, table: Table, samples: int = 8, stock_max: int = 6, seed: int = 0):
        self.heuristic = HeuristicAgent(table)
        self.samples, self.stock_max = samples, stock_max
        self.rng = np.random.default_rng(seed)

    def act_in(self, env, observation: np.ndarray, action_mask: np.ndarray) -> int:
        g = env.game
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1 or len(g.stock) > self.stock_max:
            return int(self.heuristic.act(observation, action_mask))
        return int(legal[self.move_values(env, legal).argmax()])

    def move_values(self, env, legal: np.ndarray) -> np.ndarray:
        """Mean score of each legal move for the mover's side: the others' points in the
        rest of this hand minus its own (higher is better), over the re-deals."""
        g = env.game
        seat, hand = g.to_play, len(g.results)
        values = np.zeros((len(legal), self.samples))
        for k in range(self.samples):
            deal = redeal(g, seat, self.rng)
            play_seed = int(self.rng.integers(2**31))
            for i, action in enumerate(legal):
                trial = fast_copy(deal)
                trial.rng = np.random.default_rng(play_seed)  # same reshuffles for every move
                trial.apply(int(action))
                self._play_out(env, trial, hand)
                values[i, k] = _side_margin(trial, hand, env.rules.team_of(seat))
        return values.mean(axis=1)

    def _play_out(self, env, g: Game, hand: int) -> None:
        while not g.game_over and len(g.results) == hand:
            observation = env.observer.encode(g, g.to_play)
            g.apply(int(self.heuristic.act(observation, legal_mask(g))))


def _side_margin(g: Game, hand: int, team: int) -> float:
    """The others' mean points minus the side's, in hand ``hand`` (0 if it has not ended)."""
    if len(g.results) <= hand:
        return 0.0
    points = g.results[hand].team_points
    others = [p for t, p in enumerate(points) if t != team]
    return float(np.mean(others) - points[team])


def redeal(g: Game, seat: int, rng: np.random.Generator) -> Game:
    """A copy of ``g`` with the cards ``seat`` cannot see dealt again at random: the other
    hands (face-up penalty cards stay put) and the stock, every size kept."""
    out = fast_copy(g)
    others = [s for s in range(g.n) if s != seat]
    hidden = [g.hands[s] & ~g.exposed[s] for s in others]
    pool = [i for mask in hidden for i in _ids(mask)] + list(g.stock)
    rng.shuffle(pool)
    start = 0
    for s, mask in zip(others, hidden, strict=True):
        take = mask.bit_count()
        fresh = 0
        for i in pool[start : start + take]:
            fresh |= 1 << int(i)
        out.hands[s] = (g.hands[s] & g.exposed[s]) | fresh
        start += take
    out.stock = [int(i) for i in pool[start:]]
    return out


def fast_copy(g: Game) -> Game:
    """A deep copy that shares the immutable rules and deck and leaves the event log behind."""
    events, g.events = g.events, []
    try:
        return copy.deepcopy(g, memo={id(g.rules): g.rules, id(g.deck): g.deck})
    finally:
        g.events = events


def _ids(mask: int) -> list[int]:
    ids = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return ids

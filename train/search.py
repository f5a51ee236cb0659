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
it needs the engine to look ahead (``Game.resample_hidden`` and ``Game.clone``, nothing else),
and a few hundred milliseconds a move.
"""

from __future__ import annotations

import numpy as np

from agents import HeuristicAgent, Table
from crates_env.env import legal_mask
from crates_env.game import Game
from crates_env.observation import Observer


class SearchTeacher:
    """Acts for the seat to play in ``env`` (a ``raw_env``) from its observation and mask."""

    def __init__(self, table: Table, samples: int = 8, stock_max: int = 6, seed: int = 0):
        self.heuristic = HeuristicAgent(table)
        self.samples, self.stock_max = samples, stock_max
        self.rng = np.random.default_rng(seed)

    def act_in(self, env, observation: np.ndarray, action_mask: np.ndarray) -> int:
        g = env.game
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1 or g.view(g.to_play).stock_size > self.stock_max:
            return int(self.heuristic.act(observation, action_mask))
        return int(legal[self.move_values(env, legal).argmax()])

    def move_values(self, env, legal: np.ndarray) -> np.ndarray:
        """Mean score of each legal move for the mover's side: the others' points in the
        rest of this hand minus its own (higher is better), over the re-deals.

        Each re-deal is ``resample_hidden`` for the mover's seat, so the search never reads a
        card the seat cannot see; every move is tried on a clone of the same re-deal, whose
        reshuffles are the same too."""
        g = env.game
        seat = g.to_play
        team = env.rules.team_of(seat)
        values = np.zeros((len(legal), self.samples))
        for k in range(self.samples):
            deal = g.resample_hidden(seat, self.rng)
            for i, action in enumerate(legal):
                trial = deal.clone()
                trial.apply(int(action))
                values[i, k] = self._play_out(env.observer, trial, g.hand_index, team)
        return values.mean(axis=1)

    def _play_out(self, observer: Observer, g: Game, hand: int, team: int) -> float:
        """Play hand ``hand`` of ``g`` to its end with HeuristicAgent in every seat; the side
        ``team``'s margin in it (0 if the game stopped before it ended)."""
        while not g.game_over and g.hand_index == hand:
            seat = g.to_play
            g.apply(int(self.heuristic.act(observer.encode(g.view(seat)), legal_mask(g))))
        return _side_margin(g, hand, team)


def _side_margin(g: Game, hand: int, team: int) -> float:
    """The others' mean points minus the side's, in hand ``hand`` (0 if it has not ended)."""
    result = next((r for r in reversed(g.results) if r.hand_index == hand), None)
    if result is None:
        return 0.0
    points = result.team_points
    others = [p for t, p in enumerate(points) if t != team]
    return float(np.mean(others) - points[team])

"""What the environment pays each seat for a game's moves, and the calls it makes for a seat:
``Payouts`` plays a ``Game`` as the AEC environment (``crates_env.env.raw_env``) and the batch
of reference games (``crates_env.batch.ReferenceGames``) both play it, with the environment's
settings (``crates_env.settings.EnvSettings``) applied to every move.

Below the environment, so that a batch of reference games needs nothing of its libraries; the
compiled twin (``crates_env.vector``) pays the same in its kernels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .actions import ANNOUNCE, NUM_ACTIONS
from .game import Game, HandResult
from .rules import Ruleset
from .settings import EnvSettings


def legal_mask(g: Game) -> np.ndarray:
    """The int8 action mask of the seat to play in ``g`` (``observe`` gives it to that agent)."""
    mask = bytearray(NUM_ACTIONS)  # filled in Python and wrapped: faster than numpy indexing
    for action in g.legal_actions():
        mask[action] = 1
    return np.frombuffer(mask, dtype=np.int8)


class Payouts:
    """``game`` played with the environment's ``settings``: ``start`` once it is dealt, then
    ``apply`` for every action; each returns what every seat is paid on that move (a list, per
    seat, scaled), and ``finished`` holds the hands the move finished.

    A seat is paid its side's points of every hand finished (``reward_mode``: its own as the
    preset counts them, or its margin over the others' mean), a shuffle pressure's points the
    moment it is taken (``reward_timing="event"``), and with ``reward_mode="win"`` only the final
    standing, +1 best to -1 worst. With ``one_card="auto"`` every "one card" call offered is made
    at once. ``paid``: per side, pressure points of the hand in play already paid."""

    def __init__(
        self, game: Game, settings: EnvSettings, paid: Sequence[int] | None = None
    ) -> None:
        self.game, self.settings = game, settings
        self.rules: Ruleset = game.rules
        self.paid = list(paid) if paid is not None else [0] * self.rules.num_teams
        self.finished: list[HandResult] = []

    def start(self) -> list[float]:
        """The payouts of the deal (a hand may end as it is dealt)."""
        self._auto_announce()
        return self._after_move(0)

    def apply(self, action: int) -> list[float]:
        """Play ``action`` for the seat to play; a refused action raises the engine's
        ``ValueError`` and changes nothing."""
        g = self.game
        hands_before = g.hand_index
        g.apply(action)
        self._auto_announce()
        return self._after_move(hands_before)

    def clone(self) -> Payouts:
        """An independent copy: both play on identically."""
        return Payouts(self.game.clone(), self.settings, self.paid)

    def _auto_announce(self) -> None:
        g = self.game
        while (
            self.settings.auto_announce and g.decision is not None and ANNOUNCE in g.legal_actions()
        ):
            g.apply(ANNOUNCE)

    def _after_move(self, hands_before: int) -> list[float]:
        """Pay every hand finished since hand ``hands_before`` was being played, this hand's
        pressures so far (``reward_timing="event"``) and the final standing
        (``reward_mode="win"``)."""
        g, r = self.game, self.rules
        rewards = [0.0] * r.num_players
        done = g.hand_index - hands_before
        self.finished = g.results[-done:] if done else []
        for result in self.finished:
            self._pay_unpaid(result.team_points, rewards)
            self.paid = [0] * r.num_teams
        if self.settings.pressures_at_once and not g.game_over:
            charged = g.pressure_points  # the hand in play: its pressures so far
            self._pay_unpaid(charged, rewards)
            self.paid = list(charged)
        if g.game_over and self.settings.reward_mode == "win" and not g.truncated:
            for seat, reward in enumerate(final_rewards(g)):
                rewards[seat] += reward * self.settings.reward_scale
        return rewards

    def _pay_unpaid(self, hand_points: Sequence[int], rewards: list[float]) -> None:
        """Add every seat's reward for ``hand_points`` (per side, this hand's so far), less the
        pressure points already paid for the hand."""
        points = [p - paid for p, paid in zip(hand_points, self.paid, strict=True)]
        mode = self.settings.reward_mode
        if mode == "win" or not any(points):
            return
        r = self.rules
        for seat in range(r.num_players):
            value = side_reward(points, r.team_of(seat), mode, r)
            rewards[seat] += value * self.settings.reward_scale


def final_rewards(g: Game) -> list[float]:
    """Per seat, unscaled: +1 for the best final standing down to -1 for the worst; ties share
    their ranks."""
    standing = final_standing(g)
    teams = len(standing)
    rewards = []
    for seat in range(g.rules.num_players):
        mine = standing[g.rules.team_of(seat)]
        better = sum(s > mine for s in standing)
        tied = sum(s == mine for s in standing)
        rank = better + (tied - 1) / 2  # 0 = best
        rewards.append(1 - 2 * rank / (teams - 1))
    return rewards


def side_reward(points: Sequence[float], team: int, reward_mode: str, rules: Ruleset) -> float:
    """What per-team ``points`` are worth to side ``team`` (unscaled), by ``reward_mode``:
    "points", its own as the preset counts them (a cost, or won where the winner collects:
    ``Ruleset.point_sign``); "relative", its margin over the others' mean
    (``Ruleset.margin``)."""
    if reward_mode == "relative":
        return float(rules.margin(points, team))
    return float(rules.point_sign * points[team])


def final_standing(g: Game) -> list[float]:
    """Per side, larger is better: the score as the preset ranks it (``Ruleset.standing``), or
    in an elimination game the hand in which the side was knocked out (the winner never is)."""
    r = g.rules
    if r.game_end == "last_player":
        out = {s: i for i, res in enumerate(g.results) for s in res.eliminated}
        return [float(out.get(s, len(g.results) + 1)) for s in range(g.n)]
    return r.standing(g.scores)

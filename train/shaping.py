"""Pressure shaping: a shuffle pressure charged, the moment it is taken, what it costs the game.

A pressure's face value is small (5, 10, 20 points) but every later pressure of the same side is
worth double: in 4-player crates a first pressure in the first hand costs its 5 points plus, on
average, some 320 points of the side's later pressures. Per-hand rewards charge only the 5, so a
learner sees almost nothing of what decides the mean points it is judged by.

This module adds potential-based shaping (Ng, Harada and Russell, 1999) to the learner's reward:
the potential of a position is the expected cost of the pressures the sides will take in the
hands still to come, given how many each has taken so far,

    phi = (the others' expected future pressure points) - (the side's own)   ("relative"),
    phi = - (the side's own)                                                  ("points"),

and each learner step receives ``phi(after) - phi(before)`` on top of its reward. The charges
telescope: over a whole game they add up to ``phi(end) - phi(start)``, zero for "relative"
(and a constant for "points"), so the undiscounted return of a game is unchanged, but a pressure
is paid its expected full cost on the spot instead of hands later, where a discount of 0.99 a
step would all but hide it. The expected future counts come from games of HeuristicAgent against
itself (``measure``); any estimate keeps the game's total, a good one only lowers the variance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents import HeuristicAgent, Table
from crates_env.env import raw_env
from crates_env.payouts import legal_mask, side_reward
from crates_env.rules import Ruleset
from crates_env.scoring import pressure_value
from crates_env.view import PublicView

MAX_TAKEN = 60  # pressures a side may have taken before the table stops growing


@dataclass
class PressureShaping:
    """``cost[k][h]``: expected points of a side's pressures in the hands after hand ``h``
    (0-based), when it has taken ``k`` so far; ``mode`` is the reward mode ("points",
    "relative"); ``scale`` is the environment's ``reward_scale``; ``rules`` the table's."""

    cost: list[list[float]]
    mode: str
    scale: float
    rules: Ruleset

    @classmethod
    def from_counts(
        cls, rules: Ruleset, later: list[list[int]], mode: str, scale: float
    ) -> PressureShaping:
        """``later[h]`` holds samples of how many pressures a side took after hand ``h``."""
        values = np.array([pressure_value(n, rules.pressure) for n in range(1, 2 * MAX_TAKEN)])
        # cumulative[k, m]: points of the pressures k+1 .. k+m
        cumulative = np.concatenate([[0.0], np.cumsum(values)])
        counts = [np.minimum(np.asarray(s, dtype=int), MAX_TAKEN - 1) for s in later]
        cost = [
            [float(np.mean(cumulative[k + m] - cumulative[k])) if len(m) else 0.0 for m in counts]
            for k in range(MAX_TAKEN + 1)
        ]
        return cls(cost, mode, scale, rules)

    @classmethod
    def measure(
        cls, env_kwargs: dict, games: int, seed: int = 0
    ) -> tuple[PressureShaping, list[list[int]]]:
        """Play ``games`` games of HeuristicAgent in every seat and count, for each hand, the
        pressures each side took after it. Returns the shaping and those counts (to store)."""
        env = raw_env(**env_kwargs)
        rules = env.rules
        check_shapeable(rules, env.reward_mode)
        table = Table.from_env(env)
        agent = HeuristicAgent(table, seed=seed)
        later: list[list[int]] = [[] for _ in range(rules.num_hands)]
        env.reset(seed=seed)
        for _ in range(games):
            g = env.game
            while not g.game_over:
                env.step(int(agent.act(env.observer.encode(g.view(g.to_play)), legal_mask(g))))
            if len(g.results) == rules.num_hands:  # a truncated game says nothing
                for team in range(rules.num_teams):
                    taken = [r.pressures[team] for r in g.results]
                    for h in range(rules.num_hands):
                        later[h].append(sum(taken[h + 1 :]))
            env.reset()
        return cls.from_counts(rules, later, env.reward_mode, env.reward_scale), later

    def future(self, taken: int, hand: int) -> float:
        """Expected points of a side's pressures after hand ``hand``, ``taken`` so far."""
        if hand >= len(self.cost[0]):
            return 0.0
        return self.cost[min(taken, MAX_TAKEN)][hand]

    def potential(self, view: PublicView, team: int) -> float:
        """The shaping potential of the position ``view`` shows, for side ``team``, in reward
        units."""
        if view.game_over:
            return 0.0
        future = [self.future(taken, view.hand_index) for taken in view.pressures]
        # the later pressures are points to come, valued as the rewards value points
        return side_reward(future, team, self.mode, self.rules) * self.scale


def check_shapeable(rules: Ruleset, reward_mode: str) -> None:
    """ValueError unless pressure shaping means something for these rules and rewards."""
    if rules.pressure == "none" or rules.num_hands is None:
        raise ValueError(
            f"pressure shaping needs shuffle pressures and a fixed number of hands, which "
            f"{rules.preset} does not have"
        )
    if reward_mode not in ("points", "relative"):
        raise ValueError(
            f"pressure shaping needs reward_mode points or relative, not {reward_mode!r}"
        )

"""What the environment adds to the rules: the settings the AEC environment
(``crates_env.env.raw_env``) and its compiled twin (``crates_env.vector.VectorGame``) both take,
their checks, and how a reset's seed becomes a game.

Below both, so the twin needs nothing of the environment's libraries (gymnasium, pettingzoo).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np


class RewardMode(IntEnum):
    """What a seat is paid for its side's points (the compiled engine reads the number)."""

    POINTS = 0  # its side's points as the preset counts them (Ruleset.point_sign)
    RELATIVE = 1  # its side's margin over the others' mean (Ruleset.margin)
    WIN = 2  # at the end only: +1 for the best final standing down to -1 for the worst


REWARD_MODES = tuple(mode.name.lower() for mode in RewardMode)
REWARD_TIMINGS = ("hand", "event")
ONE_CARD_MODES = ("action", "auto")


def one_of(name: str, value: object, choices: Sequence[str | None]) -> str | None:
    """``value`` if it is one of ``choices``; a ValueError naming them otherwise."""
    if value is None and None in choices:
        return None
    if not isinstance(value, str) or value not in choices:
        valid = ", ".join(str(c) for c in choices)
        raise ValueError(f"{name}={value!r} is not valid; use one of {valid}")
    return value


def finite_number(name: str, value: object) -> float:
    """A finite number as a float; a ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return float(value)


@dataclass(frozen=True)
class EnvSettings:
    """The environment's own keyword arguments, checked: a bad one is a ValueError naming it
    and the valid choices (what each does: ``raw_env``'s docstring)."""

    reward_mode: str = "points"
    reward_scale: float = 1.0
    reward_timing: str = "hand"
    one_card: str = "action"

    def __post_init__(self) -> None:
        one_of("reward_mode", self.reward_mode, REWARD_MODES)
        one_of("reward_timing", self.reward_timing, REWARD_TIMINGS)
        one_of("one_card", self.one_card, ONE_CARD_MODES)
        scale = finite_number("reward_scale", self.reward_scale)
        if scale <= 0:  # 0 pays nothing; below, every reward would point the wrong way
            raise ValueError(f"reward_scale must be > 0, not {scale!r}")
        object.__setattr__(self, "reward_scale", scale)

    @property
    def mode(self) -> RewardMode:
        return RewardMode[self.reward_mode.upper()]

    @property
    def pressures_at_once(self) -> bool:
        """Each pressure paid the moment it is taken, so the decision that caused it is not
        credited only at the end of the hand, behind the luck of everybody's cards."""
        return self.reward_timing == "event" and self.reward_mode != "win"

    @property
    def auto_announce(self) -> bool:
        return self.one_card == "auto"


def next_game_rng(stream: np.random.Generator) -> np.random.Generator:
    """The generator of the next game a reset stream deals: ``reset(seed=s)`` deals the game of
    ``next_game_rng(default_rng(s))``, and plain resets the following ones."""
    return np.random.default_rng(stream.integers(2**63))

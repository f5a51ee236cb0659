"""``from crates_env import crates_v0; env = crates_v0.env()``: the versioned PettingZoo module."""

from .env import env, raw_env

__all__ = ["env", "raw_env"]

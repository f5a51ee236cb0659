"""What a finished training game says from the learner's side, and the scalars the training
curves plot from a batch of them: the same names in TensorBoard on either backend (SB3, RLlib).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def game_summary(
    opponent: str,
    side: int,
    scores: Sequence[int],
    win: float,
    hands: int,
    pressures: int,
) -> dict[str, Any]:
    """A finished game from the learner's side, as the training curves plot it (``game/...``
    in TensorBoard, on either backend): ``win`` is 1 if its side alone won, its share of a
    tie, 0 otherwise."""
    others = [s for t, s in enumerate(scores) if t != side]
    return {
        "opponent": opponent.split(":")[0],
        "points": int(scores[side]),
        "opponent_points": float(np.mean(others)),
        "hands": int(hands),
        "win": float(win),
        "pressures": int(pressures),
    }


def game_summary_of_final(final: Mapping[str, Any]) -> dict[str, Any]:
    """``game_summary`` of a game the vector env finished, from its info (one game's values
    of ``CratesVectorEnv``'s final infos: ``opponents``, ``side``, ``scores``, ...)."""
    side = int(final["side"])
    return game_summary(
        final["opponents"],
        side,
        [int(s) for s in final["scores"]],
        float(final["win"]),
        int(final["hands"]),
        int(final["pressures"][side]),
    )


def game_values(game: dict[str, Any]) -> dict[str, float]:
    """One finished game's scalars (``game_summary``), under the names the curves plot, both over
    all games (``game/...``) and for its opponent kind (``game_vs_<opponent>/...``): the curves
    show their means over the games of a rollout."""
    values = {
        "points_per_game": game["points"],
        "points_per_hand": game["points"] / game["hands"],
        "opponent_points_per_game": game["opponent_points"],
        "win_rate": game["win"],
        "pressures_per_game": game["pressures"],
    }
    prefixes = ("game", f"game_vs_{game['opponent']}")
    return {f"{prefix}/{name}": float(v) for prefix in prefixes for name, v in values.items()}


def game_scalars(games: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The curves' scalars of a rollout's finished games: each name's mean over the games that
    have it (none without games)."""
    sums: dict[str, list[float]] = defaultdict(list)
    for game in games:
        for key, value in game_values(game).items():
            sums[key].append(value)
    return {key: float(np.mean(values)) for key, values in sums.items()}

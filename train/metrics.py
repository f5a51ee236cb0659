"""What a finished training game says from the learner's side, and the scalars the training
curves plot from a batch of them: the same names in TensorBoard on either backend (SB3, RLlib).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np


def game_summary(
    opponent: str,
    side: int,
    scores: Sequence[int],
    winners: Sequence[int],
    hands: int,
    pressures: int,
) -> dict[str, Any]:
    """A finished game from the learner's side, as the training curves plot it (``game/...``
    in TensorBoard, on either backend)."""
    others = [s for t, s in enumerate(scores) if t != side]
    return {
        "opponent": opponent.split(":")[0],
        "points": int(scores[side]),
        "opponent_points": float(np.mean(others)),
        "hands": int(hands),
        "win": 1 / len(winners) if side in winners else 0.0,
        "pressures": int(pressures),
    }


def game_scalars(games: Sequence[dict[str, Any]]) -> dict[str, float]:
    """TensorBoard scalars of finished games (``game_summary``): over all games (``game/...``)
    and per opponent kind (``game_vs_<opponent>/...``); none without games."""
    if not games:
        return {}
    by_opponent = defaultdict(list)
    for game in games:
        by_opponent[game["opponent"]].append(game)
    scalars: dict[str, float] = {}
    for prefix, group in [("game", games)] + [(f"game_vs_{k}", v) for k, v in by_opponent.items()]:
        scalars |= {
            f"{prefix}/points_per_game": np.mean([g["points"] for g in group]),
            f"{prefix}/points_per_hand": np.mean([g["points"] / g["hands"] for g in group]),
            f"{prefix}/opponent_points_per_game": np.mean([g["opponent_points"] for g in group]),
            f"{prefix}/win_rate": np.mean([g["win"] for g in group]),
            f"{prefix}/pressures_per_game": np.mean([g["pressures"] for g in group]),
        }
    return {k: float(v) for k, v in scalars.items()}

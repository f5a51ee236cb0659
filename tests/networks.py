"""Small untrained networks for tests, saved as ``crates train`` saves one."""

from __future__ import annotations

from pathlib import Path

from sb3_contrib import MaskablePPO

from train.config import TrainConfig
from train.ppo import atomic_save_model, make_vec_env, new_model


def untrained_network(config: TrainConfig, path: Path) -> MaskablePPO:
    """The fresh model of ``config``'s run (its tables, layout and shape), written to ``path``
    as a run's checkpoint."""
    vec = make_vec_env(config)
    try:
        model = new_model(config, vec)
    finally:
        vec.close()
    atomic_save_model(model, path, config)
    return model

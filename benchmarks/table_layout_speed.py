"""What the table layout costs, and what a mixture of tables costs the learner, side by side.

    python benchmarks/table_layout_speed.py layout --repeats 5
    python benchmarks/table_layout_speed.py learner --steps 100000 --repeats 3

``layout``: the AEC env (random legal moves, one game at a time) and VectorGame (1,024 games,
``observe`` then ``step`` of random legal moves) at 4-player crates, in the seat layout and the
table layout, the two timed in turns, each figure the median of ``--repeats``; the ratio is
table / seat (above 1: the table layout is slower).

``learner``: MaskablePPO learner steps a second (the default config's PPO settings, the games
in this process, torch on one thread so that both arms see the same machine) on one table
(4-player crates, seat layout), on the same table in the table layout, and on a mixture (the
28 covered tables, table layout, ``num_envs`` shared out), in turns, medians of ``--repeats``.
Pin it to a core (``taskset -c 1``) and say so when quoting it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env import crates_v0
from crates_env.vector import VectorGame

LAYOUTS = ("seat", "table")


def aec_steps(observation: str, steps: int) -> float:
    """Decisions a second of the AEC env, every observation read, random legal moves."""
    env = crates_v0.env(preset="crates", num_players=4, observation=observation)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start, done = time.perf_counter(), 0
    while done < steps:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done += 1
    return steps / (time.perf_counter() - start)


def vector_steps(observation: str, steps: int, games: int = 1024) -> float:
    """Game-decisions a second of VectorGame: ``observe`` then a random legal ``step``."""
    vg = VectorGame(games, "crates", 4, observation=observation)
    vg.reset(seeds=0)
    rng = np.random.default_rng(0)
    vg.observe()  # compile before timing
    vg.step(vg.random_actions(rng))
    start = time.perf_counter()
    for _ in range(steps // games):
        vg.observe()
        vg.step(vg.random_actions(rng))
    return (steps // games) * games / (time.perf_counter() - start)


def learner_steps(overrides: list[str], steps: int) -> float:
    """MaskablePPO learner steps a second of a config (no warm start, no checks)."""
    import torch

    from train.config import load_config
    from train.ppo import make_vec_env, new_model

    torch.set_num_threads(1)
    config = load_config(None, ["warm_start.teacher=", "workers=0", *overrides])
    vec = make_vec_env(config)
    try:
        model = new_model(config, vec)
        model.learn(config.ppo.n_steps * config.num_envs)  # compile and warm up
        start = time.perf_counter()
        model.learn(steps, reset_num_timesteps=False)
        return steps / (time.perf_counter() - start)
    finally:
        vec.close()


def in_turns(arms: dict[str, Callable[[], float]], repeats: int) -> dict[str, float]:
    """Each arm's median over ``repeats`` rounds, the arms timed in turn within a round."""
    figures: dict[str, list[float]] = {name: [] for name in arms}
    for _ in range(repeats):
        for name, arm in arms.items():
            figures[name].append(arm())
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("layout", "learner"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=0, help="steps an arm (0: the default)")
    args = parser.parse_args()
    if args.what == "layout":
        aec = in_turns(
            {o: lambda o=o: aec_steps(o, args.steps or 20_000) for o in LAYOUTS}, args.repeats
        )
        vec = in_turns(
            {o: lambda o=o: vector_steps(o, args.steps or 1_000_000) for o in LAYOUTS},
            args.repeats,
        )
        for name, figures in (("AEC env", aec), ("VectorGame", vec)):
            print(
                f"{name}: seat {figures['seat']:,.0f}/s, table {figures['table']:,.0f}/s, "
                f"table / seat time {figures['seat'] / figures['table']:.2f}x"
            )
        return
    mixture = ["tables=covered", "observation=table", "num_envs=112"]
    arms = {
        "crates 4p, seat layout": ["num_envs=112"],
        "crates 4p, table layout": ["observation=table", "num_envs=112"],
        "28 covered tables": mixture,
    }
    steps = args.steps or 100_000
    figures = in_turns(
        {k: lambda v=v: learner_steps(v, steps) for k, v in arms.items()}, args.repeats
    )
    base = figures["crates 4p, seat layout"]
    for name, value in figures.items():
        print(f"{name}: {value:,.0f} learner steps/s ({value / base:.2f} of one table's)")


if __name__ == "__main__":
    main()

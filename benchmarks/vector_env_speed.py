"""Gymnasium vector envs of ``Crates-v0``, side by side in one run: the native vector env against
Gymnasium's ``SyncVectorEnv`` over single envs.

    python benchmarks/vector_env_speed.py --seconds 20 --repeats 3

- ``native``: ``gym.make_vec("Crates-v0", num_envs=1024, vectorization_mode="vector_entry_point")``,
  ``crates_env.vector_env.CratesVectorEnv`` on the compiled engine, the opponents played inside.
- ``sync``: ``gym.make_vec("Crates-v0", num_envs=16, vectorization_mode="sync")``, 16 single
  envs (``crates_env.wrappers``) stepped one after the other.

Both play 4-player ``crates`` with the learner at seat 0 and its partner's seat, a uniformly
random legal action for the learner at every step (read from ``infos["action_mask"]``), and the
opponents ``--opponents``: ``random`` (the default: uniformly random moves inside the env) or
``heuristic`` (HeuristicAgent; the native env calls its compiled twin once for every waiting
game). A step is one learner decision in one game, the opponents' moves in between included.
Each contender runs ``--seconds`` a repeat; the table gives the median rate over the repeats
(taken in turn: native, sync, native, ...) and native / sync.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import crates_env  # noqa: F401  (registers Crates-v0)
from agents import HeuristicAgent, Table
from crates_env.env import raw_env


def opponents_of(name: str, kwargs: dict):
    if name == "random":
        return None
    return HeuristicAgent(Table.from_env(raw_env(**kwargs)))


def make(mode: str, num_envs: int, opponents: str, kwargs: dict) -> gym.vector.VectorEnv:
    return gym.make_vec(
        "Crates-v0",
        num_envs=num_envs,
        vectorization_mode=mode,
        opponents=opponents_of(opponents, kwargs),
        **kwargs,
    )


def learner_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action in every game (any action where a game awaits its
    restart and allows none)."""
    masks = masks.copy()
    masks[~masks.any(axis=1), 0] = True
    picks = (rng.random(len(masks)) * masks.sum(axis=1)).astype(np.int64)
    return np.argmax(masks.cumsum(axis=1) > picks[:, None], axis=1)


def steps_a_second(env: gym.vector.VectorEnv, seconds: float, seed: int) -> float:
    """Learner steps a second (games x ``step`` calls) over ``seconds``, after a reset."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = env.step(learner_actions(rng, info["action_mask"]))
        steps += env.num_envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds a contender a repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--native-envs", type=int, default=1024)
    parser.add_argument("--sync-envs", type=int, default=16)
    parser.add_argument("--opponents", choices=("random", "heuristic"), default="random")
    args = parser.parse_args()
    kwargs = {"preset": "crates", "num_players": 4}
    contenders = {
        "native": make("vector_entry_point", args.native_envs, args.opponents, kwargs),
        "sync": make("sync", args.sync_envs, args.opponents, kwargs),
    }
    for env in contenders.values():  # compile and warm up outside the clock
        steps_a_second(env, 1.0, seed=0)
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    for repeat in range(args.repeats):
        for name, env in contenders.items():
            rates[name].append(steps_a_second(env, args.seconds, seed=repeat + 1))
    median = {name: statistics.median(r) for name, r in rates.items()}
    print(f"Crates-v0, crates 4 players, opponents {args.opponents}, {args.repeats} x ", end="")
    print(f"{args.seconds:g} s a contender")
    print(f"{'contender':<34}{'games':>7}{'steps/s (median)':>20}{'runs':>28}{'ratio':>8}")
    for name, env in contenders.items():
        runs = ", ".join(f"{r:,.0f}" for r in rates[name])
        ratio = median[name] / median["sync"]
        print(f"{name:<34}{env.num_envs:>7}{median[name]:>20,.0f}{runs:>28}{ratio:>7.1f}x")


if __name__ == "__main__":
    main()

"""Training speed of the default config against its ceiling, side by side in one run.

    python benchmarks/train_speed.py --steps 200000 --ceiling-games 256 1024
    python benchmarks/train_speed.py --set preset=crazy_eights --steps 50000 --repeats 3

Both runs use the default config's MaskablePPO settings (network, games, rollout length, batch,
epochs). The first trains on the real self-play environment (on the engine the config picks:
the compiled one where it plays the table; opponents drawn from the pool, snapshots included
when ``--snapshots``); the second on a batch of games that does nothing (same observation and
action sizes, every action legal, 60-step episodes, all games answered at once as arrays), which
is the most the learner's own rollouts and updates allow. The ratio is real / ceiling.

``--ceiling-games N ...`` measures the do-nothing ceiling again with N games per rollout step
(same rollout length, batch and epochs): where SB3 itself stops as the batch grows.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.networks import untrained_policy
from crates_env.actions import NUM_ACTIONS
from crates_env.processes import usable_cores
from train.config import load_config
from train.ppo import make_vec_env, policy_spec


class NullVecEnv(VecEnv):
    """``num_envs`` games with the game's spaces that do nothing: every action legal, 60-step
    episodes, every step answered with arrays at once (no per-game Python)."""

    EPISODE = 60

    def __init__(self, num_envs: int, obs_space: gym.spaces.Box) -> None:
        super().__init__(num_envs, obs_space, gym.spaces.Discrete(NUM_ACTIONS))
        self._obs = np.zeros((num_envs, *obs_space.shape), dtype=np.float32)
        self._masks = np.ones((num_envs, NUM_ACTIONS), dtype=bool)
        self._t = np.zeros(num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        self._t[:] = 0
        return self._obs

    def step_async(self, actions: np.ndarray) -> None:
        pass

    def step_wait(self):
        self._t += 1
        dones = self._t >= self.EPISODE
        infos = [{"terminal_observation": self._obs[i]} if d else {} for i, d in enumerate(dones)]
        self._t[dones] = 0
        return self._obs, np.zeros(self.num_envs, dtype=np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self._masks

    def env_method(self, method_name, *args, indices=None, **kwargs):
        return [self._masks[i] for i in (range(self.num_envs) if indices is None else indices)]

    def get_attr(self, attr_name, indices=None):
        rows = range(self.num_envs) if indices is None else indices
        return [self.action_masks if attr_name == "action_masks" else None for _ in rows]

    def set_attr(self, attr_name, value, indices=None) -> None:
        pass

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * (self.num_envs if indices is None else len(indices))

    def close(self) -> None:
        pass


def timed_learn(env, config, steps: int, num_envs: int | None = None) -> float:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    model = MaskablePPO(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": list(config.net_arch)},
        seed=0,
        device="cpu",
        **vars(config.ppo),
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no empty SB3-* folder in /tmp
    model.learn(config.ppo.n_steps * (num_envs or config.num_envs))  # warm up: the first rollout
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--snapshots", action="store_true", help="half the games vs a snapshot")
    parser.add_argument("--set", action="append", default=[], help="config override key=value")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: as training sets them)"
    )
    parser.add_argument(
        "--ceiling-games", type=int, nargs="*", default=[], help="more games per rollout step"
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="measure both in turn this many times (medians)"
    )
    args = parser.parse_args(argv)
    extra = ["opponents.snapshot_weight=1.0"] if args.snapshots else []
    with tempfile.TemporaryDirectory() as runs:
        config = load_config(args.config, [f"runs_dir={runs}", *extra, *args.set])
    threads = args.threads or max(1, usable_cores() - config.workers)
    torch.set_num_threads(threads)
    vec = make_vec_env(config)
    if args.snapshots:
        policy = untrained_policy(*policy_spec(config), vec.observation_space, vec.action_space)
        vec.add_snapshot(policy.state_dict())
    engine = type(vec._local.games).__name__ if vec._local is not None else "worker processes"
    space = vec.observation_space
    reals, ceilings = [], []
    for _ in range(args.repeats):  # in turn, so that a change of load hits both alike
        reals.append(timed_learn(vec, config, args.steps))
        ceilings.append(timed_learn(NullVecEnv(config.num_envs, space), config, args.steps))
    vec.close()
    real, ceiling = float(np.median(reals)), float(np.median(ceilings))
    print(
        f"training speed, {config.num_envs} games ({engine}), {config.workers} game workers, "
        f"{threads} torch threads, {args.steps} steps, medians of {args.repeats}"
    )
    print(f"  self-play environment          {real:>8,.0f} steps/s")
    print(f"  environment that does nothing  {ceiling:>8,.0f} steps/s")
    print(f"  ratio                          {real / ceiling:>8.0%}")
    for games in args.ceiling_games:
        rate = timed_learn(NullVecEnv(games, space), config, args.steps, games)
        print(f"  doing nothing, {games:>5} games    {rate:>8,.0f} steps/s")


if __name__ == "__main__":
    main()

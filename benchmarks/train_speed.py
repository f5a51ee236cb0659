"""Training speed of the default config against its ceiling, side by side in one run.

    python benchmarks/train_speed.py --steps 20000

Both runs use the default config's MaskablePPO settings (network, games, rollout length, batch,
epochs). The first trains on the real self-play environment (worker processes, opponents drawn
from the pool, snapshots included when ``--snapshots``); the second on an environment that does
nothing (same observation and action sizes, every action legal, fixed-length episodes), which is
the most the learner's own updates allow. The ratio is real / ceiling.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env.actions import NUM_ACTIONS
from train.config import load_config
from train.ppo import make_policy, make_vec_env, usable_cores


class NullEnv(gym.Env):
    """Same spaces as the game; does nothing, every action legal, 60-step episodes."""

    def __init__(self, obs_space: gym.spaces.Box) -> None:
        self.observation_space = obs_space
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._obs = np.zeros(obs_space.shape, dtype=np.float32)
        self._t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs, {}

    def step(self, action):
        self._t += 1
        return self._obs, 0.0, self._t >= 60, False, {}

    def action_masks(self) -> np.ndarray:
        return np.ones(NUM_ACTIONS, dtype=bool)


def timed_learn(env, config, steps: int) -> float:
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
    model.learn(config.ppo.n_steps * config.num_envs)  # warm up (worker start, first rollout)
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
    args = parser.parse_args(argv)
    extra = ["opponents.snapshot_weight=1.0"] if args.snapshots else []
    with tempfile.TemporaryDirectory() as runs:
        config = load_config(args.config, [f"runs_dir={runs}", *extra, *args.set])
    threads = args.threads or max(1, usable_cores() - config.workers)
    torch.set_num_threads(threads)
    vec = make_vec_env(config)
    if args.snapshots:
        policy = make_policy(vec.observation_space, vec.action_space, config)
        vec.add_snapshot(policy.state_dict())
    real = timed_learn(vec, config, args.steps)
    vec.close()
    from stable_baselines3.common.vec_env import DummyVecEnv

    space = vec.observation_space
    null = DummyVecEnv([lambda: NullEnv(space)] * config.num_envs)
    ceiling = timed_learn(null, config, args.steps)
    print(
        f"training speed, {config.num_envs} games, {config.workers} game workers, "
        f"{threads} torch threads, {args.steps} steps"
    )
    print(f"  self-play environment   {real:>8,.0f} steps/s")
    print(f"  environment that does nothing {ceiling:>8,.0f} steps/s")
    print(f"  ratio                   {real / ceiling:>8.0%}")


if __name__ == "__main__":
    main()

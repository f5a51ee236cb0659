"""``SelfPlayVecEnv``: the self-play games (``train.selfplay``) as the VecEnv SB3's MaskablePPO
trains on, in this process or split over worker processes that live and die with the trainer.

Each worker process holds a batch of games; the learner's actions go out to every worker and the
batches' observations, rewards, ends of games and action masks come back in order.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from crates_env.actions import NUM_ACTIONS
from crates_env.processes import serve_parent
from train.opponents import PoolSpec
from train.selfplay import LearnerSpec, make_mix, observation_space_of, worker_seeds


def table_slots(num_envs: int, tables: int) -> list[int]:
    """The games of each table of a mixture: ``num_envs`` shared out equally, in order."""
    return [len(part) for part in np.array_split(np.arange(num_envs), tables)]


def worker_groups(
    num_envs: int, tables: list[dict], workers: int, seed: int
) -> list[list[tuple[int, dict, int]]]:
    """Each worker's (games, env_kwargs, seed) groups. One table: its games split over the
    workers, a seed each (the run's games as they always were); a mixture: each table's share
    of the games (``table_slots``) with a seed of its own, whole tables to a worker in order,
    the workers' games as even as whole tables allow."""
    if len(tables) == 1:
        sizes = [size for size in table_slots(num_envs, workers) if size]
        seeds = worker_seeds(seed, workers)
        return [[(size, tables[0], s)] for size, s in zip(sizes, seeds, strict=False)]
    groups = list(
        zip(
            table_slots(num_envs, len(tables)), tables, worker_seeds(seed, len(tables)), strict=True
        )
    )
    shares: list[list[tuple[int, dict, int]]] = [[] for _ in range(min(workers, len(groups)))]
    total, done = sum(g[0] for g in groups), 0
    for group in groups:  # fill worker k up to its even share of the games, in order
        k = min(len(shares) - 1, done * len(shares) // total)
        shares[k].append(group)
        done += group[0]
    return [share for share in shares if share]


def _worker(remote, groups, pool_spec, learner, policy_factory, engine):
    import torch

    serve_parent()
    torch.set_num_threads(1)
    batch = make_mix(groups, pool_spec, learner, policy_factory, engine)
    while True:
        command, data = remote.recv()
        if command == "step":
            remote.send(batch.step(data))
        elif command == "reset":
            if data is not None:  # the snapshots' draws in this process start again with it
                torch.manual_seed(data[0])
            remote.send(batch.reset(data))
        elif command == "snapshot":
            batch.add_snapshot(data)
            remote.send(None)
        elif command == "close":
            remote.close()
            return


class SelfPlayVecEnv(VecEnv):
    """``num_envs`` self-play games split over ``workers`` processes (0: in this process).

    ``env_kwargs`` is the table (a dict), or a list of them for a mixture: each table gets an
    equal share of the games (``table_slots``), in order, a worker whole tables. ``pool_spec``
    says who the learner meets, ``learner`` what it is fed (reward, shaping, the
    privileged critic's hidden state). ``policy_factory`` builds an untrained policy of the
    learner's architecture (it must be picklable); snapshots are sent to every worker with
    :meth:`add_snapshot`.
    """

    def __init__(
        self,
        num_envs: int,
        env_kwargs: dict | list[dict],
        pool_spec: PoolSpec,
        learner: LearnerSpec | None = None,
        *,
        policy_factory=None,
        workers: int = 2,
        seed: int = 0,
        engine: str = "auto",
    ) -> None:
        learner = learner or LearnerSpec()
        tables = [env_kwargs] if isinstance(env_kwargs, dict) else list(env_kwargs)
        obs_space = observation_space_of(tables[0], learner.privileged)
        super().__init__(num_envs, obs_space, spaces.Discrete(NUM_ACTIONS))
        self._tables, self._workers = tables, max(workers, 1)
        shares = worker_groups(num_envs, tables, self._workers, seed)
        self._sizes = [sum(count for count, _, _ in share) for share in shares]
        self._masks = np.ones((num_envs, self.action_space.n), dtype=bool)
        if workers == 0:
            self._local = make_mix(shares[0], pool_spec, learner, policy_factory, engine)
            self._remotes = []
            return
        self._local = None
        ctx = mp.get_context("spawn")
        self._remotes, self._processes = [], []
        for share in shares:
            parent, child = ctx.Pipe()
            args = (child, share, pool_spec, learner, policy_factory, engine)
            proc = ctx.Process(target=_worker, args=args, daemon=True)
            proc.start()
            child.close()
            self._remotes.append(parent)
            self._processes.append(proc)

    # -------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        return self.reseed(None)

    def reseed(self, seed: int | None) -> np.ndarray:
        """New games in every slot, each batch's streams started again from its share of
        ``seed`` (as the run's seed shares them out at the start, ``worker_groups``; None: the
        batches' own seeds the first time, going on with their streams after that); the
        observations. The snapshots' draws of a worker process start again with its first
        batch's seed too (in this process they are the trainer's own torch stream)."""
        seeds: list = [None] * len(self._sizes)
        if seed is not None:
            shares = worker_groups(self.num_envs, self._tables, self._workers, seed)
            seeds = [[s for _, _, s in share] for share in shares]
        if self._local is not None:
            obs, masks = self._local.reset(seeds[0])
        else:
            for remote, part in zip(self._remotes, seeds, strict=False):
                remote.send(("reset", part))
            parts = [remote.recv() for remote in self._remotes]
            obs = np.concatenate([p[0] for p in parts])
            masks = np.concatenate([p[1] for p in parts])
        self._masks = masks
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._local is not None:
            obs, rewards, dones, infos, masks = self._local.step(self._actions)
        else:
            start = 0
            for remote, size in zip(self._remotes, self._sizes, strict=True):
                remote.send(("step", self._actions[start : start + size]))
                start += size
            parts = [remote.recv() for remote in self._remotes]
            obs = np.concatenate([p[0] for p in parts])
            rewards = np.concatenate([p[1] for p in parts])
            dones = np.concatenate([p[2] for p in parts])
            infos = [info for p in parts for info in p[3]]
            masks = np.concatenate([p[4] for p in parts])
        self._masks = masks
        return obs, rewards, dones, infos

    def add_snapshot(self, state_dict: dict) -> None:
        """Freeze a copy of the learner into every worker's opponent pool."""
        if self._local is not None:
            self._local.add_snapshot(state_dict)
            return
        for remote in self._remotes:
            remote.send(("snapshot", state_dict))
        for remote in self._remotes:
            remote.recv()

    def action_masks(self) -> np.ndarray:
        return self._masks

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"SelfPlayVecEnv only answers action_masks, not {method_name}")
        rows = range(self.num_envs) if indices is None else indices
        return [self._masks[i] for i in rows]

    def get_attr(self, attr_name: str, indices=None) -> list:
        rows = range(self.num_envs) if indices is None else indices
        if attr_name == "render_mode":
            return [None for _ in rows]
        if attr_name == "action_masks":  # MaskablePPO checks that the games offer masks
            return [self.action_masks for _ in rows]
        raise AttributeError(f"SelfPlayVecEnv has no per-game attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError("SelfPlayVecEnv has no settable per-game attributes")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        rows = range(self.num_envs) if indices is None else indices
        return [False for _ in rows]

    def close(self) -> None:
        for remote in self._remotes:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # already gone
                remote.send(("close", None))
        for proc in getattr(self, "_processes", []):
            proc.join(timeout=5)
        self._remotes = []

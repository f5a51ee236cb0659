"""Warm start: clone a scripted teacher into the policy before PPO takes over.

PPO from scratch needs millions of steps to find what a card player knows (keep a wild, answer
a count, hit the player about to go out). Cloning the teacher first starts self-play at the
teacher's strength, and PPO then looks for what the teacher gets wrong.

The demonstrations are gathered through the very environment PPO trains on
(:class:`SelfPlayVecEnv`), with the teacher in the learner's seats, so observations, masks and
rewards mean exactly what they will mean in training. The actor learns the teacher's moves
(cross-entropy over the legal actions); the critic learns the discounted return that followed,
so PPO's first advantages are not noise that would undo the cloning.
"""

from __future__ import annotations

import functools
import json
import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents import AGENT_NAMES, SearchAgent, Table, decide, make_agent
from crates_env.env import raw_env
from train.selfplay import PoolSpec, SelfPlayVecEnv
from train.shaping import PressureShaping
from train.workers import serve_parent


@dataclass
class Demonstrations:
    """The teacher's decisions: what it saw, could do, did, and the return that followed."""

    observations: np.ndarray  # (n, obs_size) float32
    masks: np.ndarray  # (n, num_actions) bool
    actions: np.ndarray  # (n,) int64
    returns: np.ndarray  # (n,) float32, discounted, in training reward units
    points: np.ndarray  # (games,) the teacher's side's points in each game

    @property
    def games(self) -> int:
        return len(self.points)

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path: Path, settings: dict) -> None:
        """Write the demonstrations and the settings they were collected with (atomically)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        np.savez_compressed(tmp, settings=json.dumps(settings, sort_keys=True), **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, settings: dict) -> Demonstrations:
        """Read demonstrations saved by :meth:`save`; ValueError if the file is not one, or was
        collected with other settings (naming them)."""
        try:
            with np.load(path) as data:
                saved = json.loads(str(data["settings"]))
                demos = cls(**{f.name: data[f.name] for f in fields(cls)})
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a demonstrations file ({exc})") from None
        expected = json.loads(json.dumps(settings, sort_keys=True))  # tuples read back as lists
        differ = sorted(
            k for k in expected.keys() | saved.keys() if saved.get(k) != expected.get(k)
        )
        if differ:
            detail = ", ".join(
                f"{k}: {saved.get(k)!r} there, {expected.get(k)!r} here" for k in differ
            )
            raise ValueError(
                f"{path} holds demonstrations collected with other settings ({detail}); "
                "delete it or point warm_start.demos elsewhere"
            )
        return demos


TEACHERS = AGENT_NAMES


def make_teacher(name: str, table: Table, seed: int, **search):
    """An agent by name; ``"search"`` is SearchAgent over HeuristicAgent (``search`` holds its
    options, e.g. ``samples`` and ``stock_max``)."""
    if name == "search":
        return SearchAgent(table, seed=seed, **search)
    return make_agent(name, table, seed=seed)


def collect(
    env_kwargs: dict,
    teacher: str,
    games: int,
    gamma: float,
    reward_transform: str = "none",
    num_envs: int = 16,
    seed: int = 0,
    privileged: bool = False,
    opponent: str = "heuristic",
    workers: int = 1,
    search: dict | None = None,
    shaping: PressureShaping | None = None,
) -> Demonstrations:
    """Play at least ``games`` whole games of ``teacher`` against ``opponent``, seen from the
    learner's seats of a :class:`SelfPlayVecEnv` (rewards transformed, and the hidden state
    appended if ``privileged``, as in training). The teacher reads the public part.
    ``workers`` > 1 splits the games over that many processes. ``search`` holds the search
    teacher's options (``samples``, ``stock_max``; its defaults when None). ``shaping`` shapes
    the rewards (and so the returns the critic learns) as in training.

    Games still running when the count is reached are dropped: their returns are unknown.
    """
    args = (env_kwargs, teacher, games, gamma, reward_transform, num_envs, seed, privileged)
    if workers > 1:
        return _collect_in_parallel(args, opponent, workers, search, shaping)
    pool = PoolSpec(
        scripted={opponent: 1.0},
        reward_transform=reward_transform,
        shaping=shaping,
    )
    # The search teacher looks ahead in the reference engine's games; a scripted teacher reads
    # only the observation, so its games run on whichever engine training would use.
    searching = teacher == "search"
    engine = "reference" if searching else "auto"
    vec = SelfPlayVecEnv(num_envs, env_kwargs, pool, None, 0, seed, privileged, engine=engine)
    table = Table.from_env(raw_env(**env_kwargs))
    public = table.obs_size
    teachers = [make_teacher(teacher, table, seed + i, **(search or {})) for i in range(num_envs)]
    envs = vec.envs_in_process() if searching else [None] * num_envs
    running: list[list[tuple]] = [[] for _ in range(num_envs)]
    finished: list[tuple] = []
    points: list[float] = []
    obs = vec.reset()
    while len(points) < games:
        masks = vec.action_masks()
        actions = np.array(
            [
                decide(t, env, o[:public], m)
                for t, env, o, m in zip(teachers, envs, obs, masks, strict=True)
            ]
        )
        next_obs, rewards, dones, infos = vec.step(actions)
        for i in range(num_envs):
            running[i].append((obs[i], masks[i], actions[i], float(rewards[i])))
            if dones[i]:
                finished.extend(_with_returns(running[i], gamma))
                running[i] = []
                points.append(infos[i]["game"]["points"])
        obs = next_obs
    vec.close()
    o, m, a, g = zip(*finished, strict=True)
    return Demonstrations(
        np.stack(o).astype(np.float32),
        np.stack(m).astype(bool),
        np.asarray(a, dtype=np.int64),
        np.asarray(g, dtype=np.float32),
        np.asarray(points, dtype=float),
    )


def _collect_in_parallel(
    args: tuple,
    opponent: str,
    workers: int,
    search: dict | None,
    shaping: PressureShaping | None,
) -> Demonstrations:
    """Each process plays its share of the games from its own seed; the parts are joined."""
    env_kwargs, teacher, games, gamma, transform, num_envs, seed, privileged = args
    share = -(-games // workers)
    part = functools.partial(
        collect,
        env_kwargs,
        teacher,
        share,
        gamma,
        transform,
        num_envs,
        opponent=opponent,
        search=search,
        shaping=shaping,
    )
    seeds = [seed + 1000 * w for w in range(workers)]
    spawn = mp.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=spawn, initializer=serve_parent) as pool:
        parts = list(pool.map(part, seeds, [privileged] * workers))
    return Demonstrations(
        *(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Demonstrations))
    )


def _with_returns(steps: list[tuple], gamma: float) -> list[tuple]:
    """(obs, mask, action, return) for one game, the return discounted from each step on."""
    out, ret = [], 0.0
    for obs, mask, action, reward in reversed(steps):
        ret = reward + gamma * ret
        out.append((obs, mask, action, ret))
    return out[::-1]


@dataclass
class CloneStats:
    samples: int
    games: int
    teacher_points: float  # the teacher's mean points per game, for comparison with PPO's
    accuracy: float  # teacher's move ranked first, over decisions with a choice
    value_loss: float  # last epoch's mean squared error of the critic


def clone(
    policy: MaskableActorCriticPolicy,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int = 0,
) -> CloneStats:
    """Fit the actor to the teacher's moves and the critic to the returns, in place."""
    x = torch.as_tensor(demos.observations)
    legal = torch.as_tensor(demos.masks)
    y = torch.as_tensor(demos.actions)
    target = torch.as_tensor(demos.returns)
    choice = legal.sum(1) > 1  # forced moves teach nothing and would inflate the accuracy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=generator)
        hits, value_sse = 0, 0.0
        for start in range(0, len(y), batch_size):
            idx = order[start : start + batch_size]
            logits, values = _heads(policy, x[idx])
            logits = logits.masked_fill(~legal[idx], -1e9)
            policy_loss = torch.nn.functional.cross_entropy(logits, y[idx])
            value_loss = torch.nn.functional.mse_loss(values, target[idx])
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            hits += int(((logits.argmax(1) == y[idx]) & choice[idx]).sum())
            value_sse += value_loss.item() * len(idx)
    policy.set_training_mode(False)
    return CloneStats(
        samples=len(y),
        games=demos.games,
        teacher_points=float(demos.points.mean()),
        accuracy=hits / max(1, int(choice.sum())),
        value_loss=value_sse / len(y),
    )


def _heads(policy: MaskableActorCriticPolicy, obs: torch.Tensor):
    """Action logits and state values, through the same layers PPO uses."""
    features = policy.extract_features(obs)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)

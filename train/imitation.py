"""Warm start: clone a teacher into the policy before PPO takes over: a scripted agent, or a
network (distillation: a network of each table into one network of a mixture, soft targets
its whole distribution over the legal moves).

PPO from scratch needs millions of steps to find what a card player knows (keep a wild, answer
a count, hit the player about to go out). Cloning the teacher first starts self-play at the
teacher's strength, and PPO then looks for what the teacher gets wrong.

The demonstrations are gathered from the very games PPO trains on (``train.selfplay``'s batch,
as ``SelfPlayVecEnv`` runs it), with the teacher in the learner's seats, so observations, masks
and rewards mean exactly what they will mean in training. The actor learns the teacher's moves
(cross-entropy over the legal actions); the critic learns the discounted return that followed,
so PPO's first advantages are not noise that would undo the cloning.

``warm_start`` does all of it for a run (either backend): the teacher's games (collected, or read
back from ``warm_start.demos``), then the clone.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing as mp
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np
import torch

from agents import Agent, PolicyAgent, Table, make_agent
from agents.base import decide_batch
from crates_env.env import raw_env
from crates_env.processes import serve_parent
from crates_env.table_observation import table_key
from train.config import TrainConfig, WarmStartConfig
from train.files import load_arrays, save_arrays
from train.opponents import PoolSpec
from train.progress import Progress
from train.selfplay import LearnerSpec, make_batch, worker_seeds
from train.shaping import PressureShaping
from train.workers import learner_threads, torch_threads


def warm_start(
    policy: torch.nn.Module, config: TrainConfig, shaping: PressureShaping | None, heads=None
) -> dict:
    """Clone the configured teacher into the fresh policy (``heads``: see ``clone``); the numbers
    go to the run's state file."""
    ws = config.warm_start
    start = time.perf_counter()
    settings = demo_settings(config)
    taught = table_teachers(config)
    specs = sorted({teacher for _, _, teacher in taught})
    who = " and ".join(specs) if len(specs) <= 3 else f"{len(specs)} teachers"
    if ws.demos and Path(ws.demos).exists():
        demos = Demonstrations.load(Path(ws.demos), settings)
    else:
        plan = Collection(
            teacher="",  # each table's (taught)
            games=ws.games,
            gamma=config.ppo.gamma,
            opponent=ws.opponent,
            learner=learner_spec(config, shaping),
            num_envs=config.num_envs,
            seed=config.seed,
            soft=ws.soft,
        )
        into = f" into init's network ({config.init})" if config.init else ""
        print(f"warm start: {ws.games} games of {who} to clone{into}")
        games = Progress("warm start", ws.games, "teacher games")
        if len(config.played_tables()) == 1:
            ((_, env_kwargs, teacher),) = taught
            one = replace(plan, teacher=teacher)
            demos = collect(env_kwargs, one, workers=ws.workers, progress=games)
        else:
            demos = collect_mixture(taught, plan, ws.workers, progress=games)
        if ws.demos:
            demos.save(Path(ws.demos), settings)
    epochs = Progress("warm start", ws.epochs, f"epochs over {len(demos):,} decisions")
    stats = clone(
        policy, demos, ws.epochs, ws.batch_size, ws.learning_rate, config.seed, heads,
        progress=epochs, threads=functools.partial(learner_threads, config.torch_threads),
    )  # fmt: skip
    report = {"teacher": ws.teacher, **vars(stats), "seconds": time.perf_counter() - start}
    if ws.teachers:
        report["teachers"] = ws.teachers
    print(
        f"warm start: cloned {who} from {stats.games} games ({stats.samples} decisions): "
        f"{stats.accuracy:.1%} of its choices, value loss {stats.value_loss:.3f}, "
        f"{report['seconds']:.0f} s"
    )
    return report


def learner_spec(config: TrainConfig, shaping: PressureShaping | None) -> LearnerSpec:
    """What the run feeds its learner, in self-play and in the warm start's demonstrations."""
    return LearnerSpec(
        config.reward_transform,
        shaping,
        config.privileged_critic,
        config.duplicate_reward,
        config.duplicate_hands,
    )


def teacher_spec(ws: WarmStartConfig, teacher: str | None = None) -> str:
    """A warm start's teacher (``teacher``, default ``ws.teacher``) as an agent spec: the
    search teacher with its settings."""
    teacher = ws.teacher if teacher is None else teacher
    if teacher == "search":
        return (
            f"search:samples={ws.search_samples},stock_max={ws.search_stock_max},z={ws.search_z:g}"
        )
    return teacher


def table_teachers(config: TrainConfig) -> list[tuple[int, dict, str]]:
    """Each table the warm start teaches, with its place among the run's tables, its
    environment and its teacher (an agent spec or a checkpoint's path): ``warm_start.teachers``'
    where it names one, else ``warm_start.teacher`` (``warm_start.fallback`` where that is
    ``shipped`` and the package has no network there). A table with neither is left out."""
    from agents.shipped import SHIPPED, has_shipped_network
    from crates_env.engine_choice import rules_of_env

    ws = config.warm_start
    taught = []
    tables = zip(config.played_tables(), config.table_kwargs(), strict=True)
    for i, (table, env_kwargs) in enumerate(tables):
        teacher = ws.teachers.get(table_key(*table), ws.teacher)
        if teacher == SHIPPED and ws.fallback and not has_shipped_network(rules_of_env(env_kwargs)):
            teacher = ws.fallback
        if teacher:
            taught.append((i, env_kwargs, teacher_spec(ws, teacher)))
    return taught


def demo_settings(config: TrainConfig) -> dict:
    """What the teacher's demonstrations depend on: a saved file is reused only if they match."""
    ws = config.warm_start
    settings = {
        "teacher": ws.teacher,
        "opponent": ws.opponent,
        "games": ws.games,
        "workers": ws.workers,
        "env": config.env_kwargs(),
        "gamma": config.ppo.gamma,
        "reward_transform": config.reward_transform,
        "privileged": config.privileged_critic,
        "num_envs": config.num_envs,
        "seed": config.seed,
    }
    if "search" in (ws.teacher, *ws.teachers.values()):
        settings["search"] = [ws.search_samples, ws.search_stock_max, ws.search_z]
    if len(config.played_tables()) > 1:
        settings.update(env=config.table_kwargs(), fallback=ws.fallback)
    if ws.teachers:  # a network by its path and its bytes: trained on, it teaches otherwise
        settings["teachers"] = {key: _teacher_record(t) for key, t in ws.teachers.items()}
    if ws.soft:  # the file holds the teachers' probabilities
        settings["soft"] = True
    if config.pressure_shaping:  # the returns the critic learns are shaped
        settings["pressure_shaping"] = config.pressure_shaping_games
    return settings


def _teacher_record(teacher: str) -> str | dict:
    """A teacher as demonstrations record it: its name, or a checkpoint's path and digest."""
    if not Path(teacher).is_file():
        return teacher
    return {"path": teacher, "sha256": hashlib.sha256(Path(teacher).read_bytes()).hexdigest()}


@dataclass
class Demonstrations:
    """The teacher's decisions: what it saw, could do, did, and the return that followed."""

    observations: np.ndarray  # (n, obs_size) float32
    masks: np.ndarray  # (n, num_actions) bool
    actions: np.ndarray  # (n,) int64
    returns: np.ndarray  # (n,) float32, discounted, in training reward units
    points: np.ndarray  # (games,) the teacher's side's points in each game
    # (n, num_actions) float32: the teacher's probability of each move (warm_start.soft; a
    # scripted teacher's is 1 on its move), which the actor then learns
    probabilities: np.ndarray | None = None

    @property
    def games(self) -> int:
        return len(self.points)

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path: Path, settings: dict) -> None:
        """Write the demonstrations and the settings they were collected with (atomically)."""
        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        save_arrays(path, {k: v for k, v in arrays.items() if v is not None}, settings)

    @classmethod
    def load(cls, path: Path, settings: dict) -> Demonstrations:
        """Read demonstrations saved by :meth:`save`; ValueError if the file is not one, or was
        collected with other settings (naming them: ``soft`` for a file without the teachers'
        probabilities where they are wanted)."""
        hint = "; delete it or point warm_start.demos elsewhere"
        names = [f.name for f in fields(cls) if f.name != "probabilities" or settings.get("soft")]
        return cls(**load_arrays(path, names, settings, "a demonstrations file", hint))


@dataclass(frozen=True)
class Collection:
    """Which demonstrations to collect: ``games`` whole games of ``teacher`` (an agent spec,
    ``"heuristic"`` or ``"search:samples=8,stock_max=6"``, as ``agents.make_agent`` reads it)
    against ``opponent``, seen from the learner's seats of a self-play batch of ``num_envs``
    games, the learner fed as in training (``learner``: the reward transform,
    pressure shaping, the privileged critic's hidden state); returns
    discounted by ``gamma``."""

    teacher: str
    games: int
    gamma: float
    opponent: str = "heuristic"
    learner: LearnerSpec = field(default_factory=LearnerSpec)
    num_envs: int = 16
    seed: int = 0
    soft: bool = False  # record the teacher's probabilities (teacher_probabilities)


def collect(
    env_kwargs: dict, plan: Collection, workers: int = 1, progress: Progress | None = None
) -> Demonstrations:
    """Play at least ``plan.games`` games of the teacher on the table of ``env_kwargs`` and keep
    every decision of its seats (the teacher reads the seat layout; the demonstrations keep
    what the learner reads).
    ``workers`` > 1 splits the games over that many processes, each from its own seed;
    ``progress`` hears of the games finished here.

    Games still running when the count is reached are dropped: their returns are unknown.
    """
    if workers > 1:
        return _collect_in_parallel(env_kwargs, plan, workers)
    pool = PoolSpec(scripted={plan.opponent: 1.0})
    table = Table.from_rules(raw_env(**env_kwargs).rules)  # the teacher reads the seat layout
    teachers = [make_agent(plan.teacher, table, seed=plan.seed + i) for i in range(plan.num_envs)]
    # A teacher that looks ahead (SearchAgent) needs the reference engine's games; a scripted
    # one reads only the observation, so its games run on whichever engine training would use.
    searching = any(t.looks_ahead for t in teachers)
    (seed,) = worker_seeds(plan.seed, 1)  # the games SelfPlayVecEnv plays in this process
    engine = "reference" if searching else "auto"
    games = make_batch(plan.num_envs, env_kwargs, pool, plan.learner, None, seed, engine)
    running: list[list[tuple]] = [[] for _ in range(plan.num_envs)]
    finished: list[tuple] = []
    points: list[float] = []
    obs, masks = games.reset()
    while len(points) < plan.games:
        in_play = [games.games.game(i) for i in range(plan.num_envs)] if searching else None
        # the teacher reads the seat layout, as every agent does, whatever the learner reads
        seen = games.games.observe()
        actions = decide_batch(teachers, seen, masks, in_play)
        probs = teacher_probabilities(teachers[0], seen, masks, actions) if plan.soft else None
        next_obs, rewards, dones, infos, next_masks = games.step(actions)
        for i in range(plan.num_envs):
            step = (obs[i], masks[i], actions[i], float(rewards[i]))
            running[i].append(step if probs is None else (*step, probs[i]))
            if dones[i]:
                finished.extend(_with_returns(running[i], plan.gamma))
                running[i] = []
                points.append(infos[i]["game"]["points"])
                if progress is not None:
                    progress.update(len(points))
        obs, masks = next_obs, next_masks
    o, m, a, g, *p = zip(*finished, strict=True)
    return Demonstrations(
        np.stack(o).astype(np.float32),
        np.stack(m).astype(bool),
        np.asarray(a, dtype=np.int64),
        np.asarray(g, dtype=np.float32),
        np.asarray(points, dtype=float),
        np.stack(p[0]).astype(np.float32) if p else None,
    )


def teacher_probabilities(
    teacher: Agent, observations: np.ndarray, masks: np.ndarray, actions: np.ndarray
) -> np.ndarray:
    """The teacher's distribution over the actions of each row (``actions``: the moves it
    made): a network's own (``PolicyAgent.probabilities``), a scripted teacher's all on its
    move. The teachers of a collection are one agent spec, so one of them speaks for all."""
    if isinstance(teacher, PolicyAgent):
        return teacher.probabilities(observations, masks)
    return np.eye(masks.shape[1])[actions]


def collect_mixture(
    taught: list[tuple[int, dict, str]],
    plan: Collection,
    workers: int = 1,
    progress: Progress | None = None,
) -> Demonstrations:
    """``collect`` at every table of a mixture that the warm start teaches (``table_teachers``:
    each table's place in the run, its environment and its teacher), one table after another,
    each from a seed of its own (by its place), its share of the games up to ``num_envs`` at
    once."""
    parts = []
    share = -(-plan.games // len(taught))
    slots = min(share, plan.num_envs)
    for done, (i, env_kwargs, teacher) in enumerate(taught, 1):
        part = replace(plan, teacher=teacher, games=share, num_envs=slots, seed=plan.seed + i)
        parts.append(collect(env_kwargs, part, workers=workers))
        if progress is not None:
            progress.update(share * done)
    return _joined(parts)


def _joined(parts: list[Demonstrations]) -> Demonstrations:
    def joined(name: str) -> np.ndarray | None:
        arrays = [getattr(p, name) for p in parts]
        return None if arrays[0] is None else np.concatenate(arrays)

    return Demonstrations(*(joined(f.name) for f in fields(Demonstrations)))


def _collect_in_parallel(env_kwargs: dict, plan: Collection, workers: int) -> Demonstrations:
    """Each process plays its share of the games from its own seed; the parts are joined."""
    share = -(-plan.games // workers)
    plans = [replace(plan, games=share, seed=plan.seed + 1000 * w) for w in range(workers)]
    spawn = mp.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=spawn, initializer=serve_parent) as pool:
        parts = list(pool.map(functools.partial(collect, env_kwargs), plans))
    return _joined(parts)


def _with_returns(steps: list[tuple], gamma: float) -> list[tuple]:
    """The steps of one game, (obs, mask, action, reward, ...), each with the return discounted
    from it on in the reward's place."""
    out, ret = [], 0.0
    for step in reversed(steps):
        ret = step[3] + gamma * ret
        out.append((*step[:3], ret, *step[4:]))
    return out[::-1]


@dataclass
class CloneStats:
    samples: int
    games: int
    teacher_points: float  # the teacher's mean points per game, for comparison with PPO's
    accuracy: float  # teacher's move ranked first, over decisions with a choice
    value_loss: float  # last epoch's mean squared error of the critic


# (policy, observations) -> (action logits, state values)
Heads = Callable[[torch.nn.Module, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]


def clone(
    policy: torch.nn.Module,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int = 0,
    heads: Heads | None = None,
    hold: Hold | None = None,
    progress: Progress | None = None,
    threads: Callable[[], int] | None = None,
    gains: Gains | None = None,
) -> CloneStats:
    """Fit the actor to the teacher's moves and the critic to the returns, in place.
    ``heads(policy, observations)`` gives the action logits and state values (default: an SB3
    MaskablePPO policy's; the RLlib backend passes its module's). With ``hold`` the policy is
    fine-tuned instead: the rows it holds keep the policy's own choices as they were before
    training (the KL divergence from them), the others learn the teacher's move, weighted. With
    ``gains`` the actor learns every legal move's worth instead (:class:`Gains`; the teacher's
    move then only scores the accuracy). Otherwise, demonstrations that carry the teacher's
    probabilities (``warm_start.soft``) teach them: the cross-entropy to the teacher's whole
    distribution over the legal moves. ``progress`` hears of each epoch done; ``threads()``,
    if given, says before each epoch how many threads torch takes (the cores free then), and
    torch's threads are as they were after.
    """
    with torch_threads(torch.get_num_threads()):
        return _clone(policy, demos, epochs, batch_size, learning_rate, seed, heads, hold,
                      progress, threads, gains)  # fmt: skip


def _clone(
    policy, demos, epochs, batch_size, learning_rate, seed, heads, hold, progress, threads, gains
) -> CloneStats:
    heads = heads or policy_heads
    x = torch.as_tensor(demos.observations)
    legal = torch.as_tensor(demos.masks)
    y = torch.as_tensor(demos.actions)
    target = torch.as_tensor(demos.returns)
    choice = legal.sum(1) > 1  # forced moves teach nothing and would inflate the accuracy
    own = _own_choices(policy, heads, x, legal) if hold is not None else None
    held = torch.as_tensor(hold.rows) if hold is not None else None
    worth = torch.as_tensor(gains.targets) if gains is not None else None
    soft = None if demos.probabilities is None else torch.as_tensor(demos.probabilities)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    policy.train(True)
    for epoch in range(epochs):
        if progress is not None and epoch:
            progress.update(epoch)
        if threads is not None:
            torch.set_num_threads(threads())
        order = torch.randperm(len(y), generator=generator)
        hits, value_sse = 0, 0.0
        for start in range(0, len(y), batch_size):
            idx = order[start : start + batch_size]
            raw, values = heads(policy, x[idx])
            logits = raw.masked_fill(~legal[idx], -1e9)
            if gains is not None:
                policy_loss = Gains.loss(raw, worth[idx], legal[idx])
            elif hold is not None:
                policy_loss = hold.loss(logits, y[idx], own[idx], held[idx])
            elif soft is not None:  # illegal moves: the teacher's 0 times a finite log
                policy_loss = -(soft[idx] * logits.log_softmax(1)).sum(1).mean()
            else:
                policy_loss = torch.nn.functional.cross_entropy(logits, y[idx])
            value_loss = torch.nn.functional.mse_loss(values, target[idx])
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            hits += int(((logits.argmax(1) == y[idx]) & choice[idx]).sum())
            value_sse += value_loss.item() * len(idx)
    policy.train(False)
    if progress is not None:
        progress.update(epochs)
    return CloneStats(
        samples=len(y),
        games=demos.games,
        teacher_points=float(demos.points.mean()),
        accuracy=hits / max(1, int(choice.sum())),
        value_loss=value_sse / len(y),
    )


@dataclass(frozen=True)
class Hold:
    """Fine-tuning a policy that already plays: ``rows`` (bool, one per demonstration) keep
    its own choices, the other rows learn the teacher's move with ``weight``. A few sure
    lessons then change the policy where they apply and leave the rest of its play alone."""

    rows: np.ndarray
    weight: float = 1.0

    def loss(
        self, logits: torch.Tensor, moves: torch.Tensor, own: torch.Tensor, held: torch.Tensor
    ) -> torch.Tensor:
        """Mean over the batch of the KL divergence from the policy's own log-probabilities
        ``own`` on held rows, and ``weight`` x the cross-entropy of the teacher's move on the
        others."""
        log_p = logits.log_softmax(1)
        kept = (own.exp() * (own - log_p)).masked_fill(own <= -1e8, 0.0).sum(1)
        taught = torch.nn.functional.nll_loss(log_p, moves, reduction="none")
        return torch.where(held, kept, self.weight * taught).mean()


@dataclass(frozen=True)
class Gains:
    """Learning what every legal move is worth, not one move: the logits, centred over the
    legal moves, are regressed on ``targets`` (one row per demonstration; the search's
    estimated gain of each move over the base move, scaled, with a bonus at the base move).
    A noisy gain then moves the network by its size rather than making a move the answer, and
    the network's favourite is the move it expects to gain most."""

    targets: np.ndarray  # (n, num_actions) float32; any value where illegal

    @classmethod
    def of(cls, gains: np.ndarray, base: np.ndarray, scale: float, bonus: float) -> Gains:
        """Targets from the labels' ``gains`` (NaN where illegal) at the rows of ``base`` (the
        base move of each): (gain, plus ``bonus`` at the base move) / ``scale``."""
        targets = np.nan_to_num(gains, nan=0.0).astype(np.float32)
        targets[np.arange(len(base)), base] += bonus
        return cls(targets / scale)

    @staticmethod
    def loss(logits: torch.Tensor, targets: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """Mean over the batch of the squared distance, per legal move, between the centred
        logits and the centred targets (centring: a softmax ignores a common shift)."""
        legal = legal.float()
        moves = legal.sum(1, keepdim=True)

        def centred(v: torch.Tensor) -> torch.Tensor:
            return v - (v * legal).sum(1, keepdim=True) / moves

        error = (centred(logits) - centred(targets)) ** 2 * legal
        return (error.sum(1) / moves.squeeze(1)).mean()


def _own_choices(policy, heads: Heads, x: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """The policy's log-probabilities over the legal moves of every row, before training."""
    policy.train(False)
    with torch.no_grad():
        parts = [heads(policy, x[i : i + 8192])[0] for i in range(0, len(x), 8192)]
    return torch.cat(parts).masked_fill(~legal, -1e9).log_softmax(1)


def policy_heads(policy: torch.nn.Module, obs: torch.Tensor):
    """Action logits and state values of an SB3 MaskablePPO policy, through the same layers
    PPO uses."""
    features = policy.extract_features(obs)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)

"""Self-play MaskablePPO for Crates (``crates train``), read top to bottom.

``train`` is the whole run:

1. Set up: the run folder and its state (``--resume`` reads them back), the self-play games
   (``SelfPlayVecEnv``: games split over worker processes, each against an opponent drawn from
   the pool of scripted agents and frozen snapshots), and the model (new, or the run's last
   checkpoint with its optimizer, step count and snapshots).
2. Warm start: a fresh policy first clones a teacher (``train.imitation.warm_start``).
3. Learn, with periodic checks: snapshots into the opponent pool, atomic checkpoints, duplicate
   deals against the baselines (``train.evaluation.evaluate_against_baselines``), game
   statistics in TensorBoard.
4. Save the last checkpoint.

A run is a function of its config and seed: torch trains on a fixed number of threads
(``torch_threads``), and every checkpoint is written between two PPO updates, where the run deals
new games and starts its random streams again from the seed and the step
(``checkpoint_seed``). A run stopped anywhere (Ctrl-C, ``kill``, ``kill -9``) resumes from its
last checkpoint and plays on exactly as it would have played without the stop.

``crates train`` then prints the final table against the baselines
(``train.evaluation.final_table``). The pieces follow ``train`` in the order it uses them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HParam
from stable_baselines3.common.utils import set_random_seed

from agents import Table
from agents.checkpoints import (
    Network,
    TableRecord,
    check_table,
    first_line,
    is_critic,
    load_network,
    resume_training,
    save_training,
    without_critic,
)
from agents.networks import (
    CountsExtractor,
    PrivilegedCriticPolicy,
    count_views,
    untrained_policy,
)
from agents.shipped import SHIPPED, shipped_network
from crates_env.actions import NUM_ACTIONS
from crates_env.env import raw_env
from crates_env.processes import cpu_seconds
from crates_env.rules import Ruleset
from train.config import TrainConfig, check_run_folder
from train.evaluation import evaluate_against_baselines
from train.files import atomic_write, write_atomically
from train.imitation import learner_spec, warm_start
from train.metrics import game_scalars
from train.opponents import PoolSpec
from train.progress import Progress
from train.selfplay import observation_space_of
from train.shaping import PressureShaping
from train.vec_env import SelfPlayVecEnv
from train.workers import learner_threads, torch_threads

LATEST, BEST, STATE = "latest.zip", "best.zip", "state.json"
CHECKED = "checked.zip"  # the network a check against the baselines is playing


def train(config: TrainConfig, resume: bool = False) -> Path:
    """Train (or resume) the run; return the path of its last checkpoint."""
    # 1. Set up
    run_dir = config.run_dir
    check_run_folder(run_dir / LATEST, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    # torch on the run's threads (torch_threads: 0 looks at the cores the machine and the game
    # workers leave free before every PPO update), and its threads as they were after the run
    with torch_threads(learner_threads(config.torch_threads, config.workers)):
        return _train(config, resume)


def _train(config: TrainConfig, resume: bool) -> Path:
    run_dir = config.run_dir
    state = read_state(run_dir) if resume else {"snapshots": []}
    # the pool's last max_snapshots (the list of a run saved before it was kept that short)
    state["snapshots"] = state["snapshots"][-config.opponents.max_snapshots :]
    snapshots = [read_snapshot(run_dir, path) for path in state["snapshots"]]
    shaping = pressure_shaping(config, state)
    vec = make_vec_env(config, shaping)
    try:
        model = resume_model(config, vec, snapshots) if resume else new_model(config, vec)
        # 2. Warm start
        if not resume and config.warm_start.teaches():
            state["warm_start"] = warm_start(model.policy, config, shaping)
        config.save()
        remaining = config.total_steps - model.num_timesteps
        # a new run of total_steps 0 goes on: its checkpoint (step 0) and check are the clone's
        if resume and remaining <= 0:
            print(
                f"run {run_dir} is complete: {model.num_timesteps:,} steps of total_steps "
                f"{config.total_steps:,} (raise total_steps to train on)"
            )
            return run_dir / LATEST
        # 3. Learn, with periodic checks
        checks = CheckpointAndEvalCallback(config, state)
        callbacks = [
            SelfPlayCallback(
                config.opponents.snapshot_every, config.opponents.max_snapshots, run_dir, state
            ),
            GameStatsCallback(),
            SharedCoresCallback(
                config.torch_threads,
                config.workers,
                None if config.progress_bar else Progress("PPO", config.total_steps, "steps", 30),
            ),
            checks,
        ]
        try:
            model.learn(
                remaining,
                callback=callbacks,
                reset_num_timesteps=not resume,
                tb_log_name="ppo",
                progress_bar=config.progress_bar,
            )
        except KeyboardInterrupt:  # Ctrl-C or kill: the last checkpoint is where to go on
            # the snapshots taken since are taken again (the list on disk, which a stop just
            # after the state's write has already changed)
            remove_unlisted_snapshots(run_dir, read_state(run_dir)["snapshots"])
            stopped = f"interrupted at step {model.num_timesteps:,}"
            print(f"\n{stopped}: {checks.kept()}", file=sys.stderr)
            raise
        # 4. Save
        checks.save()
    finally:
        vec.close()
    return run_dir / LATEST


class TrainingDiverged(ValueError):
    """The policy's weights stopped being finite numbers (settings too bold for the rewards);
    the last good checkpoint is kept."""


# ---------------------------------------------------------------------- 1. set up
# state.json's keys and the types they hold (what a resumed run reads back)
_STATE_TYPES = {
    "snapshots": list,
    "last_snapshot": int,
    "last_checkpoint": int,
    "last_eval": int,
    "num_timesteps": int,
    "best_score": float,
    "best_step": int,
    "evals": list,
    "warm_start": dict,
    "pressure_shaping": list,
}


def read_state(run_dir: Path) -> dict:
    """The run's state.json (a run checkpointed before it wrote one starts from no
    snapshots); a ValueError naming the file when it is damaged."""
    path = run_dir / STATE
    if not path.exists():
        return {"snapshots": []}
    try:
        state = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{path} is damaged (not JSON: {exc}); restore it or start a new run"
        ) from None
    if not isinstance(state, dict):
        raise ValueError(f"{path} is damaged: it must hold an object, not {type(state).__name__}")
    for key, kind in _STATE_TYPES.items():
        value = state.get(key)
        number = kind in (int, float) and isinstance(value, int | float)
        if value is not None and not (number or isinstance(value, kind)):
            raise ValueError(f"{path} is damaged: {key} must be a {kind.__name__}, not {value!r}")
    if not all(isinstance(p, str) for p in state.get("snapshots", [])):
        raise ValueError(f"{path} is damaged: snapshots must list file paths")
    state.setdefault("snapshots", [])
    return state


def read_snapshot(run_dir: Path, path: str) -> dict:
    """A frozen snapshot's weights; a ValueError naming the file when it is missing or damaged."""
    full = run_dir / path
    if not full.is_file():
        raise ValueError(f"{run_dir / STATE} lists snapshot {full}, which does not exist")
    try:
        return torch.load(full, weights_only=True)
    except Exception as exc:  # torch raises many kinds on a damaged file
        raise ValueError(
            f"snapshot {full} is damaged ({first_line(exc)}): restore it from a copy of the "
            f"run, or remove it from {run_dir / STATE}'s snapshots to resume without it"
        ) from None


def pressure_shaping(config: TrainConfig, state: dict) -> PressureShaping | None:
    """The run's pressure shaping (None when off): measured at the start of the run and kept in
    ``state`` (state.json), so a resumed run shapes its rewards exactly as before."""
    if not config.pressure_shaping:
        return None
    if "pressure_shaping" in state:
        later = state["pressure_shaping"]
        return PressureShaping.from_counts(
            config.ruleset(), later, config.reward_mode, config.reward_scale
        )
    start = time.perf_counter()
    shaping, state["pressure_shaping"] = PressureShaping.measure(
        config.env_kwargs(), config.pressure_shaping_games, config.seed
    )
    print(
        f"pressure shaping: {config.pressure_shaping_games} HeuristicAgent games "
        f"({time.perf_counter() - start:.0f} s); a side's first pressure in the first hand "
        f"costs 5 + {shaping.future(0, 0):.0f} points of its later pressures"
    )
    return shaping


def make_vec_env(config: TrainConfig, shaping: PressureShaping | None = None) -> SelfPlayVecEnv:
    """The run's self-play games, the learner fed as ``learner_spec`` says."""
    tables = config.table_kwargs()
    obs_space = observation_space_of(tables[0], config.privileged_critic)
    # the workers build the snapshots' networks with agents.networks, not with this module
    cls, kwargs = policy_spec(config)
    factory = functools.partial(
        untrained_policy, cls, kwargs, obs_space, spaces.Discrete(NUM_ACTIONS)
    )
    pool = PoolSpec(
        scripted=dict(config.opponents.scripted),
        snapshot_weight=config.opponents.snapshot_weight,
        max_snapshots=config.opponents.max_snapshots,
    )
    return SelfPlayVecEnv(
        config.num_envs,
        tables,
        pool,
        learner_spec(config, shaping),
        policy_factory=factory,
        workers=config.workers,
        seed=config.seed,
        engine=config.engine,
    )


def policy_spec(config: TrainConfig) -> tuple[type[MaskableActorCriticPolicy], dict[str, Any]]:
    """The learner's policy class and keyword arguments."""
    kwargs: dict[str, Any] = {"net_arch": list(config.net_arch)}
    if config.count_features:
        # where the run's environment writes each count: the table layout's places differ
        table = Table.from_env(raw_env(**config.env_kwargs()))
        kwargs["features_extractor_class"] = CountsExtractor
        kwargs["features_extractor_kwargs"] = {"counts": count_views(table)}
    if not config.privileged_critic:
        return MaskableActorCriticPolicy, kwargs
    public_size = observation_space_of(config.env_kwargs()).shape[0]
    return PrivilegedCriticPolicy, {**kwargs, "public_size": public_size}


def new_model(config: TrainConfig, vec: SelfPlayVecEnv) -> MaskablePPO:
    """A fresh MaskablePPO on the run's games, writing TensorBoard into the run folder; its
    weights those of ``config.init`` when it names a checkpoint."""
    policy_class, policy_kwargs = policy_spec(config)
    model = MaskablePPO(
        policy_class,
        vec,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(config.run_dir / "tb"),
        seed=config.seed,
        device="cpu",
        verbose=0,
        **vars(config.ppo),
    )
    if config.init:
        start = checkpoint_of(config.init, config.ruleset())
        for rules in config.rulesets():
            check_table(start, TableRecord.of(rules), config.init_other_table)
        try:
            model.policy.load_state_dict(started(load_network(start), model.policy))
        except RuntimeError:  # torch: the layers do not match
            raise ValueError(
                f"init {start} is not a network of this run's shape (net_arch {config.net_arch}, "
                f"count_features {str(config.count_features).lower()})"
            ) from None
    return model


def started(start: Network, policy: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The weights ``policy`` starts from, ``start``'s (``widened``): its actor and its critic,
    or, where ``start`` was written to play alone, its actor and ``policy``'s own new critic
    (which learns the values from the run's first updates)."""
    weights = widened(start.policy, policy)
    if not start.checkpoint.critic:
        own = policy.state_dict()
        weights = {**without_critic(weights), **{k: own[k] for k in own if is_critic(k)}}
    return weights


def widened(start: torch.nn.Module, policy: torch.nn.Module) -> dict[str, torch.Tensor]:
    """``start``'s weights for ``policy``, whose first layers may read more inputs after the
    same ones (the count features): the new inputs' weights are zeros, so ``policy`` plays as
    ``start`` did until it learns to use them."""
    weights, shapes = start.state_dict(), {k: v.shape for k, v in policy.state_dict().items()}
    for key, value in weights.items():
        shape = shapes.get(key)
        if value.dim() != 2 or shape is None or shape[0] != value.shape[0]:
            continue
        if shape[1] > value.shape[1]:
            extra = value.new_zeros(value.shape[0], shape[1] - value.shape[1])
            weights[key] = torch.cat([value, extra], 1)
    return weights


def checkpoint_of(spec: str, rules: Ruleset) -> Path:
    """A checkpoint named in a config: ``shipped`` (the network the package ships for the
    table of ``rules``) or a path."""
    return shipped_network(rules) if spec == SHIPPED else Path(spec)


def resume_model(config: TrainConfig, vec: SelfPlayVecEnv, snapshots: list[dict]) -> MaskablePPO:
    """The run's last checkpoint on the run's games, its frozen ``snapshots`` back in the
    pool."""
    model = new_model(dataclasses.replace(config, init=""), vec)  # init's weights give way
    resume_training(model, config.run_dir / LATEST, config.rulesets(), config.observation)
    for weights in snapshots:
        vec.add_snapshot(weights)
    return model


# ---------------------------------------------------------------------- 3. learn, with checks
class SelfPlayCallback(BaseCallback):
    """Every ``every`` steps, freeze the learner into the opponent pool (and keep it on disk);
    the pool keeps the last ``keep``, and so does the run's list of snapshot files."""

    def __init__(self, every: int, keep: int, run_dir: Path, state: dict) -> None:
        super().__init__()
        self.every, self.keep, self.run_dir, self.state = every, keep, run_dir, state

    def _on_step(self) -> bool:
        if self.num_timesteps - self.state.get("last_snapshot", 0) >= self.every:
            path = self.run_dir / "snapshots" / f"step_{self.num_timesteps}.pt"
            weights = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
            write_atomically(path, functools.partial(torch.save, weights))
            self.training_env.add_snapshot(weights)
            # Relative to the run: a run folder moved or copied elsewhere still resumes.
            self.state["snapshots"].append(str(path.relative_to(self.run_dir)))
            del self.state["snapshots"][: -self.keep]  # their files go once the state says so
            self.state["last_snapshot"] = self.num_timesteps
        return True


class SharedCoresCallback(BaseCallback):
    """torch on one thread while the games are played (a forward pass of a few dozen
    positions), on ``threads`` for each PPO update (0: the cores the machine leaves free then,
    less the game ``workers``); ``steps`` (without a progress bar) hears of the steps done."""

    def __init__(self, threads: int, workers: int, steps: Progress | None = None) -> None:
        super().__init__()
        self.threads, self.workers, self.steps = threads, workers, steps

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(1)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(learner_threads(self.threads, self.workers))
        if self.steps is not None:
            self.steps.update(self.num_timesteps)

    def _on_step(self) -> bool:
        return True


class GameStatsCallback(BaseCallback):
    """TensorBoard: points per game and per hand, win rate, pressures, per opponent kind."""

    def __init__(self) -> None:
        super().__init__()
        self.games: list[dict] = []

    def _on_step(self) -> bool:
        self.games.extend(info["game"] for info in self.locals["infos"] if "game" in info)
        return True

    def _on_rollout_end(self) -> None:
        for key, value in game_scalars(self.games).items():
            self.logger.record(key, value)
        self.games = []


class CheckpointAndEvalCallback(BaseCallback):
    """Periodic atomic checkpoints, each between two PPO updates and followed by new games
    and random streams (``deal_afresh``), so a run resumed from one goes on as the run did;
    evaluation against the baselines; the best kept apart."""

    def __init__(self, config: TrainConfig, state: dict) -> None:
        super().__init__()
        self.config, self.state = config, state
        self.run_dir = config.run_dir
        self.dealt = False  # this process has dealt the games from a checkpoint's seed
        # The run's CPU-seconds of training (``training_cpu_seconds``): a new run counts this
        # process's from its start (the warm start too), a resumed run goes on from what its
        # checkpoint recorded; the checks against the baselines are left out.
        resumed = "training_cpu_seconds" in state
        self.cpu_base = state.get("training_cpu_seconds", 0.0)
        self.cpu_start = cpu_seconds() if resumed else 0.0
        self.check_cpu = 0.0  # CPU-seconds this process spent in checks

    def training_cpu_seconds(self) -> float:
        """CPU-seconds the run has spent to reach its network now, in this process and its
        workers (``crates_env.processes.cpu_seconds``), the checks against the baselines
        excepted."""
        return self.cpu_base + cpu_seconds() - self.cpu_start - self.check_cpu

    def _on_training_start(self) -> None:
        hparams = {
            k: (v if isinstance(v, int | float | str | bool) else str(v))
            for k, v in _flatten(self.config.as_dict()).items()
        }
        self.logger.record(
            "hparams",
            HParam(hparams, {"eval/mean_win_rate_margin": 0.0}),
            exclude=("stdout", "log", "json", "csv"),
        )
        if "last_checkpoint" not in self.state:  # a new run: its first checkpoint, step 0
            self.save()
        if "warm_start" in self.state and not self.state.get("evals"):
            # The curves start from the clone's strength, and best.zip with it.
            self.evaluate()

    def _on_step(self) -> bool:
        return True

    def _on_rollout_start(self) -> None:
        """Between two PPO updates (or before the first), where the network has learned from
        every step counted: a check and a checkpoint when they are due, and after a checkpoint
        (this one, or the one the run resumed from: the first rollout of every start) new
        games."""
        self.check_finite()  # right after each PPO update
        steps = self.num_timesteps
        # the checkpoint before the check: a run stopped while its network is checked keeps
        # these steps (a check cut short is played again on --resume)
        if steps - self.state["last_checkpoint"] >= self.config.checkpoint_every:
            self.save()
        if steps - self.state.get("last_eval", 0) >= self.config.eval.every:
            self.evaluate()
        if steps == self.state["last_checkpoint"] or not self.dealt:
            self.deal_afresh()

    def deal_afresh(self) -> None:
        """New games in every slot and Python's, numpy's and torch's streams (the learner's
        draws, the minibatches' order) started again, all from ``checkpoint_seed``: what
        follows a checkpoint is the same whether the run went on or resumed from it. The games
        in progress end here for PPO as a time limit ends them (their value bootstraps the
        last steps)."""
        seed = checkpoint_seed(self.config.seed, self.num_timesteps)
        set_random_seed(seed)
        # SB3's rollout reads the observations to act on from here
        self.model._last_obs = self.training_env.reseed(seed)
        self.model._last_episode_starts = np.ones(self.training_env.num_envs, dtype=bool)
        self.dealt = True

    def check_finite(self) -> None:
        """Stop, keeping the last checkpoint, once an update has made a weight NaN or
        infinite (a learning rate or a gradient norm too large for the rewards)."""
        if all(torch.isfinite(p).all() for p in self.model.policy.parameters()):
            return
        kept = self.state.get("last_checkpoint")
        where = (
            f"{self.run_dir / LATEST} keeps step {kept:,}"
            if kept is not None
            else "no checkpoint was written"
        )
        raise TrainingDiverged(
            f"training diverged at step {self.num_timesteps:,}: the policy's weights are no "
            f"longer finite; {where} (lower ppo.learning_rate or ppo.max_grad_norm)"
        )

    def save(self) -> None:
        """``latest.zip`` and ``state.json`` at this step (only ever between two updates: a
        rollout cut short is not in the weights, so its steps are not counted either)."""
        self.check_finite()  # a diverged policy never replaces the last good checkpoint
        # the step first: a stop lands once latest.zip is whole, and says it is this one (a
        # run resumed before state.json says so writes this checkpoint again)
        self.state["last_checkpoint"] = self.state["num_timesteps"] = self.num_timesteps
        self.state["training_cpu_seconds"] = self.training_cpu_seconds()
        atomic_save_model(self.model, self.run_dir / LATEST, self.config)
        atomic_write(self.run_dir / STATE, json.dumps(self.state, indent=2))
        remove_unlisted_snapshots(self.run_dir, self.state["snapshots"])

    def kept(self) -> str:
        """Where a stopped run goes on from, in words."""
        last = self.state.get("last_checkpoint")
        if last is None:
            return "no checkpoint was written yet; start the run again"
        return (
            f"{self.run_dir / LATEST} keeps step {last:,}; crates train --resume (same config) "
            "goes on from there exactly as the run would have"
        )

    def evaluate(self) -> None:
        """The network now against the baselines, the best so far kept as ``best.zip``; the
        run's state records it for the next checkpoint (a check cut short, or one after the
        last checkpoint of a stopped run, is played again on --resume)."""
        print(f"check at step {self.num_timesteps:,}, against the baselines:")
        # the learning curves' x axis in CPU time (docs/benchmark.md): what it took to get here
        self.logger.record("time/training_cpu_seconds", self.training_cpu_seconds())
        check_start = cpu_seconds()
        checked = self.run_dir / CHECKED
        atomic_save_model(self.model, checked, self.config)
        try:
            # the check plays here or in worker processes as the machine's load says: it
            # takes nothing from the run's random streams either way
            with random_streams_kept():
                score, _ = evaluate_against_baselines(
                    self.config, checked, self.config.eval.deals, self.logger, say=print
                )
            self.state["last_eval"] = self.num_timesteps
            # at the step checked (SB3 would write it after the next rollout, with the losses
            # of the update before this check: they are written here too, at their own step)
            self.logger.dump(self.num_timesteps)
            self.state.setdefault("evals", []).append({"step": self.num_timesteps, "score": score})
            if score > self.state.get("best_score", -float("inf")):
                self.state["best_score"] = score
                self.state["best_step"] = self.num_timesteps
                checked.replace(self.run_dir / BEST)
        finally:
            checked.unlink(missing_ok=True)
            self.check_cpu += cpu_seconds() - check_start


def checkpoint_seed(seed: int, step: int) -> int:
    """The seed of the games and random streams that follow the checkpoint at ``step`` of a run
    of seed ``seed``."""
    return int(np.random.SeedSequence([seed, step]).generate_state(1)[0])


@contextlib.contextmanager
def random_streams_kept() -> Iterator[None]:
    """Python's, numpy's and torch's random streams as they were before the block."""
    python, numpy = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        yield
    random.setstate(python)
    np.random.set_state(numpy)


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "rules" and k != "scripted":
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


# ---------------------------------------------------------------------- 4. save
def atomic_save_model(model: MaskablePPO, path: Path, config: TrainConfig) -> None:
    """The checkpoint, with the tables it learned at and the layout it reads
    (``agents.checkpoints``), atomically."""
    save = functools.partial(
        save_training, model, tables=config.rulesets(), layout=config.observation
    )
    write_atomically(path, save)


def remove_unlisted_snapshots(run_dir: Path, listed: list[str]) -> None:
    """Delete the snapshot files the opponent pool no longer uses: those the state file on disk
    does not list (a run resumes from that list, so a file goes only once it is off it)."""
    keep = {run_dir / path for path in listed}
    for path in (run_dir / "snapshots").glob("*.pt"):
        if path not in keep:
            path.unlink()

"""Self-play MaskablePPO for Crates (``crates train``), top to bottom.

1. Read and validate the config (``configs/*.yaml`` plus ``--set key=value`` overrides).
2. Build the self-play vectorized environment: games split over worker processes, each game
   against an opponent drawn from the pool (scripted agents and frozen snapshots).
3. Create MaskablePPO (optionally warm-started by cloning a scripted teacher), or load the
   run's last checkpoint with ``--resume`` (weights, optimizer, step count, snapshots).
4. Learn, with callbacks that take snapshots, write checkpoints atomically, evaluate against the
   baselines on fixed duplicate deals and log game statistics to TensorBoard.
5. Print a final table against the baselines.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HParam

from agents.networks import PrivilegedCriticPolicy
from agents.policy import first_line, load_model
from crates_env.actions import NUM_ACTIONS
from train.config import TrainConfig, check_run_folder
from train.evaluation import EvalConfig, format_report, run, summarize
from train.files import atomic_write, write_atomically
from train.imitation import Collection, Demonstrations, clone, collect
from train.metrics import game_scalars
from train.selfplay import LearnerSpec, PoolSpec, SelfPlayVecEnv, observation_space_of
from train.shaping import PressureShaping

LATEST, BEST, STATE = "latest.zip", "best.zip", "state.json"


class TrainingDiverged(ValueError):
    """The policy's weights stopped being finite numbers (settings too bold for the rewards);
    the last good checkpoint is kept."""


# ---------------------------------------------------------------------- building blocks
def usable_cores() -> int:
    """The cores this process may run on (``taskset`` or a container can give fewer than the
    machine has)."""
    return len(os.sched_getaffinity(0))


def policy_spec(config: TrainConfig) -> tuple[type[MaskableActorCriticPolicy], dict[str, Any]]:
    """The learner's policy class and keyword arguments."""
    kwargs: dict[str, Any] = {"net_arch": list(config.net_arch)}
    if not config.privileged_critic:
        return MaskableActorCriticPolicy, kwargs
    public_size = observation_space_of(config.env_kwargs()).shape[0]
    return PrivilegedCriticPolicy, {**kwargs, "public_size": public_size}


def make_policy(observation_space, action_space, config: TrainConfig) -> MaskableActorCriticPolicy:
    """An untrained policy of the learner's architecture (workers load snapshots into it)."""
    cls, kwargs = policy_spec(config)
    return cls(observation_space, action_space, lambda _: 0.0, **kwargs)


def make_vec_env(config: TrainConfig, shaping: PressureShaping | None = None) -> SelfPlayVecEnv:
    env_kwargs = config.env_kwargs()
    obs_space = observation_space_of(env_kwargs, config.privileged_critic)
    factory = functools.partial(make_policy, obs_space, spaces.Discrete(NUM_ACTIONS), config)
    pool = PoolSpec(
        scripted=dict(config.opponents.scripted),
        snapshot_weight=config.opponents.snapshot_weight,
        max_snapshots=config.opponents.max_snapshots,
    )
    return SelfPlayVecEnv(
        config.num_envs,
        env_kwargs,
        pool,
        learner_spec(config, shaping),
        policy_factory=factory,
        workers=config.workers,
        seed=config.seed,
        engine=config.engine,
    )


def learner_spec(config: TrainConfig, shaping: PressureShaping | None) -> LearnerSpec:
    """What the run feeds its learner, in self-play and in the warm start's demonstrations."""
    return LearnerSpec(config.reward_transform, shaping, config.privileged_critic)


def atomic_save_model(model: MaskablePPO, path: Path) -> None:
    write_atomically(path, model.save)


# ---------------------------------------------------------------------- callbacks
class SelfPlayCallback(BaseCallback):
    """Every ``every`` steps, freeze the learner into the opponent pool (and keep it on disk)."""

    def __init__(self, every: int, run_dir: Path, state: dict) -> None:
        super().__init__()
        self.every, self.run_dir, self.state = every, run_dir, state

    def _on_step(self) -> bool:
        if self.num_timesteps - self.state.get("last_snapshot", 0) >= self.every:
            path = self.run_dir / "snapshots" / f"step_{self.num_timesteps}.pt"
            weights = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
            write_atomically(path, functools.partial(torch.save, weights))
            self.training_env.add_snapshot(weights)
            # Relative to the run: a run folder moved or copied elsewhere still resumes.
            self.state["snapshots"].append(str(path.relative_to(self.run_dir)))
            self.state["last_snapshot"] = self.num_timesteps
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
    """Periodic atomic checkpoints; evaluation against the baselines; the best kept apart."""

    def __init__(self, config: TrainConfig, state: dict) -> None:
        super().__init__()
        self.config, self.state = config, state
        self.run_dir = config.run_dir

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
        if "warm_start" in self.state and not self.state.get("evals"):
            # The curves start from the clone's strength, and best.zip with it.
            self.evaluate()
            self.logger.dump(self.num_timesteps)

    def _on_step(self) -> bool:
        steps = self.num_timesteps
        if steps - self.state.get("last_checkpoint", 0) >= self.config.checkpoint_every:
            self.save()
        if steps - self.state.get("last_eval", 0) >= self.config.eval.every:
            self.evaluate()
        return True

    def _on_rollout_start(self) -> None:
        self.check_finite()  # right after each PPO update

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
        self.check_finite()  # a diverged policy never replaces the last good checkpoint
        atomic_save_model(self.model, self.run_dir / LATEST)
        self.state["last_checkpoint"] = self.num_timesteps
        self.state["num_timesteps"] = self.num_timesteps
        atomic_write(self.run_dir / STATE, json.dumps(self.state, indent=2))

    def evaluate(self) -> None:
        self.save()
        self.state["last_eval"] = self.num_timesteps
        score, _ = evaluate_against_baselines(
            self.config, self.run_dir / LATEST, self.config.eval.deals, self.logger
        )
        self.state.setdefault("evals", []).append({"step": self.num_timesteps, "score": score})
        if score > self.state.get("best_score", -float("inf")):
            self.state["best_score"] = score
            self.state["best_step"] = self.num_timesteps
            atomic_save_model(self.model, self.run_dir / BEST)
        self.save()


def evaluate_against_baselines(config: TrainConfig, checkpoint: Path, deals: int, logger=None):
    """Duplicate games of the checkpoint against each baseline; returns (score, reports).

    The score is the learner's mean win-rate margin over the baselines (its win rate minus the
    baseline's, averaged): higher is better. Win rates, not points, pick the best checkpoint
    because doubling pressures make a few games dominate mean points over a few dozen deals.
    """
    reports, margins = [], []
    for baseline in config.eval.baselines:
        ev = EvalConfig(
            agents=(str(checkpoint), baseline),
            preset=config.preset,
            num_players=config.num_players,
            deals=deals,
            seed=config.eval.seed,
            workers=usable_cores(),
            options=dict(config.rules),
        )
        report = summarize(ev, run(ev, progress=False))
        learner, other = report.agents
        (pair,) = report.pairs
        margins.append(pair.win_rate_difference)
        reports.append(report)
        if logger is not None:
            logger.record(f"eval/vs_{baseline}/points_difference", pair.mean_difference)
            logger.record(f"eval/vs_{baseline}/relative_difference", pair.relative)
            logger.record(f"eval/vs_{baseline}/win_rate", learner.win_rate)
            logger.record(f"eval/vs_{baseline}/learner_points", learner.mean_points)
            logger.record(f"eval/vs_{baseline}/baseline_points", other.mean_points)
    score = float(np.mean(margins))
    if logger is not None:
        logger.record("eval/mean_win_rate_margin", score)
    return score, reports


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "rules" and k != "scripted":
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


# ---------------------------------------------------------------------- the run
def train(config: TrainConfig, resume: bool = False) -> Path:
    """Train (or resume) the run; return the path of its last checkpoint."""
    run_dir = config.run_dir
    check_run_folder(run_dir / LATEST, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    # The cores the game workers leave free go to torch (PPO updates dominate the time).
    torch.set_num_threads(max(1, usable_cores() - config.workers))
    state = read_state(run_dir) if resume else {}
    snapshots = [
        read_snapshot(run_dir, path)
        for path in state.get("snapshots", [])[-config.opponents.max_snapshots :]
    ]
    shaping = pressure_shaping(config, state)
    vec = make_vec_env(config, shaping)
    try:
        if resume:
            model = load_model(run_dir / LATEST, env=vec)
            model.tensorboard_log = str(run_dir / "tb")  # the checkpoint remembers where it was
            for weights in snapshots:
                vec.add_snapshot(weights)
        else:
            policy_class, policy_kwargs = policy_spec(config)
            model = MaskablePPO(
                policy_class,
                vec,
                policy_kwargs=policy_kwargs,
                tensorboard_log=str(run_dir / "tb"),
                seed=config.seed,
                device="cpu",
                verbose=0,
                **vars(config.ppo),
            )
            if config.warm_start.teacher:
                state["warm_start"] = warm_start(model.policy, config, shaping)
        state.setdefault("snapshots", [])
        atomic_write(run_dir / "config.json", json.dumps(config.as_dict(), indent=2))
        callbacks = [
            SelfPlayCallback(config.opponents.snapshot_every, run_dir, state),
            GameStatsCallback(),
            CheckpointAndEvalCallback(config, state),
        ]
        remaining = config.total_steps - model.num_timesteps
        if remaining <= 0:
            print(
                f"run {run_dir} is complete: {model.num_timesteps:,} steps of total_steps "
                f"{config.total_steps:,} (raise total_steps to train on)"
            )
            return run_dir / LATEST
        try:
            model.learn(
                remaining,
                callback=callbacks,
                reset_num_timesteps=not resume,
                tb_log_name="ppo",
                progress_bar=config.progress_bar,
            )
        except KeyboardInterrupt:  # Ctrl-C or kill: keep what was learned, say where
            callbacks[-1].save()
            print(
                f"\ninterrupted at step {model.num_timesteps:,}: checkpoint written to "
                f"{run_dir / LATEST}; continue with crates train --resume (same config)",
                file=sys.stderr,
            )
            raise
        callbacks[-1].save()
    finally:
        vec.close()
    return run_dir / LATEST


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
    """The run's state.json (a run checkpointed before it wrote one starts from {}); a
    ValueError naming the file when it is damaged."""
    path = run_dir / STATE
    if not path.exists():
        return {}
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
    return state


def read_snapshot(run_dir: Path, path: str) -> dict:
    """A frozen snapshot's weights; a ValueError naming the file when it is missing or damaged."""
    full = run_dir / path
    if not full.is_file():
        raise ValueError(f"{run_dir / STATE} lists snapshot {full}, which does not exist")
    try:
        return torch.load(full, weights_only=True)
    except Exception as exc:  # torch raises many kinds on a damaged file
        raise ValueError(f"snapshot {full} is damaged ({first_line(exc)})") from None


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


def warm_start(
    policy: torch.nn.Module, config: TrainConfig, shaping: PressureShaping | None, heads=None
) -> dict:
    """Clone the configured teacher into the fresh policy (``heads``: see ``clone``); the numbers
    go to the run's state file."""
    ws = config.warm_start
    start = time.perf_counter()
    settings = demo_settings(config)
    if ws.demos and Path(ws.demos).exists():
        demos = Demonstrations.load(Path(ws.demos), settings)
    else:
        plan = Collection(
            teacher=teacher_spec(ws),
            games=ws.games,
            gamma=config.ppo.gamma,
            opponent=ws.opponent,
            learner=learner_spec(config, shaping),
            num_envs=config.num_envs,
            seed=config.seed,
        )
        demos = collect(config.env_kwargs(), plan, workers=ws.workers)
        if ws.demos:
            demos.save(Path(ws.demos), settings)
    stats = clone(policy, demos, ws.epochs, ws.batch_size, ws.learning_rate, config.seed, heads)
    report = {"teacher": ws.teacher, **vars(stats), "seconds": time.perf_counter() - start}
    print(
        f"warm start: cloned {ws.teacher} from {stats.games} games ({stats.samples} decisions): "
        f"{stats.accuracy:.1%} of its choices, value loss {stats.value_loss:.3f}, "
        f"{report['seconds']:.0f} s"
    )
    return report


def teacher_spec(ws) -> str:
    """The warm start's teacher as an agent spec: the search teacher with its settings."""
    if ws.teacher == "search":
        return (
            f"search:samples={ws.search_samples},stock_max={ws.search_stock_max},z={ws.search_z:g}"
        )
    return ws.teacher


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
    if ws.teacher == "search":
        settings["search"] = [ws.search_samples, ws.search_stock_max, ws.search_z]
    if config.pressure_shaping:  # the returns the critic learns are shaped
        settings["pressure_shaping"] = config.pressure_shaping_games
    return settings


def final_table(config: TrainConfig, checkpoint: Path) -> str:
    start = time.perf_counter()
    _, reports = evaluate_against_baselines(config, checkpoint, config.eval.final_deals)
    tables = [format_report(r) for r in reports]
    return "\n\n".join(tables) + f"\n(evaluated in {time.perf_counter() - start:.0f} s)"

"""Training on Ray RLlib (``crates train --backend rllib``): the same YAML config, RLlib's PPO on
the AEC environment through RLlib's ``PettingZooEnv``.

- The learner's side (one seat, and its partner's in a partnership game) plays one shared,
  trained module; the other seats play an opponent drawn per game as the SB3 path draws them
  (``train.selfplay.opponent_odds``): a scripted agent by its weight or a frozen snapshot of the
  learner (its own module). Who sits where follows from the game's episode id.
- The learner's module reads our observation dict as it is (``observation`` and
  ``action_mask``) and masks the illegal actions' logits, so it never takes one; scripted modules
  call our agents on the same dicts.
- TensorBoard gets the SB3 path's names (``game/...``, ``game_vs_<opponent>/...``,
  ``eval/vs_<baseline>/...``, ``train/steps_per_second``) in ``<run_dir>/tb/rllib``;
  ``<run_dir>/rllib/step_<n>`` holds the algorithm's checkpoint (``--resume`` continues it),
  ``<run_dir>/rllib_policy`` the learner's module alone, an agent for ``crates eval``;
  ``rllib_state.json`` names the checkpoint and is written last, so a run killed at any moment
  (even mid-save) resumes from its last checkpoint; Ctrl-C and SIGTERM save first.
- The warm start and the reward transform work as on the SB3 path.
- Steps count the learner's decisions, as SB3's timesteps do.

Not here yet (refused by name): pressure shaping and the privileged critic.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from crates_env.env import raw_env
from crates_env.rules import Ruleset
from train.config import TrainConfig, check_run_folder
from train.evaluation import evaluate_against_baselines
from train.files import atomic_write
from train.imitation import warm_start
from train.metrics import game_summary_of, game_values
from train.selfplay import LearnerSpec, learner_seats, opponent_odds
from train.workers import init_ray

LEARNER = "learner"
ENV_NAME = "crates_aec"
ALGORITHM = "rllib"  # the run folder's checkpoint of the whole algorithm
POLICY = "rllib_policy"  # the learner's module alone
STATE = "rllib_state.json"
SNAPSHOT = "snapshot_"  # frozen copies of the learner: snapshot_<step>
# a round's finished games (train.metrics.game_values): each scalar's sum and count
GAME_SUMS, GAME_COUNTS = "crates_game_sums", "crates_game_counts"


def check_supported(config: TrainConfig) -> None:
    """ValueError naming each setting this backend does not play yet, before anything starts."""
    switches = {
        "pressure_shaping": config.pressure_shaping,
        "privileged_critic": config.privileged_critic,
    }
    wrong = [key for key, on in switches.items() if on]
    if wrong:
        now = ", ".join(f"{key}=true" for key in wrong)
        fixes = " ".join(f"--set {key}=false" for key in wrong)
        raise ValueError(
            f"the rllib backend does not train with {now} yet: {fixes}, or train with the "
            "sb3 backend"
        )
    if "search" in config.opponents.scripted:
        raise ValueError("the rllib backend has no search opponent (it looks ahead in the game)")


# ---------------------------------------------------------------------- who sits where
def seating(
    episode_id: str,
    config: TrainConfig,
    snapshots: Sequence[str] = (),
    rules: Ruleset | None = None,
) -> tuple[set[int], str]:
    """The learner's seats and the opponent (a scripted agent's name, or one of the frozen
    ``snapshots``' modules) in the game of ``episode_id`` (``rules``: the config's ruleset,
    when the caller has it already)."""
    rules = config.ruleset() if rules is None else rules
    draw = np.random.default_rng(zlib.crc32(str(episode_id).encode()))
    seats = learner_seats(rules, int(draw.integers(rules.num_players)))
    opponents = config.opponents
    names, p = opponent_odds(opponents.scripted, opponents.snapshot_weight, snapshots)
    return seats, names[int(draw.choice(len(names), p=p))]


def _mapping(config: TrainConfig, snapshots: Sequence[str]):
    """RLlib's agent-to-module mapping for the games to come (``seating``)."""
    snapshots, rules = tuple(snapshots), config.ruleset()  # every seat of every game asks

    def to_module(agent_id, episode, **kwargs):
        seats, opponent = seating(episode.id_, config, snapshots, rules)
        return LEARNER if _seat(agent_id) in seats else opponent

    return to_module


def _seat(agent_id: str) -> int:
    return int(agent_id.rsplit("_", 1)[1])


def _game_callback():
    """An RLlib callback class that logs every finished game (``game_summary``), reading who
    played which seat from the episode."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class GameStats(RLlibCallback):
        def on_episode_end(self, *, episode, env=None, env_index=None, metrics_logger=None, **kw):
            g = env.unwrapped.envs[env_index].unwrapped.env.game
            modules = {_seat(agent): episode.module_for(agent) for agent in episode.agent_ids}
            side = g.rules.team_of(min(s for s, m in modules.items() if m == LEARNER))
            opponent = next(m for m in modules.values() if m != LEARNER)
            kind = "snapshot" if opponent.startswith(SNAPSHOT) else opponent
            game = game_summary_of(g, side, kind)
            # sums and counts, which add up exactly over env runners (their means would not)
            for key, value in game_values(game).items():
                metrics_logger.log_value((GAME_SUMS, key), value, reduce="sum")
                metrics_logger.log_value((GAME_COUNTS, key), 1, reduce="sum")

    return GameStats


# ---------------------------------------------------------------------- the algorithm
def learner_env(env_kwargs: dict[str, Any], reward_transform: str):
    """RLlib's view of the AEC env (``PettingZooEnv``), each seat's reward at its next turn
    (everything since its last move, as the SB3 path's learner gets it) passed through the
    reward transform."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    learner = LearnerSpec(reward_transform)

    class LearnerRewards(PettingZooEnv):
        def step(self, action):
            obs, rewards, terminated, truncated, infos = super().step(action)
            rewards = {agent: learner.reward(r) for agent, r in rewards.items()}
            return obs, rewards, terminated, truncated, infos

    return LearnerRewards(raw_env(**env_kwargs))


def ppo_config(config: TrainConfig):
    """RLlib's PPOConfig for the run: the table, the modules and the mapping of seats to them,
    and the YAML's PPO settings under RLlib's names."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    transform = config.reward_transform
    register_env(ENV_NAME, lambda env_config: learner_env(env_config, transform))
    env_kwargs = config.env_kwargs()
    probe = raw_env(**env_kwargs)
    spaces = {
        "observation_space": probe.observation_space(probe.possible_agents[0]),
        "action_space": probe.action_space(probe.possible_agents[0]),
    }
    from agents.rllib import MaskedPPOModule, ScriptedModule

    specs = {
        LEARNER: RLModuleSpec(
            module_class=MaskedPPOModule,
            model_config={"fcnet_hiddens": list(config.net_arch), "fcnet_activation": "tanh"},
            **spaces,
        )
    }
    for name in config.opponents.scripted:
        specs[name] = RLModuleSpec(
            module_class=ScriptedModule,
            model_config={"agent": name, "env_kwargs": env_kwargs},
            **spaces,
        )

    ppo = config.ppo
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_kwargs, disable_env_checking=True)
        .env_runners(num_env_runners=config.workers, num_envs_per_env_runner=config.num_envs)
        .multi_agent(
            policies=set(specs), policy_mapping_fn=_mapping(config, ()), policies_to_train=[LEARNER]
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_range,
            entropy_coeff=ppo.ent_coef,
            vf_loss_coeff=ppo.vf_coef,
            grad_clip=ppo.max_grad_norm,
            num_epochs=ppo.n_epochs,
            minibatch_size=ppo.batch_size,
            train_batch_size_per_learner=rollout_size(config),
        )
        .callbacks(_game_callback())
        .debugging(seed=config.seed)
    )


def rollout_size(config: TrainConfig) -> int:
    """RLlib's batch counts every seat's moves; the learner makes its share of them, so this
    gives it about ``ppo.n_steps * num_envs`` decisions a rollout, as SB3's rollouts hold."""
    rules = config.ruleset()
    share = (2 if rules.partnerships else 1) / rules.num_players
    return math.ceil(config.ppo.n_steps * config.num_envs / share)


# ---------------------------------------------------------------------- the run
def train_rllib(config: TrainConfig, resume: bool = False, address: str | None = None) -> Path:
    """Train (or resume) the run on RLlib; return the folder of the learner's module."""
    check_supported(config)
    try:
        import ray
    except ImportError:
        raise ValueError(
            "--backend rllib needs Ray RLlib, an optional extra: pip install 'crates-rl[ray]'"
        ) from None
    run_dir = config.run_dir
    check_run_folder(run_dir / STATE, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    config.save()
    started = not ray.is_initialized()
    if started:
        init_ray(address=address, include_dashboard=False, log_to_driver=False)
    try:
        algo = ppo_config(config).build_algo()
        if resume:
            state = json.loads((run_dir / STATE).read_text())
            for name in state["snapshots"]:  # their modules first, then every module's weights
                _add_module(algo, config, name, state["snapshots"])
            checkpoint = run_dir / ALGORITHM / state.get("checkpoint", "")
            algo.restore_from_path(str(checkpoint.resolve()))
        else:
            state = {"steps": 0, "last_eval": 0, "last_snapshot": 0, "snapshots": []}
            if config.warm_start.teacher:
                state["warm_start"] = _warm_start(algo, config)
        return _loop(config, algo, state)
    finally:
        if started:
            ray.shutdown()


def _loop(config: TrainConfig, algo, state: dict) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    run_dir = config.run_dir
    writer = SummaryWriter(str(run_dir / "tb" / "rllib"))
    try:
        _train(config, algo, state, writer)
    except KeyboardInterrupt:  # Ctrl-C or kill: keep what was learned, say where
        _save(algo, run_dir, state)
        print(
            f"\ninterrupted at step {state['steps']:,}: checkpoint written to "
            f"{run_dir / ALGORITHM / state['checkpoint']}; continue with crates train "
            "--backend rllib --resume (same config)",
            file=sys.stderr,
        )
        raise
    finally:
        writer.close()
        algo.stop()
    return run_dir / POLICY


def _train(config: TrainConfig, algo, state: dict, writer) -> None:
    """Train up to ``total_steps``: checkpoints, snapshots and the checks on the way."""
    run_dir = config.run_dir
    last_checkpoint = state["steps"]
    while state["steps"] < config.total_steps:
        start = time.perf_counter()
        result = algo.train()
        runners = result.get("env_runners", {})  # none when a round's sampling timed out
        learned = int(runners.get("num_module_steps_sampled", {}).get(LEARNER, 0))
        state["steps"] += learned
        step = state["steps"]
        sums, counts = runners.get(GAME_SUMS, {}), runners.get(GAME_COUNTS, {})
        scalars = {key: sums[key] / counts[key] for key in sums if counts.get(key)}
        scalars["train/steps_per_second"] = learned / (time.perf_counter() - start)
        for key, value in scalars.items():
            writer.add_scalar(key, value, step)
        if _snapshot_due(config, state):
            _snapshot(algo, config, state)
        due = step - state["last_eval"] >= config.eval.every
        if due or step - last_checkpoint >= config.checkpoint_every:
            _save(algo, run_dir, state)
            last_checkpoint = step
        if due:  # the SB3 path's checks against the baselines, on the module just saved
            evaluate_against_baselines(
                config, run_dir / POLICY, config.eval.deals, _Scalars(writer, step)
            )
            # recorded once it is done: a check cut short is played again on --resume
            state["last_eval"] = step
            atomic_write(run_dir / STATE, json.dumps(state))
    if last_checkpoint < state["steps"]:
        _save(algo, run_dir, state)


def _warm_start(algo, config: TrainConfig) -> dict:
    """Clone the configured teacher into the learner's module, as the SB3 path does, then hand
    the cloned weights to the env runners."""
    module = algo.get_module(LEARNER)
    report = warm_start(module, config, None, heads=lambda m, x: m.heads(x))
    _set_weights(algo, LEARNER, module.get_state())
    return report


def _set_weights(algo, name: str, weights: dict) -> None:
    """Module ``name``'s weights on the learner, and from there on every env runner."""
    algo.set_state({"learner_group": {"learner": {"rl_module": {name: weights}}}})


def _add_module(algo, config: TrainConfig, name: str, snapshots: Sequence[str]) -> None:
    """A frozen copy of the learner's module named ``name``, with the mapping of
    ``snapshots``."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    algo.add_module(
        module_id=name,
        module_spec=RLModuleSpec.from_module(algo.get_module(LEARNER)),
        new_agent_to_module_mapping_fn=_mapping(config, snapshots),
        new_should_module_be_updated=[LEARNER],
    )


def _snapshot_due(config: TrainConfig, state: dict) -> bool:
    opponents = config.opponents
    return bool(opponents.snapshot_weight) and (
        state["steps"] - state["last_snapshot"] >= opponents.snapshot_every
    )


def _snapshot(algo, config: TrainConfig, state: dict) -> None:
    """Freeze the learner as a new opponent module (the learner's weights now, on the learner
    and every env runner); the oldest past ``max_snapshots`` leaves."""
    name = f"{SNAPSHOT}{state['steps']}"
    snapshots = [*state["snapshots"], name]
    _add_module(algo, config, name, snapshots)
    _set_weights(algo, name, algo.get_module(LEARNER).get_state())
    keep = snapshots[-config.opponents.max_snapshots :]
    for gone in snapshots[: -config.opponents.max_snapshots]:
        algo.remove_module(
            gone,
            new_agent_to_module_mapping_fn=_mapping(config, keep),
            new_should_module_be_updated=[LEARNER],
        )
    state["snapshots"], state["last_snapshot"] = keep, state["steps"]


class _Scalars:
    """TensorBoard at one step, with the ``record`` that ``evaluate_against_baselines`` calls
    on SB3's logger."""

    def __init__(self, writer, step: int) -> None:
        self.writer, self.step = writer, step

    def record(self, key: str, value: float) -> None:
        self.writer.add_scalar(key, value, self.step)


def _save(algo, run_dir: Path, state: dict) -> None:
    """The algorithm (to resume) into a folder of its own, the learner's module (to play),
    then the state file that names that folder; the previous checkpoint's folder goes only
    after that, so a run killed at any moment, mid-save included, resumes from the last
    checkpoint the state file names."""
    name = f"step_{state['steps']}"
    target = run_dir / ALGORITHM / name
    if target.exists():  # a save of this step cut short
        shutil.rmtree(target)
    algo.save_to_path(str(target.resolve()))
    _replace_folder(run_dir / POLICY, algo.get_module(LEARNER).save_to_path)
    state["checkpoint"] = name
    atomic_write(run_dir / STATE, json.dumps(state))
    for old in (run_dir / ALGORITHM).iterdir():
        if old.name == name:
            continue
        if old.is_dir():
            shutil.rmtree(old)
        else:  # the files of a run saved before checkpoints had folders of their own
            old.unlink()


def _replace_folder(path: Path, write) -> None:
    """``write(folder)`` into a new folder beside ``path``, then swap it in for ``path``."""
    new, old = path.with_name(path.name + ".new"), path.with_name(path.name + ".old")
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    write(str(new.resolve()))
    if path.exists():
        path.rename(old)
    new.rename(path)
    shutil.rmtree(old, ignore_errors=True)

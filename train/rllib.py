"""Training on Ray RLlib (``crates train --backend rllib``): the same YAML config, RLlib's PPO
(single-agent) on the Gymnasium vector env of the compiled engine, ``num_envs`` games in each env
runner.

- Each env runner (``train.rllib_runner.FragmentRunner``: RLlib's, sampling a rollout fragment
  as arrays) steps ``crates_env.vector_env.CratesVectorEnv`` through Crates-v0's
  ``vector_entry_point`` (``gym_env_vectorize_mode="vector_entry_point"``): the learner's side
  (one seat, and its partner's in a partnership game) is RLlib's module; the other seats are
  played inside the env, an opponent drawn per game as the SB3 path draws them
  (``train.opponents.PoolSeating``): a scripted agent by its weight, all its waiting games in one
  batched call, or a frozen snapshot of the learner, whose weights the driver sends to every
  env runner when it takes one.
- The learner's module reads each observation vector with its action mask after it
  (``agents.rllib.with_mask`` of the vector env's observations and ``infos["action_mask"]``:
  one flat array, which RLlib slices into games and batches without taking a dict apart) and
  masks the illegal actions' logits, so it never takes one.
- TensorBoard gets the SB3 path's names (``game/...``, ``game_vs_<opponent>/...``,
  ``eval/vs_<baseline>/...``, ``train/steps_per_second``) in ``<run_dir>/tb/rllib``;
  ``<run_dir>/rllib/step_<n>`` holds the algorithm's checkpoint (``--resume`` continues it),
  ``<run_dir>/rllib_snapshots`` the snapshots' weights, ``<run_dir>/rllib_policy`` the learner's
  module alone, an agent for ``crates eval``; ``rllib_state.json`` names the checkpoint and is
  written last, so a run killed at any moment (even mid-save) resumes from its last checkpoint;
  Ctrl-C and SIGTERM save first.
- The warm start and the reward transform work as on the SB3 path.
- Steps count the learner's decisions, as SB3's timesteps do.

Not here yet (refused by name): pressure shaping and the privileged critic.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from agents import Table
from crates_env.env import raw_env
from crates_env.vector_env import CratesVectorEnv
from train.config import TrainConfig, check_run_folder
from train.evaluation import evaluate_against_baselines
from train.files import atomic_write
from train.imitation import warm_start
from train.metrics import game_summary_of_final, game_values
from train.opponents import OpponentPool, PoolSeating, PoolSpec
from train.selfplay import LearnerSpec
from train.workers import init_ray

LEARNER = "default_policy"  # RLlib's single module (DEFAULT_MODULE_ID)
ENV_NAME = "crates_vector"
ALGORITHM = "rllib"  # the run folder's checkpoint of the whole algorithm
POLICY = "rllib_policy"  # the learner's module alone
SNAPSHOTS = "rllib_snapshots"  # the snapshots' weights, oldest first (to resume)
STATE = "rllib_state.json"
# a round's finished games (train.metrics.game_values): each scalar's sum and count
GAME_SUMS, GAME_COUNTS = "crates_game_sums", "crates_game_counts"
FINAL_INFOS = ("scores", "side", "win", "hands", "pressures", "opponents")


def check_supported(config: TrainConfig) -> None:
    """ValueError naming each setting this backend does not play yet, before anything starts."""
    switches = {
        "pressure_shaping": config.pressure_shaping,
        "privileged_critic": config.privileged_critic,
        "count_features": config.count_features,
        "duplicate_reward": config.duplicate_reward,
        "duplicate_hands": config.duplicate_hands,
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
    if config.init:  # its module starts fresh: a run from init would silently not be one
        raise ValueError(
            f"the rllib backend does not start from init yet ({config.init}): leave init out, "
            "or train with the sb3 backend"
        )


# ---------------------------------------------------------------------- the games
class LearnerGames(gym.vector.VectorWrapper):
    """The learner's games as an env runner steps them: the vector env (next-step autoreset,
    Gymnasium's default, which RLlib expects) with each observation's action mask after it
    (``with_mask``), the learner's reward transform, and infos only where a game ends (its
    result, which the callbacks log)."""

    def __init__(
        self, env: CratesVectorEnv, pool: OpponentPool, learner: LearnerSpec, observation_space
    ) -> None:
        super().__init__(env)
        self.pool, self.learner = pool, learner
        self.single_observation_space = observation_space
        self.observation_space = gym.vector.utils.batch_space(observation_space, env.num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # the opponents each game draws, per env runner
            self.pool.rng = np.random.default_rng([seed, 1])
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._observations(obs, infos), {}

    def step(self, actions):
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        rewards = self.learner.rewards(rewards).astype(np.float32)
        return self._observations(obs, infos), rewards, terminated, truncated, _results(infos)

    @staticmethod
    def _observations(obs: np.ndarray, infos: dict) -> np.ndarray:
        from agents.rllib import with_mask

        return with_mask(obs, infos["action_mask"])


def _results(infos: dict) -> dict:
    """The finished games' results of a step's infos (nothing when none ended)."""
    return {key: value for key, value in infos.items() if key.lstrip("_") in FINAL_INFOS}


class SnapshotPolicy:
    """A frozen copy of the learner's module as the opponent pool plays it (the SB3 policy's
    ``load_state_dict``, ``set_training_mode`` and ``predict``): a move sampled from its masked
    logits."""

    def __init__(self, spec, seed: int) -> None:
        self.module = spec.build()
        self.rng = np.random.default_rng(seed)

    def load_state_dict(self, weights: dict) -> None:
        self.module.set_state(weights)

    def set_training_mode(self, mode: bool) -> None:
        self.module.train(mode)

    def predict(self, observations, action_masks, deterministic: bool = False):
        from agents.rllib import masked_logits

        logits = masked_logits(self.module, observations, action_masks).astype(np.float64)
        if deterministic:
            return logits.argmax(axis=1), None
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        draws = self.rng.random((len(p), 1))
        return (p.cumsum(axis=1) > draws).argmax(axis=1), None


def learner_games(config: TrainConfig, num_envs: int) -> LearnerGames:
    """``num_envs`` of the learner's games (``LearnerGames``), opponents drawn from the config's
    pool (RLlib's first reset seeds each env runner's games and draws)."""
    env_kwargs, seed = config.env_kwargs(), config.seed
    pool_spec = PoolSpec(
        scripted=dict(config.opponents.scripted),
        snapshot_weight=config.opponents.snapshot_weight,
        max_snapshots=config.opponents.max_snapshots,
    )
    spec = module_spec(config)
    snapshot_seeds = itertools.count(seed)
    pool = OpponentPool(
        pool_spec,
        Table.from_rules(config.ruleset()),
        lambda: SnapshotPolicy(spec, next(snapshot_seeds)),
        seed,
    )
    env = CratesVectorEnv(
        num_envs,
        seating=PoolSeating(pool, privileged=False),
        engine=config.engine,
        **env_kwargs,
    )
    return LearnerGames(env, pool, LearnerSpec(config.reward_transform), spec.observation_space)


def _pool_of(runner) -> OpponentPool | None:
    """The opponent pool of an env runner's games (None: a runner without games, the driver's
    when there are remote ones)."""
    return None if runner.env is None else runner.env.unwrapped.seating.pool


def _game_callback():
    """An RLlib callback class that logs every finished game (``game_summary``) from the last
    info of its episode: the vector env's result of the game."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class GameStats(RLlibCallback):
        def on_episode_end(self, *, episode, metrics_logger=None, **kw):
            game = game_summary_of_final(episode.get_infos(-1))
            # sums and counts, which add up exactly over env runners (their means would not)
            for key, value in game_values(game).items():
                metrics_logger.log_value((GAME_SUMS, key), value, reduce="sum")
                metrics_logger.log_value((GAME_COUNTS, key), 1, reduce="sum")

    return GameStats


# ---------------------------------------------------------------------- the algorithm
def module_spec(config: TrainConfig):
    """The learner's module: PPO's MLP of ``net_arch`` over the observation vector, its
    logits masked by the action mask (``with_mask``'s rows)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib import MaskedPPOModule, with_mask_space

    probe = raw_env(**config.env_kwargs())
    agent = probe.possible_agents[0]
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        model_config={"fcnet_hiddens": list(config.net_arch), "fcnet_activation": "tanh"},
        observation_space=with_mask_space(probe.observation_space(agent)["observation"]),
        action_space=probe.action_space(agent),
    )


def ppo_config(config: TrainConfig):
    """RLlib's PPOConfig for the run: the learner's games in every env runner, its module, and
    the YAML's PPO settings under RLlib's names."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    from train.rllib_runner import FragmentRunner

    register_env(ENV_NAME, lambda env_config: learner_games(config, env_config.get("num_envs", 1)))
    ppo = config.ppo
    return (
        PPOConfig()
        # discrete actions: nothing to unsquash or clip (RLlib would copy every action to try)
        .environment(
            ENV_NAME, disable_env_checking=True, normalize_actions=False, clip_actions=False
        )
        .env_runners(
            env_runner_cls=FragmentRunner,
            num_env_runners=config.workers,
            num_envs_per_env_runner=config.num_envs,
            gym_env_vectorize_mode="vector_entry_point",
        )
        .rl_module(rl_module_spec=module_spec(config))
        .training(
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_range,
            use_kl_loss=False,  # PPO's clipped loss alone, as SB3's (RLlib adds a KL penalty)
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
    """Learner decisions a rollout, as SB3's rollouts hold: ``ppo.n_steps * num_envs``."""
    return config.ppo.n_steps * config.num_envs


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
            checkpoint = run_dir / ALGORITHM / state.get("checkpoint", "")
            algo.restore_from_path(str(checkpoint.resolve()))
            for name in state["snapshots"]:  # back at the tables, oldest first
                weights = np.load(run_dir / SNAPSHOTS / f"{name}.npz")
                _seat_snapshot(algo, {key: weights[key] for key in weights.files})
        else:
            state = {"steps": 0, "last_eval": 0, "last_snapshot": 0, "snapshots": []}
            if config.warm_start.teaches():
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
        learned = int(runners.get("num_env_steps_sampled", 0))
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
    if last_checkpoint < state["steps"] or "checkpoint" not in state:  # total_steps 0: the clone
        _save(algo, run_dir, state)


def _warm_start(algo, config: TrainConfig) -> dict:
    """Clone the configured teacher into a fresh learner's module (actor and critic), as the
    SB3 path does, then hand the cloned weights to the learner and the env runners."""
    module = module_spec(config).build()
    report = warm_start(module, config, None, heads=lambda m, x: m.heads(x))
    _set_weights(algo, LEARNER, module.get_state())
    return report


def _set_weights(algo, name: str, weights: dict) -> None:
    """Module ``name``'s weights on the learner, and from there on every env runner."""
    algo.set_state({"learner_group": {"learner": {"rl_module": {name: weights}}}})


def _seat_snapshot(algo, weights: dict) -> None:
    """A frozen copy of the learner (``weights``) joins every env runner's opponent pool."""

    def add(runner) -> None:
        pool = _pool_of(runner)
        if pool is not None:
            pool.add_snapshot(weights)

    algo.env_runner_group.foreach_env_runner(add, local_env_runner=True)


def _snapshot_due(config: TrainConfig, state: dict) -> bool:
    opponents = config.opponents
    return bool(opponents.snapshot_weight) and (
        state["steps"] - state["last_snapshot"] >= opponents.snapshot_every
    )


def _snapshot(algo, config: TrainConfig, state: dict) -> None:
    """Freeze the learner as a new opponent (its weights now, kept on disk for a resume, sent
    to every env runner); the oldest past ``max_snapshots`` leaves."""
    name = f"snapshot_{state['steps']}"
    weights = algo.learner_group.get_weights([LEARNER])[LEARNER]  # the whole module's
    folder = config.run_dir / SNAPSHOTS
    folder.mkdir(exist_ok=True)
    with (folder / f"{name}.npz").open("wb") as out:
        np.savez(out, **{key: np.asarray(value) for key, value in weights.items()})
    _seat_snapshot(algo, weights)
    keep = [*state["snapshots"], name][-config.opponents.max_snapshots :]
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
    kept = {f"{snapshot}.npz" for snapshot in state["snapshots"]}
    for old in (run_dir / SNAPSHOTS).glob("*.npz"):
        if old.name not in kept:
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

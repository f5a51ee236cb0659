"""crates train --backend rllib: RLlib's PPO on the vector env with a masked learner module, our
scripted agents and its snapshots as opponents; checkpoints resume; the learner's module plays in
crates eval.
RLlib is the optional extra `ray`, installed by the README's test command."""

import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from agents import Table, make_agent
from crates_env.actions import NUM_ACTIONS
from crates_env.env import raw_env
from train.cli import main
from train.config import load_config
from train.rllib import (
    FINAL_INFOS,
    check_supported,
    learner_games,
    module_spec,
    ppo_config,
    rollout_size,
)

from .extras import needs
from .test_cli_errors import fails
from .waiting import crates_command, wait_for

pytestmark = needs("ray", "ray")

ROOT = Path(__file__).resolve().parent.parent

TINY = [
    "--backend",
    "rllib",
    "--set",
    "warm_start.teacher=heuristic",
    "--set",
    "warm_start.games=3",
    "--set",
    "num_envs=2",
    "--set",
    "ppo.n_steps=40",
    "--set",
    "ppo.batch_size=64",
    "--set",
    "ppo.n_epochs=1",
    "--set",
    "checkpoint_every=100",
    "--set",
    "eval.final_deals=1",
    "--set",
    "eval.every=100",
    "--set",
    "eval.deals=1",
    "--set",
    "eval.baselines=[random]",
    "--set",
    "rules={deal_schedule: [2, 1]}",
    "--set",
    "opponents.scripted={heuristic: 1.0}",
    "--set",
    "opponents.snapshot_weight=100.0",  # once there is one, nearly every game
    "--set",
    "opponents.snapshot_every=60",
    "--set",
    "opponents.max_snapshots=2",
    "--set",
    "reward_transform=symlog",
    "--set",
    "progress_bar=false",
]


def _scalars(run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars = {}
    for events in sorted((run / "tb" / "rllib").glob("events.out.tfevents.*")):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            scalars.setdefault(tag, []).extend(e.step for e in accumulator.Scalars(tag))
    return scalars


def test_rllib_run_of_no_steps_keeps_its_warm_starts_clone(tmp_path, monkeypatch):
    """total_steps 0: the clone is written as the run's module (before, nothing was saved)."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    where = ["--set", f"runs_dir={tmp_path}", "--set", "run_name=rl0", "--set", "total_steps=0"]
    assert main(["train", *TINY, *where]) == 0
    state = json.loads((tmp_path / "rl0" / "rllib_state.json").read_text())
    assert (state["steps"], state["checkpoint"]) == (0, "step_0")
    assert state["warm_start"]["samples"] > 0
    assert (tmp_path / "rl0" / "rllib_policy").is_dir()


def test_rllib_trains_resumes_and_its_policy_plays_in_eval(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    where = ["--set", f"runs_dir={tmp_path}", "--set", "run_name=rl"]
    # An illegal move would stop the run: the environment refuses it with a ValueError.
    assert main(["train", *TINY, *where, "--set", "total_steps=150"]) == 0
    run = tmp_path / "rl"
    state = json.loads((run / "rllib_state.json").read_text())
    first = state["steps"]
    assert first >= 150
    assert 1 <= len(state["snapshots"]) <= 2  # frozen copies of the learner, the oldest gone
    assert state["warm_start"]["teacher"] == "heuristic" and state["warm_start"]["samples"] > 0
    assert "rl/rllib_policy - random" in capsys.readouterr().out  # the final table played it
    scalars = _scalars(run)
    for name in ("win_rate", "points_per_game", "pressures_per_game"):
        assert f"game/{name}" in scalars and f"game_vs_heuristic/{name}" in scalars
    assert "game_vs_snapshot/win_rate" in scalars  # the snapshots sat at the table
    assert "train/steps_per_second" in scalars
    assert "eval/vs_random/win_rate" in scalars  # the checks against the baselines, as SB3's
    # --resume continues the algorithm, its snapshots and the step count from the checkpoint
    assert main(["train", *TINY, *where, "--set", "total_steps=300", "--resume"]) == 0
    resumed_state = json.loads((run / "rllib_state.json").read_text())
    assert resumed_state["steps"] >= 300
    assert (
        state["snapshots"][-1] in resumed_state["snapshots"] or len(resumed_state["snapshots"]) == 2
    )
    resumed = _scalars(run)["train/steps_per_second"][len(scalars["train/steps_per_second"]) :]
    assert resumed and min(resumed) > first  # the curves go on from the checkpoint's step
    # a fresh start over an RLlib run is refused
    capsys.readouterr()
    assert "already has a checkpoint (rllib_state.json)" in fails(["train", *TINY, *where], capsys)

    # The learner's module is an agent: only legal moves, from any position
    env = raw_env(deal_schedule=[2, 1])
    agent = make_agent(str(run / "rllib_policy"), Table.from_env(env))
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    while not env.game.game_over:
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        legal = np.flatnonzero(obs["action_mask"])
        env.step(action if rng.random() < 0.5 else int(rng.choice(legal)))


def test_the_settings_rllib_does_not_train_yet_are_refused_by_name(capsys):
    err = fails(["train", "--backend", "rllib", "--set", "pressure_shaping=true"], capsys)
    assert "does not train with pressure_shaping=true yet: --set pressure_shaping=false" in err
    config = load_config(None, ["privileged_critic=true"])
    with pytest.raises(ValueError, match="privileged_critic=true yet: --set privileged_critic"):
        check_supported(config)
    config = load_config(None, ["opponents.scripted={search: 1}"])
    with pytest.raises(ValueError, match="no search opponent"):
        check_supported(config)
    # the module started fresh whatever init said
    config = load_config(None, ["init=checkpoints/crates_4p.zip", "warm_start.teacher="])
    with pytest.raises(ValueError, match=r"does not start from init yet \(checkpoints/crates_4p"):
        check_supported(config)
    assert "--address is for --backend rllib" in fails(["train", "--address", "x:1"], capsys)


def test_each_env_runner_plays_the_vector_env_with_masks_opponents_and_snapshots():
    """RLlib's games: the vector env's observations with their action masks, the reward
    transform on every reward, opponents drawn per game by their weights, snapshots among them
    once the driver sends one, and infos only where a game ends (its result)."""
    settings = ["opponents.scripted={random: 3.0, greedy: 1.0}", "opponents.snapshot_weight=4.0"]
    settings += ["rules={deal_schedule: [2, 1]}", "reward_mode=points", "reward_scale=1.0"]
    games = learner_games(load_config(None, [*settings, "reward_transform=symlog"]), 8)
    plain = learner_games(load_config(None, [*settings, "reward_transform=none"]), 8)
    weights = module_spec(load_config(None, settings)).build().get_state()
    for env in (games, plain):
        env.unwrapped.seating.pool.add_snapshot(weights)  # as the driver's _seat_snapshot does
    obs, infos = games.reset(seed=5)
    plain.reset(seed=5)
    assert infos == {} and games.single_observation_space.contains(obs[0])
    rng, opponents = np.random.default_rng(0), []
    for _ in range(300):
        masks = obs[:, -NUM_ACTIONS:].astype(bool)  # each observation's mask after it
        assert (masks == games.unwrapped.action_masks()).all()
        legal = [np.flatnonzero(m) for m in masks]
        actions = np.array([rng.choice(moves) if moves.size else 0 for moves in legal])
        obs, rewards, terminated, truncated, infos = games.step(actions)
        _, raw, *_ = plain.step(actions)
        assert np.allclose(rewards, np.sign(raw) * np.log1p(np.abs(raw)))
        if infos:
            ended = terminated | truncated
            assert (infos["_win"] == ended).all() and set(infos) == {
                f"{prefix}{key}" for key in FINAL_INFOS for prefix in ("", "_")
            }
            opponents += [name.split(":")[0] for name in infos["opponents"][ended]]
        else:
            assert not (terminated | truncated).any()
    drawn = {name: opponents.count(name) for name in set(opponents)}
    assert set(drawn) == {"random", "greedy", "snapshot"} and sum(drawn.values()) > 40
    # about n_steps * num_envs learner decisions a rollout, as SB3's
    assert rollout_size(load_config(None, ["ppo.n_steps=10", "num_envs=4"])) == 40


def test_the_fragment_runner_hands_the_learner_what_rllibs_own_runner_does():
    """Differential: from the same seeds, FragmentRunner's episode chunks (games that ended,
    games running on, continued by the next fragment under the same id) hold the observations,
    moves, rewards, log-probabilities, logits, ends and results of RLlib's
    SingleAgentEnvRunner, fragment after fragment, and the same episode metrics."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from train.rllib_runner import FragmentRunner

    settings = ["num_envs=4", "ppo.n_steps=30", "rules={deal_schedule: [2, 1]}"]
    algo_config = ppo_config(load_config(None, [*settings, "opponents.scripted={random: 1.0}"]))

    def fragments(runner_class):
        torch.manual_seed(0)
        runner = runner_class(config=algo_config)
        chunks = [runner.sample() for _ in range(3)]
        return chunks, runner.get_metrics()["episode_return_mean"]

    (theirs, their_returns), (ours, our_returns) = (
        fragments(SingleAgentEnvRunner),
        fragments(FragmentRunner),
    )
    assert our_returns.peek() == pytest.approx(their_returns.peek())
    outputs = (Columns.ACTION_LOGP, Columns.ACTION_DIST_INPUTS)
    ids = ({}, {})  # each side's episode ids, in the order first met
    ended = 0
    for their_chunks, our_chunks in zip(theirs, ours, strict=True):
        assert len(their_chunks) == len(our_chunks)
        ended += sum(chunk.is_done for chunk in our_chunks)
        for their, our in zip(their_chunks, our_chunks, strict=True):
            assert [ids[0].setdefault(their.id_, len(ids[0]))] == [
                ids[1].setdefault(our.id_, len(ids[1]))
            ]
            assert (their.t_started, their.is_terminated, their.is_truncated) == (
                our.t_started,
                our.is_terminated,
                our.is_truncated,
            )
            assert np.array_equal(their.get_observations(), our.get_observations())
            assert np.array_equal(their.get_actions(), our.get_actions())
            assert np.array_equal(their.get_rewards(), our.get_rewards())
            for key in outputs:
                theirs_out, ours_out = (e.get_extra_model_outputs(key) for e in (their, our))
                assert np.allclose(theirs_out, ours_out)
            assert their.get_infos(-1).keys() == our.get_infos(-1).keys()
    assert ended > 5 and len(ids[1]) > ended  # games ended in fragments, others ran on


def test_a_folder_that_is_not_an_rllib_module_is_refused(tmp_path):
    from agents.rllib import RLlibPolicyAgent

    table = Table.from_env(raw_env())
    with pytest.raises(ValueError, match="not a folder holding a saved RLlib module"):
        RLlibPolicyAgent(tmp_path, table)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent(str(tmp_path), table)


def _train_until(command: list[str], run, steps_past: int, err) -> subprocess.Popen:
    """``crates train`` in a session of its own (its Ray processes too), once its state file
    on disk has gone past ``steps_past`` steps."""
    process = crates_command(command, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    wait_for(lambda: _steps(run) > steps_past, 300, f"a checkpoint past step {steps_past}", process)
    return process


def _steps(run) -> int:
    try:
        return json.loads((run / "rllib_state.json").read_text())["steps"]
    except (OSError, ValueError):
        return 0


def test_rllib_runs_stopped_by_sigterm_sigkill_or_ctrl_c_resume_from_their_checkpoint(tmp_path):
    """SIGTERM and Ctrl-C save first and say where; SIGKILL (even mid-save) loses nothing past
    the last checkpoint: each --resume goes on from the step the state file names."""
    run = tmp_path / "rl"
    command = ["train", *TINY, "--set", f"runs_dir={tmp_path}", "--set", "run_name=rl"]
    command += ["--set", "total_steps=100000", "--set", "checkpoint_every=60"]
    command += ["--set", "eval.every=1000000"]
    log = tmp_path / "err"
    for stop, resume in ((signal.SIGTERM, []), (signal.SIGKILL, ["--resume"])):
        with log.open("w") as err:
            process = _train_until([*command, *resume], run, _steps(run), err)
            before = _steps(run)
            # `kill` signals the command; SIGKILL of its session takes Ray's processes too
            (os.kill if stop == signal.SIGTERM else os.killpg)(process.pid, stop)
            assert process.wait(timeout=120) == (130 if stop == signal.SIGTERM else -stop)
        state = json.loads((run / "rllib_state.json").read_text())
        assert state["steps"] >= before
        assert (run / "rllib" / state["checkpoint"]).is_dir()
        if stop == signal.SIGTERM:
            assert [p.name for p in (run / "rllib").iterdir()] == [state["checkpoint"]]
            text = log.read_text()
            assert f"interrupted at step {state['steps']:,}: checkpoint written to" in text
            assert "Traceback" not in text
    killed_at = _steps(run)
    with log.open("w") as err:  # Ctrl-C reaches the whole session, as from a terminal
        process = _train_until([*command, "--resume"], run, killed_at, err)
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(timeout=120) == 130
    assert _steps(run) > killed_at  # it went on from the SIGKILLed run's checkpoint
    assert "checkpoint written to" in log.read_text()
    state = json.loads((run / "rllib_state.json").read_text())
    assert [p.name for p in (run / "rllib").iterdir()] == [state["checkpoint"]]  # no leftovers


def test_rllibs_own_pettingzoo_env_trains_the_masked_module_and_passes_its_env_check():
    """docs/training.md: RLlib's PettingZooEnv over the AEC env, one shared MaskedPPOModule
    reading the observation dicts; env(illegal="terminate") lets RLlib's env check (which
    plays unmasked random moves) end the game instead of failing."""
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    from agents.rllib import MaskedPPOModule
    from crates_env import crates_v0

    short = {"deal_schedule": [2, 1]}
    register_env("crates_aec", lambda _: PettingZooEnv(crates_v0.env(illegal="terminate", **short)))
    module = RLModuleSpec(module_class=MaskedPPOModule, model_config={"fcnet_hiddens": [16]})
    config = (
        PPOConfig()
        .environment("crates_aec")  # RLlib's env check on
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
        learner = algo.get_module("shared")
        env = crates_v0.env(**short)
        env.reset(seed=3)
        for _ in range(40):  # the trained module's choices at real positions: always legal
            obs = env.observe(env.agent_selection)
            batch = {k: torch.as_tensor(v[None], dtype=torch.float32) for k, v in obs.items()}
            with torch.no_grad():
                out = learner.forward_inference({Columns.OBS: batch})
            action = int(out[Columns.ACTION_DIST_INPUTS].argmax())
            assert obs["action_mask"][action]
            env.step(action)
            if all(env.terminations.values()):
                env.reset()
        algo.stop()
    finally:
        ray.shutdown()

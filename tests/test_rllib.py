"""crates train --backend rllib: RLlib's PPO on the AEC env with a masked learner module and our
scripted agents as opponents; checkpoints resume; the learner's module plays in crates eval.
RLlib is the optional extra `ray`, installed by the README's test command."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents import Table, make_agent
from crates_env.env import raw_env
from train.cli import main
from train.config import load_config
from train.rllib import check_supported, learner_env, rollout_size, seating

from .test_cli_errors import fails

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
    assert "--address is for --backend rllib" in fails(["train", "--address", "x:1"], capsys)


def test_seating_is_fixed_by_the_episode_and_follows_the_weights():
    config = load_config(None, ["opponents.scripted={random: 3.0, greedy: 1.0}"])
    seats, opponent = seating("abc", config)
    assert seating("abc", config) == (seats, opponent)
    assert len(seats) == 2 and (min(seats) + 2) in seats  # a partnership: the learner's side
    drawn = [seating(str(i), config)[1] for i in range(2000)]
    assert 0.70 < drawn.count("random") / len(drawn) < 0.80
    three = load_config(None, ["num_players=3"])
    assert all(len(seating(str(i), three)[0]) == 1 for i in range(20))
    # about n_steps * num_envs learner decisions a rollout: its side plays 2 of 4 seats
    assert rollout_size(load_config(None, ["ppo.n_steps=10", "num_envs=4"])) == 80


def test_a_folder_that_is_not_an_rllib_module_is_refused(tmp_path):
    from agents.rllib import RLlibPolicyAgent

    table = Table.from_env(raw_env())
    with pytest.raises(ValueError, match="not a folder holding a saved RLlib module"):
        RLlibPolicyAgent(tmp_path, table)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent(str(tmp_path), table)


def test_the_reward_transform_applies_to_each_seats_reward_at_its_turn():
    """The same game through RLlib's view with and without symlog: every reward transformed,
    and the untransformed ones add up to the game's points (none lost on the way)."""
    kwargs = {"deal_schedule": [3, 1], "reward_mode": "points", "reward_scale": 1.0}
    plain, symlog = learner_env(kwargs, "none"), learner_env(kwargs, "symlog")
    rng = np.random.default_rng(1)
    obs, _ = plain.reset(seed=4)
    symlog.reset(seed=4)
    totals = dict.fromkeys(plain.env.possible_agents, 0.0)
    done = False
    while not done:
        (agent,) = obs
        action = {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))}
        obs, rewards, terminated, _, _ = plain.step(action)
        _, transformed, _, _, _ = symlog.step(action)
        assert transformed == {a: float(np.sign(r) * np.log1p(abs(r))) for a, r in rewards.items()}
        for a, r in rewards.items():
            totals[a] += r
        done = terminated["__all__"]
    game = plain.env.game
    assert [totals[a] for a in plain.env.possible_agents] == [
        -game.scores[game.rules.team_of(s)] for s in range(game.rules.num_players)
    ]


def _train_until(command: list[str], run, steps_past: int, err) -> subprocess.Popen:
    """``crates train`` in a session of its own (its Ray processes too), once its state file
    on disk has gone past ``steps_past`` steps."""
    process = subprocess.Popen(
        [sys.executable, "-m", "train.cli", *command],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=err,
        start_new_session=True,
    )
    deadline = time.time() + 300
    while time.time() < deadline and process.poll() is None:
        if _steps(run) > steps_past:
            return process
        time.sleep(0.2)
    raise AssertionError(f"no checkpoint past step {steps_past}: {process.poll()}")


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

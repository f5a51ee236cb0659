"""Bad input and interruptions in training, evaluation and the command line.

Every bad invocation ends with one clear line and a non-zero exit (no traceback); every numeric
config key has a range checked before anything starts; an interrupted or diverged run keeps its
checkpoint; workers never outlive their command. Each test names the case of the bad-input issue
it covers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
import torch

from train.cli import main
from train.config import OPTIONAL_FLOATS, RANGES, TrainConfig, load_config
from train.ppo import LATEST, STATE, CheckpointAndEvalCallback, TrainingDiverged, train

from .scripts import benchmark
from .test_train import TINY, tiny
from .waiting import crates_command, lines_in, wait_for

ROOT = Path(__file__).resolve().parent.parent


def fails(argv: list[str], capsys) -> str:
    """Run the command line; it must stop with exit code 2 and one line on stderr."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2, err
    assert err.count("\n") == 0 and "Traceback" not in err, err
    return err


# --- the config ---------------------------------------------------------------------------------


def _numeric_keys(cls, prefix: str = "") -> list[str]:
    keys = []
    for f in fields(cls):
        default = getattr(cls(), f.name)
        if is_dataclass(default):
            keys += _numeric_keys(type(default), f"{prefix}{f.name}.")
        elif prefix + f.name in OPTIONAL_FLOATS or (
            isinstance(default, int | float) and not isinstance(default, bool)
        ):
            keys.append(prefix + f.name)
    return keys


def test_every_numeric_config_key_has_a_range():
    assert sorted(_numeric_keys(TrainConfig)) == sorted(RANGES)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ppo.gamma=5", "ppo.gamma must be from 0 to 1, not 5.0"),
        ("ppo.gae_lambda=-3", "ppo.gae_lambda must be from 0 to 1, not -3.0"),
        ("ppo.clip_range=-0.2", "ppo.clip_range must be > 0, not -0.2"),
        ("ppo.max_grad_norm=-1", "ppo.max_grad_norm must be > 0, not -1.0"),
        ("ppo.learning_rate=.nan", "ppo.learning_rate must be > 0, not nan"),
        ("reward_scale=-1", "reward_scale must be > 0, not -1.0"),
        ("eval.final_deals=-1", "eval.final_deals must be >= 1, not -1"),
        ("eval.final_deals=0", "eval.final_deals must be >= 1, not 0"),
        ("opponents.snapshot_weight=-1", "opponents.snapshot_weight must be >= 0, not -1.0"),
        ("warm_start.learning_rate=-1", "warm_start.learning_rate must be > 0, not -1.0"),
        ("seed=-1", "config key seed must be >= 0, not -1"),
        ("net_arch=[true]", "net_arch must be a list of layer widths"),
        ("expert.chunks=[4, 0]", "expert.chunks must be >= 1, not [4, 0]"),
        ("expert.chunks=[]", "expert.chunks must be a int or chunk ranges or a list of those, one"),
        ("expert.chunks=0:4,2:6", "expert.chunks must be >= 1 or FIRST:STOP ranges in order and"),
        ("expert.chunks=5:2", "expert.chunks must be >= 1 or FIRST:STOP ranges in order and"),
        ("expert.epochs=[30, 0]", "expert.epochs must be >= 1, not [30, 0]"),
        ("expert.epochs=[1.5]", "expert.epochs must be a int or a list of those, one a round"),
        ("ppo.n_steps=[64]", "ppo.n_steps must be a int, not [64]"),  # one number, every round
        # more than the machine's memory holds: the run used to start and die allocating
        ("num_envs=100000000", "num_envs must be from 1 to"),
        ("net_arch=[100000000]", "net_arch [100000000] makes an actor and a critic of"),
        ("eval.final_deals=1000000000", "eval.final_deals must be from 1 to"),
        # a run folder outside runs_dir: runs_dir itself, its parent, anywhere
        ("run_name=", "run_name must be a folder name inside runs_dir"),
        ("run_name=..", "run_name must be a folder name inside runs_dir"),
        ("run_name=../elsewhere", "run_name must be a folder name inside runs_dir"),
        ("run_name=/tmp/elsewhere", "run_name must be a folder name inside runs_dir"),
    ],
)
def test_impossible_settings_stop_before_anything_starts(override, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("[", r"\[")):
        load_config("configs/default.yaml", [override])


def test_config_and_rule_mistakes_are_one_line(tmp_path, capsys):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("ppo:\n  gamma: [0.9\n")
    assert "is not valid YAML" in fails(["train", "--config", str(bad_yaml)], capsys)
    tabs = tmp_path / "tabs.yaml"
    tabs.write_text("ppo:\n\tgamma: 0.9\n")
    assert "is not valid YAML" in fails(["train", "--config", str(tabs)], capsys)
    assert "is a folder" in fails(["train", "--config", str(tmp_path)], capsys)
    assert "--set ppo.gamma=[1 is not valid YAML" in fails(
        ["train", "--set", "ppo.gamma=[1"], capsys
    )
    table = tmp_path / "table.yaml"
    table.write_text("rules: {preset: kreights}\n")
    assert "preset is not a rule option" in fails(["train", "--config", str(table)], capsys)
    err = fails(["eval", "--preset", "kreights", "--rule", "kreights_mulligan=null"], capsys)
    assert "'kreights_mulligan' takes a list of seats, not None" in err
    assert "--preset and --players" in fails(["eval", "--rule", "preset=kreights"], capsys)
    assert "is not valid YAML" in fails(["eval", "--rule", "deal_schedule=[1"], capsys)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # the tasks and records of a billion deals: the evaluation died allocating them
        (["eval", "--agents", "random", "greedy", "--deals", "1000000000"],
         "crates eval: error: deals must be from 1 to"),
        (["train", "--set", "num_envs=100000000"],
         "crates train: error: config key num_envs must be from 1 to"),
        (["train", "--set", "run_name=.."],
         "crates train: error: config key run_name must be a folder name inside runs_dir"),
        # the socket took 70000 modulo 65536: the table was served on port 4464
        (["serve", "--port", "70000"],
         "crates serve: error: --port takes 0 to 65535 (0: any free port), not 70000"),
        (["serve", "--port", "-1"], "crates serve: error: --port takes 0 to 65535"),
        # a PPO config has no rounds to label: it labelled round 1 all the same
        (["label", "--config", "configs/default.yaml"],
         "crates label: error: crates label labels the rounds of expert iteration; "
         "configs/default.yaml trains with mode: ppo (set mode: expert and its expert section)"),
    ],
)  # fmt: skip
def test_what_cannot_run_as_asked_is_refused_before_it_starts(argv, message, capsys):
    assert fails(argv, capsys).startswith(message)


def test_serve_checks_its_arguments_before_the_web_extra(monkeypatch, capsys):
    # without uvicorn (the core install) the wrong port was reported as a missing extra
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    monkeypatch.delitem(sys.modules, "train.cli.serve", raising=False)
    assert fails(["serve", "--port", "70000"], capsys).startswith(
        "crates serve: error: --port takes 0 to 65535 (0: any free port), not 70000"
    )
    assert fails(["serve"], capsys).startswith(
        "crates serve: error: crates serve needs the web extra: pip install 'crates-rl[web]'"
    )


def test_eval_refuses_an_output_file_before_playing(tmp_path, capsys):
    taken = tmp_path / "results"
    taken.write_text("keep me")
    err = fails(
        ["eval", "--agents", "random", "greedy", "--deals", "1", "--out", str(taken)], capsys
    )
    assert "is a file" in err and taken.read_text() == "keep me"


def test_a_damaged_checkpoint_is_one_line(tmp_path, capsys):
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip archive
    err = fails(["eval", "--agents", str(broken), "random", "--deals", "1"], capsys)
    assert "not a checkpoint (no crates_checkpoint.json)" in err


# --- play ---------------------------------------------------------------------------------------


def test_play_with_stdin_closed_stops_with_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "train.cli", "play", "--opponents", "random"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    err = done.stderr.strip()
    assert done.returncode == 2 and err.count("\n") == 0, err
    assert "no more input" in err


def test_play_asks_again_on_a_digit_that_is_not_a_number():
    from train.cli.play import play_in_terminal

    answers = iter(["²", "1"] * 500)
    shown = []
    play_in_terminal(
        seat=0,
        opponents=["random"],
        options={"deal_schedule": [4]},
        seed=1,
        read=lambda prompt: next(answers),
        write=shown.append,
    )
    assert any("'²' is not one of the moves" in line for line in shown)


# --- runs that stop early -------------------------------------------------------------------------


def test_resuming_a_finished_run_says_it_is_complete(tmp_path, capsys):
    config = tiny(tmp_path)
    train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    assert train(config, resume=True) == config.run_dir / LATEST
    assert "is complete: 64 steps of total_steps 64" in capsys.readouterr().out
    assert json.loads((config.run_dir / STATE).read_text()) == state


def test_ctrl_c_keeps_the_last_checkpoint_and_says_where(tmp_path, capsys, monkeypatch):
    """Ctrl-C mid-rollout wrote a checkpoint that counted the rollout's steps, which were in
    no update: a resumed run trained on fewer steps than it said (65,848 for 65,536)."""
    config = tiny(tmp_path, "total_steps=100000", "checkpoint_every=32")
    real_step = CheckpointAndEvalCallback._on_step

    def interrupted(self):
        if self.num_timesteps >= 48:  # in the rollout of steps 33-64
            raise KeyboardInterrupt
        return real_step(self)

    monkeypatch.setattr(CheckpointAndEvalCallback, "_on_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(config)
    err = capsys.readouterr().err
    assert f"interrupted at step 48: {config.run_dir / LATEST} keeps step 32; crates train" in err
    state = json.loads((config.run_dir / STATE).read_text())
    assert state["num_timesteps"] == 32
    on_disk = sorted(str(p.relative_to(config.run_dir)) for p in config.run_dir.rglob("*.pt"))
    assert sorted(state["snapshots"]) == on_disk  # every snapshot file is listed


def test_a_diverged_policy_stops_the_run_and_keeps_the_last_checkpoint(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    config = tiny(tmp_path, "total_steps=100000", "checkpoint_every=32")
    real_update = MaskablePPO.train

    def poisoned(self):
        real_update(self)
        if self.num_timesteps >= 64:  # a bad update, the one after steps 33-64
            with torch.no_grad():
                next(self.policy.parameters()).fill_(float("nan"))

    monkeypatch.setattr(MaskablePPO, "train", poisoned)
    with pytest.raises(TrainingDiverged, match=r"at step 64: .*keeps step 32"):
        train(config)
    from agents.checkpoints import load_network

    network = load_network(config.run_dir / LATEST)  # the checkpoint on disk: the last good one
    assert all(torch.isfinite(p).all() for p in network.policy.parameters())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda s: "[]", "must hold an object, not list"),
        (lambda s: "{", r"is damaged \(not JSON"),
        (lambda s: json.dumps({**s, "last_checkpoint": "64"}), "last_checkpoint must be a int"),
        (lambda s: json.dumps({**s, "snapshots": ["snapshots/gone.pt"]}), "does not exist"),
    ],
)
def test_resume_from_a_damaged_state_names_the_file(tmp_path, damage, message):
    config = tiny(tmp_path)
    train(config)
    path = config.run_dir / STATE
    path.write_text(damage(json.loads(path.read_text())))
    more = tiny(tmp_path, "total_steps=128")
    with pytest.raises(ValueError, match=message) as info:
        train(more, resume=True)
    assert str(path) in str(info.value) or "gone.pt" in str(info.value)


def test_a_damaged_snapshot_names_the_file(tmp_path):
    config = tiny(tmp_path)
    train(config)
    snapshot = next(config.run_dir.rglob("*.pt"))
    snapshot.write_bytes(b"not a tensor file")
    with pytest.raises(ValueError, match=f"snapshot {snapshot} is damaged"):
        train(tiny(tmp_path, "total_steps=128"), resume=True)


# --- workers -------------------------------------------------------------------------------------


def test_no_more_evaluation_workers_start_than_chunks_to_play(monkeypatch):
    """``--workers 8`` for one deal: one chunk, played here (eight processes were started)."""
    from train.evaluation import EvalConfig, run, tournament

    monkeypatch.setattr(tournament.mp, "get_context", lambda *a: pytest.fail("a pool started"))
    config = EvalConfig(("random", "greedy"), deals=1, workers=8, options={"deal_schedule": [2]})
    assert len(run(config, progress=False)) == 2  # the deal, in both lineups


def test_no_more_labelling_workers_start_than_chunks_to_label(tmp_path, monkeypatch):
    from train import labels

    from .test_labels import PLAN

    monkeypatch.setattr(labels.mp, "get_context", lambda *a: pytest.fail("a pool started"))
    assert len(list(labels.label(PLAN, tmp_path, range(1), workers=4))) == 1


ORPHAN_SCRIPTS = {
    "self-play games": """
import signal, sys
from train.config import load_config
from train.ppo import make_vec_env
config = load_config("configs/default.yaml", sys.argv[1:] + ["workers=2"])
vec = make_vec_env(config)
vec.reset()  # every worker answers: each is past its imports and watching its parent
print(" ".join(str(p.pid) for p in vec._processes), flush=True)
signal.pause()  # until killed
""",
    "evaluation": """
import multiprocessing as mp, signal
from crates_env.processes import one_thread_worker
pool = mp.get_context("spawn").Pool(2, initializer=one_thread_worker)
pool.map(abs, range(4))
print(" ".join(str(p.pid) for p in pool._pool), flush=True)
signal.pause()  # until killed
""",
}


@pytest.mark.parametrize("kind", sorted(ORPHAN_SCRIPTS))
def test_workers_die_with_a_killed_parent(kind):
    """kill -9 of the process that started them: its workers end too, none left running."""
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_SCRIPTS[kind], *TINY[1:]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(workers) == 2
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    # a pool worker may still be importing (a loaded machine: tens of seconds); it finds its
    # parent gone as soon as it starts watching
    wait_for(lambda: not any(_alive(pid) for pid in workers), 60, "the workers gone")


def test_killing_an_evaluation_stops_it_quietly(tmp_path):
    """kill (SIGTERM) during `crates eval` with two workers: exit 130, no traceback, no
    leaked-semaphore warnings (it used to print both); what was played is kept."""
    # far more deals than the test waits for, a batch of games at a time
    command = ["eval", "--agents", "heuristic", "greedy", "--deals", "20000", "--workers", "2"]
    command += ["--out", str(tmp_path / "out"), "--quiet", "--no-tensorboard"]
    evaluation = crates_command(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deals = tmp_path / "out" / "deals.csv"  # the workers are playing once deals come back
    wait_for(lambda: lines_in(deals) > 1, 240, "the first deals played", evaluation)
    evaluation.send_signal(signal.SIGTERM)
    _, err = evaluation.communicate(timeout=60)
    assert evaluation.returncode == 130, err
    assert "Traceback" not in err and "leaked" not in err, err
    assert "partial result" in err  # deals played in both lineups by then
    assert json.loads((tmp_path / "out" / "report.json").read_text())["partial_of"] == 20000


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")  # a zombie is gone


def test_pooling_a_search_run_that_has_not_finished_is_one_line(tmp_path):
    running = tmp_path / "s1"  # the folder a run makes before its results are written
    running.mkdir()
    with pytest.raises(SystemExit, match=rf"no finished run in {running} \(.*deals\.csv"):
        benchmark("search_teacher").main(["--pool", str(running)])

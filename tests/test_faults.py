"""What the fault campaign found: runs and evaluations stopped at awkward moments keep what they
did, and messages name what is wrong."""

from __future__ import annotations

import json
import os
import signal
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import train.evaluation.baselines as baselines
import train.ppo as ppo
from train.cli import main
from train.evaluation import EvalConfig, pooled_pairs, run
from train.ppo import STATE, train

from .extras import needs
from .test_cli_errors import fails
from .test_train import tiny
from .waiting import wait_for


def test_ctrl_c_during_a_periodic_evaluation_plays_it_again_on_resume(tmp_path, monkeypatch):
    """The run used to record the evaluation before playing it, save that on Ctrl-C and never
    play it again on --resume."""
    # the checks' games in this process
    monkeypatch.setattr(baselines, "eval_workers", lambda chunks: 1)
    more = ("eval.every=32", "eval.deals=1", "eval.baselines=[random]", "total_steps=128")
    config = tiny(tmp_path, *more)
    real = ppo.evaluate_against_baselines
    started: list[int] = []

    def cut_short(config, checkpoint, deals, logger=None, **kwargs):
        started.append(len(started))
        if len(started) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the second check
        return real(config, checkpoint, deals, logger)

    monkeypatch.setattr(ppo, "evaluate_against_baselines", cut_short)
    with pytest.raises(KeyboardInterrupt):
        train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    # checks between updates, each after that step's checkpoint: the first (step 32) recorded
    # by the checkpoint at 64, the second (step 64) cut short after it; the run keeps step 64
    # (it kept 32 when the check came first, and a stop during a long check lost a million steps)
    assert state["num_timesteps"] == 64 and state["last_eval"] == 32
    assert [e["step"] for e in state["evals"]] == [32]
    monkeypatch.setattr(ppo, "evaluate_against_baselines", real)
    train(config, resume=True)
    state = json.loads((config.run_dir / STATE).read_text())
    assert [e["step"] for e in state["evals"]] == [32, 64, 96]  # 64 played again


def test_the_trainer_deletes_the_snapshot_files_its_pool_no_longer_uses(tmp_path):
    """max_snapshots limited the opponent pool, and every file stayed (19 MB for 82k steps)."""
    more = ("opponents.snapshot_every=16", "opponents.max_snapshots=2", "total_steps=160")
    config = tiny(tmp_path, *more)
    train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    on_disk = sorted(str(p.relative_to(config.run_dir)) for p in config.run_dir.rglob("*.pt"))
    assert len(state["snapshots"]) == 2 and sorted(state["snapshots"]) == on_disk
    train(tiny(tmp_path, *more[:2], "total_steps=224"), resume=True)
    resumed = json.loads((config.run_dir / STATE).read_text())["snapshots"]
    assert len(resumed) == 2 and set(resumed).isdisjoint(state["snapshots"])
    assert sorted(str(p.relative_to(config.run_dir)) for p in config.run_dir.rglob("*.pt")) == (
        sorted(resumed)
    )


# --- evaluations ---------------------------------------------------------------------------------

EVAL = ["eval", "--agents", "heuristic", "random", "--quiet", "--no-tensorboard"]
SHORT = ["--rule", "deal_schedule=[2, 1]", "--workers", "1"]


def test_ctrl_c_of_an_evaluation_writes_the_deals_played_as_a_partial_result(
    tmp_path, monkeypatch, capsys
):
    """It used to exit at once and write nothing: an hour of a long check lost."""
    import train.evaluation.games as games

    real, played = games.play_games, []

    def ctrl_c_at_the_third_chunk(config, tasks):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(tasks)
        return real(config, tasks)

    monkeypatch.setattr(games, "CHUNK_DEALS", 2)  # chunks of two deals, four games
    monkeypatch.setattr(games, "play_games", ctrl_c_at_the_third_chunk)
    part = tmp_path / "part"
    assert main([*EVAL, *SHORT, "--deals", "10", "--out", str(part)]) == 130
    err = capsys.readouterr().err
    # two chunks of two deals, each played in both lineups
    assert f"interrupted after 4 of 10 deals: the partial result is in {part}" in err
    report = json.loads((part / "report.json").read_text())
    assert (report["partial_of"], report["config"]["deals"]) == (10, 4)
    monkeypatch.setattr(games, "play_games", real)
    assert main([*EVAL, *SHORT, "--deals", "4", "--out", str(tmp_path / "whole")]) == 0
    deals = (part / "deals.csv").read_text()
    assert deals == (tmp_path / "whole" / "deals.csv").read_text()  # the same four deals
    assert main([*EVAL, *SHORT, "--deals", "2", "--seed", "9", "--out", str(tmp_path / "9")]) == 0
    (pooled,) = pooled_pairs([part / "deals.csv", tmp_path / "9" / "deals.csv"])
    assert pooled.deals == 6


def test_ctrl_c_before_any_deal_is_played_writes_nothing(tmp_path, monkeypatch, capsys):
    import train.evaluation.games as games

    def ctrl_c(config, tasks):
        raise KeyboardInterrupt

    monkeypatch.setattr(games, "play_games", ctrl_c)
    assert main([*EVAL, *SHORT, "--deals", "4", "--out", str(tmp_path / "none")]) == 130
    assert "nothing written" in capsys.readouterr().err
    assert not list((tmp_path / "none").iterdir())


def test_messages_name_what_is_wrong(capsys):
    err = fails(["train", "--config", "/dev/null"], capsys)
    assert "config file /dev/null is not a regular file" in err  # it said "does not exist"
    err = fails([*EVAL, "--seed", "-1"], capsys)
    assert "seed must be an int >= 0, not -1" in err  # "expected non-negative integer"


def _playing_ray_workers() -> list[int]:
    """The Ray worker processes playing an evaluation's task (their title names it)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and b"ray::_play_chunk" in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def _cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _kill_a_playing_ray_worker(killed: list[int]) -> threading.Thread:
    """A thread that kills a Ray worker well into its games (it has played for a third of a
    CPU-second since it was seen playing: a task plays for seconds), not at their end."""
    seen: dict[int, float] = {}

    def into_its_games() -> bool:
        for pid in _playing_ray_workers():
            start = seen.setdefault(pid, _cpu_seconds(pid))
            if _cpu_seconds(pid) - start >= 0.3:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return True
        return False

    thread = threading.Thread(
        target=wait_for, args=(into_its_games, 300, "a Ray worker playing"), daemon=True
    )
    thread.start()
    return thread


@needs("ray", "ray")
def test_a_ray_worker_killed_mid_run_is_retried_to_the_same_records(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    config = EvalConfig(("heuristic", "random"), deals=8, workers=1, seed=4)
    local = run(config, progress=False)
    killed: list[int] = []
    killer = _kill_a_playing_ray_worker(killed)
    on_ray = run(replace(config, workers=2, ray="local"), progress=False)
    killer.join()
    assert killed  # a task was cut short and played again from scratch
    assert on_ray == local


@needs("ray", "ray")
def test_a_ray_worker_that_dies_past_its_retries_stops_in_one_line(monkeypatch, tmp_path, capsys):
    import train.evaluation.on_ray as on_ray

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(on_ray, "RAY_RETRIES", 0)
    monkeypatch.chdir(tmp_path)
    killed: list[int] = []
    killer = _kill_a_playing_ray_worker(killed)
    with pytest.raises(SystemExit) as stop:
        main([*EVAL, "--deals", "8", "--workers", "2", "--ray", "--out", "out"])
    killer.join()
    assert killed and stop.value.code == 2
    err = capsys.readouterr().err  # Ray's own start-up lines, then ours
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "crates eval: error: a Ray worker playing deals died (WorkerCrashedError), and so did "
        "the 0 retries of its task: nothing written; play again, or without --ray"
    )

"""What the fault campaign found: runs and evaluations stopped at awkward moments keep what they
did, and messages name what is wrong."""

from __future__ import annotations

import json

import pytest

import train.evaluation.baselines as baselines
import train.ppo as ppo
from train.ppo import STATE, train

from .test_train import tiny


def test_ctrl_c_during_a_periodic_evaluation_plays_it_again_on_resume(tmp_path, monkeypatch):
    """The run used to record the evaluation before playing it, save that on Ctrl-C and never
    play it again on --resume."""
    monkeypatch.setattr(baselines, "usable_cores", lambda: 1)  # the checks' games in this process
    more = ("eval.every=32", "eval.deals=1", "eval.baselines=[random]", "total_steps=128")
    config = tiny(tmp_path, *more)
    real = ppo.evaluate_against_baselines
    started: list[int] = []

    def cut_short(config, checkpoint, deals, logger=None):
        started.append(json.loads((config.run_dir / STATE).read_text())["num_timesteps"])
        if len(started) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the second check
        return real(config, checkpoint, deals, logger)

    monkeypatch.setattr(ppo, "evaluate_against_baselines", cut_short)
    with pytest.raises(KeyboardInterrupt):
        train(config)
    cut = started[1]
    state = json.loads((config.run_dir / STATE).read_text())
    assert state["num_timesteps"] == cut  # the checkpoint written before the check
    assert state["last_eval"] < cut and all(e["step"] < cut for e in state["evals"])
    monkeypatch.setattr(ppo, "evaluate_against_baselines", real)
    train(config, resume=True)
    state = json.loads((config.run_dir / STATE).read_text())
    assert any(cut <= e["step"] < cut + 32 for e in state["evals"])  # played again at once


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

"""A run is a function of its config and seed: the same network whatever the machine's load,
the same network after a stop and --resume, and a record of the code that made it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
import torch

import crates_env
import crates_env.version as made_by
from agents.checkpoints import load_network
from agents.networks import untrained_policy
from crates_env.processes import CoreShare
from train.config import load_config
from train.files import PROVENANCE
from train.ppo import STATE, make_vec_env, policy_spec, train
from train.vec_env import SelfPlayVecEnv
from train.workers import torch_threads

from .test_train import tiny

ROOT = Path(__file__).resolve().parent.parent


def weights(checkpoint: Path) -> dict[str, torch.Tensor]:
    """The policy's weights in a checkpoint (``agents.checkpoints``' loader)."""
    return load_network(checkpoint).policy.state_dict()


def assert_same_weights(a: Path, b: Path) -> None:
    first, second = weights(a), weights(b)
    assert first.keys() == second.keys()
    differ = [k for k in first if not torch.equal(first[k], second[k])]
    assert not differ, f"weights differ in {differ}"


def test_the_same_seed_makes_the_same_network_whatever_the_load(tmp_path, monkeypatch):
    """The learner took as many threads as the machine's load left free, and float sums come
    out otherwise on two threads than on one: two runs of one config and seed differed
    (2.8e-6 in the weights, here after one update of the default network)."""
    sets = ["workers=0", "num_envs=64", "ppo.n_steps=16", "ppo.n_epochs=1", "total_steps=1024"]
    sets += ["eval.every=1000000000", "progress_bar=false", "rules={deal_schedule: [2, 1]}"]
    sets += ['warm_start.teacher=""', f"runs_dir={tmp_path}"]
    runs = []
    for threads in (1, 2):
        # the machine as the run sees it: one core free, then both; and torch set before the run
        monkeypatch.setattr(CoreShare, "free", lambda self, keep=0, free=threads: free)
        config = load_config("configs/default.yaml", [*sets, f"run_name=threads_{threads}"])
        with torch_threads(threads):
            runs.append(train(config))
    assert_same_weights(*runs)


class Killed(BaseException):
    """kill -9: the run stops where it is and runs nothing more (no handler, no message)."""


@pytest.mark.parametrize("stop", [KeyboardInterrupt, Killed], ids=["ctrl_c", "kill_9"])
def test_a_run_stopped_mid_rollout_resumes_to_the_network_it_would_have_made(
    tmp_path, monkeypatch, stop
):
    """A Ctrl-C mid-rollout wrote a checkpoint counting the rollout's steps, which no update
    had learned from, and --resume dealt the run's first games again with other random
    streams: 176 steps for 160 asked, and another network."""
    more = ["total_steps=160", "checkpoint_every=64"]  # snapshots play: TINY's pool
    whole = train(tiny(tmp_path, *more, "run_name=whole"))

    real, steps = SelfPlayVecEnv.step_wait, []

    def stopped_at_step_82(self):  # 2 games a step: the 9th step of the rollout from step 64
        steps.append(len(steps))
        if len(steps) == 41:
            raise stop
        return real(self)

    config = tiny(tmp_path, *more, "run_name=stopped")
    monkeypatch.setattr(SelfPlayVecEnv, "step_wait", stopped_at_step_82)
    with pytest.raises(stop):
        train(config)
    assert json.loads((config.run_dir / STATE).read_text())["num_timesteps"] == 64
    monkeypatch.setattr(SelfPlayVecEnv, "step_wait", real)
    resumed = train(config, resume=True)
    assert_same_weights(whole, resumed)
    for run in (whole, resumed):
        assert json.loads((run.parent / STATE).read_text())["num_timesteps"] == 160
    # the code that made it, once for the start and once for the resume
    made = json.loads((config.run_dir / PROVENANCE).read_text())
    assert [entry["version"] for entry in made] == [crates_env.__version__] * 2


def test_new_games_from_a_seed_are_the_same_in_a_worker_process(tmp_path):
    """What a checkpoint is followed by: every stream of the games started again, the
    snapshots' draws in a worker process too."""
    config = tiny(tmp_path, "workers=1", "opponents.scripted={}", "num_envs=4")
    vec = make_vec_env(config)
    try:
        policy = untrained_policy(*policy_spec(config), vec.observation_space, vec.action_space)
        vec.add_snapshot(policy.state_dict())  # the only opponent: its moves are drawn

        def played() -> list[np.ndarray]:
            seen = [vec.reseed(7)]
            for _ in range(30):
                first_legal = vec.action_masks().argmax(1)
                obs, rewards, _, _ = vec.step(first_legal)
                seen += [obs, rewards]
            return seen

        first, again = played(), played()
    finally:
        vec.close()
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_python_m_train_cli_version_prints_the_version():
    shown = subprocess.run(
        [sys.executable, "-m", "train.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert shown.stdout.startswith(f"crates {crates_env.__version__}")
    commit = made_by.commit()
    assert shown.stdout.strip().endswith(f"(commit {commit})" if commit else "")


def test_the_version_is_written_in_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    source = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, name = source.rpartition(".")
    assert module == made_by.__name__ and getattr(made_by, name) == crates_env.__version__


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_run_folder_records_the_version_and_commit_that_made_it(tmp_path):
    config = tiny(tmp_path)
    train(config)
    (made,) = json.loads((config.run_dir / PROVENANCE).read_text())
    assert made["version"] == crates_env.__version__
    assert made["torch"] == torch.__version__
    if not (ROOT / ".git").exists():
        assert made["commit"] is None  # a copy of the package, not a checkout
        return
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    assert made["commit"] == git("rev-parse", "HEAD") + ("-dirty" if dirty else "")


def test_a_package_outside_a_checkout_of_its_own_records_no_commit(tmp_path, monkeypatch):
    """A package installed into a venv that lies in some other repository is not that
    repository's code."""
    monkeypatch.setattr(made_by, "_SOURCE", tmp_path)
    made_by.commit.cache_clear()
    try:
        assert made_by.provenance() == {"version": crates_env.__version__, "commit": None}
        subprocess.run(["git", "init", "-q", str(tmp_path / "other")], check=True)
        (tmp_path / "other" / "venv").mkdir()
        monkeypatch.setattr(made_by, "_SOURCE", tmp_path / "other" / "venv")
        made_by.commit.cache_clear()
        assert made_by.commit() is None
    finally:
        made_by.commit.cache_clear()


def test_a_damaged_provenance_file_is_named(tmp_path):
    config = tiny(tmp_path)
    config.run_dir.mkdir(parents=True)
    (config.run_dir / PROVENANCE).write_text("{")
    with pytest.raises(ValueError, match=rf"{PROVENANCE} is damaged"):
        config.save()

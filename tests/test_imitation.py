"""Warm start by cloning a scripted teacher (train/imitation.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents import HeuristicAgent, Table, make_agent
from crates_env.env import raw_env
from train.config import load_config
from train.imitation import Collection, _with_returns, clone, collect, policy_heads
from train.ppo import BEST, STATE, train
from train.selfplay import LearnerSpec, observation_space_of

from .test_train import tiny

# torch on one thread while these tests run (the suite's threads as they were after them)
pytestmark = pytest.mark.usefixtures("one_torch_thread")
SHORT = {"deal_schedule": [3, 2]}  # two short hands per game


def test_returns_are_discounted_from_each_step_to_the_end_of_the_game():
    steps = [
        ("o0", "m0", 1, 0.0),
        ("o1", "m1", 2, -1.0),
        ("o2", "m2", 3, 0.0),
        ("o3", "m3", 4, -2.0),
    ]
    out = _with_returns(steps, gamma=0.5)
    assert [s[:3] for s in out] == [s[:3] for s in steps]
    assert [s[3] for s in out] == [-0.75, -1.5, -1.0, -2.0]


def test_collect_records_the_teachers_legal_moves_and_each_games_points():
    demos = collect(SHORT, Collection("heuristic", games=6, gamma=1.0, num_envs=3, seed=4))
    assert demos.games >= 6
    n = len(demos)
    assert demos.observations.shape == (n, observation_space_of(SHORT).shape[0])
    assert demos.masks[np.arange(n), demos.actions].all()  # every recorded move was legal
    # The teacher's move is what HeuristicAgent plays from the recorded observation.
    teacher = HeuristicAgent(Table.from_env(raw_env(**SHORT)))
    for o, m, a in zip(demos.observations[:50], demos.masks[:50], demos.actions[:50], strict=True):
        assert teacher.act(o, m) == a
    # With gamma 0 the returns are the rewards: all games' rewards are minus their points.
    undiscounted = collect(SHORT, Collection("heuristic", games=6, gamma=0.0, num_envs=3, seed=4))
    assert undiscounted.returns.sum() == pytest.approx(-undiscounted.points.sum())
    assert undiscounted.games >= 6 and undiscounted.points.any()


def test_clone_learns_the_teachers_moves_and_the_returns():
    demos = collect(
        SHORT, Collection("heuristic", 40, 0.99, learner=LearnerSpec("symlog"), num_envs=4, seed=1)
    )
    policy = MaskableActorCriticPolicy(
        observation_space_of(SHORT), _action_space(), lambda _: 0.0, net_arch=[64, 64]
    )
    before = _agreement(policy, demos)
    stats = clone(policy, demos, epochs=15, batch_size=256, learning_rate=1e-3, seed=0)
    after = _agreement(policy, demos)
    assert stats.samples == len(demos) and stats.games == demos.games >= 40
    assert before < 0.6 < after
    assert stats.accuracy == pytest.approx(after, abs=0.1)  # last epoch's running accuracy
    baseline = float(np.var(demos.returns))  # a critic that knows nothing predicts the mean
    assert stats.value_loss < baseline


def test_train_warm_starts_once_and_resume_keeps_it(tmp_path):
    clone_it = ["warm_start.teacher=heuristic", "warm_start.games=4", "eval.deals=2"]
    config = tiny(tmp_path, *clone_it, "eval.baselines=[random]")
    train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    warm = state["warm_start"]
    assert warm["teacher"] == "heuristic" and warm["games"] >= 4 and warm["samples"] > 0
    assert state["evals"][0]["step"] == 0  # the clone itself is evaluated before PPO moves it
    assert (config.run_dir / BEST).is_file()
    train(tiny(tmp_path, "warm_start.teacher=heuristic", "total_steps=128"), resume=True)
    assert json.loads((config.run_dir / STATE).read_text())["warm_start"] == warm


def test_saved_demonstrations_are_cloned_again_without_playing(tmp_path, monkeypatch):
    demos_file = tmp_path / "demos" / "heuristic.npz"
    clone_it = [
        "warm_start.teacher=heuristic",
        "warm_start.games=4",
        f"warm_start.demos={demos_file}",
    ]
    first = tiny(tmp_path, *clone_it, "run_name=first")
    train(first)
    assert demos_file.is_file()
    saved = json.loads((first.run_dir / STATE).read_text())["warm_start"]

    def no_games(*args, **kwargs):
        raise AssertionError("the saved demonstrations should have been used")

    monkeypatch.setattr("train.imitation.collect", no_games)
    second = tiny(tmp_path, *clone_it, "run_name=second")
    train(second)
    again = json.loads((second.run_dir / STATE).read_text())["warm_start"]
    assert again["samples"] == saved["samples"] and again["games"] == saved["games"]

    other = tiny(tmp_path, *clone_it, "run_name=third", "warm_start.games=5")
    with pytest.raises(ValueError, match=r"other settings \(games: 4 there, 5 here\)"):
        train(other)
    (tmp_path / "junk.npz").write_bytes(b"not numpy")
    junk = tiny(
        tmp_path, *clone_it[:2], f"warm_start.demos={tmp_path / 'junk.npz'}", "run_name=junk"
    )
    with pytest.raises(ValueError, match=r"junk\.npz: not a demonstrations file"):
        train(junk)


def test_the_search_teacher_takes_its_settings_from_the_config():
    from train.imitation import teacher_spec

    config = load_config(
        "configs/default.yaml",
        [
            "warm_start.teacher=search",
            "warm_start.search_samples=16",
            "warm_start.search_stock_max=10",
            "warm_start.search_z=2.5",
        ],
    )
    teacher = make_agent(teacher_spec(config.warm_start), Table.from_env(raw_env()), seed=0)
    assert (teacher.samples, teacher.stock_max, teacher.z) == (16, 10, 2.5)
    one_redeal = ["warm_start.teacher=search", "warm_start.search_samples=1"]
    with pytest.raises(ValueError, match=r"search_z > 0 needs warm_start\.search_samples >= 2"):
        load_config("configs/default.yaml", one_redeal)
    load_config("configs/default.yaml", [*one_redeal, "warm_start.search_z=0"])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("warm_start.teacher=oracle", "warm_start.teacher names 'oracle'.*heuristic, search"),
        ("warm_start.opponent=oracle", "warm_start.opponent names .oracle.*random"),
        ("warm_start.workers=0", "warm_start.workers must be >= 1, not 0"),
        ("warm_start.games=0", "warm_start.games must be >= 1, not 0"),
        ("warm_start.epoch=3", "unknown config key.*warm_start.epoch"),
        ("warm_start.search_samples=0", "warm_start.search_samples must be >= 1, not 0"),
        ("warm_start.search_stock_max=-1", "warm_start.search_stock_max must be >= 0, not -1"),
        ("warm_start.search_z=-1", "warm_start.search_z must be >= 0, not -1"),
    ],
)
def test_bad_warm_start_settings_are_refused(override, message):
    with pytest.raises(ValueError, match=message):
        load_config("configs/default.yaml", [override])


def _action_space():
    from gymnasium import spaces

    from crates_env.actions import NUM_ACTIONS

    return spaces.Discrete(NUM_ACTIONS)


def _agreement(policy, demos) -> float:
    """How often the policy's likeliest legal move is the teacher's, where there was a choice."""
    with torch.no_grad():
        logits, _ = policy_heads(policy, torch.as_tensor(demos.observations))
    logits = logits.masked_fill(~torch.as_tensor(demos.masks), -1e9)
    choice = demos.masks.sum(1) > 1
    return float((logits.argmax(1).numpy() == demos.actions)[choice].mean())

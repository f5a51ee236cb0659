"""Pressure shaping: the cost table, the potential, and that the charges add up to nothing."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from crates_env import new_game
from crates_env.rules import make_ruleset
from train.config import load_config
from train.opponents import PoolSpec
from train.ppo import STATE, train
from train.selfplay import LearnerSpec, make_batch
from train.shaping import PressureShaping

CRATES = make_ruleset("crates", 4)


def test_cost_table_sums_the_later_pressures_at_their_doubled_values():
    """Three hands; after hand 0 a side took 2 more pressures in one game and none in the
    other; after hand 1, one in each game."""
    later = [[2, 0], [1, 1], [0, 0]]
    shaping = PressureShaping.from_counts(CRATES, later, "relative", 1.0)
    assert shaping.future(0, 0) == pytest.approx((5 + 10 + 0) / 2)
    assert shaping.future(1, 0) == pytest.approx((10 + 20 + 0) / 2)
    assert shaping.future(3, 1) == pytest.approx(40)  # the 4th pressure
    assert shaping.future(5, 2) == 0.0  # nothing after the last hand
    assert shaping.future(0, 3) == 0.0  # past the schedule


def test_flat_pressures_cost_the_same_whatever_was_taken():
    kreights = make_ruleset("kreights", 4)
    shaping = PressureShaping.from_counts(kreights, [[2, 0], [0, 0]], "points", 1.0)
    assert shaping.future(0, 0) == shaping.future(7, 0) == pytest.approx(5.0)


def test_potential_relative_and_points():
    later = [[1, 1]] * 15  # a side takes one more pressure, whatever the hand
    view = replace(new_game("crates", 4, seed=1).view(0), pressures=(2, 0))  # team 0 took two
    relative = PressureShaping.from_counts(CRATES, later, "relative", 0.01)
    points = PressureShaping.from_counts(CRATES, later, "points", 0.01)
    # the next pressure is worth 20 for team 0 and 5 for team 1
    assert relative.potential(view, 0) == pytest.approx((5 - 20) * 0.01)
    assert relative.potential(view, 1) == pytest.approx((20 - 5) * 0.01)
    assert points.potential(view, 0) == pytest.approx(-20 * 0.01)


def _play(learner: LearnerSpec, games: int = 4):
    """Random learner moves (the same for both specs: the shaping does not change the play);
    per finished game, the rewards' total and every step's reward."""
    kwargs = {"deal_schedule": [8, 3, 1], "reward_mode": "relative"}
    pool = PoolSpec(scripted={"random": 1.0})
    batch = make_batch(2, kwargs, pool, learner, None, 5, engine="reference")
    _, masks = batch.reset()
    rng = np.random.default_rng(0)
    totals, steps, finished = [0.0, 0.0], [[], []], []
    while len(finished) < games:
        _, rewards, dones, infos, masks = batch.step(
            [int(rng.choice(np.flatnonzero(m))) for m in masks]
        )
        for i in range(2):
            totals[i] += rewards[i]
            steps[i].append(float(rewards[i]))
            if dones[i]:
                finished.append((totals[i], steps[i], infos[i]["game"]))
                totals[i], steps[i] = 0.0, []
    return finished


def test_shaping_charges_pressures_at_once_and_adds_nothing_over_a_game():
    """The same games with and without shaping: every game's rewards add up to the same total
    (the side's points against the others'), but the shaped steps differ where pressures fell,
    by their expected cost to the later hands."""
    later = [[3, 1], [2, 0], [0, 0]]
    shaping = PressureShaping.from_counts(make_ruleset("crates", 4), later, "relative", 1.0)
    plain = _play(LearnerSpec())
    shaped = _play(LearnerSpec(shaping=shaping))
    differ = 0
    for (total, steps, game), (s_total, s_steps, s_game) in zip(plain, shaped, strict=True):
        assert game == s_game
        assert s_total == pytest.approx(total)
        assert s_total == pytest.approx(game["opponent_points"] - game["points"])
        differ += s_steps != pytest.approx(steps)
    assert differ  # random play meets the empty stock in the first hands


def test_config_refuses_shaping_where_it_means_nothing():
    with pytest.raises(ValueError, match="reward_transform: none"):
        load_config("configs/default.yaml", ["pressure_shaping=true", "reward_transform=symlog"])
    with pytest.raises(ValueError, match="zimbabwe does not have"):
        load_config(
            "configs/default.yaml",
            ["pressure_shaping=true", "reward_transform=none", "preset=zimbabwe"],
        )
    with pytest.raises(ValueError, match="reward_mode points or relative"):
        load_config(
            "configs/default.yaml",
            ["pressure_shaping=true", "reward_transform=none", "reward_mode=win"],
        )


def test_a_shaped_run_measures_once_and_resumes_with_the_same_table(tmp_path, monkeypatch):
    from tests.test_train import tiny

    shaped = ["pressure_shaping=true", "pressure_shaping_games=3", "reward_transform=none"]
    config = tiny(tmp_path, *shaped)
    train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    later = state["pressure_shaping"]
    assert len(later) == 2 and all(len(h) == 3 * 2 for h in later)  # 2 hands, 3 games x 2 sides

    def refuse(*args, **kwargs):
        raise AssertionError("a resumed run measured the shaping again")

    monkeypatch.setattr(PressureShaping, "measure", refuse)
    train(tiny(tmp_path, *shaped, "total_steps=128"), resume=True)
    assert json.loads((config.run_dir / STATE).read_text())["pressure_shaping"] == later

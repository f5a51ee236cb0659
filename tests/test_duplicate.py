"""Duplicate rewards (train/duplicate.py): the learner is paid the sign of its side's standing
against the same deal played by HeuristicAgent at every seat, at the game's end only."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from agents import Agent, make_agent
from train.config import load_config
from train.duplicate import BASELINE, DuplicateSeating, duplicate_rewards
from train.evaluation.games import seed_of
from train.opponents import PoolSpec, learner_seats
from train.rllib import check_supported
from train.selfplay import LearnerSpec, SelfPlayBatch

SLOTS = 3


def play(preset: str, players: int, games: int, heuristic: bool, **settings) -> list[float]:
    """The rewards of the first ``games`` finished games of a duplicate self-play batch (the
    environment's ``settings``) whose learner plays as HeuristicAgent (seeded as the baseline
    game's agent at its seat, reading the seat layout) or at random; every reward during a game
    is checked to be nothing."""
    kwargs = {"preset": preset, "num_players": players, **settings}
    spec = PoolSpec(scripted={BASELINE: 1.0})
    batch = SelfPlayBatch(SLOTS, kwargs, spec, LearnerSpec(duplicate=True), None, seed=11)
    seating = batch.env.seating
    _, masks = batch.reset()
    learners: dict[tuple[int, int], Agent] = {}
    rng = np.random.default_rng(0)
    paid: list[float] = []
    while len(paid) < games:
        seat_view = batch.games.observe()  # what HeuristicAgent reads, whatever the learner's
        actions = []
        for i in range(SLOTS):
            if heuristic:
                key = (i, seating.deal_of[i])
                if key not in learners:
                    seed = seed_of(seating.seed, key[1])
                    seat = min(learner_seats(seating.rules, seed))
                    seed = seed_of(seating.seed, key[1], 0, seat)
                    learners[key] = make_agent(BASELINE, seating.pool.table, seed)
                actions.append(int(learners[key].act(seat_view[i], masks[i])))
            else:
                actions.append(int(rng.choice(np.flatnonzero(masks[i]))))
        _, rewards, dones, _, masks = batch.step(actions)
        assert not rewards[~dones].any()
        paid += [float(r) for r in rewards[dones]]
    return paid


@pytest.mark.parametrize(
    "preset, players, settings, lucky",
    [
        ("crates", 3, {}, False),
        ("zimbabwe", 3, {}, False),
        ("crazy_eights", 2, {}, False),
        # a run's settings: the learner reads the table layout, HeuristicAgent the seat's; at 5
        # players random moves stand better than HeuristicAgent's in about 40% of the deals
        ("crates", 5, {"observation": "table", "one_card": "auto"}, True),
    ],
)
def test_a_learner_playing_as_the_baseline_plays_the_baseline_game_and_is_paid_nothing(
    preset, players, settings, lucky
):
    """Differential: the learner's game and the deal's baseline game are one game when the
    learner plays HeuristicAgent's moves (same cards, reshuffles and opponents), so every game
    is level, whatever layout the learner reads; at random it stands worse more often than
    better."""
    assert play(preset, players, 4, heuristic=True, **settings) == [0.0] * 4
    at_random = play(preset, players, 4, heuristic=False, **settings)
    assert set(at_random) <= {-1.0, 0.0, 1.0} and any(at_random)
    assert lucky or sum(at_random) < 0


def test_a_baseline_game_past_the_compiled_scores_is_not_compared(monkeypatch):
    """A baseline game whose pressures pass the compiled engine's scores is found by splitting
    its block in halves and is not compared (NaN standings, the learner paid nothing); the
    block's other games keep the standings they have in one batch."""
    batch = SelfPlayBatch(
        2, {"preset": "crates", "num_players": 4}, PoolSpec(scripted={BASELINE: 1.0}),
        LearnerSpec(duplicate=True), None, seed=3,
    )  # fmt: skip
    seating: DuplicateSeating = batch.env.seating
    batch.reset()
    compiled = seating._play_on(range(0, 4), "auto")
    played = []
    real = seating._play_on

    def overflowing(deals, engine):  # deal 2's pressures pass the compiled engine's scores
        played.append(list(deals))
        if 2 in deals:
            raise OverflowError("a side took more than 58 pressures")
        return real(deals, engine)

    monkeypatch.setattr(seating, "_play_on", overflowing)
    monkeypatch.setattr("train.duplicate.BLOCK", 4)
    assert np.isnan(seating.baseline(2)).all()
    assert played == [[0, 1, 2, 3], [0, 1], [2, 3], [2], [3]]
    assert [seating.baseline(d).tolist() for d in (0, 1, 3)] == compiled[[0, 1, 3]].tolist()
    assert len(played) == 5  # the block's standings kept until read


def test_duplicate_rewards_are_the_sign_of_the_standings():
    assert duplicate_rewards([-120.0, 3.0, 5.0, 2.0], [-100.0, 3.0, 1.0, np.nan]).tolist() == [
        -1,
        0,
        1,
        0,
    ]


@pytest.mark.parametrize(
    "sets, message",
    [
        (
            {"opponents.scripted": {"random": 1.0, "heuristic": 1.0}},
            "compares the learner with heuristic in the same deal, so it plays heuristic alone",
        ),
        ({"opponents.snapshot_weight": 0.5}, "set opponents.scripted: {heuristic: 1.0} and"),
        ({"reward_transform": "symlog"}, "does not go with reward_transform: symlog (it pays"),
        ({"pressure_shaping": True}, "does not go with pressure_shaping"),
    ],
)
def test_duplicate_reward_refuses_what_it_cannot_pay(sets, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, overrides({**DUPLICATE, **sets}))


def test_the_rllib_backend_refuses_duplicate_reward():
    with pytest.raises(ValueError, match="does not train with duplicate_reward=true yet"):
        check_supported(load_config(None, overrides(DUPLICATE)))


DUPLICATE = {"duplicate_reward": True, "opponents.scripted": {"heuristic": 1.0}}


def overrides(values: dict) -> list[str]:
    """``--set`` overrides of ``values``."""
    return [f"{key}={json.dumps(value)}" for key, value in values.items()]

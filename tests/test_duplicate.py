"""Duplicate rewards (train/duplicate.py): the learner is paid the sign of its side's standing
against the same deal played by HeuristicAgent at every seat, at the game's end only; or, with
``duplicate_hands``, the environment's pay less the baseline game's for the same hands."""

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
    paid = []
    for rewards, dones, *_ in games_of(LearnerSpec(duplicate=True), preset, players, heuristic,
                                       games, settings):  # fmt: skip
        assert not rewards[~dones].any()
        paid += [float(r) for r in rewards[dones]]
    return paid[:games]


def games_of(learner: LearnerSpec, preset: str, players: int, heuristic: bool, games: int,
             settings: dict):  # fmt: skip
    """``(rewards, dones, finished, seating)`` of each step of a duplicate self-play batch
    (``learner``, the environment's ``settings``) until ``games`` games are over, its learner
    playing as HeuristicAgent (seeded as the baseline game's agent at its seat, reading the seat
    layout) or at random; ``finished`` holds ``(seat, deal, game summary)`` of each game over on
    the step."""
    kwargs = {"preset": preset, "num_players": players, **settings}
    spec = PoolSpec(scripted={BASELINE: 1.0})
    batch = SelfPlayBatch(SLOTS, kwargs, spec, learner, None, seed=11)
    seating = batch.env.seating
    _, masks = batch.reset()
    learners: dict[tuple[int, int], Agent] = {}
    rng = np.random.default_rng(0)
    over = 0
    while over < games:
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
        deals = [seating.deal_of[i] for i in range(SLOTS)]
        seats = batch.env._seat.copy()
        _, rewards, dones, infos, masks = batch.step(actions)
        finished = [(int(seats[i]), deals[i], infos[i]["game"]) for i in np.flatnonzero(dones)]
        over += len(finished)
        yield rewards, dones, finished, seating


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


HANDS = LearnerSpec(duplicate_hands=True)
RELATIVE = {"reward_mode": "relative", "reward_scale": 0.01}
TABLE = {"observation": "table", "one_card": "auto"}  # a run's settings


@pytest.mark.parametrize(
    "preset, players, settings",
    [("crates", 3, RELATIVE), ("chicago1970", 4, {}), ("chicago1970", 5, {**RELATIVE, **TABLE})],
)
def test_a_learner_playing_as_the_baseline_is_paid_nothing_hand_by_hand(preset, players, settings):
    """Differential: with ``duplicate_hands`` the learner's pay for every hand is the baseline
    game's for the same hand when it makes HeuristicAgent's moves, so every step pays nothing
    (to the float sums' rounding), whatever the reward and the layout the learner reads."""
    steps = list(games_of(HANDS, preset, players, True, 4, settings))
    assert sum(len(finished) for _, _, finished, _ in steps) >= 4
    assert max(np.abs(rewards).max() for rewards, *_ in steps) < 1e-9


@pytest.mark.parametrize("preset, players", [("crates", 3), ("crates", 4), ("chicago1970", 5)])
def test_a_game_pays_its_lead_less_the_baseline_games_lead(preset, players):
    """A learner at random is paid over a game, hand by hand, its side's lead over the others
    (the relative reward: their mean points less its own, a hundredth of a point) less the same
    side's lead in the deal's all-HeuristicAgent game, played again here on its own; at 4-player
    crates a side is a partnership."""
    returns = np.zeros(SLOTS)
    checked = 0
    for rewards, dones, finished, seating in games_of(HANDS, preset, players, False, 5, RELATIVE):
        returns += rewards
        for (seat, deal, game), slot in zip(finished, np.flatnonzero(dones), strict=True):
            points = -seating._play(range(deal, deal + 1))[0][0]  # the lowest score wins
            side = seating.rules.team_of(seat)
            others = np.delete(points, side).mean()
            baseline_lead = (others - points[side]) / 100
            lead = (game["opponent_points"] - game["points"]) / 100
            assert returns[slot] == pytest.approx(lead - baseline_lead, rel=1e-6, abs=1e-6)
            returns[slot] = 0.0
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    "sets, message",
    [
        ({"preset": "crazy_eights"}, "needs a game of a fixed number of hands, and crazy_eights"),
        ({"opponents.snapshot_weight": 0.5}, "duplicate_hands: true compares the learner with"),
        ({"duplicate_reward": True}, "does not go with duplicate_reward"),
        ({"tables": ["crates:3", "crates:4"], "observation": "table"}, "does not go with tables"),
    ],
)
def test_duplicate_hands_refuses_what_it_cannot_compare(sets, message):
    values = {"duplicate_hands": True, "opponents.scripted": {"heuristic": 1.0}, **sets}
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, overrides(values))


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
    compiled = seating._play_on(range(0, 4), "auto")[0]
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


@pytest.mark.parametrize("key", ["duplicate_reward", "duplicate_hands"])
def test_the_rllib_backend_refuses_duplicate_pay(key):
    values = {key: True, "opponents.scripted": {"heuristic": 1.0}}
    with pytest.raises(ValueError, match=f"does not train with {key}=true yet"):
        check_supported(load_config(None, overrides(values)))


DUPLICATE = {"duplicate_reward": True, "opponents.scripted": {"heuristic": 1.0}}


def overrides(values: dict) -> list[str]:
    """``--set`` overrides of ``values``."""
    return [f"{key}={json.dumps(value)}" for key, value in values.items()]

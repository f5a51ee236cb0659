"""The search teacher (train/search.py): re-deals of the unseen cards and rollouts."""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent, Table
from crates_env.cards import parse_card
from crates_env.env import raw_env
from train.imitation import collect
from train.search import SearchTeacher, redeal


def _env_at(seed: int, stock_at_most: int | None = None):
    """A 4-player crates game played by HeuristicAgent from ``seed`` until a real choice (with
    the stock down to ``stock_at_most`` cards, if given)."""
    env = raw_env(one_card="auto")
    env.reset(seed=seed)
    heuristic = HeuristicAgent(Table.from_env(env))
    g = env.game
    while True:
        obs, mask = _observe(env)
        if mask.sum() > 1 and (stock_at_most is None or len(g.stock) <= stock_at_most):
            return env, obs, mask
        g.apply(int(heuristic.act(obs, mask)))


def _observe(env):
    seen = env.observe(env.possible_agents[env.game.to_play])
    return seen["observation"], seen["action_mask"]


def _cards(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_redeal_keeps_what_the_seat_sees_and_shuffles_the_rest(seed):
    env, _, _ = _env_at(seed)
    g = env.game
    seat = g.to_play
    others = [s for s in range(4) if s != seat]
    unseen = sorted([c for s in others for c in _cards(g.hands[s])] + list(g.stock))
    deals = [redeal(g, seat, np.random.default_rng(k)) for k in range(5)]
    for d in deals:
        assert d.hands[seat] == g.hands[seat]
        assert d.discard == g.discard
        assert [d.hands[s].bit_count() for s in others] == [g.hands[s].bit_count() for s in others]
        assert len(d.stock) == len(g.stock)
        assert sorted([c for s in others for c in _cards(d.hands[s])] + d.stock) == unseen
    assert len({tuple(d.hands) for d in deals}) > 1  # the cards really move


def test_the_teacher_plays_like_the_heuristic_while_the_stock_is_long():
    env, obs, mask = _env_at(4)
    assert len(env.game.stock) > 6
    teacher = SearchTeacher(Table.from_env(env))
    assert teacher.act_in(env, obs, mask) == HeuristicAgent(Table.from_env(env)).act(obs, mask)


def test_searching_leaves_the_real_game_untouched_and_repeats_with_its_seed():
    env, _, mask = _env_at(5, stock_at_most=6)
    g = env.game
    before = (list(g.hands), list(g.stock), list(g.discard), len(g.events), g.rng.random())
    g.rng = np.random.default_rng(0)  # restore a known play stream after peeking at it
    table = Table.from_env(env)
    values = [SearchTeacher(table, samples=3, seed=9).move_values(env, np.flatnonzero(mask))]
    values.append(SearchTeacher(table, samples=3, seed=9).move_values(env, np.flatnonzero(mask)))
    assert (list(g.hands), list(g.stock), list(g.discard), len(g.events)) == before[:4]
    assert g.rng.random() == np.random.default_rng(0).random()
    np.testing.assert_array_equal(values[0], values[1])
    assert values[0].shape == (mask.sum(),) and np.isfinite(values[0]).all()


def test_the_teacher_finds_the_way_out_a_six_and_its_follow_up():
    env = raw_env(one_card="auto")
    env.reset(seed=0)
    g = env.game
    g.set_position(
        hands=[
            ["6C", "QC"],
            ["AS", "8D", "8S", "KH", "JD"],
            ["3H"],
            ["9H", "9D", "TS", "TD", "8H"],
        ],
        stock=["4D", "5S", "6H"],
        discard=["4C", "TC"],
        turn=0,
    )
    obs, mask = _observe(env)
    legal = np.flatnonzero(mask)
    teacher = SearchTeacher(Table.from_env(env), samples=4, seed=0)
    values = teacher.move_values(env, legal)
    # 6C then QC goes out at once (the true deal scores -50 against 281); QC alone leaves a
    # Cooper-exposed 6 and the hand goes on.
    six, queen = (list(legal).index(parse_card(c)) for c in ("6C", "QC"))
    assert values[six] > max(values[queen], 100)
    assert teacher.act_in(env, obs, mask) == parse_card("6C")


def test_search_demonstrations_come_from_two_processes():
    demos = collect({"deal_schedule": [3, 2]}, "search", 4, 0.99, num_envs=2, workers=2)
    assert demos.games >= 4
    assert demos.masks[np.arange(len(demos)), demos.actions].all()

"""Expert iteration's labels: what a chunk holds, that it is reproducible, saved, resumed and
pooled as promised."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from crates_env.actions import NUM_ACTIONS
from crates_env.rules import make_ruleset
from train.labels import (
    LabelPlan,
    Labels,
    chunk_path,
    label,
    label_chunk,
    pool_labels,
)

from .scripts import benchmark

# One hand of five cards: a game is short, and with gamma 1 every decision's return is its
# side's result of the game.
ENV = {
    "preset": "crates",
    "num_players": 4,
    "reward_mode": "relative",
    "reward_scale": 0.01,
    "one_card": "auto",
    "deal_schedule": [5],
}
PLAN = LabelPlan(env=ENV, search="search:samples=2,stock_max=60,z=1", games=2, gamma=1.0, seed=3)


@pytest.fixture(scope="module")
def chunk() -> Labels:
    return label_chunk(PLAN, 0)


def test_a_chunk_holds_every_real_choice_of_both_sides(chunk):
    assert chunk.games == 2 and len(chunk) > 20
    assert (chunk.masks.sum(axis=1) >= 2).all()  # forced moves are not kept
    assert set(np.unique(chunk.game)) == {0, 1}
    for g in (0, 1):  # the expert's side alternates game by game; both sides are labelled
        rows = chunk.game == g
        expert_seats = set(chunk.seat[rows & chunk.expert])
        assert expert_seats == {g % 2, g % 2 + 2}
        assert set(chunk.seat[rows & ~chunk.expert]) == {1 - g % 2, 3 - g % 2}
    assert chunk.masks[np.arange(len(chunk)), chunk.base].all()
    assert chunk.masks[np.arange(len(chunk)), chunk.played].all()


def test_the_verdict_covers_exactly_the_legal_moves(chunk):
    assert chunk.searched.all()  # stock_max 60: every real choice is searched
    finite = np.isfinite(chunk.values)
    assert (finite == chunk.masks).all()
    assert (np.isfinite(chunk.gains) == chunk.masks).all()
    rows = np.arange(len(chunk))
    assert (chunk.gains[rows, chunk.base] == 0).all()  # the base move gains nothing over itself
    assert (chunk.gain_se[rows, chunk.base] == 0).all()
    assert (chunk.gain_se[chunk.masks] >= 0).all()


def test_the_expert_plays_its_choice_and_the_opponent_its_own_move(chunk):
    target = chunk.target(1.0)  # the plan's z
    assert (chunk.played[chunk.expert] == target[chunk.expert]).all()
    # the opponent is HeuristicAgent, as is the search's base
    assert (chunk.played[~chunk.expert] == chunk.base[~chunk.expert]).all()
    assert (target != chunk.base).any()  # the search does change some moves


def test_every_return_is_the_sides_result_of_the_one_hand_game(chunk):
    expert_points, other_points = chunk.points[chunk.game].T
    result = 0.01 * (other_points - expert_points)  # relative reward, per side, gamma 1
    expected = np.where(chunk.expert, result, -result)
    assert np.allclose(chunk.returns, expected, atol=1e-4)
    assert (chunk.stock >= 0).all() and (chunk.hand == 0).all()


def test_a_chunk_is_the_same_every_time_it_is_labelled(chunk):
    again = label_chunk(PLAN, 0)
    for name in ("observations", "masks", "base", "played", "returns", "points"):
        assert np.array_equal(getattr(again, name), getattr(chunk, name)), name
    assert np.array_equal(again.values, chunk.values, equal_nan=True)
    other = label_chunk(PLAN, 1)
    assert not np.array_equal(other.points, chunk.points)


def test_a_game_of_forced_moves_only_is_a_game_without_rows():
    """One card each: most games offer no choice at all, and they are still games."""
    one_card = LabelPlan(env={**ENV, "deal_schedule": [1]}, search=PLAN.search, games=4, seed=3)
    labels = label_chunk(one_card, 0)
    assert labels.games == 4 and labels.points.shape == (4, 2)
    assert sorted(set(labels.game)) == [2]  # games 0, 1 and 3 had no choice to label
    assert labels.observations.shape == (len(labels), 284) and len(labels) == 8


def test_target_takes_the_search_move_only_by_z_standard_errors():
    masks = np.zeros((3, NUM_ACTIONS), dtype=bool)
    masks[:, [4, 9, 20]] = True
    nan = np.full((3, NUM_ACTIONS), np.nan, dtype=np.float32)
    values, gains, se = nan.copy(), nan.copy(), nan.copy()
    # row 0: move 9 beats the base move 4 by 10 points, standard error 4 (2.5 errors)
    values[0, [4, 9, 20]], gains[0, [4, 9, 20]], se[0, [4, 9, 20]] = (
        [0, 10, -5],
        [0, 10, -5],
        [0, 4, 3],
    )
    # row 1: move 20 looks best by 3 points, standard error 6 (half an error)
    values[1, [4, 9, 20]], gains[1, [4, 9, 20]], se[1, [4, 9, 20]] = (
        [1, 0, 4],
        [0, -1, 3],
        [0, 2, 6],
    )
    labels = Labels(
        observations=np.zeros((3, 5), dtype=np.float32),
        masks=masks,
        base=np.array([4, 4, 9], dtype=np.int16),
        played=np.array([4, 4, 9], dtype=np.int16),
        redeals=np.array([16, 64, 0], dtype=np.int16),  # row 2: not searched, the base move
        values=values,
        gains=gains,
        gain_se=se,
        returns=np.zeros(3, dtype=np.float32),
        seat=np.zeros(3, dtype=np.int8),
        game=np.zeros(3, dtype=np.int32),
        expert=np.ones(3, dtype=bool),
        stock=np.zeros(3, dtype=np.int16),
        hand=np.zeros(3, dtype=np.int16),
        points=np.zeros((1, 2)),
    )
    assert labels.target(0.0).tolist() == [9, 20, 9]
    assert labels.target(1.0).tolist() == [9, 4, 9]
    assert labels.target(3.0).tolist() == [4, 4, 9]
    # only the verdicts of 64 re-deals or more: row 0's (16) leaves the base move
    assert labels.target(0.0, redeals=64).tolist() == [4, 20, 9]


def test_deepening_adds_redeals_where_the_moves_spread_apart(chunk):
    assert (chunk.redeals == 2).all()  # the plan's samples
    never = label_chunk(replace(PLAN, search=PLAN.search + ",deepen=3,deepen_at=1e9"), 0)
    assert (never.redeals == 2).all()
    assert np.array_equal(never.values, chunk.values, equal_nan=True)  # the same search
    always = label_chunk(replace(PLAN, search=PLAN.search + ",deepen=3,deepen_at=0"), 0)
    assert (always.redeals == 8).all()  # spread >= 0: three more rounds of two re-deals
    assert (always.played[always.expert] == always.target(1.0)[always.expert]).all()


def test_deepening_searches_again_only_the_decisions_still_spread_apart(monkeypatch):
    from agents import SearchAgent, Table

    asked = []
    spread = [np.array([[0.0, 0.0], [d, d]]) for d in (100.0, 10.0, 70.0)]  # 2 moves x 2
    again = [np.array([[0.0], [90.0]]), np.array([[0.0], [20.0]])]  # decisions 0 and 2
    third = [np.array([[0.0], [95.0]])]  # decision 0 alone: 2's mean fell under 60
    answers = [spread, again, third]

    def margins_of(decisions, rngs=None):  # answers from the script, keeps what it was asked
        asked.append([env for env, _ in decisions])
        return answers.pop(0)

    search = SearchAgent(Table.from_rules("crates", 4), samples=2, deepen=2, deepen_at=60.0)
    monkeypatch.setattr(search, "margins_of", margins_of)
    legal = np.array([4, 9])
    decisions = [(name, legal) for name in "abc"]
    margins = search.deepened_margins(decisions, [4, 4, 4])
    assert asked == [["a", "b", "c"], ["a", "c"], ["a"]]
    assert [m.shape[1] for m in margins] == [4, 2, 3]
    assert margins[0][1].tolist() == [100, 100, 90, 95]
    assert margins[2][1].tolist() == [70, 70, 20]  # mean 53: no third round


def test_a_run_resumes_where_it_stopped_and_pools(tmp_path, chunk):
    plan = LabelPlan(env=ENV, search="search:samples=2,stock_max=3,z=1", games=1, seed=5)
    assert list(label(plan, tmp_path, range(3))) != []
    first = Labels.load(chunk_path(tmp_path, 1))
    chunk_path(tmp_path, 1).unlink()  # as if killed before chunk 1 landed
    assert len(list(label(plan, tmp_path, range(3)))) == 1  # only the missing chunk
    again = Labels.load(chunk_path(tmp_path, 1))
    assert np.array_equal(again.observations, first.observations)
    assert np.array_equal(again.values, first.values, equal_nan=True)
    pooled = pool_labels([tmp_path], plan.settings())
    parts = [Labels.load(chunk_path(tmp_path, i)) for i in range(3)]
    assert len(pooled) == sum(len(p) for p in parts) and pooled.games == 3
    assert np.array_equal(pooled.game, np.concatenate([p.game + i for i, p in enumerate(parts)]))


def test_pooling_refuses_other_settings_and_empty_folders(tmp_path):
    plan = LabelPlan(env=ENV, search="search:samples=2,stock_max=3,z=1", games=1, seed=5)
    list(label(plan, tmp_path, range(1)))
    other = LabelPlan(env=ENV, search="search:samples=2,stock_max=3,z=1", games=1, seed=6)
    # nor does labelling add chunks of other settings to the folder
    with pytest.raises(ValueError, match=r"other settings \(seed: 5 there, 6 here\)"):
        list(label(other, tmp_path, range(3)))
    assert [p.name for p in tmp_path.iterdir()] == ["chunk_00000.npz"]
    with pytest.raises(ValueError, match=r"other settings \(seed: 5 there, 6 here\)"):
        pool_labels([tmp_path], other.settings())
    with pytest.raises(ValueError, match="no label chunks"):
        pool_labels([tmp_path / "empty"])
    (tmp_path / "chunk_00009.npz").write_bytes(b"junk")
    with pytest.raises(ValueError, match=r"chunk_00009\.npz: not a labels chunk"):
        pool_labels([tmp_path])


def test_a_base_network_is_known_by_its_contents_not_its_name(tmp_path):
    from agents.shipped import shipped_network

    copy = tmp_path / "renamed.zip"
    copy.write_bytes(shipped_network(make_ruleset("crates", 4)).read_bytes())
    spec = "search:samples=2,stock_max=3,z=1,base="
    table = {"preset": "crates", "num_players": 4}  # the shipped network's own table
    shipped = LabelPlan(env=table, search=spec + "shipped").settings()
    renamed = LabelPlan(env=table, search=spec + str(copy)).settings()
    assert shipped == renamed
    assert shipped["search"] == "search:samples=2,stock_max=3,z=1"
    other = tmp_path / "other.zip"
    other.write_bytes(copy.read_bytes() + b"\0")
    assert LabelPlan(env=table, search=spec + str(other)).settings() != shipped


def test_the_held_out_gains_split_by_decision_add_up_to_the_whole(tmp_path, chunk):
    tool = benchmark("held_out_gain")
    chunk.save(chunk_path(tmp_path, 0), PLAN.settings())
    table = tool.labelled_table(tmp_path)
    assert table.rules == make_ruleset("crates", 4, deal_schedule=[5])
    rows = np.flatnonzero(chunk.searched)
    best = np.where(chunk.masks[rows], np.nan_to_num(chunk.gains[rows], nan=-1e9), -np.inf)
    moves = best.argmax(axis=1)  # the best-looking move: it leaves the base move somewhere
    parts = tool.by_decision(chunk, rows, 0, moves, table)
    assert set(parts) and set(parts) <= {"card", "draw", "suit"}
    whole, _ = tool.gain_per_game(chunk, rows, 0, moves)
    assert sum(points for points, _ in parts.values()) == pytest.approx(whole)
    left = (moves != chunk.base[rows]).sum() / chunk.games
    assert sum(n for _, n in parts.values()) == pytest.approx(left)
    assert tool.by_decision(chunk, rows, 0, chunk.base[rows].astype(int), table) == {}

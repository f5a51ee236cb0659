"""SearchAgent (agents/search.py): re-deals of the unseen cards and rollouts."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent, Table, make_agent, search_settings, shipped_network
from agents.search import EVERYWHERE, teacher_settings
from crates_env.cards import parse_card
from crates_env.env import raw_env
from crates_env.rules import PRESETS, make_ruleset
from train.imitation import Collection, collect


def _env_at(seed: int, stock_at_most: int | None = None, **table):
    """A game (4-player crates unless ``table`` says otherwise) played by HeuristicAgent from
    ``seed`` until a real choice (with the stock down to ``stock_at_most`` cards, if given)."""
    env = raw_env(**{"one_card": "auto", **table})
    env.reset(seed=seed)
    heuristic = HeuristicAgent(Table.from_env(env))
    g = env.game
    while True:
        obs, mask = _observe(env)
        stock = g.view(g.to_play).stock_size
        if mask.sum() > 1 and (stock_at_most is None or stock <= stock_at_most):
            return env, obs, mask
        g.apply(int(heuristic.act(obs, mask)))


def _observe(env):
    seen = env.observe(env.possible_agents[env.game.to_play])
    return seen["observation"], seen["action_mask"]


def _everything(g) -> tuple:
    """What the game holds, hidden cards included, and the game it goes on to (its reshuffles
    and later deals) under random play from a fixed seed."""
    seats = range(g.n)
    now = ([g.view(s) for s in seats], [g.hand(s) for s in seats], g.stock_cards(), g.events)
    future = g.clone()
    rnd = random.Random(0)
    while not future.game_over:
        future.apply(rnd.choice(future.legal_actions()))
    return now, future.scores, future.hand_logs


def test_the_teacher_plays_like_the_heuristic_while_the_stock_is_long():
    env, obs, mask = _env_at(4)
    stock = env.game.view(0).stock_size
    teacher = SearchAgent(Table.from_env(env), stock_max=stock - 1)
    assert teacher.act(obs, mask, env.game) == HeuristicAgent(Table.from_env(env)).act(obs, mask)


def test_searching_leaves_the_real_game_untouched_and_repeats_with_its_seed():
    env, _, mask = _env_at(5, stock_at_most=6)
    g = env.game
    before = _everything(g)
    table = Table.from_env(env)
    values = [SearchAgent(table, samples=3, seed=9).move_values(env, np.flatnonzero(mask))]
    values.append(SearchAgent(table, samples=3, seed=9).move_values(env, np.flatnonzero(mask)))
    assert _everything(g) == before
    np.testing.assert_array_equal(values[0], values[1])
    assert values[0].shape == (mask.sum(),) and np.isfinite(values[0]).all()


def test_the_search_is_blind_to_the_cards_its_seat_cannot_see():
    """Two positions that differ only in the other hands and the stock's order give the same
    move values: the teacher reads nothing but ``resample_hidden`` for its own seat."""
    env, _, mask = _env_at(6, stock_at_most=6)
    g = env.game
    seat = g.to_play
    other = env.game.resample_hidden(seat, np.random.default_rng(123))
    assert [other.hand(s) for s in range(4)] != [g.hand(s) for s in range(4)]
    twin = raw_env(one_card="auto")
    twin.reset(seed=6)
    twin.game = other
    legal = np.flatnonzero(mask)
    table = Table.from_env(env)
    mine = SearchAgent(table, samples=3, seed=4).move_values(env, legal)
    theirs = SearchAgent(table, samples=3, seed=4).move_values(twin, legal)
    np.testing.assert_array_equal(mine, theirs)


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
    teacher = SearchAgent(Table.from_env(env), samples=4, seed=0, z=0)
    values = teacher.move_values(env, legal)
    # 6C then QC goes out at once (the true deal scores -50 against 281); QC alone leaves a
    # Cooper-exposed 6 and the hand goes on.
    six, queen = (list(legal).index(parse_card(c)) for c in ("6C", "QC"))
    assert values[six] > max(values[queen], 100)
    assert teacher.act(obs, mask, env.game) == parse_card("6C")


def test_with_z_the_search_leaves_the_base_move_only_for_a_clear_gain(monkeypatch):
    """The base move stands unless the best move beats it by z standard errors of the gain
    over the common re-deals: a steady +10 a re-deal does, a noisy +2.5 does not."""
    env, obs, mask = _env_at(5, stock_at_most=6)
    table, legal = Table.from_env(env), np.flatnonzero(mask)
    mine = HeuristicAgent(table).act(obs, mask)
    other = next(a for a in legal if a != mine)
    for gains, z, expected in (
        ([10, 12, 9, 11], 2.0, other),
        ([40, -30, 35, -35], 1.0, mine),
        ([40, -30, 35, -35], 0.0, other),
    ):
        margins = np.zeros((len(legal), 4))
        margins[list(legal).index(other)] = gains
        agent = SearchAgent(table, samples=4, z=z)
        monkeypatch.setattr(agent, "margins_of", lambda decisions, rngs=None, m=margins: [m])
        assert agent.act(obs, mask, env.game) == expected, (gains, z)


def test_a_search_that_never_trusts_its_gain_plays_the_base_policy():
    for seed in (5, 7, 11):
        env, obs, mask = _env_at(seed, stock_at_most=6)
        table = Table.from_env(env)
        searcher = SearchAgent(table, samples=2, z=1e9, seed=seed)
        assert searcher.act(obs, mask, env.game) == HeuristicAgent(table).act(obs, mask)


def test_search_demonstrations_come_from_two_processes():
    plan = Collection("search:samples=8,stock_max=6", games=4, gamma=0.99, num_envs=2)
    demos = collect({"deal_schedule": [3, 2]}, plan, workers=2)
    assert demos.games >= 4
    assert demos.masks[np.arange(len(demos)), demos.actions].all()


def test_search_sits_at_the_table_in_eval_and_in_self_play(tmp_path, capsys):
    from crates_env.batch import ReferenceGames
    from train.cli import main
    from train.opponents import PoolSpec
    from train.selfplay import LearnerSpec, make_batch

    argv = ["eval", "--agents", "search", "heuristic", "--deals", "1", "--workers", "1"]
    rule = ["--rule", "deal_schedule=[2, 1]", "--quiet", "--no-tensorboard"]
    assert main([*argv, *rule, "--out", str(tmp_path / "out")]) == 0
    assert "search" in capsys.readouterr().out
    spec = PoolSpec(scripted={"search": 1.0})
    batch = make_batch(2, {"deal_schedule": [2, 1]}, spec, LearnerSpec(), None, seed=1)
    assert isinstance(batch.games, ReferenceGames)  # it looks ahead in the reference games
    _, masks = batch.reset()
    for _ in range(10):
        _, _, _, _, masks = batch.step([int(np.flatnonzero(m)[0]) for m in masks])


def test_search_needs_the_game_and_checks_its_settings():
    table = Table.from_env(raw_env())
    assert SearchAgent(table).looks_ahead and not HeuristicAgent(table).looks_ahead
    with pytest.raises(ValueError, match="SearchAgent looks ahead in the game: give each"):
        SearchAgent(table).act(np.zeros(table.obs_size, np.float32), np.ones(63, np.int8))
    with pytest.raises(ValueError, match="samples must be an int >= 1"):
        SearchAgent(table, samples=0)
    with pytest.raises(ValueError, match="base must be 'heuristic', 'shipped' or a checkpoint"):
        SearchAgent(table, base="greedy")
    with pytest.raises(ValueError, match="z must be a number >= 0"):
        SearchAgent(table, z=-1)
    with pytest.raises(ValueError, match="z > 0 needs samples >= 2"):
        SearchAgent(table, samples=1, z=1)
    assert search_settings("samples=8,z=1.5") == {"samples": 8, "z": 1.5}
    with pytest.raises(ValueError, match="z must be a number, not 'high'"):
        search_settings("z=high")
    with pytest.raises(ValueError, match="stock_max must be an integer or all, not '1\\.5'"):
        search_settings("stock_max=1.5")


def test_search_over_the_shipped_network_plays_legal_moves():
    env, obs, mask = _env_at(7, stock_at_most=6)
    for base in (
        "shipped",
        str(shipped_network(make_ruleset("crates", 4))),
    ):  # by its name, or by its path
        agent = SearchAgent(Table.from_env(env), samples=2, base=base, seed=1)
        assert mask[agent.act(obs, mask, env.game)]


@pytest.mark.parametrize("seed", [5, 7, 11])
@pytest.mark.parametrize("base", ["heuristic", "shipped"])
def test_the_rollouts_give_the_same_values_on_both_engines(seed, base, monkeypatch):
    """All moves x re-deals run together as one batch of games, the base deciding a batch at
    a time (a network's forward pass, HeuristicAgent's compiled twin): the compiled engine and
    the batch of reference games play the same re-deals and rollouts, so the same values."""
    from agents import search
    from crates_env.engine_choice import game_batch

    env, _, mask = _env_at(seed, stock_at_most=6)
    table, legal = Table.from_env(env), np.flatnonzero(mask)
    compiled = SearchAgent(table, samples=4, base=base, seed=3).move_values(env, legal)
    monkeypatch.setattr(
        search, "game_batch", lambda n, engine, **kw: game_batch(n, "reference", **kw)
    )
    reference = SearchAgent(table, samples=4, base=base, seed=3)
    np.testing.assert_array_equal(compiled, reference.move_values(env, legal))
    assert type(next(iter(reference._batches.values()))).__name__ == "ReferenceGames"


def test_in_zimbabwe_the_search_values_lasting_not_points():
    """The last player left wins zimbabwe, and a hand's points count only to find its highest
    hand, knocked out. Each rollout's margin is what the hand did to the standings: with four
    players in, -1 for the mover's knock-out against +1/3 for the others' mean (-2), or +1
    against (-1 + 1 + 1) / 3 when another goes (2/3). Margins read off the points, as before,
    took dozens of values."""
    env, _, mask = _env_at(3, preset="zimbabwe", num_players=4)
    assert all(env.game.game_state.active)
    margins = SearchAgent(Table.from_env(env), samples=16, seed=1).move_margins(
        env, np.flatnonzero(mask)
    )
    np.testing.assert_allclose(np.unique(margins), [-2.0, 2 / 3])


def test_rollouts_past_the_compiled_engines_scores_are_played_on_the_reference_engine():
    """A side 58 pressures down: the next pressure's value passes 64 bits, so a rollout that
    takes one overflows the compiled engine. The search plays that decision's rollouts again on
    the reference engine (same re-deals), where the values are exact, rather than fail."""
    env, _, mask = _env_at(5, stock_at_most=1)
    env.game.game_state.pressure_count = (58,) * len(env.game.game_state.pressure_count)
    table, legal = Table.from_env(env), np.flatnonzero(mask)
    values = SearchAgent(table, samples=4, seed=3).move_values(env, legal)
    reference = SearchAgent(table, samples=4, seed=3)
    reference._batch = lambda rules, size, engine="auto": SearchAgent._batch(
        reference, rules, size, "reference"
    )
    np.testing.assert_array_equal(values, reference.move_values(env, legal))
    assert np.abs(values).max() > 2**60  # only a 59th pressure (5 x 2^58 points) gives so much


@pytest.mark.parametrize(
    "table",
    [
        {"preset": "crazy_eights", "num_players": 4},
        {"preset": "zimbabwe", "num_players": 4},
        {"preset": "zimbabwe", "num_players": 3, "zimbabwe_jokers": 4},
        {"preset": "kreights", "misplay_mode": "penalize", "kreights_penalty_cards": True},
    ],
)
def test_batched_rollouts_give_the_one_at_a_time_values_on_every_rule_system(table, monkeypatch):
    """The rollouts run on the compiled engine on the Crazy Eights family and with misplay
    penalties too, and give the values the batch of reference games gives."""
    from agents import search
    from crates_env.engine_choice import game_batch

    env, _, mask = _env_at(5, **table)
    legal = np.flatnonzero(mask)
    batched = SearchAgent(Table.from_env(env), samples=4, seed=3)
    values = batched.move_values(env, legal)
    assert {type(b).__name__ for b in batched._batches.values()} == {"VectorGame"}
    monkeypatch.setattr(
        search, "game_batch", lambda n, engine, **kw: game_batch(n, "reference", **kw)
    )
    one_by_one = SearchAgent(Table.from_env(env), samples=4, seed=3)
    np.testing.assert_array_equal(values, one_by_one.move_values(env, legal))


def test_decisions_of_several_games_searched_together_get_their_own_margins():
    """margins_of rolls out every decision's moves x re-deals in one batch: each decision gets
    exactly the margins it gets searched alone (the re-deals drawn in the same order)."""
    decisions = [_env_at(seed, stock_at_most=8)[::2] for seed in (5, 7, 11, 13)]
    decisions = [(env, np.flatnonzero(mask)) for env, mask in decisions]
    table = Table.from_env(decisions[0][0])
    together = SearchAgent(table, samples=4, seed=3).margins_of(decisions)
    alone = SearchAgent(table, samples=4, seed=3)
    for (env, legal), margins in zip(decisions, together, strict=True):
        assert margins.shape == (len(legal), 4)
        np.testing.assert_array_equal(margins, alone.move_margins(env, legal))


def test_a_seeded_search_names_a_wild_starters_suit_from_its_own_seed():
    """The base policy inside SearchAgent draws from the agent's seed: a blind suit named for
    a wild starter (the stock is full, so the search does not look) repeats with the seed."""
    from .test_agents import position

    env = position([["QC", "JC"], ["4H", "KS"], ["JD", "QD"], ["2S", "3S"]], "8H")
    obs, mask = _observe(env)
    table = Table.from_env(env)
    for seed in range(12):
        first, second = SearchAgent(table, seed=seed), SearchAgent(table, seed=seed)
        assert first.act(obs, mask, env.game) == second.act(obs, mask, env.game)


@pytest.mark.parametrize("preset", PRESETS)
def test_search_at_each_table_is_that_rule_systems_teacher(preset):
    """``search`` with no settings plays the table's teacher (what ``crates eval --preset P
    --agents search heuristic`` measures); a setting given overrides only itself."""
    table = Table.from_rules(preset, 4)
    teacher = teacher_settings(preset)
    search = make_agent("search", table)
    assert (search.samples, search.stock_max, search.z, search.deepen, search.deepen_at) == (
        teacher.samples,
        teacher.stock_max,
        teacher.z,
        teacher.deepen,
        teacher.deepen_at,
    )
    told = make_agent("search:z=0.5", table)
    assert (told.z, told.stock_max, told.deepen) == (0.5, teacher.stock_max, teacher.deepen)
    always_the_best_looking = make_agent("search:z=0", table)  # nothing unsure to deepen
    assert (always_the_best_looking.z, always_the_best_looking.deepen) == (0.0, 0)


def test_the_eights_family_searches_from_the_first_move_and_the_crates_family_near_the_end():
    assert make_agent("search", Table.from_rules("zimbabwe", 4)).stock_max == EVERYWHERE
    assert make_agent("search", Table.from_rules("crazy_eights", 4)).stock_max == EVERYWHERE
    assert make_agent("search:stock_max=all", Table.from_rules("crates", 4)).stock_max == EVERYWHERE
    kreights = make_agent("search", Table.from_rules("kreights", 4))
    assert (kreights.stock_max, kreights.z, kreights.deepen) == (10, 2.0, 7)
    crates = make_agent("search", Table.from_rules("crates", 4))
    assert (crates.samples, crates.stock_max, crates.z, crates.deepen) == (16, 10, 1.0, 0)

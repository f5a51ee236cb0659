"""The compiled engine (crates_env.vector) against the reference: the same game, step by step."""

from __future__ import annotations

import numpy as np
import pytest

from crates_env import new_game
from crates_env.env import raw_env
from crates_env.rules import make_ruleset
from crates_env.scoring import score_kinds
from crates_env.vector import VectorGame
from crates_env.vector.layout import STATE
from crates_env.vector.table import score_hand_counts
from crates_env.vector.vector_game import rules_record

from .harness.vector_equivalence import Difference, play_both

KREIGHTS_PENALTIES = {
    "misplay_mode": "penalize",
    "kreights_penalty_cards": True,
    "kreights_revoke_penalty": True,
}
# Every preset at several player counts, the reward settings, the options and the misplay
# penalties.
TABLES = [
    ("crates", 2, {}),
    ("crates", 3, {"reward_mode": "relative", "reward_timing": "event"}),
    ("crates", 4, {}),
    ("crates", 4, {"reward_mode": "win", "one_card": "auto"}),
    ("crates", 5, {"reward_timing": "event", "reward_scale": 0.01}),
    (
        "crates",
        4,
        {
            "standig_jokers": True,
            "queen_draws_two": True,
            "pressure_cap_20": True,
            "no_kings_queens": True,
            "reward_timing": "event",
        },
    ),
    ("crates", 3, {"deal_schedule": [3, 1, 2], "first_dealer": 2, "max_decisions_per_hand": 40}),
    ("crates", 3, {"skill_hand_world_series": True}),
    ("crates", 3, {"skill_hand_world_series": True, "reward_timing": "event", "one_card": "auto"}),
    ("chicago1970", 3, {"one_card": "auto"}),
    ("chicago1970", 5, {"reward_timing": "event"}),
    ("kreights", 3, {}),
    ("kreights", 5, {"reward_timing": "event"}),  # two packs
    (
        "kreights",
        4,
        {
            "seven_card_format": True,
            "kreights_mulligan": [0, 2],
            "kreights_free_play_after_count": True,
            "kreights_pressure_doubling": True,
            "kreights_three_mutual_cancel": False,
            "kreights_barometer": True,
        },
    ),
    ("craits", 2, {}),
    ("craits", 7, {"reward_timing": "event"}),  # two packs
    (
        "craits",
        4,
        {
            "craits_face_cards": True,
            "craits_short_game": True,
            "craits_dealer_follows_direction": True,
            "craits_one_card_on_deal": True,
            "craits_idiot_card": True,
            "craits_continue_after_count": True,
            "craits_three_covers_eight": True,
            "craits_punitive_threes": True,
            "craits_go_out_minus_10": True,
        },
    ),
    ("craits", 12, {"craits_face_cards": True, "craits_three_covers_eight": True}),
    ("creights", 2, {}),
    ("creights", 4, {"reward_timing": "event", "one_card": "auto"}),
    ("kreights", 4, KREIGHTS_PENALTIES),
    ("kreights", 5, {**KREIGHTS_PENALTIES, "reward_timing": "event"}),  # two packs
    ("kreights", 3, {"misplay_mode": "penalize", "kreights_revoke_penalty": True}),
    ("creights", 3, {"misplay_mode": "penalize", "creights_dumbass_cards": True}),
    ("crazy_eights", 2, {}),
    ("crazy_eights", 4, {"reward_mode": "relative"}),
    ("crazy_eights", 7, {"reward_mode": "win", "crazy_eights_eight_must_change_suit": True}),
    ("zimbabwe", 2, {}),
    ("zimbabwe", 4, {"reward_mode": "win"}),
    ("zimbabwe", 6, {"zimbabwe_jokers": 3, "deal_size": 7, "reward_mode": "relative"}),
]


@pytest.mark.parametrize(("preset", "players", "options"), TABLES)
def test_compiled_engine_plays_the_reference_game_step_by_step(preset, players, options):
    played = play_both(preset, players, games=6, seed=1000 + players, **options)
    assert played.games == 6
    assert played.decisions > 6 * 20


def test_the_check_finds_a_planted_difference():
    """A card moved in the compiled game's hand is found (the check can fail)."""
    env = raw_env(preset="crates", num_players=4)
    env.reset(seed=3)
    vg = VectorGame(1, "crates", 4, autoreset=False)
    vg.from_game(env.game, 0)
    seat = env.game.to_play
    counts = vg.states["counts"][0, seat]
    held = int(np.flatnonzero(counts)[0])
    counts[held] -= 1
    counts[(held + 1) % 52] += 1
    observation = env.observe(env.agent_selection)["observation"]
    assert not np.array_equal(observation, vg.observe()[0])
    with pytest.raises(Difference, match="hand"):
        _compare_first_decision(env, vg)


def _compare_first_decision(env, vg):
    from .harness.vector_equivalence import _same

    _same("planted", "observation", env.observe(env.agent_selection)["observation"],
          vg.observe()[0], env)  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("crates", 4, {}),
        ("crates", 3, {"skill_hand_world_series": True}),
        ("kreights", 3, {}),
        ("craits", 5, {}),
        ("creights", 4, {}),
        ("crazy_eights", 6, {}),  # two packs
        ("zimbabwe", 4, {"zimbabwe_jokers": 5}),
    ],
)
def test_reset_deals_the_game_of_each_seed(preset, players, options):
    """Slot i after reset(seeds) is new_game(preset, players, seed=seeds[i]), field for field:
    first dealer (at random, or drawn for deal), deal, starter and random streams."""
    seeds = [0, 7, 123456789, 2**40 + 5]
    vg = VectorGame(len(seeds), preset, players, **options)
    vg.reset(seeds)
    loaded = VectorGame(len(seeds), preset, players, **options)
    for i, seed in enumerate(seeds):
        loaded.from_game(new_game(preset, players, seed=seed, **options), i)
    for name in STATE.names:
        assert np.array_equal(_live(vg.states, name), _live(loaded.states, name)), name
    assert vg.seeds.tolist() == seeds


def _live(states: np.ndarray, name: str) -> np.ndarray:
    """A field with what lies past the end of the stock, the discard pile and the out order
    (cards already taken off) zeroed: only the live part is the game."""
    values = states[name].copy()
    length = {"stock": "n_stock", "discard": "n_discard", "out_order": "n_out"}.get(name)
    if length:
        for row, n in zip(values, states[length], strict=True):
            row[n:] = 0
    return values


@pytest.mark.parametrize(
    ("preset", "options"),
    [("crates", {"deal_schedule": [1]}), ("crazy_eights", {}), ("zimbabwe", {})],
)
def test_autoreset_deals_the_next_seed_of_the_slot(preset, options):
    vg = VectorGame(3, preset, 2, **options)
    vg.reset(5)
    rng = np.random.default_rng(0)
    first = vg.seeds.copy()
    ended = np.zeros(3, dtype=bool)
    while not ended.all():
        _, over = vg.step(vg.random_actions(rng))
        ended |= over
    assert (vg.seeds != first).all()
    assert not vg.game_over.any()
    for i, seed in enumerate(vg.seeds.tolist()):
        fresh = VectorGame(1, preset, 2, **options)
        fresh.from_game(new_game(preset, 2, seed=seed, **options), 0)
        if vg.states["decisions"][i] == 0:  # not yet played on
            for name in STATE.names:
                assert np.array_equal(_live(vg.states[i : i + 1], name), _live(fresh.states, name))


def test_copied_games_play_on_identically():
    vg = VectorGame(4, "crates", 4, reward_timing="event")
    vg.reset(11)
    rng = np.random.default_rng(1)
    for _ in range(30):
        vg.step(vg.random_actions(rng))
    vg.copy_games([0, 0], [1, 2])
    for _ in range(200):
        actions = vg.random_actions(rng)
        actions[1] = actions[2] = actions[0]
        rewards, _ = vg.step(actions)
        assert np.array_equal(rewards[0], rewards[1]) and np.array_equal(rewards[0], rewards[2])
    assert vg.states[1].tobytes() == vg.states[0].tobytes() == vg.states[2].tobytes()


def test_observing_another_seat_matches_the_reference():
    env = raw_env(preset="crates", num_players=4)
    env.reset(seed=9)
    vg = VectorGame(1, "crates", 4, autoreset=False)
    vg.from_game(env.game, 0)
    for seat, agent in enumerate(env.possible_agents):
        assert np.array_equal(env.observe(agent)["observation"], vg.observe([seat])[0])


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("crates", {}),
        ("kreights", {}),
        ("kreights", {"kreights_three_mutual_cancel": False}),
        ("creights", {}),
        ("craits", {"craits_three_covers_eight": True}),
        ("craits", {"craits_punitive_threes": True, "craits_three_covers_eight": True}),
        ("crates", {"standig_jokers": True}),
    ],
)
def test_hand_points_equal_the_reference_scoring(preset, options):
    rules = make_ruleset(preset, **options)
    R = rules_record(rules)
    kinds = list(rules.deck.kinds)
    threes = [k for k in kinds if k < 52 and k % 13 == 2]
    rng = np.random.default_rng(5)
    for _ in range(3000):
        hand = [int(k) for k in rng.choice(kinds + threes * 3, size=rng.integers(0, 12))]
        counts = np.bincount(hand, minlength=53).astype(np.int8)
        assert score_hand_counts(R, counts) == score_kinds(hand, rules), hand


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "crates", "deal_schedule": [1] * 65}, "deal schedules of up to 64 hands"),
        ({"preset": "crates", "render_mode": "ansi"}, "render"),
        ({"preset": "crates", "reward_mode": "money"}, "reward_mode"),
        ({"preset": "crates", "no_such_option": True}, "no_such_option"),
    ],
)
def test_unsupported_tables_are_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VectorGame(2, **kwargs)


def test_an_illegal_action_moves_no_game():
    vg = VectorGame(3, "crates", 4)
    vg.reset(1)
    before = vg.states.tobytes()
    actions = vg.random_actions(np.random.default_rng(0))
    mask = vg.legal_mask()
    actions[1] = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(ValueError, match="game 1: illegal action"):
        vg.step(actions)
    assert vg.states.tobytes() == before
    with pytest.raises(ValueError, match=r"actions must be integers of shape \(3,\)"):
        vg.step([0, 1])
    with pytest.raises(ValueError, match="3 seeds"):
        vg.reset([1, 2])
    with pytest.raises(ValueError, match="seeds must be ints"):
        vg.reset([1, -2, 3])
    assert vg.states.tobytes() == before


def test_random_seats_play_until_another_seat_is_to_play():
    """One compiled call plays the marked seats; what it pays a seat is its side's points."""
    vg = VectorGame(16, "crates", 4, deal_schedule=[4, 2, 1], autoreset=False)
    vg.reset(21)
    random_seats = np.zeros((16, 4), dtype=bool)
    random_seats[:, 1:] = True  # seat 0 is somebody else
    paid_to = np.zeros(16, dtype=np.int64)
    rng = np.random.default_rng(4)
    totals = np.zeros(16)
    for _ in range(5000):
        before = vg.scores
        paid = vg.play_random_seats(random_seats, paid_to, rng)
        assert np.array_equal(paid, -(vg.scores[:, 0] - before[:, 0]))  # team 0: seats 0, 2
        totals += paid
        live = ~vg.game_over
        assert (vg.to_play[live] == 0).all()
        if not live.any():
            break
        before = vg.scores
        rewards, _ = vg.step(vg.random_actions(rng), active=live)
        assert np.array_equal(rewards[:, 0], -(vg.scores[:, 0] - before[:, 0]))
        totals += rewards[:, 0]
    assert vg.game_over.all()
    assert np.array_equal(totals, -vg.scores[:, 0])
    again = VectorGame(16, "crates", 4, deal_schedule=[4, 2, 1], autoreset=False)
    again.reset(21)
    first = again.play_random_seats(random_seats, paid_to, np.random.default_rng(4))
    replay = VectorGame(16, "crates", 4, deal_schedule=[4, 2, 1], autoreset=False)
    replay.reset(21)
    assert np.array_equal(
        first, replay.play_random_seats(random_seats, paid_to, np.random.default_rng(4))
    )
    assert again.states.tobytes() == replay.states.tobytes()

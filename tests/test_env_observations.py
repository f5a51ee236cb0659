"""What a seat observes: the observation layout tiling the vector, observations equal to the
engine's view over random games and on stacked deals, the wild starter hidden from the dealer,
relative seats, the observation space, the docs' table of the layout, and ``state()`` for a
centralized critic. The stacked deals: ``tests/aec.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from crates_env import Decision, crates_v0, parse_card
from crates_env.actions import SUIT
from crates_env.env import raw_env
from crates_env.observation import SLICES

from .aec import (
    AGENTS4,
    ONE_CARD_OPTIONS,
    STARTER_HANDS,
    act,
    kind_counts,
    obs_slice,
    random_game,
    seeded,
)
from .scripted import deal_order

# --- 7. observations -----------------------------------------------------------------------------


def test_observation_layout_tiles_the_vector():
    for preset, n in [("crates", 4), ("crates", 2), ("craits", 12), ("kreights", 5)]:
        env = raw_env(preset=preset, num_players=n)
        layout = env.observation_layout()
        assert list(layout) == [name for name, *_ in SLICES]
        position = 0
        for start, stop in layout.values():
            assert start == position and stop > start
            position = stop
        size = env.observation_space("player_0")["observation"].shape[0]
        assert position == size
        assert layout["hand"] == (0, 53)
        assert layout["hand_sizes"][1] - layout["hand_sizes"][0] == n
        env.reset(seed=0)
        assert env.observe("player_0")["observation"].shape == (size,)


def check_observation(env, agent, obs):
    """Every agent's observation against the engine, at every decision."""
    u = env.unwrapped
    g = u.game
    n = g.n
    for s, a in enumerate(env.possible_agents):
        o = env.observe(a)
        vec, mask = o["observation"], o["action_mask"]
        assert vec.dtype == np.float32 and mask.dtype == np.int8
        if a == agent:
            assert set(np.flatnonzero(mask)) == set(g.legal_actions())
            np.testing.assert_array_equal(mask, obs["action_mask"])
            np.testing.assert_array_equal(vec, obs["observation"])
        else:
            assert not mask.any()
        hand = obs_slice(env, vec, "hand")
        if g.decision is Decision.STARTER_SUIT:
            assert not hand.any()
        else:
            np.testing.assert_array_equal(hand, kind_counts(u.hand(a)))
        sizes = obs_slice(env, vec, "hand_sizes")
        held = g.hand_sizes
        expected = np.array([held[(s + k) % n] / 10 for k in range(n)], dtype=np.float32)
        np.testing.assert_allclose(sizes, expected)
        assert sizes[0] == pytest.approx(len(u.hand(a)) / 10)


@pytest.mark.parametrize(("preset", "n"), [("crates", 4), ("crates", 3), ("creights", 2)])
def test_observation_matches_the_engine_over_random_games(preset, n):
    env = crates_v0.env(preset=preset, num_players=n, deal_schedule=[5, 1, 3])
    rng = np.random.default_rng(8)
    for seed in range(2):
        random_game(env, rng, check_observation, seed=seed)


def test_observation_hand_and_mask_on_a_stacked_deal():
    env = crates_v0.env(deal_schedule=[1])
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    for a, card in zip(AGENTS4, ["JD", "5H", "AD", "QC"], strict=True):
        vec = env.observe(a)["observation"]
        hand = obs_slice(env, vec, "hand")
        assert np.flatnonzero(hand).tolist() == [parse_card(card)]
        top = obs_slice(env, vec, "top_card")
        assert np.flatnonzero(top).tolist() == [parse_card("KC")]
    mask = env.observe("player_3")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [parse_card("QC")]
    for a in AGENTS4[:3]:
        assert not env.observe(a)["action_mask"].any()


def starter_eight_env(hands):
    deck = deal_order(hands, dealer=0, starter="8H", stock=["4C", "4D", "4H", "4S"])
    env = crates_v0.env(deal_schedule=[2])
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    return env


def test_wild_starter_suit_hides_the_dealers_hand():
    env = starter_eight_env(STARTER_HANDS)
    g = env.unwrapped.game
    assert g.decision is Decision.STARTER_SUIT
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert not obs_slice(env, obs["observation"], "hand").any()
    assert np.flatnonzero(obs["action_mask"]).tolist() == [SUIT, SUIT + 1, SUIT + 2, SUIT + 3]
    decision = obs_slice(env, obs["observation"], "decision")
    assert np.flatnonzero(decision).tolist() == [int(Decision.STARTER_SUIT)]
    act(env, "suit S")
    # the suit is named: the hand shows again
    hand = obs_slice(env, env.observe("player_0")["observation"], "hand")
    np.testing.assert_array_equal(hand, kind_counts(["AC", "2D"]))


def test_wild_starter_suit_observation_does_not_depend_on_the_dealers_hand():
    """docs/rules.md P4: the dealer names the suit before seeing its hand, so nothing in its
    observation may depend on the hand. Swapping the dealer's cards with seat 1's (same sizes,
    same public cards) must give the dealer the same observation."""
    a = starter_eight_env(STARTER_HANDS)
    swapped = [STARTER_HANDS[1], STARTER_HANDS[0], *STARTER_HANDS[2:]]
    b = starter_eight_env(swapped)
    va = a.observe("player_0")["observation"]
    vb = b.observe("player_0")["observation"]
    layout = a.unwrapped.observation_layout()
    leaks = [
        name
        for name, (start, stop) in layout.items()
        if not np.array_equal(va[start:stop], vb[start:stop])
    ]
    assert leaks == [], f"the dealer's hidden hand leaks through {leaks}"


@pytest.mark.parametrize(
    ("preset", "n", "partner"),
    [
        ("crates", 4, [0, 0, 1, 0]),
        ("crates", 3, [0, 0, 0]),
        ("crates", 5, [0, 0, 0, 0, 0]),
        ("chicago1970", 4, [0, 0, 0, 0]),
        ("kreights", 4, [0, 0, 0, 0]),
    ],
)
def test_every_seat_observes_its_partners_relative_slot(preset, n, partner):
    env = crates_v0.env(preset=preset, num_players=n, deal_schedule=[3])
    env.reset(seed=0)
    for a in env.possible_agents:
        vec = env.observe(a)["observation"]
        assert obs_slice(env, vec, "partner").tolist() == partner


def test_relative_seats_on_a_stacked_deal():
    """Dealer 1 turns 5C: seats 2, 3, 0 draw one each (sizes 3, 2, 3, 3)."""
    deck = deal_order(
        [["AD", "3D"], ["2C", "KH"], ["10C", "QH"], ["4S", "7S"]], 1, "5C", ["6H", "6D", "6S"]
    )
    env = crates_v0.env(deal_schedule=[2])
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    sizes = [3, 2, 3, 3]
    for s, a in enumerate(AGENTS4):
        vec = env.observe(a)["observation"]
        got = obs_slice(env, vec, "hand_sizes")
        want = [sizes[(s + k) % 4] / 10 for k in range(4)]
        np.testing.assert_allclose(got, want)
        assert obs_slice(env, vec, "clockwise").tolist() == [1]


SPACE_CONFIGS = [
    ("crates", 4, {}),
    ("kreights", 5, {}),
    ("creights", 2, {}),
    ("craits", 12, {"deal_schedule": [4]}),
]


@pytest.mark.parametrize(("preset", "n", "options"), SPACE_CONFIGS)
def test_observations_stay_inside_the_observation_space(preset, n, options):
    options = {"deal_schedule": [8, 4, 1], **options}
    env = crates_v0.env(preset=preset, num_players=n, **options)
    space = env.observation_space("player_0")
    layout = env.unwrapped.observation_layout()
    rng = np.random.default_rng(0)

    def check(e, agent, obs):
        if not space.contains(obs):
            vec = obs["observation"]
            bad = np.flatnonzero(
                (vec < space["observation"].low) | (vec > space["observation"].high)
            )
            names = sorted({k for k, (a, b) in layout.items() for i in bad if a <= i < b})
            g = e.unwrapped.game
            pytest.fail(
                f"observation of {agent} leaves the space in slice(s) {names} "
                f"(hand {g.hand_index}, values {vec[bad].tolist()})"
            )

    for seed in range(2):
        random_game(env, rng, check, seed=seed)


def test_the_docs_observation_table_is_the_layout():
    """docs/env.md's table of slices, sizes, scales and meanings is SLICES, row for row."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "env.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \| ([^|]+) \| (.+) \|$", docs, re.MULTILINE)
    sizes = {"53": "53", "4": "4", "13": "13", "1": "1", "n": "n", "D": str(len(Decision))}
    expected = [
        (
            name,
            sizes[size],
            "value" if scale == 1 else "÷ deck size" if scale == "deck" else f"÷ {scale}",
            meaning,
        )
        for name, size, scale, meaning in SLICES
    ]
    names = {name for name, *_ in SLICES}
    assert [(n, s, st.strip(), m) for n, s, st, m in rows if n in names] == expected


# --- the whole state, for centralized critics -----------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("preset", "n", "options"),
    [("crates", 4, {}), ("kreights", 5, {}), ("zimbabwe", 6, {"zimbabwe_jokers": 8})],
)
def test_state_is_seat_0s_view_and_the_hidden_cards_within_state_space(preset, n, options):
    from pettingzoo.test.state_test import test_state, test_state_space

    env = crates_v0.env(preset=preset, num_players=n, deal_schedule=[3, 1], **options)
    test_state_space(env.unwrapped)
    test_state(seeded(crates_v0.env(illegal="terminate", **env.unwrapped.rules.options(),
                                    preset=preset, num_players=n)), num_cycles=50)  # fmt: skip
    raw = env.unwrapped
    with pytest.raises(ValueError, match="reset"):
        raw_env(preset=preset, num_players=n).state()
    rng = np.random.default_rng(1)

    def check(env, agent, obs):
        state = raw.state()
        public = raw.observe("player_0")["observation"]
        assert raw.state_space.contains(state)
        assert np.array_equal(state[: len(public)], public)
        hidden = state[len(public) :]
        others = hidden[: (n - 1) * 53].reshape(n - 1, 53)
        for i, seat in enumerate(range(1, n)):
            assert np.array_equal(others[i], kind_counts(raw.game.hand(seat)))

    random_game(env, rng, seed=3, on_step=check)

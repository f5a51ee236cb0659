"""The PettingZoo AEC environment's API (``crates_env.crates_v0``): PettingZoo's own API and seed
tests for every preset and player count, seeding and replays across processes, the one-card
modes, illegal actions and bad arguments, actions by name, the public state, truncation, and
infos of the same keys and shapes at every step. The stacked deals: ``tests/aec.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from crates_env import ANNOUNCE, DRAW, NUM_ACTIONS, crates_v0, parse_card
from crates_env.actions import SUIT
from crates_env.env import raw_env
from crates_env.events import texts

from .aec import (
    AGENTS4,
    ALL_CONFIGS,
    ONE_CARD_OPTIONS,
    act,
    obs_slice,
    one_card_env,
    random_game,
    seeded,
)
from .scripted import deal_order, log_texts

# --- 1. PettingZoo's API and seed tests ----------------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("preset", "n"), ALL_CONFIGS)
def test_pettingzoo_api_and_seed_tests_short_games(preset, n):
    kwargs = {"preset": preset, "num_players": n, "deal_schedule": [3, 1]}
    api_test(seeded(crates_v0.env(**kwargs)), num_cycles=100)
    seed_test(lambda: crates_v0.env(**kwargs), num_cycles=100)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_and_seed_tests_full_crates_game():
    env = seeded(crates_v0.env())
    api_test(env, num_cycles=100_000)
    seed_test(lambda: crates_v0.env(), num_cycles=100_000)
    # a random game of this length runs to the end: 15 hands, not truncated
    random_game(env, np.random.default_rng(0), seed=0)
    g = env.unwrapped.game
    assert g.game_over and not g.truncated and len(g.results) == 15


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("one_card", ["action", "auto"])
@pytest.mark.parametrize("reward_mode", ["points", "relative", "win"])
def test_pettingzoo_api_test_passes_in_every_reward_and_one_card_mode(reward_mode, one_card):
    env = crates_v0.env(deal_schedule=[2, 1], reward_mode=reward_mode, one_card=one_card)
    api_test(seeded(env), num_cycles=100)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_test_ansi_render_and_render_test():
    api_test(seeded(crates_v0.env(deal_schedule=[3, 1], render_mode="ansi")), num_cycles=100)
    render_test(lambda render_mode: crates_v0.env(deal_schedule=[3, 1], render_mode=render_mode))


# --- 2. seeding --------------------------------------------------------------------------------


def first_deal(seed: int, **kwargs):
    env = crates_v0.env(**kwargs)
    env.reset(seed=seed)
    u = env.unwrapped
    hands = [tuple(u.hand(a)) for a in env.possible_agents]
    obs = env.observe(env.agent_selection)["observation"]
    return hands, u.public_state()["top_card"], obs


def test_different_seeds_deal_different_games():
    hands1, _, obs1 = first_deal(1)
    hands2, _, obs2 = first_deal(2)
    assert hands1 != hands2
    assert not np.array_equal(obs1, obs2)
    deals = {tuple(first_deal(s)[0]) for s in range(8)}
    assert len(deals) == 8


def test_same_seed_same_first_deal_in_one_process():
    a, b = first_deal(7), first_deal(7)
    assert a[0] == b[0] and a[1] == b[1]
    np.testing.assert_array_equal(a[2], b[2])


def test_plain_resets_after_a_seeded_reset_replay_the_same_games():
    def two_games():
        env = crates_v0.env(deal_schedule=[3])
        env.reset(seed=11)
        g1 = [tuple(env.unwrapped.hand(a)) for a in env.possible_agents]
        env.reset()
        g2 = [tuple(env.unwrapped.hand(a)) for a in env.possible_agents]
        return g1, g2

    (a1, a2), (b1, b2) = two_games(), two_games()
    assert (a1, a2) == (b1, b2)
    assert a1 != a2


REPLAY_SCRIPT = """
import hashlib, sys
import numpy as np
from crates_env import crates_v0

preset, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = crates_v0.env(preset=preset, num_players=n, deal_schedule=[5, 2, 1, 3])
env.reset(seed=seed)
rng = np.random.default_rng(1234)
h = hashlib.sha256()
steps = 0
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
    h.update(agent.encode())
    h.update(obs["observation"].tobytes())
    h.update(obs["action_mask"].tobytes())
    h.update(repr((float(reward), term, trunc, action)).encode())
    env.step(action)
    steps += 1
h.update(repr(env.unwrapped.game.scores).encode())
print(h.hexdigest(), steps)
"""


def run_replays(args: list[str], hash_seeds: list[str]) -> list[str]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", REPLAY_SCRIPT, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": hs},
        )
        for hs in hash_seeds
    ]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        outs.append(out.strip())
    return outs


def test_same_seed_replays_identically_in_separate_processes():
    a, b = run_replays(["kreights", "4", "5"], ["0", "12345"])
    assert a == b
    steps = int(a.split()[1])
    assert steps > 20  # a real game was hashed
    # and the hash depends on the seed
    (c,) = run_replays(["kreights", "4", "6"], ["0"])
    assert c.split()[0] != a.split()[0]


# --- 5. one-card announcements -------------------------------------------------------------------


AUTO_CONFIGS = [
    ("crates", 4, {}),
    ("crates", 2, {}),
    ("chicago1970", 3, {}),
    ("kreights", 3, {}),
    ("craits", 4, {"craits_one_card_on_deal": True}),
    ("creights", 3, {}),
]


@pytest.mark.parametrize(("preset", "n", "options"), AUTO_CONFIGS)
def test_one_card_auto_never_offers_announce_and_never_penalises(preset, n, options):
    env = crates_v0.env(
        preset=preset, num_players=n, one_card="auto", deal_schedule=[4, 2, 1, 2], **options
    )
    rng = np.random.default_rng(5)
    two_card_plays = 0

    def check(e, agent, obs):
        nonlocal two_card_plays
        assert obs["action_mask"][ANNOUNCE] == 0
        assert ANNOUNCE not in e.unwrapped.game.legal_actions()
        if len(e.unwrapped.hand(agent)) == 2 and obs["action_mask"][:SUIT].any():
            two_card_plays += 1

    for seed in range(4):
        random_game(env, rng, check, seed=seed)
        logs = [line for log in log_texts(env.unwrapped.game.hand_logs) for line in log]
        assert not [line for line in logs if "missed the one-card call" in line]
        assert any("announces one card" in line for line in logs)
    assert two_card_plays > 0


def test_one_card_action_mode_offers_announce():
    env = crates_v0.env(deal_schedule=[4, 2, 1, 2])
    rng = np.random.default_rng(5)
    offered = 0

    def check(e, agent, obs):
        nonlocal offered
        offered += int(obs["action_mask"][ANNOUNCE])

    for seed in range(3):
        random_game(env, rng, check, seed=seed)
    assert offered > 0


def test_one_card_auto_announces_for_a_two_card_play():
    # seat 1 holds two cards and plays one: auto announces, no penalty
    deck = deal_order([["KS", "QS"], ["JC", "4H"], ["7D", "6D"], ["2H", "3H"]], 0, "10C")
    for mode, missed in (("auto", False), ("action", True)):
        env = crates_v0.env(deal_schedule=[2, 8], one_card=mode)
        env.reset(seed=0, options={"deck": deck, "dealer": 0})
        # 10C reverses: the dealer's right (seat 3) plays first; it cannot, seat 2 neither
        assert env.agent_selection == "player_3"
        act(env, "draw")
        act(env, "draw")
        assert env.agent_selection == "player_1"
        offered = bool(env.observe("player_1")["action_mask"][ANNOUNCE])
        assert offered == (mode == "action")
        act(env, "play JC")
        events = texts(env.unwrapped.game.events)
        assert ("p1 missed the one-card call" in events) is missed
        assert ("p1 announces one card" in events) is not missed


# --- 6. illegal actions and bad arguments --------------------------------------------------------


def test_illegal_action_raises_naming_the_action_and_the_legal_ones():
    env = one_card_env()
    with pytest.raises(ValueError, match="play 8S") as info:
        act(env, "play 8S")
    message = str(info.value)
    assert "player_3" in message
    assert "legal" in message and "play QC" in message
    # nothing changed: the same agent acts and the legal action still works
    assert env.agent_selection == "player_3"
    assert env.unwrapped.game.action_names() == ["play QC"]
    act(env, "play QC")
    assert all(env.terminations.values())


def test_illegal_action_raw_env_rejects_out_of_range_and_wrong_decision():
    env = raw_env(deal_schedule=[1])
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    with pytest.raises(ValueError, match="suit H"):
        env.step(SUIT + 2)
    with pytest.raises(ValueError, match="draw"):
        env.step(DRAW)
    with pytest.raises(ValueError):
        env.step(NUM_ACTIONS)


@pytest.mark.parametrize("illegal_reward", [None, -5.0])
def test_illegal_terminate_ends_the_game_and_charges_the_offender_alone(illegal_reward):
    kwargs = {} if illegal_reward is None else {"illegal_reward": illegal_reward}
    env = one_card_env(illegal="terminate", **kwargs)
    act(env, "play 8S")
    penalty = -1.0 if illegal_reward is None else illegal_reward
    assert all(env.terminations.values())
    assert env.rewards["player_3"] == penalty
    assert all(env.rewards[a] == 0 for a in AGENTS4[:3])
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        seen[agent] = reward
        env.step(None)
    assert seen == {"player_0": 0, "player_1": 0, "player_2": 0, "player_3": penalty}


@pytest.mark.parametrize(
    ("kwargs", "valid"),
    [
        ({"reward_mode": "x"}, "points, relative, win"),
        ({"one_card": "x"}, "action, auto"),
        ({"render_mode": "x"}, "None, ansi, human"),
        ({"preset": "nope"}, "crates, chicago1970, kreights, craits, creights"),
        ({"illegal": "x"}, "raise, terminate"),
        ({"num_players": 7}, "2 to 5"),
        ({"bogus_option": True}, "valid options"),
    ],
)
def test_a_bad_constructor_argument_is_a_value_error_naming_it_and_the_choices(kwargs, valid):
    with pytest.raises(ValueError, match=re.escape(valid)) as info:
        crates_v0.env(**kwargs)
    name, bad = next(iter(kwargs.items()))
    assert repr(bad if name != "bogus_option" else name) in str(info.value)


# --- 8. actions, public state, rendering ---------------------------------------------------------


def test_decode_encode_round_trip_for_every_action():
    env = raw_env()
    names = [env.decode_action(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS == 63
    for a, name in enumerate(names):
        assert env.encode_action(name) == a
    assert names[parse_card("8S")] == "play 8S"
    assert names[parse_card("10H")] == "play 10H"
    assert names[52] == "play JK"
    assert names[SUIT : SUIT + 4] == ["suit C", "suit D", "suit H", "suit S"]
    assert names[57] == "draw" and names[58] == "announce"
    assert DRAW == 57 and ANNOUNCE == 58
    assert names[59:] == ["pass", "reverse permanent", "reverse once", "stop"]
    with pytest.raises(ValueError):
        env.decode_action(63)
    with pytest.raises(ValueError):
        env.encode_action("fold")


def test_public_state_on_a_stacked_deal():
    """Dealer 1 turns 5C: seats 2, 3, 0 draw 6H, 6D, 6S. Seat 2 plays 10C (reverse), seat 1
    plays 2C (count 2), seat 0 must add to the count or draw it."""
    deck = deal_order(
        [["AD", "3D"], ["2C", "KH"], ["10C", "QH"], ["4S", "7S"]], 1, "5C", ["6H", "6D", "6S"]
    )
    env = crates_v0.env(deal_schedule=[2])
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    u = env.unwrapped
    state = u.public_state()
    expected_keys = {
        "hand_sizes",
        "stock_size",
        "discard_size",
        "top_card",
        "current_suit",
        "direction",
        "count",
        "scores",
        "pressures",
        "hand_index",
        "dealer",
    }
    assert expected_keys <= set(state)
    assert {k: state[k] for k in expected_keys} == {
        "hand_sizes": [3, 2, 3, 3],
        "stock_size": 52 - 8 - 1 - 3,
        "discard_size": 1,
        "top_card": "5C",
        "current_suit": "C",
        "direction": 1,
        "count": 0,
        "scores": [0, 0, 0, 0],
        "pressures": [0, 0, 0, 0],
        "hand_index": 0,
        "dealer": 1,
    }
    assert state["to_play"] == 2 and state["decision"] == "play"
    assert sorted(u.hand("player_2")) == sorted(["10C", "QH", "6H"])
    assert sorted(u.hand("player_0")) == sorted(["AD", "3D", "6S"])
    assert env.agent_selection == "player_2"
    act(env, "play 10C")
    state = u.public_state()
    assert (state["top_card"], state["direction"], state["to_play"]) == ("10C", -1, 1)
    assert state["hand_sizes"] == [3, 2, 2, 3]
    assert state["discard_size"] == 2
    vec = env.observe("player_1")["observation"]
    assert obs_slice(env, vec, "clockwise").tolist() == [0]
    act(env, "play 2C")
    state = u.public_state()
    assert (state["top_card"], state["count"], state["to_play"]) == ("2C", 2, 0)
    assert state["hand_sizes"] == [3, 1, 2, 3]
    assert u.game.action_names() == ["play AD"]  # no draw while a count card is held
    vec = env.observe("player_0")["observation"]
    assert obs_slice(env, vec, "count").tolist() == pytest.approx([2 / 12])
    assert obs_slice(env, vec, "pending_draw").tolist() == pytest.approx([2 / 12])


def test_public_state_scores_after_a_hand():
    env = one_card_env(deal_schedule=[1, 8])
    act(env, "play QC")
    state = env.unwrapped.public_state()
    assert state["scores"] == [11, 30, 11, 30]
    assert state["hand_index"] == 1
    assert state["dealer"] == 3  # the deal passes left
    assert state["deal_size"] == 8


# --- 9. truncation -------------------------------------------------------------------------------


@pytest.mark.parametrize("reward_mode", ["points", "win"])
def test_truncation_ends_the_game_with_every_agent_truncated(reward_mode):
    env = crates_v0.env(deal_schedule=[8], max_decisions_per_hand=5, reward_mode=reward_mode)
    rng = np.random.default_rng(0)
    steps = random_game(env, rng, seed=3)
    assert steps == 5
    g = env.unwrapped.game
    assert g.truncated and g.game_over and g.results == []

    env.reset(seed=3)
    for _ in range(5):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert all(env.truncations.values())
    assert not any(env.terminations.values())
    assert env.rewards == dict.fromkeys(AGENTS4, 0.0)
    _, _, term, trunc, _ = env.last()
    assert trunc and not term


def test_infos_have_the_same_keys_and_shapes_at_every_step():
    """A replay buffer stores infos as columns: every agent's info has the same numeric keys
    and shapes always, zeros unless a hand ended on that step."""
    env = raw_env(deal_schedule=[2, 1])
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    ended = 0
    while not env.game.game_over:
        for info in env.infos.values():
            assert set(info) == {"hands_ended", "hand_points", "ended_by", "went_out"}
            assert info["hand_points"].shape == (4,) and info["hand_points"].dtype == np.float64
            assert all(type(info[k]) is int for k in ("hands_ended", "ended_by", "went_out"))
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        ended += env.infos["player_0"]["hands_ended"]
    assert ended == 2 == len(env.hand_summaries)

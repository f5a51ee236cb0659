"""Tests of the PettingZoo AEC environment (``crates_env.crates_v0``) and the Gymnasium wrapper.

PettingZoo's own API and seed tests run for every preset and player count; stacked deals
(``reset(options={"deck": ..., "dealer": k})``) pin down exact rewards, hand summaries,
observations and the public state; random games over the action mask check invariants; the
Gymnasium wrapper is checked with Gymnasium's and SB3's env checkers and a short MaskablePPO run.

Seats in the stacked deals: ``deal_order(hands, dealer, starter, stock)`` deals ``hands[seat]``
to each seat, turns ``starter`` and puts ``stock`` (top first) on the stock. The player left of
the dealer acts first unless the starter says otherwise.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from crates_env import ANNOUNCE, DRAW, NUM_ACTIONS, Decision, crates_v0, parse_card
from crates_env.actions import SUIT
from crates_env.cards import SUIT_SYMBOLS, card_code, pretty
from crates_env.env import raw_env
from crates_env.events import texts
from crates_env.observation import SLICES
from crates_env.rules import PLAYER_COUNTS, PRESETS
from crates_env.scoring import score_hand
from crates_env.state import HAND_ENDINGS
from crates_env.wrappers import CratesGymEnv, UniformRandom

from .scripted import deal_order, log_texts, tiny_maskable_ppo

ALL_CONFIGS = [(preset, n) for preset in PRESETS for n in PLAYER_COUNTS[preset]]
AGENTS4 = ["player_0", "player_1", "player_2", "player_3"]


# --- helpers -------------------------------------------------------------------------------------


def act(env, text: str) -> None:
    """Step the acting agent with an action given by name."""
    env.step(env.unwrapped.encode_action(text))


def random_game(env, rng, on_step=None, seed=None, options=None) -> int:
    """Play one game with a random policy over the mask; ``on_step(env, agent, obs)`` sees every
    live agent before it acts. Returns the number of actions taken."""
    env.reset(seed=seed, options=options)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if on_step is not None:
            on_step(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


def kind_counts(codes: list[str]) -> np.ndarray:
    counts = np.zeros(53, dtype=np.float32)
    for code in codes:
        counts[parse_card(code)] += 1
    return counts


def seeded(env, seed: int = 0):
    """Seed every agent's action space: PettingZoo's api_test samples actions from them, so the
    test plays the same game every run."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    return env


def obs_slice(env, obs: np.ndarray, name: str) -> np.ndarray:
    start, stop = env.unwrapped.observation_layout()[name]
    return obs[start:stop]


# Crates, 4 players, one 1-card hand; dealer 2, so seat 3 acts first and goes out with QC on KC.
# Seat 0 keeps JD (10), seat 1 keeps 5H (30), seat 2 keeps AD (1): team 0 (seats 0 & 2) 11 points,
# team 1 (seats 1 & 3) 30 points.
ONE_CARD_DEAL = deal_order([["JD"], ["5H"], ["AD"], ["QC"]], dealer=2, starter="KC")
ONE_CARD_OPTIONS = {"deck": ONE_CARD_DEAL, "dealer": 2}


def one_card_env(**kwargs):
    kwargs.setdefault("deal_schedule", [1])
    env = crates_v0.env(**kwargs)
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    assert env.agent_selection == "player_3"
    assert env.unwrapped.game.action_names() == ["play QC"]
    return env


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
def test_pettingzoo_api_test_modes(reward_mode, one_card):
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


# --- 3. rewards ----------------------------------------------------------------------------------


def test_points_reward_reaches_every_agent_on_the_final_step():
    env = one_card_env()
    act(env, "play QC")
    expected = {"player_0": -11.0, "player_1": -30.0, "player_2": -11.0, "player_3": -30.0}
    assert env.rewards == expected
    assert all(env.terminations.values()) and not any(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc
        seen[agent] = reward
        env.step(None)
    assert seen == expected
    assert env.unwrapped.game.scores == [11, 30]


def test_reward_is_collected_by_last_at_the_agents_next_turn():
    """A hand ends on player_3's move; every agent's ``last()`` at its next turn (next hand)
    returns its reward for that hand, and partners share it."""
    env = one_card_env(deal_schedule=[1, 8])
    act(env, "play QC")
    expected = {"player_0": -11.0, "player_1": -30.0, "player_2": -11.0, "player_3": -30.0}
    assert env.rewards == expected
    assert env._cumulative_rewards == expected
    assert not any(env.terminations.values())
    first_reward = {}
    for agent in env.agent_iter(max_iter=60):
        obs, reward, _, _, _ = env.last()
        first_reward.setdefault(agent, reward)
        if len(first_reward) == 4:
            break
        assert len(env.unwrapped.game.results) == 1  # no second hand finished meanwhile
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert first_reward == expected


@pytest.mark.parametrize(
    ("reward_mode", "scale", "expected"),
    [
        ("points", 1.0, [-11, -30, -11, -30]),
        ("points", 0.01, [-0.11, -0.30, -0.11, -0.30]),
        ("relative", 1.0, [19, -19, 19, -19]),
        ("relative", 0.5, [9.5, -9.5, 9.5, -9.5]),
        ("win", 1.0, [1, -1, 1, -1]),
        ("win", 2.0, [2, -2, 2, -2]),
    ],
)
def test_reward_modes_and_scale_partnership(reward_mode, scale, expected):
    env = one_card_env(reward_mode=reward_mode, reward_scale=scale)
    act(env, "play QC")
    got = [env.rewards[a] for a in AGENTS4]
    assert got == pytest.approx(expected)
    assert env.rewards["player_0"] == env.rewards["player_2"]
    assert env.rewards["player_1"] == env.rewards["player_3"]


# Crates, 3 players, one 1-card hand; dealer 1: seat 2 goes out with QC on KC; seat 0 keeps 5H (30),
# seat 1 keeps JD (10).
THREE_DEAL = {"deck": deal_order([["5H"], ["JD"], ["QC"]], dealer=1, starter="KC"), "dealer": 1}


@pytest.mark.parametrize(
    ("reward_mode", "expected"),
    [
        ("points", [-30, -10, 0]),
        ("relative", [(10 + 0) / 2 - 30, (30 + 0) / 2 - 10, (30 + 10) / 2 - 0]),
        ("win", [-1, 0, 1]),
    ],
)
def test_reward_modes_three_players(reward_mode, expected):
    env = crates_v0.env(num_players=3, deal_schedule=[1], reward_mode=reward_mode)
    env.reset(seed=0, options=THREE_DEAL)
    assert env.agent_selection == "player_2"
    act(env, "play QC")
    assert [env.rewards[f"player_{s}"] for s in range(3)] == pytest.approx(expected)
    assert env.unwrapped.game.scores == [30, 10, 0]


def test_win_reward_ties_share_their_ranks():
    deck = deal_order([["JH"], ["JD"], ["QC"]], dealer=1, starter="KC")  # scores 10, 10, 0
    env = crates_v0.env(num_players=3, deal_schedule=[1], reward_mode="win")
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    act(env, "play QC")
    assert [env.rewards[f"player_{s}"] for s in range(3)] == pytest.approx([-0.5, -0.5, 1.0])


def test_win_mode_gives_nothing_per_hand():
    env = one_card_env(reward_mode="win", deal_schedule=[1, 8])
    act(env, "play QC")
    assert env.rewards == dict.fromkeys(AGENTS4, 0.0)
    assert env.infos["player_0"]["hands_ended"] == 1  # the hand just ended


@pytest.mark.parametrize("reward_timing", ["hand", "event"])
@pytest.mark.parametrize("reward_mode", ["points", "relative"])
@pytest.mark.parametrize(("preset", "n"), [("crates", 4), ("crates", 3), ("kreights", 4)])
def test_rewards_sum_to_the_final_scores_over_random_games(preset, n, reward_mode, reward_timing):
    """What each agent collects through ``last()`` over a game adds up to its side's result,
    whenever pressures are paid; partners receive equal rewards at every step."""
    env = crates_v0.env(
        preset=preset,
        num_players=n,
        deal_schedule=[8, 4, 2, 1],
        reward_mode=reward_mode,
        reward_timing=reward_timing,
    )
    rules = env.unwrapped.rules
    rng = np.random.default_rng(3)
    for seed in range(3):
        totals = dict.fromkeys(env.possible_agents, 0.0)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if rules.partnerships:
                assert env.rewards["player_0"] == env.rewards["player_2"]
                assert env.rewards["player_1"] == env.rewards["player_3"]
        teams = env.unwrapped.game.scores
        for s, a in enumerate(env.possible_agents):
            own = teams[rules.team_of(s)]
            others = [v for t, v in enumerate(teams) if t != rules.team_of(s)]
            if reward_mode == "points":
                assert totals[a] == pytest.approx(-own)
            else:
                assert totals[a] == pytest.approx(sum(others) / len(others) - own)


@pytest.mark.parametrize(
    ("reward_mode", "expected"), [("points", [-5, 0, -5, 0]), ("relative", [-5, 5, -5, 5])]
)
def test_event_timing_pays_a_pressure_on_the_step_it_is_taken(reward_mode, expected):
    """p0 cannot follow JC with the stock empty: it draws, takes its side's first pressure (5)
    and the hand goes on with the reshuffled QC and KC. With ``reward_timing="event"`` the 5
    points are paid on that step; the hand's end pays the cards only."""
    env = crates_v0.raw_env(reward_mode=reward_mode, reward_timing="event", deal_schedule=[4])
    env.reset(seed=0)
    g = env.game
    hands = [["4H", "5H"], ["6D", "7D"], ["10S", "4S"], ["5D", "AC"]]
    g.set_position(hands, stock=[], discard=["KC", "QC", "JC"], turn=0)
    env.agent_selection = "player_0"
    act(env, "draw")
    assert texts(g.events)[-3:] == ["pressure p0 +5", "reshuffle 2", "p0 draws 1"]
    assert [env.rewards[a] for a in AGENTS4] == expected
    assert not g.results
    paid = dict(zip(AGENTS4, expected, strict=True))
    while not g.results:
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        for a in AGENTS4:
            paid[a] += env.rewards[a]
    points = g.results[0].team_points
    sign = {"points": lambda own, other: -own, "relative": lambda own, other: other - own}
    want = [sign[reward_mode](points[s % 2], points[1 - s % 2]) for s in range(4)]
    assert [paid[a] for a in AGENTS4] == want


def test_bad_reward_timing_names_the_choices():
    with pytest.raises(ValueError, match=r"reward_timing='later'.*hand, event"):
        crates_v0.raw_env(reward_timing="later")


# --- 4. hand summaries in infos ------------------------------------------------------------------


def _numbers(info: dict) -> dict:
    """An info with its points array as a list, to compare."""
    return {**info, "hand_points": info["hand_points"].tolist()}


NO_HAND = {"hands_ended": 0, "hand_points": [0.0] * 4, "ended_by": 0, "went_out": -1}


def test_infos_say_in_numbers_what_hand_ended_on_the_step():
    env = one_card_env(deal_schedule=[1, 8])
    assert all(_numbers(env.infos[a]) == NO_HAND for a in AGENTS4)
    assert env.unwrapped.hand_summaries == []
    act(env, "play QC")
    expected = {
        "hand_index": 0,
        "deal_size": 1,
        "ended_by": "out",
        "went_out": 3,
        "card_points": [10, 30, 1, 0],
        "pressure_points": [0, 0, 0, 0],
        "pressures": [0, 0, 0, 0],
        "points": [11, 30, 11, 30],
        "stars": [0, 0, 0, 0],
    }
    ended = {"hands_ended": 1, "hand_points": [11.0, 30.0, 11.0, 30.0], "went_out": 3}
    ended["ended_by"] = HAND_ENDINGS.index("out")
    for a in AGENTS4:
        assert _numbers(env.infos[a]) == ended
    _, _, _, _, info = env.last()
    assert _numbers(info) == ended
    assert env.unwrapped.hand_summaries == [expected]  # the full record
    # the next step clears the infos; the records stay for the game
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(_numbers(env.infos[a]) == NO_HAND for a in AGENTS4)
    assert env.unwrapped.hand_summaries == [expected]
    env.reset(seed=1)
    assert env.unwrapped.hand_summaries == []


def test_infos_hand_summary_with_stars_kreights():
    deck = deal_order([["5H"], ["JD"], ["QC"]], dealer=1, starter="KC")
    env = crates_v0.env(preset="kreights", num_players=3, deal_schedule=[1])
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    act(env, "play QC")
    (summary,) = env.unwrapped.hand_summaries
    assert env.infos["player_0"]["went_out"] == 2
    assert summary["stars"] == [0, 0, 1]
    assert summary["points"] == [30, 10, 0]
    assert summary["went_out"] == 2
    assert env.unwrapped.public_state()["stars"] == [0, 0, 1]


def test_infos_hand_summary_with_a_pressure():
    """Crates, 5 players, 10 cards each: the stock holds one card. Seats 1 and 2 cannot play on
    KC; seat 1 draws the last stock card, seat 2 finds nothing to reshuffle: a pressure (5) for
    seat 2 and the hand ends."""
    no_play = ["A", "2", "3", "4", "5", "6", "7", "10", "J", "Q"]
    seat1 = [r + "D" for r in no_play]
    seat2 = [r + "H" for r in no_play]
    used = {*seat1, *seat2, "KC"}
    rest = [card_code(k) for k in range(52) if card_code(k) not in used]
    seat3, seat4, seat0, stock = rest[:10], rest[10:20], rest[20:30], rest[30:]
    assert len(stock) == 1
    deck = deal_order([seat0, seat1, seat2, seat3, seat4], dealer=0, starter="KC", stock=stock)
    env = crates_v0.env(num_players=5, deal_schedule=[10])
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    assert env.agent_selection == "player_1"
    act(env, "draw")
    assert env.agent_selection == "player_2"
    act(env, "draw")
    assert all(env.terminations.values())
    (summary,) = env.unwrapped.hand_summaries
    assert env.infos["player_4"]["ended_by"] == HAND_ENDINGS.index("pressure")
    assert summary["ended_by"] == "pressure"
    assert summary["pressures"] == [0, 0, 1, 0, 0]
    assert summary["pressure_points"] == [0, 0, 5, 0, 0]
    cards = [score_hand(env.unwrapped.hand(f"player_{s}")) for s in range(5)]
    assert summary["card_points"] == cards
    assert cards[2] == 134  # the hearts: 161 minus the 3-covered 5 (30), plus 3
    assert summary["points"] == [cards[0], cards[1], cards[2] + 5, cards[3], cards[4]]
    assert env.rewards["player_2"] == -(cards[2] + 5)
    assert env.unwrapped.public_state()["pressures"] == [0, 0, 1, 0, 0]


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
def test_illegal_terminate_mode(illegal_reward):
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
def test_bad_constructor_arguments(kwargs, valid):
    with pytest.raises(ValueError, match=re.escape(valid)) as info:
        crates_v0.env(**kwargs)
    name, bad = next(iter(kwargs.items()))
    assert repr(bad if name != "bogus_option" else name) in str(info.value)


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


STARTER_HANDS = [["AC", "2D"], ["KH", "QH"], ["5S", "6S"], ["7D", "JC"]]


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
def test_partner_slot(preset, n, partner):
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


def test_render_ansi_shows_top_card_and_scores():
    deck = ONE_CARD_DEAL
    env = crates_v0.env(deal_schedule=[1, 8], render_mode="ansi")
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    text = env.render()
    assert isinstance(text, str)
    assert "K♣" in text
    assert "suit ♣" in text
    act(env, "play QC")
    text = env.render()
    top = env.unwrapped.public_state()["top_card"]
    assert pretty(parse_card(top)) in text
    assert any(symbol in text for symbol in SUIT_SYMBOLS)
    for seat, score in enumerate([11, 30, 11, 30]):
        assert re.search(rf"p{seat} \(team {seat % 2}\)\s+\d+\s+{score}\s+0", text), text


def test_render_ansi_eight_of_hearts():
    env = crates_v0.env(deal_schedule=[2], render_mode="ansi")
    deck = deal_order(STARTER_HANDS, dealer=0, starter="8H")
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    text = env.render()
    assert "8♥" in text
    assert "name the starter's suit" in text


def test_render_human_prints(capsys):
    env = crates_v0.env(deal_schedule=[1], render_mode="human")
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    assert "K♣" in capsys.readouterr().out  # reset renders
    assert env.render() is None
    out = capsys.readouterr().out
    assert "K♣" in out and "p3 to play" in out
    act(env, "play QC")
    out = capsys.readouterr().out
    assert "Q♣" in out and "game over" in out


def test_render_without_mode_returns_none():
    env = crates_v0.env(deal_schedule=[1])
    env.reset(seed=0)
    assert env.render() is None


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


# --- 10. the Gymnasium wrapper ---------------------------------------------------------------


def test_gymnasium_make_builds_the_wrapper():
    env = gymnasium.make("Crates-v0", deal_schedule=[3, 1], num_players=3)
    assert isinstance(env.unwrapped, CratesGymEnv)
    assert env.unwrapped.rules.num_players == 3
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 0


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_env_checker():
    env = gymnasium.make("Crates-v0", deal_schedule=[3, 1])
    from gymnasium.utils.env_checker import check_env

    check_env(env.unwrapped)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sb3_env_checker():
    from stable_baselines3.common.env_checker import check_env

    check_env(CratesGymEnv(deal_schedule=[3, 1]))


def test_wrapper_illegal_action_is_penalised_or_raised():
    env = CratesGymEnv(deal_schedule=[3, 1])
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = (env.aec.game.hand_sizes, list(texts(env.aec.game.events)))
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, False, False, True)
    assert np.array_equal(obs, obs2)
    assert (env.aec.game.hand_sizes, texts(env.aec.game.events)) == before
    strict = CratesGymEnv(deal_schedule=[3, 1], illegal_action="raise")
    strict.reset(seed=4)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="illegal_action"):
        CratesGymEnv(illegal_action="ignore")


def play_wrapper(env, rng, on_step=None, seed=None, options=None, max_steps=10_000):
    obs, info = env.reset(seed=seed, options=options)
    if on_step:
        on_step(env, obs, 0.0, info)
    for _ in range(max_steps):
        mask = env.action_masks()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if on_step:
            on_step(env, obs, reward, info)
        if term or trunc:
            return obs, reward, term, trunc, info
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("preset", "n"), [("crates", 4), ("crates", 3), ("kreights", 5)])
def test_wrapper_action_masks_match_the_learners_decision(preset, n):
    env = CratesGymEnv(preset=preset, num_players=n, deal_schedule=[4, 1], learner_seat=1)
    rng = np.random.default_rng(0)
    partner = 3 if env.rules.partnerships else 1
    total = {"reward": 0.0}

    def check(e, obs, reward, info):
        total["reward"] += reward
        g = e.aec.game
        assert e.observation_space.contains(obs)
        if g.game_over:
            assert not e.action_masks().any()
            return
        assert g.to_play in (1, partner)
        agent = e.aec.agent_selection
        assert agent == f"player_{g.to_play}"
        aec_obs = e.aec.observe(agent)
        np.testing.assert_array_equal(e.action_masks(), aec_obs["action_mask"].astype(bool))
        assert set(np.flatnonzero(e.action_masks())) == set(g.legal_actions())
        np.testing.assert_array_equal(obs, aec_obs["observation"])
        assert e.action_masks().dtype == bool and e.action_masks().shape == (NUM_ACTIONS,)

    for seed in range(3):
        total["reward"] = 0.0
        play_wrapper(env, rng, check, seed=seed)
        # the learner got every hand's reward: the sum is minus its side's final score
        assert total["reward"] == pytest.approx(-env.aec.game.seat_scores()[1])


# Crates, 3 players, dealer 2: the learner (seat 0) acts first on KC with only 5H, so it draws
# (4D). Seat 1 then goes out with QC: the hand ends on an opponent's move.
OPPONENT_OUT_DEAL = {
    "deck": deal_order([["5H"], ["QC"], ["JD"]], dealer=2, starter="KC", stock=["4D"]),
    "dealer": 2,
}


@pytest.mark.parametrize("schedule", [[1], [1, 8]])
def test_wrapper_reward_reaches_the_learner_when_an_opponent_ends_the_hand(schedule):
    env = CratesGymEnv(num_players=3, deal_schedule=schedule, learner_seat=0)
    _, info = env.reset(seed=0, options=OPPONENT_OUT_DEAL)
    keys = {"seat", "hands_ended", "hand_points", "ended_by", "went_out", "action_mask"}
    assert info.keys() == keys
    assert (info["seat"], info["hands_ended"]) == (0, 0)
    assert np.flatnonzero(env.action_masks()).tolist() == [DRAW]
    assert np.flatnonzero(info["action_mask"]).tolist() == [DRAW]
    _, reward, term, trunc, info = env.step(DRAW)
    assert reward == -45.0  # 5H (30) + 4D (15)
    assert term is (schedule == [1]) and trunc is False
    assert info["hands_ended"] == 1 and info["went_out"] == 1
    assert info["hand_points"].tolist() == [45, 0, 10]
    (hand,) = env.aec.hand_summaries
    assert hand["went_out"] == 1 and hand["points"] == [45, 0, 10]
    assert info["seat"] == 0
    if schedule == [1, 8]:
        assert env.aec.game.to_play == 0
        assert env.action_masks().any()


def test_wrapper_reward_of_a_hand_that_ends_before_the_learners_first_decision():
    """Dealer 0: seat 1 acts first and goes out; the learner (seat 0) first decides in hand 2, and
    its first step returns hand 1's reward."""
    deck = deal_order([["5H"], ["QC"], ["JD"]], dealer=0, starter="KC")
    env = CratesGymEnv(num_players=3, deal_schedule=[1, 8], learner_seat=0)
    _, info = env.reset(seed=0, options={"deck": deck, "dealer": 0})
    assert info["hands_ended"] == 1 and info["hand_points"].tolist() == [30, 0, 10]
    (hand,) = env.aec.hand_summaries
    assert hand["points"] == [30, 0, 10]
    assert env.aec.game.hand_index == 1 and env.aec.game.to_play == 0
    _, reward, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert reward == -30.0
    assert info["hands_ended"] == 0


def test_wrapper_reset_with_a_deal_that_ends_the_game_before_the_learner_acts():
    """A one-hand stacked deal that seat 1 wins before the learner (seat 0) ever decides."""
    deck = deal_order([["5H"], ["QC"], ["JD"]], dealer=0, starter="KC")
    env = CratesGymEnv(num_players=3, deal_schedule=[1], learner_seat=0)
    with pytest.raises(ValueError, match="before the learner's first decision"):
        env.reset(seed=0, options={"deck": deck, "dealer": 0})


def test_wrapper_random_learner_seat_varies_over_resets():
    env = CratesGymEnv(num_players=3, deal_schedule=[2], learner_seat="random")
    seats = []
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seats.append(info["seat"])
        assert env.aec.game.to_play == info["seat"]
    assert set(seats) == {0, 1, 2}
    # a seeded reset draws the same seat
    again = [env.reset(seed=seed)[1]["seat"] for seed in range(12)]
    assert again == seats


@pytest.mark.parametrize(("partner_is_learner", "learner_seats"), [(True, {0, 2}), (False, {0})])
def test_wrapper_partner_is_learner(partner_is_learner, learner_seats):
    env = CratesGymEnv(deal_schedule=[5, 2], partner_is_learner=partner_is_learner)
    rng = np.random.default_rng(1)
    seen = set()

    def check(e, obs, reward, info):
        g = e.aec.game
        if not g.game_over:
            seen.add(g.to_play)

    for seed in range(3):
        play_wrapper(env, rng, check, seed=seed)
    assert seen == learner_seats


def test_wrapper_partner_is_learner_ignored_without_partnerships():
    env = CratesGymEnv(num_players=3, deal_schedule=[4])
    assert env.partner_is_learner is False
    rng = np.random.default_rng(2)
    seen = set()

    def check(e, *_):
        if not e.aec.game.game_over:
            seen.add(e.aec.game.to_play)

    play_wrapper(env, rng, check, seed=0)
    assert seen == {0}


class _Recorder(UniformRandom):
    def __init__(self, seed):
        super().__init__(seed)
        self.calls = 0
        self.resets = 0

    def act(self, observation, action_mask):
        self.calls += 1
        assert action_mask.any()
        return super().act(observation, action_mask)

    def reset(self):
        self.resets += 1


def test_wrapper_opponents_per_seat():
    opps = [None, _Recorder(1), _Recorder(2)]
    env = CratesGymEnv(num_players=3, deal_schedule=[3, 1], opponents=opps)
    play_wrapper(env, np.random.default_rng(0), seed=0)
    assert opps[1].calls > 0 and opps[2].calls > 0
    assert opps[1].resets == 1 and opps[2].resets == 1


@pytest.mark.parametrize("seat", [4, -1, "x", 1.5, None])
def test_wrapper_bad_learner_seat(seat):
    with pytest.raises(ValueError, match="learner_seat"):
        CratesGymEnv(learner_seat=seat)


def test_wrapper_bad_opponents_length():
    with pytest.raises(ValueError, match=r"one entry per seat \(4\), got 3"):
        CratesGymEnv(opponents=[None, UniformRandom(), UniformRandom()])


def test_wrapper_truncation():
    env = CratesGymEnv(deal_schedule=[8], max_decisions_per_hand=5)
    *_, term, trunc, _ = play_wrapper(env, np.random.default_rng(0), seed=0)
    assert trunc and not term


def test_wrapper_win_mode_terminal_reward():
    env = CratesGymEnv(num_players=3, deal_schedule=[1], reward_mode="win")
    env.reset(seed=0, options=OPPONENT_OUT_DEAL)
    _, reward, term, _, _ = env.step(DRAW)
    assert term and reward == -1.0  # 45 points, the worst score


# --- 11. a short MaskablePPO run -----------------------------------------------------------------


def test_maskable_ppo_learns_briefly_and_predicts_a_legal_action():
    model, env = tiny_maskable_ppo(128)
    assert model.num_timesteps >= 128
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, term, trunc, _ = env.step(int(action))
        if term or trunc:
            obs, _ = env.reset()


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


def test_gymnasium_wrapper_gives_the_mask_in_info_too():
    env = CratesGymEnv(deal_schedule=[3, 1])
    _, info = env.reset(seed=2)
    assert np.array_equal(info["action_mask"], env.action_masks())
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert np.array_equal(info["action_mask"], env.action_masks())
        if terminated or truncated:
            break


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

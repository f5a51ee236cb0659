"""What the AEC environment pays and says: rewards by mode, scale and timing on stacked deals,
rewards that add up to the final scores over random games, and the infos that say in numbers
which hand ended on a step. The stacked deals: ``tests/aec.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from crates_env import crates_v0
from crates_env.cards import card_code
from crates_env.events import texts
from crates_env.scoring import score_hand
from crates_env.state import HAND_ENDINGS

from .aec import AGENTS4, act, one_card_env
from .scripted import deal_order

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

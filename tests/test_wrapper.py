"""The Gymnasium wrapper (``Crates-v0``, ``crates_env.wrappers.CratesGymEnv``): one learning
seat, the others played inside; Gymnasium's and SB3's env checkers, illegal actions, action
masks, the learner's rewards when another seat ends a hand, learner seats and partners,
opponents per seat, and a short MaskablePPO run that learns. The stacked deals: ``tests/aec.py``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch

from crates_env import DRAW, NUM_ACTIONS
from crates_env.events import texts
from crates_env.wrappers import CratesGymEnv, UniformRandom

from .scripted import deal_order, tiny_maskable_ppo

# --- 10. the Gymnasium wrapper ---------------------------------------------------------------


def test_gymnasium_make_builds_the_wrapper():
    env = gymnasium.make("Crates-v0", deal_schedule=[3, 1], num_players=3)
    assert isinstance(env.unwrapped, CratesGymEnv)
    assert env.unwrapped.rules.num_players == 3
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 0


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_env_checker_passes():
    env = gymnasium.make("Crates-v0", deal_schedule=[3, 1])
    from gymnasium.utils.env_checker import check_env

    check_env(env.unwrapped)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sb3_env_checker_passes():
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


def test_wrapper_truncation_ends_the_episode_as_truncated():
    env = CratesGymEnv(deal_schedule=[8], max_decisions_per_hand=5)
    *_, term, trunc, _ = play_wrapper(env, np.random.default_rng(0), seed=0)
    assert trunc and not term


def test_wrapper_win_mode_terminal_reward():
    env = CratesGymEnv(num_players=3, deal_schedule=[1], reward_mode="win")
    env.reset(seed=0, options=OPPONENT_OUT_DEAL)
    _, reward, term, _, _ = env.step(DRAW)
    assert term and reward == -1.0  # 45 points, the worst score


# --- 11. a short MaskablePPO run -----------------------------------------------------------------


def _played(model, env, games: int = 30, gamma: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
    """The model's greedy games from seeds 7, 8, ... (only legal moves, checked at every step):
    every observation the learner saw and the discounted return that followed it."""
    observations, returns = [], []
    for game in range(games):
        obs, _ = env.reset(seed=7 + game)
        rewards, done = [], False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert mask[int(action)]
            observations.append(obs)
            obs, reward, term, trunc, _ = env.step(int(action))
            rewards.append(reward)
            done = term or trunc
        following, backwards = 0.0, []
        for reward in reversed(rewards):
            following = reward + gamma * following
            backwards.append(following)
        returns.extend(reversed(backwards))
    return np.array(observations, dtype=np.float32), np.array(returns)


def _value_error(model, observations: np.ndarray, returns: np.ndarray) -> float:
    with torch.no_grad():
        values = model.policy.predict_values(torch.as_tensor(observations)).numpy()[:, 0]
    return float(np.mean((values - returns) ** 2))


def test_maskable_ppo_learns_the_value_of_games_it_never_played_and_plays_legal_moves():
    """1,024 steps of MaskablePPO on short games (rewards scaled to about one a game): its critic
    predicts the returns of 30 games it never trained on with less than half the squared error of
    the same network untrained (the same seed), and its greedy moves are all legal."""
    untrained, _ = tiny_maskable_ppo(0, reward_scale=0.01)
    model, env = tiny_maskable_ppo(1024, reward_scale=0.01)
    assert model.num_timesteps >= 1024
    observations, returns = _played(model, env)
    assert len(returns) > 60
    learned, before = (_value_error(m, observations, returns) for m in (model, untrained))
    assert learned < 0.5 * before, (learned, before)


def test_gymnasium_wrapper_gives_the_mask_in_info_too():
    env = CratesGymEnv(deal_schedule=[3, 1])
    _, info = env.reset(seed=2)
    assert np.array_equal(info["action_mask"], env.action_masks())
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert np.array_equal(info["action_mask"], env.action_masks())
        if terminated or truncated:
            break

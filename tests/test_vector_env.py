"""The native Gymnasium vector env (``crates_env.vector_env.CratesVectorEnv``, ``Crates-v0``'s
``vector_entry_point``): Gymnasium's conventions (``make_vec`` without warnings, batched spaces,
observations in them, seeding, info masks, autoreset modes) and a differential test against
Gymnasium's ``SyncVectorEnv`` over the single env, step by step in both autoreset modes, with
Gymnasium's ``data_equivalence``."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import crates_env  # noqa: F401 - registers Crates-v0
from agents import GreedyAgent, HeuristicAgent, PolicyAgent, Table
from crates_env.batch import ReferenceGames
from crates_env.env import raw_env
from crates_env.vector import VectorGame
from crates_env.vector_env import CratesVectorEnv

SHIPPED = "checkpoints/crates_4p.zip"


def _table(kwargs: dict) -> Table:
    env_only = ("learner_seat", "opponents", "partner_is_learner")
    return Table.from_env(raw_env(**{k: v for k, v in kwargs.items() if k not in env_only}))


def _native(num_envs: int, **kwargs) -> CratesVectorEnv:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns about a missing autoreset mode
        env = gym.make_vec(
            "Crates-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
        )
    return env


def _legal_or_not(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A legal action in each game, now and then an illegal one (refused and penalised)."""
    actions = np.zeros(len(masks), dtype=np.int64)
    for i, mask in enumerate(masks):
        if mask.any() and rng.random() > 0.05:
            actions[i] = rng.choice(np.flatnonzero(mask))
    return actions


def _same(mine, theirs, where: str) -> None:
    assert data_equivalence(mine, theirs), where


TABLES = [
    ({"preset": "crates", "num_players": 4, "deal_schedule": [3, 2]}, "greedy"),
    (
        {
            "preset": "crates",
            "num_players": 4,
            "deal_schedule": [4, 1],
            "reward_timing": "event",
            "reward_mode": "relative",
            "learner_seat": "random",
        },
        "network",
    ),
    (
        {
            "preset": "crates",
            "num_players": 3,
            "deal_schedule": [2, 3],
            "reward_mode": "win",
            "one_card": "auto",
            "learner_seat": 2,
        },
        "greedy",
    ),
    ({"preset": "crazy_eights", "num_players": 4, "learner_seat": "random"}, "greedy"),
    (
        {"preset": "crates", "num_players": 4, "deal_schedule": [2], "partner_is_learner": False},
        "network",
    ),
]


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
@pytest.mark.parametrize(("kwargs", "opponent"), TABLES, ids=[str(t) for t in TABLES])
def test_the_vector_env_plays_what_gymnasiums_sync_env_of_single_envs_plays(kwargs, opponent, mode):
    """The same seeds and actions give the same observations, rewards, ends, infos and
    (same-step autoreset) final observations and infos as Gymnasium's SyncVectorEnv over
    ``Crates-v0``, game after game, with opponents that decide alike one game at a time and a
    batch at a time (GreedyAgent's numpy twin, a network's forward pass)."""
    table = _table(kwargs)
    agent = GreedyAgent(table) if opponent == "greedy" else PolicyAgent(SHIPPED, table=table)
    kwargs = {**kwargs, "opponents": agent, "autoreset_mode": mode}
    native = _native(4, **kwargs)
    sync = gym.make_vec(
        "Crates-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **{k: v for k, v in kwargs.items() if k != "autoreset_mode"},
    )
    obs, info = native.reset(seed=5)
    sync_obs, sync_info = sync.reset(seed=5)
    _same(obs, sync_obs, "reset observations")
    _same({k: info[k] for k in sync_info}, sync_info, "reset infos")
    rng = np.random.default_rng(0)
    finished = 0
    for step in range(150):
        actions = _legal_or_not(rng, sync_info["action_mask"])
        mine, theirs = native.step(actions), sync.step(actions)
        names = ("obs", "rewards", "terminated", "truncated")
        for name, a, b in zip(names, mine[:4], theirs[:4], strict=True):
            _same(a, b, f"step {step}: {name}")
        info, sync_info = mine[4], theirs[4]
        for key, value in sync_info.items():
            if key == "final_info":  # ours adds the game's result (scores, side, win)
                _same({k: info[key][k] for k in value}, value, f"step {step}: final_info")
            else:
                _same(info[key], value, f"step {step}: info {key}")
        finished += int(mine[2].sum() + mine[3].sum())
    assert finished >= 4
    native.close()


def test_make_vec_builds_the_native_env_with_gymnasiums_conventions():
    env = _native(5, preset="crates", num_players=4, deal_schedule=[2, 1])
    inner = env.unwrapped
    assert isinstance(inner, CratesVectorEnv) and isinstance(inner.games, VectorGame)
    assert inner.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.observation_space == batch_space(inner.single_observation_space, 5)
    assert env.action_space == batch_space(gym.spaces.Discrete(63), 5)
    assert env.single_observation_space == gym.make("Crates-v0").observation_space
    obs, _ = env.reset(seed=3)
    assert obs in env.observation_space and obs.dtype == np.float32
    other, _ = env.reset(seed=4)
    again, info = env.reset(seed=3)
    assert np.array_equal(obs, again) and not np.array_equal(obs, other)
    masks = env.unwrapped.action_masks()
    assert np.array_equal(masks, info["action_mask"]) and masks.dtype == bool
    for _ in range(20):
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, *_, info = env.step(actions)
        assert obs in env.observation_space and rewards.dtype == np.float64
        masks = info["action_mask"]
        masks[~masks.any(axis=1), 0] = True  # a finished game takes any action next
    reference = _native(2, preset="crazy_eights", num_players=3, engine="reference")
    assert isinstance(reference.unwrapped.games, ReferenceGames)
    too_long = _native(2, preset="crates", num_players=3, deal_schedule=[1] * 65)
    assert isinstance(too_long.unwrapped.games, ReferenceGames)  # the compiled engine refuses


def test_the_learners_rewards_add_up_to_its_sides_points_against_random_seats():
    """Uniformly random opponents (the default) play in the engine; whatever they do, the
    rewards of a game add up to the learner's side's final points (reward_mode="points")."""
    env = _native(8, preset="crates", num_players=4, deal_schedule=[3, 2])
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    totals, games = np.zeros(8), 0
    while games < 12:
        masks = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, terminated, truncated, info = env.step(actions)
        totals += rewards
        for i in np.flatnonzero(terminated | truncated):
            assert totals[i] == pytest.approx(-info["scores"][i, info["side"][i]])
            totals[i], games = 0.0, games + 1


def test_a_heuristic_opponent_decides_every_waiting_game_in_one_call(monkeypatch):
    """HeuristicAgent's compiled twin, called once for all the games waiting on it."""
    table = _table({"preset": "crates", "num_players": 4})
    agent = HeuristicAgent(table)
    sizes = []
    real = agent.act_batch
    monkeypatch.setattr(agent, "act_batch", lambda o, m: sizes.append(len(o)) or real(o, m))
    env = _native(64, preset="crates", num_players=4, opponents=agent)
    _, info = env.reset(seed=1)
    env.step(np.array([np.flatnonzero(m)[0] for m in info["action_mask"]]))
    assert max(sizes) > 32 and all(size > 0 for size in sizes)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be a positive int"),
        ({"render_mode": "ansi"}, "does not render"),
        ({"illegal_action": "ignore"}, "illegal_action='ignore' is not valid"),
        ({"autoreset_mode": "later"}, "autoreset_mode='later' is not valid"),
        ({"engine": "gpu"}, "engine='gpu' is not valid"),
        ({"learner_seat": 7}, "learner_seat must be 0..3"),
        ({"opponents": "heuristic"}, "opponents takes agents, not the name 'heuristic'"),
        ({"opponents": [None, 3, None, 3]}, "opponents at seat 1 must be an agent"),
        ({"preset": "nope"}, "unknown preset"),
    ],
)
def test_bad_options_name_the_problem(kwargs, message):
    kwargs = {"num_envs": 2, "preset": "crates", "num_players": 4, **kwargs}
    with pytest.raises(ValueError, match=message):
        CratesVectorEnv(**kwargs)


def test_bad_steps_are_refused_and_move_nothing():
    env = CratesVectorEnv(2, preset="crates", num_players=4, illegal_action="raise")
    with pytest.raises(ValueError, match="call reset"):
        env.step(np.zeros(2, dtype=np.int64))
    obs, info = env.reset(seed=1)
    illegal = np.array([np.flatnonzero(~m)[0] for m in info["action_mask"]])
    with pytest.raises(ValueError, match="game 0: illegal action"):
        env.step(illegal)
    assert np.array_equal(env.unwrapped.games.observe(), obs)
    with pytest.raises(ValueError, match="actions must be 2 ints"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"deck": []})


def test_gymnasiums_episode_statistics_read_its_games():
    """Gymnasium's RecordEpisodeStatistics (which relies on next-step autoreset) counts each
    game's return as the learner's side's final points (reward_mode="points") and its length
    as the learner's decisions."""
    env = gym.wrappers.vector.RecordEpisodeStatistics(
        _native(4, preset="crates", num_players=4, deal_schedule=[2, 1])
    )
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(3)
    lengths, games = np.zeros(4, dtype=np.int64), 0
    while games < 6:
        masks = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        restarting = ~masks.any(axis=1)
        lengths = np.where(restarting, 0, lengths + 1)
        _, _, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            side = info["side"][i]
            assert info["episode"]["r"][i] == pytest.approx(-info["scores"][i, side])
            assert info["episode"]["l"][i] == lengths[i]
            games += 1


def test_hidden_state_follows_each_observation_on_the_reference_engine_and_vector_refuses_it():
    env = CratesVectorEnv(2, hidden_state=True, deal_schedule=[2])
    assert isinstance(env.games, ReferenceGames)  # "auto" takes the engine that holds it
    obs, _ = env.reset(seed=0)
    public = env.games.observer.size
    assert obs.shape == (2, public + env.games.observer.hidden_size)
    np.testing.assert_array_equal(obs[:, public:], env.games.observe_hidden(env.games.to_play))
    assert all(env.single_observation_space.contains(row) for row in obs)
    with pytest.raises(ValueError, match="engine='vector' cannot give hidden_state or shaping"):
        CratesVectorEnv(2, hidden_state=True, engine="vector")

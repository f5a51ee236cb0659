"""The privileged critic: the hidden-state vector, a critic that reads it, an actor that cannot."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from gymnasium import spaces

from agents import PolicyAgent, Table, make_agent
from agents.networks import PrivilegedCriticPolicy
from crates_env.actions import NUM_ACTIONS
from crates_env.cards import NUM_KINDS, parse_card
from crates_env.env import raw_env
from crates_env.observation import STOCK_SEEN, Observer
from train.ppo import LATEST, STATE, make_vec_env, train
from train.selfplay import LearnerSpec, observation_space_of

from .scripted import short_game
from .test_train import tiny

# torch on one thread while these tests run (the suite's threads as they were after them)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_hidden_state_shows_the_other_hands_by_seat_and_the_stock_in_drawing_order():
    g = short_game()
    g.set_position(
        hands=[["2C", "8H"], ["KD", "KH", "4S"], ["QS"], ["JH", "5C"]],
        stock=["3D", "9S", "AC", "7H", "6S"],  # top first
        discard=["TC"],
        turn=1,
    )
    observer = Observer(g.rules)
    v = observer.encode_hidden(g, seat=1)
    assert v.shape == (observer.hidden_size,) == ((4 + STOCK_SEEN) * NUM_KINDS,)
    block = v.reshape(4 + STOCK_SEEN, NUM_KINDS)

    def kinds(*codes):
        row = np.zeros(NUM_KINDS)
        for c in codes:
            row[parse_card(c)] += 1
        return row

    # Seat 1's view: slot 1 is seat 2, slot 2 seat 3, slot 3 seat 0; its own hand is not here.
    np.testing.assert_array_equal(block[0], kinds("QS"))
    np.testing.assert_array_equal(block[1], kinds("JH", "5C"))
    np.testing.assert_array_equal(block[2], kinds("2C", "8H"))
    np.testing.assert_array_equal(block[3], kinds("3D", "9S", "AC", "7H", "6S"))
    for depth, card in enumerate(["3D", "9S", "AC", "7H"]):
        np.testing.assert_array_equal(block[4 + depth], kinds(card))


def test_the_actor_reads_only_the_public_part_and_the_critic_reads_it_all():
    env_kwargs = {"deal_schedule": [3]}
    public = observation_space_of(env_kwargs)
    full = observation_space_of(env_kwargs, privileged=True)
    assert full.shape[0] == public.shape[0] + raw_env(**env_kwargs).observer.hidden_size
    policy = PrivilegedCriticPolicy(
        full,
        spaces.Discrete(NUM_ACTIONS),
        lambda _: 0.0,
        net_arch=[16],
        public_size=public.shape[0],
    )
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((5, full.shape[0]), dtype=np.float32))
    other = obs.clone()
    other[:, public.shape[0] :] = torch.as_tensor(rng.random((5, full.shape[0] - public.shape[0])))
    with torch.no_grad():
        dist_a, dist_b = policy.get_distribution(obs), policy.get_distribution(other)
        torch.testing.assert_close(dist_a.distribution.logits, dist_b.distribution.logits)
        assert not torch.allclose(policy.predict_values(obs), policy.predict_values(other))
        # At the table the actor is given the public vector alone.
        alone = policy.get_distribution(obs[:, : public.shape[0]]).distribution.logits
        torch.testing.assert_close(alone, dist_a.distribution.logits)


def test_a_privileged_run_trains_resumes_and_plays_from_the_public_observation(tmp_path):
    config = tiny(tmp_path, "privileged_critic=true", "opponents.snapshot_weight=1.0")
    train(config)
    train(tiny(tmp_path, "privileged_critic=true", "total_steps=128"), resume=True)
    assert json.loads((config.run_dir / STATE).read_text())["num_timesteps"] == 128

    env = raw_env(deal_schedule=[2, 1])
    agent = make_agent(str(config.run_dir / LATEST), Table.from_env(env))
    assert isinstance(agent, PolicyAgent)
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, _, done, truncated, _ = env.last()
        action = None if done or truncated else agent.act(obs["observation"], obs["action_mask"])
        assert action is None or obs["action_mask"][action]
        env.step(action)


def test_privileged_learner_and_snapshots_see_the_hidden_state_scripted_opponents_do_not(tmp_path):
    config = tiny(tmp_path, "privileged_critic=true", "opponents.snapshot_weight=1.0", "num_envs=4")
    vec = make_vec_env(config)
    public = Table.from_env(raw_env(**config.env_kwargs())).obs_size
    assert vec.observation_space.shape[0] > public
    assert vec.reset().shape == (4, vec.observation_space.shape[0])
    vec.close()


@pytest.mark.parametrize("privileged", [False, True])
def test_warm_start_collection_matches_the_learners_view(privileged):
    from train.imitation import Collection, collect

    plan = Collection(
        "heuristic", games=2, gamma=0.99, learner=LearnerSpec(privileged=privileged), num_envs=2
    )
    demos = collect({"deal_schedule": [2]}, plan)
    size = observation_space_of({"deal_schedule": [2]}, privileged).shape[0]
    assert demos.observations.shape[1] == size

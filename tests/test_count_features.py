"""The count features: one-hot views of the small counts beside the observation, and a network
without them widened to read them, playing as before."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from agents import PolicyAgent, Table, make_agent
from agents.networks import COUNT_VIEWS, Actor, CountsExtractor, count_views
from crates_env.env import raw_env
from train.config import load_config
from train.expert import start_model
from train.ppo import LATEST, atomic_save_model, policy_spec, train

from .test_train import tiny

# torch on one thread while these tests run (the suite's threads as they were after them)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_count_views_follow_the_tables_layout_and_scales():
    table = Table.from_rules("crates", 4)
    views = count_views(table)
    stock, discard, pending, count, *hands = views
    assert stock == (table.layout["stock_size"][0], 52.0, 16)
    assert discard == (table.layout["discard_size"][0], 52.0, 16)
    assert pending == (table.layout["pending_draw"][0], 12.0, 10)
    assert count == (table.layout["count"][0], 12.0, 13)
    start, stop = table.layout["hand_sizes"]
    assert hands == [(i, 10.0, 12) for i in range(start, stop)]
    assert len(views) == len(COUNT_VIEWS) - 1 + 4  # one view per seat's hand


def test_a_run_in_the_table_layout_reads_the_counts_where_that_layout_writes_them():
    """count_features with observation: table: each one-hot reads the count's place in the
    table layout (where the run's environment writes it), not the seat layout's."""
    config = load_config(
        "configs/default.yaml", ["preset=crates", "num_players=5", "observation=table"]
    )
    config = replace(config, count_features=True)
    _, kwargs = policy_spec(config)
    env = raw_env(**config.env_kwargs())
    env.reset(seed=5)
    table = Table.from_env(env)
    assert table.layout["stock_size"] != Table.from_rules("crates", 5).layout["stock_size"]
    assert kwargs["features_extractor_kwargs"]["counts"] == count_views(table)
    obs = env.observe(env.agent_selection)["observation"]
    stock = kwargs["features_extractor_kwargs"]["counts"][0]
    assert obs[stock[0]] * stock[1] == pytest.approx(len(env.game.stock_kinds()))


def test_the_extractor_puts_each_count_in_its_own_place():
    env = raw_env(preset="crates", num_players=4)
    env.reset(seed=3)
    table = Table.from_env(env)
    obs = env.observe(env.agent_selection)["observation"].copy()
    start = table.layout["stock_size"][0]
    obs[start] = 3 / 52  # three cards in the stock
    obs[table.layout["discard_size"][0]] = 40 / 52  # beyond the widest value: the last place
    obs[table.layout["pending_draw"][0]] = 2 / 12
    obs[table.layout["count"][0]] = 0.0
    obs[slice(*table.layout["hand_sizes"])] = np.array([1, 0, 7, 11]) / 10
    space = env.observation_space(env.agent_selection)["observation"]
    extractor = CountsExtractor(space, count_views(table))
    out = extractor(torch.as_tensor(obs)[None])[0].numpy()
    assert extractor.features_dim == len(obs) + 16 + 16 + 10 + 13 + 4 * 12
    np.testing.assert_array_equal(out[: len(obs)], obs)
    ones = np.flatnonzero(out[len(obs) :])
    # stock 3; discard 15 (the last of 16); pending 2; count 0; hands 1, 0, 7, 11
    widths = np.cumsum([0, 16, 16, 10, 13, 12, 12, 12])
    assert list(ones) == [w + v for w, v in zip(widths, [3, 15, 2, 0, 1, 0, 7, 11], strict=True)]


def test_a_plain_network_starts_a_count_features_run_playing_exactly_as_before(tmp_path):
    plain = tiny(tmp_path, "run_name=plain", "total_steps=64", "net_arch=[16]")
    train(plain)
    wide = tiny(
        tmp_path, "run_name=wide", "net_arch=[16]", "count_features=true", 'warm_start.teacher=""',
        f"init={plain.run_dir / LATEST}",
    )  # fmt: skip
    model = start_model(wide, wide.init)
    assert isinstance(model.policy.features_extractor, CountsExtractor)
    path = tmp_path / "wide.zip"
    atomic_save_model(model, path, wide)
    env = raw_env(**plain.env_kwargs())
    env.reset(seed=11)
    before, after = PolicyAgent(plain.run_dir / LATEST), PolicyAgent(path)
    rows = [env.observe(a) for a in env.agents]
    obs = np.stack([r["observation"] for r in rows])
    masks = np.stack([r["action_mask"] for r in rows]).astype(bool)
    with torch.no_grad():
        a = before.policy.get_distribution(torch.as_tensor(obs)).distribution.logits
        b = after.policy.get_distribution(torch.as_tensor(obs)).distribution.logits
    torch.testing.assert_close(a, b)
    assert list(before.act_batch(obs, masks)) == list(after.act_batch(obs, masks))


def test_a_count_features_network_is_refused_where_it_cannot_fit(tmp_path):
    wide = tiny(tmp_path, "run_name=wide", "total_steps=64", "net_arch=[16]", "count_features=true")
    train(wide)
    plain = tiny(
        tmp_path, "run_name=plain", "net_arch=[16]", 'warm_start.teacher=""',
        f"init={wide.run_dir / LATEST}",
    )  # fmt: skip
    with pytest.raises(ValueError, match="count_features false"):
        start_model(plain, plain.init)
    with pytest.raises(ValueError, match="count_features and privileged_critic"):
        load_config("configs/default.yaml", ["count_features=true", "privileged_critic=true"])


@pytest.mark.parametrize("spec", ["shipped", "checkpoints/crates_4p_clone.zip"])
def test_the_actor_at_play_gives_the_networks_own_logits(spec):
    """``Actor`` (the count one-hots as sums of first-layer columns, a few torch calls) against
    the policy's modules, with counts beyond every one-hot's width and below zero: the same
    logits to float rounding, the same move in every row."""
    table = Table.from_rules("crates", 4)
    policy = make_agent(spec, table).policy
    size = policy.observation_space.shape[0]
    observations = torch.rand(400, size, generator=torch.Generator().manual_seed(0))
    observations[:, [i for i, _, _ in count_views(table)]] *= 1.6  # past the widths
    observations[:7, table.layout["stock_size"][0]] = -1 / 52
    with torch.no_grad():
        features = policy.extract_features(observations, policy.pi_features_extractor)
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features))
        got = Actor.of(policy).logits(observations)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-4)
    assert torch.equal(got.argmax(1), expected.argmax(1))

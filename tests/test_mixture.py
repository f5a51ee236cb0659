"""Training over a mixture of tables: the config's tables, how the games are shared out, and a
mixture batch that plays each table's games exactly as that table's own batch does."""

from __future__ import annotations

import numpy as np
import pytest

from crates_env import crates_v0
from crates_env.rules import make_ruleset
from crates_env.table_observation import COVERED_TABLES, TableObserver
from train.config import load_config
from train.opponents import PoolSpec
from train.selfplay import LearnerSpec, make_batch, make_mix
from train.vec_env import table_slots, worker_groups

TWO = ["tables=[crates:3, zimbabwe:5]", "observation=table"]


def test_a_mixture_names_its_tables_and_their_environments():
    config = load_config(None, [*TWO, "rules={max_hands: 50}"])
    assert config.played_tables() == [("crates", 3), ("zimbabwe", 5)]
    kwargs = config.table_kwargs()
    assert [(k["preset"], k["num_players"], k["observation"]) for k in kwargs] == [
        ("crates", 3, "table"),
        ("zimbabwe", 5, "table"),
    ]
    assert all(k["max_hands"] == 50 for k in kwargs)  # rules apply at every table
    covered = load_config(None, ["tables=covered", "observation=table"])
    assert covered.played_tables() == list(COVERED_TABLES)
    one = load_config(None, [])  # no tables: the one table, its settings as they always were
    assert one.played_tables() == [("crates", 4)] and "observation" not in one.env_kwargs()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["tables=[crates:3, zimbabwe:5]"], "needs observation: table"),
        ([*TWO, "num_envs=1"], "num_envs 1 is fewer than the 2 tables"),
        (["tables=[crates:3, crates:3]", "observation=table"], "crates:3 more than once"),
        (["tables=[crates:7]", "observation=table"], "played by 2 to 5 players, not 7"),
        (["tables=[crates]", "observation=table"], "give preset:players"),
        ([*TWO, "count_features=true"], "does not go with count_features"),
        ([*TWO, "mode=expert", "expert.rounds=1"], "does not go with mode: expert"),
        (["observation=wide"], "'wide' is not a layout; use one of seat, table"),
        (
            ["tables=[craits:7, crates:4]", "observation=table", "warm_start.teacher=shipped"],
            "no network at craits:7: give warm_start.fallback",
        ),
    ],
)
def test_a_mixture_that_cannot_be_trained_is_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, overrides)


def test_the_games_are_shared_out_by_table_and_worker():
    tables = [{"preset": p, "num_players": n} for p, n in COVERED_TABLES[:5]]
    assert table_slots(11, 5) == [3, 2, 2, 2, 2]
    shares = worker_groups(11, tables, workers=2, seed=0)
    assert [[g[1]["num_players"] for g in share] for share in shares] == [[2, 3, 4], [5, 3]]
    assert [sum(g[0] for g in share) for share in shares] == [7, 4]  # whole tables a worker
    seeds = [g[2] for share in shares for g in share]
    assert len(set(seeds)) == 5  # a seed a table
    one = worker_groups(10, tables[:1], workers=3, seed=0)  # one table: split over the workers
    assert [g[0][0] for g in one] == [4, 3, 3]


def test_a_mixture_batch_plays_each_table_as_its_own_batch_does():
    """Rows of a table in the mixture: the observations, rewards, ends and masks of that
    table's own batch, seed for seed (a differential test of the mix)."""
    spec, learner = PoolSpec(scripted={"heuristic": 1.0}), LearnerSpec()
    groups = [
        (3, {"preset": "crates", "num_players": 3, "observation": "table"}, 11),
        (2, {"preset": "zimbabwe", "num_players": 5, "observation": "table"}, 12),
    ]
    mix = make_mix(groups, spec, learner, None)
    alone = [make_batch(c, k, spec, learner, None, s) for c, k, s in groups]
    obs, masks = mix.reset()
    parts = [b.reset() for b in alone]
    size = TableObserver(make_ruleset("crates", 3)).size
    assert obs.shape == (5, size)
    assert np.array_equal(obs, np.concatenate([p[0] for p in parts]))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos, masks = mix.step(actions)
        steps = [alone[0].step(actions[:3]), alone[1].step(actions[3:])]
        for got, index in ((obs, 0), (rewards, 1), (dones, 2), (masks, 4)):
            assert np.array_equal(got, np.concatenate([s[index] for s in steps]))
        assert [bool(i) for i in infos] == [bool(i) for s in steps for i in s[3]]
        ended += int(dones.sum())
    assert ended >= 2


def test_a_mixture_run_makes_a_network_of_its_tables(tmp_path, one_torch_thread):
    """crates train over two tables: its checkpoint records both and the table layout; the
    network plays at each (handed the seat layout, it widens it) and is refused at any other
    table, naming the ones it learned; --resume continues the run."""
    from agents import PolicyAgent, Table
    from agents.checkpoints import read_checkpoint
    from tests.test_train import TINY
    from train.ppo import train

    overrides = [*TINY, *TWO, "num_envs=4", "rules={max_hands: 2}", f"runs_dir={tmp_path}"]
    path = train(load_config("configs/default.yaml", overrides))
    checkpoint = read_checkpoint(path)
    assert [(t.preset, t.num_players) for t in checkpoint.tables] == [
        ("crates", 3),
        ("zimbabwe", 5),
    ]
    assert checkpoint.layout == ("table", 1)
    for preset, n in (("crates", 3), ("zimbabwe", 5)):
        table = Table.from_rules(preset, n, max_hands=2)
        agent = PolicyAgent(path, table=table)
        env = crates_v0.env(preset=preset, num_players=n, max_hands=2)
        env.reset(seed=1)
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
    with pytest.raises(
        ValueError,
        match="learned 3-player crates and 5-player zimbabwe, and this table is 4-player crates",
    ):
        PolicyAgent(path, table=Table.from_rules("crates", 4, max_hands=2))
    from train.cli.commands import network_lines

    (line,) = network_lines([str(path), "heuristic"], "zimbabwe", 5, {"max_hands": 2})
    assert line == f"{path}: a network of 3-player crates and 5-player zimbabwe (table layout 1)"
    more = load_config("configs/default.yaml", [*overrides, "total_steps=128"])
    assert read_checkpoint(train(more, resume=True)).training["num_timesteps"] >= 128

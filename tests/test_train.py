"""Training: config validation, the self-play vectorized environment, checkpoints and resume."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from agents.checkpoints import load_network, read_checkpoint
from crates_env.batch import ReferenceGames
from crates_env.vector import VectorGame
from train.cli import main
from train.config import load_config
from train.convert import convert
from train.opponents import OpponentPool, PoolSpec
from train.ppo import LATEST, STATE, make_vec_env, train
from train.selfplay import LearnerSpec, make_batch

# torch on one thread while these tests run (the suite's threads as they were after them)
pytestmark = pytest.mark.usefixtures("one_torch_thread")

TINY = [
    "workers=0",
    "num_envs=2",
    "net_arch=[32]",
    "ppo.n_steps=16",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "total_steps=64",
    "checkpoint_every=32",
    "eval.every=1000000000",
    "eval.final_deals=8",  # the last word of a run, a batch played in this process
    "opponents.snapshot_every=32",
    "opponents.snapshot_weight=1.0",
    "progress_bar=false",
    "rules={deal_schedule: [2, 1]}",
    'warm_start.teacher=""',
]


def tiny(tmp_path, *more: str):
    return load_config("configs/default.yaml", [*TINY, f"runs_dir={tmp_path}", *more])


def test_default_config_loads_and_overrides_apply():
    c = load_config("configs/default.yaml", ["ppo.n_epochs=8", "opponents.scripted={greedy: 2}"])
    assert c.ppo.n_epochs == 8
    assert c.opponents.scripted == {"greedy": 2}
    assert c.ppo.learning_rate == pytest.approx(1e-4)
    assert c.warm_start.teacher == "heuristic"
    assert c.env_kwargs()["preset"] == "crates"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["lerning_rate=1"], "unknown config key.*lerning_rate.*valid keys"),
        (["ppo.n_epoch=2"], "unknown config key.*ppo.n_epoch"),
        (["num_envs=two"], "num_envs must be a int"),
        (["ppo.learning_rate=fast"], "ppo.learning_rate must be a float"),
        (["num_envs=0"], "num_envs must be >= 1, not 0"),
        (["opponents.scripted={genius: 1}"], "genius"),
        (["preset=nope"], "unknown preset"),
        (["rules={standig_jokers: true}", "preset=kreights"], "standig_jokers"),
        (["reward_mode=money"], "reward_mode"),
        (["reward_timing=later"], "reward_timing .later. is not one of hand, event"),
        (["eval.baselines=[oracle]"], "oracle"),
        (["num_envs"], "key=value"),
        (["total_steps=-1"], "total_steps must be >= 0, not -1"),
        (["total_steps=0", 'warm_start.teacher=""'], "total_steps is 0 and no warm start"),
    ],
)
def test_bad_config_stops_at_once_naming_the_problem(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config("configs/default.yaml", overrides)


def test_missing_config_file():
    with pytest.raises(ValueError, match="does not exist"):
        load_config("configs/nope.yaml")


# Self-play as SB3 sees it, pinned: recorded with the two batch drivers it had before it became
# the Gymnasium vector env's adapter (GameBatch, VectorBatch at commit 6ec5edb). A deliberate
# change of the games, seats, opponents or rewards changes a digest: record the new one and say
# why.
SELF_PLAY_GOLDEN = [
    (
        "vector",
        {"preset": "crates", "num_players": 4, "deal_schedule": [3, 2]},
        {"random": 1.0, "heuristic": 1.0, "greedy": 1.0},
        "none",
        ("4771e0a983b6694f", 20),
    ),
    (
        "vector",
        {
            "preset": "kreights",
            "num_players": 3,
            "reward_mode": "relative",
            "reward_timing": "event",
            "deal_schedule": [4, 1, 3],
        },
        {"greedy": 1.0, "random": 1.0},
        "symlog",
        ("f482cd8586005f65", 18),
    ),
    (
        "reference",
        {"preset": "crates", "num_players": 4, "one_card": "auto", "deal_schedule": [3, 2]},
        {"heuristic": 1.0, "greedy": 1.0},
        "symlog",
        ("b530368755457a60", 41),
    ),
    (
        "auto",
        {"preset": "crazy_eights", "num_players": 3},
        {"heuristic": 1.0, "greedy": 1.0},
        "none",
        ("f7d03ae12e04eb9b", 12),
    ),
]


@pytest.mark.parametrize(
    ("engine", "kwargs", "scripted", "transform", "expected"),
    SELF_PLAY_GOLDEN,
    ids=[f"{g[0]}-{g[1]['preset']}" for g in SELF_PLAY_GOLDEN],
)
def test_self_play_replays_its_recorded_games(engine, kwargs, scripted, transform, expected):
    """Everything a self-play batch gives SB3 over 150 steps of seeded moves: observations,
    masks, rewards, ends, terminal observations, episode returns and game summaries."""
    spec = PoolSpec(scripted=scripted)
    batch = make_batch(8, kwargs, spec, LearnerSpec(reward_transform=transform), None, 7, engine)
    obs, masks = batch.reset()
    digest, rng, games = hashlib.sha256(), np.random.default_rng(3), 0
    for _ in range(150):
        digest.update(obs.tobytes() + masks.astype(bool).tobytes())
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, rewards, dones, infos, masks = batch.step(actions)
        digest.update(np.asarray(rewards, np.float32).tobytes() + np.asarray(dones).tobytes())
        for info in filter(None, infos):
            games += 1
            ending = [info["TimeLimit.truncated"], info["episode"], info["game"]]
            digest.update(info["terminal_observation"].tobytes() + json.dumps(ending).encode())
    assert (digest.hexdigest()[:16], games) == expected


@pytest.mark.parametrize("engine", ["reference", "vector"])
def test_learner_rewards_add_up_to_its_sides_game_points(engine):
    spec = PoolSpec(scripted={"random": 1.0})
    batch = make_batch(3, {"deal_schedule": [3, 2]}, spec, LearnerSpec(), None, 5, engine)
    _, masks = batch.reset()
    rng = np.random.default_rng(0)
    totals, finished = [0.0] * 3, []
    while len(finished) < 6:
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        _, rewards, dones, infos, masks = batch.step(actions)
        for i in range(3):
            totals[i] += rewards[i]
            if dones[i]:
                finished.append((totals[i], infos[i]["game"]["points"]))
                totals[i] = 0.0
    for total, points in finished:
        assert total == pytest.approx(-points)


@pytest.mark.parametrize(
    ("kwargs", "scripted"),
    [
        (
            {"preset": "crates", "num_players": 4, "one_card": "auto", "deal_schedule": [5, 2]},
            {"heuristic": 1.0},
        ),
        (
            {
                "preset": "kreights",
                "num_players": 3,
                "reward_mode": "relative",
                "deal_schedule": [4, 1, 3],
            },
            {"greedy": 1.0, "heuristic": 1.0},
        ),
        (
            {
                "preset": "creights",
                "num_players": 2,
                "reward_timing": "event",
                "deal_schedule": [6],
            },
            {"greedy": 1.0},
        ),
        ({"preset": "crazy_eights", "num_players": 3}, {"heuristic": 1.0}),
        ({"preset": "zimbabwe", "num_players": 3, "reward_mode": "win"}, {"greedy": 1.0}),
    ],
)
def test_compiled_self_play_plays_the_reference_batchs_games(kwargs, scripted):
    """The same seeds give the same games, learner seats, opponents, observations, masks,
    rewards and end-of-game infos on both engines."""
    spec, learner = PoolSpec(scripted=scripted), LearnerSpec(reward_transform="symlog")
    reference = make_batch(4, kwargs, spec, learner, None, seed=9, engine="reference")
    compiled = make_batch(4, kwargs, spec, learner, None, seed=9, engine="vector")
    assert isinstance(reference.games, ReferenceGames) and isinstance(compiled.games, VectorGame)
    obs, masks = reference.reset()
    vobs, vmasks = compiled.reset()
    rng = np.random.default_rng(2)
    games = 0
    for _ in range(400):
        assert np.array_equal(obs, vobs) and np.array_equal(masks, vmasks)
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, rewards, dones, infos, masks = reference.step(actions)
        vobs, vrewards, vdones, vinfos, vmasks = compiled.step(actions)
        assert np.array_equal(rewards, vrewards) and np.array_equal(dones, vdones)
        for info, vinfo in zip(infos, vinfos, strict=True):
            assert info.keys() == vinfo.keys()
            if info:
                assert np.array_equal(
                    info.pop("terminal_observation"), vinfo.pop("terminal_observation")
                )
                assert info == vinfo
                games += 1
    assert games >= 2


@pytest.mark.parametrize("preset", ["crazy_eights", "zimbabwe"])
def test_crates_train_plays_the_crazy_eights_family_on_the_compiled_engine(tmp_path, preset):
    """``crates train --set preset=...`` trains on VectorGame (``engine=vector`` insists on it)
    and evaluates the network it saves."""
    overrides = [*TINY, "rules={}", f"preset={preset}", "engine=vector", f"runs_dir={tmp_path}"]
    overrides += ["eval.final_deals=1", "eval.baselines=[random]"]
    assert main(["train", *(arg for o in overrides for arg in ("--set", o))]) == 0
    assert (tmp_path / "default" / LATEST).is_file()


def test_snapshot_opponents_decide_in_batches(monkeypatch):
    sizes = []
    real = OpponentPool.act_batch

    def spy(self, who, agents, obs, masks, envs=None):
        if who.startswith("snapshot:"):
            sizes.append(len(obs))
        return real(self, who, agents, obs, masks, envs)

    monkeypatch.setattr(OpponentPool, "act_batch", spy)
    config = load_config("configs/default.yaml", [*TINY, "opponents.scripted={}", "num_envs=8"])
    vec = make_vec_env(config)
    from agents.networks import untrained_policy
    from train.ppo import policy_spec

    policy = untrained_policy(*policy_spec(config), vec.observation_space, vec.action_space)
    vec.add_snapshot(policy.state_dict())
    vec.reset()
    for _ in range(5):
        masks = vec.action_masks()
        vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    vec.close()
    assert sizes and max(sizes) > 1  # several games' moves in one forward pass


def test_train_writes_checkpoints_and_resumes_with_its_pool(tmp_path):
    config = tiny(tmp_path)
    latest = train(config)
    run_dir = config.run_dir
    assert latest == run_dir / LATEST and latest.is_file()
    state = json.loads((run_dir / STATE).read_text())
    assert state["num_timesteps"] == 64
    assert len(state["snapshots"]) >= 1
    assert all((run_dir / p).is_file() and p.endswith(".pt") for p in state["snapshots"])
    assert (run_dir / "tb").is_dir()

    with pytest.raises(ValueError, match="--resume"):
        train(config)

    more = tiny(tmp_path, "total_steps=128")
    train(more, resume=True)
    state = json.loads((run_dir / STATE).read_text())
    assert state["num_timesteps"] == 128
    assert read_checkpoint(run_dir / LATEST).training["num_timesteps"] == 128


def test_a_run_folder_moved_elsewhere_resumes_and_logs_there(tmp_path):
    first = tiny(tmp_path, "run_name=first")
    train(first)
    moved = tiny(tmp_path, "run_name=moved", "total_steps=128")
    first.run_dir.rename(moved.run_dir)
    train(moved, resume=True)  # the snapshots are found in the new folder
    state = json.loads((moved.run_dir / STATE).read_text())
    assert state["num_timesteps"] == 128
    assert all((moved.run_dir / p).is_file() for p in state["snapshots"])
    assert (moved.run_dir / "tb").is_dir() and not first.run_dir.exists()


def test_resume_refuses_a_checkpoint_of_another_table_network_or_kind(tmp_path):
    train(tiny(tmp_path, "run_name=four"))
    latest = tiny(tmp_path, "run_name=four").run_dir / LATEST
    three = tiny(tmp_path, "run_name=four", "num_players=3")  # a shorter observation
    with pytest.raises(ValueError, match=r"latest\.zip: it learned 4-player crates, and this tab"):
        train(three, resume=True)
    wider = tiny(tmp_path, "run_name=four", "net_arch=[16]", "total_steps=128")
    with pytest.raises(ValueError) as info:
        train(wider, resume=True)
    assert str(info.value) == (
        f"{latest}: does not fit this run: it holds a network of net_arch [32] (tanh) on 284 "
        "inputs, and the config builds net_arch [16] (tanh) on 284 inputs"
    )
    convert(latest, latest)  # the network alone, as it is shipped
    with pytest.raises(ValueError, match="holds a network to play, not a run's checkpoint"):
        train(tiny(tmp_path, "run_name=four", "total_steps=128"), resume=True)


def test_resume_refuses_a_missing_or_corrupt_checkpoint(tmp_path):
    config = tiny(tmp_path, "run_name=fresh")
    with pytest.raises(ValueError, match="no checkpoint"):
        train(config, resume=True)
    config.run_dir.mkdir(parents=True)
    (config.run_dir / LATEST).write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a checkpoint"):
        train(config, resume=True)


@pytest.mark.parametrize("text", ["3e-5", "3E-5", "3.0e-5", "+3e-5"])
def test_a_float_in_exponent_notation_is_a_float_with_or_without_its_dot(text):
    # YAML 1.1 (PyYAML) reads 3e-5 as a string; the key's type says it is a number
    c = load_config("configs/default.yaml", [f"ppo.learning_rate={text}"])
    assert c.ppo.learning_rate == pytest.approx(3e-5)
    with pytest.raises(ValueError, match="num_envs must be a int, not '3e2'"):
        load_config("configs/default.yaml", ["num_envs=3e2"])


def test_a_run_of_no_steps_is_its_warm_starts_clone(tmp_path):
    """total_steps 0 (a distillation): the checkpoint is the clone, checked at step 0; no PPO
    update follows it (before, 0 was refused and a clone took one rollout and an update)."""
    config = tiny(tmp_path, "total_steps=0", "warm_start.teacher=heuristic", "warm_start.games=2",
                  "warm_start.epochs=1", "eval.final_deals=1")  # fmt: skip
    train(config)
    state = json.loads((config.run_dir / STATE).read_text())
    assert (state["num_timesteps"], state["last_checkpoint"], state["best_step"]) == (0, 0, 0)
    assert state["warm_start"]["teacher"] == "heuristic"
    latest = load_network(config.run_dir / LATEST).policy.state_dict()
    best = load_network(config.run_dir / "best.zip").policy.state_dict()  # the check at step 0
    assert latest.keys() == best.keys()
    assert all(latest[name].equal(best[name]) for name in latest)

"""Distilling networks of single tables into one network of a mixture: a teacher by table
(``warm_start.teachers``), a network teacher's whole distribution as the target
(``warm_start.soft``), and a warm start into the network ``init`` starts from."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents import HeuristicAgent, PolicyAgent, Table
from crates_env.env import raw_env
from crates_env.table_observation import TableObserver, table_features
from train.config import load_config
from train.imitation import (
    Collection,
    Demonstrations,
    clone,
    collect_mixture,
    demo_settings,
    policy_heads,
    table_teachers,
)
from train.ppo import STATE, make_vec_env, new_model

from .networks import untrained_network
from .test_train import TINY

pytestmark = pytest.mark.usefixtures("one_torch_thread")
TWO = ["tables=[craits:2, crates:3]", "observation=table", "rules={max_hands: 1}"]


def _network(folder, tables: str, name: str, width: int = 8):
    """A small untrained table-layout network of ``tables``, saved as training saves one."""
    config = load_config(
        None,
        [
            f"tables=[{tables}]",
            "observation=table",
            f"net_arch=[{width}]",
            "num_envs=2",
            f"runs_dir={folder}",
            'warm_start.teacher=""',
        ],
    )
    path = folder / name
    untrained_network(config, path)
    return path


@pytest.fixture(scope="module")
def craits(tmp_path_factory):
    """A network of 2-player craits alone (a per-table teacher)."""
    return _network(tmp_path_factory.mktemp("teachers"), "craits:2", "craits2.zip")


def _config(*more: str):
    return load_config(None, [*TWO, "num_envs=4", *more])


@pytest.mark.parametrize(
    ("teachers", "message"),
    [
        (
            "{craits:3: heuristic}",
            r"warm_start.teachers names 'craits:3', which is not a table of this run; its "
            r"tables: craits:2, crates:3",
        ),
        (
            "{craits:2: oracle}",
            r"warm_start.teachers.craits:2 names 'oracle': no such file, and not an agent "
            r"\(random, greedy, heuristic, search, shipped\) or the path of a checkpoint",
        ),
        (
            "{crates:3: NET}",
            r"warm_start.teachers.crates:3: .*craits2.zip: it learned 2-player craits, and this "
            r"table is 3-player crates; a teacher teaches only a table it learned",
        ),
        ("{craits:2: TEXT}", r"warm_start.teachers.craits:2: .*notes.zip: not a checkpoint"),
        ("{craits:2: [heuristic]}", r"warm_start.teachers.craits:2 must be an agent"),
    ],
)
def test_a_teacher_map_that_cannot_teach_is_refused_naming_the_choices(
    teachers, message, craits, tmp_path
):
    text = tmp_path / "notes.zip"
    text.write_text("not a network")
    teachers = teachers.replace("NET", str(craits)).replace("TEXT", str(text))
    with pytest.raises(ValueError, match=message):
        _config(f"warm_start.teachers={teachers}")


def test_shipped_in_the_map_needs_a_shipped_network_and_one_table_keys_its_own():
    seven = ["tables=[craits:7, crates:4]", "observation=table"]
    with pytest.raises(ValueError, match="craits:7 is shipped, and the package has no network"):
        load_config(None, [*seven, "warm_start.teachers={craits:7: shipped}"])
    # the fallback is not needed where the map names craits:7's teacher
    taught = ["warm_start.teacher=shipped", "warm_start.teachers={craits:7: heuristic}"]
    assert load_config(None, [*seven, *taught]).warm_start.fallback == ""
    alone = ["preset=craits", "num_players=2"]
    with pytest.raises(ValueError, match=r"names 'crates:4', which is not a table .*: craits:2$"):
        load_config(None, [*alone, "warm_start.teachers={crates:4: greedy}"])
    one = load_config(None, [*alone, "warm_start.teachers={craits:2: greedy}"])
    assert [teacher for _, _, teacher in table_teachers(one)] == ["greedy"]


def test_the_map_is_given_on_the_command_line_whole_or_a_table_at_a_time(craits):
    whole = _config(f"warm_start.teachers={{craits:2: {craits}}}", "warm_start.teacher=heuristic")
    one = _config(f"warm_start.teachers.craits:2={craits}", "warm_start.teacher=heuristic")
    assert whole.warm_start.teachers == one.warm_start.teachers == {"craits:2": str(craits)}
    taught = [(i, kwargs["preset"], teacher) for i, kwargs, teacher in table_teachers(whole)]
    assert taught == [(0, "craits", str(craits)), (1, "crates", "heuristic")]


@pytest.fixture(scope="module")
def mixed(craits):
    """Demonstrations of a mixture whose craits:2 teacher is a network and crates:3 teacher is
    HeuristicAgent, with the teachers' probabilities."""
    config = _config(
        f"warm_start.teachers={{craits:2: {craits}}}",
        "warm_start.teacher=heuristic",
        "warm_start.soft=true",
    )
    plan = Collection("", games=4, gamma=0.99, num_envs=2, seed=3, soft=True)
    return config, collect_mixture(table_teachers(config), plan)


def _rows_of(kwargs: dict, demos: Demonstrations) -> np.ndarray:
    """Which rows were played at the table of ``kwargs`` (the table's features, at the end of
    every table-layout vector, say which table it is)."""
    observer = TableObserver(raw_env(**kwargs).rules)
    start = observer.layout()["table_preset"][0]
    return (demos.observations[:, start:] == table_features(observer.rules)).all(1)


def test_each_table_of_the_mixture_learns_from_its_own_teacher(mixed, craits):
    config, demos = mixed
    at_craits, at_crates = (_rows_of(kwargs, demos) for kwargs in config.table_kwargs())
    assert at_craits.any() and at_crates.any() and (at_craits ^ at_crates).all()
    p = demos.probabilities
    assert p.shape == demos.masks.shape
    assert np.allclose(p.sum(1), 1.0, atol=1e-5) and not p[~demos.masks].any()
    # craits:2 rows: the network's own move and distribution on the very vectors recorded
    tables = [Table.from_env(raw_env(**kwargs)) for kwargs in config.table_kwargs()]
    network = PolicyAgent(craits, table=tables[0])
    obs, masks = demos.observations[at_craits], demos.masks[at_craits]
    assert np.array_equal(demos.actions[at_craits], network.act_batch(obs, masks))
    assert np.allclose(p[at_craits], network.probabilities(obs, masks), atol=1e-6)
    assert (p[at_craits].max(1) < 0.99).any()  # an untrained network's spread, not one move
    # crates:3 rows: HeuristicAgent's move, all of the probability on it
    heuristic = HeuristicAgent(tables[1])
    rows = np.flatnonzero(at_crates)
    assert all(
        heuristic.act(demos.observations[i], demos.masks[i]) == demos.actions[i] for i in rows
    )
    assert np.array_equal(p[at_crates], np.eye(p.shape[1])[demos.actions[at_crates]])


def _fresh(config):
    vec = make_vec_env(config)
    try:
        return new_model(config, vec).policy
    finally:
        vec.close()


def _cross_entropy(policy, demos: Demonstrations, rows: np.ndarray) -> float:
    """The policy's mean cross-entropy to the teachers' probabilities at ``rows``."""
    with torch.no_grad():
        logits, _ = policy_heads(policy, torch.as_tensor(demos.observations[rows]))
    log_p = logits.masked_fill(~torch.as_tensor(demos.masks[rows]), -1e9).log_softmax(1)
    return float(-(torch.as_tensor(demos.probabilities[rows]) * log_p).sum(1).mean())


def test_soft_targets_keep_the_network_teachers_spread_where_its_move_alone_does_not(mixed):
    config, demos = mixed
    at_craits = _rows_of(config.table_kwargs()[0], demos) & (demos.masks.sum(1) > 1)
    hard = Demonstrations(**{**vars(demos), "probabilities": None})
    fitted = {}
    for name, taught in (("soft", demos), ("hard", hard)):
        policy = _fresh(load_config(None, [*TWO, "num_envs=4", "net_arch=[32]"]))
        clone(policy, taught, epochs=30, batch_size=64, learning_rate=3e-3, seed=0)
        fitted[name] = _cross_entropy(policy, demos, at_craits)
    assert fitted["soft"] < fitted["hard"]


def test_the_demonstrations_file_says_what_it_holds(mixed, craits, tmp_path):
    config, demos = mixed
    path = tmp_path / "demos.npz"
    settings = demo_settings(config)
    assert settings["soft"] is True and settings["teachers"]["craits:2"]["path"] == str(craits)
    demos.save(path, settings)
    again = Demonstrations.load(path, settings)
    assert np.array_equal(again.probabilities, demos.probabilities)
    hard = _config(f"warm_start.teachers={{craits:2: {craits}}}", "warm_start.teacher=heuristic")
    with pytest.raises(ValueError, match=r"other settings \(soft: True there, None here\)"):
        Demonstrations.load(path, demo_settings(hard))
    # a file without probabilities is refused by name when they are wanted
    Demonstrations(**{**vars(demos), "probabilities": None}).save(path, demo_settings(hard))
    with pytest.raises(ValueError, match=r"other settings \(soft: None there, True here\)"):
        Demonstrations.load(path, settings)
    # another teacher at a table, or the same file trained on, is other demonstrations
    greedy = _config("warm_start.teachers={craits:2: greedy}", "warm_start.teacher=heuristic")
    with pytest.raises(ValueError, match=r"other settings \(teachers: "):
        Demonstrations.load(path, demo_settings(greedy))
    retrained = tmp_path / "craits2.zip"
    retrained.write_bytes(craits.read_bytes())
    same = _config(f"warm_start.teachers={{craits:2: {retrained}}}", "warm_start.teacher=heuristic")
    before = demo_settings(same)
    _network(tmp_path, "craits:2", "craits2.zip", width=16)  # other weights, the same path
    assert demo_settings(same)["teachers"] != before["teachers"]


def test_init_with_teachers_clones_into_inits_network_at_the_mapped_tables(
    craits, tmp_path, monkeypatch
):
    start = _network(tmp_path, "craits:2, crates:3", "mixture.zip", width=32)
    tiny = [o for o in TINY if not o.startswith("warm_start.teacher=")]
    run = [*tiny, *TWO, "num_envs=2", f"runs_dir={tmp_path}", f"init={start}"]
    mapped = f"warm_start.teachers={{craits:2: {craits}}}"
    # init alone: no warm start, as before; init with the map alone: the mapped tables only
    assert not load_config(None, run).warm_start.teaches()
    config = load_config(None, [*run, mapped, "warm_start.games=2", "warm_start.soft=true"])
    assert config.warm_start.teacher == ""
    assert [(i, t) for i, _, t in table_teachers(config)] == [(0, str(craits))]
    # init with a teacher and no map: refused, the teacher would only overwrite init's play
    with pytest.raises(ValueError, match=r"init and warm_start\.teacher both start the network"):
        load_config(None, [*run, "warm_start.teacher=heuristic"])
    # init with a teacher named: every table, into init's network
    both = load_config(None, [*run, mapped, "warm_start.teacher=heuristic"])
    assert [t for _, _, t in table_teachers(both)] == [str(craits), "heuristic"]

    import train.ppo
    from agents.checkpoints import load_network

    seen = {}
    real = train.ppo.warm_start

    def spy(policy, config, shaping):
        seen["weights"] = {k: v.clone() for k, v in policy.state_dict().items()}
        return real(policy, config, shaping)

    monkeypatch.setattr(train.ppo, "warm_start", spy)
    train.ppo.train(config)
    initial = load_network(start).policy.state_dict()
    assert seen["weights"].keys() == initial.keys()
    assert all(seen["weights"][k].equal(v) for k, v in initial.items())
    state = json.loads((config.run_dir / STATE).read_text())["warm_start"]
    assert state["teachers"] == {"craits:2": str(craits)} and state["samples"] > 0
    trained = load_network(config.run_dir / "latest.zip").policy.state_dict()
    assert not all(trained[k].equal(v) for k, v in initial.items())

"""A network knows its tables: checkpoints record the set of tables they learned, a network is
refused at any other table, ``shipped`` follows the table, and training starts from another
table's network only when asked. (Files that are not checkpoints: test_checkpoint_safety.)"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from dataclasses import asdict, replace

import pytest
import torch

from agents import PolicyAgent, SearchAgent, Table, make_agent
from agents.checkpoints import (
    CHECKPOINT_FILE,
    FORMAT,
    OPTIMIZER_FILE,
    READABLE,
    WEIGHTS_FILE,
    Architecture,
    TableRecord,
    load_network,
    play_digest,
    read_checkpoint,
    save_checkpoint,
)
from agents.shipped import shipped_network, shipped_tables
from crates_env.env import raw_env
from crates_env.observation import LAYOUT_VERSION, SEAT_LAYOUT, SLICES
from crates_env.rules import make_ruleset
from crates_env.table_observation import COVERED_TABLES
from train.cli import main
from train.config import load_config
from train.convert import convert
from train.evaluation import EvalConfig, format_report, run, summarize, validate
from train.evaluation.bench import parse_tables
from train.evaluation.report import OTHER_TABLE, pooled_pairs, read_deals
from train.evaluation.stats import PairComparison
from train.ppo import make_vec_env, new_model

from .networks import untrained_network
from .scripts import benchmark

CRATES_4 = make_ruleset("crates", 4)
# the slices of each observation layout version: a change to SLICES must bump LAYOUT_VERSION
# (networks of the old layout are then refused) and add its digest here
LAYOUT_DIGESTS = {1: "3e43a131"}


def _table(preset: str, players: int = 4, **options) -> Table:
    return Table.from_rules(preset, players, **options)


def _network(tmp_path, preset: str, name: str = "net.zip", **rules):
    """A small untrained network saved as training saves one, recording its table."""
    config = load_config(
        "configs/default.yaml",
        [
            f"preset={preset}",
            "net_arch=[8]",
            "num_envs=1",
            "workers=0",
            f"runs_dir={tmp_path}",
            f"rules={json.dumps(rules)}",
        ],
    )
    path = tmp_path / name
    return path, untrained_network(config, path)


def test_the_layout_version_pins_the_observation_slices():
    digest = hashlib.sha256(repr(SLICES).encode()).hexdigest()[:8]
    assert LAYOUT_DIGESTS.get(LAYOUT_VERSION) == digest, (
        "the observation's slices changed: bump crates_env.observation.LAYOUT_VERSION and "
        f"record its digest {digest} here"
    )


def _edited(path, name: str, **changes):
    """A copy of the checkpoint at ``path`` whose record has ``changes``."""
    with zipfile.ZipFile(path) as old:
        record = json.loads(old.read(CHECKPOINT_FILE))
        members = {n: old.read(n) for n in old.namelist() if n != CHECKPOINT_FILE}
    copy = path.with_name(name)
    with zipfile.ZipFile(copy, "w") as new:
        new.writestr(CHECKPOINT_FILE, json.dumps({**record, **changes}))
        for member, data in members.items():
            new.writestr(member, data)
    return copy


def test_a_saved_network_records_its_tables_architecture_and_layout(tmp_path):
    path, _ = _network(tmp_path, "kreights", deal_schedule=[3, 2])
    checkpoint = read_checkpoint(path)
    assert checkpoint.tables == (TableRecord("kreights", 4, {}),)
    assert checkpoint.tables[0].schedule == {"deal_schedule": [3, 2]}  # recorded, not the table
    assert checkpoint.architecture == Architecture(284, (8,), "tanh", 63)
    assert checkpoint.layout == (SEAT_LAYOUT, LAYOUT_VERSION) == ("seat", 1)
    assert checkpoint.training == {"num_timesteps": 0, "n_updates": 0}
    with zipfile.ZipFile(path) as z:  # a run's checkpoint: the optimizer too, to resume
        assert z.namelist() == [CHECKPOINT_FILE, WEIGHTS_FILE, OPTIMIZER_FILE]
        record = json.loads(z.read(CHECKPOINT_FILE))
    assert record["format"] == FORMAT == 2
    assert record["critic"] is True
    assert record["observation"] == {"name": "seat", "version": LAYOUT_VERSION}
    assert record["tables"] == [
        {
            "preset": "kreights",
            "num_players": 4,
            "options": {},
            "schedule": {"deal_schedule": [3, 2]},
        }
    ]
    assert record["architecture"] == {
        "observation_size": 284,
        "net_arch": [8],
        "activation": "tanh",
        "action_count": 63,
        "counts": None,
        "public_size": None,
    }
    path, _ = _network(tmp_path, "crates", "options.zip", standig_jokers=True)
    (record,) = read_checkpoint(path).tables
    assert record == TableRecord("crates", 4, {"standig_jokers": True})
    assert str(record) == "4-player crates (standig_jokers=True)"


def test_a_network_written_to_play_has_no_optimizer_and_plays_the_same(tmp_path):
    _, model = _network(tmp_path, "crates")
    played = tmp_path / "played.zip"
    save_checkpoint(played, model.policy, [TableRecord.of(CRATES_4)])
    with zipfile.ZipFile(played) as z:
        assert z.namelist() == [CHECKPOINT_FILE, WEIGHTS_FILE]
    assert read_checkpoint(played).training == {}
    loaded = load_network(played).policy.state_dict()
    for key, value in model.policy.state_dict().items():
        assert loaded[key].equal(value)


def _alone(tmp_path, preset: str = "crates"):
    """A small network's run checkpoint, its model, and the same network written to play alone
    (``train.convert --play``)."""
    path, model = _network(tmp_path, preset)
    alone = tmp_path / "alone.zip"
    convert(path, alone, play=True)
    return path, model, alone


def test_a_network_written_to_play_alone_plays_the_same_with_half_the_weights(tmp_path):
    """``--play`` drops the critic (only training reads it): the actor is the model's bit for
    bit, so every move is; the record says so, and the explanation reports no value."""
    path, model, alone = _alone(tmp_path)
    checkpoint = read_checkpoint(alone)
    assert not checkpoint.critic and read_checkpoint(path).critic
    with zipfile.ZipFile(alone) as z:
        assert json.loads(z.read(CHECKPOINT_FILE))["critic"] is False
        stored = torch.load(io.BytesIO(z.read(WEIGHTS_FILE)), weights_only=True)
    own = model.policy.state_dict()
    assert sorted(stored) == sorted(
        k for k in own if not k.startswith(("mlp_extractor.value", "value_net"))
    )
    assert sorted(set(own) - set(stored)) == [
        "mlp_extractor.value_net.0.bias",
        "mlp_extractor.value_net.0.weight",
        "value_net.bias",
        "value_net.weight",
    ]
    loaded = load_network(alone).policy.state_dict()
    for key in stored:
        assert loaded[key].equal(own[key])
    assert all(not loaded[key].any() for key in set(own) - set(stored))  # zeros, not random
    table = _table("crates")
    full, played = PolicyAgent(path, table=table), PolicyAgent(alone, table=table)
    observation, mask = _first_decision(table)
    assert played.act(observation, mask) == full.act(observation, mask)
    assert (
        played.explain(observation, mask).probabilities
        == full.explain(observation, mask).probabilities
    )
    assert full.explain(observation, mask).value is not None
    assert played.explain(observation, mask).value is None
    # what decides the moves is the same: the bench's fingerprint of a shipped network
    assert play_digest(load_network(alone)) == play_digest(load_network(path))
    with torch.no_grad():
        model.policy.action_net.bias[0] += 1e-3  # another move's logit, a hair
    save_checkpoint(tmp_path / "other.zip", model.policy, [TableRecord.of(CRATES_4)])
    assert play_digest(load_network(tmp_path / "other.zip")) != play_digest(load_network(path))


def test_a_run_started_from_a_network_to_play_keeps_its_actor_and_learns_a_new_critic(tmp_path):
    _, model, alone = _alone(tmp_path)
    config = load_config(
        "configs/default.yaml",
        [
            "net_arch=[8]",
            "num_envs=1",
            f"runs_dir={tmp_path}",
            f"init={alone}",
            'warm_start.teacher=""',
            "seed=11",
        ],
    )
    vec = make_vec_env(config)
    try:
        started = new_model(config, vec).policy.state_dict()
        fresh = new_model(replace(config, init=""), vec).policy.state_dict()
    finally:
        vec.close()
    for key, value in model.policy.state_dict().items():
        critic = key.startswith(("mlp_extractor.value_net.", "value_net."))
        assert started[key].equal(fresh[key] if critic else value), key
    assert started["mlp_extractor.value_net.0.weight"].any()  # a critic that can learn


def test_checkpoints_of_format_1_read_as_holding_their_critic_and_others_are_refused(tmp_path):
    path, _, alone = _alone(tmp_path)
    old = _edited(path, "old.zip", format=1)
    with zipfile.ZipFile(old) as z:  # format 1 had no critic field
        record = json.loads(z.read(CHECKPOINT_FILE))
    del record["critic"]
    old = _edited(old, "old1.zip", **record)
    assert READABLE == (1, 2) and read_checkpoint(old).critic
    assert load_network(old).checkpoint.critic
    with pytest.raises(
        ValueError, match="checkpoint format 3, and this package reads formats 1 and 2"
    ):
        read_checkpoint(_edited(path, "new.zip", format=3))
    with pytest.raises(ValueError, match="critic must be true or false"):
        read_checkpoint(_edited(path, "yes.zip", critic="yes"))
    lying = _edited(path, "lying.zip", critic=False)  # says no critic, holds one
    with pytest.raises(ValueError, match=r"its record says it holds no critic, and its policy\.pt"):
        load_network(lying)
    missing = _edited(alone, "missing.zip", critic=True)  # says a critic, holds none
    with pytest.raises(ValueError, match="its weights do not fit its architecture"):
        load_network(missing)


def test_a_network_of_a_set_of_tables_plays_at_each_and_names_them_elsewhere(tmp_path):
    path, _ = _network(tmp_path, "crates")
    both = [TableRecord("crates", 4).to_dict(), TableRecord("kreights", 4).to_dict()]
    both = _edited(path, "both.zip", tables=both)
    assert read_checkpoint(both).learned() == "4-player crates and 4-player kreights"
    PolicyAgent(both, table=_table("crates"))
    PolicyAgent(both, table=_table("kreights", deal_schedule=[3, 2]))
    with pytest.raises(ValueError) as info:
        PolicyAgent(both, table=_table("crazy_eights"))
    assert (
        "it learned 4-player crates and 4-player kreights, and this table is "
        "4-player crazy_eights; a network plays only at the tables it learned" in str(info.value)
    )


def test_a_network_at_another_table_is_refused_naming_both_tables(tmp_path):
    network = shipped_network(CRATES_4)
    PolicyAgent(network, table=_table("crates"))  # its own table
    for table, name in [
        (_table("crazy_eights"), "4-player crazy_eights"),
        (_table("kreights"), "4-player kreights"),
        (_table("crates", standig_jokers=True), "4-player crates (standig_jokers=True)"),
    ]:
        assert table.obs_size == _table("crates").obs_size  # the shapes fit: only the record tells
        with pytest.raises(ValueError) as info:
            PolicyAgent(network, table=table)
        message = str(info.value)
        assert f"it learned 4-player crates, and this table is {name}" in message
        assert "init_other_table" in message
        with pytest.raises(ValueError, match="it learned 4-player crates"):
            SearchAgent(table, base=str(network))


def test_another_tables_network_plays_here_only_when_asked(tmp_path):
    """Expert iteration's first round at a table with no network: the search looks ahead from
    the nearest table's network, told so; the observation layout must still match."""
    network, kreights = shipped_network(CRATES_4), _table("kreights")
    agent = PolicyAgent(network, table=kreights, other_table=True)
    assert agent.act(*_first_decision(kreights)) >= 0
    for spec in (
        f"search:base={network},other_table=true",
        f"search:other_table=true,base={network}",
    ):
        assert make_agent(spec, kreights).base_policy.path == network
    with pytest.raises(ValueError, match="other_table=true is for a base network of another"):
        make_agent("search:other_table=true", kreights)  # HeuristicAgent has no table to leave
    with pytest.raises(ValueError, match="search setting other_table must be true or false"):
        make_agent(f"search:base={network},other_table=yes", kreights)
    path, _ = _network(tmp_path, "crates")
    path = _edited(path, "newer.zip", observation={"name": "seat", "version": LAYOUT_VERSION + 1})
    with pytest.raises(
        ValueError,
        match=f"reads observation layout seat {LAYOUT_VERSION + 1}, and this package writes",
    ):
        PolicyAgent(path, table=kreights, other_table=True)


def _first_decision(table: Table):
    """The first seat's observation and mask in a game at ``table``."""
    game = raw_env(table.preset, table.num_players)
    game.reset(seed=3)
    seen = game.observe(game.agent_selection)
    return seen["observation"], seen["action_mask"]


def test_a_network_plays_its_table_at_any_length_of_game():
    """A shorter deal schedule, another first dealer: the same table."""
    network = shipped_network(CRATES_4)
    for options in ({"deal_schedule": [3, 2]}, {"first_dealer": 2, "max_hands": 40}):
        PolicyAgent(network, table=_table("crates", **options))
        assert shipped_network(make_ruleset("crates", 4, **options)) == network


def test_a_network_of_another_layout_is_refused(tmp_path):
    path, _ = _network(tmp_path, "crates")
    newer = _edited(path, "newer.zip", observation={"name": "seat", "version": LAYOUT_VERSION + 1})
    written = f"this package writes layouts seat {LAYOUT_VERSION}, table 1"
    with pytest.raises(ValueError, match=f"reads observation layout seat 2, and {written}"):
        PolicyAgent(newer, table=_table("crates"))
    other = _edited(path, "other.zip", observation={"name": "tables", "version": LAYOUT_VERSION})
    with pytest.raises(ValueError, match=f"reads observation layout tables 1, and {written}"):
        PolicyAgent(other, table=_table("crates"))
    wide = _edited(path, "wide.zip", observation={"name": "table", "version": 1})
    with pytest.raises(ValueError, match=r"observes 284 values, but this table .* gives 1085"):
        PolicyAgent(wide, table=_table("crates"))  # the record and the weights disagree


def test_a_damaged_record_is_named(tmp_path):
    path, _ = _network(tmp_path, "crates")
    damaged = _edited(path, "damaged.zip", tables=[{"preset": "crates"}])
    with pytest.raises(ValueError, match=f"its {CHECKPOINT_FILE} is damaged .a table must hold"):
        PolicyAgent(damaged, table=_table("crates"))


def test_shipped_follows_the_table():
    """The index gives every covered table a network: the table's own at the seven 4-player
    tables and the few others that have one, the network of every covered table elsewhere; a
    table off the index has none, and the message lists the tables that have one."""
    assert make_agent("shipped", _table("crates")).path == shipped_network(CRATES_4)
    assert [(t.preset, t.num_players) for t in shipped_tables()] == list(COVERED_TABLES)
    chicago = make_agent("shipped", _table("chicago1970"))
    assert (
        chicago.path == shipped_network(make_ruleset("chicago1970", 4)) != shipped_network(CRATES_4)
    )
    for preset, n in (("crazy_eights", 2), ("crazy_eights", 3), ("zimbabwe", 2)):
        assert make_agent("shipped", _table(preset, n)).path.name == f"{preset}_{n}p.zip"
    for preset, n in (("crazy_eights", 5), ("crates", 3), ("zimbabwe", 5)):
        agent = make_agent("shipped", _table(preset, n))
        assert agent.path.name == "mixture.zip"
        assert agent.describe().endswith("a network of 28 tables (table layout 1)")
    for table in (_table("craits", 7), Table.from_rules("crates", 4, standig_jokers=True)):
        for spec in ("shipped", "search:base=shipped"):
            with pytest.raises(ValueError) as info:
                make_agent(spec, table)
            assert f"no shipped network for {table.num_players}-player {table.preset}" in str(
                info.value
            )
            assert "ships networks for 2-player crates, 3-player crates, 4-player crates" in str(
                info.value
            )


def test_crates_eval_of_shipped_at_a_table_without_one_is_one_clear_line(tmp_path, capsys):
    argv = [
        "eval",
        "--preset",
        "craits",
        "--players",
        "7",
        "--agents",
        "shipped",
        "heuristic",
    ]
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--deals", "1", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "no shipped network for 7-player craits" in err and err.count("\n") == 1


MIXTURE = "checkpoints/mixture.zip"  # the table layout's network of the 28 covered tables
CRATES_4P = "checkpoints/crates_4p.zip"  # a seat-layout network of 4-player crates
# 7-player craits (no preset's covered table), three-card hands so that a game is short: the
# deal schedule is not part of a table, so this is still a table the mixture never learned
CRAITS_7 = ["--preset", "craits", "--players", "7", "--rule", "deal_schedule=[3]"]


def _eval(tmp_path, name: str, *argv: str) -> list[str]:
    """``crates eval`` of the mixture against HeuristicAgent, 4 deals, into ``tmp_path/name``."""
    out = tmp_path / name
    agents = ["--agents", MIXTURE, "heuristic", "--deals", "4", "--quiet", "--no-tensorboard"]
    return ["eval", *agents, *argv, "--out", str(out)]


def test_crates_eval_plays_a_network_off_its_tables_only_with_other_table(tmp_path, capsys):
    """Without --other-table the mixture is refused at 7-player craits as anywhere off its
    set; with it, it plays there, in this process and in worker processes alike, and the
    report says the flag was on."""
    with pytest.raises(SystemExit) as exit_:
        main(_eval(tmp_path, "refused", *CRAITS_7, "--workers", "1"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "4-player zimbabwe, 5-player zimbabwe and 6-player zimbabwe, and this table is 7-player "
        "craits; a network plays only at the tables it learned (to start a network for this "
        f"table from it, train with init: {MIXTURE} and init_other_table: true)" in err
    )
    deals = {}
    for workers in ("1", "2"):
        name = f"workers{workers}"
        assert main(_eval(tmp_path, name, *CRAITS_7, "--workers", workers, "--other-table")) == 0
        printed = capsys.readouterr().out
        assert OTHER_TABLE in printed.splitlines()[2]  # under the table's line
        report = json.loads((tmp_path / name / "report.json").read_text())
        assert report["config"]["other_table"] is True
        assert [a["games"] for a in report["agents"]] == [8, 8]  # 4 deals in 2 seatings
        deals[workers] = (tmp_path / name / "deals.csv").read_text()
    assert deals["1"] == deals["2"]


def test_other_table_reaches_the_network_and_the_report():
    """EvalConfig.other_table makes the agents of a path with ``other_table`` (the evaluation
    checks every agent before a game: validate); the report's header says it only then."""
    table = _table("craits", 7, deal_schedule=[3])
    config = EvalConfig(
        agents=(MIXTURE, "heuristic"),
        preset="craits",
        num_players=7,
        options={"deal_schedule": [3]},
        deals=2,
        workers=1,
        other_table=True,
    )
    assert isinstance(config.agent(MIXTURE, table, seed=0), PolicyAgent)
    records = run(config, progress=False)
    assert OTHER_TABLE in format_report(summarize(config, records))
    assert OTHER_TABLE not in format_report(summarize(replace(config, other_table=False), records))
    with pytest.raises(ValueError, match="and this table is 7-player craits; a network plays"):
        validate(replace(config, other_table=False))


def test_other_table_does_not_make_a_network_read_another_size_nor_ship_one(tmp_path, capsys):
    """A seat-layout network reads one size of table: at 3 players the 4-player network is
    refused even with --other-table, naming the sizes; and shipped keeps to its index."""
    three = _table("crates", 3)
    with pytest.raises(ValueError, match=r"observes 284 values, but this table \(crates, 3 pl"):
        make_agent(CRATES_4P, three, other_table=True)
    for agents, message in [
        ([CRATES_4P, "heuristic"], f"{CRATES_4P}: the network observes 284 values, but this "
         "table (crates, 3 players) gives 275"),
        (["shipped", "heuristic"], "no shipped network for 3-player crates (standig_jokers=True)"),
    ]:  # fmt: skip
        argv = ["eval", "--agents", *agents, "--preset", "crates", "--players", "3"]
        argv += ["--rule", "standig_jokers=true", "--other-table", "--deals", "1"]
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--out", str(tmp_path / "out")])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_covered_tables_plays_tables_off_the_covered_list_with_other_table(tmp_path):
    """benchmarks/covered_tables.py: a table outside the covered list takes the seed after
    theirs, --rule's options name the folder, and --other-table reaches the evaluation."""
    covered_tables = benchmark("covered_tables")
    assert parse_tables("craits:7,crazy_eights:7") == (("craits", 7), ("crazy_eights", 7))
    agents = (MIXTURE, "heuristic")
    options = {"deal_schedule": [3]}
    covered_tables.play(agents, [("craits", 7)], 2, 100, tmp_path, 1, options)  # refused
    assert not list(tmp_path.iterdir())
    covered_tables.play(agents, [("craits", 7)], 2, 100, tmp_path, 1, options, other_table=True)
    report = json.loads((tmp_path / "craits_7p_deal_schedule=[3]" / "report.json").read_text())
    config = report["config"]
    assert (config["seed"], config["options"], config["other_table"]) == (128, options, True)


def test_covered_tables_pools_a_tables_deals_over_runs_of_one_network(tmp_path):
    """--chart over several folders: a table's deals pooled over the runs (each run's seed its
    own deals), each run recording the network that played it; two networks refuse to pool."""
    covered_tables = benchmark("covered_tables")
    agents, table = (MIXTURE, "heuristic"), [("crates", 2)]
    covered_tables.play(agents, table, 2, 100, tmp_path / "first", 1)
    covered_tables.play(agents, table, 3, 200, tmp_path / "second", 1)
    runs = [tmp_path / name / "crates_2p" for name in ("first", "second")]
    recorded = json.loads((runs[0] / "network.json").read_text())
    assert recorded == {"agent": MIXTURE, "play_digest": play_digest(load_network(MIXTURE))}
    pair = covered_tables.measured(runs).pooled
    assert pair == pooled_pairs([run / "deals.csv" for run in runs])[0]
    assert pair.deals == 5 and (pair.first, pair.second) == (MIXTURE, "heuristic")
    (runs[1] / "network.json").write_text(json.dumps({"agent": "x", "play_digest": "other"}))
    with pytest.raises(ValueError, match="played by different networks; pool runs of one"):
        covered_tables.measured(runs)
    png = tmp_path / "chart.png"
    png.write_bytes(b"the chart drawn before")
    with pytest.raises(ValueError, match=r"no covered table's report.json in .*: .* left as it"):
        covered_tables.chart([tmp_path / "first" / "crates_2p"], png)  # a table, not a run
    assert png.read_bytes() == b"the chart drawn before"


def test_covered_tables_chart_keeps_a_record_a_later_chart_starts_from(tmp_path, capsys):
    """--chart writes beside its PNG each table's network, sets and pool; a chart from that
    record alone holds the same figures, and a table played again (a new network's two sets)
    replaces the record's, the other tables kept as they were."""
    covered_tables = benchmark("covered_tables")
    agents = (MIXTURE, "heuristic")
    for name, seed in [("first", 100), ("second", 200)]:
        covered_tables.play(agents, [("crates", 2), ("crates", 3)], 2, seed, tmp_path / name, 1)
    covered_tables.play(agents, [("crates", 3)], 3, 300, tmp_path / "again", 1)
    png = tmp_path / "chart.png"
    capsys.readouterr()
    covered_tables.chart([tmp_path / "first", tmp_path / "second"], png)
    record = json.loads(png.with_suffix(".json").read_text())
    assert list(record["tables"]) == ["crates:2", "crates:3"]
    two = record["tables"]["crates:2"]
    assert [s["seed"] for s in two["sets"]] == [100, 200]  # table k of the list: seed + k
    assert two["play_digest"] == play_digest(load_network(MIXTURE))
    runs = [tmp_path / name / "crates_2p" for name in ("first", "second")]
    assert two["pooled"] == asdict(pooled_pairs([run / "deals.csv" for run in runs])[0])
    assert two["sets"][1] == {"seed": 200, **asdict(pooled_pairs([runs[1] / "deals.csv"])[0])}
    drawn = capsys.readouterr().out
    covered_tables.chart([png.with_suffix(".json")], tmp_path / "redrawn.png")
    assert json.loads((tmp_path / "redrawn.json").read_text()) == record
    assert capsys.readouterr().out.replace("redrawn", "chart") == drawn
    covered_tables.chart([png.with_suffix(".json"), tmp_path / "again"], tmp_path / "new.png")
    new = json.loads((tmp_path / "new.json").read_text())["tables"]
    assert new["crates:2"] == two
    again = tmp_path / "again" / "crates_3p" / "deals.csv"
    assert [s["seed"] for s in new["crates:3"]["sets"]] == [301]
    assert new["crates:3"]["pooled"] == asdict(pooled_pairs([again])[0])
    (tmp_path / "broken.json").write_text(json.dumps({"tables": {"crates:2": {"sets": []}}}))
    with pytest.raises(ValueError, match=r"broken.json is not a record of covered_tables.py"):
        covered_tables.chart([tmp_path / "broken.json"], tmp_path / "broken.png")
    assert not (tmp_path / "broken.png").exists()


def test_covered_tables_chart_refuses_tables_of_different_matches(tmp_path):
    """One chart and its record name one agent against one baseline: tables played by another
    agent, or against another baseline, are refused by name and the chart there stays."""
    covered_tables = benchmark("covered_tables")
    covered_tables.play((MIXTURE, "heuristic"), [("crates", 2)], 2, 100, tmp_path / "a", 1)
    covered_tables.play((MIXTURE, "greedy"), [("crates", 3)], 2, 100, tmp_path / "b", 1)
    png = tmp_path / "chart.png"
    png.write_bytes(b"the chart drawn before")
    played = f"{MIXTURE} against greedy; {MIXTURE} against heuristic"
    with pytest.raises(ValueError, match=re.escape(f"different matches ({played}): chart one")):
        covered_tables.chart([tmp_path / "a", tmp_path / "b"], png)
    assert png.read_bytes() == b"the chart drawn before"
    assert not png.with_suffix(".json").exists()


def test_covered_tables_verdict_counts_tables_and_whole_rule_systems():
    """The bar's verdict: a share of 55% needs sign p below 1e-6 too, and a rule system counts
    only when every covered player count of it is measured and past the bar."""
    covered_tables = benchmark("covered_tables")
    pair = PairComparison("net", "heuristic", 2000, 2000, -5.0, 1.0, -0.1, 0.1, 0.1, 0.1, 0.1, 0, 0)
    assert covered_tables.past_bar(replace(pair, better_share=0.55, sign_p=9e-7))
    assert not covered_tables.past_bar(replace(pair, better_share=0.549, sign_p=1e-30))
    assert not covered_tables.past_bar(replace(pair, better_share=0.70, sign_p=1e-6))
    passed = {("creights", 2): True, ("creights", 3): True, ("creights", 4): True}
    passed |= {("crates", 2): True, ("crates", 3): True, ("crates", 4): False}  # 5p unmeasured
    assert covered_tables.verdict(passed) == [
        "past the bar at 5 of 6 tables measured",
        "rule systems past it at every player count: 1 (creights)",
        "below it: crates 4p",
    ]


def test_deal_sizes_splits_the_decided_deals_by_how_far_apart_the_points_were(tmp_path):
    """benchmarks/deal_sizes.py: a level deal is left out, each decided deal lands in the band
    of its larger points over the smaller, and zero points have no ratio."""
    deal_sizes = benchmark("deal_sizes")
    header = "deal,points net,points heuristic,win share net,win share heuristic,"
    header += "standing net,standing heuristic"
    deals = [  # points, then standing (fewer points stand better), network first
        (100, 100, -100, -100),  # level: not decided
        (100, 105, -100, -105),  # close, the network better
        (110, 100, -110, -100),  # ordinary (1.1x), worse
        (200, 100, -200, -100),  # wide (2x), worse
        (100, 500, -100, -500),  # runaway (5x), better
        (1000, 100, -1000, -100),  # runaway (10x), worse
        (0, 3, 0, 1),  # no ratio (zimbabwe: knocked out with no points), worse
    ]
    lines = [
        ",".join(map(str, (i, pa, pb, 0.5, 0.5, a, b))) for i, (pa, pb, a, b) in enumerate(deals)
    ]
    (tmp_path / "crates_5p").mkdir()
    (tmp_path / "crates_5p" / "deals.csv").write_text("\n".join([header, *lines]) + "\n")
    _, points, _, standings = read_deals(tmp_path / "crates_5p" / "deals.csv")
    assert deal_sizes.bands(points, standings) == {
        "close": (1, 1),
        "ordinary": (1, 0),
        "wide": (1, 0),
        "runaway": (2, 1),
        "no ratio": (1, 0),
    }
    assert deal_sizes.report(tmp_path / "crates_5p") == (
        "crates_5p: close 100.0% of 1, ordinary 0.0% of 1, wide 0.0% of 1, runaway 50.0% of 2, "
        "no ratio 0.0% of 1"
    )


def test_training_starts_from_another_tables_network_only_when_asked(tmp_path):
    crates, start = _network(tmp_path, "crates")
    overrides = ["preset=kreights", "net_arch=[8]", "num_envs=1", f"runs_dir={tmp_path}"]
    overrides += [f"init={crates}", 'warm_start.teacher=""']
    config = load_config("configs/default.yaml", overrides)
    vec = make_vec_env(config)
    try:
        with pytest.raises(ValueError, match="it learned 4-player crates, and this table is 4-pl"):
            new_model(config, vec)
        asked = load_config("configs/default.yaml", [*overrides, "init_other_table=true"])
        model = new_model(asked, vec)
    finally:
        vec.close()
    for key, value in start.policy.state_dict().items():
        assert model.policy.state_dict()[key].equal(value)


def test_init_other_table_without_init_is_refused():
    with pytest.raises(ValueError, match="init_other_table: true needs init"):
        load_config("configs/default.yaml", ["init_other_table=true"])


def test_a_written_checkpoint_records_the_code_that_wrote_it(tmp_path):
    """A checkpoint says which version (and git commit, in a checkout) of the package wrote
    it; a damaged record of that is named."""
    import crates_env

    path, _ = _network(tmp_path, "crates")
    made_by = read_checkpoint(path).provenance
    assert made_by == crates_env.provenance()
    assert made_by["version"] == crates_env.__version__
    damaged = _edited(path, "damaged.zip", provenance={"version": 7})
    with pytest.raises(ValueError, match="provenance's version must be a string"):
        read_checkpoint(damaged)

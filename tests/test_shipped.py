"""The shipped networks: each loads and plays its table, is crates eval's default and the agent
``shipped`` there, and goes with every install (as do the configs), found from any folder; the
wheel holds the product alone (the tests' harness stays in tests/)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import PolicyAgent, Table, make_agent, shipped_network
from agents.checkpoints import CHECKPOINT_FILE, WEIGHTS_FILE, TableRecord, read_checkpoint
from crates_env.env import raw_env
from crates_env.rules import make_ruleset
from train.cli import main
from train.convert import decisions

ROOT = Path(__file__).resolve().parent.parent
# the 4-player tables with a shipped network
NETWORK_PRESETS = (
    "crates",
    "chicago1970",
    "craits",
    "creights",
    "kreights",
    "zimbabwe",
    "crazy_eights",
)
# what the package ships, and its source in the repository
SHIPPED = {
    **{f"agents/data/{p}_4p.zip": f"checkpoints/{p}_4p.zip" for p in NETWORK_PRESETS},
    "train/configs/default.yaml": "configs/default.yaml",
    "train/configs/strong.yaml": "configs/strong.yaml",
    "train/configs/crates_4p.yaml": "configs/crates_4p.yaml",
    "train/bench_reference.json": "benchmarks/reference.json",  # crates bench's ladder
    "train/reference_curves.json": "benchmarks/reference_curves.json",  # crates curves
}
# each shipped network's choice at train.convert's decisions of its table, recorded with SB3's
# loader before the networks were converted to the package's own format (agents.checkpoints);
# zimbabwe's, from step 5's run checkpoint (runs/zimbabwe_4p/latest.zip) when it replaced step 4
EXPECTED_ACTIONS = Path(__file__).with_name("shipped_actions.json")


@pytest.mark.parametrize("preset", NETWORK_PRESETS)
def test_each_shipped_network_plays_legal_moves_of_its_table(preset):
    path = shipped_network(make_ruleset(preset, 4))
    assert path.read_bytes() == (ROOT / "checkpoints" / f"{preset}_4p.zip").read_bytes()
    env = raw_env(preset=preset, num_players=4)
    table = Table.from_env(env)
    agent = PolicyAgent(path, table=table)
    assert isinstance(make_agent("shipped", table), PolicyAgent)
    env.reset(seed=3)
    for _ in range(200):
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        env.step(action)
        if env.game.game_over:
            break


def test_crates_eval_without_agents_plays_the_shipped_network(tmp_path, capsys):
    argv = ["eval", "--deals", "1", "--workers", "1", "--out", str(tmp_path / "out"), "--quiet"]
    assert main([*argv, "--no-tensorboard"]) == 0
    table = capsys.readouterr().out
    assert "shipped" in table and "heuristic" in table


def test_the_shipped_network_by_name_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no checkpoints/ here
    agents = ["search:base=shipped,samples=2,stock_max=1", "shipped"]
    argv = ["eval", "--agents", *agents, "--deals", "1", "--workers", "1", "--quiet"]
    assert main([*argv, "--no-tensorboard", "--out", "out"]) == 0
    assert "search(2,≤1,shipped)" in capsys.readouterr().out


def test_the_repository_keeps_one_copy_of_what_it_ships():
    """The package folders link to the top-level checkpoints/, configs/ and benchmarks/ (the
    source)."""
    for shipped, source in SHIPPED.items():
        assert (ROOT / shipped).resolve() == (ROOT / source).resolve()


PACKAGES = ("crates_env", "agents", "train")
PIP = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel as CI builds it, from a copy of the sources (a checkout's own build/ folder
    can hold files since deleted, which would go into the wheel)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "project"
    for part in (*PACKAGES, "checkpoints", "configs"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)
    subprocess.run(
        [*PIP, "wheel", str(source), "--no-deps", "--no-build-isolation", "-w", str(folder)],
        check=True,
        capture_output=True,
    )
    (built,) = folder.glob("crates_rl-*.whl")
    return built


def test_the_wheel_holds_the_packages_and_nothing_of_the_tests(wheel):
    """Every module of the three packages and no other: the fuzz and the differential checks,
    which only the tests and the benchmarks run, live in tests/harness."""
    with zipfile.ZipFile(wheel) as z:
        modules = {name for name in z.namelist() if name.endswith(".py")}
    ours = {str(p.relative_to(ROOT)) for part in PACKAGES for p in (ROOT / part).rglob("*.py")}
    assert modules == ours
    assert [m for m in modules if "fuzz" in m or "equivalence" in m] == []


def test_an_install_outside_any_prefix_finds_the_network_and_the_configs(wheel, tmp_path):
    """The wheel carries them as package data; installed into a folder of its own (as
    ``pip install --user`` or ``--target`` do), the packages find them from any folder."""
    with zipfile.ZipFile(wheel) as z:
        for shipped, origin in SHIPPED.items():
            assert z.read(shipped) == (ROOT / origin).read_bytes()
    target = tmp_path / "site"
    subprocess.run(
        [*PIP, "install", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import agents, agents.shipped as s; from crates_env.rules import make_ruleset; "
        "print(agents.__file__); print(s.shipped_network(make_ruleset('crates', 4))); "
        "print(s.package_file('train', 'configs/default.yaml', 'the default config'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=elsewhere,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert all(Path(line).is_relative_to(target) for line in out), out
    assert Path(out[1]).read_bytes() == (ROOT / "checkpoints" / "crates_4p.zip").read_bytes()


def test_a_damaged_shipped_network_is_one_clear_error(tmp_path, monkeypatch, capsys):
    broken = tmp_path / "crates_4p.zip"
    broken.write_bytes(b"not a checkpoint")
    monkeypatch.setattr("agents.shipped.shipped_network", lambda rules: broken)
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--deals", "1", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert str(broken) in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_missing_shipped_file_names_it():
    from agents.shipped import package_file

    with pytest.raises(ValueError, match="the nothing is missing: agents has no data/nothing"):
        package_file("agents", "data/nothing.zip", "the nothing")


@pytest.mark.parametrize("preset", NETWORK_PRESETS)
def test_each_shipped_network_chooses_as_recorded(preset):
    """The network's most likely legal move at fixed decisions is the one recorded before the
    shipped files changed format: the same weights, read the new way."""
    rules = make_ruleset(preset, 4)
    observations, masks = decisions(TableRecord.of(rules))
    agent = PolicyAgent(shipped_network(rules), auto_announce=False)
    logits = agent._logits(observations, masks)
    logits[~masks] = -np.inf
    expected = json.loads(EXPECTED_ACTIONS.read_text())[preset]
    assert logits.argmax(axis=1).tolist() == expected


def test_the_shipped_networks_are_the_network_alone_and_small_together():
    """Package data that scales (issues 51, 52): no optimizer state and no critic (each network
    written to play alone), at most 12 MB for all."""
    files = sorted((ROOT / "agents" / "data").glob("*.zip"))
    assert {f"agents/data/{p}_4p.zip" for p in NETWORK_PRESETS} < {
        str(path.relative_to(ROOT)) for path in files
    }
    for path in files:
        with zipfile.ZipFile(path) as z:
            assert z.namelist() == [CHECKPOINT_FILE, WEIGHTS_FILE], path
        checkpoint = read_checkpoint(path)
        assert checkpoint.training == {} and not checkpoint.critic, path
    assert sum(path.stat().st_size for path in files) <= 12_000_000


def test_the_index_gives_each_table_a_network_that_learned_it():
    """agents/data/shipped.json: every table it names has a file in the package that learned
    that table (and reads a layout this package writes); a table it does not name has no
    shipped network, and the message lists those that have one."""
    from agents.checkpoints import TableRecord, read_checkpoint
    from agents.shipped import shipped_index, shipped_tables
    from crates_env.rules import make_ruleset

    index = shipped_index()
    assert len(index) == len(shipped_tables()) >= 7
    for key in index:
        preset, players = key.split(":")
        path = shipped_network(make_ruleset(preset, int(players)))
        assert not read_checkpoint(path).mismatch(TableRecord(preset, int(players)))
    with pytest.raises(ValueError, match=r"no shipped network for 4-player crates \(standig"):
        shipped_network(make_ruleset("crates", 4, standig_jokers=True))  # another table


def test_the_model_cards_bar_rows_are_the_record_of_the_networks_shipped_now():
    """docs/covered_tables.json (written by benchmarks/covered_tables.py --chart beside the
    chart) holds the bar's figure at every covered table, played by the network shipped there
    now (its play digest), and the model card's row of each table says what the record does:
    a network shipped without its two bar sets, or a row edited by hand, fails here."""
    from agents.checkpoints import load_network, play_digest
    from crates_env.table_observation import COVERED_TABLES
    from train.evaluation.stats import PairComparison

    from .scripts import benchmark

    past_bar = benchmark("covered_tables").past_bar

    record = json.loads((ROOT / "docs" / "covered_tables.json").read_text())
    assert (record["agent"], record["baseline"]) == ("shipped", "heuristic")
    assert list(record["tables"]) == [f"{p}:{n}" for p, n in COVERED_TABLES]
    card = (ROOT / "docs" / "model_card.md").read_text()
    header = "| table | network | first set | second set | pooled: better in |"
    card = card[card.index(header) :].split("\n\n")[0]  # the bar's table
    tables = zip(COVERED_TABLES, record["tables"].values(), strict=True)
    for k, ((preset, players), table) in enumerate(tables):
        network = load_network(shipped_network(make_ruleset(preset, players)))
        assert table["play_digest"] == play_digest(network), (preset, players)
        first, second = table["sets"]
        assert (first["seed"], second["seed"]) == (52500000 + k, 54000000 + k)
        pooled = table["pooled"]
        past = past_bar(PairComparison(**pooled))
        cells = [
            f"{first['better_share']:.1%}",
            f"{second['better_share']:.1%}",
            f"**{pooled['better_share']:.1%}** of {pooled['decided']}",
            f"{pooled['sign_p']:.2g}",
            f"{pooled['wilcoxon_p']:.2g}",
            f"{pooled['relative']:+.1%}",
            "**past**" if past else "below",
        ]
        row = re.search(rf"^\| {players}-player {preset} \| [^|]+ \| (.*) \|$", card, re.M)
        assert row and row.group(1).split(" | ") == cells, (preset, players)

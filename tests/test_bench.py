"""``crates bench``: the ratings, the protocol's deals, failures reported table by table,
resuming, the outputs (the page in a real browser), and the committed leaderboard."""

from __future__ import annotations

import glob
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import Table
from agents.shipped import has_shipped_network
from train.cli import main
from train.config import load_config, rules_of
from train.evaluation import bench as b
from train.evaluation.bench_report import (
    LEADERBOARD_CHART,
    format_bench,
    leaderboard_markdown,
    leaderboard_svg,
    page,
    write_bench,
)
from train.evaluation.games import seed_of
from train.evaluation.stats import ELO, PRIOR_DEALS, bradley_terry
from train.opponents import new_game_seed
from train.selfplay import worker_seeds

from .pages import watched_page

ROOT = Path(__file__).resolve().parent.parent
TABLES = (("crazy_eights", 4), ("zimbabwe", 4))  # the short games: the tests' reference
Z = 1.959963984540054


def quiet(line: str) -> None:
    pass


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[b.BenchResult, Path]:
    """The ladder against itself at two tables, 3 deals a pairing (search left out)."""
    out = tmp_path_factory.mktemp("reference")
    config = b.BenchConfig(reference=True, tables=TABLES, deals=3, workers=1)
    result = b.bench(config, out, None, say=quiet, progress=False)
    path = out / "bench.json"
    path.write_text(b.to_json(result))
    return result, path


# ------------------------------------------------------------------------------ the ratings
def test_two_agents_rate_as_the_closed_form_with_the_prior_half_deals():
    ratings = bradley_terry([("a", "b", 30, 10)], anchor="b")
    won, lost = 30 + PRIOR_DEALS, 10 + PRIOR_DEALS
    p = won / (won + lost)
    assert ratings["b"].rating == 0 and ratings["b"].ci95 == 0
    assert ratings["a"].rating == pytest.approx(ELO * math.log(won / lost))
    assert ratings["a"].ci95 == pytest.approx(Z * ELO / math.sqrt((won + lost) * p * (1 - p)))


def test_a_sweep_stays_finite_and_the_order_of_the_pairs_does_not_matter():
    results = [("a", "b", 20, 0), ("b", "c", 12, 8), ("a", "c", 15, 5)]
    forward = bradley_terry(results, anchor="c")
    backward = bradley_terry(results[::-1], anchor="c")
    assert math.isfinite(forward["a"].rating) and forward["a"].rating > forward["b"].rating
    for name in "abc":
        assert forward[name].rating == pytest.approx(backward[name].rating)
        assert forward[name].ci95 == pytest.approx(backward[name].ci95)


def test_a_newcomer_is_fitted_to_the_fixed_ladder_and_carries_its_uncertainty():
    ladder = [("a", "b", 30, 10), ("b", "c", 25, 15), ("a", "c", 35, 5)]
    alone = bradley_terry(ladder, anchor="c")
    fixed = {n: r.rating for n, r in alone.items()}
    new = [("d", "a", 12, 28), ("d", "c", 30, 10)]
    both = bradley_terry(ladder + new, anchor="c", fixed=fixed)
    for name in "abc":
        assert both[name].rating == fixed[name]  # the ladder stands where it stood
    # d's rating is the maximum of its own likelihood against the fixed ratings
    d = both["d"].rating / ELO
    gradient = 0.0
    info = 0.0
    for _, other, won, lost in new:
        p = 1 / (1 + math.exp(fixed[other] / ELO - d))
        n = won + lost + 2 * PRIOR_DEALS
        gradient += won + PRIOR_DEALS - n * p
        info += n * p * (1 - p)
    assert gradient == pytest.approx(0, abs=1e-8)
    # its interval is wider than if the ladder's ratings were exact
    assert both["d"].ci95 > Z * ELO / math.sqrt(info)


# ------------------------------------------------------------------------------ the deals
def _quoted_seeds() -> set[int]:
    """Every seed the configs set or mention, and every seed a page of the docs quotes (an
    evaluation's ``--seed``, a run's ``seed:``, lists like ``seeds 20261124, 20261125``), but
    for the bench's own pages."""
    files = [*glob.glob(str(ROOT / "configs/*.yaml")), str(ROOT / "README.md")]
    files += glob.glob(str(ROOT / "docs/**/*.md"), recursive=True)
    own = {str(ROOT / "docs" / page) for page in ("benchmark.md", "leaderboard.md")}
    files = [path for path in files if path not in own]  # the pages that quote the bench's seed
    seeds = {12345}  # BaselineChecks' own
    pattern = re.compile(r"(?:seeds?|--seed|seed:|seed=)\s*((?:\d+(?:,\s*|\s+and\s+|\s*-\s*)?)+)")
    for path in files:
        for match in pattern.finditer(Path(path).read_text()):
            seeds |= {int(n) for n in re.findall(r"\d+", match.group(1))}
    return seeds


# Reset seeds a quoted evaluation shares with the bench by chance (32-bit seeds, millions of
# deals) at a table the bench does not play (every bench table has 4 players; the same reset
# seed deals other cards at another count): 2-player zimbabwe's bar deal 1716 on seed 54000023
# is bench deal 92's seed.
ELSEWHERE = {seed_of(54000023, 1716)}


def test_the_bench_deals_are_dealt_by_no_config_and_no_quoted_evaluation():
    """The bench's deals (up to 2,000 a pairing) are dealt from seeds no shipped config trains
    or checks on and no run in the docs was measured on: every game is dealt from a 32-bit
    reset seed (``raw_env.reset(seed=s)``), so those seeds must not meet."""
    bench = {seed_of(b.BENCH_SEED, d) for d in range(2000)}
    assert b.BENCH_SEED not in _quoted_seeds()
    # evaluations: crates eval --seed S deals seed_of(S, d); the configs' checks, the docs' runs
    configs = [load_config(path, []) for path in sorted(glob.glob(str(ROOT / "configs/*.yaml")))]
    eval_seeds = _quoted_seeds() | {c.eval.seed for c in configs}
    assert len(eval_seeds) > 50
    evaluated = {seed_of(s, d) for s in eval_seeds for d in range(2000)}
    assert {seed_of(b.BENCH_SEED, 92)} == ELSEWHERE  # a 2-player table's deal, not a bench one
    assert all(players == 4 for _, players in b.BENCH_TABLES)
    assert bench & evaluated == ELSEWHERE
    # training: each worker's games from its seed's sequence (train.opponents.PoolSeating),
    # the labels of expert iteration from (1000 * seed + round, chunk)
    trained = set()
    for c in configs:
        for workers in {1, 2, max(c.workers, 1), len(c.played_tables())}:
            for seed in worker_seeds(c.seed, workers):
                sequence = np.random.SeedSequence(seed)
                trained |= {seed, *(new_game_seed(sequence) for _ in range(300))}
        for r in range(1, c.expert.rounds + 1):
            for chunk in range(20):
                states = np.random.SeedSequence([1000 * c.seed + r, chunk]).generate_state(40)
                trained |= {int(s) for s in states}
    assert len(trained) > 10_000
    assert not bench & trained


# ------------------------------------------------------------------------------ the bench
def test_tables_are_named_as_a_mixture_names_them():
    assert b.parse_tables("crates:3, zimbabwe:4") == (("crates", 3), ("zimbabwe", 4))
    assert len(b.parse_tables("covered")) == 28
    with pytest.raises(ValueError, match="crates:4 more than once"):
        b.parse_tables("crates:4,crates:4")
    with pytest.raises(ValueError, match="preset:players"):
        b.parse_tables("crates")
    with pytest.raises(ValueError, match="players"):
        b.parse_tables("crates:9")


def test_the_reference_rates_the_ladder_at_each_table(reference):
    result, _ = reference
    assert [t.table for t in result.tables] == ["crazy_eights:4", "zimbabwe:4"]
    for t in result.tables:
        (table,) = b.parse_tables(t.table)
        ladder = b.ladder_at(table, search=False)
        assert sorted(r.name for r in t.ratings) == sorted(ladder)
        assert len(t.played_pairs) == len(ladder) * (len(ladder) - 1) // 2
        assert all(p.deals == 3 for p in t.played_pairs) and not t.reference_pairs
        assert next(r for r in t.ratings if r.name == "heuristic").rating == 0
        assert t.shipped == b.shipped_fingerprint(table)
        counts = [b.decided_counts(p) for p in t.played_pairs]
        expected = bradley_terry(counts, "heuristic")
        assert {r.name: r.rating for r in t.ratings} == {n: r.rating for n, r in expected.items()}


def test_an_agent_meets_the_ladder_on_the_same_deals_and_the_ladder_stays_put(reference, tmp_path):
    ladder, _ = reference
    config = b.BenchConfig(
        agents=("tests.user_agents:LowestCard",), tables=TABLES, deals=2, workers=1
    )
    result = b.bench(config, tmp_path, ladder, say=quiet, progress=False)
    for t, kept in zip(result.tables, ladder.tables, strict=True):
        assert t.reference_pairs == kept.played_pairs and not t.failures
        (table,) = b.parse_tables(t.table)
        assert [(p.first, p.second, p.deals) for p in t.played_pairs] == [
            (config.agents[0], other, 2) for other in b.ladder_at(table, search=False)
        ]
        theirs = {r.name: r.rating for r in kept.ratings}
        mine = {r.name: r.rating for r in t.ratings}
        assert {n: mine[n] for n in theirs} == theirs  # the ladder where the reference put it
        assert "tests.user_agents:LowestCard" in mine
    # the pairing against heuristic is crates eval's evaluation of the same deals
    folder = b.pairing_folder(tmp_path, config.pairing(config.agents[0], "heuristic", TABLES[1]))
    saved = json.loads((folder / "report.json").read_text())
    assert saved["config"]["seed"] == b.BENCH_SEED and saved["deals"] == [0, 1]


def test_an_agent_that_fails_at_one_table_is_reported_there_and_the_others_run(reference, tmp_path):
    """A network of the 4-player observations, a move the mask forbids, an exception: each at
    the 3-player table only. That table has no reference results, so the ladder plays there."""
    script = tmp_path / "four_players.pt"
    torch.jit.script(FourPlayers()).save(str(script))
    agents = (str(script), "tests.user_agents:IllegalAtThree", "tests.user_agents:RaisesAtThree")
    config = b.BenchConfig(
        agents=agents, tables=(("zimbabwe", 3), ("zimbabwe", 4)), deals=2, workers=1
    )
    said: list[str] = []
    result = b.bench(config, tmp_path / "out", reference[0], say=said.append, progress=False)
    three, four = result.tables
    assert set(three.failures) == set(agents)
    assert "cannot be made for this table" in three.failures[str(script)]
    assert "observations" in three.failures[str(script)]
    assert three.failures[agents[1]].startswith("ValueError: game 0: illegal action")
    assert three.failures[agents[2]] == "RuntimeError: this agent was only written for four players"
    assert any("IllegalAtThree failed against random" in line for line in said)
    assert "the ladder played here" in three.notes[0]
    assert sorted(r.name for r in three.ratings) == [
        "greedy",
        "heuristic",
        "random",
        "shipped",
    ]  # mixture.zip
    assert not four.failures and {a for a in agents} <= {r.name for r in four.ratings}
    text = format_bench(result)
    assert f"{agents[2]}: no result here: RuntimeError" in text


class FourPlayers(torch.nn.Module):
    """A policy that reads the 4-player observations only (a linear layer of their size)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(Table.from_rules("zimbabwe", 4).obs_size, 63)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.layer(obs).masked_fill(~mask, -1e9)


def test_a_stopped_bench_resumes_with_the_pairings_it_had_finished(
    reference, tmp_path, monkeypatch
):
    config = b.BenchConfig(
        agents=("tests.user_agents:highest",), tables=TABLES[:1], deals=2, workers=1
    )
    played = []
    real_run = b.run

    def stopped_at_the_third(evaluation, **kw):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(evaluation.agents)
        return real_run(evaluation, **kw)

    monkeypatch.setattr(b, "run", stopped_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        b.bench(config, tmp_path, reference[0], say=quiet, progress=False)
    assert played == [(config.agents[0], "random"), (config.agents[0], "greedy")]
    monkeypatch.setattr(
        b,
        "run",
        lambda evaluation, **kw: played.append(evaluation.agents) or real_run(evaluation, **kw),
    )
    said: list[str] = []
    resumed = b.bench(config, tmp_path, reference[0], say=said.append, progress=False)
    assert played[2:] == [(config.agents[0], "heuristic"), (config.agents[0], "shipped")]
    assert sum("(resumed)" in line for line in said) == 2
    again = b.bench(config, tmp_path / "whole", reference[0], say=quiet, progress=False)
    assert resumed.tables[0].played_pairs == again.tables[0].played_pairs
    # a pairing folder of other deals is played again, not read
    more = b.BenchConfig(agents=config.agents, tables=TABLES[:1], deals=3, workers=1)
    pairing = more.pairing(config.agents[0], "random", TABLES[0])
    assert b.pairing_folder(tmp_path, pairing).is_dir()
    assert b.saved_pair(b.pairing_folder(tmp_path, pairing), pairing) is None


def test_bench_outputs_and_the_quick_warning(reference, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ladder, _ = reference
    config = b.BenchConfig(
        agents=("tests.user_agents:LowestCard",), tables=TABLES[1:], deals=2, quick=True, workers=2
    )
    result = b.bench(config, tmp_path, ladder, say=quiet, progress=False)
    paths = write_bench(result, tmp_path)
    assert [p.name for p in paths] == [
        "bench.json",
        "ratings.csv",
        "pairs.csv",
        "bench.html",
        "tensorboard",
    ]
    text = (tmp_path / "bench.json").read_text()
    assert b.to_json(b.from_json(text)) == text == b.to_json(result)
    rows = (tmp_path / "ratings.csv").read_text().splitlines()
    assert rows[0] == "table,agent,role,rating,ci95,low,high,failed"
    assert sum(",benched," in r for r in rows) == 1 and len(rows) == 1 + 5
    assert "quick mode: 2 deals a pairing, so the intervals are wide" in format_bench(result)
    assert "quick mode" in page(result)
    events = EventAccumulator(str(paths[-1])).Reload()
    tag = "bench/zimbabwe_4p/tests.user_agents:LowestCard/rating"
    assert tag in events.Tags()["scalars"]


def test_cli_bench_and_its_bad_input(reference, tmp_path, capsys):
    _, results = reference
    args = [
        "bench",
        "tests.user_agents:LowestCard",
        "--tables",
        "zimbabwe:4",
        "--deals",
        "2",
        "--workers",
        "1",
        "--results",
        str(results),
        "--quiet",
        "--no-tensorboard",
    ]
    assert main([*args, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "zimbabwe, 4 players: rating (Elo points, heuristic 0)" in out
    assert "* benched here" in out
    assert (tmp_path / "bench.html").is_file()
    for bad, message in [
        (["bench", "heuristic"], "heuristic is on the reference ladder"),
        (["bench"], "name an agent to bench"),
        ([*args, "--tables", "crates:9"], "players"),
        ([*args, "--quick"], "--quick is 40 deals a pairing"),
        (["bench", "no_such_agent", "--tables", "zimbabwe:4"], "plays at none of the tables"),
        (["bench", "--reference", "random"], "name no agent"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(bad)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


# ------------------------------------------------------------------------- the leaderboard
def test_the_leaderboard_is_made_from_the_committed_reference():
    """docs/leaderboard.md and its chart are what ``crates bench --leaderboard`` makes of
    benchmarks/reference.json: regenerate them when the reference changes (docs/benchmark.md)."""
    result = b.read_results()
    source = "benchmarks/reference.json"
    assert b.reference_path().resolve() == (ROOT / source).resolve()
    assert (ROOT / "docs/leaderboard.md").read_text() == leaderboard_markdown(result, source)
    assert (ROOT / "docs" / LEADERBOARD_CHART).read_text() == leaderboard_svg(result)


def test_the_reference_covers_the_ladder_at_every_bench_table():
    """Every agent the package ships and the search and baselines, at every default table,
    played by the networks the package ships now."""
    result = b.read_results()
    assert [t.table for t in result.tables] == [b.table_key(*t) for t in b.BENCH_TABLES]
    for table, t in zip(b.BENCH_TABLES, result.tables, strict=True):
        assert sorted(r.name for r in t.ratings) == sorted(b.ladder_at(table, search=True))
        assert has_shipped_network(rules_of(*table, {}))
        assert t.shipped == b.shipped_fingerprint(table), f"{t.table}: regenerate the reference"


# ---------------------------------------------------------------------------- the browser
def test_the_bench_page_shows_a_panel_a_table(browser, reference, tmp_path):
    result, _ = reference
    path = tmp_path / "bench.html"
    path.write_text(page(result))
    tab = watched_page(browser, 1200, 900)
    tab.goto(path.as_uri())
    panels = tab.locator(".panel")
    assert panels.count() == len(result.tables)
    for i, t in enumerate(result.tables):
        panel = panels.nth(i)
        assert panel.get_attribute("data-table") == t.table
        assert panel.locator("h2").inner_text() == f"{t.table.split(':')[0]}, 4 players"
        dots = panel.locator("svg g.agent")
        assert dots.count() == len(t.ratings)
        assert [dots.nth(k).get_attribute("data-agent") for k in range(dots.count())] == [
            r.name for r in t.ratings
        ]
        box = panel.locator("svg circle").first.bounding_box()
        assert box is not None and box["width"] > 5  # drawn, not collapsed
    assert not tab.problems
    tab.close()

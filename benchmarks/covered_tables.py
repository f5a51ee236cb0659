"""A network against HeuristicAgent (or another baseline) at every covered table: the model
card's rows and its chart.

    python benchmarks/covered_tables.py --agent shipped --deals 2000 --out runs/covered
    python benchmarks/covered_tables.py --agent shipped --baseline greedy --out runs/covered_greedy
    python benchmarks/covered_tables.py --agent checkpoints/mixture.zip --tables crates:3,zimbabwe:5
    python benchmarks/covered_tables.py --chart runs/covered --png docs/covered_tables.png
    python benchmarks/covered_tables.py --chart runs/bar runs/bar5 --png docs/covered_tables.png
    python benchmarks/covered_tables.py --agent checkpoints/mixture.zip --other-table \
        --tables craits:7,crazy_eights:7 --out runs/other
    python benchmarks/covered_tables.py --agent checkpoints/mixture.zip --other-table \
        --tables crates:4 --rule standig_jokers=true --out runs/other

At each table (``crates_env.table_observation.COVERED_TABLES`` by default, or ``--tables``) it
runs ``crates eval --preset P --players N --agents AGENT BASELINE --deals D --seed S+k`` (the
evaluation's own duplicate deals, seats rotated; table k of the covered list gets seed S+k, and
the tables outside it the seeds after theirs, in the order given, so tables never share deals)
and keeps the report in ``OUT/<preset>_<players>p/report.json`` (``--rule``'s options in the
folder's name: ``crates_4p_standig_jokers=true``), with ``network.json`` beside it: the agent
and, for a network, its play digest (``agents.checkpoints.play_digest``: what decides its
moves). A table whose report is there is not played again, so a stopped run resumes and shares
of the tables can be played on other machines and pooled by copying the folders.

``--rule KEY=VALUE`` (repeatable) plays every table with that rule option, as ``crates eval``'s
does; ``--other-table`` lets a network named by path play a table outside the set it learned
(``crates eval --other-table``: a measurement, which each report records), such as the 7-player
tables or a covered table with other options.

``--chart`` reads the folders and draws the share of the decided deals in which the agent stood
better than the baseline, per table, with its 95% interval and the 55% bar (green where the
table is past it: 55% with sign p below 1e-6), prints the rows (share, sign p, mean
relative points), and the verdict: how many tables are past the bar, and which rule systems are
past it at every covered player count. Given several folders (runs on other seeds) it pools each
table's deals over the folders that played it (``train.evaluation.report.pooled_pairs``) and
prints each set's share beside the pool; it refuses to pool a table two networks played
(their ``network.json`` differ), and to draw tables of different matches (another agent, or
another baseline: one title and one record name them). Beside the chart it writes the record
of what it drew (``docs/covered_tables.png`` -> ``docs/covered_tables.json``: each table's
network, each set's comparison by its seed, and their pool), and ``--chart`` takes such a
record among its sources: the tables of the run folders after it replace the record's. A new
network at one table plays that table's two sets, and the chart is drawn again from the record
and those two folders, without playing the other tables again:

    python benchmarks/covered_tables.py --agent shipped --tables crazy_eights:3 --deals 2000 \
        --seed 52500000 --out runs/bar_new
    python benchmarks/covered_tables.py --agent shipped --tables crazy_eights:3 --deals 2000 \
        --seed 54000000 --out runs/bar5_new
    python benchmarks/covered_tables.py --chart docs/covered_tables.json runs/bar_new \
        runs/bar5_new --png docs/covered_tables.png
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env.table_observation import COVERED_TABLES
from train.cli.commands import parse_rules
from train.config import rules_of
from train.evaluation import EvalConfig, run, summarize, write_outputs
from train.evaluation.bench import network_digest, parse_tables
from train.evaluation.report import pooled_pairs
from train.evaluation.stats import PairComparison

# The bar of a learned player: better than HeuristicAgent in 55% of the decided deals, sign p
# below 1e-6 (docs/model_card.md)
BAR, BAR_P = 0.55, 1e-6
NETWORK = "network.json"  # which network played a table's deals, so that a pool holds one


def play(
    agents: tuple[str, str],
    tables: list[tuple[str, int]],
    deals: int,
    seed: int,
    out: Path,
    workers: int,
    options: dict[str, Any] | None = None,
    other_table: bool = False,
) -> None:
    """Play the agent against the baseline (``agents``) at the tables not yet in ``out``, one
    report a table, every table with the rule ``options``; ``other_table``: as ``crates
    eval --other-table``."""
    options = options or {}
    outside = [table for table in tables if table not in COVERED_TABLES]
    for preset, players in tables:
        name = f"{preset}_{players}p" + "".join(
            f"_{key}={json.dumps(value).replace(' ', '')}" for key, value in options.items()
        )
        folder = out / name
        if (folder / "report.json").is_file():
            continue
        k = (
            COVERED_TABLES.index((preset, players))
            if (preset, players) in COVERED_TABLES
            else len(COVERED_TABLES) + outside.index((preset, players))
        )
        config = EvalConfig(
            agents=agents,
            preset=preset,
            num_players=players,
            deals=deals,
            seed=seed + k,
            workers=workers,
            options=options,
            other_table=other_table,
        )
        try:
            report = summarize(config, run(config, progress=False))
        except ValueError as exc:  # the agent does not play this table: say so, play on
            print(f"{name}: not played ({exc})")
            continue
        folder.mkdir(parents=True, exist_ok=True)
        write_outputs(report, folder, tensorboard=False)
        digest = network_digest(agents[0], rules_of(preset, players, options), other_table)
        (folder / NETWORK).write_text(json.dumps({"agent": agents[0], "play_digest": digest}))
        print(f"{name}: {row(report.pairs[0])}")


def row(pair: PairComparison) -> str:
    """One table's line: the share of decided deals, its sign p, the mean relative points."""
    return (
        f"{pair.better_share:.1%} of {pair.deals} deals (sign p {pair.sign_p:.2g}, "
        f"signed-rank p {pair.wilcoxon_p:.2g}), mean points {pair.relative:+.1%}"
    )


def past_bar(pair: PairComparison) -> bool:
    """Past the bar: better in 55% of the decided deals, sign p below 1e-6."""
    return pair.better_share >= BAR and pair.sign_p < BAR_P


@dataclass(frozen=True)
class Measured:
    """One table's figure: the network that played it (its play digest; None for an agent that
    is not a network, or a run that did not record it), each set's comparison by its seed, and
    the pool of their deals."""

    play_digest: str | None
    sets: dict[int, PairComparison]
    pooled: PairComparison

    def to_json(self) -> dict[str, Any]:
        return {
            "play_digest": self.play_digest,
            "sets": [{"seed": seed, **asdict(pair)} for seed, pair in self.sets.items()],
            "pooled": asdict(self.pooled),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measured:
        sets = {}
        for entry in data["sets"]:
            fields = dict(entry)
            seed = int(fields.pop("seed"))
            sets[seed] = PairComparison(**fields)
        return cls(data["play_digest"], sets, PairComparison(**data["pooled"]))


def measured(folders: list[Path]) -> Measured:
    """One table's runs (a folder each, as ``play`` writes them), pooled: the sets by their
    seeds and the pool of their deals; ValueError when two of them record different networks
    (a folder without ``network.json``, written before it was kept, is taken at its word)."""
    played = {(f / NETWORK).read_text() for f in folders if (f / NETWORK).is_file()}
    digests = {json.loads(text)["play_digest"] for text in played}
    if len(digests) > 1:
        names = ", ".join(str(f) for f in folders)
        raise ValueError(f"{names}: played by different networks; pool runs of one network")
    sets = {
        json.loads((f / "report.json").read_text())["config"]["seed"]: pooled_pairs(
            [f / "deals.csv"]
        )[0]
        for f in folders
    }
    (pair,) = pooled_pairs([f / "deals.csv" for f in folders])
    return Measured(next(iter(digests), None), sets, pair)


def read_record(path: Path) -> dict[tuple[str, int], Measured]:
    """The tables a record (``--chart``'s JSON beside its chart) holds."""
    try:
        tables = json.loads(path.read_text())["tables"]
        return {parse_tables(name)[0]: Measured.from_json(data) for name, data in tables.items()}
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a record of covered_tables.py --chart ({exc!r})") from exc


def gather(sources: list[Path]) -> dict[tuple[str, int], Measured]:
    """Every covered table measured in ``sources``, in the covered list's order: the records
    (``.json`` files) first, in order, then the run folders, each table pooled over the folders
    that played it, which replace what a record held there (a table a new network plays)."""
    records = [s for s in sources if s.suffix == ".json" and s.is_file()]
    runs = [s for s in sources if s not in records]
    found: dict[tuple[str, int], Measured] = {}
    for record in records:
        found |= read_record(record)
    for preset, players in COVERED_TABLES:
        folders = [o / f"{preset}_{players}p" for o in runs]
        folders = [f for f in folders if (f / "report.json").is_file()]
        if folders:
            found[preset, players] = measured(folders)
    return {table: found[table] for table in COVERED_TABLES if table in found}


def verdict(passed: dict[tuple[str, int], bool]) -> list[str]:
    """The bar's two counts over the measured tables: tables past it, and the rule systems
    past it at every covered player count (a system with a count not measured is not)."""
    counts: dict[str, list[int]] = {}
    for preset, players in COVERED_TABLES:
        counts.setdefault(preset, []).append(players)
    whole = [p for p, ns in counts.items() if all(passed.get((p, n), False) for n in ns)]
    missed = [f"{p} {n}p" for (p, n), ok in passed.items() if not ok]
    return [
        f"past the bar at {sum(passed.values())} of {len(passed)} tables measured",
        f"rule systems past it at every player count: {len(whole)} ({', '.join(whole) or 'none'})",
        f"below it: {', '.join(missed) or 'none'}",
    ]


def chart(sources: list[Path], png: Path) -> None:
    """The share of decided deals per table (``gather``: run folders, each table's deals pooled
    over them, and earlier records), with its 95% interval and the bar; the tables' figures
    written beside the chart (``png`` as ``.json``), the record a later chart starts from."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = gather(sources)
    if not tables:  # nothing to draw: the chart already there stays
        names = ", ".join(str(s) for s in sources)
        raise ValueError(f"no covered table's report.json in {names}: {png} left as it was")
    matches = sorted({(t.pooled.first, t.pooled.second) for t in tables.values()})
    if len(matches) > 1:  # one title and one record name the agent and its baseline
        played = "; ".join(f"{first} against {second}" for first, second in matches)
        raise ValueError(
            f"the tables were played by different matches ({played}): chart one agent against "
            f"one baseline; {png} left as it was"
        )
    ((first, baseline),) = matches
    shares, errors = [], []
    passed: dict[tuple[str, int], bool] = {}  # the tables measured, in the covered list's order
    for (preset, players), table in tables.items():
        pair = table.pooled
        shares.append(pair.better_share)
        passed[preset, players] = past_bar(pair)
        decided = max(1, pair.decided)  # ties dropped
        errors.append(1.96 * (pair.better_share * (1 - pair.better_share) / decided) ** 0.5)
        each = ", ".join(f"{p.better_share:.1%} on seed {seed}" for seed, p in table.sets.items())
        print(f"{preset} {players}p: {row(pair)}" + (f" ({each})" if len(table.sets) > 1 else ""))
    sets = {len(t.sets) for t in tables.values()}
    deals = sorted({t.pooled.deals for t in tables.values()})
    sizes = f"{deals[0]:,}" if len(deals) == 1 else f"{deals[0]:,} to {deals[-1]:,}"
    agent = f"{first}, {sizes} deals a table" + (
        f" ({max(sets)} sets pooled)" if max(sets) > 1 else ""
    )
    names = [f"{preset} {players}p" for preset, players in passed]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(names) + 1.2))
    colours = ["tab:green" if ok else "tab:gray" for ok in passed.values()]
    ax.barh(names[::-1], shares[::-1], xerr=errors[::-1], color=colours[::-1], capsize=2)
    ax.axvline(0.5, color="black", linewidth=0.8)
    ax.axvline(BAR, color="tab:red", linestyle="--", linewidth=0.8, label="the bar (55%)")
    ax.set_xlim(0.3, min(1.0, max([0.8, *(s + e for s, e in zip(shares, errors, strict=True))])))
    ax.set_xlabel(f"share of the decided deals better than {baseline} (95% interval)")
    ax.set_title(f"{agent} (green: past the bar, 55% with sign p < 1e-6)", fontsize=9)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    record = {
        "agent": first,
        "baseline": baseline,
        "tables": {f"{p}:{n}": table.to_json() for (p, n), table in tables.items()},
    }
    png.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {png} and {png.with_suffix('.json')}")
    print("\n".join(verdict(passed)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="shipped")
    parser.add_argument("--baseline", default="heuristic", help="the agent it plays against")
    parser.add_argument(
        "--tables", default=None, help="crates:3,zimbabwe:5 or covered (default: covered)"
    )
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=52000000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--rule", action="append", default=[], metavar="KEY=VALUE", help="as crates eval's"
    )
    parser.add_argument(
        "--other-table",
        action="store_true",
        help="a network named by path may play a table outside its set, as crates eval's",
    )
    parser.add_argument("--out", type=Path, default=Path("runs/covered"))
    parser.add_argument(
        "--chart",
        type=Path,
        nargs="+",
        default=None,
        help="draw the folders' results, each table's deals pooled over them, over the tables "
        "of the records (.json) named before them",
    )
    parser.add_argument("--png", type=Path, default=Path("docs/covered_tables.png"))
    args = parser.parse_args()
    if args.chart is not None:
        try:
            chart(args.chart, args.png)
        except ValueError as exc:  # no reports, or two networks at a table
            parser.error(str(exc))
        return
    tables = COVERED_TABLES if args.tables is None else parse_tables(args.tables)
    play(
        (args.agent, args.baseline),
        list(tables),
        args.deals,
        args.seed,
        args.out,
        args.workers,
        parse_rules(args.rule),
        args.other_table,
    )


if __name__ == "__main__":
    main()

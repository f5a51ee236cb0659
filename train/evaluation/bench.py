"""``crates bench``: the standard protocol (docs/benchmark.md). Each benched agent meets every
agent of the reference ladder (random, greedy, heuristic, the shipped network where the table
has one, search) at every table of the benchmark, one evaluation of ``tournament`` a pairing:
the same duplicate deals (``BENCH_SEED``, which nothing the package trains or quotes plays),
the seats rotated, compared deal by deal. The ladder's own pairings are played once and
committed (``benchmarks/reference.json``, package data as ``train/bench_reference.json``);
every bench reads them and plays only what they lack. Each agent gets a Bradley-Terry rating
at each table against the ladder's (``stats.bradley_terry``).

Each pairing is saved in its own folder as it finishes (``report.json`` and ``deals.csv``, as
``crates eval`` writes them), so a bench that is stopped resumes where it was. An agent that
fails at a table (it cannot be made for it, raises, plays an illegal move) is reported there
with the reason, and the other tables still run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from multiprocessing.pool import Pool
from pathlib import Path

from agents import Table, make_agent
from agents.checkpoints import play_digest
from agents.shipped import SHIPPED, has_shipped_network, package_file
from crates_env.files import atomic_write
from crates_env.rules import PRESETS, Ruleset
from crates_env.table_observation import table_key
from train.config import rules_of, table_names
from train.workers import WorkersFailed, ray_session

from .games import EvalConfig
from .report import DealLog
from .stats import PairComparison, Rating, bradley_terry, summarize
from .tournament import run, worker_pool

# The bench's deals: deal d is dealt from seed_of(BENCH_SEED, d), as ``crates eval --seed``
# deals them. No config trains on it and no run in the docs was measured on it
# (tests/test_bench.py checks the seeds never meet).
BENCH_SEED = 54_000_054
SEARCH = "search"
LADDER = ("random", "greedy", "heuristic", SHIPPED, SEARCH)  # the reference agents
ANCHOR = "heuristic"  # rated 0 at every table
BENCH_TABLES = tuple((preset, 4) for preset in PRESETS)  # the seven 4-player rule systems
DEALS = 300  # deals a pairing of a benched agent (docs/benchmark.md: the time it takes)
QUICK_DEALS = 40  # --quick: a first look, its intervals wide
REFERENCE_DEALS = 200  # the committed ladder's deals a pairing ...
REFERENCE_SEARCH_DEALS = 10  # ... and a pairing with search, whose games are slow
REFERENCE_FILE = "bench_reference.json"  # train's package data: benchmarks/reference.json

Say = Callable[[str], None]  # where a bench says what it has done, a line at a time


def parse_tables(text: str) -> tuple[tuple[str, int], ...]:
    """``"crates:3,zimbabwe:4"`` (or ``covered``) -> the tables, each checked to exist."""
    tables = [t for name in text.split(",") if name.strip() for t in table_names(name.strip())]
    if not tables:
        raise ValueError("--tables names no table; give preset:players,... (e.g. crates:4)")
    for preset, players in tables:
        rules_of(preset, players, {})  # a preset or player count that does not exist says so
    repeated = sorted({table_key(*t) for t in tables if tables.count(t) > 1})
    if repeated:
        raise ValueError(f"--tables names {', '.join(repeated)} more than once")
    return tuple(tables)


@dataclass(frozen=True)
class BenchConfig:
    """What a bench plays: ``agents`` against the ladder at ``tables``, ``deals`` a pairing
    (``search_deals`` against search, 0: none); ``reference``: the ladder against itself, the
    committed results made anew. Where: ``workers`` processes, or Ray tasks (``ray``)."""

    agents: tuple[str, ...] = ()
    tables: tuple[tuple[str, int], ...] = BENCH_TABLES
    deals: int = DEALS
    search_deals: int = 0
    quick: bool = False
    reference: bool = False
    workers: int = 2
    ray: str | None = None
    engine: str = "auto"

    def pairing(self, first: str, second: str, table: tuple[str, int]) -> EvalConfig:
        """The evaluation of one pairing: the bench's deals and seed, ``crates eval``'s way."""
        deals = self.search_deals if SEARCH in (first, second) else self.deals
        preset, players = table
        return EvalConfig(
            agents=(first, second),
            preset=preset,
            num_players=players,
            deals=deals,
            seed=BENCH_SEED,
            workers=self.workers,
            ray=self.ray,
            engine=self.engine,
        )


@dataclass
class TableResult:
    """One table's results: the ladder's pairs (from the reference, or played here) and the
    benched agents', every agent's rating, and why an agent has none."""

    table: str  # preset:players
    reference_pairs: list[PairComparison]  # taken from the committed results
    played_pairs: list[PairComparison]  # played by this bench
    ratings: list[Rating]  # best first
    failures: dict[str, str] = field(default_factory=dict)  # agent -> what went wrong
    seconds: float = 0.0  # playing this bench's pairs (those it resumed: when they were played)
    shipped: str | None = None  # the shipped network played: its file's sha256 (16 digits)
    notes: list[str] = field(default_factory=list)


@dataclass
class BenchResult:
    """A bench (``bench.json``); the committed reference is one, of the ladder alone."""

    seed: int
    agents: list[str]
    deals: int
    search_deals: int
    quick: bool
    tables: list[TableResult]
    command: str = ""
    seconds: float = 0.0  # wall time of the run that finished it (not of the pairings resumed)
    workers: int = 2

    def table(self, key: str) -> TableResult | None:
        return next((t for t in self.tables if t.table == key), None)


def to_json(result: BenchResult) -> str:
    return json.dumps(asdict(result), indent=1)


def from_json(text: str, where: str = "bench results") -> BenchResult:
    """A ``bench.json`` (or the reference) read back; ValueError naming ``where`` otherwise."""
    try:
        data = json.loads(text)
        tables = [
            TableResult(
                **{
                    **t,
                    "reference_pairs": [PairComparison(**p) for p in t["reference_pairs"]],
                    "played_pairs": [PairComparison(**p) for p in t["played_pairs"]],
                    "ratings": [Rating(**r) for r in t["ratings"]],
                }
            )
            for t in data.pop("tables")
        ]
        return BenchResult(**data, tables=tables)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: not crates bench results ({exc})") from None


def reference_path() -> Path:
    """The committed reference results the package ships."""
    return package_file("train", REFERENCE_FILE, "the bench's reference results")


def read_results(path: Path | None = None) -> BenchResult:
    """The results at ``path`` (default: the committed reference)."""
    path = Path(path) if path is not None else reference_path()
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the bench results ({exc.strerror})") from None
    return from_json(text, str(path))


def ladder_at(table: tuple[str, int], search: bool) -> list[str]:
    """The reference agents at a table: the shipped network only where it has one, search
    only when asked."""
    rules = rules_of(*table, {})
    return [
        name
        for name in LADDER
        if (name != SHIPPED or has_shipped_network(rules)) and (name != SEARCH or search)
    ]


def shipped_fingerprint(table: tuple[str, int]) -> str | None:
    """The shipped network at a table (``agents.checkpoints.play_digest``: what decides its
    moves), so that a reference played by another network is seen to be stale; None where
    there is none."""
    rules = rules_of(*table, {})
    return network_digest(SHIPPED, rules) if has_shipped_network(rules) else None


def network_digest(spec: str, rules: Ruleset, other_table: bool = False) -> str | None:
    """What decides the moves of the network an agent spec plays at a table
    (``agents.checkpoints.play_digest``), so that results of two runs are pooled only when one
    network played both; None for an agent that is not a network."""
    agent = make_agent(spec, Table.from_rules(rules), seed=0, other_table=other_table)
    network = getattr(agent, "network", None)
    return play_digest(network) if network is not None else None


def decided_counts(pair: PairComparison) -> tuple[str, str, int, int]:
    """(first, second, deals the first stood better in, deals the second did)."""
    first = round(pair.better_share * pair.decided) if pair.decided else 0
    return pair.first, pair.second, first, pair.decided - first


def rate(
    ladder_pairs: list[PairComparison], agent_pairs: dict[str, list[PairComparison]]
) -> list[Rating]:
    """The ladder rated on its own pairs (``ANCHOR`` at 0), then each benched agent fitted
    against those ratings, held fixed: one scale, on which the ladder stands where the
    reference puts it whatever is benched. Best first."""
    ladder = [decided_counts(p) for p in ladder_pairs]
    ratings = bradley_terry(ladder, ANCHOR)
    fixed = {name: r.rating for name, r in ratings.items()}
    for agent, pairs in agent_pairs.items():
        if pairs:
            mine = bradley_terry(ladder + [decided_counts(p) for p in pairs], ANCHOR, fixed)
            ratings[agent] = mine[agent]
    return sorted(ratings.values(), key=lambda r: -r.rating)


def failure(exc: BaseException) -> str:
    """What went wrong, for a table's report: an illegal move, a wrong size, an exception."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def folder_name(spec: str) -> str:
    """A pairing folder's name for an agent: readable, and distinct for distinct specs."""
    readable = re.sub(r"[^A-Za-z0-9=.-]+", "_", spec).strip("_")[-40:]
    return f"{readable}-{hashlib.sha256(spec.encode()).hexdigest()[:6]}"


def pairing_folder(out: Path, config: EvalConfig) -> Path:
    first, second = config.agents
    table = f"{config.preset}_{config.num_players}p"
    return out / table / f"{folder_name(first)}--{folder_name(second)}"


SAME_DEALS = ("agents", "preset", "num_players", "deals", "seed", "options")


def saved_pair(folder: Path, config: EvalConfig) -> tuple[PairComparison, float] | None:
    """A pairing this bench (or a stopped one) finished: its comparison and the seconds it
    took, if its folder holds the same evaluation; None to play it."""
    try:
        data = json.loads((folder / "report.json").read_text())
        wanted = {k: v for k, v in asdict(config).items() if k in SAME_DEALS}
        saved = {k: data["config"][k] for k in SAME_DEALS}
        if json.loads(json.dumps(wanted)) != saved:
            return None
        return PairComparison(**data["pairs"][0]), float(data.get("seconds", 0.0))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def play_pairing(
    config: EvalConfig, out: Path, pool: Pool | None, progress: bool
) -> tuple[PairComparison, float, bool]:
    """One pairing, from its folder if finished there, else played and saved there (its
    report.json last, the mark of a finished pairing); (comparison, seconds, resumed)."""
    folder = pairing_folder(out, config)
    saved = saved_pair(folder, config)
    if saved is not None:
        return *saved, True
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    records = run(
        config, progress=progress, keep=DealLog(folder / "deals.csv", config.agents).add, pool=pool
    )
    seconds = time.perf_counter() - start
    report = summarize(config, records)
    atomic_write(folder / "report.json", json.dumps({**asdict(report), "seconds": seconds}))
    return report.pairs[0], seconds, False


def check(config: BenchConfig) -> None:
    """Bad input, before any game: one ValueError naming it."""
    if config.reference and config.agents:
        raise ValueError("--reference plays the ladder against itself: name no agent with it")
    if not config.reference and not config.agents:
        raise ValueError(
            "name an agent to bench (a name, a checkpoint, a policy file or a "
            "class by import path: docs/benchmark.md)"
        )
    for agent in config.agents:
        if agent in LADDER:
            raise ValueError(
                f"{agent} is on the reference ladder: its results are the reference's "
                "(docs/leaderboard.md); crates bench --reference plays them again"
            )
    repeated = sorted({a for a in config.agents if config.agents.count(a) > 1})
    if repeated:
        raise ValueError(f"agent {repeated[0]} is named more than once")
    if config.deals < 1:
        raise ValueError(f"--deals must be at least 1, not {config.deals}")
    if config.search_deals < 0:
        raise ValueError(f"--search-deals must be 0 (no search) or more, not {config.search_deals}")
    if config.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {config.workers}")


def unfit_tables(config: BenchConfig) -> dict[str, dict[str, str]]:
    """Each agent made for each table before any game: table -> agent -> why it cannot be made
    there. An agent made at none of them (an unknown name, a file that is not there) is one
    ValueError: nothing to bench."""
    unfit: dict[str, dict[str, str]] = {table_key(*t): {} for t in config.tables}
    for agent in config.agents:
        for table in config.tables:
            try:
                make_agent(agent, Table.from_rules(rules_of(*table, {})), seed=0)
            except Exception as exc:  # a user's class may raise anything: it fails that table
                unfit[table_key(*table)][agent] = failure(exc)
        if all(agent in unfit[table_key(*t)] for t in config.tables):
            first = unfit[table_key(*config.tables[0])][agent]
            raise ValueError(f"agent {agent!r} plays at none of the tables ({first})")
    return unfit


@contextlib.contextmanager
def players(config: BenchConfig) -> Iterator[Pool | None]:
    """What plays every pairing's chunks: one pool of worker processes for the whole bench
    (started once: a process loads torch and the networks once), one Ray session, or None
    (this process)."""
    if config.ray is not None:
        with ray_session(config.ray, config.workers):
            yield None
    elif config.workers > 1:
        with worker_pool(config.workers) as pool:
            yield pool
    else:
        yield None


def bench(
    config: BenchConfig,
    out: Path,
    reference: BenchResult | None,
    say: Say = print,
    progress: bool = True,
    command: str = "",
) -> BenchResult:
    """Play the bench into ``out`` (resuming the pairings finished there) and return its
    results. ``reference``: the committed ladder results (None with ``config.reference``)."""
    check(config)
    unfit = unfit_tables(config)
    start = time.perf_counter()
    tables = []
    with players(config) as pool:
        for table in config.tables:
            kept = reference.table(table_key(*table)) if reference is not None else None
            tables.append(_bench_table(config, table, kept, unfit, out, pool, say, progress))
    return BenchResult(
        seed=BENCH_SEED,
        agents=list(config.agents),
        deals=config.deals,
        search_deals=config.search_deals,
        quick=config.quick,
        tables=tables,
        command=command,
        seconds=time.perf_counter() - start,
        workers=config.workers,
    )


def _bench_table(
    config: BenchConfig,
    table: tuple[str, int],
    kept: TableResult | None,
    unfit: dict[str, dict[str, str]],
    out: Path,
    pool: Pool | None,
    say: Say,
    progress: bool,
) -> TableResult:
    """One table: the ladder's pairs the reference lacks, then each agent against the ladder."""
    key = table_key(*table)
    fingerprint = shipped_fingerprint(table)
    notes = []
    reference_pairs = [] if kept is None else [*kept.reference_pairs, *kept.played_pairs]
    if kept is not None and kept.shipped != fingerprint:
        notes.append(
            "the reference played another shipped network than the package's now: "
            "regenerate it (crates bench --reference, docs/benchmark.md)"
        )
    ladder = ladder_at(table, search=config.search_deals > 0)
    have = {frozenset((p.first, p.second)) for p in reference_pairs}
    ladder_pairs = [
        (a, b) for i, a in enumerate(ladder) for b in ladder[i + 1 :] if {a, b} not in have
    ]
    if ladder_pairs and kept is None and not config.reference:
        notes.append("the reference has no results at this table: the ladder played here")
    played: list[PairComparison] = []
    agent_pairs: dict[str, list[PairComparison]] = {a: [] for a in config.agents}
    failures = {a: f"cannot be made for this table: {why}" for a, why in unfit[key].items()}
    seconds = 0.0
    games = [*ladder_pairs, *((agent, other) for agent in config.agents for other in ladder)]
    for first, second in games:
        if first in failures:
            continue
        pairing = config.pairing(first, second, table)
        try:
            pair, took, resumed = play_pairing(pairing, out, pool, progress)
        except (KeyboardInterrupt, WorkersFailed):
            raise
        except Exception as exc:  # the benched agent's code, at this table: report it there
            if first not in config.agents:
                raise
            failures[first] = failure(exc)
            say(f"{key}: {first} failed against {second}: {failures[first]}")
            continue
        seconds += took
        played.append(pair)
        if first in agent_pairs:
            agent_pairs[first].append(pair)
        say(_line(key, pair, took, resumed))
    ratings = rate([*reference_pairs, *[p for p in played if p.first in LADDER]], agent_pairs)
    return TableResult(
        table=key,
        reference_pairs=reference_pairs,
        played_pairs=played,
        ratings=ratings,
        failures=failures,
        seconds=seconds,
        shipped=fingerprint,
        notes=notes,
    )


def _line(key: str, pair: PairComparison, seconds: float, resumed: bool) -> str:
    """A pairing done, in a line."""
    how = "resumed" if resumed else f"{seconds:.0f} s"
    said = f"{key}: {pair.first} - {pair.second}: {pair.deals} deals, "
    if not pair.decided:
        return said + f"none decided ({how})"
    return said + (
        f"the first stood better in {pair.better_share:.1%} of {pair.decided} decided "
        f"(sign p {pair.sign_p:.2g}) ({how})"
    )

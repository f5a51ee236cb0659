"""Duplicate-deal evaluation: agents against each other on the same cards, seats rotated.

Every deal (a seed that fixes the cards of every hand of a game) is replayed once per *lineup*:
the agents are seated cyclically (seat ``s`` gets agent ``(s + r) mod k``) for every rotation
``r`` that gives a different seating, so each agent holds each seat's cards and the luck of the
deal cancels out, as bridge players score duplicate. Statistics are paired by deal.

Each game is seeded from ``(seed, deal, lineup, seat)`` alone, so results are identical whatever
the number of worker processes.
"""

from __future__ import annotations

import csv
import inspect
import json
import math
import multiprocessing as mp
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import SearchAgent, Table, decide, make_agent, search_settings
from crates_env.actions import DRAW
from crates_env.env import final_standing, play_seats, raw_env
from train.config import rules_of
from train.workers import serve_parent


@dataclass(frozen=True)
class EvalConfig:
    """What to play: agent specs (names or checkpoint paths), rules, number of deals, seed."""

    agents: tuple[str, ...]
    preset: str = "crates"
    num_players: int = 4
    deals: int = 100
    seed: int = 0
    workers: int = 2
    options: dict[str, Any] = field(default_factory=dict)

    def env_kwargs(self) -> dict[str, Any]:
        return {"preset": self.preset, "num_players": self.num_players, **self.options}


@dataclass
class SeatRecord:
    """One seat's outcome in one game."""

    agent: int
    points: int  # the seat's side's final score
    pressure_points: int  # the part of it that came from pressures
    share_of_win: float  # 1 if its side alone won, 1/k for a k-way tie
    hand_points: dict[int, list[int]]  # deal size -> the side's points in hands of that size
    pressures: int  # pressures this seat took
    counts_drawn: int  # cards drawn ending counts
    stars: int


@dataclass
class GameRecord:
    deal: int
    lineup: int
    seats: list[SeatRecord]
    team_of_seat: list[int]
    final_scores: list[int]  # per side
    # per side, larger is better: the preset's own standing (lowest score wins in the Crates
    # family, highest in crazy_eights, lasting longest in zimbabwe; crates_env.env.final_standing)
    standing: list[float]


def lineups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """Distinct cyclic seatings of the agents (seat -> agent index)."""
    seen: list[tuple[int, ...]] = []
    for r in range(num_players):
        lineup = tuple((s + r) % num_agents for s in range(num_players))
        if lineup not in seen:
            seen.append(lineup)
    return seen


def validate(config: EvalConfig) -> Table:
    """Check rules and agents before any game; raise ValueError with one clear message."""
    if len(config.agents) < 2:
        raise ValueError("name at least two agents to compare")
    if config.deals < 1:
        raise ValueError(f"deals must be at least 1, not {config.deals}")
    if config.workers < 1:
        raise ValueError(f"workers must be at least 1, not {config.workers}")
    rules = rules_of(config.preset, config.num_players, config.options)
    if len(config.agents) > rules.num_players:
        raise ValueError(
            f"{len(config.agents)} agents cannot all sit at a {rules.num_players}-player table"
        )
    table = Table.from_rules(rules)
    for spec in dict.fromkeys(config.agents):
        make_agent(spec, table, seed=0)  # raises for an unknown name or a bad checkpoint
    return table


# ---------------------------------------------------------------------- playing (worker side)
_WORKER: dict[str, Any] = {}


def _init_worker(config: EvalConfig, worker: bool = True) -> None:
    if worker:
        serve_parent()
        # One torch thread a worker: workers that each take every core for a network's forward
        # pass crawl (a searched game took 14 times as long with two at once).
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    env = raw_env(**config.env_kwargs())
    table = Table.from_env(env)
    _WORKER.update(config=config, env=env, table=table)


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def play_game(task: tuple[int, int, tuple[int, ...]]) -> GameRecord:
    """Play deal ``deal`` with the agents seated by ``lineup``."""
    deal, index, lineup = task
    config: EvalConfig = _WORKER["config"]
    env: raw_env = _WORKER["env"]
    rules = env.rules
    # A fresh agent a seat, seeded by the game and seat alone (a checkpoint is loaded once a
    # process: agents.policy)
    seats = [
        make_agent(config.agents[a], _WORKER["table"], seed=_seed(config.seed, deal, index, s))
        for s, a in enumerate(lineup)
    ]
    for agent in seats:
        agent.reset()
    env.reset(seed=_seed(config.seed, deal))
    g = env.game
    counts_drawn = [0] * rules.num_players

    def choose(seat: int, obs: dict) -> int:
        action = decide(seats[seat], env, obs["observation"], obs["action_mask"])
        if action == DRAW:
            counts_drawn[seat] += g.view(seat).count  # 0 when no count runs
        return action

    play_seats(env, choose)
    return _record(deal, index, lineup, g, rules, counts_drawn)


def _record(deal, index, lineup, g, rules, counts_drawn) -> GameRecord:
    winners = g.winners()
    team_of = [rules.team_of(s) for s in range(rules.num_players)]
    pressures = [sum(r.seat_pressures[s] for r in g.results) for s in range(rules.num_players)]
    records = []
    for s, agent in enumerate(lineup):
        hand_points: dict[int, list[int]] = defaultdict(list)
        for result in g.results:
            hand_points[result.deal_size].append(result.team_points[team_of[s]])
        records.append(
            SeatRecord(
                agent=agent,
                points=g.scores[team_of[s]],
                pressure_points=sum(r.pressure_points[team_of[s]] for r in g.results),
                share_of_win=1 / len(winners) if team_of[s] in winners else 0.0,
                hand_points=dict(hand_points),
                pressures=pressures[s],
                counts_drawn=counts_drawn[s],
                stars=g.stars[s],
            )
        )
    return GameRecord(deal, index, records, team_of, list(g.scores), final_standing(g))


# ---------------------------------------------------------------------- the tournament
def run(config: EvalConfig, progress: bool = True) -> list[GameRecord]:
    """Play every deal in every lineup; results come back in a fixed order."""
    validate(config)
    seatings = lineups(len(config.agents), config.num_players)
    tasks = [(d, i, lu) for d in range(config.deals) for i, lu in enumerate(seatings)]
    bar = _progress(len(tasks), progress)
    if config.workers == 1:
        _init_worker(config, worker=False)
        records = []
        for task in tasks:
            records.append(play_game(task))
            bar.update()
    else:
        ctx = mp.get_context("spawn")  # clean workers: no torch or RNG state inherited
        with ctx.Pool(config.workers, initializer=_init_worker, initargs=(config,)) as pool:
            records = []
            for record in pool.imap(play_game, tasks, chunksize=8):
                records.append(record)
                bar.update()
    bar.close()
    return records


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="games", unit="game", disable=not enabled, leave=False)


# ---------------------------------------------------------------------- statistics
@dataclass
class AgentSummary:
    name: str
    games: int  # games the agent sat in (in one seat or more)
    mean_points: float
    ci95: float
    median_points: float  # pressures double, so a few games dominate the mean: see the median
    card_points: float  # mean points per game without pressures
    win_rate: float
    pressures_per_game: float
    counts_drawn_per_game: float
    points_by_deal_size: dict[int, float]
    rating_mu: float = 0.0
    rating_sigma: float = 0.0
    rating_ordinal: float = 0.0


@dataclass
class PairComparison:
    first: str
    second: str
    deals: int
    mean_difference: float  # first minus second, game points per deal (negative: first better)
    ci95: float
    relative: float  # mean difference / second's mean points
    p_value: float  # paired t-test on the points differences
    wilcoxon_p: float  # paired signed-rank test: robust to the heavy tail of pressures
    win_rate_difference: float  # first's win rate minus second's, over the same deals
    win_rate_p: float  # paired t-test on the per-deal win-share differences
    fewer_points_share: float  # of the deals with a difference: first scored fewer points
    sign_p: float  # sign test on the per-deal points differences (ties dropped)


@dataclass
class Report:
    config: dict[str, Any]
    agents: list[AgentSummary]
    pairs: list[PairComparison]
    # per deal, in deal order: each agent's mean points and win share (deals.csv; runs of other
    # deals pool by concatenating them)
    deals: list[int] = field(default_factory=list)
    deal_points: list[list[float]] = field(default_factory=list)
    deal_win_shares: list[list[float]] = field(default_factory=list)


def summarize(config: EvalConfig, records: Sequence[GameRecord]) -> Report:
    names = list(config.agents)
    per_deal = _per_deal(records, len(names), "points")
    wins = _per_deal(records, len(names), "share_of_win")
    summaries = []
    for a, name in enumerate(names):
        seats = [s for r in records for s in r.seats if s.agent == a]
        deal_means = np.array([per_deal[d][a] for d in sorted(per_deal)])
        by_size: dict[int, list[int]] = defaultdict(list)
        for s in seats:
            for size, pts in s.hand_points.items():
                by_size[size].extend(pts)
        summaries.append(
            AgentSummary(
                name=name,
                games=sum(any(s.agent == a for s in r.seats) for r in records),
                mean_points=float(deal_means.mean()),
                ci95=_ci95(deal_means),
                median_points=float(np.median([s.points for s in seats])),
                card_points=float(np.mean([s.points - s.pressure_points for s in seats])),
                win_rate=float(np.mean([s.share_of_win for s in seats])),
                pressures_per_game=float(np.mean([s.pressures for s in seats])),
                counts_drawn_per_game=float(np.mean([s.counts_drawn for s in seats])),
                points_by_deal_size={k: float(np.mean(v)) for k, v in sorted(by_size.items())},
            )
        )
    _rate(records, summaries)
    pairs = _pairs(names, per_deal, wins)
    deals = sorted(per_deal)
    return Report(
        config=asdict(config),
        agents=summaries,
        pairs=pairs,
        deals=deals,
        deal_points=[list(per_deal[d]) for d in deals],
        deal_win_shares=[list(wins[d]) for d in deals],
    )


def _per_deal(records: Sequence[GameRecord], k: int, what: str) -> dict[int, list[float]]:
    """deal -> each agent's mean ``what`` (a SeatRecord field) over its seats in that deal."""
    sums: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(k))
    seats: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(k))
    for r in records:
        for s in r.seats:
            sums[r.deal][s.agent] += getattr(s, what)
            seats[r.deal][s.agent] += 1
    return {d: list(sums[d] / np.maximum(seats[d], 1)) for d in sums}


def _ci95(values: np.ndarray) -> float:
    """Half-width of the 95% confidence interval of the mean (Student's t)."""
    if len(values) < 2:
        return float("nan")
    from scipy import stats

    return float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))


def _pairs(names: list[str], per_deal: dict, wins: dict) -> list[PairComparison]:
    """Every pair of agents compared over the deals (keys of ``per_deal`` and ``wins``)."""
    return [
        _compare(names[i], names[j], per_deal, wins, i, j)
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]


def _compare(first, second, per_deal, wins, i, j) -> PairComparison:
    from scipy import stats

    deals = sorted(per_deal)
    diffs = np.array([per_deal[d][i] - per_deal[d][j] for d in deals])
    win_diffs = np.array([wins[d][i] - wins[d][j] for d in deals])
    second_mean = float(np.mean([per_deal[d][j] for d in deals]))
    nonzero = diffs[diffs != 0]
    return PairComparison(
        first=first,
        second=second,
        deals=len(diffs),
        mean_difference=float(diffs.mean()),
        ci95=_ci95(diffs),
        relative=float(diffs.mean() / second_mean) if second_mean else float("nan"),
        p_value=_ttest_p(diffs),
        wilcoxon_p=float(stats.wilcoxon(nonzero).pvalue) if len(nonzero) > 1 else float("nan"),
        win_rate_difference=float(win_diffs.mean()),
        win_rate_p=_ttest_p(win_diffs),
        fewer_points_share=float(np.mean(nonzero < 0)) if len(nonzero) else float("nan"),
        sign_p=_sign_p(nonzero),
    )


def _sign_p(nonzero: np.ndarray) -> float:
    """Two-sided sign test: as many deals better as worse? (Ties are left out.)"""
    from scipy import stats

    if not len(nonzero):
        return float("nan")
    return float(stats.binomtest(int((nonzero < 0).sum()), len(nonzero)).pvalue)


def _ttest_p(diffs: np.ndarray) -> float:
    """Two-sided p-value that the paired differences have mean zero."""
    from scipy import stats

    if len(diffs) < 2:
        return float("nan")
    if diffs.std() == 0:
        return 0.0 if diffs.mean() else 1.0
    return float(stats.ttest_1samp(diffs, 0.0).pvalue)


def _rate(records: Sequence[GameRecord], summaries: list[AgentSummary]) -> None:
    """OpenSkill (Plackett-Luce) ratings over every game, sides ranked by the preset's own
    standing (``GameRecord.standing``).

    An agent sitting in several seats of one game plays with a copy of its rating in each; its
    updates are averaged.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=s.name) for s in summaries]
    for r in records:
        teams = defaultdict(list)
        for seat, s in enumerate(r.seats):
            teams[r.team_of_seat[seat]].append(s.agent)
        sides = sorted(teams)
        copies = [
            [model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma) for a in teams[t]]
            for t in sides
        ]
        new = model.rate(copies, scores=[r.standing[t] for t in sides])
        updates = defaultdict(list)
        for t, side in zip(sides, new, strict=True):
            for a, rating in zip(teams[t], side, strict=True):
                updates[a].append(rating)
        for a, rs in updates.items():
            ratings[a].mu = float(np.mean([x.mu for x in rs]))
            ratings[a].sigma = float(np.mean([x.sigma for x in rs]))
    for summary, rating in zip(summaries, ratings, strict=True):
        summary.rating_mu = rating.mu
        summary.rating_sigma = rating.sigma
        summary.rating_ordinal = rating.ordinal()


# ---------------------------------------------------------------------- output
def format_report(report: Report) -> str:
    """A terminal table: one row per agent, then the pairwise comparisons. Doubling pressures
    make mean points heavy-tailed, so the tables lead with what survives them: the share of
    games won and the median, then the signed-rank test; the mean and its t-test come after."""
    cfg = report.config
    rules = rules_of(cfg["preset"], cfg["num_players"], cfg["options"])
    order = "highest" if rules.higher_score_wins else "lowest"
    lines = [
        f"{cfg['preset']}, {cfg['num_players']} players, {cfg['deals']} deals "
        f"(duplicate, seed {cfg['seed']}); the {order} score wins",
        f"{'agent':<24} {'games':>6} {'win rate':>9} {'median':>8} {'points/game':>18} "
        f"{'no pressure':>11} {'pressures':>9} {'count cards':>11} {'rating':>7}",
    ]
    for a in sorted(report.agents, key=lambda a: -a.win_rate):
        lines.append(
            f"{_short(a.name):<24} {a.games:>6} {a.win_rate:>9.1%} {a.median_points:>8.0f} "
            f"{a.mean_points:>10.1f} ± {a.ci95:>5.1f} {a.card_points:>11.1f} "
            f"{a.pressures_per_game:>9.2f} {a.counts_drawn_per_game:>11.2f} "
            f"{a.rating_ordinal:>7.2f}"
        )
    lines.append("")
    lines.append(
        f"{'pair (first - second)':<34} {'win rate diff':>13} {'p':>8} {'p (rank)':>8} "
        f"{'fewer pts':>9} {'p (sign)':>8} {'points difference':>20} {'relative':>9} {'p (t)':>8}"
    )
    for p in report.pairs:
        pair = f"{_short(p.first, 16)} - {_short(p.second, 16)}"
        lines.append(
            f"{pair:<34} {p.win_rate_difference:>+13.1%} {p.win_rate_p:>8.2g} "
            f"{p.wilcoxon_p:>8.2g} {p.fewer_points_share:>9.1%} {p.sign_p:>8.2g} "
            f"{p.mean_difference:>12.1f} ± {p.ci95:>5.1f} {p.relative:>9.1%} {p.p_value:>8.2g}"
        )
    return "\n".join(lines)


def _short(name: str, width: int = 24) -> str:
    """An agent's name for a table column: a checkpoint shows as ``run/file.zip``, SearchAgent
    with settings as ``search(samples,≤stock_max,base)``."""
    kind, colon, settings = name.partition(":")
    path = Path(name)
    if kind == "search" and colon:
        defaults = inspect.signature(SearchAgent).parameters
        agent = {k: defaults[k].default for k in ("samples", "stock_max", "base")}
        agent.update(search_settings(settings))
        name = f"search({agent['samples']},≤{agent['stock_max']},{Path(agent['base']).stem})"
    elif path.suffix == ".zip":
        name = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    return name if len(name) <= width else "…" + name[-(width - 1) :]


def prepare_output(out_dir: Path) -> None:
    """Make the output folder before any game is played: a bad ``--out`` must not cost a
    finished evaluation."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {out_dir} is a file; give a folder for the results")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {out_dir} cannot be made: {exc.strerror}") from None
    if not os.access(out_dir, os.W_OK):
        raise ValueError(f"--out {out_dir} is not writable")


def write_outputs(report: Report, out_dir: Path, tensorboard: bool = True) -> list[Path]:
    """JSON, CSV, a PNG chart and (optionally) TensorBoard scalars under ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [
        out_dir / "report.json",
        out_dir / "agents.csv",
        out_dir / "points.png",
        out_dir / "deals.csv",
    ]
    paths[0].write_text(json.dumps(asdict(report), indent=2))
    with paths[1].open("w", newline="") as f:
        writer = csv.writer(f)
        cols = [
            "name",
            "games",
            "mean_points",
            "ci95",
            "median_points",
            "card_points",
            "win_rate",
            "pressures_per_game",
            "counts_drawn_per_game",
            "rating_mu",
            "rating_sigma",
            "rating_ordinal",
        ]
        writer.writerow(cols)
        for a in report.agents:
            writer.writerow([getattr(a, c) for c in cols])
    _plot(report, paths[2])
    names = [a.name for a in report.agents]
    with paths[3].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["deal"] + [f"points {n}" for n in names] + [f"win share {n}" for n in names]
        )
        for deal, points, wins in zip(
            report.deals, report.deal_points, report.deal_win_shares, strict=True
        ):
            writer.writerow([deal, *points, *wins])
    if tensorboard:
        paths.append(_tensorboard(report, out_dir / "tensorboard"))
    return paths


def read_deals(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """A ``deals.csv``: the agents' names, each deal's points and win shares (deals x agents)."""
    with Path(path).open(newline="") as f:
        rows = list(csv.reader(f))
    k = (len(rows[0]) - 1) // 2
    names = [c.removeprefix("points ") for c in rows[0][1 : k + 1]]
    values = np.array([[float(x) for x in row[1:]] for row in rows[1:]]).reshape(-1, 2 * k)
    return names, values[:, :k], values[:, k:]


def pooled_pairs(paths: Sequence[Path]) -> list[PairComparison]:
    """The pairwise comparisons over the deals of several runs of the same agents (runs with
    different seeds play different deals), from their ``deals.csv`` files."""
    per_deal: dict[tuple[int, int], list[float]] = {}
    wins: dict[tuple[int, int], list[float]] = {}
    names: list[str] = []
    for run_index, path in enumerate(paths):
        run_names, points, shares = read_deals(path)
        if names and run_names != names:
            raise ValueError(f"{path} compares {run_names}, not {names}: pool runs of one match")
        names = run_names
        for d in range(len(points)):
            per_deal[run_index, d] = list(points[d])
            wins[run_index, d] = list(shares[d])
    return _pairs(names, per_deal, wins)


def _plot(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    names = [a.name for a in report.agents]
    left.bar(
        names,
        [a.mean_points for a in report.agents],
        yerr=[a.ci95 for a in report.agents],
        capsize=6,
        color="#4c72b0",
    )
    cfg = report.config
    rules = rules_of(cfg["preset"], cfg["num_players"], cfg["options"])
    left.set_ylabel(f"points per game ({'higher' if rules.higher_score_wins else 'lower'} wins)")
    left.set_title("Mean game points, 95% CI")
    for a in report.agents:
        sizes = sorted(a.points_by_deal_size)
        right.plot(sizes, [a.points_by_deal_size[s] for s in sizes], marker="o", label=a.name)
    right.set_xlabel("cards dealt")
    right.set_ylabel("points per hand")
    right.set_title("Points per hand by deal size")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _tensorboard(report: Report, log_dir: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(log_dir)) as writer:
        for a in report.agents:
            writer.add_scalar(f"eval/{a.name}/points_per_game", a.mean_points, 0)
            writer.add_scalar(f"eval/{a.name}/win_rate", a.win_rate, 0)
            writer.add_scalar(f"eval/{a.name}/rating", a.rating_ordinal, 0)
    return log_dir

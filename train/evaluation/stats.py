"""The statistics of an evaluation, paired by deal: per-agent summaries (mean with its 95%
interval, median, card points, pressures, win rate, OpenSkill rating) and pairwise comparisons
(share of deals with the better result and its sign test, the signed-rank test, the paired
t-test). Doubling pressures make mean points heavy-tailed, so the share, median and rank tests
come first in every report. Which result is better is the preset's (``Ruleset.point_sign``):
fewer points in the Crates family, more in crazy_eights.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from train.config import rules_of

from .games import EvalConfig, GameRecord


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
    decided: int  # the deals in which one stood better than the other (``better_share``'s)
    # first minus second, game points per deal (first better: negative where points are a cost,
    # positive where they are won; ``point_sign``)
    mean_difference: float
    ci95: float
    relative: float  # mean difference / second's mean points
    p_value: float  # paired t-test on the points differences
    wilcoxon_p: float  # signed-rank test on the standings: robust to heavy-tailed pressures
    win_rate_difference: float  # first's win rate minus second's, over the same deals
    win_rate_p: float  # paired t-test on the per-deal win-share differences
    better_share: float  # of the deals with a difference: first stood better (its points,
    # as the preset counts them; in zimbabwe, lasting longer)
    sign_p: float  # sign test on who stood better, deal by deal (ties dropped)
    point_sign: int = -1  # the preset's (Ruleset.point_sign): -1, fewer points are better


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
    # each agent's mean standing (larger is better: GameRecord.standing) in each deal
    deal_standings: list[list[float]] = field(default_factory=list)
    # an interrupted run (Ctrl-C): the deals it was to play; ``config["deals"]`` says how many
    # it played in every lineup, and they pool with other runs like any run's deals
    partial_of: int | None = None


def summarize(config: EvalConfig, records: Sequence[GameRecord]) -> Report:
    names = list(config.agents)
    per_deal = _per_deal(records, len(names), "points")
    wins = _per_deal(records, len(names), "share_of_win")
    standings = _per_deal(records, len(names), "standing")
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
    rules = rules_of(config.preset, config.num_players, config.options)
    pairs = pair_comparisons(names, per_deal, wins, standings, rules.point_sign)
    deals, deal_points, deal_wins, deal_standings = deal_rows(per_deal, wins, standings)
    return Report(
        config=asdict(config),
        agents=summaries,
        pairs=pairs,
        deals=deals,
        deal_points=deal_points,
        deal_win_shares=deal_wins,
        deal_standings=deal_standings,
    )


def deal_rows(
    per_deal: dict[int, list[float]], *more: dict[int, list[float]]
) -> tuple[list[int], ...]:
    """The deals in order, then each agent's mean points in each, and so for each of ``more``
    (win shares, standings: deals.csv's columns)."""
    deals = sorted(per_deal)
    return deals, *([list(values[d]) for d in deals] for values in (per_deal, *more))


DEAL_FIELDS = ("points", "share_of_win", "standing")  # deals.csv's columns, for each agent


def records_by_deal(records: Sequence[GameRecord], k: int) -> tuple[list, ...]:
    """``deal_rows`` of whole deals' ``records`` of ``k`` agents: each agent's points, win share
    and standing in each deal."""
    return deal_rows(*(_per_deal(records, k, what) for what in DEAL_FIELDS))


def _per_deal(records: Sequence[GameRecord], k: int, what: str) -> dict[int, list[float]]:
    """deal -> each agent's mean ``what`` (a SeatRecord field, or ``standing``: its side's
    standing) over its seats in that deal."""
    sums: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(k))
    seats: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(k))
    for r in records:
        for seat, s in enumerate(r.seats):
            if what == "standing":
                sums[r.deal][s.agent] += r.standing[r.team_of_seat[seat]]
            else:
                sums[r.deal][s.agent] += getattr(s, what)
            seats[r.deal][s.agent] += 1
    return {d: list(sums[d] / np.maximum(seats[d], 1)) for d in sums}


def _ci95(values: np.ndarray) -> float:
    """Half-width of the 95% confidence interval of the mean (Student's t)."""
    if len(values) < 2:
        return float("nan")
    from scipy import stats

    return float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))


def pair_comparisons(
    names: list[str], per_deal: dict, wins: dict, standings: dict, point_sign: int
) -> list[PairComparison]:
    """Every pair of agents compared over the deals (keys of ``per_deal``, ``wins`` and
    ``standings``): points (``point_sign`` says which are better, ``Ruleset.point_sign``), and
    which agent stood better deal by deal. The standing is the points as the preset counts them,
    except where the game is won by lasting (zimbabwe), where points are not the result: a player
    knocked out early scores few."""
    return [
        _compare(names[i], names[j], per_deal, wins, standings, i, j, point_sign)
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]


def _compare(first, second, per_deal, wins, standings, i, j, point_sign) -> PairComparison:
    from scipy import stats

    deals = sorted(per_deal)
    diffs = np.array([per_deal[d][i] - per_deal[d][j] for d in deals])
    win_diffs = np.array([wins[d][i] - wins[d][j] for d in deals])
    second_mean = float(np.mean([per_deal[d][j] for d in deals]))
    # who stood better in each deal (the share, the sign and signed-rank tests)
    ahead = np.array([standings[d][i] - standings[d][j] for d in deals])
    nonzero = ahead[ahead != 0]
    better = nonzero > 0
    return PairComparison(
        first=first,
        second=second,
        deals=len(diffs),
        decided=len(nonzero),
        mean_difference=float(diffs.mean()),
        ci95=_ci95(diffs),
        relative=float(diffs.mean() / second_mean) if second_mean else float("nan"),
        p_value=_ttest_p(diffs),
        wilcoxon_p=float(stats.wilcoxon(nonzero).pvalue) if len(nonzero) > 1 else float("nan"),
        win_rate_difference=float(win_diffs.mean()),
        win_rate_p=_ttest_p(win_diffs),
        better_share=float(np.mean(better)) if len(nonzero) else float("nan"),
        sign_p=_sign_p(better),
        point_sign=point_sign,
    )


def _sign_p(better: np.ndarray) -> float:
    """Two-sided sign test: as many deals better as worse? (``better``: one bool a deal with
    a difference; ties are left out.)"""
    from scipy import stats

    if not len(better):
        return float("nan")
    return float(stats.binomtest(int(better.sum()), len(better)).pvalue)


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


ELO = 400 / math.log(10)  # rating points a unit of log-odds: 400 points are odds of 10 to 1
PRIOR_DEALS = 0.5  # each pair played: a virtual half deal to either side (a sweep stays finite)


@dataclass(frozen=True)
class Rating:
    name: str
    rating: float  # Elo points: the anchor stands at 0
    ci95: float  # half-width of the 95% interval of the difference to the anchor (0: itself)


def bradley_terry(
    results: Sequence[tuple[str, str, int, int]],
    anchor: str,
    fixed: dict[str, float] | None = None,
) -> dict[str, Rating]:
    """Bradley-Terry ratings from duplicate deals: ``results`` holds (first, second, deals the
    first stood better in, deals the second did), and an agent rated ``r`` stands better than
    one rated ``s`` in a decided deal with odds ``10 ** ((r - s) / 400)``; ``anchor`` stands at
    0. Order does not matter (unlike OpenSkill's game-by-game updates), and the 95% intervals
    come from the likelihood's curvature (normal approximation). Every pair played also counts
    ``PRIOR_DEALS`` to either side, so an agent that won every deal gets a finite rating.

    ``fixed`` holds ratings kept as given (the reference ladder's, the anchor among them); the
    others are fitted against them, and their intervals come from the information of every
    pair, so they also carry the uncertainty of the ratings they were fitted to."""
    from scipy.special import expit

    names = list(dict.fromkeys(n for first, second, *_ in results for n in (first, second)))
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} played none of the pairs")
    at = {n: i for i, n in enumerate(names)}
    won = np.zeros((len(names), len(names)))
    for first, second, first_better, second_better in results:
        won[at[first], at[second]] += first_better + PRIOR_DEALS
        won[at[second], at[first]] += second_better + PRIOR_DEALS
    played = won + won.T
    theta = np.zeros(len(names))
    for name, rating in (fixed or {}).items():
        if name in at:
            theta[at[name]] = rating / ELO
    free = [at[n] for n in names if n != anchor and n not in (fixed or {})]
    rated = [at[n] for n in names if n != anchor]

    def information() -> np.ndarray:
        p = expit(theta[:, None] - theta[None, :])
        weight = played * p * (1 - p)
        return np.diag(weight.sum(1)) - weight

    for _ in range(200):  # Newton's method on a concave log-likelihood
        if not free:
            break
        p = expit(theta[:, None] - theta[None, :])
        gradient = (won - played * p).sum(1)[free]
        step = np.linalg.solve(information()[np.ix_(free, free)], gradient)
        theta[free] += np.clip(step, -3, 3)  # no overshoot from far off
        if np.abs(step).max() < 1e-10:
            break
    covariance = np.linalg.inv(information()[np.ix_(rated, rated)]) if rated else np.zeros((0, 0))
    z = 1.959963984540054  # the normal's 97.5th percentile
    spread = dict(zip(rated, z * np.sqrt(np.diag(covariance)) * ELO, strict=True))
    return {n: Rating(n, float(theta[at[n]] * ELO), float(spread.get(at[n], 0.0))) for n in names}

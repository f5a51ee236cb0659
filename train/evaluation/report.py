"""An evaluation's outputs: the terminal table, the files of an ``--out`` folder (report.json,
agents.csv, deals.csv, points.png, TensorBoard scalars), and the pooling of several saved runs'
deals into one comparison.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from agents import search_settings
from agents.search import EVERYWHERE, teacher_settings
from crates_env.files import atomic_write, write_atomically
from crates_env.rules import Ruleset
from train.config import rules_of

from .games import GameRecord
from .stats import PairComparison, Report, pair_comparisons, records_by_deal

NAME_WIDTH = 30  # the agent column: room for a SearchAgent and its settings
DEAL_COLUMNS = ("points", "win share", "standing")  # deals.csv: one of each per agent
# the header's line for a run whose networks may play a table they never learned
OTHER_TABLE = (
    "--other-table: the networks may play a table outside the set they learned (a measurement "
    "there, not a learned table's figure)"
)


def format_report(report: Report) -> str:
    """A terminal table: one row per agent, then the pairwise comparisons. Doubling pressures
    make mean points heavy-tailed, so the tables lead with what survives them: the share of
    games won and the median, then the signed-rank test; the mean and its t-test come after."""
    cfg = report.config
    rules = _rules(cfg)
    sign = rules.point_sign
    wins = f"the {'highest' if sign > 0 else 'lowest'} score wins"
    if rules.game_end == "last_player":
        wins = "the last player left wins"
    partial = "" if report.partial_of is None else f" (partial: of {report.partial_of})"
    lines = [
        f"{cfg['preset']}, {cfg['num_players']} players, {cfg['deals']} deals{partial} "
        f"(duplicate, seed {cfg['seed']}); {wins}",
        *([OTHER_TABLE] if cfg.get("other_table") else []),
        f"{'agent':<{NAME_WIDTH}} {'games':>6} {'win rate':>9} {'median':>8} {'points/game':>18} "
        f"{'no pressure':>11} {'pressures':>9} {'count cards':>11} {'rating':>7}",
    ]
    for a in sorted(report.agents, key=lambda a: -a.win_rate):
        name = _short(a.name, NAME_WIDTH, rules.preset)
        lines.append(
            f"{name:<{NAME_WIDTH}} {a.games:>6} {a.win_rate:>9.1%} "
            f"{a.median_points:>8.0f} {a.mean_points:>10.1f} ± {a.ci95:>5.1f} "
            f"{a.card_points:>11.1f} {a.pressures_per_game:>9.2f} "
            f"{a.counts_drawn_per_game:>11.2f} {a.rating_ordinal:>7.2f}"
        )
    lines.append("")
    lines.append(
        f"{'pair (first - second)':<34} {'win rate diff':>13} {'p':>8} {'p (rank)':>8} "
        f"{STOOD_BETTER[better_standing(rules)]:>9} {'p (sign)':>8} {'points difference':>20} "
        f"{'relative':>9} {'p (t)':>8}"
    )
    for p in report.pairs:
        pair = f"{_short(p.first, 16, rules.preset)} - {_short(p.second, 16, rules.preset)}"
        lines.append(
            f"{pair:<34} {p.win_rate_difference:>+13.1%} {p.win_rate_p:>8.2g} "
            f"{p.wilcoxon_p:>8.2g} {p.better_share:>9.1%} {p.sign_p:>8.2g} "
            f"{p.mean_difference:>12.1f} ± {p.ci95:>5.1f} {p.relative:>9.1%} {p.p_value:>8.2g}"
        )
    return "\n".join(lines)


def better_standing(rules: Ruleset) -> str:
    """How a report says which agent of a deal stood better: "fewer points", "more points"
    (``Ruleset.point_sign``), or "lasted longer" where the last player left wins."""
    if rules.game_end == "last_player":
        return "lasted longer"
    return "more points" if rules.point_sign > 0 else "fewer points"


# the comparisons' column for each of those
STOOD_BETTER = {"fewer points": "fewer pts", "more points": "more pts", "lasted longer": "lasted"}


def _rules(config: dict) -> Ruleset:
    """The ruleset of a report's config (``report.json``'s ``config``)."""
    return rules_of(config["preset"], config["num_players"], config["options"])


def _short(name: str, width: int = NAME_WIDTH, preset: str = "crates") -> str:
    """An agent's name for a table column: a checkpoint shows as ``run/file.zip``, SearchAgent
    with settings as ``search(samples,≤stock_max,base)`` at the table of ``preset`` (``all``
    for a search from the first move; ``,zZ`` after base for a z other than 1, ``,dN`` for
    ``deepen=N``)."""
    kind, colon, settings = name.partition(":")
    path = Path(name)
    if kind == "search" and colon:
        agent = {**asdict(teacher_settings(preset)), "base": "heuristic"}
        agent.update(search_settings(settings))
        stock = "all" if agent["stock_max"] >= EVERYWHERE else f"≤{agent['stock_max']}"
        z = f",z{agent['z']:g}" if agent["z"] != 1 else ""
        z += f",d{agent['deepen']}" if agent["deepen"] else ""
        name = f"search({agent['samples']},{stock},{Path(agent['base']).stem}{z})"
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


def write_outputs(
    report: Report, out_dir: Path, tensorboard: bool = True, written: list[Path] | None = None
) -> list[Path]:
    """JSON, CSV, a PNG chart and (optionally) TensorBoard scalars under ``out_dir``, each file
    whole or not at all (an OSError, of a full or read-only disk, leaves none half written),
    the results first and the chart last; ``written`` gets each path as it is written, so that
    a caller stopped by an OSError can say which files were saved."""
    written = [] if written is None else written
    out_dir.mkdir(parents=True, exist_ok=True)
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
    agents = [cols] + [[getattr(a, c) for c in cols] for a in report.agents]
    names = [a.name for a in report.agents]
    rows = deal_lines(names, report.deals, *report_columns(report), header=True)
    writes = [
        lambda: atomic_write(out_dir / "report.json", json.dumps(asdict(report), indent=2)),
        lambda: atomic_write(out_dir / "agents.csv", csv_text(agents)),
        lambda: atomic_write(out_dir / "deals.csv", rows),
        lambda: write_atomically(out_dir / "points.png", lambda tmp: _plot(report, tmp)),
    ]
    if tensorboard:
        writes.append(lambda: _tensorboard(report, out_dir / "tensorboard"))
    for write in writes:
        written.append(write())
    return written


def csv_text(rows: Sequence[Sequence]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


def report_columns(report: Report) -> tuple[list[list[float]], ...]:
    """A report's deals.csv columns, each agent's value in each deal (``DEAL_COLUMNS``)."""
    return report.deal_points, report.deal_win_shares, report.deal_standings


def deal_lines(names, deals, *columns, header: bool) -> str:
    """deals.csv's lines: a deal a row, each agent's points, win share and standing
    (``DEAL_COLUMNS``; ``header``: the column names first)."""
    top = [["deal", *(f"{column} {n}" for column in DEAL_COLUMNS for n in names)]]
    rows = zip(deals, *columns, strict=True)
    body = [[d, *(x for values in row for x in values)] for d, *row in rows]
    return csv_text((top if header else []) + body)


class DealLog:
    """deals.csv written as the evaluation goes: each batch of finished deals appended whole
    and flushed to disk, so a run killed outright (kill -9) keeps every deal it finished. A
    write that fails (a full or read-only disk) ends the log, ``problem`` says why, and the
    results stay in memory for the end of the run."""

    def __init__(self, path: Path, names: Sequence[str]) -> None:
        self.path, self.names = path, list(names)
        self.problem: OSError | None = None
        self._started = False  # the file begun, its header written (with the first deals)

    @property
    def kept(self) -> bool:
        """The file holds every deal added (some were, and none failed to be written)."""
        return self._started and self.problem is None

    def add(self, records: Sequence[GameRecord]) -> None:
        """Append the deals of ``records`` (whole deals, every lineup)."""
        if records and self.problem is None:
            rows = records_by_deal(records, len(self.names))
            self._write(
                deal_lines(self.names, *rows, header=not self._started),
                "a" if self._started else "w",
            )
            self._started = True

    def _write(self, text: str, mode: str) -> None:
        size = self.path.stat().st_size if self._started else 0
        try:
            with self.path.open(mode, newline="") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            self.problem = exc
            with contextlib.suppress(OSError):  # no torn row: the file as it was
                if self._started:
                    os.truncate(self.path, size)
                else:
                    self.path.unlink()


def read_deals(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray | None]:
    """A ``deals.csv``: the agents' names, each deal's points, win shares and standings (deals x
    agents; None for a file written before standings were kept)."""
    text = Path(path).read_text()
    if not text.endswith("\n"):  # a run killed mid-write: its last row is torn
        text = text[: text.rfind("\n") + 1]
    rows = list(csv.reader(io.StringIO(text, newline="")))
    columns = 3 if rows[0][-1].startswith("standing ") else 2
    k = (len(rows[0]) - 1) // columns
    names = [c.removeprefix("points ") for c in rows[0][1 : k + 1]]
    values = np.array([[float(x) for x in row[1:]] for row in rows[1:]]).reshape(-1, columns * k)
    standings = values[:, 2 * k :] if columns == 3 else None
    return names, values[:, :k], values[:, k : 2 * k], standings


def pooled_pairs(paths: Sequence[Path]) -> list[PairComparison]:
    """The pairwise comparisons over the deals of several runs of the same agents at the same
    table (runs with different seeds play different deals), from their ``deals.csv`` files and
    the ``report.json`` beside each (its table says which points are better)."""
    per_deal: dict[tuple[int, int], list[float]] = {}
    wins: dict[tuple[int, int], list[float]] = {}
    ahead: dict[tuple[int, int], list[float]] = {}
    names: list[str] = []
    rules: Ruleset | None = None
    for run_index, path in enumerate(paths):
        run_names, points, shares, standings = read_deals(path)
        if names and run_names != names:
            raise ValueError(f"{path} compares {run_names}, not {names}: pool runs of one match")
        names = run_names
        table = saved_rules(Path(path).parent)
        if rules is not None and table != rules:
            raise ValueError(f"{path} was played at another table: pool runs of one table")
        rules = table
        if standings is None:  # written before standings were kept: the points are the standing
            if table.game_end == "last_player":
                raise ValueError(f"{path} keeps no standings: evaluate those deals again")
            standings = table.point_sign * points
        for d in range(len(points)):
            per_deal[run_index, d] = list(points[d])
            wins[run_index, d] = list(shares[d])
            ahead[run_index, d] = list(standings[d])
    if rules is None:
        raise ValueError("pool at least one run's deals.csv")
    return pair_comparisons(names, per_deal, wins, ahead, rules.point_sign)


def saved_rules(out_dir: Path) -> Ruleset:
    """The table an evaluation's ``--out`` folder was played at (its report.json)."""
    return _rules(_saved_config(Path(out_dir) / "report.json"))


def _saved_config(path: Path) -> dict:
    """The evaluation config a ``report.json`` holds; ValueError naming the file otherwise."""
    try:
        config = json.loads(path.read_text())["config"]
        _rules(config)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not an evaluation's report.json ({exc})") from None
    return config


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
    higher = _rules(report.config).point_sign > 0
    left.set_ylabel(f"points per game ({'higher' if higher else 'lower'} wins)")
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

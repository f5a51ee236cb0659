"""What ``crates bench`` shows and writes: the terminal table, ``bench.json``, ``ratings.csv``,
``pairs.csv``, TensorBoard scalars and ``bench.html`` (one self-contained page: a panel a
table, the ratings with their intervals drawn as inline SVG, no script and nothing fetched);
and the leaderboard (``docs/leaderboard.md`` and its chart, ``leaderboard.svg``) made from the
committed reference. Everything here is a function of the results alone: the same results
give the same bytes, so a test can tell when the committed leaderboard is stale.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path

from crates_env.files import atomic_write
from crates_env.table_observation import table_of
from train.config import rules_of

from .bench import ANCHOR, SEARCH, BenchResult, TableResult, to_json
from .report import _short, better_standing, csv_text

QUICK_WARNING = "quick mode: {deals} deals a pairing, so the intervals are wide; quote a full bench"
BENCHED, LADDER_COLOUR = "#d9730d", "#2f6fb0"  # the chart's colours: benched agents, the ladder


def title(key: str) -> str:
    """``crates:4`` -> ``crates, 4 players``."""
    preset, players = table_of(key)
    return f"{preset}, {players} players"


def _preset(key: str) -> str:
    return table_of(key)[0]


def _name(name: str, key: str, width: int = 34) -> str:
    return _short(name, width, _preset(key))


def _stood_better(key: str) -> str:
    """How a table says the first of a pair did better: fewer points, more, lasted longer."""
    return better_standing(rules_of(*table_of(key), {}))


def _signed(x: float) -> str:
    return f"{x:+.0f}" if round(x) else "0"


def _interval(r) -> str:
    return f"{_signed(r.rating - r.ci95)} to {_signed(r.rating + r.ci95)}" if r.ci95 else "anchor"


def _p(p: float) -> str:
    return "n/a" if math.isnan(p) else f"{p:.2g}"


def _share(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1%}"


# ------------------------------------------------------------------------------ the terminal
def format_bench(result: BenchResult) -> str:
    """Per table: each agent's rating and interval (the benched ones marked), what failed."""
    lines = [_protocol(result)]
    if result.quick:
        lines.append(QUICK_WARNING.format(deals=result.deals))
    for t in result.tables:
        lines += ["", f"{title(t.table)}: rating (Elo points, {ANCHOR} 0) and 95% interval"]
        lines += [f"  note: {note}" for note in t.notes]
        for r in t.ratings:
            mark = "*" if r.name in result.agents else " "
            lines.append(
                f" {mark}{_name(r.name, t.table):<34} {_signed(r.rating):>6}  {_interval(r)}"
            )
        for agent, why in t.failures.items():
            lines.append(f"  {_name(agent, t.table)}: no result here: {why}")
    if result.agents:
        lines += ["", "* benched here; the other rows are the reference ladder's"]
    return "\n".join(lines)


def _protocol(result: BenchResult) -> str:
    search = ", search not played"
    if result.search_deals:
        search = f", {result.search_deals} against search"
    elif any(r.name == SEARCH for t in result.tables for r in t.ratings):
        search = ", search's rows from the reference only (--search-deals N plays it)"
    return (
        f"crates bench: {result.deals} duplicate deals a pairing{search} (seed {result.seed}, "
        "seats rotated); ratings are Bradley-Terry on the deals decided"
    )


# ----------------------------------------------------------------------------------- files
def write_bench(result: BenchResult, out: Path, tensorboard: bool = True) -> list[Path]:
    """bench.json, ratings.csv, pairs.csv, bench.html and (optionally) TensorBoard scalars."""
    paths = [
        atomic_write(out / "bench.json", to_json(result)),
        atomic_write(out / "ratings.csv", csv_text(rating_rows(result))),
        atomic_write(out / "pairs.csv", csv_text(pair_rows(result))),
        atomic_write(out / "bench.html", page(result)),
    ]
    if tensorboard:
        paths.append(_tensorboard(result, out / "tensorboard"))
    return paths


def rating_rows(result: BenchResult) -> list[list]:
    rows: list[list] = [["table", "agent", "role", "rating", "ci95", "low", "high", "failed"]]
    for t in result.tables:
        for r in t.ratings:
            role = "benched" if r.name in result.agents else "ladder"
            rows.append(
                [t.table, r.name, role, r.rating, r.ci95, r.rating - r.ci95, r.rating + r.ci95, ""]
            )
        rows += [[t.table, a, "benched", "", "", "", "", why] for a, why in t.failures.items()]
    return rows


PAIR_COLUMNS = (
    "deals",
    "decided",
    "better_share",
    "sign_p",
    "wilcoxon_p",
    "mean_difference",
    "ci95",
)


def pair_rows(result: BenchResult) -> list[list]:
    rows: list[list] = [["table", "first", "second", *PAIR_COLUMNS, "source"]]
    for t in result.tables:
        for source, pairs in (("reference", t.reference_pairs), ("this bench", t.played_pairs)):
            rows += [
                [t.table, p.first, p.second, *(getattr(p, c) for c in PAIR_COLUMNS), source]
                for p in pairs
            ]
    return rows


def _tensorboard(result: BenchResult, log_dir: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(log_dir)) as writer:
        for t in result.tables:
            where = t.table.replace(":", "_") + "p"
            for r in t.ratings:
                writer.add_scalar(f"bench/{where}/{r.name}/rating", r.rating, 0)
                writer.add_scalar(f"bench/{where}/{r.name}/rating_ci95", r.ci95, 0)
            for p in t.played_pairs:
                if p.first in result.agents:
                    writer.add_scalar(
                        f"bench/{where}/{p.first}/better_vs_{p.second}", p.better_share, 0
                    )
    return log_dir


# ------------------------------------------------------------------------------- the chart
ROW, TOP, BOTTOM, LABELS, PLOT, VALUES = 22, 34, 34, 250, 330, 110
WIDTH = LABELS + PLOT + VALUES


def _ticks(lo: float, hi: float) -> list[int]:
    """Round rating values across [lo, hi], 3 to 8 of them."""
    for step in (25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if (hi - lo) / step <= 7:
            break
    return list(range(math.ceil(lo / step) * step, math.floor(hi / step) * step + 1, step))


def panel_svg(
    t: TableResult, benched: Sequence[str], x: float = 0, y: float = 0, titled: bool = True
) -> str:
    """A table's ratings as an SVG panel: a row an agent, its rating a dot and its 95%
    interval a bar, the anchor's 0 dashed; benched agents in orange, the ladder in blue.
    ``titled``: the table's name at its top (a page's panel has its heading)."""
    lo = min([0.0, *(r.rating - r.ci95 for r in t.ratings)])
    hi = max([0.0, *(r.rating + r.ci95 for r in t.ratings)])
    pad = max((hi - lo) * 0.05, 10)
    lo, hi = lo - pad, hi + pad

    def at(v: float) -> str:
        return f"{LABELS + (v - lo) / (hi - lo) * PLOT:.1f}"

    height = TOP + ROW * len(t.ratings) + BOTTOM
    bottom = TOP + ROW * len(t.ratings)
    parts = [
        f'<svg class="chart" x="{x}" y="{y}" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg" '
        'font-family="sans-serif" font-size="12">',
        f'<text x="8" y="20" font-size="14" font-weight="bold">{title(t.table)}</text>'
        if titled
        else "",
        f'<line x1="{at(0)}" y1="{TOP - 6}" x2="{at(0)}" y2="{bottom}" stroke="#999" '
        'stroke-dasharray="4 3"/>',
        f'<line x1="{LABELS}" y1="{bottom}" x2="{LABELS + PLOT}" y2="{bottom}" stroke="#333"/>',
    ]
    for tick in _ticks(lo, hi):
        parts.append(
            f'<line x1="{at(tick)}" y1="{bottom}" x2="{at(tick)}" y2="{bottom + 4}" '
            f'stroke="#333"/><text x="{at(tick)}" y="{bottom + 16}" text-anchor="middle">'
            f"{_signed(tick)}</text>"
        )
    parts.append(
        f'<text x="{LABELS + PLOT / 2}" y="{bottom + 30}" text-anchor="middle" fill="#555">'
        f"rating (Elo points, {ANCHOR} 0), 95% interval</text>"
    )
    for i, r in enumerate(t.ratings):
        row = TOP + ROW * i + ROW / 2
        colour = BENCHED if r.name in benched else LADDER_COLOUR
        name = html.escape(_name(r.name, t.table))
        parts.append(
            f'<g class="agent" data-agent="{html.escape(r.name)}">'
            f'<text x="{LABELS - 8}" y="{row + 4}" text-anchor="end">{name}</text>'
            f'<line x1="{at(r.rating - r.ci95)}" y1="{row}" x2="{at(r.rating + r.ci95)}" '
            f'y2="{row}" stroke="{colour}" stroke-width="3"/>'
            f'<circle cx="{at(r.rating)}" cy="{row}" r="5" fill="{colour}"/>'
            f'<text x="{LABELS + PLOT + 8}" y="{row + 4}">{_signed(r.rating)}'
            f"{f' ± {r.ci95:.0f}' if r.ci95 else ''}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def panel_height(t: TableResult) -> int:
    return TOP + ROW * len(t.ratings) + BOTTOM


# -------------------------------------------------------------------------------- the page
STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
.quick { background: #fff3cd; border: 1px solid #e0b000; padding: 0.6em; }
.panel { border-top: 1px solid #ccc; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 13px; }
td, th { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: right; }
td:first-child, th:first-child, td.name { text-align: left; }
.note, .failed { color: #a33; }
"""


def page(result: BenchResult) -> str:
    """The self-contained HTML page of a bench: the protocol, then a panel a table."""
    head = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>crates bench</title>',
        f"<style>{STYLE}</style></head><body>",
        "<h1>crates bench</h1>",
        f"<p>{html.escape(_protocol(result))}.</p>",
    ]
    if result.command:
        head.append(f"<p>Made by <code>{html.escape(result.command)}</code>.</p>")
    if result.agents:
        head.append(
            f'<p>In the charts, <b style="color:{BENCHED}">the agents benched here</b> and '
            f'<b style="color:{LADDER_COLOUR}">the reference ladder</b>.</p>'
        )
    if result.quick:
        warning = html.escape(QUICK_WARNING.format(deals=result.deals))
        head.append(f'<p class="quick">{warning}.</p>')
    panels = [_panel_html(t, result.agents) for t in result.tables]
    return "\n".join([*head, *panels, "</body></html>", ""])


def _panel_html(t: TableResult, benched: Sequence[str]) -> str:
    parts = [f'<div class="panel" data-table="{t.table}">', f"<h2>{title(t.table)}</h2>"]
    parts += [f'<p class="note">{html.escape(note)}</p>' for note in t.notes]
    parts.append(panel_svg(t, benched, titled=False))
    parts.append("<table><tr><th>agent</th><th>rating</th><th>95% interval</th></tr>")
    parts += [
        f'<tr><td class="name">{html.escape(_name(r.name, t.table))}</td>'
        f"<td>{_signed(r.rating)}</td><td>{_interval(r)}</td></tr>"
        for r in t.ratings
    ]
    parts.append("</table>")
    if t.failures:
        parts.append('<ul class="failed">')
        parts += [
            f"<li>{html.escape(a)}: no result here: {html.escape(why)}</li>"
            for a, why in t.failures.items()
        ]
        parts.append("</ul>")
    parts.append(_pairs_html(t))
    parts.append("</div>")
    return "\n".join(parts)


def _pairs_html(t: TableResult) -> str:
    header = _pair_header(t.table)
    rows = [
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
        for cells in _pair_cells(t)
    ]
    head = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
    return "\n".join(["<table>", head, *rows, "</table>"])


def _pair_header(key: str) -> list[str]:
    return [
        "first",
        "second",
        "deals",
        "decided",
        f"first stood better ({_stood_better(key)})",
        "p (sign)",
        "p (signed rank)",
        "points, first - second (95% CI)",
        "from",
    ]


def _pair_cells(t: TableResult) -> list[list[str]]:
    cells = []
    for source, pairs in (("reference", t.reference_pairs), ("this bench", t.played_pairs)):
        for p in pairs:
            cells.append(
                [
                    _name(p.first, t.table),
                    _name(p.second, t.table),
                    str(p.deals),
                    str(p.decided),
                    _share(p.better_share),
                    _p(p.sign_p),
                    _p(p.wilcoxon_p),
                    f"{p.mean_difference:+.1f} ± {p.ci95:.1f}",
                    source,
                ]
            )
    return cells


# ------------------------------------------------------------------------- the leaderboard
LEADERBOARD_CHART = "leaderboard.svg"


def leaderboard_svg(result: BenchResult) -> str:
    """Every table's panel, one above the other, in one SVG file."""
    y, panels = 0, []
    for t in result.tables:
        panels.append(panel_svg(t, result.agents, 0, y))
        y += panel_height(t)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" '
        f'viewBox="0 0 {WIDTH} {y}"><rect width="100%" height="100%" fill="white"/>'
        + "".join(panels)
        + "</svg>\n"
    )


def _processes(workers: int) -> str:
    return "one process" if workers == 1 else f"{workers} worker processes"


def leaderboard_markdown(result: BenchResult, source: str) -> str:
    """docs/leaderboard.md: the ladder's ratings and pairs at every table of ``result`` (the
    committed reference, at ``source``)."""
    minutes = sum(t.seconds for t in result.tables) / 60
    search = (
        f", {result.search_deals} against search (its games are slow, so few: its intervals "
        "are wide)"
        if result.search_deals
        else ""
    )
    lines = [
        "# Leaderboard",
        "",
        f"<!-- Generated by `crates bench --leaderboard docs/leaderboard.md` from {source}: do "
        "not edit by hand; tests/test_bench.py fails when it is stale. -->",
        "",
        "The reference ladder of `crates bench` at every table the benchmark covers: the "
        "baselines (random, greedy, heuristic), the network the package ships for the table "
        "(`shipped`, [model card](model_card.md)) and the search (`search`, SearchAgent over "
        "HeuristicAgent). Put your agent beside them with `crates bench AGENT`; how the "
        "deals, statistics and ratings work and what to quote: [benchmark.md](benchmark.md).",
        "",
        f"Played by `{result.command}`: {result.deals} duplicate deals a pairing{search}, "
        f"seed {result.seed}, seats rotated; {minutes:.0f} minutes of play "
        f"({_processes(result.workers)}). A rating is Bradley-Terry on the deals one of a "
        f"pair stood better in, in Elo points ({ANCHOR} 0 at every table: 400 points are "
        "odds of 10 to 1 in a decided deal); the interval is 95%.",
        "",
        f"![Ratings with their 95% intervals, a panel a table]({LEADERBOARD_CHART})",
    ]
    for t in result.tables:
        lines += ["", f"## {title(t.table)}", ""]
        lines += [f"Note: {note}" for note in t.notes]
        lines += ["| agent | rating | 95% interval |", "|---|---:|---|"]
        lines += [
            f"| {_name(r.name, t.table)} | {_signed(r.rating)} | {_interval(r)} |"
            for r in t.ratings
        ]
        header = _pair_header(t.table)[:-1]
        lines += ["", "| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
        lines += ["| " + " | ".join(cells[:-1]) + " |" for cells in _pair_cells(t)]
    return "\n".join(lines) + "\n"


def write_leaderboard(result: BenchResult, markdown: Path, source: str) -> list[Path]:
    """The leaderboard page and its chart (beside it)."""
    return [
        atomic_write(markdown, leaderboard_markdown(result, source)),
        atomic_write(markdown.with_name(LEADERBOARD_CHART), leaderboard_svg(result)),
    ]

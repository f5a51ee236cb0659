"""Training curves of a run from its TensorBoard logs (``crates curves RUN_DIR``).

``read_scalars`` gathers every scalar that ``crates train`` logged under ``<run_dir>/tb``;
``plot_run`` draws four panels from them into a PNG: evaluation win rate and relative points
difference against each baseline, training-game win rate per opponent kind, and SB3's entropy
and value losses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, PercentFormatter
from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

from crates_env.files import write_atomically
from train.config import rules_of

Scalars = dict[str, list[tuple[int, float]]]

EVENT_GLOB = "events.out.tfevents.*"
FIGSIZE = (12.0, 8.0)  # inches; at DPI the PNG is 1200 x 800 pixels
DPI = 100
SMOOTHING = 10  # rollouts in the moving average of the training-game win rates
FAIR_SHARE = 0.5  # evaluation plays the learner against one baseline: two sides


# ---------------------------------------------------------------------- reading
def event_files(run_dir: str | Path) -> list[Path]:
    """Every TensorBoard event file under ``<run_dir>/tb``; ValueError if there is none."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ValueError(f"run directory {run_dir} does not exist")
    files = sorted((run_dir / "tb").rglob(EVENT_GLOB))
    if not files:
        raise ValueError(
            f"no TensorBoard logs in {run_dir}: expected event files ({EVENT_GLOB}) under "
            f"{run_dir / 'tb'}, as `crates train` writes them (tb/ppo_1/, ...)"
        )
    return files


def _read_file(path: Path) -> tuple[float, dict[str, dict[int, float]]]:
    """(wall time of the file's first event, {tag: {step: value}}) of one event file."""
    # size_guidance 0 keeps every point (the default keeps a random sample of long series);
    # no purging here because read_scalars merges the files itself.
    acc = EventAccumulator(str(path), size_guidance={SCALARS: 0}, purge_orphaned_data=False)
    acc.Reload()
    scalars = {
        tag: {event.step: float(event.value) for event in acc.Scalars(tag)}
        for tag in acc.Tags()[SCALARS]
    }
    try:
        started = acc.FirstEventTimestamp()
    except ValueError:  # an empty file (a writer that died at once): nothing to order
        started = 0.0
    return started, scalars


def read_scalars(run_dir: str | Path) -> Scalars:
    """``{tag: [(step, value), ...]}`` over all event files of the run, sorted by step."""
    files = {path: _read_file(path) for path in event_files(run_dir)}
    merged: dict[str, dict[int, float]] = {}
    for path in sorted(files, key=lambda path: (files[path][0], path)):  # oldest file first
        _merge(merged, files[path][1])
    return {tag: sorted(points.items()) for tag, points in sorted(merged.items()) if points}


def _merge(merged: dict[str, dict[int, float]], scalars: dict[str, dict[int, float]]) -> None:
    """Add a newer file's points to ``merged``; they replace older points from its first step.

    A resumed run restarts from its last checkpoint: what an older file logged from there on
    belongs to a stretch of training that the resumed run threw away.
    """
    restart = min((min(points) for points in scalars.values() if points), default=None)
    if restart is not None:
        for points in merged.values():
            for step in [step for step in points if step >= restart]:
                del points[step]
    for tag, points in scalars.items():
        merged.setdefault(tag, {}).update(points)


def by_name(scalars: Scalars, pattern: str) -> dict[str, list[tuple[int, float]]]:
    """The series whose tag matches ``pattern``, keyed by its one group (e.g. the baseline)."""
    regex = re.compile(pattern)
    return {m[1]: series for tag, series in scalars.items() if (m := regex.fullmatch(tag))}


def moving_average(values: Sequence[float], window: int = SMOOTHING) -> np.ndarray:
    """Trailing mean over the last ``window`` values (fewer at the start, so none is lost)."""
    v = np.asarray(values, dtype=float)
    sums = np.concatenate([[0.0], np.cumsum(v)])
    end = np.arange(1, len(v) + 1)
    start = np.maximum(end - window, 0)
    return (sums[end] - sums[start]) / (end - start)


# ---------------------------------------------------------------------- drawing
def _no_data(ax: Axes, tags: str) -> None:
    ax.text(0.5, 0.5, f"no data\n({tags})", transform=ax.transAxes, ha="center", va="center")
    ax.set_yticks([])


def _eval_lines(ax: Axes, scalars: Scalars, colors: dict[str, str], metric: str) -> bool:
    """One line per baseline of ``eval/vs_<baseline>/<metric>``; False ("no data") if none."""
    series = by_name(scalars, rf"eval/vs_(.+)/{metric}")
    if not series:
        _no_data(ax, f"eval/vs_*/{metric}")
        return False
    for name, points in series.items():
        steps, values = zip(*points, strict=True)
        ax.plot(steps, values, marker="o", color=colors[name], label=f"vs {name}")
    return True


def _plot_eval_win_rate(ax: Axes, scalars: Scalars, colors: dict[str, str]) -> None:
    ax.set_title("(a) evaluation win rate vs baselines")
    if not _eval_lines(ax, scalars, colors, "win_rate"):
        return
    ax.axhline(FAIR_SHARE, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_ylim(0, 1)
    ax.set_ylabel("learner win rate")
    ax.legend(fontsize="small")


def _plot_eval_relative(
    ax: Axes, scalars: Scalars, colors: dict[str, str], point_sign: int | None
) -> None:
    ax.set_title("(b) evaluation points difference vs baselines")
    if not _eval_lines(ax, scalars, colors, "relative_difference"):
        return
    ax.axhline(0, color="grey", linewidth=1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    label = "(learner − baseline) / baseline points"
    if point_sign is not None:  # the learner wants fewer points than the baseline, or more
        label += f"\n({'positive' if point_sign > 0 else 'negative'}: learner better)"
    ax.set_ylabel(label)
    ax.legend(fontsize="small")


def _plot_game_win_rate(ax: Axes, scalars: Scalars, colors: dict[str, str]) -> None:
    ax.set_title(f"(c) training games: win rate per opponent ({SMOOTHING}-rollout mean)")
    series = by_name(scalars, r"game_vs_(.+)/win_rate")
    if not series:
        _no_data(ax, "game_vs_*/win_rate")
        return
    for name, points in series.items():
        steps, values = zip(*points, strict=True)
        # The raw per-rollout rates stay faintly visible under the smoothed line.
        ax.plot(steps, values, color=colors[name], alpha=0.15, linewidth=0.8)
        ax.plot(steps, moving_average(values), color=colors[name], label=f"vs {name}")
    ax.set_ylim(0, 1)
    ax.set_ylabel("learner win rate")
    ax.legend(fontsize="small")


def _plot_losses(ax: Axes, scalars: Scalars) -> None:
    ax.set_title("(d) PPO losses")
    entropy, value = scalars.get("train/entropy_loss"), scalars.get("train/value_loss")
    if not entropy and not value:
        _no_data(ax, "train/entropy_loss, train/value_loss")
        return
    # Twin axes: the value loss is on a different scale from the entropy loss.
    lines = []
    if entropy:
        lines += ax.plot(*zip(*entropy, strict=True), color="C0", label="entropy loss")
        ax.set_ylabel("entropy loss", color="C0")
    if value:
        right = ax.twinx()
        lines += right.plot(*zip(*value, strict=True), color="C3", label="value loss")
        right.set_ylabel("value loss", color="C3")
    ax.legend(handles=lines, fontsize="small")


def _colors(scalars: Scalars) -> dict[str, str]:
    """One colour per baseline or opponent kind, the same in every panel."""
    names = {
        *by_name(scalars, r"eval/vs_([^/]+)/.+"),
        *by_name(scalars, r"game_vs_([^/]+)/.+"),
    }
    return {name: f"C{i % 10}" for i, name in enumerate(sorted(names))}


def draw(scalars: Scalars, title: str, point_sign: int | None = None) -> Figure:
    """The 2 x 2 figure of the curves in ``scalars`` (as ``read_scalars`` returns them);
    ``point_sign``: the run's table's (``Ruleset.point_sign``), which way the points panel is
    better (None: not said)."""
    # A bare Figure on the Agg canvas: no pyplot, so no global backend or figure registry.
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    (a, b), (c, d) = fig.subplots(2, 2, sharex=True)
    colors = _colors(scalars)
    _plot_eval_win_rate(a, scalars, colors)
    _plot_eval_relative(b, scalars, colors, point_sign)
    _plot_game_win_rate(c, scalars, colors)
    _plot_losses(d, scalars)
    for ax in (a, b, c, d):
        ax.xaxis.set_major_formatter(EngFormatter())
        ax.grid(alpha=0.3)
    for ax in (c, d):
        ax.set_xlabel("training steps")
    fig.suptitle(title)
    return fig


def _point_sign(run_dir: Path) -> int | None:
    """The point sign of the run's table, from the ``config.json`` training writes (None
    without one)."""
    path = run_dir / "config.json"
    if not path.is_file():
        return None
    try:
        config = json.loads(path.read_text())
        return rules_of(config["preset"], config["num_players"], config["rules"]).point_sign
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is damaged ({exc})") from None


def plot_run(run_dir: str | Path, out_png: str | Path, title: str | None = None) -> Path:
    """Draw the run's training curves into ``out_png`` (``.png`` added to a name without a
    suffix, as matplotlib adds it; another suffix names the format, ``.svg``, ``.pdf``),
    whole or not at all; return the path written."""
    scalars = read_scalars(run_dir)
    title = title or f"Crates training curves: {Path(run_dir).resolve().name}"
    fig = draw(scalars, title, _point_sign(Path(run_dir)))
    out = Path(out_png)
    if not out.suffix:
        out = out.with_suffix(".png")
    return write_atomically(out, lambda tmp: fig.savefig(tmp, dpi=DPI))

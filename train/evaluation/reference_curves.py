"""Reference learning curves of 4-player crates (``crates curves RUN_DIR --reference``).

The share of decided duplicate deals in which a learner scored fewer points than
HeuristicAgent, against the environment steps and the CPU-hours it took, for the recipes in
``benchmarks/reference_curves.json`` (package data as ``train/reference_curves.json``;
``benchmarks/reference_curves.py`` makes it from the runs' logs and draws
``docs/reference_curves.png``). A run's own points come from the checks ``crates train`` logs:
``eval/vs_heuristic/better_share`` and ``decided``, and ``time/training_cpu_seconds``
(``train.ppo``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, PercentFormatter

from agents.shipped import package_file
from crates_env.files import write_atomically

from .curves import DPI, FAIR_SHARE, read_scalars

REFERENCE_FILE = "reference_curves.json"  # train's package data: benchmarks/reference_curves.json
BASELINE = "heuristic"  # the curves' opponent
SHARE = f"eval/vs_{BASELINE}/better_share"
DECIDED = f"eval/vs_{BASELINE}/decided"
CPU = "time/training_cpu_seconds"
FIGSIZE = (12.0, 5.0)  # inches: two panels side by side


@dataclass(frozen=True)
class Point:
    steps: int  # environment steps of training (the learner's decisions) up to the network
    cpu_hours: float  # CPU-hours it took, the checks against the baselines left out
    share: float  # of the decided deals, the learner scored fewer points than HeuristicAgent
    decided: int  # the deals one of them stood better in (the share's denominator)


@dataclass(frozen=True)
class Curve:
    name: str
    config: str  # how to make it: the config and its overrides
    points: tuple[Point, ...]
    note: str = ""  # where the numbers come from


# ---------------------------------------------------------------------- a run's points
def run_points(run_dir: str | Path) -> tuple[Point, ...]:
    """The run's checks against HeuristicAgent with their CPU time, in step order; a
    ValueError when its logs have none (a run made before they were logged, or checks without
    HeuristicAgent among the baselines)."""
    scalars = read_scalars(run_dir)
    shares, decided = dict(scalars.get(SHARE, [])), dict(scalars.get(DECIDED, []))
    cpu = dict(scalars.get(CPU, []))
    steps = sorted(set(shares) & set(decided) & set(cpu))
    if not steps:
        raise ValueError(
            f"{run_dir} logged no check against {BASELINE} with its CPU time ({SHARE}, "
            f"{DECIDED}, {CPU}): train with {BASELINE} in eval.baselines"
        )
    return tuple(
        Point(step, cpu[step] / 3600, shares[step], round(decided[step])) for step in steps
    )


# ---------------------------------------------------------------------- the reference file
def reference_path() -> Path:
    """The reference curves the package ships."""
    return package_file("train", REFERENCE_FILE, "the reference learning curves file")


def to_json(curves: list[Curve]) -> str:
    return json.dumps({"curves": [asdict(curve) for curve in curves]}, indent=1) + "\n"


def read_reference(path: str | Path | None = None) -> list[Curve]:
    """The curves at ``path`` (default: the shipped reference)."""
    path = Path(path) if path is not None else reference_path()
    try:
        data = json.loads(path.read_text())
        return [
            Curve(
                name=str(c["name"]),
                config=str(c["config"]),
                note=str(c.get("note", "")),
                points=tuple(Point(**p) for p in c["points"]),
            )
            for c in data["curves"]
        ]
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the reference curves ({exc.strerror})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not reference learning curves ({exc!r})") from None


# ---------------------------------------------------------------------- drawing
def draw_reference(curves: list[Curve], user: Curve | None = None, title: str = "") -> Figure:
    """Two panels, the share against environment steps and against CPU-hours: each reference
    curve, and ``user``'s (a run's) in black over them."""
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    by_steps, by_cpu = fig.subplots(1, 2, sharey=True)
    lines = [(c, {"color": f"C{i % 10}", "marker": "o"}) for i, c in enumerate(curves)]
    if user is not None:
        lines.append((user, {"color": "black", "marker": "s", "linewidth": 2}))
    for curve, style in lines:
        shares = [p.share for p in curve.points]
        # the 95% interval of each share (normal approximation): about 10 points at 100 deals
        errors = [1.96 * math.sqrt(p.share * (1 - p.share) / p.decided) for p in curve.points]
        for ax, xs in (
            (by_steps, [p.steps for p in curve.points]),
            (by_cpu, [p.cpu_hours for p in curve.points]),
        ):
            ax.plot(xs, shares, label=curve.name, **style)
            ax.errorbar(xs, shares, yerr=errors, fmt="none", color=style["color"], alpha=0.35)
    for ax, xlabel in ((by_steps, "environment steps"), (by_cpu, "CPU-hours")):
        ax.axhline(FAIR_SHARE, color="grey", linestyle="--", linewidth=1)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    by_steps.xaxis.set_major_formatter(EngFormatter())
    by_cpu.set_xscale("log")  # expert iteration costs a hundred times PPO's hours
    by_steps.yaxis.set_major_formatter(PercentFormatter(1.0))
    by_steps.set_ylabel(f"decided deals with fewer points than {BASELINE}")
    fig.legend(*by_steps.get_legend_handles_labels(), loc="outside lower center", ncols=4)
    fig.suptitle(title or "4-player crates: reference learning curves against HeuristicAgent")
    return fig


def plot_reference(
    out_png: str | Path, run_dir: str | Path | None = None, reference: str | Path | None = None
) -> Path:
    """The reference curves (``reference``, default the shipped ones), with the run's at
    ``run_dir`` over them, into ``out_png`` (whole or not at all); return the path written."""
    curves = read_reference(reference)
    user = None
    if run_dir is not None:
        user = Curve(Path(run_dir).resolve().name, str(run_dir), run_points(run_dir))
    fig = draw_reference(curves, user)
    out = Path(out_png)
    if not out.suffix:
        out = out.with_suffix(".png")
    return write_atomically(out, lambda tmp: fig.savefig(tmp, dpi=DPI))

"""How strong is SearchAgent, and how long does it take? Duplicate deals against HeuristicAgent.

One run is an ordinary ``crates eval`` of ``search:<settings>`` against ``heuristic`` (4-player
crates: every deal twice, the searching side swapped), timed, with its per-deal results saved
(``deals.csv``) so that runs of other seeds, on other cores or in other sessions, pool into one
report:

    python benchmarks/search_teacher.py --deals 50 --seed 1 --out runs/search/s1
    python benchmarks/search_teacher.py --base checkpoints/crates_4p.zip --samples 16 \\
        --stock-max 10 --deals 50 --seed 2 --out runs/search/s2
    python benchmarks/search_teacher.py --pool runs/search/s*    # one report on saved runs
    python benchmarks/search_teacher.py --compare runs/z0 runs/z1  # two settings, same deals
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# One torch thread (before torch loads): runs side by side on the cores otherwise oversubscribe
# them and crawl (a searched deal took 14 times as long with two runs at once).
os.environ.setdefault("OMP_NUM_THREADS", "1")

from crates_env.processes import interruptible, own_cpu_seconds
from train.evaluation import (
    EvalConfig,
    format_report,
    pooled_pairs,
    read_deals,
    run,
    summarize,
    write_outputs,
)
from train.evaluation.report import better_standing, saved_rules

TIMING = "timing.json"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="crates", help="the rule system (default crates)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--samples", type=int, default=16, help="re-deals per move")
    p.add_argument(
        "--stock-max", default="10", help="search from this stock size down (all: everywhere)"
    )
    p.add_argument("--base", default="heuristic", help="the base policy: heuristic or a .zip")
    p.add_argument(
        "--z", type=float, help="leave the base move only by z std errors (SearchAgent's default 1)"
    )
    p.add_argument("--deepen", type=int, help="more re-deals for unsure changes (default 0)")
    p.add_argument("--seed", type=int, default=1, help="the evaluation's seed (its deals)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, help="folder for this run's results (deals.csv, ...)")
    p.add_argument("--pool", type=Path, nargs="+", help="report on saved runs instead of playing")
    p.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar=("FIRST", "SECOND"),
        help="two folders of runs of the same seeds (two settings): compare them deal by deal",
    )
    args = p.parse_args(argv)
    if args.pool:
        print(pool_report(args.pool))
        return
    if args.compare:
        print(compare_report(*args.compare))
        return
    spec = f"search:samples={args.samples},stock_max={args.stock_max},base={args.base}"
    spec += "" if args.z is None else f",z={args.z:g}"
    spec += "" if args.deepen is None else f",deepen={args.deepen}"
    config = EvalConfig(
        agents=(spec, "heuristic"),
        preset=args.preset,
        num_players=args.players,
        deals=args.deals,
        seed=args.seed,
        workers=args.workers,
    )
    # CPU time, not wall time, is what a game costs however many other runs share the cores
    start, cpu_start = time.perf_counter(), own_cpu_seconds()
    with interruptible():
        records = run(config, progress=False)
    seconds, cpu = time.perf_counter() - start, own_cpu_seconds() - cpu_start
    report = summarize(config, records)
    print(format_report(report))
    print(f"{cpu / len(records):.1f} CPU-seconds a game")
    if args.out:
        write_outputs(report, args.out, tensorboard=False)
        timing = {"games": len(records), "seconds": seconds, "workers": args.workers}
        (args.out / TIMING).write_text(json.dumps({**timing, "cpu_seconds": cpu}))


RESULTS = ("deals.csv", "report.json")  # what pooling reads of a run


def pool_report(folders: list[Path]) -> str:
    """One comparison of SearchAgent and HeuristicAgent over the deals of saved runs."""
    unfinished = [str(f) for f in folders if not all((f / n).is_file() for n in RESULTS)]
    if unfinished:
        raise SystemExit(
            f"no finished run in {', '.join(unfinished)} (a finished run's folder holds "
            f"{' and '.join(RESULTS)}): leave it out, or let its run finish"
        )
    files = [f / "deals.csv" for f in folders]
    names, points, _, _ = zip(*(read_deals(f) for f in files), strict=True)
    points = np.concatenate(points)
    (pair,) = pooled_pairs(files)
    reports = [json.loads((f / "report.json").read_text()) for f in folders]
    deals = [r["config"]["deals"] for r in reports]
    pressures = [
        np.average([r["agents"][a]["pressures_per_game"] for r in reports], weights=deals)
        for a in range(2)
    ]
    timings = [json.loads((f / TIMING).read_text()) for f in folders if (f / TIMING).exists()]
    # runs saved before CPU time was kept give wall time x workers
    core_seconds = sum(t.get("cpu_seconds", t["seconds"] * t["workers"]) for t in timings)
    games = sum(t["games"] for t in timings)
    return "\n".join(
        [
            f"{names[0][0]} against {names[0][1]}: {pair.deals} deals in {len(folders)} runs",
            f"{better_standing(saved_rules(folders[0]))} in {pair.better_share:.1%} of the deals "
            "with a difference "
            f"(sign test p = {pair.sign_p:.2g}), signed-rank p = {pair.wilcoxon_p:.2g}",
            f"median points a deal {np.median(points[:, 0]):,.0f} vs "
            f"{np.median(points[:, 1]):,.0f}; mean {points[:, 0].mean():,.0f} vs "
            f"{points[:, 1].mean():,.0f} ({pair.relative:+.1%}, "
            f"{pair.mean_difference:,.0f} ± {pair.ci95:,.0f}, t p = {pair.p_value:.2g})",
            f"pressures a game {pressures[0]:.2f} vs {pressures[1]:.2f}",
            f"{core_seconds / games:.1f} core-seconds a game over {games} timed games"
            if games
            else "no timings saved",
        ]
    )


def compare_report(first: Path, second: Path) -> str:
    """Two settings of the search on the same deals: the runs of the seeds both folders hold
    (``first/sS`` and ``second/sS``), each pooled against HeuristicAgent, then which setting did
    better deal by deal (its points minus HeuristicAgent's, against the other setting's)."""
    from scipy import stats

    runs = [r.name for r in sorted(second.iterdir()) if (r / TIMING).exists()]
    runs = [r for r in runs if (first / r / TIMING).exists()]
    if not runs:
        raise SystemExit(f"no finished run of the same seed in both {first} and {second}")

    def deals_played(folder: Path) -> list[tuple[int, int]]:
        configs = [json.loads((folder / r / "report.json").read_text())["config"] for r in runs]
        return [(c["seed"], c["deals"]) for c in configs]

    if deals_played(first) != deals_played(second):
        raise SystemExit(f"{first} and {second} hold runs of other deals under one name")
    margins = []
    for folder in (first, second):
        points = np.concatenate([read_deals(folder / r / "deals.csv")[1] for r in runs])
        margins.append(points[:, 0] - points[:, 1])
    lines = [pool_report([folder / r for r in runs]) for folder in (first, second)]
    gain = margins[1] - margins[0]
    won = [m < 0 for m in margins]
    only_second, only_first = int((won[1] & ~won[0]).sum()), int((won[0] & ~won[1]).sum())
    split = only_second + only_first
    sign_p = stats.binomtest(only_second, split).pvalue if split else float("nan")
    rank_p = stats.wilcoxon(gain[gain != 0]).pvalue if (gain != 0).sum() > 1 else float("nan")
    lines.append(
        f"{second} against {first} on the same {len(gain)} deals: lower than HeuristicAgent in "
        f"{only_second} deals where the other was not, the reverse in {only_first} (sign test "
        f"p = {sign_p:.2g}); its points minus HeuristicAgent's moved by {gain.mean():+,.0f} a deal "
        f"(signed-rank p = {rank_p:.2g})"
    )
    return "\n\n".join(lines)


if __name__ == "__main__":
    main()

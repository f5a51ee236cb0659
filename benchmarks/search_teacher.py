"""How strong is SearchAgent, and how long does it take? Duplicate deals against HeuristicAgent.

One run is an ordinary ``crates eval`` of ``search:<settings>`` against ``heuristic`` (4-player
crates: every deal twice, the searching side swapped), timed, with its per-deal results saved
(``deals.csv``) so that runs of other seeds, on other cores or in other sessions, pool into one
report:

    python benchmarks/search_teacher.py --deals 50 --seed 1 --out runs/search/s1
    python benchmarks/search_teacher.py --base checkpoints/crates_4p.zip --samples 16 \\
        --stock-max 10 --deals 50 --seed 2 --out runs/search/s2
    python benchmarks/search_teacher.py --pool runs/search/s*    # one report on saved runs
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

from train.evaluation import (
    EvalConfig,
    format_report,
    pooled_pairs,
    read_deals,
    run,
    summarize,
    write_outputs,
)
from train.workers import sigterm_as_ctrl_c

TIMING = "timing.json"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--samples", type=int, default=16, help="re-deals per move")
    p.add_argument("--stock-max", type=int, default=10, help="search from this stock size down")
    p.add_argument("--base", default="heuristic", help="the base policy: heuristic or a .zip")
    p.add_argument("--z", type=float, default=0.0, help="leave the base move only by z std errors")
    p.add_argument("--seed", type=int, default=1, help="the evaluation's seed (its deals)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, help="folder for this run's results (deals.csv, ...)")
    p.add_argument("--pool", type=Path, nargs="+", help="report on saved runs instead of playing")
    args = p.parse_args(argv)
    if args.pool:
        print(pool_report(args.pool))
        return
    spec = f"search:samples={args.samples},stock_max={args.stock_max},base={args.base}"
    spec += f",z={args.z:g}" if args.z else ""
    config = EvalConfig(
        agents=(spec, "heuristic"), deals=args.deals, seed=args.seed, workers=args.workers
    )
    start = time.perf_counter()
    with sigterm_as_ctrl_c():
        records = run(config, progress=False)
    seconds = time.perf_counter() - start
    report = summarize(config, records)
    print(format_report(report))
    print(f"{seconds / len(records) * args.workers:.1f} core-seconds a game")
    if args.out:
        write_outputs(report, args.out, tensorboard=False)
        timing = {"games": len(records), "seconds": seconds, "workers": args.workers}
        (args.out / TIMING).write_text(json.dumps(timing))


def pool_report(folders: list[Path]) -> str:
    """One comparison of SearchAgent and HeuristicAgent over the deals of saved runs."""
    files = [f / "deals.csv" for f in folders]
    names, points, _ = zip(*(read_deals(f) for f in files), strict=True)
    points = np.concatenate(points)
    (pair,) = pooled_pairs(files)
    reports = [json.loads((f / "report.json").read_text()) for f in folders]
    deals = [r["config"]["deals"] for r in reports]
    pressures = [
        np.average([r["agents"][a]["pressures_per_game"] for r in reports], weights=deals)
        for a in range(2)
    ]
    timings = [json.loads((f / TIMING).read_text()) for f in folders if (f / TIMING).exists()]
    core_seconds = sum(t["seconds"] * t["workers"] for t in timings)
    games = sum(t["games"] for t in timings)
    return "\n".join(
        [
            f"{names[0][0]} against {names[0][1]}: {pair.deals} deals in {len(folders)} runs",
            f"lower score in {pair.fewer_points_share:.1%} of the deals with a difference "
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


if __name__ == "__main__":
    main()

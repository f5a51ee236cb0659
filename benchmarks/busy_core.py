"""The main job beside a busy core: `crates train` idle, then beside `python -c "while True:
pass"`, side by side, several times; the wall times' medians and their ratio.

    python benchmarks/busy_core.py                      # a shortened default config, 3 pairs
    python benchmarks/busy_core.py --repeats 3 --full   # configs/default.yaml as it is
    python benchmarks/busy_core.py --tree . --tree ../old-checkout   # two versions, in turn

A machine is rarely idle: the goal is at most 1.4x the idle wall time beside one busy core.
The load average before each run is printed beside its figure: other work on the machine
counts, so compare the two columns of one sitting only.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# 131,072 steps and 20 final deals a baseline: the default config's every phase, shorter
SHORT = ["total_steps=131072", "eval.final_deals=20", "eval.replays=0"]
BUSY = [sys.executable, "-c", "while True: pass"]


def train_once(runs_dir: Path, sets: list[str], name: str, tree: Path) -> tuple[float, float]:
    """One ``crates train`` of the checkout ``tree`` (its output in runs_dir/<name>.log): wall
    and CPU seconds."""
    overrides = [f"runs_dir={runs_dir}", f"run_name={name}", "progress_bar=false", *sets]
    command = [sys.executable, "-m", "train.cli", "train"]
    for item in overrides:
        command += ["--set", item]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with (runs_dir / f"{name}.log").open("w") as log:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run(command, check=True, stdout=log, stderr=subprocess.STDOUT, cwd=tree, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="idle/busy pairs (default 3)")
    parser.add_argument("--full", action="store_true", help="the default config unshortened")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--tree",
        action="append",
        type=Path,
        default=[],
        help="a checkout to time (repeatable: the trees take turns; default: this one)",
    )
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree] or [Path(__file__).resolve().parent.parent]
    sets = ([] if args.full else SHORT) + args.set
    print(f"crates train --set {' --set '.join(sets) or '(default.yaml)'}")
    print(f"cores {len(os.sched_getaffinity(0))}; torch {_torch_version()}")
    rows = {(tree, kind): [] for tree in trees for kind in ("idle", "busy")}
    with tempfile.TemporaryDirectory() as folder:
        runs = Path(folder)
        for r in range(args.repeats):
            for t, tree in enumerate(trees):
                for kind in ("idle", "busy"):
                    load = os.getloadavg()[0]
                    busy = subprocess.Popen(BUSY) if kind == "busy" else None
                    try:
                        wall, cpu = train_once(runs, sets, f"{kind}{r}_{t}", tree)
                    finally:
                        if busy is not None:
                            busy.kill()
                            busy.wait()
                    rows[tree, kind].append(wall)
                    print(
                        f"{tree.name} pair {r + 1} {kind:<4}: {wall:6.1f} s wall, {cpu:6.1f} "
                        f"CPU-s (1-min load before: {load:.2f})",
                        flush=True,
                    )
    for tree in trees:
        idle, busy = rows[tree, "idle"], rows[tree, "busy"]
        ratio = statistics.median(busy) / statistics.median(idle)
        pairs = ", ".join(f"{b / i:.2f}" for i, b in zip(idle, busy, strict=True))
        print(
            f"{tree}: median idle {statistics.median(idle):.1f} s, beside a busy core "
            f"{statistics.median(busy):.1f} s: ratio {ratio:.2f} (pair by pair {pairs})"
        )


def _torch_version() -> str:
    import torch

    return torch.__version__


if __name__ == "__main__":
    main()

"""Training throughput, SB3 against RLlib, on the same table and config in one run: learner
decisions per second of whole runs (`train.ppo.train`, `train.rllib.train_rllib`), and RLlib's
scaling from 0 env runners (sampling in the driver) to 1 and 2.

    pip install -e ".[ray]" && python benchmarks/rllib_speed.py [--steps 20000] [--repeats 3]

Given two run lengths or more (``--steps 100000 600000``) it also splits each setup's time into
a fixed cost and a rate once started (a least-squares line through the medians' times): where a
whole run's rate goes, start-up (Ray's processes, the algorithm's build, Ray's shutdown) or
training.

The config is configs/default.yaml without the warm start and without checks during the run
(4-player crates, random opponents, 64 games, 256x256 networks). Whole runs, so start-up counts:
Ray's start and the modules' build, SB3's workers. Medians over the repeats, the runs of each
repeat side by side in turn. On cores other work shares, ``taskset -c 1`` keeps torch to one
thread on both sides (two threads that wait for each other crawl there); the env runners then
share that core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from train.config import load_config
from train.ppo import STATE, train
from train.rllib import STATE as RLLIB_STATE
from train.rllib import train_rllib

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "default.yaml"
SETUPS = (("sb3", 0), ("rllib", 0), ("rllib", 1), ("rllib", 2))


def one_run(backend: str, workers: int, steps: int, folder: str) -> tuple[int, float]:
    """The learner decisions of a whole run and its seconds."""
    overrides = [
        'warm_start.teacher=""',
        f"total_steps={steps}",
        f"checkpoint_every={steps}",
        f"eval.every={10 * steps}",
        f"workers={workers}",
        f"runs_dir={folder}",
        f"run_name={backend}{workers}",
        "progress_bar=false",
    ]
    config = load_config(CONFIG, overrides)
    start = time.perf_counter()
    if backend == "sb3":
        train(config)
        done = json.loads((config.run_dir / STATE).read_text())["num_timesteps"]
    else:
        train_rllib(config)
        done = json.loads((config.run_dir / RLLIB_STATE).read_text())["steps"]
    return done, time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, nargs="+", default=[20_000])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    runs: dict[tuple[int, str, int], list[tuple[int, float]]] = {}
    for _ in range(args.repeats):
        for steps in args.steps:
            for backend, workers in SETUPS:
                with tempfile.TemporaryDirectory() as folder:
                    done, seconds = one_run(backend, workers, steps, folder)
                runs.setdefault((steps, backend, workers), []).append((done, seconds))
                print(
                    f"{steps:,} steps, {backend} workers={workers}: {done / seconds:,.0f} learner "
                    "decisions/s",
                    flush=True,
                )
    for steps in args.steps:
        print(f"\nmedians over {args.repeats} runs of {steps:,} learner decisions:")
        rates = {
            setup: statistics.median(done / seconds for done, seconds in runs[(steps, *setup)])
            for setup in SETUPS
        }
        for (backend, workers), rate in rates.items():
            ratio = rate / rates[("sb3", 0)]
            print(f"  {backend:5} workers={workers}: {rate:8,.0f} /s  ({ratio:.2f} x sb3)")
    if len(set(args.steps)) > 1:
        print("\nfixed cost and rate once started (a line through the medians):")
        lines = {setup: _line([runs[(steps, *setup)] for steps in args.steps]) for setup in SETUPS}
        for (backend, workers), (fixed, rate) in lines.items():
            ratio = rate / lines[("sb3", 0)][1]
            print(
                f"  {backend:5} workers={workers}: {fixed:5.1f} s + decisions at {rate:8,.0f} /s "
                f"({ratio:.2f} x sb3 once started)"
            )


def _line(runs_by_length: list[list[tuple[int, float]]]) -> tuple[float, float]:
    """The fixed seconds and the decisions a second of the least-squares line through each
    run length's median (decisions, seconds)."""
    done = [statistics.median(d for d, _ in runs) for runs in runs_by_length]
    seconds = [statistics.median(s for _, s in runs) for runs in runs_by_length]
    slope, fixed = statistics.linear_regression(done, seconds)
    return fixed, 1 / slope


if __name__ == "__main__":
    main()

"""Training throughput, SB3 against RLlib, on the same table and config in one run: learner
decisions per second of whole runs (`train.ppo.train`, `train.rllib.train_rllib`), and RLlib's
scaling from 0 env runners (sampling in the driver) to 1 and 2.

    pip install -e ".[ray]" && python benchmarks/rllib_speed.py [--steps 20000] [--repeats 3]

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


def one_run(backend: str, workers: int, steps: int, folder: str) -> float:
    """Learner decisions per second of a whole run."""
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
    return done / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    rates: dict[tuple[str, int], list[float]] = {setup: [] for setup in SETUPS}
    for _ in range(args.repeats):
        for backend, workers in SETUPS:
            with tempfile.TemporaryDirectory() as folder:
                rate = one_run(backend, workers, args.steps, folder)
            rates[(backend, workers)].append(rate)
            print(f"{backend} workers={workers}: {rate:,.0f} learner decisions/s", flush=True)
    base = statistics.median(rates[("sb3", 0)])
    print(f"\nmedians over {args.repeats} runs of {args.steps:,} learner decisions:")
    for (backend, workers), values in rates.items():
        rate = statistics.median(values)
        print(f"  {backend:5} workers={workers}: {rate:8,.0f} /s  ({rate / base:.2f} x sb3)")


if __name__ == "__main__":
    main()

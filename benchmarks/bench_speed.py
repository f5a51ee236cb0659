"""How long the default ``crates bench`` of one new agent takes: the seven 4-player tables, 300
deals a pairing against random, greedy, heuristic and the shipped network (search left out),
the committed reference for the ladder's own pairings.

Run from the repository root:

    python benchmarks/bench_speed.py                       # the default bench, 2 workers
    python benchmarks/bench_speed.py --deals 40 --workers 1 --tables crates:4

The agent benched is ``NetworkAgent`` below: the network the package ships for each table,
given to the bench as a user's class by import path, so it plays every table at the cost of a
network (a forward pass a batch of decisions), as a learned agent would. The time is the
bench's wall time with the worker processes' start, per table and in all; the load average
before and after says how busy the machine was.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import make_agent
from agents.shipped import SHIPPED
from train.evaluation import bench as b


class NetworkAgent:
    """The shipped network of the table it is made for, as a user's agent."""

    def __init__(self, table) -> None:
        self.agent = make_agent(SHIPPED, table)

    def act(self, observation, action_mask):
        return self.agent.act(observation, action_mask)

    def act_batch(self, observations, action_masks):
        return self.agent.act_batch(observations, action_masks)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=b.DEALS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tables", default=None, help="as crates bench (default: its seven)")
    args = parser.parse_args(argv)
    tables = b.parse_tables(args.tables) if args.tables else b.BENCH_TABLES
    config = b.BenchConfig(
        agents=("bench_speed:NetworkAgent",), tables=tables, deals=args.deals, workers=args.workers
    )
    sys.path.insert(0, str(Path(__file__).parent))  # this file as bench_speed (the workers too)
    load = os.getloadavg()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = b.bench(config, Path(out), b.read_results(), say=print, progress=False)
    seconds = time.perf_counter() - start
    print(f"\n{'table':<16}{'seconds':>9}")
    for t in result.tables:
        print(f"{t.table:<16}{t.seconds:>9.0f}")
    print(
        f"all: {seconds:.0f} s wall ({seconds / 60:.1f} min), {args.deals} deals a pairing, "
        f"{args.workers} workers; load average before {load[0]:.1f}, after "
        f"{os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()

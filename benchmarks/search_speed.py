"""Time per searched decision of SearchAgent: rollouts one at a time on the reference engine
against all moves x re-deals together on the compiled engine, over HeuristicAgent and over the
shipped network, side by side on the same positions.

    python benchmarks/search_speed.py [--positions 12] [--samples 16] [--stock-max 10]

The positions are real choices of 4-player crates games played by HeuristicAgent, taken once the
stock is down to ``--stock-max`` cards (where SearchAgent searches). Time per game, and strength,
come from ``benchmarks/search_teacher.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as each evaluation worker has

from agents import HeuristicAgent, SearchAgent, Table
from crates_env.env import legal_mask, play_seats, raw_env


def position(seed: int, stock_max: int):
    """A game played by HeuristicAgent from ``seed`` to a real choice with a short stock."""
    env = raw_env(one_card="auto")
    env.reset(seed=seed)
    heuristic = HeuristicAgent(Table.from_env(env))
    g = env.game

    def searched(seat: int) -> bool:
        return legal_mask(g).sum() > 1 and g.view(seat).stock_size <= stock_max

    play_seats(env, lambda _, obs: heuristic.act(obs["observation"], obs["action_mask"]), searched)
    return None if g.game_over else (env, np.flatnonzero(legal_mask(g)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=12)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--stock-max", type=int, default=10)
    args = p.parse_args()
    found = (position(seed, args.stock_max) for seed in range(10_000))
    positions = [f for f in found if f is not None][: args.positions]
    table = Table.from_env(positions[0][0])
    moves = np.mean([len(legal) for _, legal in positions])
    print(f"{len(positions)} positions, {moves:.1f} legal moves each, {args.samples} re-deals")
    for base in ("heuristic", "shipped"):
        times = {}
        for batched in (False, True):
            agent = SearchAgent(table, args.samples, args.stock_max, base=base, seed=0)
            if not batched:
                agent._batch = lambda rules, size: None  # as on a table VectorGame cannot play
            agent.move_values(*positions[0])  # compiled and loaded before timing
            seconds = []
            for env, legal in positions:
                start = time.perf_counter()
                agent.move_values(env, legal)
                seconds.append(time.perf_counter() - start)
            times[batched] = float(np.median(seconds))
        name = "HeuristicAgent" if base == "heuristic" else "the shipped network"
        print(
            f"over {name}: {times[False] * 1e3:,.0f} ms a decision one at a time, "
            f"{times[True] * 1e3:,.0f} ms batched ({times[False] / times[True]:.1f}x)"
        )


if __name__ == "__main__":
    main()

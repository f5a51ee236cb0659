"""HeuristicAgent's compiled twin against HeuristicAgent itself, move for move.

    python benchmarks/heuristic_equivalence.py --positions 100000
    python benchmarks/heuristic_equivalence.py --systems crates zimbabwe --positions 20000

For each rule system it cycles through the tables of ``benchmarks/vector_equivalence.py``
(player counts and option sets), each time playing ``--games`` games on the compiled engine for
``--rounds`` decisions (HeuristicAgent three moves in four, a random move the rest: with
``penalize`` sometimes a misplay) and holding ``HeuristicAgent.act_batch`` against ``act`` at
every position (``tests.harness.heuristic_equivalence.check_against_reference``), until the
system has ``--positions`` positions compared. The first difference stops the run and prints
where it is.
It also times both on the positions of one table side by side.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import HeuristicAgent, Table
from benchmarks.vector_equivalence import VARIANTS, chunks, preset_of
from crates_env.vector import VectorGame
from tests.harness.heuristic_equivalence import check_against_reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--positions", type=int, default=100_000, help="per rule system")
    parser.add_argument("--games", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=100, help="decisions a game per chunk")
    args = parser.parse_args()
    totals = {}
    for system in args.systems:
        totals[system] = 0
        for _, players, options, seed in chunks(system, args.games):
            if totals[system] >= args.positions:
                break
            totals[system] += check_against_reference(
                preset_of(system), players, args.games, args.rounds, seed, **options
            )
        print(f"{system:<18} {totals[system]:>10,} positions, no difference", flush=True)
    print(f"{'all':<18} {sum(totals.values()):>10,} positions, no difference")
    speed()


def speed(games: int = 1024) -> None:
    """Time per position of act (one call a row) and act_batch (one call), 4-player crates."""
    vg = VectorGame(games, "crates", 4)
    vg.reset(np.arange(games))
    rng = np.random.default_rng(0)
    for _ in range(20):  # into the hand: positions of every kind, not only first moves
        vg.step(vg.random_actions(rng))
    agent = HeuristicAgent(Table.from_rules(vg.rules))
    observations, masks = vg.observe(), vg.legal_mask()
    agent.act_batch(observations, masks)  # compiled before timing
    start = time.perf_counter()
    for o, m in zip(observations, masks, strict=True):
        agent.act(o, m)
    one = (time.perf_counter() - start) / games
    start = time.perf_counter()
    agent.act_batch(observations, masks)
    batch = (time.perf_counter() - start) / games
    print(f"act {one * 1e6:.1f} us a position, act_batch {batch * 1e6:.2f} us ({one / batch:.0f}x)")


if __name__ == "__main__":
    main()

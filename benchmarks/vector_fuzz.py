"""The compiled engine fuzzed over 10^7 random decisions, every invariant checked after every
step (``tests.harness.vector_fuzz``: every card in one place, sizes, penalty cards, knock-outs,
scores only at a hand's end, the masks equal to the moves the engine accepts).

    nice -n 10 python benchmarks/vector_fuzz.py                     # 10^7 decisions
    python benchmarks/vector_fuzz.py --decisions 1000000 --games 256

The decisions are shared out over every table of ``benchmarks/vector_equivalence.py``'s
``VARIANTS`` (every rule system, its player counts, options and reward settings), a
chunk of ``--games`` slots per table (``--chunk`` decisions: a few whole games a slot, finished
slots dealt new games), round after round, new seeds each round. The first broken invariant
stops the run and says where.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vector_equivalence import VARIANTS, preset_of

from tests.harness.vector_fuzz import fuzz


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=10_000_000)
    parser.add_argument("--games", type=int, default=64, help="slots a table")
    parser.add_argument("--chunk", type=int, default=200_000, help="decisions a table a round")
    args = parser.parse_args()
    tables = [(preset_of(s), n, o) for s, variants in VARIANTS.items() for n, o in variants]
    decisions = games = 0
    start = time.perf_counter()
    for round_ in range(10**9):
        for i, (preset, players, options) in enumerate(tables):
            if decisions >= args.decisions:
                seconds = time.perf_counter() - start
                print(
                    f"{decisions:,} decisions, {games:,} games finished, {len(tables)} tables: "
                    f"every invariant held ({seconds:.0f} s, {decisions / seconds:,.0f} "
                    "decisions/s with the checks)"
                )
                return
            seed = 1_000_003 * round_ + 1009 * i
            played = fuzz(preset, players, args.chunk, seed, args.games, **options)
            decisions += played.decisions
            games += played.games
        print(f"round {round_ + 1}: {decisions:,} decisions, {games:,} games", flush=True)


if __name__ == "__main__":
    main()

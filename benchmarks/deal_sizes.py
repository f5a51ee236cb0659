"""Where a table's share of deals comes from: the decided deals of a ``covered_tables.py`` run
split by how far apart the two agents' points were, and the agent's share in each band.

    python benchmarks/deal_sizes.py runs/bar                      # every table in the folder
    python benchmarks/deal_sizes.py runs/bar --tables crates:5,crates:4

Doubling pressures make some deals run to scores many times the usual: at 5-player crates a
fifth of the decided deals end with one agent's points over 4.5 times the other's. A network can be
better than HeuristicAgent in those runaway deals and worse in the ordinary ones, level
overall; the bands tell the two apart. A deal's size is the ratio of the larger mean points to
the smaller (both agents' seats over every lineup, as ``deals.csv`` has them); deals where
either agent's points are not above zero (zimbabwe's knocked-out players) have no ratio and are
counted apart.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from train.evaluation.bench import parse_tables
from train.evaluation.report import read_deals

# Upper ends of the bands, as the larger points over the smaller: within 10%, within 65%,
# within 4.5 times, beyond
BANDS = (
    (1.1, "close"),
    (math.exp(0.5), "ordinary"),
    (math.exp(1.5), "wide"),
    (math.inf, "runaway"),
)


def bands(points: np.ndarray, standings: np.ndarray) -> dict[str, tuple[int, int]]:
    """Per band (and ``no ratio``): (decided deals, deals the first agent stood better in), from
    the first two agents' columns of ``read_deals``'s points and standings (deals x agents)."""
    out: dict[str, list[int]] = {name: [0, 0] for _, name in BANDS} | {"no ratio": [0, 0]}
    for (pa, pb), (a, b) in zip(points[:, :2], standings[:, :2], strict=True):
        if a == b:
            continue
        ratio = max(pa, pb) / min(pa, pb) if min(pa, pb) > 0 else None
        name = "no ratio" if ratio is None else next(n for top, n in BANDS if ratio < top)
        out[name][0] += 1
        out[name][1] += bool(a > b)
    return {name: (n, better) for name, (n, better) in out.items() if n}


def report(folder: Path) -> str:
    """A table's line: decided deals and share, band by band."""
    _, points, _, standings = read_deals(folder / "deals.csv")
    if standings is None:
        raise SystemExit(f"{folder / 'deals.csv'} has no standings (written before they were kept)")
    parts = [
        f"{name} {better / n:.1%} of {n}" for name, (n, better) in bands(points, standings).items()
    ]
    return f"{folder.name}: " + ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a covered_tables.py --out folder")
    parser.add_argument("--tables", help="preset:players,... (default: every table in the folder)")
    args = parser.parse_args()
    if args.tables:
        folders = [args.out / f"{p}_{n}p" for p, n in parse_tables(args.tables)]
    else:
        folders = sorted(f.parent for f in args.out.glob("*/deals.csv"))
    missing = [str(f) for f in folders if not (f / "deals.csv").is_file()]
    if missing or not folders:
        raise SystemExit(f"no deals.csv in {', '.join(missing) or args.out}")
    for folder in folders:
        print(report(folder))


if __name__ == "__main__":
    main()

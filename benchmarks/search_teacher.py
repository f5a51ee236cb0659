"""How strong is SearchAgent? Duplicate games of it against HeuristicAgent.

``crates eval --agents search heuristic`` plays it at its default settings; this script plays the
same duplicate scheme with any ``--samples`` and ``--stock-max`` (every deal twice, the searching
side swapped, HeuristicAgent on the other side, 4-player crates) and saves and pools the per-deal
totals of runs split across processes.

    python benchmarks/search_teacher.py --deals 100 [--samples 8] [--stock-max 6] [--save t.npy]
    python benchmarks/search_teacher.py --base checkpoints/crates_4p.zip --samples 16 --stock-max 10
    python benchmarks/search_teacher.py --pool a.npy b.npy    # one report on saved runs
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import HeuristicAgent, SearchAgent, Table
from crates_env.env import raw_env


def play(deal: int, teacher_side: int, teacher: SearchAgent, heuristic: HeuristicAgent):
    """One game of deal ``deal``; returns (teacher's points, heuristic's, their pressures)."""
    env = raw_env(one_card="auto")
    env.reset(seed=deal)
    g = env.game
    while not g.game_over:
        obs = env.observe(env.possible_agents[g.to_play])
        o, m = obs["observation"], obs["action_mask"]
        mover = teacher if env.rules.team_of(g.to_play) == teacher_side else None
        # Through the environment, which calls "one card" (one_card="auto") as in training and
        # in `crates eval`: applied to the engine directly, the call would be a move to search.
        env.step(mover.act_in(env, o, m) if mover else int(heuristic.act(o, m)))
    other = 1 - teacher_side
    return (
        g.scores[teacher_side],
        g.scores[other],
        g.pressure_count[teacher_side],
        g.pressure_count[other],
    )


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt  # `kill` stops a background run (which ignores Ctrl-C) with a report


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGTERM, _stop)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--samples", type=int, default=8, help="re-deals per move")
    p.add_argument("--stock-max", type=int, default=6, help="search from this stock size down")
    p.add_argument("--seed", type=int, default=1000, help="first deal's seed")
    p.add_argument(
        "--base", default="heuristic", help="the search's base policy: heuristic or a .zip"
    )
    p.add_argument(
        "--save",
        type=Path,
        help=".npy for each deal's totals (search, heuristic points and "
        "pressures over its two games), so runs on several cores can be pooled",
    )
    p.add_argument("--pool", type=Path, nargs="+", help="report on saved runs instead of playing")
    args = p.parse_args(argv)
    if args.pool:
        report(np.concatenate([np.load(f) for f in args.pool]))
        return
    if args.base != "heuristic":
        import torch

        # One torch thread a process: runs side by side on the cores otherwise oversubscribe
        # them and crawl (measured: a deal took 14 times as long with two runs at once).
        torch.set_num_threads(1)
    table = Table.from_env(raw_env())
    teacher = SearchAgent(
        table, samples=args.samples, stock_max=args.stock_max, base=args.base, seed=0
    )
    heuristic = HeuristicAgent(table)
    games = []
    start = time.perf_counter()
    try:
        for deal in range(args.seed, args.seed + args.deals):
            both = [play(deal, side, teacher, heuristic) for side in (0, 1)]
            games.append(np.sum(both, axis=0))  # the deal's two games, sides swapped
            print(f"{summary(np.array(games))}, {time.perf_counter() - start:.0f} s", flush=True)
    except KeyboardInterrupt:  # a long run stopped by hand still reports the deals played
        print(f"stopped after {len(games)} deals")
    t = np.array(games, dtype=float)
    if args.save:
        np.save(args.save, t)
    report(t)


def summary(t: np.ndarray) -> str:
    """Means per game of a (deals, 4) array of each deal's two-game totals."""
    return (
        f"{len(t)} deals: search {t[:, 0].mean() / 2:,.0f} vs heuristic "
        f"{t[:, 1].mean() / 2:,.0f} points/game, pressures {t[:, 2].mean() / 2:.2f} vs "
        f"{t[:, 3].mean() / 2:.2f}"
    )


def report(t: np.ndarray) -> None:
    diff = t[:, 0] - t[:, 1]
    print(summary(t))
    print(
        f"relative {diff.mean() / t[:, 1].mean():+.1%}, paired t p = "
        f"{stats.ttest_1samp(diff, 0).pvalue:.3g}, signed-rank p = "
        f"{stats.wilcoxon(diff).pvalue:.3g}, search's side lower in "
        f"{(diff < 0).mean():.1%} of deals"
    )


if __name__ == "__main__":
    main()

"""How fast does expert iteration label? Labelled games an hour per core, and where the time goes.

Labels a few chunks of a config's round the way ``crates label`` does (one process, one torch
thread), with the search's rollouts on the compiled engine (what labelling uses) and, side by
side on the same chunks, on the reference engine; then splits the compiled run's CPU time into
the rollouts' network forward passes, their engine work and the rest:

    python benchmarks/label_speed.py --config configs/crates_4p_expert.yaml --games 8 --chunks 2

Quote the games an hour per core and the ratio; pin the run to one core (``taskset -c 1``).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as each labelling worker has

from dataclasses import replace

import agents.search
from train.config import load_config
from train.expert import label_plan
from train.labels import LabelPlan, label_chunk

# Where a profile's time goes: the first part of a function's file path that names it.
# (A C function's path is "~": its name, e.g. "<built-in method torch._C._nn.linear>", tells.)
PARTS = {
    "network forward (torch)": ("torch", "agents/policy.py", "agents/networks.py"),
    "engine (compiled and reference)": ("crates_env/",),
    "HeuristicAgent": ("agents/heuristic", "agents/scripted.py"),
}


def games_an_hour(plan: LabelPlan, chunks: range) -> tuple[float, int]:
    """Labelled games an hour of this process's CPU time over ``chunks``, and the rows."""
    start, rows = time.process_time(), 0
    for index in chunks:
        rows += len(label_chunk(plan, index))
    return 3600 * plan.games * len(chunks) / (time.process_time() - start), rows


def on_the_reference_engine():
    """SearchAgent's rollouts on the reference engine for as long as the context lasts."""
    compiled = agents.search.game_batch

    def reference(num_games, engine="auto", **env_kwargs):
        return compiled(num_games, engine="reference", **env_kwargs)

    return mock.patch.object(agents.search, "game_batch", reference)


def time_split(plan: LabelPlan, index: int) -> dict[str, float]:
    """Each part's share of one chunk's labelling time (own time of the functions in it)."""
    profile = cProfile.Profile()
    profile.runcall(label_chunk, plan, index)
    stats = pstats.Stats(profile).stats
    total = sum(own for _, _, own, _, _ in stats.values())
    rest = "the rest (the search's loop, numpy)"
    shares = dict.fromkeys([*PARTS, rest], 0.0)
    for (path, _, name), (_, _, own, _, _) in stats.items():
        where = f"{path}:{name}"
        part = next((p for p, marks in PARTS.items() if any(m in where for m in marks)), rest)
        shares[part] += own / total
    return shares


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/crates_4p_expert.yaml")
    p.add_argument("--round", type=int, default=1, help="the round whose labels to time")
    p.add_argument("--games", type=int, default=8, help="games a chunk")
    p.add_argument("--chunks", type=int, default=2, help="chunks timed on each engine")
    p.add_argument("--first", type=int, default=5000, help="the first chunk's index")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    plan = replace(label_plan(load_config(args.config), args.round), games=args.games)
    print(f"{plan.search} against {plan.opponent}, {plan.games} games a chunk")
    label_chunk(replace(plan, games=1), args.first - 1)  # compile and load before timing
    chunks = range(args.first, args.first + args.chunks)
    compiled, rows = games_an_hour(plan, chunks)
    with on_the_reference_engine():
        reference, same_rows = games_an_hour(plan, chunks)
    if same_rows != rows:
        raise SystemExit(f"the engines labelled {rows} and {same_rows} rows: they must agree")
    print(f"compiled rollouts: {compiled:,.0f} labelled games an hour per core ({rows} rows)")
    print(f"reference rollouts: {reference:,.0f} (compiled: {compiled / reference:.2f}x as many)")
    split = time_split(plan, args.first)
    print("compiled run's time: " + ", ".join(f"{k} {v:.0%}" for k, v in split.items()))


if __name__ == "__main__":
    main()

"""How fast does expert iteration label? Labelled games an hour per core, and where the time goes.

Labels a few chunks of a config's round the way ``crates label`` does (one process, one torch
thread), with the search's rollouts on the compiled engine (what labelling uses) and, side by
side on the same chunks, on the reference engine; then splits the compiled run's CPU time into
the rollouts' network forward passes, their engine work and the rest:

    python benchmarks/label_speed.py --config configs/crates_4p_expert.yaml --games 8 --chunks 2

With ``--against REV`` it times instead the same chunks labelled by this tree and by the code
of git revision ``REV`` (checked out for the while in a temporary worktree), each in a fresh
process, and says whether their labels are the same:

    python benchmarks/label_speed.py --config configs/crates_4p_round3.yaml --games 16 \
        --chunks 1 --first 7001 --against 0b1dbef

Quote the games an hour per core and the ratio; pin the run to one core (``taskset -c 1``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as each labelling worker has

from dataclasses import replace

import numpy as np

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


# Times the chunks in a fresh process of the code in its working folder (this tree's, or an
# older revision's: it asks only what every revision since labelling began offers).
TIMING = """
import json, sys, time
from dataclasses import fields, replace
import numpy as np
import torch
torch.set_num_threads(1)
from train.config import load_config
from train.expert import label_plan
from train.labels import label_chunk
config, round_, games, first, count, out = json.loads(sys.argv[1])
plan = replace(label_plan(load_config(config), round_), games=games)
label_chunk(replace(plan, games=1), first - 1)
start, parts = time.process_time(), []
for index in range(first, first + count):
    parts.append(label_chunk(plan, index))
seconds = time.process_time() - start
names = [f.name for f in fields(parts[0])]
np.savez(out, **{n: np.concatenate([getattr(p, n) for p in parts]) for n in names})
print(json.dumps(seconds))
"""


def timed_in(folder: Path, args: argparse.Namespace, out: Path) -> float:
    """CPU seconds the code in ``folder`` takes to label ``args``' chunks (saved at ``out``)."""
    job = [args.config, args.round, args.games, args.first, args.chunks, str(out)]
    done = subprocess.run(
        [sys.executable, "-c", TIMING, json.dumps(job)],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"labelling in {folder} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def against(args: argparse.Namespace) -> None:
    """This tree's labelling beside revision ``args.against``'s, on the same chunks."""
    here = Path(__file__).resolve().parent.parent
    games = args.games * args.chunks
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        git = ["git", "-C", str(here)]
        subprocess.run([*git, "worktree", "add", "--detach", str(old), args.against], check=True)
        try:
            now, then = (
                timed_in(here, args, Path(tmp) / "now.npz"),
                timed_in(old, args, Path(tmp) / "then.npz"),
            )
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(old)], check=True)
        a, b = np.load(Path(tmp) / "now.npz"), np.load(Path(tmp) / "then.npz")
        same = sorted(a.files) == sorted(b.files) and all(
            np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") for k in a.files
        )
        rows = a["base"].shape == b["base"].shape
        moves = (
            f"{int((a['base'] != b['base']).sum())} of {len(b['base'])} base moves differ"
            if rows
            else f"{len(a['base'])} rows against {len(b['base'])}"
        )
    print(f"this tree: {3600 * games / now:,.0f} labelled games an hour per core ({now:.1f} CPU-s)")
    print(f"{args.against}: {3600 * games / then:,.0f} ({then:.1f} CPU-s)")
    print(f"this tree labels {then / now:.2f}x as many games an hour")
    print("the labels: " + ("identical" if same else f"not identical ({moves})"))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/crates_4p_expert.yaml")
    p.add_argument("--round", type=int, default=1, help="the round whose labels to time")
    p.add_argument("--games", type=int, default=8, help="games a chunk")
    p.add_argument("--chunks", type=int, default=2, help="chunks timed on each engine")
    p.add_argument("--first", type=int, default=5000, help="the first chunk's index")
    p.add_argument("--against", metavar="REV", help="time this tree beside git revision REV")
    args = p.parse_args(argv)
    if args.against:
        return against(args)
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

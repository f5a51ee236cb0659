"""VectorGame speed against OpenSpiel, side by side in one run: random legal play on one core.

    pip install -e ".[bench]"      # OpenSpiel, the peer
    python benchmarks/vector_speed.py                    # 10 s each, 3 repeats, 2 processes
    python benchmarks/vector_speed.py --seconds 3 --repeats 1
    python benchmarks/vector_speed.py --batches 1 64 1024 --processes 2 --json vector_speed.json

Goal: ``crates_env.vector.VectorGame`` makes at least 10x as many decisions per second per core
as OpenSpiel's C++ ``crazy_eights``, on the very same game: 4-player ``crazy_eights``.

- ``VectorGame crazy_eights``: 4 players, B games at once (``--batches``). Every step builds the
  observation and the legal mask of the seat to play in every game (``observe`` and
  ``legal_mask`` into preallocated arrays), picks a uniformly random legal action in each
  (``random_actions``) and steps; finished games restart at once. A step is B decisions.
- ``VectorGame zimbabwe``, ``VectorGame crates`` (``--beside``): the other rule systems the same
  way, 4 players at the largest batch.
- ``openspiel``: ``crazy_eights`` (4 players) as ``benchmarks/env_speed.py`` plays it (its
  contender, imported): ``observation_tensor`` and ``legal_actions`` every decision, chance
  outcomes sampled and not counted.
- ``VectorGame xN``: ``crazy_eights`` at the largest batch in N processes at once
  (``--processes``, 0 or 1 skips it), each its own VectorGame: the total rate, and its ratio to
  one process.

Every contender gets a warm-up step first (numba compilation and cache loading are not timed),
then plays for ``--seconds``. The whole set runs ``--repeats`` times, in reversed order every
other round, and the table gives each contender's median rate with min and max: shared machines
are noisy. Thread pools (OpenMP, OpenBLAS, MKL, numba) are held to one thread, here and in the
worker processes. The ratio column divides each median by OpenSpiel's.

Compile time (``--skip-compile`` skips it): fresh ``python -c`` processes import
``crates_env.vector`` and make the first ``reset``, ``observe``, ``legal_mask``,
``random_actions`` and ``step`` on a batch of 2, once with an empty numba cache (``NUMBA_CACHE_DIR``
a new temporary directory) and once more with the cache that run left.
"""

from __future__ import annotations

import os

# One core: every thread pool held to one thread, before numpy loads (spawned workers inherit it).
os.environ.update(
    dict.fromkeys(
        ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"), "1"
    )
)

import argparse
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from env_speed import openspiel_game, run_for  # noqa: E402  (benchmarks/ is on sys.path)

OPENSPIEL = "openspiel"
GOAL = 10.0
PRESET = "crazy_eights"  # the game OpenSpiel plays too

Run = dict[str, Any]  # decisions, elapsed, rate (and a processes run's per-worker rates)
Contender = Callable[[float], Run]  # plays for so many seconds

# Run by a fresh interpreter: numpy, then crates_env.vector, then the first compiled calls.
COMPILE_PROBE = f"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
t1 = time.perf_counter()
from crates_env.vector import VectorGame
t2 = time.perf_counter()
vg = VectorGame(2, preset="crazy_eights", num_players=4)
vg.reset(0)
vg.observe()
mask = vg.legal_mask()
vg.step(vg.random_actions(np.random.default_rng(0), mask))
t3 = time.perf_counter()
print(json.dumps({{"numpy": t1 - t0, "import": t2 - t1, "first_calls": t3 - t2}}))
"""


def timed(seconds: float, play: Callable[[int], int]) -> Run:
    """env_speed's ``run_for`` as a Run: ``play`` returns the decisions it made."""
    _calls, decisions, elapsed = run_for(seconds, play)
    return {"decisions": decisions, "elapsed": elapsed, "rate": decisions / elapsed}


def vector_contender(batch: int, seed: int = 0, preset: str = PRESET) -> Contender:
    """A warmed-up VectorGame of ``batch`` games, 4 players of ``preset``."""
    from crates_env.actions import NUM_ACTIONS
    from crates_env.vector import VectorGame

    vg = VectorGame(batch, preset=preset, num_players=4)
    vg.reset(seed)
    obs = np.empty((batch, vg.observation_size), dtype=np.float32)
    mask = np.empty((batch, NUM_ACTIONS), dtype=np.int8)
    rng = np.random.default_rng(seed)

    def step(_call: int) -> int:
        vg.observe(out=obs)
        vg.legal_mask(out=mask)
        vg.step(vg.random_actions(rng, mask))
        return batch

    step(0)  # warm up: compilation or cache loading
    return lambda seconds: timed(seconds, step)


def openspiel_contender() -> Contender:
    """env_speed's OpenSpiel crazy_eights, warmed up; plays whole games."""
    play = openspiel_game()
    play(0)  # warm up
    return lambda seconds: timed(seconds, play)


def _process_worker(batch: int, seed: int, seconds: float, barrier: Any, results: Any) -> None:
    run = vector_contender(batch, seed)
    barrier.wait(timeout=600)
    results.put(run(seconds))


def processes_contender(batch: int, processes: int) -> Contender:
    """``processes`` spawned workers, each its own warmed-up VectorGame of ``batch`` games,
    released together by a barrier; the rate is the sum of theirs (their windows coincide)."""
    ctx = mp.get_context("spawn")

    def run(seconds: float) -> Run:
        barrier, results = ctx.Barrier(processes), ctx.Queue()
        workers = [
            ctx.Process(
                target=_process_worker, args=(batch, 1000 * (i + 1), seconds, barrier, results)
            )
            for i in range(processes)
        ]
        for w in workers:
            w.start()
        parts = [results.get(timeout=600 + seconds * 2) for _ in workers]
        for w in workers:
            w.join()
            if w.exitcode:
                raise RuntimeError(f"worker process exited with code {w.exitcode}")
        return {
            "decisions": sum(p["decisions"] for p in parts),
            "elapsed": max(p["elapsed"] for p in parts),
            "rate": sum(p["rate"] for p in parts),
            "workers": [p["rate"] for p in parts],
        }

    return run


def compile_times() -> dict[str, dict[str, float]]:
    """Import and first-call times in fresh processes, cold then warm numba cache."""
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for name in ("cold", "warm"):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", COMPILE_PROBE],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - start
            if proc.returncode:
                raise RuntimeError(f"compile probe failed ({name} cache):\n{proc.stderr}")
            out[name] = {**json.loads(proc.stdout.strip().splitlines()[-1]), "process": wall}
    return out


def summarize(rates: list[float], base: float | None) -> dict[str, float | None]:
    median = statistics.median(rates)
    return {
        "median": median,
        "min": min(rates),
        "max": max(rates),
        "x_openspiel": median / base if base else None,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per contender and run")
    parser.add_argument(
        "--batches",
        type=int,
        nargs="+",
        default=[1, 64, 1024],
        help="VectorGame batch sizes (crazy_eights)",
    )
    parser.add_argument(
        "--beside",
        nargs="*",
        default=["zimbabwe", "crates"],
        help="other presets to measure at the largest batch",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs of the whole set")
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="also run the largest batch in this many processes at once (0 or 1: skip)",
    )
    parser.add_argument("--skip-compile", action="store_true", help="skip the compile timing")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the raw numbers here")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or min(args.batches) < 1 or args.processes < 0:
        parser.error("--seconds must be > 0, --repeats and --batches >= 1, --processes >= 0")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import numba

    started = time.perf_counter()
    load_start = os.getloadavg()
    contenders: dict[str, tuple[int, Contender]] = {}
    skipped: list[str] = []
    try:
        contenders[OPENSPIEL] = (1, openspiel_contender())
    except ImportError as exc:
        skipped.append(
            f"  {OPENSPIEL:<34} skipped ({exc.name} not installed: pip install -e '.[bench]')"
        )
    for batch in args.batches:
        contenders[f"VectorGame {PRESET} B={batch}"] = (batch, vector_contender(batch))
    big = max(args.batches)
    for preset in args.beside:
        contenders[f"VectorGame {preset} B={big}"] = (big, vector_contender(big, preset=preset))
    one_process = f"VectorGame {PRESET} B={big}"
    many = f"VectorGame {PRESET} B={big} x{args.processes}"
    if args.processes > 1:
        contenders[many] = (big, processes_contender(big, args.processes))

    runs: dict[str, list[Run]] = {name: [] for name in contenders}
    for repeat in range(args.repeats):
        order = list(contenders) if repeat % 2 == 0 else list(reversed(contenders))
        for name in order:
            runs[name].append(contenders[name][1](args.seconds))

    rates = {name: [r["rate"] for r in rs] for name, rs in runs.items()}
    base = statistics.median(rates[OPENSPIEL]) if OPENSPIEL in rates else None
    summary = {name: summarize(rs, base) for name, rs in rates.items()}
    compiled = None if args.skip_compile else compile_times()
    total = time.perf_counter() - started

    print(
        f"VectorGame vs OpenSpiel, 4 players, one core, {args.seconds:g} s each, "
        f"{args.repeats} repeat(s) (Python {sys.version.split()[0]}, numba {numba.__version__}, "
        f"{os.cpu_count()} CPUs, load {' '.join(f'{x:.1f}' for x in load_start)})"
    )
    print(
        f"  {'contender':<34} {'batch':>6} {'decisions/s median [min-max]':>36} {'x OpenSpiel':>12}"
    )
    for line in skipped:
        print(line)
    for name, s in summary.items():
        spread = f"{s['median']:,.0f} [{s['min']:,.0f}-{s['max']:,.0f}]"
        ratio = f"{s['x_openspiel']:.1f}x" if s["x_openspiel"] is not None else "-"
        print(f"  {name:<34} {contenders[name][0]:>6} {spread:>36} {ratio:>12}")
    if base:
        best = max(
            (n for n in summary if n.startswith(f"VectorGame {PRESET} B=") and n != many),
            key=lambda n: summary[n]["median"],
        )
        x = summary[best]["x_openspiel"]
        print(
            f"goal >= {GOAL:g}x OpenSpiel per core on {PRESET}: best {best} at {x:.1f}x, "
            f"{'met' if x >= GOAL else 'NOT met'}"
        )
    if many in summary:
        scale = summary[many]["median"] / summary[one_process]["median"]
        busy = load_start[0] + args.processes > (os.cpu_count() or 1)
        print(
            f"{args.processes} processes at B={big}: {scale:.2f}x one process (ideal "
            f"{args.processes}x), {summary[many]['median'] / args.processes:,.0f}/s each"
            + (f"; fewer free cores than processes (load {load_start[0]:.1f})" if busy else "")
        )
    if compiled:
        for name, c in compiled.items():
            print(
                f"{name} numba cache: import crates_env.vector {c['import']:.2f} s, first calls "
                f"{c['first_calls']:.2f} s, whole process {c['process']:.2f} s"
            )
    print(
        f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
        f"run took {total:.0f} s"
    )

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {
                        k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
                    },
                    "python": sys.version.split()[0],
                    "numba": numba.__version__,
                    "cpus": os.cpu_count(),
                    "loadavg_start": load_start,
                    "loadavg_end": os.getloadavg(),
                    "runs": runs,
                    "summary": summary,
                    "compile": compiled,
                    "seconds_total": total,
                },
                indent=2,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()

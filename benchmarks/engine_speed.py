"""Speed of the rules engine alone: random legal games on one core.

Run from the repository root:

    python benchmarks/engine_speed.py
    python benchmarks/engine_speed.py --preset craits --players 8 --seconds 10 --seed 1

Each game is ``new_game(preset, players, seed=...)`` played to the end with
``random.Random(seed).choice(g.legal_actions())`` and ``g.apply``; nothing else (no environment,
no observation encoding) is timed. Games are played until ``--seconds`` have passed, and the last
game is always finished, so the figures count whole games only.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env import new_game
from crates_env.rules import PRESETS, player_counts


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="crates", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="time budget (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of deals and action choices")
    args = parser.parse_args(argv)
    allowed = player_counts(args.preset)
    if args.players not in allowed:
        parser.error(
            f"preset {args.preset!r} is played by {allowed.start} to {allowed.stop - 1} players"
        )
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    return args


def run(preset: str, players: int, seconds: float, seed: int) -> dict:
    """Play random legal games for about ``seconds``; returns the counts and the elapsed time."""
    choose = random.Random(seed).choice
    games = decisions = truncated = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        g = new_game(preset, players, seed=seed + games)
        apply, legal_actions = g.apply, g.legal_actions
        while not g.game_over:
            apply(choose(legal_actions()))
            decisions += 1
        games += 1
        truncated += g.truncated
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "truncated": truncated, "elapsed": elapsed}


def report(args: argparse.Namespace, stats: dict) -> str:
    elapsed, games, decisions = stats["elapsed"], stats["games"], stats["decisions"]
    lines = [
        f"engine speed: {args.preset}, {args.players} players, seed {args.seed}, one core "
        f"(Python {platform.python_version()})",
        f"  games played        {games:>12,}   ({stats['truncated']} truncated)",
        f"  decisions           {decisions:>12,}",
        f"  elapsed             {elapsed:>12.2f} s",
        f"  decisions / second  {decisions / elapsed:>12,.0f}",
        f"  games / second      {games / elapsed:>12,.2f}",
        f"  decisions / game    {decisions / games:>12,.1f}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    stats = run(args.preset, args.players, args.seconds, args.seed)
    print(report(args, stats))


if __name__ == "__main__":
    main()

"""Cost of copying a game: ``clone()``, ``resample_hidden()`` and ``copy.deepcopy`` side by side.

Run from the repository root:

    python benchmarks/state_speed.py
    python benchmarks/state_speed.py --preset kreights --players 5 --positions 200

Positions come from random legal play (a random number of decisions into a game of each seed).
Each operation is timed over the same positions, in turn, several rounds; the figures are the
median time per copy in microseconds. ``deepcopy`` is what a search had to do before the engine
was a state value (it copies the rules and the deck too).
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env import Game, new_game
from crates_env.rules import PRESETS, player_counts


def positions(preset: str, players: int, count: int, seed: int) -> list[Game]:
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        g = new_game(preset, players, seed=seed + len(out))
        for _ in range(rnd.randrange(1, 400)):
            if g.game_over:
                break
            g.apply(rnd.choice(g.legal_actions()))
        if not g.game_over:
            out.append(g)
    return out


def per_copy(games: list[Game], operation, rounds: int) -> float:
    """Median over rounds of the mean time per copy, in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for g in games:
            operation(g)
        times.append((time.perf_counter() - start) / len(games) * 1e6)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="crates", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    allowed = player_counts(args.preset)
    if args.players not in allowed:
        parser.error(
            f"preset {args.preset!r} is played by {allowed.start} to {allowed.stop - 1} players"
        )
    games = positions(args.preset, args.players, args.positions, args.seed)
    rng = np.random.default_rng(args.seed)
    operations = {
        "clone()": lambda g: g.clone(),
        "resample_hidden()": lambda g: g.resample_hidden(g.to_play, rng),
        "copy.deepcopy": copy.deepcopy,
    }
    print(
        f"state copies: {args.preset}, {args.players} players, {len(games)} positions, "
        f"median of {args.rounds} rounds (Python {sys.version.split()[0]})"
    )
    for name, operation in operations.items():
        print(f"  {name:<18} {per_copy(games, operation, args.rounds):>9.1f} us")


if __name__ == "__main__":
    main()

"""The compiled engine against the reference, over millions of decisions per preset.

    python benchmarks/vector_equivalence.py --decisions 1000000 --out equivalence.jsonl
    python benchmarks/vector_equivalence.py --presets crates --decisions 200000

For each preset it plays chunks of ``--games`` random games through both engines
(``crates_env.vector.equivalence.play_both``: seat to play, action mask and observation at every
decision, rewards and game end after every step, final scores), cycling through the preset's
player counts and option sets below, until the preset has ``--decisions`` decisions compared.
The first difference stops the run and prints where it is.

Each finished chunk is appended to ``--out`` as one JSON line, and chunks already there are
skipped on a rerun, so a long check can be stopped, split across sessions or processes
(``--part K --parts N`` takes every N-th chunk) and pooled: ``--report`` sums the file.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env.vector.equivalence import play_both

# Per preset: the tables a chunk cycles through (players, options).
VARIANTS: dict[str, list[tuple[int, dict]]] = {
    "crates": [
        (4, {}),
        (2, {"reward_timing": "event"}),
        (3, {"reward_mode": "relative", "one_card": "auto"}),
        (5, {"reward_mode": "win"}),
        (4, {"reward_timing": "event", "one_card": "auto", "reward_scale": 0.01}),
        (4, {"standig_jokers": True, "queen_draws_two": True, "no_kings_queens": True}),
        (3, {"pressure_cap_20": True, "reward_timing": "event"}),
        (3, {"skill_hand_world_series": True}),
        (3, {"skill_hand_world_series": True, "reward_timing": "event", "one_card": "auto"}),
    ],
    "chicago1970": [(4, {}), (3, {"one_card": "auto"}), (5, {"reward_timing": "event"})],
    "kreights": [
        (4, {}),
        (3, {"reward_timing": "event"}),
        (5, {}),
        (4, {"seven_card_format": True, "kreights_mulligan": [1, 3]}),
        (3, {"kreights_free_play_after_count": True, "kreights_pressure_doubling": True}),
        (4, {"kreights_three_mutual_cancel": False, "one_card": "auto"}),
    ],
    "craits": [
        (4, {}),
        (2, {"reward_timing": "event"}),
        (7, {}),
        (4, {"craits_face_cards": True, "craits_dealer_follows_direction": True}),
        (3, {"craits_one_card_on_deal": True, "craits_idiot_card": True}),
        (5, {"craits_continue_after_count": True, "craits_go_out_minus_10": True}),
        (4, {"craits_three_covers_eight": True, "craits_punitive_threes": True}),
        (3, {"craits_short_game": True, "craits_face_cards": True}),
    ],
    "creights": [(4, {}), (2, {"reward_timing": "event"}), (3, {"one_card": "auto"})],
}


def chunks(preset: str, games: int):
    """(index, players, options, env seed) of the preset's chunks, without end."""
    for index in itertools.count():
        players, options = VARIANTS[preset][index % len(VARIANTS[preset])]
        yield index, players, options, 1_000_000 * index + 17


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--decisions", type=int, default=1_000_000, help="per preset")
    parser.add_argument("--games", type=int, default=64, help="games per chunk")
    parser.add_argument("--out", type=Path, default=Path("vector_equivalence.jsonl"))
    parser.add_argument("--part", type=int, default=0)
    parser.add_argument("--parts", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="only sum --out")
    args = parser.parse_args()
    done = _read(args.out)
    if not args.report:
        for preset in args.presets:
            run_preset(preset, args, done)
    report(_read(args.out), args.presets)


def run_preset(preset: str, args: argparse.Namespace, done: dict) -> None:
    for index, players, options, seed in chunks(preset, args.games):
        total = sum(r["decisions"] for (p, _), r in done.items() if p == preset)
        if total >= args.decisions:
            return
        if (preset, index) in done or index % args.parts != args.part:
            continue
        start = time.perf_counter()
        played = play_both(preset, players, args.games, seed, **options)
        row = {
            "preset": preset,
            "chunk": index,
            "players": players,
            "options": options,
            "seed": seed,
            "games": played.games,
            "decisions": played.decisions,
            "seconds": round(time.perf_counter() - start, 1),
        }
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done[(preset, index)] = row
        print(f"{preset} chunk {index} ({players}p {options}): {played.decisions:,} decisions")


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["preset"], r["chunk"]): r for r in rows}


def report(done: dict, presets: list[str]) -> None:
    print(f"\n{'preset':<12} {'tables':>6} {'games':>8} {'decisions':>12}  differences")
    for preset in presets:
        rows = [r for (p, _), r in done.items() if p == preset]
        tables = {(r["players"], json.dumps(r["options"], sort_keys=True)) for r in rows}
        games = sum(r["games"] for r in rows)
        decisions = sum(r["decisions"] for r in rows)
        print(f"{preset:<12} {len(tables):>6} {games:>8,} {decisions:>12,}  none")


if __name__ == "__main__":
    main()

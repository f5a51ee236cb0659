"""The compiled engine against the reference, over millions of decisions per rule system.

    python benchmarks/vector_equivalence.py --decisions 1000000 --out equivalence.jsonl
    python benchmarks/vector_equivalence.py --systems crates zimbabwe --decisions 200000

A rule system is a preset, or a preset with ``misplay_mode="penalize"`` (``kreights+penalize``,
``creights+penalize``: random play makes a misplay the rules penalise one move in 16 where
there is one). For each it plays chunks of ``--games`` random games through both engines
(``tests.harness.vector_equivalence.play_both``: seat to play, action mask, misplays accepted and
observation at every decision, rewards and game end after every step, final scores), cycling
through the system's player counts and option sets below, until it has ``--decisions``
decisions compared. The first difference stops the run and prints where it is.

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

from tests.harness.vector_equivalence import play_both

PENALTY_CARDS = {"misplay_mode": "penalize", "kreights_penalty_cards": True}
REVOKES = {"misplay_mode": "penalize", "kreights_revoke_penalty": True}
DUMBASS = {"misplay_mode": "penalize", "creights_dumbass_cards": True}

# Per rule system: the tables a chunk cycles through (players, options); the preset is the
# system's name before a "+".
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
    "crazy_eights": [
        (4, {}),
        (2, {"reward_timing": "event"}),
        (3, {"crazy_eights_eight_must_change_suit": True, "reward_mode": "relative"}),
        (5, {"reward_mode": "win"}),
        (6, {}),  # two packs
        (7, {"one_card": "auto", "reward_scale": 0.01}),
    ],
    "zimbabwe": [
        (4, {}),
        (2, {"reward_timing": "event"}),
        (3, {"deal_size": 6, "reward_mode": "relative"}),
        (5, {"zimbabwe_jokers": 0, "reward_mode": "win"}),
        (6, {"zimbabwe_jokers": 4, "deal_size": 8}),  # two packs
        (7, {"zimbabwe_jokers": 8, "deal_size": 8, "one_card": "auto"}),
    ],
    "kreights+penalize": [
        (4, PENALTY_CARDS),
        (3, {**REVOKES, "reward_timing": "event"}),
        (5, {**PENALTY_CARDS, **REVOKES}),  # two packs
        (4, {**PENALTY_CARDS, **REVOKES, "seven_card_format": True, "one_card": "auto"}),
    ],
    "creights+penalize": [
        (4, DUMBASS),
        (2, {**DUMBASS, "reward_timing": "event"}),
        (3, {**DUMBASS, "one_card": "auto", "reward_mode": "relative"}),
    ],
}


def preset_of(system: str) -> str:
    return system.split("+")[0]


def chunks(system: str, games: int):
    """(index, players, options, env seed) of the rule system's chunks, without end."""
    for index in itertools.count():
        players, options = VARIANTS[system][index % len(VARIANTS[system])]
        yield index, players, options, 1_000_000 * index + 17


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--decisions", type=int, default=1_000_000, help="per rule system")
    parser.add_argument("--games", type=int, default=64, help="games per chunk")
    parser.add_argument("--out", type=Path, default=Path("vector_equivalence.jsonl"))
    parser.add_argument("--part", type=int, default=0)
    parser.add_argument("--parts", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="only sum --out")
    args = parser.parse_args()
    done = _read(args.out)
    if not args.report:
        for system in args.systems:
            run_system(system, args, done)
    report(_read(args.out), args.systems)


def run_system(system: str, args: argparse.Namespace, done: dict) -> None:
    for index, players, options, seed in chunks(system, args.games):
        total = sum(r["decisions"] for (p, _), r in done.items() if p == system)
        if total >= args.decisions:
            return
        if (system, index) in done or index % args.parts != args.part:
            continue
        start = time.perf_counter()
        played = play_both(preset_of(system), players, args.games, seed, **options)
        row = {
            "system": system,
            "chunk": index,
            "players": players,
            "options": options,
            "seed": seed,
            "games": played.games,
            "overflowed": played.overflowed,
            "decisions": played.decisions,
            "seconds": round(time.perf_counter() - start, 1),
        }
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done[(system, index)] = row
        print(f"{system} chunk {index} ({players}p {options}): {played.decisions:,} decisions")


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["system"], r["chunk"]): r for r in rows}


def report(done: dict, systems: list[str]) -> None:
    print(
        f"\n{'rule system':<18} {'tables':>6} {'games':>8} {'decisions':>12}  differences"
        "  (games stopped by a 64-bit overflow)"
    )
    for system in systems:
        rows = [r for (p, _), r in done.items() if p == system]
        tables = {(r["players"], json.dumps(r["options"], sort_keys=True)) for r in rows}
        games = sum(r["games"] for r in rows)
        decisions = sum(r["decisions"] for r in rows)
        overflowed = sum(r["overflowed"] for r in rows)
        print(f"{system:<18} {len(tables):>6} {games:>8,} {decisions:>12,}  none  ({overflowed})")


if __name__ == "__main__":
    main()

"""Where does one agent play differently from another? Their moves side by side at the same
positions, by how far the hand has run (cards left in the stock) and by kind of move.

The first agent plays 4-player crates games in every seat; at each of its real choices the
second agent is asked what it would play (it does not move). The table gives, per stock size
bucket and per kind of decision (a card to play, a suit to name, draw or play), how often the
two differ, and what the first plays instead of the second's move most often:

    python benchmarks/move_diff.py --agents checkpoints/crates_4p.zip heuristic --games 100
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents import Table, make_agent
from crates_env.actions import DRAW, SUIT, action_name
from crates_env.cards import RANKS, rank_of
from crates_env.env import raw_env

BUCKETS = ((0, 0), (1, 3), (4, 10), (11, 20), (21, 200))


def move_kind(action: int) -> str:
    """A card player's name for a move: "play 8", "suit", "draw", ..."""
    if action < SUIT:
        return f"play {RANKS[rank_of(action)]}"
    if action < DRAW:
        return "suit"
    return action_name(action)


def compare(first: str, second: str, games: int, seed: int) -> tuple[dict, Counter]:
    env = raw_env(one_card="auto")
    table = Table.from_env(env)
    players = [make_agent(first, table, seed=seed + s) for s in range(4)]
    other = make_agent(second, table, seed=seed)
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    swaps: Counter = Counter()
    for game in range(games):
        env.reset(seed=seed + game)
        for p in players:
            p.reset()
        g = env.game
        while not g.game_over:
            seat = g.to_play
            seen = env.observe(env.possible_agents[seat])
            obs, mask = seen["observation"], seen["action_mask"]
            move = players[seat].act(obs, mask, g)
            if mask.sum() > 1:
                theirs = other.act(obs, mask, g)
                stock = g.view(seat).stock_size
                bucket = next(f"{lo}-{hi}" for lo, hi in BUCKETS if lo <= stock <= hi)
                decision = "suit" if mask[SUIT:DRAW].any() else "card"
                for key in ((bucket, decision), ("all", decision), ("all", "all")):
                    tally[key][0] += 1
                    tally[key][1] += move != theirs
                if move != theirs:
                    swaps[(move_kind(theirs), move_kind(move))] += 1
            env.step(move)
    return dict(tally), swaps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", nargs=2, required=True, metavar=("FIRST", "SECOND"))
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    tally, swaps = compare(*args.agents, args.games, args.seed)
    first, second = args.agents
    print(f"{first} playing, {second} asked: {args.games} games of 4-player crates")
    print(f"{'stock':>8} {'decision':>9} {'positions':>10} {'differ':>8}")
    for (bucket, decision), (n, differ) in sorted(tally.items(), key=_order):
        print(f"{bucket:>8} {decision:>9} {n:10,} {differ / n:8.1%}")
    total = sum(swaps.values())
    print(f"most frequent differences ({second}'s move -> {first}'s), of {total:,}:")
    for (theirs, mine), n in swaps.most_common(12):
        print(f"  {theirs:>10} -> {mine:<10} {n / total:6.1%}")


def _order(item) -> tuple:
    (bucket, decision), _ = item
    rank = [f"{lo}-{hi}" for lo, hi in BUCKETS] + ["all"]
    return rank.index(bucket), decision


if __name__ == "__main__":
    main()

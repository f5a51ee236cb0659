"""What a network's choices are worth by the search's own estimates, on labelled games it did
not learn from: a check of a distilled network without playing a deal.

    python benchmarks/held_out_gain.py LABELS NET [NET ...] [--holdout 0.05] [--z 2.5]

LABELS is a folder of label chunks (``train.labels``; a round's ``round_<r>`` folder). Their
last games (``--holdout``, the share ``expert.holdout`` keeps out of training) are read; at
every position the search looked at, each legal move has its estimated gain over the base
policy's move (mean margin over the re-deals). A network's choice there is worth that move's
gain, the base policy's nothing. The figure is the sum over a game's searched positions, both
sides' (points a game, mean and standard error over the held-out games), beside the same
figure for the search's own choices at ``--z`` (optimistic: chosen on the very re-deals that
estimate them). ``--by-decision`` splits each figure by the decisions where the choice left the
base policy's move (naming a suit, playing a card, drawing, ...): where a network's points come
from, and where it gives them away.

It is unbiased for a network that never saw those games, and it is noisy in the game's
units: at crazy_eights a game's sum is a few tens of points; at crates, whose doubling
pressures make a deal's margin run to thousands, one position's estimate can swamp the rest,
and duplicate deals (``crates eval``) are the measure that counts.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from agents import Table
from agents.checkpoints import load_network
from crates_env.actions import DRAW
from crates_env.engine_choice import rules_of_env
from crates_env.state import Decision
from train.expert import first_held_out, network_choices
from train.labels import Labels, pool_labels


def held_out_rows(labels: Labels, holdout: float) -> tuple[np.ndarray, int]:
    """The searched positions of the held-out games, and the index of the first such game."""
    first = first_held_out(labels.games, holdout)
    return np.flatnonzero((labels.game >= first) & labels.searched), first


def gain_per_game(labels: Labels, rows: np.ndarray, first: int, moves: np.ndarray):
    """Mean and standard error over the held-out games of the summed gains of ``moves``."""
    gains = labels.gains[rows, moves]
    games = labels.games - first
    per_game = np.bincount(labels.game[rows] - first, weights=gains, minlength=games)
    return float(per_game.mean()), float(per_game.std(ddof=1) / math.sqrt(games))


def move_kinds(labels: Labels, rows: np.ndarray, moves: np.ndarray, table: Table):
    """Each row's kind of choice: its decision's name, a play split into "draw" and "card"."""
    decision = table.slice(labels.observations[rows], "decision").argmax(axis=1)
    names = np.array([d.name.lower() for d in Decision], dtype=object)[decision]
    play = decision == Decision.PLAY
    names[play] = np.where(moves[play] == DRAW, "draw", "card")
    return names


def by_decision(labels: Labels, rows: np.ndarray, first: int, moves: np.ndarray, table: Table):
    """Points a game and departures a game from the base move, by kind of choice: {kind:
    (points, departures)}, over the held-out games."""
    games = labels.games - first
    left = moves != labels.base[rows]
    kinds = move_kinds(labels, rows, moves, table)
    gains = labels.gains[rows, moves]
    split = {}
    for kind in sorted(set(kinds[left])):
        these = left & (kinds == kind)
        split[kind] = (gains[these].sum() / games, these.sum() / games)
    return split


def labelled_table(folder: Path) -> Table:
    """The table the chunks of ``folder`` were labelled at (their first chunk's settings)."""
    first = min(Path(folder).glob("chunk_*.npz"))
    with np.load(first) as data:
        return Table.from_rules(rules_of_env(json.loads(str(data["settings"]))["env"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", type=Path, help="a folder of label chunks")
    parser.add_argument("networks", nargs="+", help="checkpoints to score")
    parser.add_argument("--holdout", type=float, default=0.05, help="share of games held out")
    parser.add_argument("--z", type=float, default=2.5, help="the search's choice at this z")
    parser.add_argument(
        "--by-decision", action="store_true", help="split the figures by kind of decision"
    )
    args = parser.parse_args()
    if not 0 < args.holdout < 1:
        raise SystemExit(f"--holdout must be between 0 and 1, not {args.holdout}")
    try:
        labels = pool_labels([args.labels])
    except ValueError as error:
        raise SystemExit(str(error)) from None
    rows, first = held_out_rows(labels, args.holdout)
    base, search = labels.base[rows], labels.target(args.z)[rows]
    print(f"{labels.games - first} held-out games, {len(rows):,} searched positions")
    table = labelled_table(args.labels) if args.by_decision else None

    def split(moves: np.ndarray) -> None:
        if table is not None:
            parts = by_decision(labels, rows, first, moves, table).items()
            print("    " + "; ".join(f"{k} {p:+.2f} ({n:.2f} a game)" for k, (p, n) in parts))

    mean, se = gain_per_game(labels, rows, first, search)
    print(f"{'the search (z=' + str(args.z) + ')':<48} {mean:+9.2f} ± {se:.2f} points a game")
    split(search)
    changed = search != base
    for path in args.networks:
        policy = load_network(path).policy
        policy.train(False)
        moves = network_choices(policy, labels, rows)
        mean, se = gain_per_game(labels, rows, first, moves)
        taken = np.mean(moves[changed] == search[changed])
        print(
            f"{Path(path).name:<48} {mean:+9.2f} ± {se:.2f} points a game; leaves the base "
            f"move at {np.mean(moves != base):.1%}, takes {taken:.1%} of the search's changes"
        )
        split(moves)


if __name__ == "__main__":
    main()

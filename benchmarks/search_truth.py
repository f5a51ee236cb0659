"""How real are the search's changes of move? Its verdict from a few re-deals against a 'truth'
of many more, at positions of HeuristicAgent games (4-player crates).

At every other decision the search looks at (a real choice, the stock at ``--stock-max`` or
less), SearchAgent's verdict from ``--samples`` re-deals is set beside a verdict from
``--truth`` independent re-deals (the same rollouts, far less noise). The truth's gain of every
legal move over HeuristicAgent's move says what each choice rule would have earned: the
search's choice at z = 0, 1, 2, the same after ``--deepen`` rounds more where the moves spread
``--deepen-at`` points apart (as expert iteration labels: ``SearchAgent.deepened_margins``),
and an oracle that always takes the truly best move. "Big" positions are those whose truly best
move gains over ``--big`` points: a pressure dodged.

    python benchmarks/search_truth.py --positions 400 --seed 11 --out runs/truth/s11.json
    python benchmarks/search_truth.py --pool runs/truth/*.json    # one report on saved runs
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents import HeuristicAgent, SearchAgent, Table
from agents.search import Verdict
from crates_env.env import raw_env
from train.workers import torch_threads

RULES = {"z0": ("first", 0.0), "z1": ("first", 1.0), "z2": ("first", 2.0), "deep z1": ("deep", 1.0)}


def measure(args) -> list[dict]:
    env = raw_env(one_card="auto", reward_mode="relative")
    table = Table.from_env(env)
    heuristic = HeuristicAgent(table, args.seed)
    search = SearchAgent(table, samples=args.samples, stock_max=args.stock_max, seed=args.seed)
    truth = SearchAgent(table, samples=args.truth, stock_max=args.stock_max, seed=args.seed + 1)
    deep_search = SearchAgent(
        table,
        samples=args.samples,
        stock_max=args.stock_max,
        seed=args.seed,
        deepen=args.deepen,
        deepen_at=args.deepen_at,
    )
    rng = np.random.default_rng(args.seed)
    rows: list[dict] = []
    env.reset(seed=args.seed)
    while len(rows) < args.positions:
        if env.game.game_over:
            env.reset()
        seen = env.observe(env.possible_agents[env.game.to_play])
        observation, mask = seen["observation"], seen["action_mask"]
        legal = np.flatnonzero(mask)
        base = int(heuristic.act(observation, mask))
        if search.searches(env, legal) and rng.random() < 0.5:
            deep = deep_search.deepened_margins([(env, legal)], [base])[0]
            first = deep[:, : args.samples]  # the re-deals before any deepening
            verdicts = {
                "first": Verdict.of(first, legal, base),
                "deep": Verdict.of(deep, legal, base),
            }
            true = Verdict.of(truth.move_margins(env, legal), legal, base)
            rows.append(
                {
                    "stock": int(env.game.view(env.game.to_play).stock_size),
                    "legal": legal.tolist(),
                    "base": int(np.flatnonzero(legal == base)[0]),
                    "deepened": bool(deep.shape[1] > args.samples),
                    "true_gain": true.gains.tolist(),
                    "true_se": true.gain_se.tolist(),
                    **{name: verdicts[kind].choice(z) for name, (kind, z) in RULES.items()},
                }
            )
        env.step(base)
    return rows


def report(rows: list[dict], big: float) -> str:
    gains = [np.array(r["true_gain"]) for r in rows]
    best = np.array([g.max() for g in gains])
    is_big = best > big
    lines = [
        f"{len(rows)} positions; {is_big.sum()} big (truly best move gains > {big:g} points: "
        f"{is_big.mean():.1%}, mean best gain {best[is_big].mean():.0f}); deepened "
        f"{np.mean([r['deepened'] for r in rows]):.1%}",
        f"{'rule':10} {'gain/position':>14} {'big: gain':>10} {'big: best':>10} "
        f"{'small: gain':>12}",
    ]
    choices = {name: [r[name] for r in rows] for name in RULES}
    choices["oracle"] = [int(g.argmax()) for g in gains]
    for name, chosen in choices.items():
        take = np.array([g[c] for g, c in zip(gains, chosen, strict=True)])
        hit = take >= best
        lines.append(
            f"{name:10} {take.mean():14.1f} {take[is_big].mean():10.1f} "
            f"{hit[is_big].mean():10.1%} {take[~is_big].mean():12.1f}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--truth", type=int, default=256)
    parser.add_argument("--stock-max", type=int, default=10)
    parser.add_argument("--deepen", type=int, default=3)
    parser.add_argument("--deepen-at", type=float, default=80.0)
    parser.add_argument("--big", type=float, default=100.0)
    parser.add_argument("--out", type=Path, help="save the positions here (JSON), to pool")
    parser.add_argument("--pool", type=Path, nargs="+", help="report on saved runs instead")
    args = parser.parse_args()
    if args.pool:
        rows = [row for path in args.pool for row in json.loads(path.read_text())]
    else:
        start = time.process_time()
        with torch_threads(1):
            rows = measure(args)
        print(f"{time.process_time() - start:.0f} CPU-seconds")
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(rows))
    print(report(rows, args.big))


if __name__ == "__main__":
    main()

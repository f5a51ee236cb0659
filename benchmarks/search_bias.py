"""Noise or bias? What SearchAgent's re-deals say a move gains, against what it really gains.

At positions of HeuristicAgent games (a real choice, sampled at random), every legal move's gain
over HeuristicAgent's move (the hand's margin for the mover's side, the rollouts played by
HeuristicAgent in every seat) is measured three ways, ``--samples`` times each:

- ``redeal``: uniform re-deals of every card the mover cannot see, as SearchAgent reads it;
- ``voids``: re-deals that also respect what the others' plays told: a player who drew held no
  card it could play (HeuristicAgent never draws holding one, and in the Crates family the rules
  forbid it), and in the Eights family, where HeuristicAgent sheds its costliest natural card, a
  player who played a card held no costlier natural card it could play; but for the cards it
  drew since;
- ``real``: the true hands, only the stock shuffled again: what the move earns in this very
  position with the same rollouts (a measurement only: no player could do this).

Noise is the search's own re-deals disagreeing with more of them; a bias is its re-deals, however
many, disagreeing with the real gain. The report compares choice rules on both (the share of
decisions changed, and their real gain a decision) and the re-deals' optimism about the moves
they pick, estimated on independent re-deals:

    python benchmarks/search_bias.py --preset crazy_eights --positions 400 --seed 1 \\
        --out runs/bias/ce_s1.jsonl
    python benchmarks/search_bias.py --pool runs/bias/ce_*.jsonl
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
from crates_env.actions import DRAW
from crates_env.cards import NUM_KINDS
from crates_env.env import raw_env
from crates_env.game import Game, game_streams

VIEWS = ("redeal", "voids", "real")
TRIES = 20_000  # re-deals of one player's hand before a constraint is given up (counted)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="crazy_eights")
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--samples", type=int, default=192, help="re-deals of each view a position")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, help="JSON lines, one a position (appended)")
    p.add_argument("--pool", type=Path, nargs="+", help="report on saved positions")
    args = p.parse_args(argv)
    if args.pool:
        print(report([json.loads(line) for f in args.pool for line in f.open()]))
        return
    measure(args)


# ---------------------------------------------------------------------- measuring
class Voids:
    """What each player's plays this hand told the table: at every draw, the kinds it could
    have played there, and (the Eights family) at every play of a card, the costlier natural
    kinds it could have played: it held none of them, but for cards drawn since."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.hand: tuple[int, int] | None = None
        self.events: dict[int, list[dict]] = {}

    def see(self, g: Game, action: int, legal: np.ndarray) -> None:
        """Before ``action`` (of ``legal``) is played in ``g``."""
        if (id(g), g.hand_index) != self.hand:
            self.hand, self.events = (id(g), g.hand_index), {s: [] for s in range(g.n)}
        seat = g.to_play
        size = g.hand_state.sizes[seat]
        if action == DRAW:
            self.events[seat].append({"kinds": playable_kinds(g), "size": size, "played": []})
        elif action < NUM_KINDS:
            for e in self.events[seat]:
                e["played"].append(action)
            if self.table.engine == "eights" and DRAW in legal:  # a free choice of a card
                costlier = self._costlier(playable_kinds(g), action)
                self.events[seat].append({"kinds": costlier, "size": size, "played": [action]})

    def _costlier(self, playable: frozenset[int], played: int) -> frozenset[int]:
        """The natural kinds HeuristicAgent would have shed before ``played`` (any natural
        before a wild)."""
        t = self.table
        naturals = {k for k in playable if not t.is_wild(k)}
        if t.is_wild(played):
            return frozenset(naturals)
        cost = (t.card_points[played], -played)
        return frozenset(k for k in naturals if (t.card_points[k], -k) > cost)

    def allow(self, g: Game, seat: int, kinds: list[int]) -> bool:
        """Whether ``seat`` may hold ``kinds`` (its hidden cards now) after its draws."""
        for e in self.events.get(seat, []):
            drawn = g.hand_state.sizes[seat] - e["size"] + len(e["played"])
            new_playable = drawn - sum(k in e["kinds"] for k in e["played"])
            if sum(k in e["kinds"] for k in kinds) > new_playable:
                return False
        return True


def playable_kinds(g: Game) -> frozenset[int]:
    """The kinds the seat to play could play here if it held them."""
    probe = g.clone()
    hs = probe.hand_state
    everything = sum(1 << i for i in hs.stock)
    for hand in hs.hands:
        everything |= hand
    hs.hands[probe.to_play] = everything
    probe.turn_state.legal = None
    return frozenset(a for a in probe.legal_actions() if a < NUM_KINDS)


def redealt(g: Game, deal) -> Game:
    """A copy of ``g`` whose ``resample_hidden`` is ``deal(seat, rng)`` (what the search
    re-deals through)."""
    copy = g.clone()
    copy.resample_hidden = deal
    return copy


def real_hands(g: Game) -> Game:
    """Every hand as it truly is; only the stock is shuffled again."""

    def deal(seat: int, rng: np.random.Generator) -> Game:
        out = g.clone()
        hs = out.hand_state
        hs.stock = [hs.stock[j] for j in rng.permutation(len(hs.stock))]
        out.deal_rng, out.rng = game_streams(rng)
        out.turn_state.legal = None
        return out

    return redealt(g, deal)


def void_respecting(g: Game, voids: Voids, counts: dict) -> Game:
    """Uniform re-deals, each other player's hand drawn again until it keeps its voids."""
    kinds = g.deck.kinds

    def deal(seat: int, rng: np.random.Generator) -> Game:
        out = g.clone()
        hs = out.hand_state
        others = [s for s in range(g.n) if s != seat]
        hidden = {s: hs.hands[s] & ~g._face_up(s) for s in others}
        pool = [i for s in others for i in range(hidden[s].bit_length()) if hidden[s] >> i & 1]
        pool = np.array(sorted(pool + list(hs.stock), key=lambda i: (kinds[i], i)))
        left = np.ones(len(pool), dtype=bool)
        for s in sorted(others, key=lambda s: -len(voids.events.get(s, []))):
            free = np.flatnonzero(left)
            for _ in range(TRIES):
                pick = rng.choice(free, hidden[s].bit_count(), replace=False)
                if voids.allow(g, s, [kinds[i] for i in pool[pick]]):
                    break
            else:
                counts["gave_up"] += 1
            left[pick] = False
            hs.hands[s] = (hs.hands[s] & ~hidden[s]) | sum(1 << int(i) for i in pool[pick])
        hs.stock = [int(i) for i in rng.permutation(pool[left])]
        out.deal_rng, out.rng = game_streams(rng)
        out.turn_state.legal = None
        return out

    return redealt(g, deal)


def measure(args) -> None:
    env = raw_env(preset=args.preset, num_players=4)
    table = Table.from_env(env)
    heuristic = HeuristicAgent(table, args.seed)
    searches = {
        view: SearchAgent(table, args.samples, 1_000_000, seed=args.seed + i, z=0)
        for i, view in enumerate(VIEWS)
    }
    rng = np.random.default_rng(args.seed)
    voids, counts = Voids(table), {"gave_up": 0, "true_hands_break_voids": 0}
    env.reset(seed=args.seed)
    done, start = 0, time.perf_counter()
    while done < args.positions:
        if env.game.game_over:
            env.reset(seed=int(rng.integers(2**31)))
        g = env.game
        seen = env.observe(env.possible_agents[g.to_play])
        legal = np.flatnonzero(seen["action_mask"])
        base = int(heuristic.act(seen["observation"], seen["action_mask"]))
        if len(legal) > 1 and rng.random() < 0.3:
            kinds = g.deck.kinds
            for s in range(g.n):  # the constraints hold for the true hands, or they are wrong
                hand = g.hand_state.hands[s]
                held = [kinds[i] for i in range(hand.bit_length()) if hand >> i & 1]
                if s != g.to_play and not voids.allow(g, s, held):
                    counts["true_hands_break_voids"] += 1
            games = {"redeal": g, "voids": void_respecting(g, voids, counts), "real": real_hands(g)}
            margins = {v: searches[v].move_margins(games[v], legal) for v in VIEWS}
            row = {
                "preset": args.preset,
                "stock": int(g.view(g.to_play).stock_size),
                "legal": legal.tolist(),
                "base": int(np.flatnonzero(legal == base)[0]),
                **{v: np.round(m, 3).tolist() for v, m in margins.items()},
            }
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                with args.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
            done += 1
            print(f"{done} positions, {time.perf_counter() - start:.0f} s, {counts}", flush=True)
        voids.see(g, base, legal)
        env.step(base)


# ---------------------------------------------------------------------- the report
def choose(margins: np.ndarray, base: int, z: float) -> int:
    """SearchAgent's choice (``Verdict.choice``) on these margins (moves x re-deals)."""
    gain = margins - margins[base]
    mean, se = gain.mean(axis=1), gain.std(axis=1, ddof=1) / np.sqrt(gain.shape[1])
    best = int(margins.mean(axis=1).argmax())
    return best if z == 0 or mean[best] > z * se[best] else base


def mean_se(values) -> str:
    values = np.asarray(values, dtype=float)
    return f"{values.mean():+.2f} ± {values.std(ddof=1) / np.sqrt(len(values)):.2f}"


def report(rows: list[dict], repeats: int = 4) -> str:
    rng = np.random.default_rng(0)
    real = [np.array(r["real"]) for r in rows]
    gains = [(h - h[r["base"]]).mean(axis=1) for h, r in zip(real, rows, strict=True)]
    spread = [
        (np.array(r["redeal"])[m] - np.array(r["redeal"])[r["base"]]).std()
        for r in rows
        for m in range(len(r["legal"]))
        if m != r["base"]
    ]
    lines = [
        f"{len(rows)} positions of {', '.join(sorted({r['preset'] for r in rows}))}",
        f"a move's gain over HeuristicAgent's on one re-deal: sd {np.median(spread):.1f} points "
        "(median over moves)",
        f"the truly best move's real gain: {mean_se([g.max() for g in gains])} points a decision "
        f"(more than 5 points at {np.mean([g.max() > 5 for g in gains]):.0%} of them)",
        "",
        "choice rule on the search's re-deals: decisions changed, real gain a decision",
    ]
    views = [v for v in ("redeal", "voids") if all(v in r for r in rows)]
    for view in views:
        for k in (16, 64):
            cells = []
            for z in (0, 1, 2, 3):
                real_gain, changed = [], []
                for _ in range(repeats):
                    for r, g in zip(rows, gains, strict=True):
                        m = np.array(r[view])
                        cols = rng.choice(m.shape[1], min(k, m.shape[1]), replace=False)
                        pick = choose(m[:, cols], r["base"], z)
                        real_gain.append(g[pick])
                        changed.append(pick != r["base"])
                cells.append(f"z={z}: {np.mean(changed):4.0%} {mean_se(real_gain)}")
            lines.append(f"  {view:>6} {k:>3} re-deals  " + "   ".join(cells))
    lines += [
        "",
        "optimism: the moves picked on half the re-deals, their gain on the others vs real",
    ]
    for view in views:
        said, earned = [], []
        for r, g in zip(rows, gains, strict=True):
            m = np.array(r[view])
            half = m.shape[1] // 2
            pick = choose(m[:, :half], r["base"], 0)
            if pick != r["base"]:
                said.append((m[pick, half:] - m[r["base"], half:]).mean())
                earned.append(g[pick])
        lines.append(
            f"  {view:>6}: {len(said)} changes, re-deals say {mean_se(said)}, "
            f"real {mean_se(earned)}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()

"""The observation vector: what a strong player tracks, from the acting seat's point of view.

Seats are relative: slot 0 is the observer, slot ``k`` the player ``k`` seats to its left
(clockwise, whatever the current direction). Every slice is named in :meth:`Observer.layout`;
counts of cards are raw, other quantities are scaled into roughly [0, 1] by the divisor given in
``SLICES`` and clipped to the Box bounds.
"""

from __future__ import annotations

import struct

import numpy as np

from .cards import NUM_KINDS
from .game import Decision, Game
from .rules import Ruleset
from .scoring import HandScorer, pressure_value

# name -> (size, description); "n" means one entry per seat (relative to the observer).
SLICES: tuple[tuple[str, str, str], ...] = (
    ("hand", "53", "own cards: copies held of each kind (zero while naming a wild starter's suit)"),
    ("top_card", "53", "one-hot kind of the top card of the discard pile"),
    ("current_suit", "4", "one-hot current suit (none after a Joker starter)"),
    ("current_rank", "13", "one-hot current rank (none after a Joker starter)"),
    ("clockwise", "1", "1 if play goes clockwise"),
    ("count", "1", "total of the count (A/2 sequence) ÷ 12; 0 when none runs"),
    ("pending_draw", "1", "cards the observer takes if it draws now (count, demand) ÷ 12"),
    ("decision", "D", "one-hot decision asked (crates_env.game.Decision, in order)"),
    ("acting_for", "n", "one-hot seat whose hand this decision plays (Figgy's, by its controller)"),
    ("playing_again", "1", "1 if this is a further play of the same turn (after a 6 or a K)"),
    ("announced", "1", "1 if the observer has announced 'one card' for its coming play"),
    ("free_play", "1", "1 if any card may be played (after a Joker starter)"),
    ("hand_sizes", "n", "cards held by each seat ÷ 10"),
    ("active", "n", "1 if the seat is still in the game (zimbabwe knocks players out)"),
    ("dummy_hand", "53", "the dummy's cards, visible to all (Skill-hand World Series' Figgy)"),
    ("partner", "n", "one-hot seat of the observer's partner (zeros without partnerships)"),
    ("stock_size", "1", "cards in the stock ÷ deck size"),
    ("discard_size", "1", "cards in the discard pile ÷ deck size"),
    ("played", "53", "times each kind was played this hand, starter included (public history)"),
    ("pressures", "n", "pressures taken this game by each seat's side ÷ 10"),
    ("next_pressure", "n", "value of each seat's side's next pressure ÷ 100"),
    ("scores", "n", "cumulative score of each seat's side ÷ 1000"),
    ("hand_points_at_risk", "1", "the observer's hand scored now ÷ 100 (zero with `hand`)"),
    ("penalty_owed", "n", "1 if the seat owes a one-card penalty"),
    ("stars", "n", "kreights stars of each seat ÷ 10"),
    ("hand_progress", "1", "progress of the game: hands played ÷ hands, or towards its end"),
    ("deal_size", "1", "cards dealt each in this hand ÷ 8"),
)
CLIP = 10.0  # scaled features are clipped to [-CLIP, CLIP]
STOCK_SEEN = 4  # the hidden-state vector shows this many cards off the top of the stock


class Observer:
    """Builds observation vectors for one ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        n = rules.num_players
        sizes = {"53": NUM_KINDS, "4": 4, "13": 13, "1": 1, "n": n, "D": len(Decision)}
        self._slices: dict[str, slice] = {}
        start = 0
        for name, size, _ in SLICES:
            self._slices[name] = slice(start, start + sizes[size])
            start += sizes[size]
        self.size = start
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.full(self.size, CLIP, dtype=np.float32)
        self.low[self._slices["scores"]] = -CLIP
        self.low[self._slices["hand_points_at_risk"]] = -CLIP
        self._deck_size = float(rules.deck.size)
        self._from_seat = [[(s + k) % n for k in range(n)] for s in range(n)]
        self._points = HandScorer(rules)
        self._game_cache: dict[tuple, list[tuple[int, float]]] = {}
        self._at = {name: s.start for name, s in self._slices.items()}
        self._zeros = [0.0] * self.size
        self._pack = struct.Struct(f"{self.size}f").pack

    @property
    def hidden_size(self) -> int:
        return (self.rules.num_players + STOCK_SEEN) * NUM_KINDS

    def encode_hidden(self, g: Game, seat: int) -> np.ndarray:
        """What ``seat`` cannot see: the other hands (copies of each kind, by relative slot 1 to
        n-1), the stock's make-up and its next ``STOCK_SEEN`` cards in drawing order.

        For a critic that is only used in training (an asymmetric actor-critic): knowing the
        cards makes its value estimates far less noisy. A policy must never read it.
        """
        v = np.zeros(self.hidden_size, dtype=np.float32)
        kinds = g.deck.kinds
        for i, s in enumerate(self._from_seat[seat][1:]):
            for k in g.deck.kinds_in(g.hands[s]):
                v[i * NUM_KINDS + k] += 1
        stock = (self.rules.num_players - 1) * NUM_KINDS
        for card in g.stock:
            v[stock + kinds[card]] += 1
        for depth, card in enumerate(reversed(g.stock[-STOCK_SEEN:])):  # the top is last
            v[stock + (depth + 1) * NUM_KINDS + kinds[card]] = 1
        return v

    def layout(self) -> dict[str, tuple[int, int]]:
        """Name -> (start, stop) of each slice of the vector."""
        return {name: (s.start, s.stop) for name, s in self._slices.items()}

    def encode(self, g: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` now.

        A vector is built at every step, so this is the environment's hot path: it fills a
        Python list by index, reuses the per-game part (scores, pressures, stars) until it
        changes, and converts to numpy once.
        """
        at = self._at
        seats = self._from_seat[seat]
        v = self._zeros[:]
        hand = g.hands[seat]
        if g.decision is not Decision.STARTER_SUIT:  # the dealer names it before looking (P4)
            base = at["hand"]
            for k in g.deck.kinds_in(hand):
                v[base + k] += 1
            v[at["hand_points_at_risk"]] = _clip(self._points(hand) / 100)
        if g.discard:
            v[at["top_card"] + g.deck.kinds[g.discard[-1]]] = 1
        if g.suit is not None:
            v[at["current_suit"] + g.suit] = 1
        if g.rank is not None:
            v[at["current_rank"] + g.rank] = 1
        v[at["clockwise"]] = g.direction == 1
        v[at["count"]] = g.count / 12
        if g.decision is not None:
            v[at["pending_draw"]] = g.pending_draw() / 12
            v[at["decision"] + g.decision] = 1
            v[at["acting_for"] + (g.turn - seat) % len(seats)] = 1
        v[at["playing_again"]] = g.turn_plays > 0
        v[at["announced"]] = g.announced
        v[at["free_play"]] = g.free_play or (g.suit is None and g.rank is None)
        if self.rules.partnerships:
            v[at["partner"] + 2] = 1  # partners sit opposite
        v[at["stock_size"]] = len(g.stock) / self._deck_size
        v[at["discard_size"]] = len(g.discard) / self._deck_size
        played, counts = at["played"], g.played_counts
        if max(counts) > CLIP:  # reshuffled cards can be played again, many times with two decks
            counts = [min(c, CLIP) for c in counts]
        v[played : played + NUM_KINDS] = counts
        sizes, owed, active = g.sizes, g.penalty_owed, g.active
        hand_sizes, penalty, playing = at["hand_sizes"], at["penalty_owed"], at["active"]
        for i, s in enumerate(seats):
            v[hand_sizes + i] = sizes[s] / 10
            v[penalty + i] = owed[s]
            v[playing + i] = active[s]
        dummy = self.rules.dummy_seat
        if dummy is not None and dummy != seat:
            base = at["dummy_hand"]
            for k in g.deck.kinds_in(g.hands[dummy]):
                v[base + k] += 1
        for i, x in self._game_part(g, seat):
            v[i] = x
        # struct packs the floats twice as fast as np.array converts the list; the bytearray
        # keeps the vector writable.
        return np.frombuffer(bytearray(self._pack(*v)), dtype=np.float32)

    def _game_part(self, g: Game, seat: int) -> list[tuple[int, float]]:
        """Entries that change only with a pressure or a new hand, cached until then."""
        key = (seat, g.hand_index, tuple(g.pressure_count), tuple(g.scores))
        part = self._game_cache.get(key)
        if part is None:
            if len(self._game_cache) > 10_000:
                self._game_cache.clear()
            part = self._build_game_part(g, seat)
            self._game_cache[key] = part
        return part

    def _build_game_part(self, g: Game, seat: int) -> list[tuple[int, float]]:
        r, at = self.rules, self._at
        part = []
        for i, s in enumerate(self._from_seat[seat]):
            taken = g.pressure_count[r.team_of(s)]
            part += [
                (at["pressures"] + i, _clip(taken / 10)),
                (at["next_pressure"] + i, _clip(pressure_value(taken + 1, r.pressure) / 100)),
                (at["scores"] + i, _clip(g.scores[r.team_of(s)] / 1000)),
                (at["stars"] + i, _clip(g.stars[s] / 10)),
            ]
        part.append((at["hand_progress"], _progress(g)))
        part.append((at["deal_size"], g.deal_size / 8))
        return part


def _clip(x: float) -> float:
    return CLIP if x > CLIP else -CLIP if x < -CLIP else x


def _progress(g: Game) -> float:
    """How far the game is: hands played of the schedule, the leader's score of the target
    (crazy_eights), or the players knocked out (zimbabwe)."""
    r = g.rules
    if r.num_hands:
        return g.hand_index / r.num_hands
    if r.game_end == "target":
        return max(0.0, max(g.scores) / r.target_score)
    return (g.n - sum(g.active)) / (g.n - 1)

"""The observation vector: what a strong player tracks, from the acting seat's point of view.

Seats are relative: slot 0 is the observer, slot ``k`` the player ``k`` seats to its left
(clockwise, whatever the current direction). Every slice is named in :meth:`Observer.layout`;
counts of cards are raw, other quantities are scaled into roughly [0, 1] by the divisor given in
``SLICES`` (:meth:`Observer.scales`) and clipped to the Box bounds; :meth:`Observer.decode` (and
``agents.Table.decode``) gives them back in their own units. The vector is built from the seat's
:class:`~crates_env.view.PublicView` only, so it cannot hold a card the seat may not see.
"""

from __future__ import annotations

import struct

import numpy as np

from .cards import NUM_KINDS
from .game import Decision, Game
from .rules import Ruleset
from .scoring import HandScorer, pressure_value
from .view import PublicView

# name -> (size, scale, description). Size "n" means one entry per seat (relative to the
# observer), "D" one per Decision. A value is stored divided by its scale ("deck": the deck's size)
# and clipped to the Box bounds; ``Observer.decode`` multiplies it back.
SLICES: tuple[tuple[str, str, float | str, str], ...] = (
    (
        "hand",
        "53",
        1,
        "own cards: copies held of each kind (zero while naming a wild starter's suit)",
    ),
    ("top_card", "53", 1, "one-hot kind of the top card of the discard pile"),
    ("current_suit", "4", 1, "one-hot current suit (none after a Joker starter)"),
    ("current_rank", "13", 1, "one-hot current rank (none after a Joker starter)"),
    ("clockwise", "1", 1, "1 if play goes clockwise"),
    ("count", "1", 12, "total of the count (A/2 sequence); 0 when none runs"),
    ("pending_draw", "1", 12, "cards the observer takes if it draws now (count, demand)"),
    ("decision", "D", 1, "one-hot decision asked (crates_env.game.Decision, in order)"),
    (
        "acting_for",
        "n",
        1,
        "one-hot seat whose hand this decision plays (Figgy's, by its controller)",
    ),
    ("playing_again", "1", 1, "1 if this is a further play of the same turn (after a 6 or a K)"),
    ("announced", "1", 1, "1 if the observer has announced 'one card' for its coming play"),
    ("free_play", "1", 1, "1 if any card may be played (after a Joker starter)"),
    ("hand_sizes", "n", 10, "cards held by each seat"),
    ("active", "n", 1, "1 if the seat is still in the game (zimbabwe knocks players out)"),
    ("dummy_hand", "53", 1, "the dummy's cards, visible to all (Skill-hand World Series' Figgy)"),
    ("partner", "n", 1, "one-hot seat of the observer's partner (zeros without partnerships)"),
    ("stock_size", "1", "deck", "cards in the stock"),
    ("discard_size", "1", "deck", "cards in the discard pile"),
    ("played", "53", 1, "times each kind was played this hand, starter included (public history)"),
    ("pressures", "n", 10, "pressures taken this game by each seat's side"),
    ("next_pressure", "n", 100, "value of each seat's side's next pressure"),
    ("scores", "n", 1000, "cumulative score of each seat's side"),
    ("hand_points_at_risk", "1", 100, "the observer's hand scored now (zero with `hand`)"),
    ("penalty_owed", "n", 1, "1 if the seat owes a one-card penalty"),
    ("stars", "n", 10, "kreights stars of each seat"),
    ("hand_progress", "1", 1, "progress of the game: hands played ÷ hands, or towards its end"),
    ("deal_size", "1", 8, "cards dealt each in this hand"),
)
# The slices ``encode`` writes directly, in the order it unpacks their offsets.
_ENCODED = (
    "hand", "top_card", "current_suit", "current_rank", "clockwise", "count", "pending_draw",
    "decision", "acting_for", "playing_again", "announced", "free_play", "hand_sizes", "active",
    "dummy_hand", "partner", "stock_size", "discard_size", "played", "hand_points_at_risk",
    "penalty_owed",
)  # fmt: skip
# The layout's name and version, which a trained network records beside its tables
# (agents.checkpoints): a network reads its inputs by position, so one trained on an older layout
# must not be played on a newer one. Bump the version whenever a slice is added, removed, resized,
# rescaled or reads something else (tests/test_checkpoints.py pins the slices of each version);
# the table layout (crates_env.table_observation) is made of this one and bumps its own with it.
SEAT_LAYOUT = "seat"  # each seat's own slices, sized for this table's players
LAYOUT_VERSION = 1
CLIP = 10.0  # scaled features are clipped to [-CLIP, CLIP]
STOCK_SEEN = 4  # the hidden-state vector shows this many cards off the top of the stock


class Observer:
    """Builds observation vectors for one ruleset, from a seat's :class:`PublicView`: the seat
    layout (``crates_env.table_observation`` widens it into the table layout)."""

    name = SEAT_LAYOUT
    version = LAYOUT_VERSION

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        n = rules.num_players
        sizes = {"53": NUM_KINDS, "4": 4, "13": 13, "1": 1, "n": n, "D": len(Decision)}
        self._slices: dict[str, slice] = {}
        self._scales: dict[str, float] = {}
        start = 0
        for name, size, scale, _ in SLICES:
            self._slices[name] = slice(start, start + sizes[size])
            self._scales[name] = float(rules.deck.size if scale == "deck" else scale)
            start += sizes[size]
        self.size = start
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.full(self.size, CLIP, dtype=np.float32)
        self.low[self._slices["scores"]] = -CLIP
        self.low[self._slices["hand_points_at_risk"]] = -CLIP
        self._from_seat = [[(s + k) % n for k in range(n)] for s in range(n)]
        self._points = HandScorer(rules)
        self._game_cache: dict[tuple, list[tuple[int, float]]] = {}
        self._at = {name: s.start for name, s in self._slices.items()}
        self._offsets = tuple(self._at[name] for name in _ENCODED)
        self._hot_scales = tuple(
            self._scales[name]
            for name in ("count", "pending_draw", "hand_sizes", "stock_size", "hand_points_at_risk")
        )
        self._zeros = [0.0] * self.size
        self._pack = struct.Struct(f"{self.size}f").pack

    @property
    def seat(self) -> Observer:
        """The seat layout this layout is made from: itself."""
        return self

    def widen(self, seat_vectors: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """This layout's rows of seat-layout rows: the rows themselves (copied into ``out``)."""
        if out is None:
            return np.asarray(seat_vectors, dtype=np.float32)
        out[:] = seat_vectors
        return out

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
        for i, s in enumerate(self._from_seat[seat][1:]):
            for k in g.hand_kinds(s):
                v[i * NUM_KINDS + k] += 1
        stock = (self.rules.num_players - 1) * NUM_KINDS
        kinds = g.stock_kinds()  # top first
        for k in kinds:
            v[stock + k] += 1
        for depth, k in enumerate(kinds[:STOCK_SEEN]):
            v[stock + (depth + 1) * NUM_KINDS + k] = 1
        return v

    def layout(self) -> dict[str, tuple[int, int]]:
        """Name -> (start, stop) of each slice of the vector."""
        return {name: (s.start, s.stop) for name, s in self._slices.items()}

    def agent_layout(self) -> dict[str, tuple[int, int]]:
        """The slices an agent reads by name: the layout itself."""
        return self.layout()

    def scales(self) -> dict[str, float]:
        """Name -> the divisor its values were stored with (1 for counts and one-hots)."""
        return dict(self._scales)

    def decode(self, observation: np.ndarray, name: str) -> np.ndarray:
        """The named slice in its own units (cards, points, pressures): stored value x scale."""
        return observation[self._slices[name]] * self._scales[name]

    def encode(self, view: PublicView) -> np.ndarray:
        """The observation of ``view.seat`` (``game.view(seat)``).

        A vector is built at every step, so this is the environment's hot path: it fills a
        Python list by index (offsets and scales unpacked into locals), reuses the per-game part
        (scores, pressures, stars) until it changes, and converts to numpy once.
        """
        (hand_at, top_at, suit_at, rank_at, clockwise_at, count_at, pending_at, decision_at,
         acting_at, again_at, announced_at, free_at, sizes_at, active_at, dummy_at, partner_at,
         stock_at, discard_at, played_at, risk_at, owed_at) = self._offsets  # fmt: skip
        count_scale, pending_scale, sizes_scale, deck_scale, risk_scale = self._hot_scales
        seat, n = view.seat, self.rules.num_players
        v = self._zeros[:]
        kinds = self.rules.deck.kinds_in
        decision = view.decision
        if decision is not Decision.STARTER_SUIT:  # the dealer names it before looking (P4)
            for k in kinds(view.hand):
                v[hand_at + k] += 1
            v[risk_at] = _clip(self._points(view.hand) / risk_scale)
        suit, rank = view.suit, view.rank
        if view.top is not None:
            v[top_at + view.top] = 1
        if suit is not None:
            v[suit_at + suit] = 1
        if rank is not None:
            v[rank_at + rank] = 1
        v[clockwise_at] = view.direction == 1
        v[count_at] = view.count / count_scale
        if decision is not None:
            v[pending_at] = view.pending_draw / pending_scale
            v[decision_at + decision] = 1
            v[acting_at + (view.turn - seat) % n] = 1
        v[again_at] = view.playing_again
        v[announced_at] = view.announced
        v[free_at] = view.free_play or (suit is None and rank is None)
        if self.rules.partnerships:
            v[partner_at + 2] = 1  # partners sit opposite
        v[stock_at] = view.stock_size / deck_scale
        v[discard_at] = view.discard_size / deck_scale
        counts = view.played
        if max(counts) > CLIP:  # reshuffled cards can be played again, many times with two decks
            counts = [min(c, CLIP) for c in counts]
        v[played_at : played_at + NUM_KINDS] = counts
        sizes, owed, active = view.sizes, view.penalty_owed, view.active
        for i, s in enumerate(self._from_seat[seat]):  # from the observer's slot round the table
            v[sizes_at + i] = sizes[s] / sizes_scale
            v[owed_at + i] = owed[s]
            v[active_at + i] = active[s]
        dummy = self.rules.dummy_seat
        if dummy is not None and dummy != seat:
            for k in kinds(view.dummy_hand):
                v[dummy_at + k] += 1
        for start, values in self._game_part(view):
            v[start : start + len(values)] = values
        # struct packs the floats twice as fast as np.array converts the list; the bytearray
        # keeps the vector writable.
        return np.frombuffer(bytearray(self._pack(*v)), dtype=np.float32)

    def _game_part(self, view: PublicView) -> list[tuple[int, list[float]]]:
        """Entries that change only with a pressure or a new hand, cached until then: a list
        of (start, values) to write at ``start``."""
        key = (view.seat, view.hand_index, view.pressures, view.scores)
        part = self._game_cache.get(key)
        if part is None:
            if len(self._game_cache) > 10_000:
                self._game_cache.clear()
            part = self._build_game_part(view)
            self._game_cache[key] = part
        return part

    def _build_game_part(self, view: PublicView) -> list[tuple[int, list[float]]]:
        r, at, scale = self.rules, self._at, self._scales
        seats = self._from_seat[view.seat]
        taken = [view.pressures[r.team_of(s)] for s in seats]
        return [
            (at["pressures"], [_clip(t / scale["pressures"]) for t in taken]),
            (
                at["next_pressure"],
                [_scaled(pressure_value(t + 1, r.pressure), scale["next_pressure"]) for t in taken],
            ),
            (at["scores"], [_scaled(view.scores[r.team_of(s)], scale["scores"]) for s in seats]),
            (at["stars"], [_clip(view.stars[s] / scale["stars"]) for s in seats]),
            (at["hand_progress"], [_progress(view)]),
            (at["deal_size"], [view.deal_size / scale["deal_size"]]),
        ]


def _clip(x: float) -> float:
    return CLIP if x > CLIP else -CLIP if x < -CLIP else x


def _scaled(value: int, scale: float) -> float:
    """``value / scale``, clipped; exact points (Python ints) may pass any float after a few
    hundred doubling pressures, and clip all the same."""
    if abs(value) > CLIP * scale:
        return CLIP if value > 0 else -CLIP
    return value / scale


def _progress(view: PublicView) -> float:
    """How far the game is: hands played of the schedule, the leader's score of the target
    (crazy_eights), or the players knocked out (zimbabwe)."""
    r = view.rules
    if r.num_hands:
        return view.hand_index / r.num_hands
    if r.game_end == "target":
        return max(0.0, max(view.scores) / r.target_score)
    n = r.num_players
    return (n - sum(view.active)) / (n - 1)

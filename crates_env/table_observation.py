"""The table layout: one observation for every table, so that one network can play them all.

The seat layout (``crates_env.observation.Observer``) has one entry per seat in its per-seat
slices and says nothing of the game being played: a 3-player vector is shorter than a 4-player
one, and a 4-player crates vector reads the same as a 4-player crazy_eights vector. The table
layout fixes both:

- every per-seat slice is padded to ``TABLE_SEATS`` slots (slot ``k`` is still the seat ``k``
  to the observer's left; the slots past the table's players are zero), so every table's vector
  has the same size;
- ``table_*`` slices at the end say what the table is, read from the resolved ``Ruleset`` (the
  rules the engines play, not the preset's name alone, so a table of other options reads
  differently): the rule system, players and partnerships, the options in force, how a game
  ends and a hand scores, and each card kind's points and role (wild, what it makes others draw,
  skips, reverses, plays again, ...).

The seat part is the seat layout's values moved to their slots (``widen``): every writer of the
seat layout (the AEC env, the Gymnasium wrapper, the compiled engine) writes this layout too, by
the one function. A network records the layout it reads by ``name`` and ``version``
(``agents.checkpoints``); bump ``TABLE_LAYOUT_VERSION`` whenever a ``table_*`` feature changes
(the seat part follows ``LAYOUT_VERSION``).
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, NUM_KINDS, rank_of
from .crates import play_masks
from .game import Game
from .observation import CLIP, LAYOUT_VERSION, SEAT_LAYOUT, SLICES, Observer
from .rules import (
    MAX_PLAYERS,
    OPTIONS,
    PRESETS,
    CardRole,
    DrawRule,
    EmptyStock,
    Engine,
    GameEnd,
    HandScoring,
    Pressure,
    Ruleset,
    ThreeScoring,
    code,
    int_value,
)
from .view import PublicView

TABLE_LAYOUT = "table"
OBSERVATIONS = (SEAT_LAYOUT, TABLE_LAYOUT)  # the layouts an env writes (``observation=``)
# Bump it whenever a table_* feature changes, and whenever the seat layout's version does.
TABLE_LAYOUT_VERSION = 1
# Each layout's version in this package: what a network's checkpoint must record to be played.
LAYOUT_VERSIONS = {SEAT_LAYOUT: LAYOUT_VERSION, TABLE_LAYOUT: TABLE_LAYOUT_VERSION}
# Every table's per-seat slices have this many slots: the most players any preset seats (so
# every table has the layout, craits' 7 to 12 players included).
TABLE_SEATS = MAX_PLAYERS
# The tables users set, each rule system at its usual player counts with its default options:
# the tables one network over many is trained and measured at (docs/model_card.md).
COVERED_TABLES: tuple[tuple[str, int], ...] = tuple(
    (preset, n)
    for preset, counts in (
        ("crates", range(2, 6)),
        ("chicago1970", range(3, 6)),
        ("kreights", range(3, 6)),
        ("craits", range(2, 7)),
        ("creights", range(2, 5)),
        ("crazy_eights", range(2, 7)),
        ("zimbabwe", range(2, 7)),
    )
    for n in counts
)
PER_SEAT = tuple(name for name, size, _, _ in SLICES if size == "n")


def table_key(preset: str, num_players: int) -> str:
    """A table's name where tables are listed (the shipped index, the bench, configs):
    ``crates:4``."""
    return f"{preset}:{num_players}"


def table_of(key: str) -> tuple[str, int]:
    """The (preset, players) a well-formed ``table_key`` names."""
    preset, _, players = key.partition(":")
    return preset, int(players)


# The boolean resolved rules a player must know (each one 0/1 entry of ``table_rules``).
_FLAGS = (
    "partnerships", "jack_hits_prev", "count_continues_hand", "stars", "nine_starter_any_suit",
    "one_card_per_turn", "one_card_last_six", "penalty_drawn_at_end", "seven_of_diamonds_beer",
    "deal_follows_direction", "free_play_after_count", "barometer", "call_on_one_card_deal",
    "dumbass_calls", "multi_card_plays", "in_air", "eight_counter_keeps_suit",
    "eight_must_change_suit",
)  # fmt: skip
# The resolved choices, one-hot each (``crates_env.rules``' enums, by their field's name).
_CHOICES = (
    ("engine", Engine),
    ("game_end", GameEnd),
    ("hand_scoring", HandScoring),
    ("empty_stock", EmptyStock),
    ("draw_rule", DrawRule),
    ("pressure", Pressure),
    ("three_scoring", ThreeScoring),
)
# The shipped rule system's place in PRESETS (a registered one has no entry: all zeros).
_PRESET_INDEX = {preset: i for i, preset in enumerate(PRESETS)}
_OPTIONS = tuple(sorted(OPTIONS))  # the options in force, one entry each
# What each card kind is and does: name, description (one entry per kind in ``table_cards``).
CARD_FEATURES = (
    ("points", "what it costs (or wins) left in a hand, / 50"),
    ("copies", "copies in the deck, / 2"),
    ("wild", "1 if it may be played on any card (outside a count or a demand)"),
    ("count", "1 if it may be played in a count (the A/2 sequence)"),
    ("next_draws", "cards the next player takes when it is played, / 5"),
    ("others_draw", "cards the other seats take when it is played, / 5"),
    ("skip", "1 if it makes the next player lose the turn"),
    ("reverse", "1 if it reverses the direction of play"),
    ("again", "1 if its player plays again (or plays a series after it)"),
    ("defensive", "1 if it blocks a demand (the Crazy Eights family)"),
    ("free_after", "1 if any card may follow it"),
    ("declare", "1 if its player names the next suit"),
)
# name -> (size, description) of the table slices, in order after the padded seat part.
TABLE_SLICES = (
    ("table_preset", len(PRESETS), "one-hot rule system (crates_env.rules.PRESETS)"),
    ("table_players", TABLE_SEATS - 1, "one-hot number of players, 2 to TABLE_SEATS"),
    ("table_rules", len(_FLAGS), "the resolved boolean rules (crates_env.table_observation)"),
    (
        "table_choices",
        sum(len(enum) for _, enum in _CHOICES),
        "one-hot engine, game end, hand scoring, empty stock, draw rule, pressures, threes",
    ),
    ("table_options", len(_OPTIONS), "the rule options in force (1 on, ints scaled, seats / n)"),
    ("table_numbers", 7, "decks, Jokers, target, hands, mean deal, empty hand points, dummy"),
    ("table_cards", NUM_KINDS * len(CARD_FEATURES), "each kind's CARD_FEATURES, kind-major"),
)


def check_observation(observation: object) -> str:
    """``observation`` if it names a layout; a ValueError naming the layouts otherwise."""
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise ValueError(
            f"observation={observation!r} is not a layout; use one of {', '.join(OBSERVATIONS)} "
            "(docs/env.md)"
        )
    return observation


def make_observer(rules: Ruleset, observation: str = SEAT_LAYOUT) -> Observer | TableObserver:
    """The observer of a layout (``"seat"``, the default, or ``"table"``) for a table."""
    if check_observation(observation) == TABLE_LAYOUT:
        return TableObserver(rules)
    return Observer(rules)


class TableObserver:
    """Builds table-layout vectors: the seat layout's, widened (``widen``), plus the table.

    It answers what an ``Observer`` answers (``size``, ``low``/``high``, ``layout``, ``scales``,
    ``decode``, ``encode``, the hidden state) for its own layout; ``seat`` is the seat layout it
    widens, which the engines write."""

    name = TABLE_LAYOUT
    version = TABLE_LAYOUT_VERSION

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.seat = Observer(rules)
        positions, self._slices, size = _wide_positions(self.seat.layout())
        self._runs = _runs(positions)
        self.size = size
        self.low = np.full(size, -CLIP, dtype=np.float32)
        self.high = np.full(size, CLIP, dtype=np.float32)
        self.low[positions] = self.seat.low
        self.high[positions] = self.seat.high
        self._template = np.zeros(size, dtype=np.float32)
        self._template[self._slices["table_preset"][0] :] = table_features(rules)

    @property
    def hidden_size(self) -> int:
        return self.seat.hidden_size

    def encode_hidden(self, g: Game, seat: int) -> np.ndarray:
        return self.seat.encode_hidden(g, seat)

    def layout(self) -> dict[str, tuple[int, int]]:
        """Name -> (start, stop) of each slice: the seat layout's names (per-seat slices
        ``TABLE_SEATS`` long) then the ``table_*`` slices."""
        return dict(self._slices)

    def agent_layout(self) -> dict[str, tuple[int, int]]:
        """The slices an agent reads by name: each per-seat slice's filled slots only (its
        first ``num_players``), so an agent written for the seat layout reads this one too."""
        seat = self.seat.layout()
        return {
            name: (a, a + seat[name][1] - seat[name][0]) if name in seat else (a, b)
            for name, (a, b) in self._slices.items()
        }

    def scales(self) -> dict[str, float]:
        return {**self.seat.scales(), **{name: 1.0 for name, _, _ in TABLE_SLICES}}

    def decode(self, observation: np.ndarray, name: str) -> np.ndarray:
        start, stop = self._slices[name]
        return observation[start:stop] * self.scales()[name]

    def encode(self, view: PublicView) -> np.ndarray:
        return self.widen(self.seat.encode(view)[None, :])[0]

    def widen(self, seat_vectors: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Table-layout rows (``[B, size]``) of seat-layout rows (``[B, seat.size]``) of this
        table: each value moved to its slot, the table's features after them."""
        seat_vectors = np.asarray(seat_vectors, dtype=np.float32)
        if seat_vectors.ndim != 2 or seat_vectors.shape[1] != self.seat.size:
            raise ValueError(
                f"widen takes seat-layout rows of this table ([batch, {self.seat.size}]), not "
                f"an array of shape {seat_vectors.shape}"
            )
        if out is None:
            out = np.empty((len(seat_vectors), self.size), dtype=np.float32)
        out[:] = self._template
        for start, stop, to in self._runs:  # slices copied whole: twice a scatter's speed
            out[:, to : to + stop - start] = seat_vectors[:, start:stop]
        return out


def _wide_positions(
    seat_layout: dict[str, tuple[int, int]],
) -> tuple[list[int], dict[str, tuple[int, int]], int]:
    """Where each seat-layout value goes in the table layout, the table layout's slices and its
    size."""
    positions: list[int] = []
    slices: dict[str, tuple[int, int]] = {}
    start = 0
    for name, (a, b) in seat_layout.items():
        width = TABLE_SEATS if name in PER_SEAT else b - a
        positions.extend(range(start, start + b - a))
        slices[name] = (start, start + width)
        start += width
    for name, width, _ in TABLE_SLICES:
        slices[name] = (start, start + width)
        start += width
    return positions, slices, start


def _runs(positions: list[int]) -> list[tuple[int, int, int]]:
    """The seat layout's values as runs that stay together in the table layout:
    (start, stop, where the run starts in the table layout)."""
    runs, start = [], 0
    for i in range(1, len(positions) + 1):
        if i == len(positions) or positions[i] != positions[i - 1] + 1:
            runs.append((start, i, positions[start]))
            start = i
    return runs


def table_features(rules: Ruleset) -> np.ndarray:
    """The ``table_*`` slices of a table, in order: what the table is, from its resolved
    rules."""
    parts = [
        _one_hot(_PRESET_INDEX.get(rules.preset, -1), len(PRESETS)),
        _one_hot(rules.num_players - 2, TABLE_SEATS - 1),
        [float(bool(getattr(rules, flag))) for flag in _FLAGS],
    ]
    for name, enum in _CHOICES:
        parts.append(_one_hot(int(code(enum, getattr(rules, name))), len(enum)))
    parts.append([_option_value(rules, name) for name in _OPTIONS])
    mean_deal = sum(rules.schedule) / len(rules.schedule) if rules.schedule else 0.0
    parts.append(
        [
            rules.decks / 2,
            rules.jokers / 8,
            rules.target_score / 1000,
            (rules.num_hands or 0) / 16,
            mean_deal / 8,
            rules.empty_hand_points / 10,
            float(rules.dummy_seat is not None),
        ]
    )
    parts.append(card_features(rules).ravel())
    values = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    return np.clip(values, -CLIP, CLIP).astype(np.float32)


def card_features(rules: Ruleset) -> np.ndarray:
    """``[NUM_KINDS, len(CARD_FEATURES)]``: each kind's points and role at this table."""
    rows = np.zeros((NUM_KINDS, len(CARD_FEATURES)))
    column = {name: i for i, (name, _) in enumerate(CARD_FEATURES)}
    deck = rules.deck
    for kind in range(NUM_KINDS):
        rows[kind, column["points"]] = rules.kind_points[kind] / 50
        rows[kind, column["copies"]] = deck.copies(kind) / 2
    roles = _crates_roles if rules.engine == "crates" else _eights_roles
    for kind in range(NUM_KINDS):
        for name, value in roles(rules, kind).items():
            rows[kind, column[name]] = value
    return rows


def _crates_roles(rules: Ruleset, kind: int) -> dict[str, float]:
    """A Crates-family kind's role: its ``CardFunction`` and the engine's play masks."""
    masks = play_masks(rules.deck)
    bit = rules.deck.kind_mask[kind]
    f = rules.card_functions[kind]
    wild = bool(bit) and all(bit & m for row in masks.match for m in row)
    return {
        "wild": float(wild),
        "count": float(bool(bit & masks.count)),
        "next_draws": sum(cards for seat, cards in f.draws if seat == 1) / 5,
        "others_draw": sum(cards for seat, cards in f.draws if seat != 1) / 5,
        "skip": float(f.skips or f.next_player > 1),
        "reverse": float(f.reverses),
        "again": float(f.again or f.series > 0),
        "free_after": 0.0,
        "declare": float(wild and kind != JOKER),  # a Joker takes the suit it stands on
    }


def _eights_roles(rules: Ruleset, kind: int) -> dict[str, float]:
    """A Crazy Eights-family kind's role: its rank's ``card_roles`` and demand, wild and free
    kinds."""
    rank = 13 if kind == JOKER else rank_of(kind)
    role = code(CardRole, rules.card_roles[rank]) if rules.card_roles else CardRole.REGULAR
    return {
        "wild": float(kind in rules.wild_kinds),
        "next_draws": (rules.demands[rank] if role == CardRole.OFFENSIVE else 0) / 5,
        "skip": float(role == CardRole.SKIP),
        "reverse": float(role == CardRole.REVERSE),
        "again": float(role == CardRole.CONTINUE),
        "defensive": float(role == CardRole.DEFENSIVE),
        "free_after": float(kind in rules.free_after_kinds),
        "declare": float(role == CardRole.DECLARE),
    }


def _option_value(rules: Ruleset, name: str) -> float:
    """An option in force as one number: a switch 0/1, an int over its range, seats over n."""
    value = rules.option(name)
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, tuple):
        return len(value) / rules.num_players
    number = int_value(value)
    return 0.0 if number is None else number / 8


def _one_hot(index: int, size: int) -> list[float]:
    row = [0.0] * size
    if 0 <= index < size:
        row[index] = 1.0
    return row

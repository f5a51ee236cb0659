"""Rule systems as data.

A ``Ruleset`` is an immutable, validated description of one rule system. It holds the user-facing
options (the preset, the player count and every adjunct or interpretation flag of docs/rules.md
§1.14) and the concrete rules they resolve to (who a 7 hits, the point table, the three-scoring
algorithm, the pressure progression, ...). The game engines read only the resolved fields, so a
preset is a value, never an ``if preset == ...`` (or a preset-named flag) in an engine.

Two engines play the rule systems (``Ruleset.engine``): ``"crates"`` for the Crates family, whose
card functions are ``card_functions`` (a :class:`CardFunction` per card kind: who draws how many,
who plays next, does the turn go on), and ``"eights"`` for the Crazy Eights family of [003]
(``crazy_eights``, ``zimbabwe``), whose card functions are ``card_roles``, ``demands``,
``wild_kinds`` and ``free_after_kinds``. Procedural rules (the count, Coopers, the transparent
Joker, one-card calls, penalty cards) are code in the engines, steered by resolved fields.

Build one with ``make_ruleset("kreights", num_players=3, seven_card_format=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike

from .cards import (
    ACE,
    DIAMONDS,
    EIGHT,
    FIVE,
    FOUR,
    JACK,
    JOKER,
    KING,
    NUM_KINDS,
    QUEEN,
    SEVEN,
    SIX,
    SPADES,
    TEN,
    TWO,
    Deck,
    make_kind,
    rank_of,
)

STANDARD_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
CRAITS_SHORT_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1)
SHWS_SCHEDULE = (2, 1, 1, 2)  # "the sequence is 2-1-1-2" [000:160]

# Points by rank index (A, 2, ..., 10, J, Q, K), then the Joker; docs/rules.md §1.8.
_CRATES_POINTS = (1, 20, 3, 15, 30, 30, 20, 50, 30, 25, 10, 10, 10, 40)
POINT_TABLES = {
    "crates": _CRATES_POINTS,
    "chicago1970": _CRATES_POINTS,
    "kreights": (1, 20, 3, 20, 30, 30, 15, 50, 40, 25, 10, 10, 10, 40),
    "craits": _CRATES_POINTS,
    "creights": (1, 20, 3, 15, 30, 30, 25, 50, 30, 25, 10, 10, 10, 40),
    # "Eights score 50, court cards 10 and all other cards face value" [003:47]; no Jokers.
    "crazy_eights": (1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10, 0),
    "zimbabwe": (11, 25, 3, 4, 5, 6, 14, 40, 9, 10, 10, 10, 10, 50),  # [003:130-144]
}
ACE_OF_SPADES = make_kind(ACE, SPADES)
# Kinds whose value differs from their rank's (docs/rules.md §1.8): "The Ace of Spades has a value
# of 100" [003:144].
KIND_POINTS = {"zimbabwe": {ACE_OF_SPADES: 100}}

PRESETS = ("crates", "chicago1970", "kreights", "craits", "creights", "crazy_eights", "zimbabwe")
# The engine that plays each preset (``Game`` picks it from ``Ruleset.engine``).
PRESET_ENGINES = {"crazy_eights": "eights", "zimbabwe": "eights"}

# Allowed player counts per preset (docs/rules.md §1.1, C-32).
PLAYER_COUNTS = {
    "crates": range(2, 6),
    "chicago1970": range(3, 6),
    "kreights": range(3, 6),
    "craits": range(2, 13),
    "creights": range(2, 5),
    "crazy_eights": range(2, 8),  # "two to seven players" [003:22] (C-40)
    "zimbabwe": range(2, 8),  # SILENT→ as crazy_eights, subject to P5
}

# Which presets an adjunct or interpretation flag belongs to (docs/rules.md §1.14). chicago1970
# inherits the Boston adjuncts ("INH"); pressure_cap_20 is allowed wherever pressures double.
ADJUNCT_PRESETS = {
    "no_kings_queens": ("crates", "chicago1970", "craits"),
    "standig_jokers": ("crates", "chicago1970"),
    "pressure_cap_20": ("crates", "chicago1970", "craits", "creights"),
    "queen_draws_two": ("crates", "chicago1970"),
    "skill_hand_world_series": ("crates",),
    "seven_card_format": ("kreights",),
    "kreights_penalty_cards": ("kreights",),
    "kreights_revoke_penalty": ("kreights",),
    "kreights_mulligan": ("kreights",),
    "kreights_barometer": ("kreights",),
    "kreights_free_play_after_count": ("kreights",),
    "kreights_three_mutual_cancel": ("kreights",),
    "kreights_pressure_doubling": ("kreights",),
    "craits_face_cards": ("craits",),
    "craits_short_game": ("craits",),
    "craits_dealer_follows_direction": ("craits",),
    "craits_one_card_on_deal": ("craits",),
    "craits_idiot_card": ("craits",),
    "craits_continue_after_count": ("craits",),
    "craits_three_covers_eight": ("craits",),
    "craits_punitive_threes": ("craits",),
    "craits_go_out_minus_10": ("craits",),
    "creights_dumbass_cards": ("creights",),
    "crazy_eights_eight_must_change_suit": ("crazy_eights",),
    "zimbabwe_jokers": ("zimbabwe",),
    "deal_size": ("zimbabwe",),
}
# Options whose default is not "off" where they belong.
_PRESET_DEFAULTS = {
    "kreights_three_mutual_cancel": True,  # C-5
    "zimbabwe_jokers": 2,  # SILENT→ a standard pack has two
    "deal_size": 5,  # "Five to 8 cards" [003:55]; SILENT→ 5, the parent game's count
}
# The misplay penalties of docs/rules.md §1.12: each needs misplay_mode="penalize" (P1).
MISPLAY_PENALTIES = ("kreights_penalty_cards", "kreights_revoke_penalty", "creights_dumbass_cards")
REVOKE_POINTS = 1_000_000_000  # "1,000M points" [001:53] (C-24)

FIRST_DEALER_RULES = ("random", "low_card")
MISPLAY_MODES = ("reject", "penalize")

# The Zimbabwean card table [003:62-69], by rank A..K then the Joker (§1.4): "offensive" (the
# next player takes its demand, _ZIMBABWE_DEMANDS), "defensive" (blocks a demand), the shifting
# cards "skip", "declare", "reverse" and "continue", and "" for a regular card.
_ZIMBABWE_ROLES = (
    "defensive", "offensive", "", "", "", "", "skip", "declare", "", "", "reverse", "", "continue",
    "offensive",
)  # fmt: skip
_ZIMBABWE_DEMANDS = (0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5)
# Only the 8 has a function in the basic game [003:38]; by rank A..K then the (absent) Joker.
_CRAZY_EIGHTS_ROLES = ("",) * EIGHT + ("declare",) + ("",) * (13 - EIGHT)
_EIGHTS = tuple(make_kind(EIGHT, s) for s in range(4))
QUEEN_OF_SPADES = make_kind(QUEEN, SPADES)
COUNT_PIPS = {ACE: 1, TWO: 2}  # what an ace and a deuce add to the count (docs/rules.md §1.5)


class ThreeScoring(IntEnum):
    """How threes count in a hand left at the end (``crates_env.scoring``, docs/rules.md §1.15):
    ``Ruleset.three_scoring`` is the member's name in lower case; the compiled engine reads the
    number."""

    CRATES = 0
    KREIGHTS = 1  # threes may also cancel each other [001:48]
    PUNITIVE = 2  # creights, craits_punitive_threes: a three with nothing to cover costs 100
    COVER8 = 3  # craits_three_covers_eight
    PUNITIVE_COVER8 = 4  # both craits options
    NONE = 5  # threes are plain cards (the Crazy Eights family)


class Pressure(IntEnum):
    """How a side's shuffle pressures grow (``crates_env.scoring.pressure_value``):
    ``Ruleset.pressure`` is the member's name in lower case; the compiled engine reads the
    number."""

    DOUBLE = 0  # 5, 10, 20, 40, ...
    CAP20 = 1  # pressure_cap_20: each adds at most 20 to the one before [000:150]
    FLAT5 = 2  # kreights: 5 each
    NONE = 3  # no pressures (the Crazy Eights family)


# The other resolved choices the compiled engine reads as numbers: each ``Ruleset`` field named
# below is its member's name in lower case (``Ruleset.engine``, ``game_end``, ...), and
# ``code(Enum, value)`` gives the member.
class Engine(IntEnum):
    """``Ruleset.engine``: the family's engine."""

    CRATES = 0
    EIGHTS = 1


class GameEnd(IntEnum):
    """``Ruleset.game_end``: when the game is decided."""

    SCHEDULE = 0  # after the schedule's hands
    TARGET = 1  # crazy_eights: a score reaches target_score
    LAST_PLAYER = 2  # zimbabwe: one player is left


class HandScoring(IntEnum):
    """``Ruleset.hand_scoring``: what a hand's end does to the scores."""

    OWN_CARDS = 0
    WINNER_COLLECTS = 1
    ELIMINATE_HIGHEST = 2


class EmptyStock(IntEnum):
    """``Ruleset.empty_stock``: what a draw from an empty stock does."""

    PRESSURE = 0
    RESHUFFLE = 1
    BLOCKED = 2


class DrawRule(IntEnum):
    """``Ruleset.draw_rule``: what a player who draws does next."""

    ONE = 0
    UNTIL_PLAY = 1
    ONE_THEN_PASS = 2


class CardRole(IntEnum):
    """``Ruleset.card_roles``: what a card of the Crazy Eights family does; ``""`` is
    ``REGULAR``."""

    REGULAR = 0
    OFFENSIVE = 1
    DEFENSIVE = 2
    SKIP = 3
    DECLARE = 4
    REVERSE = 5
    CONTINUE = 6


class MisplayCard(IntEnum):
    """``Ruleset.misplay_card``: what ``penalize`` does with a card played illegally; ``""``
    is ``NONE``."""

    NONE = 0
    EXPOSE = 1
    DUMBASS = 2


def code(enum: type[IntEnum], value: str) -> IntEnum:
    """The member of ``enum`` a resolved field's string names (``""``: the enum's first)."""
    return enum[value.upper()] if value else enum(0)


SEVEN_OF_DIAMONDS = make_kind(SEVEN, DIAMONDS)


@dataclass(frozen=True)
class CardFunction:
    """What a card of the Crates family does when played, as data (docs/rules.md §1.3-1.4).

    Seats are counted in the direction of play from the player of the card: 1 is the next
    player, 2 the one after, -1 the previous player.
    """

    draws: tuple[tuple[int, int], ...] = ()  # (seat, cards): who takes how many, in that order
    per_jack: bool = False  # craits face J: the draw is multiplied by the jacks played in a row
    # who plays next when the card ends the turn: 2 for a 4 (the next player is skipped) and for
    # craits' J and Q♠ (their victim loses the turn)
    next_player: int = 1
    skips: bool = False  # a 4: the skip is announced ("p1 is skipped")
    reverses: bool = False  # a 10 reverses the direction of play
    again: bool = False  # a 6, a craits face K: the player must play again
    series: int = 0  # craits face K: cards to play after it (the first two have no function)
    beer: bool = False  # creights 7♦ as the last card: its victim owes a beer [004:21]


NO_FUNCTION = CardFunction()


@dataclass(frozen=True)
class Ruleset:
    """One rule system, fully resolved. Build it with :func:`make_ruleset`."""

    # --- what the user chose -------------------------------------------------------------------
    preset: str = "crates"
    num_players: int = 4
    deal_schedule: tuple[int, ...] | None = None  # None: the preset's schedule
    first_dealer: str | int | None = None  # None: the preset's way (random, or low card)
    misplay_mode: str = "reject"
    max_decisions_per_hand: int = 20_000
    max_hands: int = 1_000  # guard for games that last until a score condition
    no_kings_queens: bool = False
    standig_jokers: bool = False
    pressure_cap_20: bool = False
    queen_draws_two: bool = False
    skill_hand_world_series: bool = False
    seven_card_format: bool = False
    kreights_penalty_cards: bool = False
    kreights_revoke_penalty: bool = False
    kreights_mulligan: tuple[int, ...] = ()
    kreights_barometer: bool = False
    kreights_free_play_after_count: bool = False
    kreights_three_mutual_cancel: bool = False
    kreights_pressure_doubling: bool = False
    craits_face_cards: bool = False
    craits_short_game: bool = False
    craits_dealer_follows_direction: bool = False
    craits_one_card_on_deal: bool = False
    craits_idiot_card: bool = False
    craits_continue_after_count: bool = False
    craits_three_covers_eight: bool = False
    craits_punitive_threes: bool = False
    craits_go_out_minus_10: bool = False
    creights_dumbass_cards: bool = False
    crazy_eights_eight_must_change_suit: bool = False
    zimbabwe_jokers: int = 0
    deal_size: int | None = None

    # --- what that resolves to (set by make_ruleset) ------------------------------------------
    engine: str = "crates"  # crates | eights
    schedule: tuple[int, ...] = STANDARD_SCHEDULE  # deal sizes; "target"/"last_player" cycle it
    game_end: str = "schedule"  # schedule | target (crazy_eights) | last_player (zimbabwe)
    target_score: int = 0  # crazy_eights: the first to reach it wins [003:49]
    # Which result is better, the one place everything that ranks or rewards reads it (the
    # engine's winners, rewards, search, evaluation statistics, reports): what a point is worth
    # to the side that takes it. -1: points are a cost and the lowest score wins (the Crates
    # family; zimbabwe's hand totals, whose highest is knocked out); +1: points are won and the
    # highest score wins (crazy_eights' winner collects). ``standing`` and ``margin`` apply it.
    point_sign: int = -1
    hand_scoring: str = "own_cards"  # own_cards | winner_collects | eliminate_highest
    dealer_rule: str | int = "random"
    dealer_seats: tuple[int, ...] = ()  # seats that deal (SHWS: Figgy never deals)
    dummy_seat: int | None = None  # SHWS: Figgy, played by prev(Figgy)
    initial_scores: tuple[int, ...] = ()  # per team
    partnerships: bool = False
    decks: int = 1
    jokers: int = 0
    low_card_ties: str = "suit"  # kreights: suit order breaks ties; craits: tied players redraw
    points: tuple[int, ...] = _CRATES_POINTS
    kind_points: tuple[int, ...] = ()  # points of each card kind (the rank table plus exceptions)
    three_scoring: str = "crates"  # crates | kreights | punitive | cover8 | punitive_cover8 | none
    all_threes: tuple[int, ...] = ()  # scores of 1, 2, ... threes alone; beyond it -50 each
    pressure: str = "double"  # double | cap20 | flat5 | none
    empty_stock: str = "pressure"  # pressure | reshuffle (zimbabwe) | blocked (crazy_eights)
    seven_hits: str = "nbo"  # nbo | next
    jack_hits_prev: bool = False  # 2/3-player Boston J: the previous player takes a card
    count_continues_hand: bool = False  # creights: play goes on after a count if nobody is out
    stars: bool = False
    nine_starter_any_suit: bool = False  # creights: a 9 starter may name any suit
    one_card_per_turn: bool = False  # creights: the call is per turn, made with the first play
    one_card_last_six: bool = False  # chicago1970: a last-card 6 needs the call
    penalty_drawn_at_end: bool = False  # kreights, creights: an unserved penalty is drawn
    seven_of_diamonds_beer: bool = False  # creights: a last 7♦ earns a beer [004:21]
    # what each card kind does (Crates family; empty for the eights engine)
    card_functions: tuple[CardFunction, ...] = field(default=(), repr=False)
    deal_follows_direction: bool = False  # the deal passes right after a counter-clockwise end
    free_play_after_count: bool = False  # any card may follow a drawn count (C-13)
    empty_hand_points: int = 0  # what a seat with no cards scores (craits go-out -10)
    mulligans: tuple[int, ...] = ()  # seats whose first missed call goes unpunished
    barometer: bool = False  # log the leader after each hand (cosmetic)
    call_on_one_card_deal: bool = False  # craits: every player calls on a 1-card deal
    missed_call: str = "next_turn"  # next_turn: lose it and draw 2 | idiot_card: draw 1 at once
    misplay_card: str = ""  # penalize: expose (kreights penalty cards) | dumbass (creights)
    revoke_points: int = 0  # penalize: points per revoke (kreights)
    dumbass_calls: bool = False  # penalize: an invalid suit call or a needless call costs a card
    # eights engine only (the Crazy Eights family):
    draw_rule: str = "one"  # one | until_play (crazy_eights) | one_then_pass (zimbabwe)
    card_roles: tuple[str, ...] = ()  # by rank A..K, then the Joker
    demands: tuple[int, ...] = ()  # cards an offensive card makes the next player take
    wild_kinds: tuple[int, ...] = ()  # kinds playable on anything when no demand is pending
    free_after_kinds: tuple[int, ...] = ()  # kinds after which the next play is unrestricted
    multi_card_plays: bool = False  # several cards of one rank in one play (C-57)
    in_air: bool = False  # going out needs a regular card on a regular or shifting card
    eight_counter_keeps_suit: bool = False  # an 8 on a declaring 8 keeps its own suit [003:83]
    eight_must_change_suit: bool = False  # C-22
    deck: Deck = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def num_teams(self) -> int:
        return 2 if self.partnerships else self.num_players

    def team_of(self, seat: int) -> int:
        """Partnership of a seat (seats 0 & 2 are team 0 in 4-player crates), else the seat."""
        return seat % 2 if self.partnerships else seat

    def side_of(self, seat: int) -> tuple[int, ...]:
        """The seats on ``seat``'s side: it and its partner (seats 0 and 2 in 4-player
        crates), or the seat alone."""
        team = self.team_of(seat)
        return tuple(s for s in range(self.num_players) if self.team_of(s) == team)

    def standing(self, points: Sequence[float]) -> list[float]:
        """Per side, larger is better: ``points`` (scores, or one hand's points per side) as
        ``point_sign`` counts them."""
        return [float(self.point_sign * p) for p in points]

    def margin(self, points: ArrayLike, side: int) -> np.ndarray:
        """How much better side ``side`` did than the others' mean, on per-side ``points`` (the
        last axis: one hand's or one game's points); positive is better for it, whichever way the
        preset counts points."""
        return self.point_sign * lead_over_others(points, side)

    @property
    def num_hands(self) -> int | None:
        """Hands in a game: the schedule's length, or None when the game lasts until a score
        condition (crazy_eights' target, zimbabwe's last player); ``max_hands`` guards those."""
        return len(self.schedule) if self.game_end == "schedule" else None

    def options(self) -> dict:
        """The user-facing options that differ from the preset's defaults."""
        base = make_ruleset(self.preset, self.num_players)
        return {
            name: getattr(self, name)
            for name in sorted(OPTION_NAMES)
            if getattr(self, name) != getattr(base, name)
        }

    def with_options(self, **overrides) -> Ruleset:
        """A new validated ruleset: this one's options plus ``overrides``."""
        return make_ruleset(self.preset, self.num_players, **{**self.options(), **overrides})

    def describe(self) -> dict:
        """Every field as plain data (for logs and TensorBoard hyper-parameters)."""
        d = asdict(self)
        d.pop("deck")
        return d


def lead_over_others(values: ArrayLike, side: int) -> np.ndarray:
    """Side ``side``'s value minus the others' mean, on per-side ``values`` (the last axis)."""
    values = np.asarray(values, dtype=np.float64)
    others = (values.sum(axis=-1) - values[..., side]) / (values.shape[-1] - 1)
    return values[..., side] - others


OPTION_NAMES = frozenset(
    {
        "deal_schedule",
        "first_dealer",
        "misplay_mode",
        "max_decisions_per_hand",
        "max_hands",
        *ADJUNCT_PRESETS,
    }
)
# The options that set how long a game runs and who deals first, not how a hand is played: a
# network that learned a table plays it at any length of game (agents.checkpoints).
SCHEDULE_OPTIONS = frozenset(
    {"deal_schedule", "first_dealer", "max_decisions_per_hand", "max_hands"}
)


def _fail(message: str) -> None:
    raise ValueError(message)


_DEFAULTS = {f.name: f.default for f in fields(Ruleset) if f.name in OPTION_NAMES}
_SEAT_LISTS = frozenset({"kreights_mulligan"})
# int options: (lowest, highest or None, what the message says they must be)
_INTS = {
    "zimbabwe_jokers": (0, 8, "an int from 0 to 8 (the Jokers of a pack)"),
    "deal_size": (5, 8, "5, 6, 7 or 8 ('Five to 8 cards' [003:55])"),
    "max_decisions_per_hand": (1, None, "a positive int"),
    "max_hands": (1, None, "a positive int"),
}


def int_value(value: object) -> int | None:
    """``value`` as an int when it is one (numpy integers included, bools not), else None."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        return None
    return int(value)


def _switched_off(name: str, value: object) -> bool:
    """Whether ``value`` leaves option ``name`` at its default (False, 0, no seats, None)."""
    try:
        return _typed(name, value) == _DEFAULTS[name]
    except ValueError:
        return False


def _typed(name: str, value: object) -> object:
    """``value`` as the type option ``name`` takes (its range is checked later); a ValueError
    naming the option otherwise. Only real booleans switch an option on: "no" would not."""
    if isinstance(_DEFAULTS[name], bool):
        if not isinstance(value, bool | np.bool_):
            _fail(f"option {name!r} takes True or False, not {value!r}")
        return bool(value)
    if name in _INTS:
        low, high, what = _INTS[name]
        number = int_value(value)
        if number is None or number < low or (high is not None and number > high):
            _fail(f"{name} must be {what}, not {value!r}")
        return number
    if name in _SEAT_LISTS or name == "deal_schedule":
        if name == "deal_schedule" and value is None:
            return None
        if not isinstance(value, list | tuple) or any(int_value(v) is None for v in value):
            what = "seats" if name in _SEAT_LISTS else "positive ints"
            _fail(f"option {name!r} takes a list of {what}, not {value!r}")
        return tuple(int_value(v) for v in value)
    if name == "first_dealer":
        if value is None or (isinstance(value, str) and value in FIRST_DEALER_RULES):
            return value
        if int_value(value) is None:
            _fail(
                f"first_dealer {value!r} is not valid; use one of "
                f"{', '.join(FIRST_DEALER_RULES)} or a seat number"
            )
        return int_value(value)
    if name == "misplay_mode" and not (isinstance(value, str) and value in MISPLAY_MODES):
        _fail(f"misplay_mode {value!r} is not available; valid: {', '.join(MISPLAY_MODES)}")
    return value


def make_ruleset(preset: str = "crates", num_players: int | None = None, **options) -> Ruleset:
    """Validated ruleset for ``preset`` with ``num_players`` and keyword overrides.

    Raises ``ValueError`` naming the problem and the valid choices: an unknown preset or option,
    a player count the preset does not allow, an adjunct of another preset, a deal that does not
    fit the deck.
    """
    if preset not in PRESETS:
        _fail(f"unknown preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    shws = options.get("skill_hand_world_series") is True
    n = (3 if shws else 4) if num_players is None else int_value(num_players)
    allowed = PLAYER_COUNTS[preset]
    if n is None or n not in allowed:
        _fail(
            f"preset {preset!r} is played by {allowed.start} to {allowed.stop - 1} players, "
            f"not {num_players!r}"
        )
    if shws and n != 3:
        _fail(
            "skill_hand_world_series is a 3-hand game (seats 0 and 1 are the humans, seat 2 is "
            f"Figgy): num_players must be 3, not {n}"
        )
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        _fail(
            f"unknown ruleset option(s) {', '.join(map(repr, unknown))}; valid options: "
            + ", ".join(sorted(OPTION_NAMES))
        )
    for name, value in options.items():
        owners = ADJUNCT_PRESETS.get(name, (preset,))
        if preset not in owners and not _switched_off(name, value):  # off is harmless
            _fail(f"option {name!r} belongs to preset(s) {', '.join(owners)}, not {preset!r}")
    options = {name: _typed(name, value) for name, value in options.items()}
    flags = {k: v for k, v in _PRESET_DEFAULTS.items() if preset in ADJUNCT_PRESETS[k]}
    flags.update(options)
    rs = Ruleset(preset=preset, num_players=n, **flags)
    return _resolve(rs)


def _validate(rs: Ruleset) -> None:
    """What depends on more than one option (the types and ranges of each: ``_typed``)."""
    n = rs.num_players
    _validate_misplays(rs)
    if not (
        rs.first_dealer is None
        or rs.first_dealer in FIRST_DEALER_RULES
        or (isinstance(rs.first_dealer, int) and 0 <= rs.first_dealer < n)
    ):
        _fail(
            f"first_dealer {rs.first_dealer!r} is not valid; use one of "
            f"{', '.join(FIRST_DEALER_RULES)} or a seat 0..{n - 1}"
        )
    if rs.skill_hand_world_series and rs.first_dealer == 2:
        _fail("first_dealer 2 is not valid: Figgy (seat 2) never deals [000:161]")
    bad_seats = [s for s in rs.kreights_mulligan if not 0 <= s < n]
    if bad_seats:
        _fail(f"kreights_mulligan takes seats 0..{n - 1}, not {list(bad_seats)}")
    if rs.seven_card_format and rs.craits_short_game:
        _fail("seven_card_format and craits_short_game cannot both be set")


def _validate_misplays(rs: Ruleset) -> None:
    """P1: ``penalize`` exists only where a seed penalises misplays, and only with a penalty."""
    chosen = [name for name in MISPLAY_PENALTIES if getattr(rs, name)]
    if rs.misplay_mode == "reject":
        if chosen:
            _fail(f"option {chosen[0]!r} needs misplay_mode='penalize'")
        return
    own = [name for name in MISPLAY_PENALTIES if rs.preset in ADJUNCT_PRESETS[name]]
    if not own:
        _fail(
            f"misplay_mode 'penalize' is not available for preset {rs.preset!r}: its seed has no "
            "misplay penalties (only kreights and creights have them)"
        )
    if not chosen:
        _fail(f"misplay_mode 'penalize' needs at least one penalty: {', '.join(own)}")


def _resolve_schedule(rs: Ruleset) -> tuple[int, ...]:
    if rs.deal_schedule is not None:
        schedule = rs.deal_schedule
    elif rs.preset == "crazy_eights":
        schedule = (7,) if rs.num_players == 2 else (5,)  # [003:36]
    elif rs.preset == "zimbabwe":
        schedule = (rs.deal_size,)
    elif rs.skill_hand_world_series:
        schedule = SHWS_SCHEDULE
    else:
        schedule = STANDARD_SCHEDULE
    if isinstance(schedule, int | str) or not hasattr(schedule, "__iter__"):
        _fail(f"deal_schedule must be a list of positive ints, not {schedule!r}")
    schedule = tuple(schedule)
    if rs.seven_card_format:
        schedule = (7, 6, 5, 4, 3, 2) + (1,) * rs.num_players + (2, 3, 4, 5, 6, 7)
    elif rs.craits_short_game:
        schedule = CRAITS_SHORT_SCHEDULE
    if not schedule or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in schedule
    ):
        _fail(f"deal_schedule must be a non-empty list of positive ints, not {rs.deal_schedule!r}")
    return schedule


def _num_decks(rs: Ruleset) -> int:
    n, preset = rs.num_players, rs.preset
    two_decks = (
        (preset == "kreights" and n == 5)
        or (preset == "craits" and n > 5)
        or (preset in ("crazy_eights", "zimbabwe") and n > 5)  # [003:24]; zimbabwe SILENT→ same
    )
    return 2 if two_decks else 1


def _resolve_deck(rs: Ruleset, schedule: tuple[int, ...]) -> Deck:
    n, decks = rs.num_players, rs.decks
    # zimbabwe_jokers counts the Jokers of one pack: two packs bring twice as many (SILENT)
    jokers = 2 if rs.standig_jokers else rs.zimbabwe_jokers * decks
    deck = Deck.build(decks, jokers, rs.no_kings_queens)
    if n * max(schedule) + 1 > deck.size:
        _fail(
            f"a deal of {max(schedule)} cards to {n} players plus a starter needs "
            f"{n * max(schedule) + 1} cards, but the deck has {deck.size}"
        )
    return deck


def _three_scoring(rs: Ruleset) -> str:
    if rs.engine == "eights":
        return "none"  # threes are plain cards [003:47,130]
    if rs.craits_punitive_threes and rs.craits_three_covers_eight:
        return "punitive_cover8"
    if rs.craits_punitive_threes or rs.preset == "creights":
        return "punitive"
    if rs.craits_three_covers_eight:
        return "cover8"
    if rs.preset == "kreights" and rs.kreights_three_mutual_cancel:
        return "kreights"
    return "crates"


def _pressure(rs: Ruleset) -> str:
    if rs.engine == "eights":
        return "none"  # §1.10: no pressure in crazy_eights and zimbabwe
    if rs.preset == "kreights" and not rs.kreights_pressure_doubling:
        return "flat5"
    return "cap20" if rs.pressure_cap_20 else "double"


def _kind_points(preset: str) -> tuple[int, ...]:
    points, special = POINT_TABLES[preset], KIND_POINTS.get(preset, {})
    return tuple(
        special.get(k, points[13] if k == JOKER else points[rank_of(k)]) for k in range(JOKER + 1)
    )


def _card_function(kind: int, rs: Ruleset, resolved: dict) -> CardFunction:
    """What ``kind`` does under ``rs`` (docs/rules.md §1.3-1.4); the Joker's transparency is
    code."""
    if kind == JOKER:
        return NO_FUNCTION
    rank, face = rank_of(kind), rs.craits_face_cards
    if rank == FIVE:  # everybody else takes one, in order of play [000:87]
        return CardFunction(draws=tuple((i, 1) for i in range(1, rs.num_players)))
    if rank == SEVEN:
        beer = resolved["seven_of_diamonds_beer"] and kind == SEVEN_OF_DIAMONDS
        target = 1 if resolved["seven_hits"] == "next" else 2
        return CardFunction(draws=((target, 1),), beer=beer)
    if rank == FOUR:
        return CardFunction(next_player=2, skips=True)
    if rank == SIX:
        return CardFunction(again=True)
    if rank == TEN:
        return CardFunction(reverses=True)
    if rank == JACK and face:  # [002:80]
        return CardFunction(draws=((1, 2),), per_jack=True, next_player=2)
    if rank == JACK and resolved["jack_hits_prev"]:
        return CardFunction(draws=((-1, 1),))
    if kind == QUEEN_OF_SPADES and face:
        return CardFunction(draws=((1, 5),), next_player=2)
    if rank == QUEEN and rs.queen_draws_two:
        return CardFunction(draws=((1, 2),))
    if rank == KING and face:
        return CardFunction(again=True, series=3)
    return NO_FUNCTION


def _crates_rules(rs: Ruleset) -> dict:
    """Fields of the Crates family's card functions and scoring (docs/rules.md §1.3-1.15); the
    Crazy Eights family shares the dealing and point fields."""
    n, preset = rs.num_players, rs.preset
    small = n <= 3
    dealer_rule = rs.first_dealer
    if dealer_rule is None:  # kreights [001:19] and craits [002:18] draw for deal
        dealer_rule = "low_card" if preset in ("kreights", "craits") else "random"
    resolved = {
        "dealer_rule": dealer_rule,
        "low_card_ties": "redraw" if preset == "craits" else "suit",
        "points": POINT_TABLES[preset],
        "kind_points": _kind_points(preset),
        "three_scoring": _three_scoring(rs),
        "all_threes": (-50, -75, -100, -200) if preset == "kreights" else (),  # [001:41]
        "pressure": _pressure(rs),
        "seven_hits": "next" if small and preset != "kreights" else "nbo",
        "jack_hits_prev": small and preset in ("crates", "chicago1970", "creights"),
        "count_continues_hand": preset == "creights" or rs.craits_continue_after_count,
        "stars": preset == "kreights",
        "nine_starter_any_suit": preset == "creights",
        "one_card_per_turn": preset == "creights",
        "one_card_last_six": preset == "chicago1970",
        "penalty_drawn_at_end": preset in ("kreights", "creights"),
        "seven_of_diamonds_beer": preset == "creights",
        "deal_follows_direction": rs.craits_dealer_follows_direction,
        "free_play_after_count": rs.kreights_free_play_after_count,
        "empty_hand_points": -10 if rs.craits_go_out_minus_10 else 0,  # C-15
        "mulligans": tuple(rs.kreights_mulligan),
        "barometer": rs.kreights_barometer,
        "call_on_one_card_deal": rs.craits_one_card_on_deal,
        "missed_call": "idiot_card" if rs.craits_idiot_card else "next_turn",
    }
    if rs.engine == "crates":
        resolved["card_functions"] = tuple(
            _card_function(k, rs, resolved) for k in range(NUM_KINDS)
        )
    return resolved


def _eights_rules(rs: Ruleset) -> dict:
    """Fields of the Crazy Eights family [003]: the basic game, or the Zimbabwean variation."""
    if rs.engine != "eights":
        return {}
    n = rs.num_players
    if rs.preset == "crazy_eights":
        return {
            "game_end": "target",
            "target_score": 50 * n,  # 100 (2p), 150, ..., 350 (7p) [003:49] (TV-20)
            "point_sign": 1,
            "hand_scoring": "winner_collects",
            "empty_stock": "blocked",  # [003:47], E-63
            "draw_rule": "until_play",  # "until willing and able to play" [003:45] (C-54)
            "card_roles": _CRAZY_EIGHTS_ROLES,
            "demands": (0,) * 14,
            "wild_kinds": _EIGHTS,
            "eight_must_change_suit": rs.crazy_eights_eight_must_change_suit,
        }
    return {
        "game_end": "last_player",  # [003:146]
        "hand_scoring": "eliminate_highest",  # [003:126] (C-25)
        "empty_stock": "reshuffle",  # [003:126]; nothing to reshuffle: the draw is skipped
        "draw_rule": "one_then_pass",  # [003:57]
        "card_roles": _ZIMBABWE_ROLES,
        "demands": _ZIMBABWE_DEMANDS,
        "wild_kinds": (*_EIGHTS, JOKER, ACE_OF_SPADES),  # [003:83,103,115]
        "free_after_kinds": (ACE_OF_SPADES,),  # "the next player any suit or rank" [003:115]
        "multi_card_plays": True,  # [003:57] (C-57)
        "in_air": True,  # [003:126] (C-26)
        "eight_counter_keeps_suit": True,  # [003:83]
    }


def _seat_rules(rs: Ruleset) -> dict:
    """Who deals, who plays whose hand, where scores start (SHWS [000:154-162])."""
    if not rs.skill_hand_world_series:
        return {"dealer_seats": tuple(range(rs.num_players)), "initial_scores": (0,) * rs.num_teams}
    return {
        "dealer_seats": (0, 1),  # Figgy never deals; the humans alternate [000:161]
        "dummy_seat": 2,  # SILENT→ H1=0, H2=1, Figgy=2
        "initial_scores": (0, 0, -50),  # "Figgy begins the game with -50 points" [000:162]
    }


def _misplay_rules(rs: Ruleset) -> dict:
    """What ``penalize`` does with each kind of misplay (docs/rules.md §1.12)."""
    card = "expose" if rs.kreights_penalty_cards else ""
    return {
        "misplay_card": "dumbass" if rs.creights_dumbass_cards else card,
        "revoke_points": REVOKE_POINTS if rs.kreights_revoke_penalty else 0,
        "dumbass_calls": rs.creights_dumbass_cards,
    }


def _resolve(rs: Ruleset) -> Ruleset:
    _validate(rs)
    rs = replace(
        rs,
        engine=PRESET_ENGINES.get(rs.preset, "crates"),
        partnerships=rs.preset == "crates" and rs.num_players == 4,
        decks=_num_decks(rs),
    )
    schedule = _resolve_schedule(rs)
    deck = _resolve_deck(rs, schedule)
    return replace(
        rs,
        deal_schedule=None if rs.deal_schedule is None else tuple(rs.deal_schedule),
        kreights_mulligan=tuple(rs.kreights_mulligan),
        schedule=schedule,
        jokers=deck.joker_mask.bit_count(),
        deck=deck,
        **_crates_rules(rs),
        **_eights_rules(rs),
        **_seat_rules(rs),
        **_misplay_rules(rs),
    )

"""Rule systems as data: a declared rule system and the user's options, resolved into the rules
the engines play.

Each rule system is declared once in ``crates_env.presets`` (a :class:`RuleSystem`: players,
deck, points, card functions, resolved rules, options, search settings). :func:`make_ruleset`
takes the user's choices (the preset, the player count, options of docs/rules.md §1.14) and
returns a ``Ruleset``: ``Ruleset.chosen`` holds what the user chose (:class:`Choices`), its
other fields what that resolves to, the only fields the engines read (who a 7 hits, the point
table, the three-scoring algorithm, the pressure progression, ...). A preset is a value: no code
tests a preset's name (tests/test_presets.py holds it), and no engine reads a preset-named flag.

Two engines play the rule systems (``Ruleset.engine``): ``"crates"`` for the Crates family, whose
card functions are ``card_functions`` (a :class:`CardFunction` per card kind: who draws how many,
who plays next, does the turn go on), and ``"eights"`` for the Crazy Eights family of [003]
(``crazy_eights``, ``zimbabwe``), whose card functions are ``card_roles``, ``demands``,
``wild_kinds`` and ``free_after_kinds``. Procedural rules (the count, Coopers, the transparent
Joker, one-card calls, penalty cards) are code in the engines, steered by resolved fields.

Build one with ``make_ruleset("kreights", num_players=3, seven_card_format=True)``; declare a
house rule with :func:`register_preset` (docs/variants.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from enum import IntEnum
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from .cards import (
    ACE,
    DIAMONDS,
    JACK,
    JOKER,
    KING,
    NUM_KINDS,
    QUEEN,
    RANKS,
    SEVEN,
    SPADES,
    TWO,
    Deck,
    make_kind,
    parse_card,
    rank_of,
)
from .presets import (
    BUILTIN,
    CRAITS_SHORT_SCHEDULE,
    CRATES_POINTS,
    MAX_PLAYERS,
    NO_FUNCTION,
    OTHERS,
    REVOKE_POINTS,
    SHWS_SCHEDULE,
    STANDARD_SCHEDULE,
    CardFunction,
    Option,
    RuleSystem,
)

# The shipped rule systems, in their declaration order (``register_preset`` adds others:
# ``preset_names()``); the table layout's one-hot reads this tuple, so it never grows.
PRESETS = tuple(system.name for system in BUILTIN)
_SYSTEMS: dict[str, RuleSystem] = {system.name: system for system in BUILTIN}
# The options of every rule system, by name: the shipped declarations' (an option's effect is
# the resolver's, so a declaration offers these and no others).
OPTIONS: dict[str, Option] = {o.name: o for system in BUILTIN for o in system.options}
# The options every rule system takes, and their defaults.
GENERAL_OPTIONS = {
    "deal_schedule": None,  # None: the rule system's schedule
    "first_dealer": None,  # None: the rule system's way (random, or low card)
    "misplay_mode": "reject",
    "max_decisions_per_hand": 20_000,
    "max_hands": 1_000,  # guard for games that last until a score condition
}
OPTION_NAMES = frozenset({*GENERAL_OPTIONS, *OPTIONS})
# The options that set how long a game runs and who deals first, not how a hand is played: a
# network that learned a table plays it at any length of game (agents.checkpoints).
SCHEDULE_OPTIONS = frozenset(
    {"deal_schedule", "first_dealer", "max_decisions_per_hand", "max_hands"}
)
# The rules files (os.pathsep-separated) every process registers when it imports the package:
# how the workers a command starts learn the house rules it was given (register_rules_file).
RULES_FILES_VARIABLE = "CRATES_RULES_FILES"
FIRST_DEALER_RULES = ("random", "low_card")
MISPLAY_MODES = ("reject", "penalize")
COUNT_PIPS = {ACE: 1, TWO: 2}  # what an ace and a deuce add to the count (docs/rules.md §1.5)
QUEEN_OF_SPADES = make_kind(QUEEN, SPADES)
SEVEN_OF_DIAMONDS = make_kind(SEVEN, DIAMONDS)


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


@dataclass(frozen=True)
class Choices:
    """What the user chose: the rule system, the player count and every option the system
    offers (the general ones included), by name, set or left at its default."""

    preset: str
    num_players: int
    values: tuple[tuple[str, object], ...]

    def __getitem__(self, name: str) -> object:
        """Option ``name``'s value; its ``off`` value where the rule system does not offer it."""
        for key, value in self.values:
            if key == name:
                return value
        return OPTIONS[name].off


@dataclass(frozen=True)
class Ruleset:
    """One rule system, fully resolved. Build it with :func:`make_ruleset`.

    ``chosen`` is what the user chose; every other field is what the engines read.
    """

    chosen: Choices
    misplay_mode: str = "reject"
    max_decisions_per_hand: int = 20_000
    max_hands: int = 1_000  # guard for games that last until a score condition
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
    points: tuple[int, ...] = CRATES_POINTS  # by rank A..K, then the Joker
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
    def preset(self) -> str:
        """The rule system's name (``crates_env.presets``, or a registered one)."""
        return self.chosen.preset

    @property
    def num_players(self) -> int:
        return self.chosen.num_players

    def option(self, name: str) -> object:
        """The value of option ``name`` (its ``off`` value where the rule system lacks it)."""
        if name not in OPTION_NAMES:
            _fail(
                f"unknown ruleset option {name!r}; valid options: {', '.join(sorted(OPTION_NAMES))}"
            )
        return self.chosen[name]

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
        """The user-facing options that differ from the rule system's defaults."""
        defaults = _option_defaults(rule_system(self.preset))
        return {name: value for name, value in self.chosen.values if value != defaults[name]}

    def with_options(self, **overrides) -> Ruleset:
        """A new validated ruleset: this one's options plus ``overrides``."""
        return make_ruleset(self.preset, self.num_players, **{**self.options(), **overrides})

    def describe(self) -> dict:
        """Every choice and resolved field as plain data (for logs and TensorBoard
        hyper-parameters)."""
        resolved = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("chosen", "deck")
        }
        resolved["card_functions"] = tuple(asdict(f) for f in self.card_functions)
        return {
            "preset": self.preset,
            "num_players": self.num_players,
            **dict(self.chosen.values),
            **resolved,
        }


def lead_over_others(values: ArrayLike, side: int) -> np.ndarray:
    """Side ``side``'s value minus the others' mean, on per-side ``values`` (the last axis)."""
    values = np.asarray(values, dtype=np.float64)
    others = (values.sum(axis=-1) - values[..., side]) / (values.shape[-1] - 1)
    return values[..., side] - others


# --- the registry -------------------------------------------------------------------------------


def preset_names() -> tuple[str, ...]:
    """Every rule system make_ruleset plays: the shipped ones, then the registered ones."""
    return tuple(_SYSTEMS)


def rule_system(preset: str) -> RuleSystem:
    """The declaration of ``preset``; a ValueError listing the rule systems otherwise."""
    system = _SYSTEMS.get(preset) if isinstance(preset, str) else None
    if system is None:
        _fail(f"unknown preset {preset!r}; valid presets: {', '.join(_SYSTEMS)}")
    return system


def engine_of(preset: str) -> str:
    """The engine family that plays ``preset`` ("crates" for a name nobody declared: the
    engine's constructor names the problem)."""
    system = _SYSTEMS.get(preset) if isinstance(preset, str) else None
    return "crates" if system is None else system.engine


def _fail(message: str) -> None:
    raise ValueError(message)


def _option_defaults(system: RuleSystem) -> dict[str, object]:
    return {**GENERAL_OPTIONS, **{o.name: o.default for o in system.options}}


def option_owners(name: str) -> tuple[str, ...]:
    """The rule systems that offer option ``name``."""
    return tuple(s.name for s in _SYSTEMS.values() if any(o.name == name for o in s.options))


# --- the user's choices -------------------------------------------------------------------------


def int_value(value: object) -> int | None:
    """``value`` as an int when it is one (numpy integers included, bools not), else None."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        return None
    return int(value)


def _positive(name: str, value: object) -> int:
    number = int_value(value)
    if number is None or number < 1:
        _fail(f"{name} must be a positive int, not {value!r}")
    return number


def _typed(name: str, value: object) -> object:
    """``value`` as the type option ``name`` takes (its range against the table is checked
    later); a ValueError naming the option otherwise. Only real booleans switch an option on:
    "no" would not."""
    if name in ("max_decisions_per_hand", "max_hands"):
        return _positive(name, value)
    if name == "deal_schedule":
        if value is None:
            return None
        if not isinstance(value, list | tuple) or any(int_value(v) is None for v in value):
            _fail(f"option {name!r} takes a list of positive ints, not {value!r}")
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
    if name == "misplay_mode":
        if not (isinstance(value, str) and value in MISPLAY_MODES):
            _fail(f"misplay_mode {value!r} is not available; valid: {', '.join(MISPLAY_MODES)}")
        return value
    option = OPTIONS[name]
    if option.kind == "bool":
        if not isinstance(value, bool | np.bool_):
            _fail(f"option {name!r} takes True or False, not {value!r}")
        return bool(value)
    if option.kind == "int":
        number = int_value(value)
        if number is None or not option.low <= number <= option.high:
            _fail(
                f"{name} must be an int from {option.low} to {option.high} ({option.help}), "
                f"not {value!r}"
            )
        return number
    if not isinstance(value, list | tuple) or any(int_value(v) is None for v in value):
        _fail(f"option {name!r} takes a list of seats, not {value!r}")
    return tuple(int_value(v) for v in value)


def _switched_off(name: str, value: object) -> bool:
    """Whether ``value`` leaves option ``name`` as a rule system without it has it."""
    try:
        return name in OPTIONS and _typed(name, value) == OPTIONS[name].off
    except ValueError:
        return False


def _players(system: RuleSystem, num_players: object, options: dict) -> int:
    """The player count: ``num_players``, else the one an option needs, else 4 where allowed."""
    lo, hi = system.players
    fixed = [o for o in system.options if o.players is not None and options.get(o.name) is True]
    n = int_value(num_players)
    if num_players is None:
        n = fixed[0].players if fixed else (4 if lo <= 4 <= hi else lo)
    if n is None or not lo <= n <= hi:
        _fail(f"preset {system.name!r} is played by {lo} to {hi} players, not {num_players!r}")
    for option in fixed:
        if n != option.players:
            _fail(
                f"{option.name} is a {option.players}-hand game ({option.help}): num_players "
                f"must be {option.players}, not {n}"
            )
    return n


def _choices(system: RuleSystem, num_players: object, options: dict) -> Choices:
    n = _players(system, num_players, options)
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        _fail(
            f"unknown ruleset option(s) {', '.join(map(repr, unknown))}; valid options: "
            + ", ".join(sorted(OPTION_NAMES))
        )
    values = _option_defaults(system)
    for name, value in options.items():
        if name not in values:
            if not _switched_off(name, value):  # off is harmless
                owners = ", ".join(option_owners(name))
                _fail(f"option {name!r} belongs to preset(s) {owners}, not {system.name!r}")
            continue
        values[name] = _typed(name, value)
    chosen = Choices(system.name, n, tuple(sorted(values.items())))
    _validate(system, chosen)
    return chosen


def _validate(system: RuleSystem, chosen: Choices) -> None:
    """What depends on more than one choice (the types and ranges of each: ``_typed``)."""
    n = chosen.num_players
    _validate_misplays(system, chosen)
    first = chosen["first_dealer"]
    if not (first is None or first in FIRST_DEALER_RULES or 0 <= first < n):
        _fail(
            f"first_dealer {first!r} is not valid; use one of "
            f"{', '.join(FIRST_DEALER_RULES)} or a seat 0..{n - 1}"
        )
    dealers = _dealer_seats(chosen)
    if isinstance(first, int) and first not in dealers:
        _fail(
            f"first_dealer {first} is not valid: seat {first} never deals here (the dealers: "
            f"seats {', '.join(map(str, dealers))}) [000:161]"
        )
    for option in system.options:
        value = chosen[option.name]
        if option.kind == "seats" and any(not 0 <= s < n for s in value):
            _fail(f"{option.name} takes seats 0..{n - 1}, not {[s for s in value]}")
        for other in option.excludes:
            if value is True and chosen[other] is True:
                _fail(f"{option.name} and {other} cannot both be set")


def _validate_misplays(system: RuleSystem, chosen: Choices) -> None:
    """P1: ``penalize`` exists only where a seed penalises misplays, and only with a penalty."""
    own = [o.name for o in system.options if o.penalty]
    picked = [name for name in own if chosen[name]]
    if chosen["misplay_mode"] == "reject":
        if picked:
            _fail(f"option {picked[0]!r} needs misplay_mode='penalize'")
        return
    if not own:
        having = [s.name for s in _SYSTEMS.values() if any(o.penalty for o in s.options)]
        _fail(
            f"misplay_mode 'penalize' is not available for preset {system.name!r}: its seed has "
            f"no misplay penalties (only {' and '.join(having)} have them)"
        )
    if not picked:
        _fail(f"misplay_mode 'penalize' needs at least one penalty: {', '.join(own)}")


def make_ruleset(preset: str = "crates", num_players: int | None = None, **options) -> Ruleset:
    """Validated ruleset for ``preset`` with ``num_players`` and keyword overrides.

    Raises ``ValueError`` naming the problem and the valid choices: an unknown preset or option,
    a player count the preset does not allow, an option of another preset, a deal that does not
    fit the deck.
    """
    system = rule_system(preset)
    return _resolve(system, _choices(system, num_players, options))


# --- what the choices resolve to ----------------------------------------------------------------


def _resolve(system: RuleSystem, chosen: Choices) -> Ruleset:
    n = chosen.num_players
    declared = {**system.rules, **system.by_players.get(n, {})}
    decks = 2 if system.two_decks_from is not None and n >= system.two_decks_from else 1
    schedule = _schedule(declared.pop("schedule", STANDARD_SCHEDULE), chosen)
    deck = _deck(chosen, decks, schedule)
    resolved = {
        **declared,
        "engine": system.engine,
        "partnerships": n in system.partnerships_at,
        "decks": decks,
        "schedule": schedule,
        "jokers": deck.joker_mask.bit_count(),
        "deck": deck,
        "misplay_mode": chosen["misplay_mode"],
        "max_decisions_per_hand": chosen["max_decisions_per_hand"],
        "max_hands": chosen["max_hands"],
        "kind_points": _kind_points(declared.get("points", CRATES_POINTS), system.card_points),
        **_option_rules(declared, chosen),
        **_seat_rules(chosen, n in system.partnerships_at),
        **_misplay_rules(chosen),
    }
    if system.engine == "crates":
        resolved["card_functions"] = _card_functions(system, chosen, resolved)
    return Ruleset(chosen=chosen, **resolved)


def _schedule(declared: tuple[int, ...], chosen: Choices) -> tuple[int, ...]:
    """The deal sizes: the user's ``deal_schedule``, else an option's, else the declared one;
    the formats of seven_card_format and craits_short_game over all of them."""
    schedule = chosen["deal_schedule"]
    if schedule is None:
        if chosen["skill_hand_world_series"]:
            schedule = SHWS_SCHEDULE
        elif chosen["deal_size"] is not None:
            schedule = (chosen["deal_size"],)
        else:
            schedule = declared
    if chosen["seven_card_format"]:
        schedule = (7, 6, 5, 4, 3, 2) + (1,) * chosen.num_players + (2, 3, 4, 5, 6, 7)
    elif chosen["craits_short_game"]:
        schedule = CRAITS_SHORT_SCHEDULE
    if not schedule or not all(d >= 1 for d in schedule):
        _fail(
            "deal_schedule must be a non-empty list of positive ints, not "
            f"{chosen['deal_schedule']!r}"
        )
    return tuple(schedule)


def _deck(chosen: Choices, decks: int, schedule: tuple[int, ...]) -> Deck:
    n = chosen.num_players
    # zimbabwe_jokers counts the Jokers of one pack: two packs bring twice as many (SILENT)
    jokers = 2 if chosen["standig_jokers"] else chosen["zimbabwe_jokers"] * decks
    deck = Deck.build(decks, jokers, chosen["no_kings_queens"])
    if n * max(schedule) + 1 > deck.size:
        _fail(
            f"a deal of {max(schedule)} cards to {n} players plus a starter needs "
            f"{n * max(schedule) + 1} cards, but the deck has {deck.size}"
        )
    return deck


def _kind_points(points: tuple[int, ...], exceptions: Mapping[int, int]) -> tuple[int, ...]:
    return tuple(
        exceptions.get(k, points[13] if k == JOKER else points[rank_of(k)])
        for k in range(JOKER + 1)
    )


def _three_scoring(declared: str, chosen: Choices) -> str:
    punitive = chosen["craits_punitive_threes"] or declared == "punitive"
    cover8 = chosen["craits_three_covers_eight"]
    if punitive and cover8:
        return "punitive_cover8"
    if punitive:
        return "punitive"
    if cover8:
        return "cover8"
    return "kreights" if chosen["kreights_three_mutual_cancel"] else declared


def _pressure(declared: str, chosen: Choices) -> str:
    if chosen["pressure_cap_20"]:
        return "cap20"
    return "double" if chosen["kreights_pressure_doubling"] else declared


def _option_rules(declared: dict, chosen: Choices) -> dict:
    """The resolved fields the options change (docs/rules.md §1.14), over the declared ones."""
    first, base = chosen["first_dealer"], Ruleset.__dataclass_fields__

    def rule(name: str) -> object:
        return declared.get(name, base[name].default)

    return {
        "dealer_rule": rule("dealer_rule") if first is None else first,
        "three_scoring": _three_scoring(rule("three_scoring"), chosen),
        "pressure": _pressure(rule("pressure"), chosen),
        "count_continues_hand": rule("count_continues_hand")
        or chosen["craits_continue_after_count"],
        "deal_follows_direction": rule("deal_follows_direction")
        or chosen["craits_dealer_follows_direction"],
        "free_play_after_count": rule("free_play_after_count")
        or chosen["kreights_free_play_after_count"],
        "empty_hand_points": -10 if chosen["craits_go_out_minus_10"] else rule("empty_hand_points"),
        "mulligans": chosen["kreights_mulligan"],
        "barometer": rule("barometer") or chosen["kreights_barometer"],
        "call_on_one_card_deal": rule("call_on_one_card_deal") or chosen["craits_one_card_on_deal"],
        "missed_call": "idiot_card" if chosen["craits_idiot_card"] else rule("missed_call"),
        "eight_must_change_suit": rule("eight_must_change_suit")
        or chosen["crazy_eights_eight_must_change_suit"],
    }


def _dealer_seats(chosen: Choices) -> tuple[int, ...]:
    if chosen["skill_hand_world_series"]:
        return (0, 1)  # Figgy never deals; the humans alternate [000:161]
    return tuple(range(chosen.num_players))


def _seat_rules(chosen: Choices, partnerships: bool) -> dict:
    """Who deals, who plays whose hand, where scores start (SHWS [000:154-162])."""
    if not chosen["skill_hand_world_series"]:
        teams = 2 if partnerships else chosen.num_players
        return {"dealer_seats": _dealer_seats(chosen), "initial_scores": (0,) * teams}
    return {
        "dealer_seats": _dealer_seats(chosen),
        "dummy_seat": 2,  # SILENT→ H1=0, H2=1, Figgy=2
        "initial_scores": (0, 0, -50),  # "Figgy begins the game with -50 points" [000:162]
    }


def _misplay_rules(chosen: Choices) -> dict:
    """What ``penalize`` does with each kind of misplay (docs/rules.md §1.12)."""
    card = "expose" if chosen["kreights_penalty_cards"] else ""
    return {
        "misplay_card": "dumbass" if chosen["creights_dumbass_cards"] else card,
        "revoke_points": REVOKE_POINTS if chosen["kreights_revoke_penalty"] else 0,
        "dumbass_calls": chosen["creights_dumbass_cards"],
    }


def _card_functions(
    system: RuleSystem, chosen: Choices, resolved: dict
) -> tuple[CardFunction, ...]:
    """What each kind does: the declaration's ``cards`` (a rank's entry, then a card's over
    it), then what the resolved rules and the options change (docs/rules.md §1.3-1.4); the
    Joker's transparency is code."""
    n = chosen.num_players
    functions = [NO_FUNCTION] * NUM_KINDS
    for code, function in sorted(system.cards.items(), key=lambda item: item[0] not in RANKS):
        draws = tuple(
            (seat, cards)
            for s, cards in function.draws
            for seat in (range(1, n) if s == OTHERS else (s,))
        )
        for kind in _kinds_of(code):
            functions[kind] = replace(function, draws=draws)
    return tuple(
        _changed_function(kind, function, chosen, resolved)
        for kind, function in enumerate(functions)
    )


def _kinds_of(code: str) -> tuple[int, ...]:
    """The kinds a declaration's card code names: a rank (``"Q"``: every Queen) or a card."""
    if code in RANKS:
        return tuple(make_kind(RANKS.index(code), s) for s in range(4))
    return (parse_card(code),)


def _changed_function(
    kind: int, function: CardFunction, chosen: Choices, resolved: dict
) -> CardFunction:
    """``function``, as the resolved rules and the options change what ``kind`` does."""
    if kind == JOKER:
        return function
    rank, face = rank_of(kind), chosen["craits_face_cards"]
    if rank == SEVEN and resolved.get("seven_hits") == "next":  # the 7 hits the next player
        function = replace(function, draws=tuple((1, c) for _, c in function.draws))
    if kind == SEVEN_OF_DIAMONDS and resolved.get("seven_of_diamonds_beer"):
        function = replace(function, beer=True)
    if rank == JACK and face:  # [002:80]
        return CardFunction(draws=((1, 2),), per_jack=True, next_player=2)
    if rank == JACK and resolved.get("jack_hits_prev"):
        return CardFunction(draws=((-1, 1),))
    if kind == QUEEN_OF_SPADES and face:
        return CardFunction(draws=((1, 5),), next_player=2)
    if rank == QUEEN and chosen["queen_draws_two"]:
        return CardFunction(draws=((1, 2),))
    if rank == KING and face:
        return CardFunction(again=True, series=3)
    return function


def player_counts(preset: str) -> range:
    """The player counts ``preset`` is played at."""
    lo, hi = rule_system(preset).players
    return range(lo, hi + 1)


# --- house rules: rule systems users declare (docs/variants.md) ---------------------------------

# The Ruleset fields the resolver computes (from the players, the deck, the options): a
# declaration's ``rules`` sets the others.
_COMPUTED = frozenset(
    {
        "chosen", "misplay_mode", "max_decisions_per_hand", "max_hands", "engine", "partnerships",
        "decks", "jokers", "kind_points", "card_functions", "dealer_seats", "dummy_seat",
        "initial_scores", "mulligans", "misplay_card", "revoke_points", "dumbass_calls", "deck",
    }
)  # fmt: skip
DECLARABLE = tuple(f.name for f in fields(Ruleset) if f.name not in _COMPUTED)
# How a game ends, and what each ending is played with: (engine, hand_scoring, point_sign).
_GAME_ENDS = {
    "schedule": ("crates", "own_cards", -1),
    "target": ("eights", "winner_collects", 1),
    "last_player": ("eights", "eliminate_highest", -1),
}
# The values of each choice the engines play: every one a mechanic of an engine.
_CHOICES: dict[str, tuple] = {
    "game_end": tuple(_GAME_ENDS),
    "hand_scoring": tuple(m.name.lower() for m in HandScoring),
    "point_sign": (-1, 1),
    "dealer_rule": FIRST_DEALER_RULES,
    "low_card_ties": ("suit", "redraw"),
    "seven_hits": ("nbo", "next"),
    "missed_call": ("next_turn", "idiot_card"),
    "three_scoring": tuple(m.name.lower() for m in ThreeScoring),
    "pressure": tuple(m.name.lower() for m in Pressure),
    "empty_stock": tuple(m.name.lower() for m in EmptyStock),
    "draw_rule": tuple(m.name.lower() for m in DrawRule),
}
# The values each engine plays of the choices the two engines play differently.
_ENGINE_CHOICES = {
    "crates": {
        "empty_stock": ("pressure",),
        "pressure": ("double", "cap20", "flat5"),
        "three_scoring": ("crates", "kreights", "punitive", "cover8", "punitive_cover8"),
        "draw_rule": ("one",),
    },
    "eights": {
        "empty_stock": ("blocked", "reshuffle"),
        "pressure": ("none",),
        "three_scoring": ("none",),
        "draw_rule": ("one", "until_play", "one_then_pass"),
    },
}
# The fields only one engine reads: the other plays them at their default only.
_ENGINE_ONLY = {
    "eights": (
        "card_roles", "demands", "wild_kinds", "free_after_kinds", "multi_card_plays", "in_air",
        "eight_counter_keeps_suit", "eight_must_change_suit",
    ),
    "crates": (
        "all_threes", "jack_hits_prev", "count_continues_hand", "stars", "nine_starter_any_suit",
        "one_card_per_turn", "one_card_last_six", "penalty_drawn_at_end", "seven_of_diamonds_beer",
        "free_play_after_count", "empty_hand_points", "barometer", "call_on_one_card_deal",
        "missed_call",
    ),
}  # fmt: skip
ROLES = tuple("" if m is CardRole.REGULAR else m.name.lower() for m in CardRole)
SEARCH_SETTINGS = ("samples", "stock_max", "z", "deepen", "deepen_at")  # agents.search's
_FIELDS = (
    "name", "about", "base", "engine", "players", "rules", "by_players", "partnerships_at",
    "two_decks_from", "card_points", "cards", "options", "search",
)  # fmt: skip
_CARD_FIELDS = tuple(f.name for f in fields(CardFunction))
_RANK_CODES = (*RANKS, "JK")  # a per-rank table's keys: A..K, then the Joker


def register_preset(declaration: RuleSystem | Mapping[str, object]) -> RuleSystem:
    """Declare a rule system (a house rule) so that ``make_ruleset`` and everything above it
    plays it: a :class:`RuleSystem`, or the same fields as plain data (``base``: start from a
    declared rule system's declaration; docs/variants.md). Registering an equal declaration
    again does nothing. A ValueError names the field at fault and the valid choices: a
    mechanic the engines lack, a declaration that contradicts itself, a name already taken."""
    if isinstance(declaration, Mapping):
        system = rule_system_from_data(declaration)
    elif isinstance(declaration, RuleSystem):
        system = declaration
    else:
        _fail(f"a rule system is a RuleSystem or a mapping of its fields, not {declaration!r}")
    if _SYSTEMS.get(system.name) == system:
        return _SYSTEMS[system.name]
    if system.name in _SYSTEMS:
        _fail(
            f"name: preset {system.name!r} is already declared (declared: "
            f"{', '.join(_SYSTEMS)}); give the house rule a name of its own"
        )
    check_rule_system(system)
    _SYSTEMS[system.name] = system
    return system


def register_rules_file(path: str | Path) -> tuple[str, ...]:
    """Register the rule systems a YAML file declares (one mapping, or a list of them); their
    names. A ValueError names the file and the problem. The file is also listed in
    ``RULES_FILES_VARIABLE``, so that the processes this one starts (evaluation and training
    workers) register it when they import the package."""
    import yaml  # only a rules file needs it

    path = Path(path).resolve()
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the rules file ({exc})") from None
    declarations = data if isinstance(data, list) else [data]
    try:
        names = tuple(register_preset(d).name for d in declarations)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    listed = _rules_files()
    if str(path) not in listed:
        os.environ[RULES_FILES_VARIABLE] = os.pathsep.join([*listed, str(path)])
    return names


def _rules_files() -> list[str]:
    return [p for p in os.environ.get(RULES_FILES_VARIABLE, "").split(os.pathsep) if p]


def rule_system_from_data(data: Mapping[str, object]) -> RuleSystem:
    """A :class:`RuleSystem` from plain data (a YAML file's mapping): the dataclass's fields,
    with cards and ranks written as a player writes them (``"Q"``, ``"QS"``, ``"JK"``) and
    ``base``, a declared rule system whose declaration the others change."""
    if not isinstance(data, Mapping):
        _fail(f"a rule system declaration is a mapping of fields, not {data!r}")
    unknown = sorted(set(map(str, data)) - set(_FIELDS))
    if unknown:
        _fail(f"unknown field(s) {', '.join(unknown)}; valid fields: {', '.join(_FIELDS)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
        _fail(f"name: a rule system's name is a lower-case identifier, not {name!r}")
    base = _base(data.get("base"))
    missing = [key for key in ("engine", "players") if base is None and key not in data]
    if missing:
        _fail(f"{', '.join(missing)}: needed without a base (base: one of {', '.join(_SYSTEMS)})")
    players = data.get("players", base.players if base else None)
    if not (
        isinstance(players, list | tuple)
        and len(players) == 2
        and all(int_value(p) is not None for p in players)
    ):
        _fail(f"players: [fewest, most], from 2 to {MAX_PLAYERS} players, not {players!r}")
    lo, hi = map(int, players)
    start = base or RuleSystem(name, name, data["engine"], (lo, hi))
    if data.get("engine", start.engine) != start.engine:
        _fail(f"engine: {data['engine']!r} contradicts base {start.name!r}, of {start.engine!r}")
    given = _mapping(data.get("rules", {}), "rules")
    rules = {**start.rules, **_data_rules(given, "rules", start.rules)}
    # the base's rules at its player counts the declaration keeps, but those it sets for all
    by_players = {
        n: {k: v for k, v in r.items() if k not in given}
        for n, r in start.by_players.items()
        if lo <= n <= hi
    }
    for n, changes in _mapping(data.get("by_players", {}), "by_players").items():
        if int_value(n) is None:
            _fail(f"by_players: the keys are player counts, not {n!r}")
        more = _data_rules(changes, f"by_players.{n}", rules)
        by_players[int(n)] = {**by_players.get(int(n), {}), **more}
    points = _mapping(data.get("card_points", {}), "card_points")
    cards = _mapping(data.get("cards", {}), "cards")
    return replace(
        start,
        name=name,
        about=str(data.get("about") or (f"house rules over {base.name}" if base else name)),
        players=(lo, hi),
        rules=rules,
        by_players={n: r for n, r in by_players.items() if r},
        partnerships_at=tuple(data.get("partnerships_at", start.partnerships_at)),
        two_decks_from=data.get("two_decks_from", start.two_decks_from),
        card_points={
            **start.card_points,
            **{_card(c, "card_points"): p for c, p in points.items()},
        },
        cards={
            **start.cards,
            **{_card_key(c): _card_function_data(c, f) for c, f in cards.items()},
        },
        options=_data_options(data["options"]) if "options" in data else start.options,
        search={**start.search, **_mapping(data.get("search", {}), "search")},
    )


def _base(name: object) -> RuleSystem | None:
    if name is None:
        return None
    if not isinstance(name, str) or name not in _SYSTEMS:
        _fail(f"base: {name!r} is not a declared rule system; valid: {', '.join(_SYSTEMS)}")
    return _SYSTEMS[name]


def _mapping(value: object, where: str) -> Mapping:
    if not isinstance(value, Mapping):
        _fail(f"{where}: a mapping, not {value!r}")
    return value


def _card(code: object, where: str) -> int:
    try:
        return parse_card(code)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _card_key(code: object) -> str:
    """A ``cards`` key: a rank (every card of it) or a card's code."""
    text = str(code).upper()
    if text in RANKS:
        return text
    return (
        RANKS[rank_of(_card(text, "cards"))] + text[-1]
        if text != "JK"
        else _fail("cards: the Joker's play is the engine's (transparent); name a rank or a card")
    )


def _card_function_data(code: object, data: object) -> CardFunction:
    where = f"cards.{code}"
    data = _mapping(data, where)
    unknown = sorted(set(map(str, data)) - set(_CARD_FIELDS))
    if unknown:
        _fail(f"{where}: unknown field(s) {', '.join(unknown)}; valid: {', '.join(_CARD_FIELDS)}")
    values = dict(data)
    if "draws" in values:
        draws = values["draws"]
        if not isinstance(draws, list | tuple) or not all(
            isinstance(d, list | tuple) and len(d) == 2 for d in draws
        ):
            _fail(
                f"{where}.draws: a list of [seat, cards] (seat 1: the next player, -1: the "
                f"previous one, 'others': every other player), not {draws!r}"
            )
        values["draws"] = tuple((OTHERS if s == "others" else s, c) for s, c in draws)
    return CardFunction(**values)


def _by_rank(value: object, where: str, start: tuple, check=None) -> tuple:
    """A per-rank table (A..K, then the Joker) from a mapping of rank codes over ``start``, or a
    full list."""
    if isinstance(value, list | tuple):
        return tuple(value)
    table = list(start)
    for rank, entry in _mapping(value, where).items():
        code = str(rank).upper()
        if code not in _RANK_CODES:
            _fail(f"{where}: {rank!r} is not a rank; valid: {', '.join(_RANK_CODES)}")
        table[_RANK_CODES.index(code)] = entry
    return tuple(table)


def _kinds(value: object, where: str) -> tuple[int, ...]:
    """Card kinds from codes: a rank (``"8"``: every 8) or a card (``"AS"``, ``"JK"``)."""
    if not isinstance(value, list | tuple):
        _fail(f"{where}: a list of ranks or cards (e.g. ['8', 'AS', 'JK']), not {value!r}")
    kinds: list[int] = []
    for code in value:
        text = str(code).upper()
        if text in RANKS:
            kinds.extend(make_kind(RANKS.index(text), s) for s in range(4))
        else:
            kinds.append(_card(text, where))
    return tuple(kinds)


def _data_rules(data: object, where: str, current: dict) -> dict:
    """A declaration's rules from plain data: per-rank tables by rank code, cards by code."""
    rules = dict(_mapping(data, where))
    for name in ("schedule", "all_threes"):
        if isinstance(rules.get(name), list):
            rules[name] = tuple(rules[name])
    if "points" in rules:
        rules["points"] = _by_rank(
            rules["points"], f"{where}.points", current.get("points", CRATES_POINTS)
        )
    if "card_roles" in rules:
        roles = _by_rank(
            rules["card_roles"], f"{where}.card_roles", current.get("card_roles", ("",) * 14)
        )
        rules["card_roles"] = tuple("" if r == "regular" else r for r in roles)
    if "demands" in rules:
        rules["demands"] = _by_rank(
            rules["demands"], f"{where}.demands", current.get("demands", (0,) * 14)
        )
    for name in ("wild_kinds", "free_after_kinds"):
        if name in rules:
            rules[name] = _kinds(rules[name], f"{where}.{name}")
    return rules


def _data_options(data: object) -> tuple[Option, ...]:
    """The options a declaration offers: a list of names, or names and their defaults."""
    if isinstance(data, list | tuple):
        data = dict.fromkeys(data)
    chosen = []
    for name, default in _mapping(data, "options").items():
        if name not in OPTIONS:
            _fail(
                f"options: {name!r} is not an option the engines have; valid: {', '.join(OPTIONS)}"
            )
        option = OPTIONS[name]
        chosen.append(option if default is None else replace(option, default=_typed(name, default)))
    return tuple(chosen)


def check_rule_system(system: RuleSystem) -> None:
    """Refuse a declaration the engines cannot play, naming the field and the choices (what
    ``register_preset`` checks; every shipped declaration passes)."""
    if system.engine not in _ENGINE_CHOICES:
        _fail(f"engine: {system.engine!r} is not an engine; valid: {', '.join(_ENGINE_CHOICES)}")
    players = system.players
    if not (
        isinstance(players, tuple)
        and len(players) == 2
        and all(int_value(p) is not None for p in players)
        and 2 <= players[0] <= players[1] <= MAX_PLAYERS
    ):
        _fail(f"players: [fewest, most], from 2 to {MAX_PLAYERS} players, not {players!r}")
    lo, hi = players
    counts = range(lo, hi + 1)
    if not set(system.partnerships_at) <= {4} & set(counts):
        _fail(
            f"partnerships_at: the engines seat partnerships at 4 players only, not "
            f"{list(system.partnerships_at)}"
        )
    two = system.two_decks_from
    if two is not None and (int_value(two) is None or two < 2):
        _fail(f"two_decks_from: a player count (2 or more), or none, not {two!r}")
    for option in system.options:
        if OPTIONS.get(option.name) != replace(option, default=OPTIONS[option.name].default):
            _fail(
                f"options: {option.name!r} is not an option the engines have; valid: "
                f"{', '.join(OPTIONS)}"
            )
        if option.engine not in (None, system.engine):
            _fail(
                f"options: {option.name!r} is a rule of the {option.engine} engine, which the "
                f"{system.engine} engine does not play"
            )
        _typed(option.name, option.default)
    _check_rules(system.rules, "rules")
    for n, rules in system.by_players.items():
        if n not in counts:
            _fail(f"by_players: {n!r} is not a player count of {system.name} ({lo} to {hi})")
        _check_rules(rules, f"by_players.{n}")
    if system.cards and system.engine != "crates":
        _fail(
            "cards: card functions are the crates engine's; the eights engine reads "
            "rules.card_roles, demands and wild_kinds"
        )
    for code, function in system.cards.items():
        _check_card_function(code, function)
    for kind, points in system.card_points.items():
        if int_value(kind) is None or not 0 <= kind <= JOKER or int_value(points) is None:
            _fail(f"card_points: a card kind's points, not {kind!r}: {points!r}")
    unknown = sorted(set(system.search) - set(SEARCH_SETTINGS))
    if unknown:
        _fail(
            f"search: unknown setting(s) {', '.join(unknown)}; valid: {', '.join(SEARCH_SETTINGS)}"
        )
    for n in counts:
        chosen = Choices(system.name, n, tuple(sorted(_option_defaults(system).items())))
        try:
            _check_resolved(_resolve(system, chosen))
        except ValueError as exc:
            raise ValueError(f"{system.name} at {n} players: {exc}") from None


def _check_rules(rules: Mapping[str, object], where: str) -> None:
    """Each declared rule's type and value (what they mean together: ``_check_resolved``)."""
    for name, value in rules.items():
        if name not in DECLARABLE:
            _fail(
                f"{where}: {name!r} is not a rule the engines read; valid: {', '.join(DECLARABLE)}"
            )
        default, at = Ruleset.__dataclass_fields__[name].default, f"{where}.{name}"
        if name in _CHOICES:
            if value not in _CHOICES[name]:
                choices = ", ".join(map(repr, _CHOICES[name]))
                _fail(f"{at}: {value!r} is not a mechanic the engines have; valid: {choices}")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                _fail(f"{at}: true or false, not {value!r}")
        elif isinstance(default, int):
            if int_value(value) is None:
                _fail(f"{at}: an int, not {value!r}")
        elif name == "schedule":
            if not value or not all(int_value(d) is not None and d >= 1 for d in value):
                _fail(f"{at}: a non-empty list of positive ints (cards dealt), not {value!r}")
        elif name in ("points", "demands"):
            if len(value) != 14 or any(int_value(p) is None for p in value):
                _fail(f"{at}: an int for each rank A..K and the Joker, not {value!r}")
        elif name == "card_roles":
            if len(value) != 14 or any(r not in ROLES for r in value):
                _fail(
                    f"{at}: a role for each rank A..K and the Joker, each one of "
                    f"{', '.join(r or 'regular' for r in ROLES)}; not {value!r}"
                )
        elif name in ("wild_kinds", "free_after_kinds", "all_threes") and any(
            int_value(k) is None for k in value
        ):
            _fail(f"{at}: a list of ints, not {value!r}")


def _check_card_function(code: str, function: CardFunction) -> None:
    where = f"cards.{code}"
    if not isinstance(function, CardFunction):
        _fail(f"{where}: a CardFunction, not {function!r}")
    _kinds_of(code)  # a rank or a card
    for seat, cards in function.draws:
        if int_value(seat) is None or seat < -1 or int_value(cards) is None or cards < 1:
            _fail(
                f"{where}.draws: [seat, cards] with seat -1 (the previous player), 1, 2, ... or "
                f"'others' and cards >= 1, not {[seat, cards]}"
            )
    if function.next_player not in (1, 2):
        _fail(
            f"{where}.next_player: 1 (the next player) or 2 (the next one loses the turn), "
            f"not {function.next_player!r}"
        )
    if function.skips and function.next_player != 2:
        _fail(f"{where}: skips contradicts next_player {function.next_player} (a skip is 2)")


def _check_resolved(rules: Ruleset) -> None:
    """What the resolved rules must be together for their engine to play them."""
    engine, scoring, sign = _GAME_ENDS[rules.game_end]
    if rules.engine != engine:
        ends = [end for end, (e, _, _) in _GAME_ENDS.items() if e == rules.engine]
        _fail(
            f"rules.game_end: the {rules.engine} engine ends a game by {', '.join(ends)}, not "
            f"{rules.game_end!r}"
        )
    if (rules.hand_scoring, rules.point_sign) != (scoring, sign):
        _fail(
            f"rules.hand_scoring {rules.hand_scoring!r} and point_sign {rules.point_sign} "
            f"contradict game_end {rules.game_end!r}, played with hand_scoring {scoring!r} and "
            f"point_sign {sign}"
        )
    if rules.game_end == "target" and rules.target_score <= 0:
        _fail(f"rules.target_score: a game to a target needs one above 0, not {rules.target_score}")
    for name, values in _ENGINE_CHOICES[rules.engine].items():
        if getattr(rules, name) not in values:
            _fail(
                f"rules.{name}: the {rules.engine} engine plays "
                f"{', '.join(map(repr, values))}, not {getattr(rules, name)!r}"
            )
    other = next(e for e in _ENGINE_ONLY if e != rules.engine)
    for name in _ENGINE_ONLY[other]:
        if getattr(rules, name) != Ruleset.__dataclass_fields__[name].default:
            _fail(
                f"rules.{name}: a rule of the {other} engine, which the {rules.engine} engine "
                "does not play"
            )
    if rules.engine == "eights":
        _check_eights_cards(rules)


def _check_eights_cards(rules: Ruleset) -> None:
    if len(rules.card_roles) != 14 or len(rules.demands) != 14:
        _fail("rules.card_roles and rules.demands: one entry for each rank A..K and the Joker")
    for rank, (role, demand) in enumerate(zip(rules.card_roles, rules.demands, strict=True)):
        if (role == "offensive") != (demand > 0):
            _fail(
                f"rules.demands.{_RANK_CODES[rank]}: an offensive card demands cards (> 0) and no "
                f"other card does; it is {role or 'regular'} with demand {demand}"
            )
    for name in ("wild_kinds", "free_after_kinds"):
        if any(not 0 <= k <= JOKER for k in getattr(rules, name)):
            _fail(f"rules.{name}: card kinds 0..{JOKER}")


for _path in _rules_files():  # a parent process's house rules (register_rules_file)
    register_rules_file(_path)

"""Rule systems as data.

A ``Ruleset`` is an immutable, validated description of one rule system. It holds the user-facing
options (the preset, the player count and every adjunct or interpretation flag of RULES.md §1.14)
and the concrete rules they resolve to (who a 7 hits, the point table, the three-scoring
algorithm, the pressure progression, ...). The game engine reads only the resolved fields, so a
preset is a value, never an ``if preset == ...`` in the engine.

Build one with ``make_ruleset("kreights", num_players=3, seven_card_format=True)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from .cards import Deck

STANDARD_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
CRAITS_SHORT_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1)

# Points by rank index (A, 2, ..., 10, J, Q, K), then the Joker; RULES.md §1.8.
_CRATES_POINTS = (1, 20, 3, 15, 30, 30, 20, 50, 30, 25, 10, 10, 10, 40)
POINT_TABLES = {
    "crates": _CRATES_POINTS,
    "chicago1970": _CRATES_POINTS,
    "kreights": (1, 20, 3, 20, 30, 30, 15, 50, 40, 25, 10, 10, 10, 40),
    "craits": _CRATES_POINTS,
    "creights": (1, 20, 3, 15, 30, 30, 25, 50, 30, 25, 10, 10, 10, 40),
}

PRESETS = ("crates", "chicago1970", "kreights", "craits", "creights")
# Presets of RULES.md that land with the second rules issue; named here so the error says so.
PLANNED_PRESETS = ("crazy_eights", "zimbabwe")

# Allowed player counts per preset (RULES.md §1.1, C-32).
PLAYER_COUNTS = {
    "crates": range(2, 6),
    "chicago1970": range(3, 6),
    "kreights": range(3, 6),
    "craits": range(2, 13),
    "creights": range(2, 5),
}

# Which presets an adjunct or interpretation flag belongs to (RULES.md §1.14). chicago1970 inherits
# the Boston adjuncts ("INH"); pressure_cap_20 is allowed wherever pressures double.
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
}
# Flags that are on by default where they belong.
_DEFAULT_ON = {"kreights_three_mutual_cancel"}
# Flags whose rules are not in the engine yet (the misplay-penalty mode and the Skill-hand World
# Series come with the second rules issue). Asking for them is an error, never a silent no-op.
_NOT_YET = {
    "skill_hand_world_series",
    "kreights_penalty_cards",
    "kreights_revoke_penalty",
    "creights_dumbass_cards",
}

FIRST_DEALER_RULES = ("random", "low_card")
MISPLAY_MODES = ("reject",)


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

    # --- what that resolves to (set by make_ruleset) ------------------------------------------
    schedule: tuple[int, ...] = STANDARD_SCHEDULE
    dealer_rule: str | int = "random"
    partnerships: bool = False
    decks: int = 1
    jokers: int = 0
    low_card_ties: str = "suit"  # kreights: suit order breaks ties; craits: tied players redraw
    points: tuple[int, ...] = _CRATES_POINTS
    three_scoring: str = "crates"  # crates | kreights | punitive | cover8 | punitive_cover8
    all_threes: tuple[int, ...] = ()  # scores of 1, 2, ... threes alone; beyond it -50 each
    pressure: str = "double"  # double | cap20 | flat5
    seven_hits: str = "nbo"  # nbo | next
    jack_hits_prev: bool = False  # 2/3-player Boston J: the previous player takes a card
    count_continues_hand: bool = False  # creights: play goes on after a count if nobody is out
    stars: bool = False
    nine_starter_any_suit: bool = False  # creights: a 9 starter may name any suit
    one_card_per_turn: bool = False  # creights: the call is per turn, made with the first play
    one_card_last_six: bool = False  # chicago1970: a last-card 6 needs the call
    penalty_drawn_at_end: bool = False  # kreights, creights: an unserved penalty is drawn
    deck: Deck = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def num_teams(self) -> int:
        return 2 if self.partnerships else self.num_players

    def team_of(self, seat: int) -> int:
        """Partnership of a seat (seats 0 & 2 are team 0 in 4-player crates), else the seat."""
        return seat % 2 if self.partnerships else seat

    @property
    def num_hands(self) -> int:
        return len(self.schedule)

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


OPTION_NAMES = frozenset(
    {"deal_schedule", "first_dealer", "misplay_mode", "max_decisions_per_hand", *ADJUNCT_PRESETS}
)


def _fail(message: str) -> None:
    raise ValueError(message)


def make_ruleset(preset: str = "crates", num_players: int | None = None, **options) -> Ruleset:
    """Validated ruleset for ``preset`` with ``num_players`` and keyword overrides.

    Raises ``ValueError`` naming the problem and the valid choices: an unknown preset or option,
    a player count the preset does not allow, an adjunct of another preset, a deal that does not
    fit the deck.
    """
    if preset not in PRESETS:
        hint = (
            f" ({preset!r} is specified in RULES.md but not implemented yet)"
            if preset in PLANNED_PRESETS
            else ""
        )
        _fail(f"unknown preset {preset!r}{hint}; valid presets: {', '.join(PRESETS)}")
    n = 4 if num_players is None else num_players
    allowed = PLAYER_COUNTS[preset]
    if not isinstance(n, int) or n not in allowed:
        _fail(
            f"preset {preset!r} is played by {allowed.start} to {allowed.stop - 1} players, "
            f"not {num_players!r}"
        )
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        _fail(
            f"unknown ruleset option(s) {', '.join(map(repr, unknown))}; valid options: "
            + ", ".join(sorted(OPTION_NAMES))
        )
    for name, value in options.items():
        if name in ADJUNCT_PRESETS and value and preset not in ADJUNCT_PRESETS[name]:
            _fail(
                f"option {name!r} belongs to preset(s) {', '.join(ADJUNCT_PRESETS[name])}, "
                f"not {preset!r}"
            )
        if name in _NOT_YET and value:
            _fail(
                f"option {name!r} is specified in RULES.md but not implemented yet "
                "(it needs the misplay-penalty mode or the Skill-hand World Series)"
            )
    flags = {name: preset in ADJUNCT_PRESETS[name] for name in _DEFAULT_ON}
    flags.update(options)
    rs = Ruleset(preset=preset, num_players=n, **flags)
    return _resolve(rs)


def _resolve(rs: Ruleset) -> Ruleset:
    n, preset = rs.num_players, rs.preset
    if rs.misplay_mode not in MISPLAY_MODES:
        _fail(
            f"misplay_mode {rs.misplay_mode!r} is not available; valid: {', '.join(MISPLAY_MODES)} "
            "('penalize' is specified in RULES.md but not implemented yet)"
        )
    if not (
        rs.first_dealer is None
        or rs.first_dealer in FIRST_DEALER_RULES
        or (isinstance(rs.first_dealer, int) and 0 <= rs.first_dealer < n)
    ):
        _fail(
            f"first_dealer {rs.first_dealer!r} is not valid; use one of "
            f"{', '.join(FIRST_DEALER_RULES)} or a seat 0..{n - 1}"
        )
    if not isinstance(rs.max_decisions_per_hand, int) or rs.max_decisions_per_hand < 1:
        _fail(f"max_decisions_per_hand must be a positive int, not {rs.max_decisions_per_hand!r}")
    if isinstance(rs.kreights_mulligan, bool | int):
        _fail(f"kreights_mulligan takes a list of seats, not {rs.kreights_mulligan!r}")
    bad_seats = [s for s in rs.kreights_mulligan if not (isinstance(s, int) and 0 <= s < n)]
    if bad_seats:
        _fail(f"kreights_mulligan takes seats 0..{n - 1}, not {bad_seats}")
    if rs.seven_card_format and rs.craits_short_game:
        _fail("seven_card_format and craits_short_game cannot both be set")

    schedule = STANDARD_SCHEDULE if rs.deal_schedule is None else rs.deal_schedule
    if isinstance(schedule, int | str) or not hasattr(schedule, "__iter__"):
        _fail(f"deal_schedule must be a list of positive ints, not {schedule!r}")
    schedule = tuple(schedule)
    if rs.seven_card_format:
        schedule = (7, 6, 5, 4, 3, 2) + (1,) * n + (2, 3, 4, 5, 6, 7)
    elif rs.craits_short_game:
        schedule = CRAITS_SHORT_SCHEDULE
    if not schedule or not all(isinstance(d, int) and d >= 1 for d in schedule):
        _fail(f"deal_schedule must be a non-empty list of positive ints, not {rs.deal_schedule!r}")

    decks = 2 if (preset == "kreights" and n == 5) or (preset == "craits" and n > 5) else 1
    jokers = 2 if rs.standig_jokers else 0
    deck = Deck.build(decks, jokers, rs.no_kings_queens)
    if n * max(schedule) + 1 > deck.size:
        _fail(
            f"a deal of {max(schedule)} cards to {n} players plus a starter needs "
            f"{n * max(schedule) + 1} cards, but the deck has {deck.size}"
        )

    small = n <= 3
    if rs.craits_punitive_threes and rs.craits_three_covers_eight:
        three = "punitive_cover8"
    elif rs.craits_punitive_threes or preset == "creights":
        three = "punitive"
    elif rs.craits_three_covers_eight:
        three = "cover8"
    elif preset == "kreights" and rs.kreights_three_mutual_cancel:
        three = "kreights"
    else:
        three = "crates"

    if preset == "kreights" and not rs.kreights_pressure_doubling:
        pressure = "flat5"
    elif rs.pressure_cap_20:
        pressure = "cap20"
    else:
        pressure = "double"

    dealer_rule = rs.first_dealer
    if dealer_rule is None:  # kreights [001:19] and craits [002:18] draw for deal
        dealer_rule = "low_card" if preset in ("kreights", "craits") else "random"

    return replace(
        rs,
        deal_schedule=None if rs.deal_schedule is None else tuple(rs.deal_schedule),
        kreights_mulligan=tuple(rs.kreights_mulligan),
        schedule=schedule,
        dealer_rule=dealer_rule,
        partnerships=preset == "crates" and n == 4,
        decks=decks,
        jokers=jokers,
        low_card_ties="redraw" if preset == "craits" else "suit",
        points=POINT_TABLES[preset],
        three_scoring=three,
        all_threes=(-50, -75, -100, -200) if preset == "kreights" else (),  # [001:41]
        pressure=pressure,
        seven_hits="next" if small and preset != "kreights" else "nbo",
        jack_hits_prev=small and preset in ("crates", "chicago1970", "creights"),
        count_continues_hand=preset == "creights" or rs.craits_continue_after_count,
        stars=preset == "kreights",
        nine_starter_any_suit=preset == "creights",
        one_card_per_turn=preset == "creights",
        one_card_last_six=preset == "chicago1970",
        penalty_drawn_at_end=preset in ("kreights", "creights"),
        deck=deck,
    )

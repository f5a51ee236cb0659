"""Every rule system the package plays, each declared once, top to bottom.

A rule system is a :class:`RuleSystem` value: who plays it (player counts, partnerships), the
deck (packs, Jokers), the resolved rules the engines read (``rules``: the fields of
``crates_env.rules.Ruleset``, with changes at some player counts in ``by_players``), what each
card does (the Crates family's ``cards``, a ``CardFunction`` per rank or card; the Crazy Eights
family's ``card_roles``, ``demands`` and ``wild_kinds`` in ``rules``), each card kind's points,
the options a user may set (:class:`Option`: type, default, allowed values) and the settings of
its search teacher (``agents.search``). ``crates_env.rules`` resolves a declaration and the
user's options into the ``Ruleset`` the engines play; nothing else names a preset.

A house rule is one more declaration (docs/variants.md): ``crates_env.register_preset`` takes a
``RuleSystem``, or the same fields as plain data (a mapping, a YAML file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import ACE, EIGHT, JOKER, SPADES, make_kind

STANDARD_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
CRAITS_SHORT_SCHEDULE = (8, 7, 6, 5, 4, 3, 2, 1)
SHWS_SCHEDULE = (2, 1, 1, 2)  # "the sequence is 2-1-1-2" [000:160]
REVOKE_POINTS = 1_000_000_000  # "1,000M points" [001:53] (C-24)
MAX_PLAYERS = 12  # the most players any table seats (craits' 12)
ACE_OF_SPADES = make_kind(ACE, SPADES)
EIGHTS = tuple(make_kind(EIGHT, s) for s in range(4))


@dataclass(frozen=True)
class CardFunction:
    """What a card of the Crates family does when played, as data (docs/rules.md §1.3-1.4).

    Seats are counted in the direction of play from the player of the card: 1 is the next
    player, 2 the one after, -1 the previous player; ``OTHERS`` is every other player, in order
    of play.
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


OTHERS = 0  # ``CardFunction.draws``' seat for "every other player, in order of play" (a 5)
NO_FUNCTION = CardFunction()


@dataclass(frozen=True)
class Option:
    """A choice a user makes at the table (docs/rules.md §1.14), where a rule system offers it.

    ``kind``: ``"bool"`` (a switch), ``"int"`` (from ``low`` to ``high``) or ``"seats"`` (a list
    of seats). ``default``: its value where offered and not set; ``off``: its value elsewhere
    (what the table layout reads for a rule system without it). What it does is the resolver's
    (``crates_env.rules``), read by the option's name.
    """

    name: str
    help: str
    kind: str = "bool"
    default: object = False
    off: object = False
    low: int = 0
    high: int = 0
    penalty: bool = False  # a misplay penalty: needs misplay_mode="penalize" (P1)
    players: int | None = None  # the only player count it is played at (and the default one)
    excludes: tuple[str, ...] = ()  # options it cannot be set with
    engine: str | None = "crates"  # the engine whose mechanic it changes (None: either)


# --- the options ------------------------------------------------------------------------------
NO_KINGS_QUEENS = Option("no_kings_queens", "44-card deck")
STANDIG_JOKERS = Option("standig_jokers", "two transparent Jokers that send the turn back one seat")
PRESSURE_CAP_20 = Option("pressure_cap_20", "pressures 5, 10, 20, 40, 60, 80, ...")
QUEEN_DRAWS_TWO = Option("queen_draws_two", "a Queen makes the next player draw two")
SKILL_HAND_WORLD_SERIES = Option(
    "skill_hand_world_series", "2-1-1-2 with Figgy, a dummy (seat 2)", players=3
)
SEVEN_CARD_FORMAT = Option(
    "seven_card_format", "7..2, one 1-card hand per player, 2..7", excludes=("craits_short_game",)
)
KREIGHTS_PENALTY_CARDS = Option(
    "kreights_penalty_cards", "a misplayed card is exposed", penalty=True
)
KREIGHTS_REVOKE_PENALTY = Option(
    "kreights_revoke_penalty", "a revoke costs 1,000M points", penalty=True
)
KREIGHTS_MULLIGAN = Option(
    "kreights_mulligan", "those seats' first missed call is forgiven", "seats", (), ()
)
KREIGHTS_BAROMETER = Option("kreights_barometer", "logs the leader after each deal")
KREIGHTS_FREE_PLAY_AFTER_COUNT = Option(
    "kreights_free_play_after_count", "after a count the next player may play any card (C-13)"
)
KREIGHTS_THREE_MUTUAL_CANCEL = Option(
    "kreights_three_mutual_cancel", "two threes may cancel each other (C-5)", default=True
)
KREIGHTS_PRESSURE_DOUBLING = Option(
    "kreights_pressure_doubling", "pressures double instead of a flat 5 (C-7)"
)
CRAITS_FACE_CARDS = Option("craits_face_cards", "J runs draw 2N, Q♠ draws 5, K plays three more")
CRAITS_SHORT_GAME = Option("craits_short_game", "hands of 8..1")
CRAITS_DEALER_FOLLOWS_DIRECTION = Option(
    "craits_dealer_follows_direction", "after a counter-clockwise end the deal moves right"
)
CRAITS_ONE_CARD_ON_DEAL = Option(
    "craits_one_card_on_deal", "in the 1-card hand every player must call"
)
CRAITS_IDIOT_CARD = Option("craits_idiot_card", "a missed call draws one card at once")
CRAITS_CONTINUE_AFTER_COUNT = Option(
    "craits_continue_after_count", "play goes on after a count if nobody is out"
)
CRAITS_THREE_COVERS_EIGHT = Option(
    "craits_three_covers_eight", "threes cover anything but threes, eights included"
)
CRAITS_PUNITIVE_THREES = Option("craits_punitive_threes", "a three with nothing to cover: 100")
CRAITS_GO_OUT_MINUS_10 = Option("craits_go_out_minus_10", "going out scores -10 (C-15)")
CREIGHTS_DUMBASS_CARDS = Option(
    "creights_dumbass_cards", "misplays, bad calls cost a dumbass card", penalty=True
)
CRAZY_EIGHTS_EIGHT_MUST_CHANGE_SUIT = Option(
    "crazy_eights_eight_must_change_suit", "an 8 must name another suit (C-22)", engine="eights"
)
# SILENT→ a standard pack has two
ZIMBABWE_JOKERS = Option(
    "zimbabwe_jokers", "the Jokers of a pack", "int", 2, 0, low=0, high=8, engine=None
)
# "Five to 8 cards" [003:55]; SILENT→ 5, the parent game's count
DEAL_SIZE = Option(
    "deal_size", "cards dealt to each player", "int", 5, None, low=5, high=8, engine=None
)
BOSTON_OPTIONS = (NO_KINGS_QUEENS, STANDIG_JOKERS, PRESSURE_CAP_20, QUEEN_DRAWS_TWO)


@dataclass(frozen=True)
class RuleSystem:
    """One rule system, declared (the module's docstring)."""

    name: str
    about: str
    engine: str  # "crates" (the Crates family) or "eights" (the Crazy Eights family)
    players: tuple[int, int]  # the fewest and the most players
    rules: Mapping[str, object] = field(default_factory=dict)  # Ruleset fields, resolved
    by_players: Mapping[int, Mapping[str, object]] = field(default_factory=dict)  # per count
    partnerships_at: tuple[int, ...] = ()  # the counts played as two partnerships (0&2 v 1&3)
    two_decks_from: int | None = None  # the count from which two packs are used
    card_points: Mapping[int, int] = field(default_factory=dict)  # kinds off their rank's points
    cards: Mapping[str, CardFunction] = field(default_factory=dict)  # rank or card code: function
    options: tuple[Option, ...] = ()
    search: Mapping[str, object] = field(default_factory=dict)  # agents.search.SearchSettings


# What the Crates family's ranks do (docs/rules.md §1.4), seats counted from the player in the
# direction of play. The 7 hits the next player where ``seven_hits`` is "next"; a J, a Q and a
# K do something where a rule or an option says so (jack_hits_prev, queen_draws_two,
# craits_face_cards).
CRATES_CARDS = {
    "4": CardFunction(next_player=2, skips=True),  # the next player is skipped
    "5": CardFunction(draws=((OTHERS, 1),)),  # everybody else takes one, in order [000:87]
    "6": CardFunction(again=True),  # the player plays again
    "7": CardFunction(draws=((2, 1),)),  # the player after next takes one
    "10": CardFunction(reverses=True),
}
# Points by rank A, 2, ..., 10, J, Q, K, then the Joker (docs/rules.md §1.8).
CRATES_POINTS = (1, 20, 3, 15, 30, 30, 20, 50, 30, 25, 10, 10, 10, 40)
# A 7 hits the next player (not the one after), a J the previous one, at 2 and 3 players.
_SMALL_TABLE = {"seven_hits": "next", "jack_hits_prev": True}
_SEVEN_HITS_NEXT = {"seven_hits": "next"}
# The Crates variants' decisions that matter come with the stock's end and its pressures: their
# teacher leaves HeuristicAgent only for a sure gain (docs/experiments/2026-11-27-teacher.md).
_SURE_NEAR_THE_END = {"z": 2.0, "deepen": 7}
# The Eights family has many near-equal moves (a draw is always legal) and no doubling to come:
# its teacher looks from the first move but leaves HeuristicAgent only for a sure gain.
_SURE_FROM_THE_FIRST_MOVE = {"stock_max": "all", "z": 2.5, "deepen": 7}

CRATES = RuleSystem(
    name="crates",
    about="Boston rules [000]; partnerships with 4 players (0&2 v 1&3)",
    engine="crates",
    cards=CRATES_CARDS,
    players=(2, 5),
    rules={"points": CRATES_POINTS},
    by_players={2: _SMALL_TABLE, 3: _SMALL_TABLE},
    partnerships_at=(4,),
    options=(*BOSTON_OPTIONS, SKILL_HAND_WORLD_SERIES),
)

CHICAGO1970 = RuleSystem(
    name="chicago1970",
    about="[000:134-142]; individuals; a last-card 6 needs the one-card call",
    engine="crates",
    cards=CRATES_CARDS,
    players=(3, 5),
    rules={"points": CRATES_POINTS, "one_card_last_six": True},
    by_players={3: _SMALL_TABLE},
    options=BOSTON_OPTIONS,  # it inherits the Boston adjuncts ("INH")
    search=_SURE_NEAR_THE_END,
)

KREIGHTS = RuleSystem(
    name="kreights",
    about="[001]; stars, Ha-ha-no-star, clean; flat 5-point pressures; low card deals",
    engine="crates",
    cards=CRATES_CARDS,
    players=(3, 5),
    rules={
        "points": (1, 20, 3, 20, 30, 30, 15, 50, 40, 25, 10, 10, 10, 40),
        "dealer_rule": "low_card",  # [001:19]
        "all_threes": (-50, -75, -100, -200),  # [001:41]
        "pressure": "flat5",
        "stars": True,
        "penalty_drawn_at_end": True,
    },
    two_decks_from=5,
    options=(
        SEVEN_CARD_FORMAT,
        KREIGHTS_PENALTY_CARDS,
        KREIGHTS_REVOKE_PENALTY,
        KREIGHTS_MULLIGAN,
        KREIGHTS_BAROMETER,
        KREIGHTS_FREE_PLAY_AFTER_COUNT,
        KREIGHTS_THREE_MUTUAL_CANCEL,
        KREIGHTS_PRESSURE_DOUBLING,
    ),
    search=_SURE_NEAR_THE_END,
)

CRAITS = RuleSystem(
    name="craits",
    about="[002]; two decks above 5 players; low card deals, tied players redraw",
    engine="crates",
    cards=CRATES_CARDS,
    players=(2, 12),
    # low card deals [002:18], tied players draw again
    rules={"points": CRATES_POINTS, "dealer_rule": "low_card", "low_card_ties": "redraw"},
    by_players={2: _SEVEN_HITS_NEXT, 3: _SEVEN_HITS_NEXT},
    two_decks_from=6,
    options=(
        NO_KINGS_QUEENS,
        PRESSURE_CAP_20,
        CRAITS_FACE_CARDS,
        CRAITS_SHORT_GAME,
        CRAITS_DEALER_FOLLOWS_DIRECTION,
        CRAITS_ONE_CARD_ON_DEAL,
        CRAITS_IDIOT_CARD,
        CRAITS_CONTINUE_AFTER_COUNT,
        CRAITS_THREE_COVERS_EIGHT,
        CRAITS_PUNITIVE_THREES,
        CRAITS_GO_OUT_MINUS_10,
    ),
    search=_SURE_NEAR_THE_END,
)

CREIGHTS = RuleSystem(
    name="creights",
    about="[004]; punitive threes; per-turn one-card call; play goes on after a crank",
    engine="crates",
    cards=CRATES_CARDS,
    players=(2, 4),
    rules={
        "points": (1, 20, 3, 15, 30, 30, 25, 50, 30, 25, 10, 10, 10, 40),
        "three_scoring": "punitive",
        "count_continues_hand": True,
        "nine_starter_any_suit": True,
        "one_card_per_turn": True,
        "penalty_drawn_at_end": True,
        "seven_of_diamonds_beer": True,  # [004:21]
    },
    by_players={2: _SMALL_TABLE, 3: _SMALL_TABLE},
    options=(PRESSURE_CAP_20, CREIGHTS_DUMBASS_CARDS),
    search=_SURE_NEAR_THE_END,
)

# The Crazy Eights family [003]: threes are plain cards and there are no pressures (§1.9-1.10).
_EIGHTS_FAMILY = {"three_scoring": "none", "pressure": "none"}

CRAZY_EIGHTS = RuleSystem(
    name="crazy_eights",
    about="[003:22-49]; only the 8 is special; the winner collects; hands until 50 x players",
    engine="eights",
    players=(2, 7),  # "two to seven players" [003:22] (C-40)
    rules={
        **_EIGHTS_FAMILY,
        "schedule": (5,),  # [003:36]
        "game_end": "target",
        "point_sign": 1,
        "hand_scoring": "winner_collects",
        "empty_stock": "blocked",  # [003:47], E-63
        "draw_rule": "until_play",  # "until willing and able to play" [003:45] (C-54)
        # "Eights score 50, court cards 10 and all other cards face value" [003:47]; no Jokers.
        "points": (1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10, 0),
        # Only the 8 has a function in the basic game [003:38]; by rank A..K then the Joker.
        "card_roles": ("",) * EIGHT + ("declare",) + ("",) * (13 - EIGHT),
        "demands": (0,) * 14,
        "wild_kinds": EIGHTS,
    },
    # 7 cards with 2 players [003:36]; the first to 50 x players wins [003:49] (TV-20)
    by_players={
        n: {"target_score": 50 * n, **({"schedule": (7,)} if n == 2 else {})}
        | (_SEVEN_HITS_NEXT if n <= 3 else {})
        for n in range(2, 8)
    },
    two_decks_from=6,  # [003:24]
    options=(CRAZY_EIGHTS_EIGHT_MUST_CHANGE_SUIT,),
    # 16 re-deals a move were level with HeuristicAgent on 2,000 fresh deals; 64 pass it
    # (docs/experiments/2026-11-28-crazy-eights.md)
    search={**_SURE_FROM_THE_FIRST_MOVE, "samples": 64},
)

# The Zimbabwean card table [003:62-69], by rank A..K then the Joker (§1.4): offensive cards make
# the next player take their demand, defensive ones block a demand.
_ZIMBABWE_ROLES = (
    "defensive", "offensive", "", "", "", "", "skip", "declare", "", "", "reverse", "", "continue",
    "offensive",
)  # fmt: skip

ZIMBABWE = RuleSystem(
    name="zimbabwe",
    about="[003:51-146]; 2 and Joker draw, aces block, 7 skips, J reverses, K continues",
    engine="eights",
    players=(2, 7),  # SILENT→ as crazy_eights, subject to P5
    rules={
        **_EIGHTS_FAMILY,
        "game_end": "last_player",  # [003:146]
        "hand_scoring": "eliminate_highest",  # [003:126] (C-25)
        "empty_stock": "reshuffle",  # [003:126]; nothing to reshuffle: the draw is skipped
        "draw_rule": "one_then_pass",  # [003:57]
        "points": (11, 25, 3, 4, 5, 6, 14, 40, 9, 10, 10, 10, 10, 50),  # [003:130-144]
        "card_roles": _ZIMBABWE_ROLES,
        "demands": (0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5),
        "wild_kinds": (*EIGHTS, JOKER, ACE_OF_SPADES),  # [003:83,103,115]
        "free_after_kinds": (ACE_OF_SPADES,),  # "the next player any suit or rank" [003:115]
        "multi_card_plays": True,  # [003:57] (C-57)
        "in_air": True,  # [003:126] (C-26)
        "eight_counter_keeps_suit": True,  # [003:83]
    },
    by_players={2: _SEVEN_HITS_NEXT, 3: _SEVEN_HITS_NEXT},
    two_decks_from=6,  # SILENT→ as crazy_eights
    card_points={ACE_OF_SPADES: 100},  # "The Ace of Spades has a value of 100" [003:144]
    options=(ZIMBABWE_JOKERS, DEAL_SIZE),
    search=_SURE_FROM_THE_FIRST_MOVE,
)

BUILTIN = (CRATES, CHICAGO1970, KREIGHTS, CRAITS, CREIGHTS, CRAZY_EIGHTS, ZIMBABWE)

"""The engine's state, grouped by what it lives for: the game, the hand, the turn.

A game engine (:class:`crates_env.game.Game`) is its rules, which never change, plus three state
values and two random streams:

- :class:`GameState` lives for the whole game: scores, stars, pressures taken, who is still in,
  the finished hands' results and logs;
- :class:`HandState` lives for one hand: the cards (hands, stock, discard pile), the direction,
  the suit and rank to follow, this hand's pressures and its event log. A new hand starts from a
  new ``HandState`` (``new``), so what resets at each deal is written there once;
- :class:`TurnState` lives for one player's turn: whose it is, the decision asked and what the
  turn has done so far. ``begin`` starts a turn and is the one place that says what resets.

Each family of rules (``crates_env.crates``, ``crates_env.eights``) extends the hand and turn state
with its own fields, and only with those it plays by. Everything is plain data: ``copy()`` gives an
independent copy (``Game.clone`` is built on it). Hands are ``int`` bitmasks over the deck's
physical card ids (``Ruleset.deck``); the stock and the discard pile are lists of ids with their
top card last.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import IntEnum
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from .cards import NUM_KINDS

if TYPE_CHECKING:
    from .events import Event
    from .rules import Ruleset


# How a hand ends (``HandResult.ended_by``); a code is the index here (0: no hand ended), the
# compiled engine's and the env's infos' codes.
HAND_ENDINGS = ("", "out", "count", "pressure", "truncated", "blocked", "stalled")


class Decision(IntEnum):
    """What the player to act is asked."""

    PLAY = 0  # play a card, announce "one card", or draw (Crates family: when no play is legal)
    SUIT = 1  # name the suit after playing an 8 or 9
    STARTER_SUIT = 2  # the dealer names the suit of a wild starter before seeing the hand
    PENALTY_CARD = 3  # kreights: the previous player picks which of p's penalty cards p plays
    PLAY_OR_PASS = 4  # zimbabwe: after drawing, play a legal card or pass
    MORE = 5  # zimbabwe: play another card of the rank just played, or stop
    REVERSE = 6  # zimbabwe: a single J reverses play permanently or for one turn
    DEFLECT = 7  # zimbabwe: the player a 7 skips passes the skip on with a 7, or passes


@dataclass
class HandResult:
    """The outcome of one hand. Lists are per seat unless named per team."""

    hand_index: int
    deal_size: int
    dealer: int
    # one of HAND_ENDINGS: "out", "count", "pressure"; crazy_eights "blocked"; zimbabwe "stalled"
    # (nobody could play or draw for a whole round of turns); "truncated" never reaches a result
    ended_by: str
    went_out: int | None  # the first player to go out, if any
    cards_left: list[list[str]]
    card_points: list[int]  # the value of the cards each seat holds at the end
    pressure_points: list[int]  # per team
    pressures: list[int]  # per team: pressures taken in this hand
    # per team: what the hand adds to its score. Crates family: card points, pressures and
    # revokes; crazy_eights: the points won; zimbabwe: the round's hand totals.
    team_points: list[int]
    stars: list[int]
    clean: list[int] = field(default_factory=list)  # kreights: seats out later in the count
    ha_ha_no_star: bool = False
    revoke_points: list[int] = field(default_factory=list)  # per team (kreights, penalize)
    eliminated: list[int] = field(default_factory=list)  # zimbabwe: seats knocked out
    seat_pressures: list[int] = field(default_factory=list)  # per seat: pressures charged to it


class HandScore(NamedTuple):
    """What a finished hand scored: the part of its ``HandResult`` both engines keep, read by
    the batch interface's ``hand_log`` (evaluation records, the vector env's infos)."""

    hand_index: int
    deal_size: int
    ended_by: str  # one of HAND_ENDINGS
    went_out: int | None
    team_points: tuple[int, ...]  # per team
    pressure_points: tuple[int, ...]  # per team
    seat_pressures: tuple[int, ...]  # per seat

    @classmethod
    def of(cls, result: HandResult) -> HandScore:
        return cls(
            result.hand_index,
            result.deal_size,
            result.ended_by,
            result.went_out,
            tuple(result.team_points),
            tuple(result.pressure_points),
            tuple(result.seat_pressures),
        )


class StateValue:
    """Plain data with an independent ``copy()``: lists and sets are copied, nested state values
    copied in turn; everything else (ints, tuples, events, finished results) is immutable."""

    __slots__ = ()

    def copy(self) -> Self:
        new = object.__new__(type(self))
        for name in _field_names(type(self)):
            value = getattr(self, name)
            kind = type(value)
            if kind is list or kind is set or isinstance(value, StateValue):
                value = value.copy()
            object.__setattr__(new, name, value)
        return new


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@dataclass(slots=True)
class GameState(StateValue):
    """What lives for the whole game."""

    hand_index: int  # the hand being played (0-based)
    dealer: int
    # tuples, replaced when they change (rarely: once a hand, or at a pressure)
    scores: tuple[int, ...]  # per team, cumulative
    stars: tuple[int, ...]  # per seat (kreights)
    pressure_count: tuple[int, ...]  # per team: pressures taken this game (drives their value)
    active: tuple[bool, ...]  # per seat: still in the game (zimbabwe knocks players out)
    last_direction: int = 1  # the direction the last hand ended in (craits' deal may follow it)
    # finished hands, in order; a result and its log are never changed once written
    results: list[HandResult] = field(default_factory=list)
    hand_logs: list[tuple[Event, ...]] = field(default_factory=list)
    over: bool = False
    truncated: bool = False  # stopped by a guard (max_hands, max_decisions_per_hand)

    @classmethod
    def new(cls, rules: Ruleset, hand_index: int, dealer: int) -> Self:
        """A game before its first deal: the rules' starting scores, nothing taken yet."""
        n = rules.num_players
        return cls(
            hand_index=hand_index,
            dealer=dealer,
            scores=tuple(rules.initial_scores),
            stars=(0,) * n,
            pressure_count=(0,) * rules.num_teams,
            active=(True,) * n,
        )


@dataclass(slots=True)
class HandState(StateValue):
    """What lives for one hand, in both families. Build one with ``new``."""

    deal_size: int
    hands: list[int]  # per seat: bitmask of the card ids held
    sizes: list[int]  # per seat: cards held
    stock: list[int]  # card ids, top last
    discard: list[int]  # card ids, bottom first (the last is the top card)
    played: list[int]  # per kind: times played this hand, starter included
    pressure_points: list[int]  # per team, this hand
    pressures: list[int]  # per team: pressures taken this hand
    seat_pressures: list[int]  # per seat: pressures charged to it this hand
    events: list[Event]
    aside: int = 0  # card ids a scripted position left out of play
    direction: int = 1  # 1 clockwise, -1 counter-clockwise
    suit: int | None = None  # the suit to follow (None: nothing to follow)
    rank: int | None = None  # the rank to follow
    free_play: bool = False  # any card may be played
    over: bool = False
    ended_by: str = ""
    went_out: int | None = None  # the player who went out
    decisions: int = 0  # decisions taken this hand (the turn guard counts them)

    @classmethod
    def new(cls, deal_size: int, num_players: int, num_teams: int, events: list[Event]) -> Self:
        """A hand before the deal: empty hands, nothing charged, play clockwise."""
        return cls(
            deal_size=deal_size,
            hands=[0] * num_players,
            sizes=[0] * num_players,
            stock=[],
            discard=[],
            played=[0] * NUM_KINDS,
            pressure_points=[0] * num_teams,
            pressures=[0] * num_teams,
            seat_pressures=[0] * num_players,
            events=events,
        )


@dataclass(slots=True)
class TurnState(StateValue):
    """What lives for one player's turn. ``begin`` starts one, ``decide`` asks a decision."""

    seat: int = 0  # whose turn (and hand) it is
    decision: Decision | None = None  # None between hands and once the game is over
    legal: list[int] | None = None  # the legal actions, once computed
    suit_choices: tuple[int, ...] = ()  # the suits the pending suit decision may name

    def begin(self, seat: int) -> None:
        """``seat``'s turn starts with a play decision."""
        self.seat = seat
        self.decision = Decision.PLAY
        self.legal = None

    def decide(self, seat: int, decision: Decision) -> None:
        self.seat = seat
        self.decision = decision
        self.legal = None

    def stop(self) -> None:
        """No decision: the hand or the game is over."""
        self.decision = None
        self.legal = None


class State(NamedTuple):
    """A game's whole state: ``Game.state``. Read it; change it only through ``Game.apply``."""

    game: Any  # GameState (or a family's subclass)
    hand: Any  # HandState
    turn: Any  # TurnState

"""What happens at the table, as data: the engine's event log.

Every hand keeps a list of :class:`Event` values (``Game.events``, ``Game.hand_logs``). An event
is a kind plus the few facts it carries; ``str(event)`` is the line a person reads ("p1 plays
8S", "pressure p2 +10"). Code that counts or filters reads the fields, never the text: the
wording may change, the fields and kinds do not.

The kinds, the fields each one fills, and its text (``{card}`` is the card's code, ``{suit}`` the
letter of the suit in ``value``):

==================  ===============================  =======================================
kind                fields                           text
==================  ===============================  =======================================
draw_for_deal       seat, card                       p{seat} draws {card} for deal
first_dealer        seat                             p{seat} deals
deal                seat (dealer), value (cards      hand {other}: p{seat} deals {value}
                    each), other (hand number)       cards each
position_set        seat (to play)                   position set, p{seat} to play
turn_starter        seat (dealer), card,             p{seat} turns {card}[, count {value}]
                    value (a count it starts)
play                seat, card, value (the count     p{seat} plays {card}[, count {value}]
                    after it, when one runs)
play_demand         seat, card, value (the demand)   p{seat} plays {card}, demand {value}
play_block          seat, card                       p{seat} plays {card}, blocks
draw                seat, value (cards)              p{seat} draws {value}
draw_short          seat, value (drawn), other       p{seat} draws {value} of {other}:
                    (owed)                           nothing to reshuffle
blocked             seat                             p{seat} cannot draw: the stock is empty,
                                                     the hand is blocked
pressure            seat (charged), value (points),  pressure p{seat} +{value}[ (p{other}'s
                    other (the drawer, if another)   draw)]
reshuffle           value (cards in the new stock)   reshuffle {value}
name_suit           seat, value (suit)               p{seat} names {suit}
announce            seat                             p{seat} announces one card
missed_call         seat                             p{seat} missed the one-card call
mulligan            seat                             p{seat} missed the one-card call
                                                     (mulligan)
idiot_card          seat                             p{seat} takes an idiot card
lose_turn           seat                             p{seat} loses the turn for the missed call
last_six_uncalled   seat                             p{seat} played a last 6 without the call
penalty_at_end      seat                             p{seat} draws the one-card penalty
                                                     before scoring
beer                seat (owes), other (is owed)     p{seat} owes p{other} a beer
skipped             seat                             p{seat} is skipped
direction           value (1 clockwise, -1 not)      direction clockwise | direction reversed
out_in_count        seat                             p{seat} is out, the count goes on
play_goes_on        -                                play goes on
go_out              seat                             p{seat} goes out
revoke              seat, value (points)             p{seat} revokes +{value}
needless_call       seat                             p{seat} announces one card needlessly
invalid_suit        seat, value (suit)               p{seat} names {suit}: not a valid call
penalty_card        seat, card                       p{seat} plays {card} illegally: a
                                                     penalty card
card_returned       seat, card                       p{seat} plays {card} illegally: the
                                                     card is returned
forfeit             seat                             p{seat} forfeits the turn
dumbass_card        seat                             p{seat} takes a dumbass card
penalty_pick        seat (picks), card, other (for)  p{seat} picks {card} for p{other}
miss_turn           seat                             p{seat} misses the turn
pass                seat                             p{seat} passes
stalled             -                                nobody can play or draw
in_air              seat                             p{seat} is in air
in_air_at_end       seat                             p{seat} is in air at the end
suit_kept           value (suit)                     the suit is {suit}
play_again          seat                             p{seat} plays again
jacks_cancel        -                                the jacks cancel out
reverse             -                                direction reversed
reverse_once        other (who plays before it       direction reversed until p{other} has
                    ends)                            played
direction_restored  -                                direction restored
hand_scores         other (hand number), sides       hand {other} scores: p0 +12, p1 +0, ...
team_scores         other (hand number), sides       hand {other} scores: team0 +12, ...
ha_ha               seat                             p{seat}: ha ha, no star
barometer           seat (the leader)                barometer: p{seat} leads
tie_for_highest     value (points), seats            tie for highest ({value}): p1, p2
share_game          seats                            nothing left to draw: p1, p2 share the
                                                     game
knocked_out         seat                             p{seat} is knocked out
hand_truncated      value (decisions)                hand truncated after {value} decisions
                                                     (turn guard)
game_truncated      value (hands)                    game truncated after {value} hands
                                                     (max_hands guard)
==================  ===============================  =======================================

``sides`` is a tuple of ``(seat or team, points)`` pairs; ``seats`` a tuple of seats.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from .cards import SUITS, card_code


class Event(NamedTuple):
    """One thing that happened at the table. Fields a kind does not use are None (or ``()``)."""

    kind: str
    seat: int | None = None  # the player it is about
    card: int | None = None  # a card kind
    value: int | None = None  # the number it carries (cards, count, points, suit, direction)
    other: int | None = None  # a second seat or number (see the module's table)
    sides: tuple[tuple[int, int], ...] = ()  # (seat or team, points) of a hand's scores
    seats: tuple[int, ...] = ()  # the players of a tie or a shared game

    def __str__(self) -> str:
        return _TEXT[self.kind](self)


def _suffix(label: str, value: int | None) -> str:
    return "" if value is None else f", {label} {value}"


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(f"p{s}" for s in seats)


def _scores(who: str, e: Event) -> str:
    return f"hand {e.other} scores: " + ", ".join(f"{who}{t} {v:+d}" for t, v in e.sides)


_TEXT: dict[str, Callable[[Event], str]] = {
    "draw_for_deal": lambda e: f"p{e.seat} draws {card_code(e.card)} for deal",
    "first_dealer": lambda e: f"p{e.seat} deals",
    "deal": lambda e: f"hand {e.other}: p{e.seat} deals {e.value} cards each",
    "position_set": lambda e: f"position set, p{e.seat} to play",
    "turn_starter": lambda e: f"p{e.seat} turns {card_code(e.card)}" + _suffix("count", e.value),
    "play": lambda e: f"p{e.seat} plays {card_code(e.card)}" + _suffix("count", e.value),
    "play_demand": lambda e: f"p{e.seat} plays {card_code(e.card)}, demand {e.value}",
    "play_block": lambda e: f"p{e.seat} plays {card_code(e.card)}, blocks",
    "draw": lambda e: f"p{e.seat} draws {e.value}",
    "draw_short": lambda e: f"p{e.seat} draws {e.value} of {e.other}: nothing to reshuffle",
    "blocked": lambda e: f"p{e.seat} cannot draw: the stock is empty, the hand is blocked",
    "pressure": lambda e: (
        f"pressure p{e.seat} +{e.value}" + ("" if e.other is None else f" (p{e.other}'s draw)")
    ),
    "reshuffle": lambda e: f"reshuffle {e.value}",
    "name_suit": lambda e: f"p{e.seat} names {SUITS[e.value]}",
    "announce": lambda e: f"p{e.seat} announces one card",
    "missed_call": lambda e: f"p{e.seat} missed the one-card call",
    "mulligan": lambda e: f"p{e.seat} missed the one-card call (mulligan)",
    "idiot_card": lambda e: f"p{e.seat} takes an idiot card",
    "lose_turn": lambda e: f"p{e.seat} loses the turn for the missed call",
    "last_six_uncalled": lambda e: f"p{e.seat} played a last 6 without the call",
    "penalty_at_end": lambda e: f"p{e.seat} draws the one-card penalty before scoring",
    "beer": lambda e: f"p{e.seat} owes p{e.other} a beer",
    "skipped": lambda e: f"p{e.seat} is skipped",
    "direction": lambda e: "direction " + ("clockwise" if e.value == 1 else "reversed"),
    "out_in_count": lambda e: f"p{e.seat} is out, the count goes on",
    "play_goes_on": lambda e: "play goes on",
    "go_out": lambda e: f"p{e.seat} goes out",
    "revoke": lambda e: f"p{e.seat} revokes +{e.value}",
    "needless_call": lambda e: f"p{e.seat} announces one card needlessly",
    "invalid_suit": lambda e: f"p{e.seat} names {SUITS[e.value]}: not a valid call",
    "penalty_card": lambda e: f"p{e.seat} plays {card_code(e.card)} illegally: a penalty card",
    "card_returned": lambda e: (
        f"p{e.seat} plays {card_code(e.card)} illegally: the card is returned"
    ),
    "forfeit": lambda e: f"p{e.seat} forfeits the turn",
    "dumbass_card": lambda e: f"p{e.seat} takes a dumbass card",
    "penalty_pick": lambda e: f"p{e.seat} picks {card_code(e.card)} for p{e.other}",
    "miss_turn": lambda e: f"p{e.seat} misses the turn",
    "pass": lambda e: f"p{e.seat} passes",
    "stalled": lambda e: "nobody can play or draw",
    "in_air": lambda e: f"p{e.seat} is in air",
    "in_air_at_end": lambda e: f"p{e.seat} is in air at the end",
    "suit_kept": lambda e: f"the suit is {SUITS[e.value]}",
    "play_again": lambda e: f"p{e.seat} plays again",
    "jacks_cancel": lambda e: "the jacks cancel out",
    "reverse": lambda e: "direction reversed",
    "reverse_once": lambda e: f"direction reversed until p{e.other} has played",
    "direction_restored": lambda e: "direction restored",
    "hand_scores": lambda e: _scores("p", e),
    "team_scores": lambda e: _scores("team", e),
    "ha_ha": lambda e: f"p{e.seat}: ha ha, no star",
    "barometer": lambda e: f"barometer: p{e.seat} leads",
    "tie_for_highest": lambda e: f"tie for highest ({e.value}): {_seats(e.seats)}",
    "share_game": lambda e: f"nothing left to draw: {_seats(e.seats)} share the game",
    "knocked_out": lambda e: f"p{e.seat} is knocked out",
    "hand_truncated": lambda e: f"hand truncated after {e.value} decisions (turn guard)",
    "game_truncated": lambda e: f"game truncated after {e.value} hands (max_hands guard)",
}
EVENT_KINDS = frozenset(_TEXT)

# Every distinct event is made once and shared: a log then holds references to a few thousand
# immutable values instead of one new tuple per decision (which the garbage collector would keep
# scanning as the logs grow).
_INTERNED: dict[tuple, Event] = {}
_INTERNED_MAX = 200_000


def event(
    kind: str,
    seat: int | None = None,
    card: int | None = None,
    value: int | None = None,
    other: int | None = None,
) -> Event:
    """The event with these fields (without ``sides`` or ``seats``), shared with every other
    log that holds it."""
    key = (kind, seat, card, value, other)
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= _INTERNED_MAX:
            _INTERNED.clear()
        found = _INTERNED[key] = Event(kind, seat, card, value, other)
    return found


def texts(events: Iterable[Event]) -> list[str]:
    """The lines a person reads, one per event."""
    return [str(e) for e in events]

"""What one seat may know of a game: ``Game.view(seat)``.

A :class:`PublicView` is a snapshot: its own hand, and everything every player at the table can
see (the top card, the suit and rank to follow, sizes, counts, scores, what has been played). It
never holds another player's face-down card or the stock's order, so whatever is built on it (the
observation vector, the text table, ``public_state()``, statistics) cannot leak them. Two
positions a seat cannot tell apart give equal views.

Hands are bitmasks over the physical card ids of ``rules.deck`` (``rules.deck.kinds_in(mask)``
lists their kinds); ``view.hand_kinds()`` does it for the seat's own hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .state import Decision


@dataclass(slots=True)
class PublicView:
    """What ``seat`` sees now. Per-seat tuples are indexed by seat, per-team ones by team
    (``rules.team_of(seat)``); scores and pressures are per team. Every field is an immutable
    value, so a view never changes with the game (and changing one changes nothing else)."""

    seat: int
    hand: int  # the seat's own cards (bitmask of card ids)
    decision: Decision | None  # None once the game is over
    to_play: int | None  # the seat that decides (None once the game is over)
    turn: int | None  # the seat whose hand the decision plays (Figgy's, by its controller)
    top: int | None  # the kind of the discard pile's top card
    suit: int | None  # the suit to follow; None when nothing is to be followed
    rank: int | None  # the rank to follow
    direction: int  # 1 clockwise, -1 counter-clockwise
    stock_size: int
    discard_size: int
    played: tuple[int, ...]  # per kind: times played this hand, starter included
    sizes: tuple[int, ...]  # per seat: cards held
    active: tuple[bool, ...]  # per seat: still in the game (zimbabwe)
    dummy_hand: int  # the dummy's cards, face up for all (Figgy); 0 without a dummy
    pressures: tuple[int, ...]  # per team: pressures taken this game
    scores: tuple[int, ...]  # per team, cumulative
    stars: tuple[int, ...]  # per seat (kreights)
    hand_index: int  # the hand being played (0-based)
    deal_size: int
    dealer: int
    game_over: bool
    rules: Any  # the Ruleset everybody agreed on
    # the family's part: facts each family fills truthfully (0 / False where it has none)
    count: int  # Crates family: the running count (A/2 sequence), 0 when none runs
    demand: int  # Crazy Eights family: the cards an offensive card makes the player take
    pending_draw: int  # cards the player to act takes by drawing now (0 once over)
    playing_again: bool  # a further play of the same turn (after a 6, a K series)
    announced: bool  # the player to act has announced "one card" for its coming play
    free_play: bool  # any card may be played (after a kreights count, zimbabwe's A♠); with no
    # suit and rank to follow (after a Joker starter) play is free as well
    penalty_owed: tuple[bool, ...]  # per seat: owes a one-card penalty
    exposed: tuple[int, ...]  # per seat: kreights penalty cards, face up (bitmasks)

    def hand_kinds(self) -> list[int]:
        """The kinds of the seat's own cards, one entry per card."""
        return self.rules.deck.kinds_in(self.hand)

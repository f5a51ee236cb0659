"""What the table looks like at one step: :class:`TableSnapshot`, built from the engine's public
data with every hand face up (a spectator's view, or a replay's, after the fact), or as one seat
sees it (its own hand face up, the backs of the others': the table a person plays at).

The layout (``layout.py``) reads nothing else, so the replay page and the environment's frames
draw the same table. The snapshot is plain data: per seat its cards, side and score, and whether
it is to play, out of the game (zimbabwe), in air or owes a penalty; in the middle the discard
top, the stock, the direction, the suit to follow and whatever is owed (the count, a demand);
the step's events; the scores hand by hand and, once the game is over, who won. ``game_result``
and ``hand_result`` say who won a game or a hand, and by how much, in words.

:class:`EventCursor` reads the game's events as one stream across hands, so a step's events are
exactly those its move caused, a hand's end and the next deal included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import JOKER, rank_of, suit_of
from ..events import Event
from ..game import Game
from ..state import Decision
from ..view import PublicView

# What the seat to act is asked, in words (the text table and the drawn table both say it).
DECISION_WORDS = {
    Decision.PLAY: "to play",
    Decision.SUIT: "to name a suit",
    Decision.STARTER_SUIT: "to name the starter's suit",
    Decision.PENALTY_CARD: "to pick a penalty card",
    Decision.PLAY_OR_PASS: "to play or pass",
    Decision.MORE: "to play more of the rank or stop",
    Decision.REVERSE: "to reverse for good or once",
    Decision.DEFLECT: "to pass the skip on or take it",
}

# Hands are shown suit by suit, colours alternating (spades, hearts, clubs, diamonds), ace to
# king, Jokers last: how a player sorts a hand.
_SUIT_ORDER = (2, 3, 1, 0)  # the place of clubs, diamonds, hearts, spades


def display_order(kind: int) -> tuple[int, int]:
    """The sort key of a card in a displayed hand."""
    if kind == JOKER:
        return (4, 0)
    return (_SUIT_ORDER[suit_of(kind)], rank_of(kind))


@dataclass(frozen=True, slots=True)
class SeatSnapshot:
    """One seat at the table."""

    seat: int
    name: str  # the agent's name (or the environment's agent name)
    # the kinds held in display order; None for a card face down (a snapshot seen from a seat)
    cards: tuple[int | None, ...]
    side: int  # its team (its own seat without partnerships)
    score: int  # its side's score so far
    pressures: int  # pressures its side has taken this game
    stars: int  # kreights stars
    active: bool  # False once knocked out (zimbabwe)
    in_air: bool  # out of cards without having won: the next turn starts with a draw (zimbabwe)
    penalty_owed: bool  # owes a one-card penalty
    dummy: bool  # the dummy hand (Figgy), played by the seat before it


@dataclass(frozen=True, slots=True)
class HandRow:
    """One finished hand in the scores table."""

    number: int  # 1-based
    deal_size: int
    points: tuple[int, ...]  # what the hand added to each side's score
    ended_by: str  # one of crates_env.state.HAND_ENDINGS (what the infos code)
    went_out: int | None
    eliminated: tuple[int, ...]  # seats knocked out (zimbabwe)


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The table at one step; ``move`` is the action the seat to play takes there (None for a
    position seen without its move, and at the end), ``events`` what happened at the step."""

    preset: str
    num_players: int
    sides: tuple[tuple[int, ...], ...]  # the seats of each side (team)
    partnerships: bool
    seats: tuple[SeatSnapshot, ...]
    hand_number: int  # 1-based
    num_hands: int | None  # None: until a score (crazy_eights) or the last player (zimbabwe)
    deal_size: int
    dealer: int
    to_play: int | None  # the seat that decides (None once the game is over)
    turn: int | None  # the seat whose hand the decision plays (Figgy's, by its controller)
    decision: Decision | None
    move: int | None
    top: int | None  # the discard pile's top card
    suit: int | None  # the suit to follow
    suit_named: bool  # the suit to follow is not the top card's own: it was named
    stock_size: int
    discard_size: int
    direction: int  # 1 clockwise, -1 counter-clockwise
    count: int  # the running count (Crates family), 0 when none runs
    demand: int  # cards an offensive card makes the player take (Crazy Eights family)
    free_play: bool  # any card may be played
    events: tuple[Event, ...]
    hands: tuple[HandRow, ...]  # finished hands, in order
    scores: tuple[int, ...]  # per side, cumulative
    point_sign: int  # +1: points are won, the highest score wins; -1: the lowest (Ruleset)
    winner_collects: bool  # crazy_eights: the player who goes out collects the hand's points
    last_player: bool  # zimbabwe: the game goes on until one player is left
    target_score: int  # crazy_eights: the score that ends the game
    game_over: bool
    truncated: bool  # stopped by a guard
    winners: tuple[int, ...]  # sides, once the game is over


def table_snapshot(
    game: Game,
    names: Sequence[str] | None = None,
    move: int | None = None,
    events: Sequence[Event] = (),
    seat: int | None = None,
) -> TableSnapshot:
    """The table of ``game`` now, every hand face up, or as ``seat`` sees it (``seat`` given:
    built from ``game.view(seat)`` alone, the other hands face down but for the cards everybody
    sees); ``names`` per seat (``p0``, ``p1``, ... by default)."""
    r = game.rules
    n = r.num_players
    if names is None:
        names = [f"p{s}" for s in range(n)]
    if len(names) != n:
        raise ValueError(f"names needs one name per seat ({n}), not {len(names)}")
    v = game.view(0 if seat is None else seat)
    playing = not v.game_over
    seats = tuple(
        SeatSnapshot(
            seat=s,
            name=str(names[s]),
            cards=_cards(game, v, s) if seat is not None else _face_up(game.hand_kinds(s)),
            side=r.team_of(s),
            score=v.scores[r.team_of(s)],
            pressures=v.pressures[r.team_of(s)],
            stars=v.stars[s],
            active=v.active[s],
            in_air=r.in_air and playing and v.active[s] and v.sizes[s] == 0,
            penalty_owed=v.penalty_owed[s],
            dummy=s == r.dummy_seat,
        )
        for s in range(n)
    )
    top_suit = None if v.top is None or v.top == JOKER else suit_of(v.top)
    return TableSnapshot(
        preset=r.preset,
        num_players=n,
        sides=tuple(tuple(s for s in range(n) if r.team_of(s) == t) for t in range(r.num_teams)),
        partnerships=r.partnerships,
        seats=seats,
        hand_number=_hand_number(game, v.hand_index, v.game_over),
        num_hands=r.num_hands,
        deal_size=v.deal_size,
        dealer=v.dealer,
        to_play=v.to_play,
        turn=v.turn,
        decision=v.decision,
        move=move,
        top=v.top,
        suit=v.suit,
        suit_named=v.suit is not None and v.suit != top_suit,
        stock_size=v.stock_size,
        discard_size=v.discard_size,
        direction=v.direction,
        count=v.count,
        demand=v.demand,
        free_play=v.free_play,
        events=tuple(events),
        hands=tuple(_hand_row(res) for res in game.results),
        scores=tuple(v.scores),
        point_sign=r.point_sign,
        winner_collects=r.hand_scoring == "winner_collects",
        last_player=r.game_end == "last_player",
        target_score=r.target_score,
        game_over=v.game_over,
        truncated=game.truncated,
        winners=tuple(game.winners()) if v.game_over else (),
    )


def side_label(snap: TableSnapshot, side: int) -> str:
    """``p0&p2`` for a partnership, ``p1`` for a player alone."""
    return "&".join(f"p{s}" for s in snap.sides[side])


def game_result(snap: TableSnapshot) -> str:
    """Who won the game of ``snap`` (at its end) and by how much, in words: "p1&p3 win by 140
    points (p0&p2 1,350, p1&p3 1,210)", "p2 wins: the last player left after 6 hands"; a game
    the turn guard stopped says so at the end."""
    if not snap.game_over:
        raise ValueError("the game is not over: nobody has won yet")
    return _standing(snap) + ("; the turn guard stopped the game" if snap.truncated else "")


def _standing(snap: TableSnapshot) -> str:
    winners = snap.winners
    names = " and ".join(side_label(snap, t) for t in winners)
    if snap.last_player:
        verb = "wins" if len(winners) == 1 else "share the game"
        return f"{names} {verb}: the last player left after {len(snap.hands)} hands"
    scores = _side_points(snap, snap.scores, "")
    others = [snap.scores[t] for t in range(len(snap.sides)) if t not in winners]
    if not others:
        return f"a tie: {scores}"
    if len(winners) > 1:
        return f"{names} tie for the win ({scores})"
    best, runner_up = snap.scores[winners[0]], _best(others, snap.point_sign)
    margin = abs(best - runner_up)
    how = f"by {margin:,} points" if margin else "on stars"
    alone = not snap.partnerships
    return f"{names} {'wins' if alone else 'win'} {how} ({scores})"


def hand_result(snap: TableSnapshot, row: HandRow) -> str:
    """Who won a finished hand and by how much, in words: "hand 3 to p0&p2 by 28 points (p0&p2
    +12, p1&p3 +40)", with who went out and who was knocked out."""
    points = row.points
    best = _best(points, snap.point_sign)
    winners = [t for t, p in enumerate(points) if p == best]
    others = [p for p in points if p != best]
    if snap.last_player:  # a hand is lost, not won: its highest hand is knocked out
        words = f"hand {row.number}"
    elif len(winners) > 1:
        tied = " and ".join(side_label(snap, t) for t in winners)
        words = f"hand {row.number} tied between {tied}"
    else:
        margin = abs(best - _best(others, snap.point_sign)) if others else 0
        words = f"hand {row.number} to {side_label(snap, winners[0])} by {margin:,} points"
    words += f" ({_side_points(snap, points, '+')})"
    if row.went_out is not None:
        words += f"; p{row.went_out} went out"
    if row.eliminated:
        words += "; " + ", ".join(f"p{s}" for s in row.eliminated) + " knocked out"
    return words


def _best(points: Sequence[int], point_sign: int) -> int:
    """The best of ``points`` as the preset counts them (the lowest, or the highest where points
    are won)."""
    return max(points) if point_sign > 0 else min(points)


def _side_points(snap: TableSnapshot, points: Sequence[int], sign: str) -> str:
    return ", ".join(f"{side_label(snap, t)} {p:{sign},}" for t, p in enumerate(points))


def _face_up(kinds: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(kinds, key=display_order))


def _cards(game: Game, v: PublicView, s: int) -> tuple[int | None, ...]:
    """Seat ``s``'s cards as ``v.seat`` sees them: its own hand (face down while it names a
    turned wild's suit, before looking at it, as the rules say), and of the others the cards
    everybody sees (the dummy's hand, kreights penalty cards) then the backs of the rest."""
    deck = game.rules.deck
    if s == v.seat:
        naming_first = v.decision is Decision.STARTER_SUIT and v.to_play == s
        return (None,) * v.sizes[s] if naming_first else _face_up(v.hand_kinds())
    dummy = v.dummy_hand if s == game.rules.dummy_seat else 0
    shown = _face_up(deck.kinds_in(dummy | v.exposed[s]))
    return shown + (None,) * (v.sizes[s] - len(shown))


def _hand_number(game: Game, hand_index: int, over: bool) -> int:
    """The hand on the table, 1-based: once the game is over, the last one played (the index
    has moved past it, unless the turn guard stopped that hand)."""
    if not over:
        return hand_index + 1
    events = game.events
    stopped = bool(events) and events[-1].kind == "hand_truncated"
    return hand_index + 1 if stopped else hand_index


def _hand_row(result) -> HandRow:
    return HandRow(
        number=result.hand_index + 1,
        deal_size=result.deal_size,
        points=tuple(result.team_points),
        ended_by=result.ended_by,
        went_out=result.went_out,
        eliminated=tuple(result.eliminated),
    )


class EventCursor:
    """The game's events as one stream across hands: ``take(game)`` returns those that happened
    since the last take (from the game's start for a cursor made with ``from_start=True``)."""

    def __init__(self, game: Game, from_start: bool = False) -> None:
        self._mark = (0, 0) if from_start else _position(game)

    def take(self, game: Game) -> list[Event]:
        logs, hand = self._mark
        finished = game.hand_logs
        # the hand being played is not logged yet; once the game is over, the last log is it
        current = [] if game.game_over else game.events
        hands = [*finished[logs:], current]
        out = list(hands[0][hand:])
        for events in hands[1:]:
            out.extend(events)
        self._mark = (len(finished), len(current))
        return out


def _position(game: Game) -> tuple[int, int]:
    return (len(game.hand_logs), 0 if game.game_over else len(game.events))

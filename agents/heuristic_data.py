"""What HeuristicAgent plays by, shared by the agent (``agents.scripted``) and its compiled twin
(``agents.heuristic_batch``): the weights of its choices, the facts of the table it looks up, and
the observation read the way a player thinks about it.

Both read them from here, so the twin cannot drift from the agent on a weight or a table, and an
observation is decoded once: ``Positions.read`` for a batch, ``Position.read`` for one row of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crates_env.cards import JOKER, NUM_KINDS, rank_of, suit_of

from .base import Table

# The weights, in points (what a card left in hand costs), tuned against GreedyAgent.
WILD_KEEP = 60.0  # a wild held back: a play that is never refused
WILD_KEEP_SMALL = 20.0  # extra when the hand is small: the card to go out on
COUNT_KEEP = 20.0  # the last ace or 2, kept to answer a count
DRAW_HURT = 8.0  # a card someone takes, before the threat it delays
THREAT_HURT = 30.0  # delaying a player who is about to go out
START_COUNT = 40.0  # a count started on a player with one card
SIX_FOLLOW = 15.0  # a 6 with a follow-up plays two cards in one turn
COOPER = 40.0  # a 6 with nothing to follow: the turn ends with a draw
FOLLOW = 2.0  # each card left that follows the suit or rank the play leaves
LAST_WILD = 50.0  # the last card a wild: out at the next turn (outside a count)
LAST_SIX = 30.0  # the last card a 6: it cannot go out
OUT = 1000.0
PARTNER_LOW = 2  # a partner with this many cards or fewer gets no card from our 7
BLOCK = 20.0  # a suit the next opponent is unlikely to follow, by their threat
SUIT_SHORT = 0.3  # per unseen card of a suit we might name
URGENCY = 2.0  # how much more a point shed is worth when the hand may end at once


# ---------------------------------------------------------------------- the table
def follows(table: Table, kind: int, suit: int | None, rank: int | None) -> bool:
    """Whether a card of ``kind`` may be played on ``suit`` and ``rank``: a wild or the Joker
    on anything, any card when no suit is set."""
    if kind == JOKER or table.is_wild(kind):
        return True
    return suit is None or suit_of(kind) == suit or rank_of(kind) == rank


def follow_table(table: Table) -> np.ndarray:
    """bool ``(4, 13, kinds)``: ``[suit, rank, kind]`` may be played on that suit and rank."""
    out = np.zeros((4, 13, NUM_KINDS), dtype=bool)
    for kind in range(NUM_KINDS):
        for suit in range(4):
            for rank in range(13):
                out[suit, rank, kind] = follows(table, kind, suit, rank)
    return out


def suit_naturals(table: Table) -> np.ndarray:
    """bool ``(4, kinds)``: the natural (non-wild) cards of each suit, the Joker in none."""
    out = np.zeros((4, NUM_KINDS), dtype=bool)
    for kind in range(JOKER):
        out[suit_of(kind), kind] = not table.is_wild(kind)
    return out


# ---------------------------------------------------------------------- the observation
@dataclass
class Positions:
    """A batch of observations read the way a player thinks about them, one row a position
    (seats are relative slots: slot 0 is the player deciding, slot k is k seats to its left; -1
    where no suit or rank is set)."""

    hand: np.ndarray  # (B, kinds) copies held of each kind
    suit: np.ndarray  # (B,) current suit
    rank: np.ndarray  # (B,) current rank
    count: np.ndarray  # (B,) total of the running count, 0 when none runs
    clockwise: np.ndarray  # (B,) bool
    sizes: np.ndarray  # (B, n) cards held by each slot
    played: np.ndarray  # (B, kinds) times each kind was played this hand
    stock: np.ndarray  # (B,) cards left in the stock
    next_pressure: np.ndarray  # (B, n) float64: value of each slot's side's next pressure
    decision: np.ndarray  # (B,)

    @classmethod
    def read(cls, table: Table, obs: np.ndarray) -> Positions:
        """Decode a batch of observations (``B x size``)."""

        def whole(name: str) -> np.ndarray:
            return np.rint(table.decode(obs, name)).astype(np.int64)

        hand = np.maximum(whole("hand"), 0)
        sizes = whole("hand_sizes")
        # float64 of the stored value: the agent's sums are all in float64
        pressure = table.decode(obs, "next_pressure").astype(np.float64)
        # Playing the dummy's hand (Skill-hand World Series' Figgy): think from its seat.
        turn = np.zeros(len(obs), dtype=np.int64)  # 0: our own hand
        if "acting_for" in table.layout:
            turn = table.slice(obs, "acting_for").argmax(axis=1)
        if turn.any():
            hand = np.where((turn > 0)[:, None], np.maximum(whole("dummy_hand"), 0), hand)
            # slot k of a row is seat (k + turn) of its observation
            slots = (np.arange(table.num_players) + turn[:, None]) % table.num_players
            rows = np.arange(len(obs))[:, None]
            sizes, pressure = sizes[rows, slots], pressure[rows, slots]
        suit, rank = table.slice(obs, "current_suit"), table.slice(obs, "current_rank")
        return cls(
            hand=hand,
            suit=np.where(suit.any(axis=1), suit.argmax(axis=1), -1),
            rank=np.where(rank.any(axis=1), rank.argmax(axis=1), -1),
            count=whole("count")[:, 0],
            clockwise=table.slice(obs, "clockwise")[:, 0] > 0.5,
            sizes=sizes,
            played=whole("played"),
            stock=whole("stock_size")[:, 0],
            next_pressure=pressure,
            decision=table.slice(obs, "decision").argmax(axis=1),
        )


@dataclass
class Position:
    """One observation read the way a player thinks about it: a row of :class:`Positions` in
    Python values (``None`` where no suit or rank is set)."""

    hand: list[int]  # kinds held, one entry per card
    suit: int | None  # current suit
    rank: int | None  # current rank
    count: int  # total of the running count, 0 when none runs
    clockwise: bool
    sizes: list[int]  # cards held by each slot (slot 0 is us, slot k is k seats to our left)
    played: np.ndarray  # times each kind was played this hand
    stock: int  # cards left in the stock
    next_pressure: list[float]  # value of each slot's side's next pressure
    decision: int

    @classmethod
    def read(cls, table: Table, obs: np.ndarray) -> Position:
        p = Positions.read(table, obs[None, :])
        suit, rank = int(p.suit[0]), int(p.rank[0])
        return cls(
            hand=np.repeat(np.arange(NUM_KINDS), p.hand[0]).tolist(),
            suit=None if suit < 0 else suit,
            rank=None if rank < 0 else rank,
            count=int(p.count[0]),
            clockwise=bool(p.clockwise[0]),
            sizes=p.sizes[0].tolist(),
            played=p.played[0],
            stock=int(p.stock[0]),
            # Python floats: the agent's sums are float64, as the compiled twin's are
            next_pressure=p.next_pressure[0].tolist(),
            decision=int(p.decision[0]),
        )

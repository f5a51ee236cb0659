"""Scripted players: a uniformly random one, a greedy shedder and a real player's heuristic.

All three read only the observation vector (by the named slices of ``Table.layout``) and the
action mask, and always return an action the mask allows. They need only the engine's numpy
modules: no PettingZoo, no Gymnasium.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from crates_env.actions import (
    ANNOUNCE,
    DRAW,
    NUM_ACTIONS,
    SUIT,
    legal_actions,
    random_legal_action,
)
from crates_env.cards import FOUR, JOKER, NUM_KINDS, SEVEN, SIX, TEN, TWO, rank_of, suit_of
from crates_env.game import Game
from crates_env.rules import COUNT_PIPS
from crates_env.state import Decision

from . import heuristic_data as weights
from .base import Agent, Games, Table
from .heuristic_data import Position, Positions, follow_table, follows, suit_naturals


def _split(legal: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """Legal card plays, suit namings and the other actions (draw, announce, ...)."""
    cards = [int(a) for a in legal if a < NUM_KINDS]
    suits = [int(a) - SUIT for a in legal if SUIT <= a < SUIT + 4]
    other = [int(a) for a in legal if a >= SUIT + 4]
    return cards, suits, other


def _fallback(other: list[int]) -> int:
    """A non-card, non-suit action: draw only when nothing else is offered."""
    rest = [a for a in other if a != DRAW]
    return min(rest) if rest else DRAW


def _decision(table: Table, observation: np.ndarray) -> int:
    return int(np.argmax(table.slice(observation, "decision")))


class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded generator (the draw of the
    environment's default opponent, ``crates_env.env.UniformRandom``)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        return random_legal_action(self.rng, action_mask)


class GreedyAgent(Agent):
    """Sheds points as fast as it can.

    Plays its costliest legal card (by ``card_points``; the lowest kind on a tie), names the suit
    it holds most natural cards of, always announces "one card" when it may, and draws only when
    drawing is the only action.
    """

    def __init__(self, table: Table) -> None:
        self.table = table

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        legal = legal_actions(action_mask)
        cards, suits, other = _split(legal)
        if ANNOUNCE in other:
            return ANNOUNCE
        if cards:
            if _decision(self.table, observation) == Decision.PENALTY_CARD:
                # Picking an opponent's penalty card: make them play their cheapest.
                return min(cards, key=lambda k: (self.table.card_points[k], k))
            return max(cards, key=lambda k: (self.table.card_points[k], -k))
        if suits:
            held = suit_lengths(self.table, self.table.hand_kinds(observation))
            return SUIT + max(suits, key=lambda s: (held[s], -s))
        return _fallback(other)

    @property
    def _group(self) -> tuple:
        return ("greedy", id(self.table))

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        """``act`` for each row of ``observations`` (``batch x size``), the same actions, in a
        few numpy operations: each choice above is a largest key among the legal actions."""
        obs, masks = check_batch(observations, action_masks)
        t = self.table
        kinds = np.arange(NUM_KINDS)
        points = np.asarray(t.card_points[:NUM_KINDS], dtype=np.int64)
        cards = masks[:, :NUM_KINDS]
        penalty = t.slice(obs, "decision").argmax(axis=1) == Decision.PENALTY_CARD
        costliest = _best(cards, points * 64 - kinds)  # the lowest kind on a tie
        cheapest = _best(cards, -(points * 64 + kinds))
        hand = np.maximum(np.rint(t.slice(obs, "hand")), 0)
        held = hand @ t.derived("suit_naturals", suit_naturals).T  # natural cards per suit
        suit = SUIT + _best(masks[:, SUIT : SUIT + 4], held * 8 - np.arange(4))
        other = masks.copy()
        other[:, : SUIT + 4] = False
        other[:, DRAW] = False  # draw only when nothing else is offered
        rest = np.where(other.any(axis=1), other.argmax(axis=1), DRAW)
        actions = np.where(masks[:, SUIT : SUIT + 4].any(axis=1), suit, rest)
        actions = np.where(cards.any(axis=1), np.where(penalty, cheapest, costliest), actions)
        return np.where(masks[:, ANNOUNCE], ANNOUNCE, actions).astype(np.int64)


def _best(allowed: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Per row, the column of the largest ``key`` among the ``allowed`` ones."""
    return np.where(allowed, key, -np.inf).argmax(axis=1)


def _table_arrays(table: Table):
    """HeuristicAgent's table as its compiled twin reads it, or None where the compiled engine
    does not play the table (``crates_env.vector.vector_game.check_supported`` refuses it)."""
    from .heuristic_batch import TableArrays

    try:
        return TableArrays.of(table)
    except ValueError:
        return None


def check_batch(
    observations: np.ndarray, action_masks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A batch of observations (float32 ``batch x size``) and masks (bool ``batch x 63``);
    a ValueError otherwise, and for a row that allows nothing (asked out of turn)."""
    obs = np.asarray(observations, dtype=np.float32)
    masks = np.asarray(action_masks).astype(bool)
    if obs.ndim != 2 or masks.shape != (len(obs), NUM_ACTIONS):
        raise ValueError(
            f"act_batch needs observations (batch, size) and masks (batch, {NUM_ACTIONS}); "
            f"got {obs.shape} and {masks.shape}"
        )
    if not masks.any(axis=1).all():
        legal_actions(masks[~masks.any(axis=1)][0])  # raises: asked out of turn
    return obs, masks


def suit_lengths(table: Table, kinds: list[int]) -> list[int]:
    """Natural (non-wild) cards held in each suit."""
    held = [0, 0, 0, 0]
    for k in kinds:
        if k != JOKER and not table.is_wild(k):
            held[suit_of(k)] += 1
    return held


class HeuristicAgent(Agent):
    """A Crates player's strategy, card by card.

    1. **One card.** Always announce "one card" when the call is offered (a needless call is
       never offered).
    2. **Go out** when the last card can go (not a 6: that is a Cooper); a 6 whose follow-up is
       the last card goes out too.
    3. **In a count**, follow with the card that best protects the side: a 2 passes a bigger
       count (and sheds 20) to an opponent, an ace passes a smaller one to a partner, a Joker
       bounces it back to the previous player.
    4. **Start a count** (play a 2) when the next player is an opponent low on cards; otherwise
       keep an ace or a 2 back to answer the opponents' counts.
    5. **Hurt the player most likely to go out next**: a 4 skips the next player, a 10 reverses
       when the next opponent holds fewer cards than the previous one, a 5 gives everyone else a
       card, a 7 gives one to its target (the next player in 2/3-player Crates). In 4-player
       partnership Crates a 7 hits the partner: never while the partner is about to go out (two
       cards or fewer), unless it goes out or nothing else is legal. Earlier in the hand it is
       just a 20-point card to shed: avoiding it always measured about 10 points of win rate
       worse against GreedyAgent (the card held instead is a wild, an ace or a covering three).
       Near the end of the stock, a draw that lands the shuffle pressure on an opponent is
       worth that pressure.
    6. **Wilds** (8, 9): play a natural card when one fits, keeping the wild to avoid a draw
       (above all when the stock is nearly out: that draw is a shuffle pressure) and to go out
       on when the hand is small; dump them (an 8 is 50 points) when anybody is about to go
       out.
    7. **Threes**: a card is worth what the hand loses by playing it, as the rules score it, so a
       three that covers a costly card is kept and the card it covers is not hurried.
    8. **Sixes**: play a 6 only with a follow-up (two cards in one turn); never end a turn
       Cooper-exposed (a 6 with nothing to follow draws a card).
    9. **Suit to name**: the suit held most, tilted toward suits the opponents are short in
       (many of its cards already played, few unseen); weighted more when an opponent is low.
       A wild starter's suit, named before looking at the hand, is picked at random.
    10. **Otherwise shed points** (more urgently the closer anybody is to going out), keeping a
        hand that can follow the suit or rank the play leaves.

    Relatives of the Crazy Eights family (``table.engine == "eights"``) give the cards other
    functions; there the agent only sheds its costliest natural card and keeps its wilds.
    """

    def __init__(self, table: Table, seed: int | None = None) -> None:
        self.table = table
        self.rng = np.random.default_rng(seed)
        self.n = table.num_players
        self._copies = np.array(table.kind_copies)
        # [suit, rank, kind]: may be played on them; [suit, kind]: its natural cards
        self._match = table.derived("follow_table", follow_table)
        self._suit_naturals = table.derived("suit_naturals", suit_naturals)

    # ------------------------------------------------------------------ entry point
    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        legal = legal_actions(action_mask)
        cards, suits, other = _split(legal)
        if ANNOUNCE in other:
            return ANNOUNCE  # rule 1
        pos = Position.read(self.table, observation)
        if cards:
            if pos.decision == Decision.PENALTY_CARD:
                return min(cards, key=lambda k: (self.table.card_points[k], k))
            if self.table.engine != "crates":
                return self._shed_keep_wilds(cards)
            if pos.count:
                return self._count_play(cards, pos)
            return self._play(cards, pos)
        if suits:
            return SUIT + self._name_suit(suits, pos)
        return _fallback(other)

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        """``act`` for each row of ``observations`` (``batch x size``), the same actions, in one
        compiled call (``agents.heuristic_batch``)."""
        return self._act_group([self] * len(observations), observations, action_masks)

    @property
    def _group(self) -> tuple:
        return ("heuristic", id(self.table))

    @classmethod
    def _act_group(cls, agents, observations, masks, games=None) -> np.ndarray:
        """Row ``i``'s action by ``agents[i]``: one compiled call for every row; a row it
        cannot decide alone (a wild starter's suit) from that agent's own generator."""
        obs, masks = check_batch(observations, masks)
        first = agents[0]
        arrays = first._arrays
        if arrays is None:
            rows = zip(agents, obs, masks, strict=True)
            return np.array([a.act(o, m) for a, o, m in rows], np.int64)
        from .heuristic_batch import heuristic_actions

        actions = heuristic_actions(arrays, Positions.read(first.table, obs), masks)
        for i in np.flatnonzero(actions < 0):  # a wild starter's suit: from the agent's generator
            actions[i] = agents[i].act(obs[i], masks[i])
        return actions

    @property
    def _arrays(self):
        """The table as the compiled twin reads it, or None where it cannot (a table without
        its rules, one the compiled engine does not play)."""
        if self.table.rules is None:
            return None
        return self.table.derived("heuristic_arrays", _table_arrays)

    # ------------------------------------------------------------------ seats
    def _slot(self, steps: int, pos: Position) -> int:
        """Relative slot of the player ``steps`` turns ahead in the current direction."""
        return (steps if pos.clockwise else -steps) % self.n

    def _side(self, slot: int) -> int:
        """+1 for an opponent, -1 for us or our partner: hurting them is good, us bad."""
        return -1 if slot in (0, self.table.partner_slot) else 1

    @staticmethod
    def _threat(size: int) -> float:
        """How close a player is to ending the hand: 1 with one card (or already out)."""
        return 1.0 if size <= 1 else 0.5 ** (size - 1)

    def _danger(self, pos: Position) -> float:
        """How soon the hand may end: anybody's going out, a partner's too, scores our cards."""
        return max((self._threat(pos.sizes[s]) for s in range(1, self.n)), default=0.0)

    # ------------------------------------------------------------------ rules 2-8, 10
    def _play(self, cards: list[int], pos: Position) -> int:
        hand = pos.hand
        if len(hand) == 1 and (rank_of(hand[0]) != SIX or hand[0] == JOKER):
            return cards[0]  # rule 2: the last card is the legal one
        danger = self._danger(pos)
        points = self.table.hand_points(hand)
        natural_play = any(not self.table.is_wild(k) for k in cards)
        unseen = self._unseen(pos)
        partner = self.table.partner_slot
        if partner is not None and pos.sizes[partner] <= weights.PARTNER_LOW:
            # rule 5: no card for a partner about to go out, unless nothing else is legal
            cards = [k for k in cards if not self._hits_partner(k, pos)] or cards
        best, best_value = cards[0], -np.inf
        for kind in sorted(set(cards)):
            rest = list(hand)
            rest.remove(kind)
            shed = points - self.table.hand_points(rest)
            # rule 10 (and 7: the shed is three-aware)
            value = shed * (1 + weights.URGENCY * danger)
            value += self._effect(kind, rest, pos)
            value += self._keep(kind, rest, danger, natural_play, pos)
            suit, rank = self._leaves(kind, rest, pos)
            value += self._shape(rest, suit, rank)
            value += self._block(kind, suit, rank, unseen, pos)
            if value > best_value:
                best, best_value = kind, value
        return best

    def _leaves(self, kind: int, rest: list[int], pos: Position) -> tuple[int | None, int | None]:
        """The suit and rank the next player must match after the card (a wild: our suit)."""
        if kind == JOKER:
            return pos.suit, pos.rank  # transparent
        if self.table.is_wild(kind):
            return self._best_suit(rest, pos, range(4)), rank_of(kind)
        return suit_of(kind), rank_of(kind)

    def _block(
        self, kind: int, suit: int | None, rank: int | None, unseen: np.ndarray, pos: Position
    ) -> float:
        """Leave the player who plays next a suit they are unlikely to hold when they are an
        opponent close to going out (rules 5 and 9), one they may well hold when a partner."""
        r = -1 if kind == JOKER else rank_of(kind)
        if r in (SIX, TWO) or suit is None or rank is None:
            return 0.0  # we play again, or a count starts: matching does not apply
        if r == FOUR:
            target = self._slot(2, pos)  # the next player is skipped
        elif r == TEN or kind == JOKER:
            target = self._slot(-1, pos)  # the previous player plays next
        else:
            target = self._slot(1, pos)
        total = unseen.sum()
        if total <= 0:
            return 0.0
        match = unseen[self._match[suit, rank]].sum()
        return weights.BLOCK * self._hurt_threat(target, pos) * (1 - match / total)

    def _effect(self, kind: int, rest: list[int], pos: Position) -> float:
        """What the card's function does to the table (rules 4, 5 and 8)."""
        if kind == JOKER:  # the previous player plays again
            prev = self._slot(-1, pos)
            return -self._side(prev) * weights.THREAT_HURT * self._threat(pos.sizes[prev])
        rank = rank_of(kind)
        nxt, prev = self._slot(1, pos), self._slot(-1, pos)
        if rank == TWO:  # a count starts on the next player
            return self._side(nxt) * weights.START_COUNT * self._threat(pos.sizes[nxt]) ** 2
        if rank == FOUR:
            return self._side(nxt) * (5 + weights.THREAT_HURT * self._threat(pos.sizes[nxt]))
        if rank == TEN and self.n > 2:  # the previous player plays next instead
            return weights.THREAT_HURT * (
                self._hurt_threat(nxt, pos) - self._hurt_threat(prev, pos)
            )
        if rank == SIX:
            return self._six(kind, rest, pos)
        draws = self._draws(kind, pos)
        value = sum(
            self._side(s)
            * (weights.DRAW_HURT + weights.THREAT_HURT * self._threat(pos.sizes[s]))
            * k
            for s, k in draws
        )
        return value + self._pressure(draws, pos)

    def _hits_partner(self, kind: int, pos: Position) -> bool:
        if kind == JOKER or rank_of(kind) != SEVEN or self.table.partner_slot is None:
            return False
        return any(s == self.table.partner_slot for s, _ in self._draws(kind, pos))

    def _hurt_threat(self, slot: int, pos: Position) -> float:
        return self._side(slot) * self._threat(pos.sizes[slot])

    def _draws(self, kind: int, pos: Position) -> list[tuple[int, int]]:
        """(slot, cards) each player takes because of the card, in the order they draw (a run
        of craits jacks counted as one)."""
        draws = self.table.card_functions[kind].draws
        return [(self._slot(seats_on, pos), cards) for seats_on, cards in draws]

    def _pressure(self, draws: list[tuple[int, int]], pos: Position) -> float:
        """The shuffle pressure lands on whoever draws past the end of the stock."""
        left = pos.stock
        for slot, k in draws:
            if k > left:
                return self._side(slot) * pos.next_pressure[slot]
            left -= k
        return 0.0

    def _six(self, six: int, rest: list[int], pos: Position) -> float:
        """Rule 8: a 6 is two cards in one turn with a follow-up, a Cooper without one."""
        follows = [k for k in rest if self._follows(k, suit_of(six), SIX)]
        if not follows:
            return -weights.COOPER - (pos.next_pressure[0] if pos.stock == 0 else 0.0)
        if len(rest) == 1 and rank_of(rest[0]) != SIX:
            return weights.OUT  # 6 then the last card: out this turn
        return weights.SIX_FOLLOW

    def _follows(self, kind: int, suit: int | None, rank: int | None) -> bool:
        return follows(self.table, kind, suit, rank)

    def _keep(
        self, kind: int, rest: list[int], danger: float, natural_play: bool, pos: Position
    ) -> float:
        """What playing the card gives up (rules 4 and 6); less the sooner the hand may end."""
        calm = 1 - danger
        if self.table.is_wild(kind):
            if not natural_play:
                return 0.0
            small = weights.WILD_KEEP_SMALL if len(rest) <= 2 else 0.0
            # A forced draw from a short stock is a shuffle pressure: a wild prevents it.
            short = pos.next_pressure[0] if pos.stock <= self.n else 0.0
            return -(weights.WILD_KEEP + small) * calm - short
        if kind != JOKER and rank_of(kind) in COUNT_PIPS:
            answers = sum(1 for k in rest if k != JOKER and rank_of(k) in COUNT_PIPS)
            return -weights.COUNT_KEEP * calm if answers == 0 else -2.0 * calm
        return 0.0

    def _shape(self, rest: list[int], suit: int | None, rank: int | None) -> float:
        """Rule 10: what the hand left can do next (the last card above all)."""
        if len(rest) == 1:
            last = rest[0]
            if self.table.is_wild(last):
                return weights.LAST_WILD
            if last != JOKER and rank_of(last) == SIX:
                return -weights.LAST_SIX
        follow = sum(1 for k in rest if self._follows(k, suit, rank))
        return weights.FOLLOW * min(follow, 3)

    # ------------------------------------------------------------------ rule 3
    def _count_play(self, cards: list[int], pos: Position) -> int:
        if len(pos.hand) == 1:
            return cards[0]  # out (the count goes on without us)

        def value(kind: int) -> float:
            if kind == JOKER:  # bounces the same count back to the previous player
                target, total = self._slot(-1, pos), pos.count
            else:
                target, total = self._slot(1, pos), pos.count + COUNT_PIPS.get(rank_of(kind), 0)
            return self.table.card_points[kind] + self._side(target) * 5.0 * total

        return max(sorted(set(cards)), key=value)

    # ------------------------------------------------------------------ rule 9
    def _name_suit(self, suits: list[int], pos: Position) -> int:
        if pos.decision == Decision.STARTER_SUIT:  # named before looking at the hand
            return int(self.rng.choice(suits))
        # an empty hand (zimbabwe's last card an 8, in air) still names the suit the others
        # are shortest in
        return self._best_suit(pos.hand, pos, suits)

    def _best_suit(self, hand: list[int], pos: Position, suits: Iterable[int]) -> int:
        """The suit we hold most of, less what the others may still hold of it."""
        held = suit_lengths(self.table, hand)
        unseen = self._unseen(pos)
        weight = weights.SUIT_SHORT * (1 + self._danger(pos))

        def value(suit: int) -> tuple[float, int]:
            return held[suit] - weight * unseen[self._suit_naturals[suit]].sum(), -suit

        return max(suits, key=value)

    def _unseen(self, pos: Position) -> np.ndarray:
        """Copies of each kind neither held nor played this hand: what the others may hold."""
        held = np.bincount(np.asarray(pos.hand, dtype=int), minlength=NUM_KINDS)
        return np.maximum(self._copies - held - pos.played, 0)

    # ------------------------------------------------------------------ other families
    def _shed_keep_wilds(self, cards: list[int]) -> int:
        natural = [k for k in cards if not self.table.is_wild(k)] or cards
        return max(natural, key=lambda k: (self.table.card_points[k], -k))

"""The table both families of rules share, and the factory that picks a family's engine.

The engine knows nothing of RL. A game is a state machine from the first deal to the final
score: it asks the player to act one decision at a time (``decision``, ``to_play``,
``legal_actions()``), applies an action with ``apply()``, and scores hands and the game.

Two engines play the rule systems, siblings on this shared base:

- :class:`crates_env.crates.CratesGame`, the Crates family (``crates``, ``chicago1970``,
  ``kreights``, ``craits``, ``creights``);
- :class:`crates_env.eights.EightsGame`, the Crazy Eights family (``crazy_eights``, ``zimbabwe``).

``new_game(preset_or_ruleset, num_players, **kw)`` builds the engine a ruleset needs
(``Ruleset.engine``). ``Game`` itself is abstract: what a family must supply is its abstract
methods.

This module holds what both families do the same way: the deal, the stock and the discard pile,
the draw procedure D of docs/rules.md §1.15 with its reshuffles and shuffle pressures, applying,
screening and refusing actions, the hand and game lifecycle and the results. The state lives in
three values (``crates_env.state``: game, hand, turn); ``clone()`` copies them, and
``resample_hidden(seat, rng)`` re-deals what a seat cannot see. ``view(seat)`` is everything a
seat may know (:class:`crates_env.view.PublicView`): the one thing observers, renderers and
statistics read.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NoReturn

import numpy as np

from .actions import NUM_ACTIONS, action_name
from .cards import SUITS, card_code, card_list, rank_of, suit_of
from .events import Event, event
from .rules import Ruleset, engine_of, int_value, make_ruleset
from .scoring import pressure_value
from .state import Decision, GameState, HandResult, HandState, State, TurnState
from .view import PublicView

__all__ = [
    "Decision",
    "Game",
    "HandResult",
    "IllegalActionError",
    "engine_for",
    "first_dealer",
    "game_streams",
    "lowest_cards",
    "new_game",
]


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message names it and the legal ones."""


class HandEnded(Exception):
    """Raised inside a draw when the hand ends on the spot (nothing left to reshuffle, or a
    blocked crazy_eights stock); ``apply`` catches it."""


class Game(ABC):
    """A game of one rule system, from the first deal to the final score.

    ``new_game("kreights", 3, seed=7)`` or ``new_game(make_ruleset(...), seed=7)``. ``deck`` (card
    codes, top first) stacks the first hand: cards are dealt one at a time from the dealer's
    left, then the starter is turned, the rest is the stock; a shorter list is completed with
    the remaining cards in random order. ``dealer`` fixes the first dealer; ``hand_index``
    starts the game at a later hand of the schedule. ``seed`` (an int or a numpy ``Generator``)
    fixes two streams: the deals, which never depend on how the hands are played (duplicate
    play), and the reshuffles.

    ``turn`` is the seat whose turn (and hand) it is; ``to_play`` is the seat that decides, which
    differs for Figgy (``skill_hand_world_series``: played by the previous player) and when the
    previous player picks a kreights penalty card.
    """

    family: ClassVar[str] = ""  # the Ruleset.engine a subclass plays
    _engines: ClassVar[dict[str, type[Game]]] = {}

    rules: Ruleset
    game_state: GameState
    hand_state: HandState
    turn_state: TurnState

    def __init_subclass__(cls, family: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if family:
            cls.family = family
            Game._engines[family] = cls

    def __init__(
        self,
        rules: Ruleset | str = "crates",
        num_players: int | None = None,
        *,
        seed: int | np.random.Generator | None = None,
        dealer: int | None = None,
        deck: Sequence[str | int] | None = None,
        hand_index: int = 0,
        **options: Any,
    ) -> None:
        rules = _ruleset(rules, num_players, options)
        if rules.engine != self.family:
            raise ValueError(
                f"{type(self).__name__} plays the {self.family} family; preset {rules.preset!r} "
                f"is played by {engine_for(rules).__name__} (build it with crates_env.new_game)"
            )
        self.rules = rules
        self.n = rules.num_players
        self.deck = rules.deck
        self.deal_rng, self.rng = game_streams(seed)
        hands = rules.num_hands or rules.max_hands
        if int_value(hand_index) is None or not 0 <= hand_index < hands:
            raise ValueError(f"hand_index must be 0..{hands - 1}, not {hand_index!r}")
        self._build_masks()
        events: list[Event] = []
        first = first_dealer(rules, self.deal_rng, dealer, events)
        self.game_state = self._new_game_state(hand_index, first)
        self.turn_state = self._new_turn_state()
        self._start_hand(deck, events)

    # ------------------------------------------------------------------ what a family supplies
    @abstractmethod
    def _build_masks(self) -> None:
        """Precompute the card masks the family's legal plays are made of (shared by clones)."""

    def _new_game_state(self, hand_index: int, dealer: int) -> GameState:
        return GameState.new(self.rules, hand_index, dealer)

    def _new_turn_state(self) -> TurnState:
        return TurnState()

    def _new_hand(self, deal_size: int, events: list[Event]) -> HandState:
        return HandState.new(deal_size, self.n, self.rules.num_teams, events)

    @abstractmethod
    def _turn_starter(self) -> None:
        """Turn the starter and give the first decision."""

    @abstractmethod
    def _compute_legal(self) -> list[int]:
        """The legal actions of the pending decision, in increasing order."""

    @abstractmethod
    def _act(self, action: int) -> None:
        """Carry out a legal action of the pending decision."""

    def _misplays(self) -> list[int]:
        """Illegal actions that ``misplay_mode="penalize"`` accepts, each applied with its
        penalty by ``_misplay``: the Crates family's (``crates_env.misplays.Misplays``); none
        here."""
        return []

    @abstractmethod
    def _score_hand(self) -> None:
        """Score the finished hand into the game state (its result, the scores)."""

    @abstractmethod
    def _settle_hand(self) -> None:
        """Draws owed when the hand ends, before scoring."""

    @abstractmethod
    def _set_family_position(self, **settings: Any) -> None:
        """Reset the family's hand flags for a scripted position, with its settings."""

    def _face_up(self, seat: int) -> int:
        """Cards of ``seat``'s hand that everybody sees: the dummy's whole hand (Figgy)."""
        return self.hand_state.hands[seat] if seat == self.rules.dummy_seat else 0

    @abstractmethod
    def _family_view(self) -> dict[str, Any]:
        """The view's family part by field name, ``count`` to ``exposed``: every family fills
        each of them (0, False or nothing where it has no such fact)."""

    @abstractmethod
    def pending_draw(self) -> int:
        """Cards the player to act would take by drawing now."""

    # ------------------------------------------------------------------ the deal
    def _start_hand(self, deck: Sequence[str | int] | None, events: list[Event]) -> None:
        gs = self.game_state
        schedule = self.rules.schedule
        # a game that lasts until a score condition deals its schedule over and over
        deal_size = schedule[gs.hand_index % len(schedule)]
        order = self._deck_order(deck)
        hs = self.hand_state = self._new_hand(deal_size, events)
        hands, sizes = hs.hands, hs.sizes
        seats = self._deal_seats()
        pos = 0
        for _ in range(deal_size):
            for seat in seats:
                hands[seat] |= 1 << order[pos]
                sizes[seat] += 1
                pos += 1
        hs.stock = order[pos:][::-1]  # top of stock last
        events.append(event("deal", gs.dealer, None, deal_size, gs.hand_index + 1))
        self._turn_starter()

    def _deal_seats(self) -> list[int]:
        """Seats in dealing order: one card at a time from the dealer's left (or right)."""
        step = -1 if self._deal_goes_right() else 1
        dealer, active = self.game_state.dealer, self.game_state.active
        seats = ((dealer + i * step) % self.n for i in range(1, self.n + 1))
        return [s for s in seats if active[s]]

    def _deal_goes_right(self) -> bool:
        return self.rules.deal_follows_direction and self.game_state.last_direction == -1

    def _deck_order(self, deck: Sequence[str | int] | None) -> list[int]:
        d = self.deck
        if deck is None:
            return [int(i) for i in self.deal_rng.permutation(d.size)]
        ids = d.ids_for(card_list(deck, "deck"))
        used = 0
        for i in ids:
            used |= 1 << i
        rest = [i for i in range(d.size) if not used >> i & 1]
        return ids + [rest[i] for i in self.deal_rng.permutation(len(rest))]

    # ------------------------------------------------------------------ scripted positions
    def set_position(
        self,
        hands: Sequence[Sequence[str | int]],
        stock: Sequence[str | int] = (),
        discard: Sequence[str | int] = (),
        *,
        turn: int,
        suit: str | None = None,
        direction: int = 1,
        **settings: Any,
    ) -> None:
        """Replace the current hand's cards with a scripted position and give ``turn`` the move.

        ``stock`` is top first, ``discard`` bottom first (its last card is the top card). Cards of
        the deck placed nowhere are set aside for the rest of the hand. ``suit`` names the suit
        a wild on top stands for (required in the Crates family). The family's own settings:
        ``count`` and ``penalty_owed`` (seats) in the Crates family, ``demand`` in the Crazy
        Eights family. The hand's flags start fresh; what it has charged so far (pressures,
        revokes) and the game's scores are kept. Bad input raises ``ValueError`` and changes
        nothing.
        """
        settings = self._position_settings(settings)
        self._check_seat(turn, "turn")
        if not isinstance(hands, list | tuple) or len(hands) != self.n:
            raise ValueError(f"set_position needs a list of {self.n} hands, not {hands!r}")
        if int_value(direction) not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, not {direction!r}")
        parsed = [card_list(h, f"hands[{s}]") for s, h in enumerate(hands)]
        st, dc = card_list(stock, "stock"), card_list(discard, "discard")
        if not dc:
            raise ValueError("set_position needs at least the top card in discard")
        knocked_out = [s for s in range(self.n) if parsed[s] and not self.game_state.active[s]]
        if knocked_out:
            raise ValueError(f"seats {knocked_out} are knocked out and hold no cards")
        ids = self.deck.ids_for([k for h in parsed for k in h] + st + dc)
        if suit is None and self._needs_suit(dc):
            raise ValueError(f"the top card is {card_code(dc[-1])}: say which suit is current")
        parsed_suit = None if suit is None else _parse_suit(suit)
        hs = self.hand_state
        hs.hands, hs.sizes = [0] * self.n, [len(h) for h in parsed]
        pos = 0
        for seat, h in enumerate(parsed):
            for _ in h:
                hs.hands[seat] |= 1 << ids[pos]
                pos += 1
        hs.stock = ids[pos : pos + len(st)][::-1]
        hs.discard = ids[pos + len(st) :]
        placed = 0
        for i in ids:
            placed |= 1 << i
        hs.aside = self.deck.full_mask & ~placed
        hs.direction = direction
        hs.over, hs.went_out = False, None
        self._set_family_position(**settings)
        self._set_top(dc, parsed_suit)
        hs.events.append(event("position_set", turn))
        try:
            self._start_turn(turn)
        except HandEnded:  # a one-card penalty drawn past an empty stock (E-1)
            self._finish_hand()

    @abstractmethod
    def _position_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The family's scripted-position settings, checked (``set_position``)."""

    def _needs_suit(self, discard: list[int]) -> bool:
        """Whether a scripted discard pile must say which suit is current."""
        return False

    @abstractmethod
    def _set_top(self, discard: list[int], suit: int | None) -> None:
        """The suit and rank to follow on a scripted discard pile (``suit``: the one named)."""

    @abstractmethod
    def _start_turn(self, seat: int) -> None:
        """Give ``seat`` its turn (a one-card penalty it owes may take the turn away)."""

    # ------------------------------------------------------------------ seats
    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.hand_state.direction) % self.n

    def prev_seat(self, seat: int) -> int:
        return (seat - self.hand_state.direction) % self.n

    # ------------------------------------------------------------------ the public surface
    @property
    def state(self) -> State:
        """The game's state value (game, hand, turn): read it, never write it."""
        return State(self.game_state, self.hand_state, self.turn_state)

    @property
    def decision(self) -> Decision | None:
        return self.turn_state.decision

    @property
    def turn(self) -> int:
        """The seat whose turn (and hand) it is."""
        return self.turn_state.seat

    @property
    def to_play(self) -> int:
        """The seat that must decide now: the player on ``turn``, except that Figgy's decisions
        are made by prev(Figgy) [000:161]."""
        turn = self.turn_state.seat
        return self.prev_seat(turn) if turn == self.rules.dummy_seat else turn

    @property
    def game_over(self) -> bool:
        return self.game_state.over

    @property
    def truncated(self) -> bool:
        """The game was stopped by a guard (``max_hands``, ``max_decisions_per_hand``)."""
        return self.game_state.truncated

    @property
    def hand_index(self) -> int:
        return self.game_state.hand_index

    @property
    def dealer(self) -> int:
        return self.game_state.dealer

    @property
    def deal_size(self) -> int:
        return self.hand_state.deal_size

    @property
    def scores(self) -> list[int]:
        """Cumulative score per team (per seat without partnerships)."""
        return list(self.game_state.scores)

    @property
    def stars(self) -> list[int]:
        return list(self.game_state.stars)

    @property
    def pressure_count(self) -> list[int]:
        """Pressures taken this game, per team."""
        return list(self.game_state.pressure_count)

    @property
    def pressure_points(self) -> list[int]:
        """Pressure points charged in the hand being played, per team."""
        return list(self.hand_state.pressure_points)

    @property
    def active(self) -> list[bool]:
        """Per seat: still in the game (zimbabwe knocks players out)."""
        return list(self.game_state.active)

    @property
    def results(self) -> list[HandResult]:
        return list(self.game_state.results)

    @property
    def hand_logs(self) -> list[tuple[Event, ...]]:
        """The events of each finished hand (``str(event)`` is its text)."""
        return list(self.game_state.hand_logs)

    @property
    def events(self) -> list[Event]:
        """The events of the hand being played (the last hand's once the game is over)."""
        return list(self.hand_state.events)

    @property
    def direction(self) -> int:
        return self.hand_state.direction

    @property
    def hand_sizes(self) -> list[int]:
        return list(self.hand_state.sizes)

    @property
    def top_card(self) -> str | None:
        discard = self.hand_state.discard
        return card_code(self.deck.kinds[discard[-1]]) if discard else None

    @property
    def current_suit(self) -> str | None:
        suit = self.hand_state.suit
        return None if suit is None else SUITS[suit]

    def legal_actions(self) -> list[int]:
        """Legal actions for the pending decision (empty when the game is over)."""
        ts = self.turn_state
        if ts.legal is None:
            ts.legal = self._compute_legal()
        return list(ts.legal)

    def acceptable_actions(self) -> list[int]:
        """The actions ``apply`` accepts now: the legal ones, plus with ``misplay_mode="penalize"``
        the misplays the rules penalise. ``legal_actions`` stays the mask of rule-abiding
        actions."""
        legal = self.legal_actions()
        return legal + self._misplays() if self.rules.misplay_mode == "penalize" else legal

    def action_names(self) -> list[str]:
        return [action_name(a) for a in self.legal_actions()]

    def hand(self, seat: int) -> list[str]:
        """Card codes held by ``seat`` (hidden from the others: for tests, replays and the
        privileged critic)."""
        return [card_code(k) for k in self.hand_kinds(seat)]

    def hand_kinds(self, seat: int) -> list[int]:
        return self.deck.kinds_in(self.hand_state.hands[seat])

    def stock_kinds(self) -> list[int]:
        """Kinds in the stock, top first (hidden from every player)."""
        kinds = self.deck.kinds
        return [kinds[i] for i in reversed(self.hand_state.stock)]

    def stock_cards(self) -> list[str]:
        """Stock card codes, top first (hidden information: for tests and replays)."""
        return [card_code(k) for k in self.stock_kinds()]

    def discard_cards(self) -> list[str]:
        """Discard pile codes, bottom first (the last is the top card)."""
        return [card_code(self.deck.kinds[i]) for i in self.hand_state.discard]

    def seat_scores(self) -> list[int]:
        """Cumulative score of each seat (its partnership's score in a partnership game)."""
        scores, team_of = self.game_state.scores, self.rules.team_of
        return [scores[team_of(s)] for s in range(self.n)]

    def winners(self) -> list[int]:
        """Teams (seats, without partnerships) with the best final score (the lowest, or the
        highest where points are won: ``rules.point_sign``); ties by stars. In an elimination
        game: the players left."""
        r, gs = self.rules, self.game_state
        if r.game_end == "last_player":
            return [s for s in range(self.n) if gs.active[s]]
        return best_scores(r, gs.scores, gs.stars)

    # ------------------------------------------------------------------ views, copies, re-deals
    def view(self, seat: int) -> PublicView:
        """What ``seat`` may know now: its own hand and everything public."""
        if type(seat) is not int or not 0 <= seat < self.n:
            self._check_seat(seat)
        gs, hs, ts = self.game_state, self.hand_state, self.turn_state
        decision = ts.decision
        discard = hs.discard
        dummy = self.rules.dummy_seat
        playing = decision is not None
        return PublicView(
            seat=seat,
            hand=hs.hands[seat],
            decision=decision,
            to_play=self.to_play if playing else None,
            turn=ts.seat if playing else None,
            top=self.deck.kinds[discard[-1]] if discard else None,
            suit=hs.suit,
            rank=hs.rank,
            direction=hs.direction,
            stock_size=len(hs.stock),
            discard_size=len(discard),
            played=tuple(hs.played),
            sizes=tuple(hs.sizes),
            active=gs.active,
            dummy_hand=0 if dummy is None else hs.hands[dummy],
            pressures=gs.pressure_count,
            scores=gs.scores,
            stars=gs.stars,
            hand_index=gs.hand_index,
            deal_size=hs.deal_size,
            dealer=gs.dealer,
            game_over=gs.over,
            rules=self.rules,
            **self._family_view(),
        )

    def clone(self) -> Game:
        """An independent copy that plays on exactly as this game does under the same actions,
        reshuffles and later deals included. The rules and the deck are shared (immutable); the
        state values and the two random streams are copied."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.game_state = self.game_state.copy()
        new.hand_state = self.hand_state.copy()
        new.turn_state = self.turn_state.copy()
        new.deal_rng = _copy_generator(self.deal_rng)
        new.rng = _copy_generator(self.rng)
        return new

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> Game:
        """A clone in which every card ``seat`` cannot see is dealt again, uniformly at random.

        Dealt again: the cards the other players hold face down and the stock's cards and order;
        kept: ``seat``'s own hand, cards face up in a hand (the dummy's, kreights penalty cards),
        the discard pile and every count and size. The clone's reshuffles and later deals come
        from ``rng`` too. The re-deal depends only on what ``seat`` can see and on ``rng``: two
        positions ``seat`` cannot tell apart give the same cards in the same places for the same
        ``rng`` state, so a search built on it never reads a hidden card (OpenSpiel's
        ``ResampleFromInfostate``). ``rng`` is advanced.
        """
        self._check_seat(seat)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator, not {type(rng).__name__}")
        out = self.clone()
        hs = out.hand_state
        others = [s for s in range(self.n) if s != seat]
        hidden = [hs.hands[s] & ~self._face_up(s) for s in others]
        kinds = self.deck.kinds
        # In the order of their kinds: where the hidden cards lie must not change the re-deal.
        ids = [i for mask in hidden for i in _ids(mask)] + hs.stock
        pool = sorted(ids, key=lambda i: (kinds[i], i))
        shuffled = [pool[j] for j in rng.permutation(len(pool))]
        start = 0
        for s, mask in zip(others, hidden, strict=True):
            fresh = 0
            for i in shuffled[start : start + mask.bit_count()]:
                fresh |= 1 << i
            start += mask.bit_count()
            hs.hands[s] = (hs.hands[s] & ~mask) | fresh
        hs.stock = shuffled[start:]
        out.deal_rng, out.rng = game_streams(rng)
        out.turn_state.legal = None
        return out

    def _check_seat(self, seat: object, what: str = "seat") -> None:
        if int_value(seat) is None or not 0 <= seat < self.n:
            raise ValueError(f"{what} must be 0..{self.n - 1}, not {seat!r}")

    # ------------------------------------------------------------------ acting
    def apply(self, action: int) -> None:
        """Apply one action of the pending decision; raises ``IllegalActionError`` unless it is
        legal (or, with ``misplay_mode="penalize"``, a misplay the rules penalise)."""
        ts = self.turn_state
        legal = ts.legal
        if legal is None:
            legal = ts.legal = self._compute_legal()
        handler = self._act
        if type(action) is not int or action not in legal:
            action, handler = self._screen(action, legal)
        ts.legal = None
        hs = self.hand_state
        hs.decisions += 1
        try:  # noqa: SIM105 (contextlib.suppress is slower on this hot path)
            handler(action)
        except HandEnded:
            pass
        if hs.over:
            self._finish_hand()
        elif hs.decisions >= self.rules.max_decisions_per_hand:
            self._truncate()

    def _screen(self, action: object, legal: list[int]) -> tuple[int, Callable[[int], None]]:
        """apply's slow path: numpy integers, penalised misplays, and refusals."""
        try:  # ints and numpy integers; a float or a bool is not an action
            if isinstance(action, bool):
                raise TypeError
            action = operator.index(action)
        except TypeError:
            self._reject(action, legal)
        if action in legal:
            return action, self._act
        if self.rules.misplay_mode == "penalize" and action in self._misplays():
            return action, self._misplay
        self._reject(action, legal)

    def _reject(self, action: object, legal: list[int]) -> NoReturn:
        decision = self.turn_state.decision
        if decision is None:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        name = (
            action_name(action) if isinstance(action, int) and 0 <= action < NUM_ACTIONS else None
        )
        what = f"{action!r} ({name})" if name else repr(action)
        accepted = ", ".join(f"{a} ({action_name(a)})" for a in legal)
        misplays = self._misplays() if self.rules.misplay_mode == "penalize" else []
        if misplays:
            accepted += "; penalised misplays: " + ", ".join(
                f"{a} ({action_name(a)})" for a in misplays
            )
        raise IllegalActionError(
            f"illegal action {what} for p{self.to_play} ({decision.name.lower()} decision); "
            f"legal: {accepted}"
        )

    # ------------------------------------------------------------------ drawing (procedure D)
    def _draw(self, seat: int, k: int) -> int:
        """Procedure D of docs/rules.md §1.15: ``seat`` draws ``k`` cards, refilling the stock when
        it runs out; returns the number drawn (fewer only when zimbabwe has nothing to
        reshuffle)."""
        hs = self.hand_state
        stock = hs.stock
        if len(stock) < k:
            return self._draw_past_stock(seat, k)
        hand = hs.hands[seat]
        for _ in range(k):
            hand |= 1 << stock.pop()
        hs.hands[seat] = hand
        hs.sizes[seat] += k
        hs.events.append(event("draw", seat, None, k))
        return k

    def _draw_past_stock(self, seat: int, k: int) -> int:
        hs = self.hand_state
        got = 0
        while True:
            stock = hs.stock
            take = min(k - got, len(stock))
            hand = hs.hands[seat]
            for _ in range(take):
                hand |= 1 << stock.pop()
            hs.hands[seat] = hand
            hs.sizes[seat] += take
            got += take
            if got == k:
                hs.events.append(event("draw", seat, None, k))
                return k
            if not self._refill(seat, got, k):
                return got

    def _refill(self, seat: int, got: int, k: int) -> bool:
        """The stock is empty with cards still to draw; False: the draw stops short.

        Crates family: a pressure each time, and the hand ends when nothing can be reshuffled
        (E-1). zimbabwe: a free reshuffle, and the draw is skipped when there is nothing to
        reshuffle (§1.10). crazy_eights: no reshuffle, the hand is blocked [003:47] (E-63).
        """
        hs = self.hand_state
        policy = self.rules.empty_stock
        if policy == "blocked":
            hs.events.append(event("blocked", seat))
            self._end_hand("blocked")
            raise HandEnded
        if policy == "pressure":
            self._charge_pressure(seat)
        if len(hs.discard) > 1:
            self._reshuffle()
            return True
        hs.events.append(event("draw_short", seat, None, got, k))
        if policy == "reshuffle":
            return False
        self._end_hand("pressure")
        raise HandEnded

    def _charge_pressure(self, seat: int) -> None:
        drawer = None
        if seat == self.rules.dummy_seat:  # Figgy "never receives a pressure" [000:162]
            drawer, seat = seat, self._next_to_play()
        gs, hs = self.game_state, self.hand_state
        team = self.rules.team_of(seat)
        gs.pressure_count = _add(gs.pressure_count, team, 1)
        value = pressure_value(gs.pressure_count[team], self.rules.pressure)
        hs.pressure_points[team] += value
        hs.pressures[team] += 1
        hs.seat_pressures[seat] += 1
        hs.events.append(event("pressure", seat, None, value, drawer))

    def _next_to_play(self) -> int:
        """SHWS: "the next player to play" after a draw of Figgy's (C-19): the seat the turn goes
        to from the player on turn, or the human after it when that is Figgy (DV-31)."""
        seat = self.next_seat(self.turn_state.seat)
        return self.next_seat(seat) if seat == self.rules.dummy_seat else seat

    def _reshuffle(self) -> None:
        hs = self.hand_state
        top = hs.discard.pop()
        cards = hs.discard
        hs.stock = [cards[i] for i in self.rng.permutation(len(cards))]
        hs.discard = [top]
        hs.events.append(event("reshuffle", None, None, len(hs.stock)))

    # ------------------------------------------------------------------ end of hand and game
    def _end_hand(self, reason: str) -> None:
        hs = self.hand_state
        hs.over = True
        hs.ended_by = reason
        self.turn_state.stop()

    def _finish_hand(self) -> None:
        gs, hs = self.game_state, self.hand_state
        self._settle_hand()
        gs.last_direction = hs.direction
        self._score_hand()
        gs.hand_logs.append(tuple(hs.events))
        gs.hand_index += 1
        if self._game_decided():
            gs.over = True
            self.turn_state.stop()
            return
        if gs.hand_index >= self.rules.max_hands:
            self._truncate_game()
            return
        gs.dealer = self._next_dealer()
        self._start_hand(None, [])

    def _game_decided(self) -> bool:
        return self.game_state.hand_index >= self.rules.num_hands

    def _next_dealer(self) -> int:
        """The deal passes left (right after a counter-clockwise craits finish), skipping seats
        that never deal (Figgy) and players knocked out."""
        step = -1 if self._deal_goes_right() else 1
        gs = self.game_state
        seat = gs.dealer
        while True:
            seat = (seat + step) % self.n
            if gs.active[seat] and seat in self.rules.dealer_seats:
                return seat

    def _hand_result(self, card_points: list[int], team_points: list[int], **extra: Any) -> None:
        """Record the hand's result and add its points to the scores."""
        gs, hs = self.game_state, self.hand_state
        gs.scores = tuple(score + v for score, v in zip(gs.scores, team_points, strict=True))
        gs.results.append(
            HandResult(
                hand_index=gs.hand_index,
                deal_size=hs.deal_size,
                dealer=gs.dealer,
                ended_by=hs.ended_by,
                cards_left=[self.hand(s) for s in range(self.n)],
                card_points=card_points,
                pressure_points=list(hs.pressure_points),
                pressures=list(hs.pressures),
                team_points=team_points,
                seat_pressures=list(hs.seat_pressures),
                **extra,
            )
        )

    def _truncate(self) -> None:
        hs = self.hand_state
        hs.events.append(event("hand_truncated", None, None, hs.decisions))
        hs.over = True
        hs.ended_by = "truncated"
        self.game_state.hand_logs.append(tuple(hs.events))
        self._stop_truncated()

    def _truncate_game(self) -> None:
        """Stop after the hand just finished: the guard's event ends that hand's log."""
        gs = self.game_state
        stop = event("game_truncated", None, None, gs.hand_index)
        self.hand_state.events.append(stop)
        gs.hand_logs[-1] += (stop,)
        self._stop_truncated()

    def _stop_truncated(self) -> None:
        self.game_state.truncated = True
        self.game_state.over = True
        self.turn_state.stop()


def engine_for(rules: Ruleset | str) -> type[Game]:
    """The engine class that plays ``rules`` (a Ruleset or a preset name)."""
    if isinstance(rules, Ruleset):
        family = rules.engine
    elif isinstance(rules, str):
        family = engine_of(rules)
    else:
        family = "crates"  # the constructor names the problem
    return Game._engines[family]


def new_game(
    rules: Ruleset | str = "crates", num_players: int | None = None, **kwargs: Any
) -> Game:
    """A new game of ``rules`` (a preset name or a Ruleset) on the engine of its family.

    ``kwargs`` are ``seed``, ``dealer``, ``deck``, ``hand_index`` and ruleset options, as for
    :class:`Game`: ``new_game("zimbabwe", 4, seed=1)``.
    """
    return engine_for(rules)(rules, num_players, **kwargs)


def first_dealer(
    rules: Ruleset, deal_rng: np.random.Generator, dealer: int | None, events: list[Event]
) -> int:
    """The first dealer: ``dealer`` when given (checked), else the rules' way, drawn from the
    deal stream (at random, or by drawing cards for deal, redrawing ties where the rules say
    so). The compiled engine starts its games with it too."""
    seats = list(rules.dealer_seats)
    if dealer is not None:
        if int_value(dealer) not in seats:
            raise ValueError(
                f"dealer must be a seat that deals ({', '.join(map(str, seats))}), not {dealer!r}"
            )
        return int(dealer)
    rule = rules.dealer_rule
    if isinstance(rule, int):
        return rule
    if rule == "random":
        return seats[int(deal_rng.integers(len(seats)))]
    deck = rules.deck
    while True:  # draw for deal; redraw ties where the rules say so
        drawn = deal_rng.permutation(deck.size)[: len(seats)]
        cards = [deck.kinds[i] for i in drawn]
        for s, c in zip(seats, cards, strict=True):
            events.append(event("draw_for_deal", s, c))
        low = lowest_cards(cards, break_ties_by_suit=rules.low_card_ties == "suit")
        if len(low) == 1:
            events.append(event("first_dealer", seats[low[0]]))
            return seats[low[0]]
        seats = [seats[i] for i in low]


def best_scores(rules: Ruleset, scores: Sequence[int], stars: Sequence[int]) -> list[int]:
    """The sides with the best final score (``Ruleset.standing``: the lowest, or the highest
    where points are won); ties go to the most stars where the rules count stars."""
    standing = rules.standing(scores)
    best = max(standing)
    tied = [t for t, s in enumerate(standing) if s == best]
    if rules.stars and len(tied) > 1:
        most = max(stars[t] for t in tied)
        tied = [t for t in tied if stars[t] == most]
    return tied


def _ruleset(rules: Ruleset | str, num_players: int | None, options: dict) -> Ruleset:
    if isinstance(rules, Ruleset):
        if num_players not in (None, rules.num_players):
            raise ValueError(
                f"num_players={num_players} contradicts the ruleset's {rules.num_players}"
            )
        return rules.with_options(**options) if options else rules
    return make_ruleset(rules, num_players, **options)


def game_streams(seed: int | np.random.Generator | None) -> tuple[np.random.Generator, ...]:
    """Two streams: the deals (first dealer, every hand's deck order) and the reshuffles. The
    deals then never depend on how the hands are played, so the same seed gives the same cards
    in every hand whoever sits where: duplicate play."""
    if isinstance(seed, np.random.Generator):
        return tuple(np.random.default_rng(int(x)) for x in seed.integers(2**63, size=2))
    if seed is not None and (int_value(seed) is None or seed < 0):
        raise ValueError(f"seed must be an int >= 0, a numpy Generator or None, not {seed!r}")
    return tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))


def _copy_generator(rng: np.random.Generator) -> np.random.Generator:
    copy = np.random.Generator(np.random.PCG64(0))
    copy.bit_generator.state = rng.bit_generator.state
    return copy


def _add(values: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    """``values`` with ``amount`` added at ``index`` (the game's tuples are replaced, not
    changed)."""
    return (*values[:index], values[index] + amount, *values[index + 1 :])


def _ids(mask: int) -> list[int]:
    ids = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return ids


def _parse_suit(suit: object) -> int:
    if not isinstance(suit, str) or suit.upper() not in SUITS:
        raise ValueError(f"bad suit {suit!r}: valid suits are C, D, H, S")
    return SUITS.index(suit.upper())


def lowest_cards(cards: Sequence[int], break_ties_by_suit: bool = True) -> list[int]:
    """Indices of the lowest cards drawn for deal: ace low, then (kreights) clubs < diamonds <
    hearts < spades [001:19]. Identical cards (two decks) always tie."""

    def key(k: int) -> tuple[int, int]:
        return (rank_of(k), suit_of(k) if break_ties_by_suit else 0)

    best = min(key(k) for k in cards)
    return [i for i, k in enumerate(cards) if key(k) == best]

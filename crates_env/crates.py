"""The Crates family: ``crates``, ``chicago1970``, ``kreights``, ``craits``, ``creights``.

:class:`CratesGame` plays a turn of the family (docs/rules.md §1.3-1.15): match the suit or the
rank of the top card, or play a wild (8, 9: name a suit) or a Joker; draw one when no play is
legal. What
a card does to the table is its :class:`~crates_env.presets.CardFunction` (who draws how many, who
plays next, does the turn go on). The procedural rules are code here:

- **the count**: a 2 starts it, each ace or 2 adds to it, a Joker bounces it back to the previous
  player; the player who cannot add draws the total (a player who runs out during the count is
  out, and the hand ends when the count is drawn, docs/rules.md §1.5);
- **Coopers**: a 6 (and a craits face K) must be followed by the same player; with nothing to
  follow, the turn ends with a draw;
- **the transparent Joker**: the suit and rank beneath it stay in force;
- the one-card call (``crates_env.calls``) and the misplay penalties (``crates_env.misplays``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Self

from .actions import ANNOUNCE, DRAW, SUIT
from .calls import OneCardCalls
from .cards import (
    ACE,
    EIGHT,
    JACK,
    JOKER,
    NINE,
    SIX,
    THREE,
    TWO,
    Deck,
    card_code,
    rank_of,
    same_colour_suits,
    suit_of,
)
from .events import Event, event
from .game import Game, HandEnded
from .misplays import Misplays
from .rules import COUNT_PIPS, Ruleset, int_value
from .scoring import score_kinds
from .state import Decision, GameState, HandState, TurnState


@dataclass(frozen=True)
class PlayMasks:
    """The cards a player may play, as bitmasks over the deck's card ids (docs/rules.md §1.3-1.5):
    ``match[suit][rank]`` on that suit and rank outside the count (the suit, the rank, a wild
    8 or 9, a Joker), ``count`` in a count (an ace, a 2, a Joker), ``six`` the sixes."""

    match: tuple[tuple[int, ...], ...]
    count: int
    six: int


@functools.cache
def play_masks(deck: Deck) -> PlayMasks:
    """The Crates family's :class:`PlayMasks` for ``deck`` (the compiled engine reads them too)."""
    wild = deck.rank_mask[EIGHT] | deck.rank_mask[NINE]
    jokers = deck.joker_mask
    match = tuple(
        tuple(deck.suit_mask[s] | deck.rank_mask[r] | wild | jokers for r in range(13))
        for s in range(4)
    )
    return PlayMasks(match, deck.rank_mask[ACE] | deck.rank_mask[TWO] | jokers, deck.rank_mask[SIX])


@dataclass(slots=True)
class CratesGameState(GameState):
    mulligans_left: set[int] = field(default_factory=set)  # kreights: first miss forgiven

    @classmethod
    def new(cls, rules: Ruleset, hand_index: int, dealer: int) -> Self:
        # (no zero-argument super() in a slots dataclass: the class is rebuilt after the body)
        state = GameState.new.__func__(cls, rules, hand_index, dealer)
        state.mulligans_left = set(rules.mulligans)
        return state


@dataclass(slots=True)
class CratesHand(HandState):
    """The Crates family's hand: the count, the one-card penalties and the penalty cards."""

    count: int = 0  # the running count (A/2 sequence); 0 when none runs
    out_order: list[int] = field(default_factory=list)  # seats out during the count, in order
    penalty_owed: list[bool] = field(default_factory=list)  # per seat: a missed call to pay
    revoke_points: list[int] = field(default_factory=list)  # per team (kreights, penalize)
    exposed: list[int] = field(default_factory=list)  # per seat: kreights penalty cards (ids)
    ha_ha: bool = False  # kreights: the count came back to the first player out
    clean: list[int] = field(default_factory=list)  # kreights: seats out later in the count
    jack_run: int = 0  # jacks played in a row (craits face J)
    series_left: int = 0  # craits face K: cards still to play in the series
    call_on_deal: list[bool] = field(default_factory=list)  # per seat: a deal call still due

    @classmethod
    def new(cls, deal_size: int, num_players: int, num_teams: int, events: list[Event]) -> Self:
        # (no zero-argument super() in a slots dataclass: the class is rebuilt after the body)
        hand = HandState.new.__func__(cls, deal_size, num_players, num_teams, events)
        hand.penalty_owed = [False] * num_players
        hand.revoke_points = [0] * num_teams
        hand.exposed = [0] * num_players
        hand.call_on_deal = [False] * num_players
        return hand


@dataclass(slots=True)
class CratesTurn(TurnState):
    """A Crates turn: it can hold several plays (a 6 and its follow-up), and a call."""

    plays: int = 0  # cards played this turn
    called: bool = False  # "one card" was announced this turn
    call_missed: bool = False  # creights: this turn's missed call was already charged
    announced: bool = False  # announced for the coming play
    cooper_draw: int = 1  # cards drawn if the turn ends on a Cooper (2: a missed chicago call)
    six_missed: bool = False  # chicago1970: a last-card 6 was played without the call
    pending: tuple[int, bool] | None = None  # the wild (kind, plain) whose suit is asked
    chooser: int | None = None  # who picks a penalty card for the player on turn
    forced: int | None = None  # the penalty card picked

    def begin(self, seat: int) -> None:
        self.seat = seat
        self.decision = Decision.PLAY
        self.legal = None
        self.plays = 0
        self.called = self.call_missed = self.announced = self.six_missed = False
        self.cooper_draw = 1
        self.pending = self.chooser = self.forced = None

    def decide(self, seat: int, decision: Decision) -> None:
        self.seat = seat
        self.decision = decision
        self.legal = None
        self.announced = False


class CratesGame(Misplays, OneCardCalls, Game, family="crates"):
    """A game of the Crates family; see the module docstring."""

    game_state: CratesGameState
    hand_state: CratesHand
    turn_state: CratesTurn

    # ------------------------------------------------------------------ setup
    def _build_masks(self) -> None:
        masks = play_masks(self.deck)
        self._match, self._count_mask, self._six_mask = masks.match, masks.count, masks.six
        self._functions = self.rules.card_functions

    def _new_game_state(self, hand_index: int, dealer: int) -> CratesGameState:
        return CratesGameState.new(self.rules, hand_index, dealer)

    def _new_turn_state(self) -> CratesTurn:
        return CratesTurn()

    def _new_hand(self, deal_size: int, events: list[Event]) -> CratesHand:
        hand = CratesHand.new(deal_size, self.n, self.rules.num_teams, events)
        hand.call_on_deal = [self.rules.call_on_one_card_deal and deal_size == 1] * self.n
        return hand

    def _turn_starter(self) -> None:
        hs, ts = self.hand_state, self.turn_state
        d = self.game_state.dealer
        ts.begin(d)  # the dealer's effects and suit come first
        ts.stop()
        cid = hs.stock.pop()
        hs.discard.append(cid)
        kind = self.deck.kinds[cid]
        hs.played[kind] += 1
        count = None
        if kind == JOKER:
            hs.suit = hs.rank = None  # nothing beneath: the first play is free (E-35)
        else:
            hs.suit, hs.rank = suit_of(kind), rank_of(kind)
            if hs.rank == TWO:
                hs.count = count = 2
            hs.jack_run = 1 if hs.rank == JACK else 0
        hs.events.append(event("turn_starter", d, kind, count))
        try:
            self._card_effect(d, kind)
            if kind != JOKER and rank_of(kind) in (EIGHT, NINE):
                self._ask_suit(d, kind, Decision.STARTER_SUIT, False)
            else:
                self._after_play(d, kind, False)
        except HandEnded:
            self._finish_hand()

    # ------------------------------------------------------------------ scripted positions
    def _position_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(settings) - {"count", "penalty_owed"})
        if unknown:
            raise ValueError(
                f"set_position got {', '.join(unknown)}; the Crates family takes count and "
                "penalty_owed"
            )
        count = settings.get("count", 0)
        if int_value(count) is None or count < 0:
            raise ValueError(f"count must be an int >= 0, not {count!r}")
        owed = settings.get("penalty_owed", ())
        if not isinstance(owed, list | tuple) or any(
            int_value(s) is None or not 0 <= s < self.n for s in owed
        ):
            raise ValueError(f"penalty_owed takes a list of seats 0..{self.n - 1}, not {owed!r}")
        return {"count": int(count), "penalty_owed": tuple(owed)}

    def _needs_suit(self, discard: list[int]) -> bool:
        top = _below_jokers(discard)
        return top == JOKER or rank_of(top) in (EIGHT, NINE)

    def _set_top(self, discard: list[int], suit: int | None) -> None:
        hs = self.hand_state
        top = _below_jokers(discard)  # Jokers are transparent
        hs.rank = None if top == JOKER else rank_of(top)
        hs.suit = suit_of(top) if suit is None else suit
        if hs.rank is None:
            hs.suit = None  # nothing beneath the Jokers: the next play is free (E-35)
        hs.jack_run = 1 if top != JOKER and rank_of(top) == JACK else 0

    def _set_family_position(self, count: int, penalty_owed: tuple[int, ...]) -> None:
        hs, n = self.hand_state, self.n
        hs.count = count
        hs.free_play = False
        hs.series_left = 0
        hs.out_order, hs.clean = [], []
        hs.ha_ha = False
        hs.penalty_owed = [s in penalty_owed for s in range(n)]
        hs.exposed = [0] * n
        hs.call_on_deal = [False] * n

    # ------------------------------------------------------------------ public view
    @property
    def to_play(self) -> int:
        """The seat that must decide now: the player on ``turn``, except that Figgy's decisions
        are made by prev(Figgy) [000:161] and the previous player picks among several playable
        penalty cards [001:71]."""
        ts = self.turn_state
        if ts.chooser is not None:
            return ts.chooser
        turn = ts.seat
        return self.prev_seat(turn) if turn == self.rules.dummy_seat else turn

    @property
    def count(self) -> int:
        """The running count (A/2 sequence); 0 when none runs."""
        return self.hand_state.count

    @property
    def penalty_owed(self) -> list[bool]:
        """Per seat: a missed one-card call still to pay."""
        return list(self.hand_state.penalty_owed)

    @property
    def revoke_points(self) -> list[int]:
        """Revoke points charged this hand, per team (kreights, penalize)."""
        return list(self.hand_state.revoke_points)

    def penalty_cards(self, seat: int) -> list[str]:
        """Card codes of ``seat``'s exposed kreights penalty cards (part of its hand)."""
        return [card_code(k) for k in self.deck.kinds_in(self.hand_state.exposed[seat])]

    def pending_draw(self) -> int:
        """Cards the player to act would take by drawing now: the count, a Cooper's, or one."""
        hs, ts = self.hand_state, self.turn_state
        if hs.count:
            return hs.count
        return ts.cooper_draw if ts.plays else 1

    def _face_up(self, seat: int) -> int:
        return super()._face_up(seat) | self.hand_state.exposed[seat]

    def _family_view(self) -> dict[str, Any]:
        hs, ts = self.hand_state, self.turn_state
        return {
            "count": hs.count,
            "demand": 0,
            "pending_draw": 0 if ts.decision is None else self.pending_draw(),
            "playing_again": ts.plays > 0,
            "announced": ts.announced,
            "free_play": hs.free_play,
            "penalty_owed": tuple(hs.penalty_owed),
            "exposed": tuple(hs.exposed),
        }

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self) -> list[int]:
        ts, hs = self.turn_state, self.hand_state
        dec = ts.decision
        if dec is None:
            return []
        p = ts.seat
        if dec is Decision.PLAY:
            hand = hs.hands[p]
            plays = hand & self._play_mask()
            if hs.exposed[p]:
                plays = self._forced_plays(p, plays)
            if not plays:
                return [DRAW, ANNOUNCE] if hs.call_on_deal[p] else [DRAW]
            actions = self.deck.distinct_kinds_in(plays)
            if self._call_offered(p, hand, plays):
                actions.append(ANNOUNCE)
            return actions
        if dec is Decision.PENALTY_CARD:
            return self.deck.distinct_kinds_in(hs.hands[p] & hs.exposed[p] & self._play_mask())
        return [SUIT + s for s in ts.suit_choices]

    def _play_mask(self) -> int:
        hs = self.hand_state
        if hs.count:
            return self._count_mask
        if hs.free_play or hs.suit is None:
            return self.deck.full_mask
        return self._match[hs.suit][hs.rank]

    # ------------------------------------------------------------------ acting
    def _act(self, action: int) -> None:
        ts = self.turn_state
        dec = ts.decision
        if dec is Decision.PLAY:
            p = ts.seat
            if action == ANNOUNCE:
                self._announce(p)
                return
            call_on_deal = self.hand_state.call_on_deal
            if call_on_deal[p]:
                call_on_deal[p] = False
                self._missed_call(p)
            if action == DRAW:
                self._draw_move(p)
            else:
                self._play(p, action)
        elif dec is Decision.PENALTY_CARD:
            self._pick_penalty_card(action)
        else:
            self._name_suit(action - SUIT)

    def _play(self, p: int, kind: int) -> None:
        hs, ts = self.hand_state, self.turn_state
        size_before = hs.sizes[p]
        ids = hs.hands[p] & self.deck.kind_mask[kind]
        exposed = hs.exposed[p]
        if exposed & ids:  # a penalty card leaves the table first
            ids &= exposed
            hs.exposed[p] = exposed ^ (ids & -ids)
        low = ids & -ids
        hs.hands[p] ^= low
        hs.sizes[p] = size_before - 1
        hs.discard.append(low.bit_length() - 1)
        hs.played[kind] += 1
        ts.plays += 1
        series = hs.series_left
        plain = series > 1  # the first two cards of a face-K series have no function
        if series:
            hs.series_left = series - 1
        announced = ts.announced
        ts.announced = False
        joker = kind == JOKER
        rank = -1 if joker else rank_of(kind)
        if not joker:
            hs.rank = rank
            if rank != EIGHT and rank != NINE:
                hs.suit = suit_of(kind)
            hs.free_play = False
            hs.jack_run = hs.jack_run + 1 if rank == JACK else 0
        if hs.count:
            hs.count += COUNT_PIPS.get(rank, 0)
            count = hs.count
        elif rank == TWO and not plain:
            hs.count = count = 2
        else:
            count = None
        hs.events.append(event("play", p, kind, count))
        self._check_call(p, size_before, kind, announced)
        if self.rules.one_card_per_turn and hs.sizes[p] == 1:
            self._check_turn_call(p)
        if not hs.sizes[p] and not hs.count and not self._must_play_again(kind, plain):
            hs.went_out = p  # out now, even if this card's draws end the hand on a pressure
        if not plain and self._functions[kind].draws:
            self._card_effect(p, kind)
        if rank in (EIGHT, NINE) and (hs.sizes[p] or hs.series_left):
            self._ask_suit(p, kind, Decision.SUIT, plain)
            return
        self._after_play(p, kind, plain)

    def _ask_suit(self, p: int, kind: int, decision: Decision, plain: bool) -> None:
        ts, hs = self.turn_state, self.hand_state
        if rank_of(kind) == EIGHT or (
            decision is Decision.STARTER_SUIT and self.rules.nine_starter_any_suit
        ):
            ts.suit_choices = (0, 1, 2, 3)
        elif decision is Decision.STARTER_SUIT or hs.suit is None:
            ts.suit_choices = same_colour_suits(suit_of(kind))  # the 9's own colour [000:52]
        else:
            ts.suit_choices = same_colour_suits(hs.suit)  # the current suit's colour (C-16)
        ts.pending = (kind, plain)
        ts.decide(p, decision)

    def _name_suit(self, suit: int) -> None:
        ts, hs = self.turn_state, self.hand_state
        p = ts.seat
        kind, plain = ts.pending
        ts.pending = None
        hs.suit = suit
        hs.events.append(event("name_suit", p, None, suit))
        self._after_play(p, kind, plain)

    def _after_play(self, p: int, kind: int, plain: bool) -> None:
        """Move the turn after a card (or the starter) has resolved (docs/rules.md §1.15)."""
        hs = self.hand_state
        if hs.count:
            if hs.sizes[p] == 0 and p not in hs.out_order:
                hs.out_order.append(p)
                hs.events.append(event("out_in_count", p))
            self._start_turn(self.prev_seat(p) if kind == JOKER else self.next_seat(p))
            return
        function = self._functions[kind]
        if self._must_play_again(kind, plain):
            if not plain and function.series and not hs.series_left:
                hs.series_left = function.series
            self._play_again(p)  # a 6, a face K or an open series must be followed, even from 0
            return
        if function.reverses:  # before the out check: a final 10 counts for the next deal
            hs.direction = -hs.direction  # (E-43, E-47)
            hs.events.append(event("direction", None, None, hs.direction))
        if hs.sizes[p] == 0:
            hs.events.append(event("go_out", p))
            self._end_hand("out")
            return
        if function.skips:
            hs.events.append(event("skipped", self.next_seat(p)))
        if kind == JOKER:  # transparent, and play comes back to the previous player
            self._start_turn(self.prev_seat(p))
        else:
            self._start_turn(self.next_seat(p, function.next_player))

    def _must_play_again(self, kind: int, plain: bool) -> bool:
        """A 6, a face-card K (craits) or an unfinished K series keeps the turn with the player."""
        if self.hand_state.series_left:
            return True
        return not plain and self._functions[kind].again

    def _card_effect(self, p: int, kind: int) -> None:
        """Draws a card forces on others; they happen before the turn moves or the hand ends."""
        function = self._functions[kind]
        target = p
        for seats_on, cards in function.draws:
            target = self.next_seat(p, seats_on)
            self._draw(target, cards * self.hand_state.jack_run if function.per_jack else cards)
        if function.beer and self.hand_state.sizes[p] == 0:
            self.hand_state.events.append(event("beer", target, None, None, p))  # [004:21]

    def _draw_move(self, p: int) -> None:
        """The DRAW action: draw the count, or draw when no play is legal, ending the turn."""
        hs, ts = self.hand_state, self.turn_state
        if hs.count:
            total, hs.count = hs.count, 0
            self._draw(p, total)
            self._count_over(p)
            return
        if ts.plays and ts.cooper_draw == 2:
            hs.events.append(event("last_six_uncalled", p))
        self._draw(p, ts.cooper_draw if ts.plays else 1)
        hs.series_left = 0
        if self.rules.one_card_per_turn and ts.plays and hs.sizes[p] == 1:
            self._check_turn_call(p)  # a Cooper from one card ends the turn holding one
        self._start_turn(self.next_seat(p))

    def _count_over(self, drawer: int) -> None:
        """After the count is drawn: the hand ends if someone went out during it (docs/rules.md
        §1.5)."""
        hs, r = self.hand_state, self.rules
        if hs.out_order:
            hs.ha_ha = drawer == hs.out_order[0]
            hs.clean = [s for s in hs.out_order[1:] if r.stars]
            if not r.count_continues_hand or 0 in hs.sizes:
                self._end_hand("count")
                return
            hs.events.append(event("play_goes_on"))
            hs.out_order.clear()
        hs.free_play = r.free_play_after_count
        self._start_turn(self.next_seat(drawer))

    def _play_again(self, p: int) -> None:
        ts = self.turn_state
        ts.cooper_draw = 2 if ts.six_missed else 1
        ts.decide(p, Decision.PLAY)
        if self.hand_state.exposed[p]:
            self._offer_penalty_choice(p)

    # ------------------------------------------------------------------ turns
    def _start_turn(self, seat: int) -> None:
        hs, ts = self.hand_state, self.turn_state
        owed = hs.penalty_owed
        while not hs.count and owed[seat]:
            owed[seat] = False
            ts.seat = seat  # the turn is seat's, lost to the penalty (C-19 needs it)
            hs.events.append(event("lose_turn", seat))
            self._draw(seat, 2)
            seat = self.next_seat(seat)
        ts.begin(seat)
        if hs.exposed[seat]:
            self._offer_penalty_choice(seat)

    # ------------------------------------------------------------------ end of hand
    def _settle_hand(self) -> None:
        """Draws owed when the hand ends: kreights and creights serve one-card penalties."""
        hs = self.hand_state
        if self.rules.penalty_drawn_at_end and hs.ended_by != "pressure":
            owed = [s for s in range(self.n) if hs.penalty_owed[s]]
            try:
                for s in owed:
                    hs.penalty_owed[s] = False
                    hs.events.append(event("penalty_at_end", s))
                    self._draw(s, 2)
            except HandEnded:
                return  # a pressure with nothing to reshuffle ends the drawing too (E-5)

    def _score_hand(self) -> None:
        r, n = self.rules, self.n
        gs, hs = self.game_state, self.hand_state
        kinds = [self.hand_kinds(s) for s in range(n)]
        points = [score_kinds(k, r) for k in kinds]
        if r.empty_hand_points:
            bonus = r.empty_hand_points
            points = [p + bonus if not hs.sizes[s] else p for s, p in enumerate(points)]
        first_out = hs.out_order[0] if hs.out_order else hs.went_out
        ha_ha = r.stars and hs.ha_ha
        stars = [0] * n
        if r.stars:
            if first_out is not None and not ha_ha:
                stars[first_out] += 1
            for s in range(n):
                if kinds[s] and all(k != JOKER and rank_of(k) == THREE for k in kinds[s]):
                    stars[s] += 2  # caught with only threes [001:65]
        team_points = [p + v for p, v in zip(hs.pressure_points, hs.revoke_points, strict=True)]
        for s in range(n):
            team_points[r.team_of(s)] += points[s]
        gs.stars = tuple(total + new for total, new in zip(gs.stars, stars, strict=True))
        self._hand_result(
            points,
            team_points,
            went_out=first_out,
            stars=stars,
            clean=list(hs.clean),
            ha_ha_no_star=ha_ha,
            revoke_points=list(hs.revoke_points),
        )
        kind = "team_scores" if r.partnerships else "hand_scores"
        sides = tuple(enumerate(team_points))
        hs.events.append(Event(kind, None, None, None, gs.hand_index + 1, sides))
        if ha_ha:
            hs.events.append(event("ha_ha", first_out))
        if r.barometer:
            leader = min(range(len(gs.scores)), key=gs.scores.__getitem__)
            hs.events.append(event("barometer", leader))


def _below_jokers(discard: list[int]) -> int:
    """The card the suit and rank come from: the top card, looking through Jokers."""
    below = [k for k in discard if k != JOKER]
    return below[-1] if below else JOKER

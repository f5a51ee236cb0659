"""The Crazy Eights family of [003]: the basic game (``crazy_eights``) and the Zimbabwean variation
(``zimbabwe``), as an engine beside the Crates family's.

``new_game("zimbabwe", 4)`` builds an :class:`EightsGame` (the factory reads ``Ruleset.engine``).
The deal, the draw procedure, the event log and the public API are the shared base's
(:class:`crates_env.game.Game`); the turn is this module's. Nothing here names a preset: what a
card does is its rank's entry in ``Ruleset.card_roles`` (``"offensive"``, ``"defensive"``,
``"skip"``, ``"declare"``, ``"reverse"``, ``"continue"`` or ``""`` for a regular card
[003:59-69]), with ``demands``, ``wild_kinds`` and ``free_after_kinds``; how a turn goes is
``draw_rule``; how a hand ends and scores is ``in_air``, ``empty_stock``, ``hand_scoring`` and
``game_end``.

A turn (docs/rules.md §1.3, §1.4, §4.7):

- facing a demand (an offensive card's pending total), block with an ace, stack an offensive
  card, or draw the total and miss the turn [003:95];
- otherwise play a legal card or draw. ``until_play`` (crazy_eights): drawing is allowed even with a
  legal play and may be repeated; the turn ends with a play; with an empty stock a player who can
  play must, and one who cannot blocks the hand (C-54, E-63, E-64). ``one_then_pass`` (zimbabwe):
  draw 1, then play a legal card or pass [003:57]; with nothing left to draw, play or pass;
- a play may be several cards of one rank (``multi_card_plays``, C-57): after each card the
  player may play another of the same rank or stop, and the group then resolves as one play;
- a player out of cards who did not win is "in air" (``in_air``): their next turn starts with a
  draw (E-55).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .actions import DRAW, PASS, REVERSE_ONCE, REVERSE_PERMANENT, STOP, SUIT
from .cards import EIGHT, JOKER, NUM_KINDS, Deck, rank_of, suit_of
from .events import Event, event
from .game import Game
from .rules import Ruleset, int_value
from .scoring import score_kinds
from .state import Decision, HandState, StateValue, TurnState

_OFFENSIVE, _DEFENSIVE, _SKIP, _DECLARE, _REVERSE, _CONTINUE = (
    "offensive", "defensive", "skip", "declare", "reverse", "continue",
)  # fmt: skip


@dataclass(frozen=True)
class EightsMasks:
    """What each card does and what may be played, as bitmasks over the deck's card ids
    (``match[suit][rank]``: on that suit and rank when no demand is pending; ``answers``: what
    blocks or stacks a demand; ``on_joker``: what may follow a Joker; ``skip``: what passes a
    skip on). The compiled engine reads them too."""

    roles: tuple[str, ...]  # per kind: Ruleset.card_roles of its rank
    demands: tuple[int, ...]  # per kind: cards an offensive card makes the next player take
    match: tuple[tuple[int, ...], ...]
    answers: int
    on_joker: int
    skip: int
    free_after: frozenset[int]  # kinds after which the next play is unrestricted


@functools.cache
def eights_masks(deck: Deck, rules: Ruleset) -> EightsMasks:
    """The Crazy Eights family's :class:`EightsMasks` for ``rules`` over ``deck``."""
    roles = tuple(rules.card_roles[13 if k == JOKER else rank_of(k)] for k in range(NUM_KINDS))
    demands = tuple(rules.demands[13 if k == JOKER else rank_of(k)] for k in range(NUM_KINDS))
    by_role: dict[str, int] = {}
    for k in range(NUM_KINDS):
        by_role[roles[k]] = by_role.get(roles[k], 0) | deck.kind_mask[k]
    wild = 0
    for k in rules.wild_kinds:
        wild |= deck.kind_mask[k]
    suits, ranks = deck.suit_mask, deck.rank_mask
    offensive = by_role.get(_OFFENSIVE, 0)
    return EightsMasks(
        roles=roles,
        demands=demands,
        match=tuple(tuple(suits[s] | ranks[k] | wild for k in range(13)) for s in range(4)),
        answers=offensive | by_role.get(_DEFENSIVE, 0),  # block or stack [003:95]
        on_joker=offensive | wild,  # "A two can ... if the last played card is a Joker"
        skip=by_role.get(_SKIP, 0),  # what passes a skip on [003:79]
        free_after=frozenset(rules.free_after_kinds),
    )


@dataclass(slots=True)
class PlayGroup(StateValue):
    """Cards of one rank played in one go (C-57), and the state they were played on."""

    count: int
    base: int  # the top card before the group: going out on it may leave the player in air
    suit_before: int | None
    on_declared: bool  # the group was played on an 8 that named a suit


@dataclass(slots=True)
class EightsHand(HandState):
    """The Crazy Eights family's hand: demands, skips and the state of reversals."""

    demand: int = 0  # cards the player on turn must take unless they block or stack
    skips: int = 0  # players still to skip (7s), from the player now deciding on a 7
    declared: bool = False  # the top card is an 8 that named a suit
    passes: int = 0  # turns in a row that could neither play nor draw
    once_seat: int | None = None  # whose turn ends a one-turn reversal
    shared: bool = False  # E-60: everybody left tied with nothing to draw


@dataclass(slots=True)
class EightsTurn(TurnState):
    """An Eights turn: the group of cards of one rank being played."""

    group: PlayGroup | None = None
    group_mask: int = 0  # the cards that may join the group

    def begin(self, seat: int) -> None:
        self.seat = seat
        self.decision = Decision.PLAY
        self.legal = None
        self.group = None


class EightsGame(Game, family="eights"):
    """A game of ``crazy_eights`` or ``zimbabwe``; see the module docstring."""

    hand_state: EightsHand
    turn_state: EightsTurn

    # ------------------------------------------------------------------ setup
    def _build_masks(self) -> None:
        masks = eights_masks(self.deck, self.rules)
        self._role, self._demand, self._match = masks.roles, masks.demands, masks.match
        self._answers, self._on_joker = masks.answers, masks.on_joker
        self._skip_mask, self._free_after = masks.skip, masks.free_after

    def _new_turn_state(self) -> EightsTurn:
        return EightsTurn()

    def _new_hand(self, deal_size: int, events: list[Event]) -> EightsHand:
        return EightsHand.new(deal_size, self.n, self.rules.num_teams, events)

    def _turn_starter(self) -> None:
        """The starter has no effect: it only sets the suit and rank (§1.2, C-27, E-62)."""
        hs = self.hand_state
        d = self.game_state.dealer
        cid = hs.stock.pop()
        hs.discard.append(cid)
        kind = self.deck.kinds[cid]
        hs.played[kind] += 1
        hs.events.append(event("turn_starter", d, kind))
        self._set_top_card(kind)
        self._start_turn(self.next_seat(d))

    # ------------------------------------------------------------------ scripted positions
    def _position_settings(self, settings: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(settings) - {"demand"})
        if unknown:
            raise ValueError(
                f"set_position got {', '.join(unknown)}; the Crazy Eights family takes demand"
            )
        demand = settings.get("demand", 0)
        if int_value(demand) is None or demand < 0:
            raise ValueError(f"demand must be an int >= 0, not {demand!r}")
        return {"demand": int(demand)}

    def _set_family_position(self, demand: int) -> None:
        hs = self.hand_state
        hs.demand = demand
        hs.skips = hs.passes = 0
        hs.free_play = hs.declared = hs.shared = False
        hs.once_seat = None

    def _set_top(self, discard: list[int], suit: int | None) -> None:
        top = discard[-1]
        self._set_top_card(top)
        if suit is not None:
            self.hand_state.suit = suit
            self.hand_state.declared = top != JOKER and rank_of(top) == EIGHT

    # ------------------------------------------------------------------ seats
    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` players on in the current direction, passing players knocked out."""
        active, n, step = self.game_state.active, self.n, self.hand_state.direction
        for _ in range(steps):
            seat = (seat + step) % n
            while not active[seat]:
                seat = (seat + step) % n
        return seat

    def prev_seat(self, seat: int) -> int:
        active, n, step = self.game_state.active, self.n, -self.hand_state.direction
        seat = (seat + step) % n
        while not active[seat]:
            seat = (seat + step) % n
        return seat

    @property
    def players_left(self) -> int:
        return sum(self.game_state.active)

    # ------------------------------------------------------------------ public view
    @property
    def demand(self) -> int:
        """Cards the player on turn must take unless they block or stack."""
        return self.hand_state.demand

    def pending_draw(self) -> int:
        """Cards the player to act would take by drawing now: an offensive demand, or one."""
        return self.hand_state.demand or 1

    def _family_view(self) -> dict[str, Any]:
        hs, n = self.hand_state, self.n
        playing = self.turn_state.decision is not None
        return {
            "count": 0,
            "demand": hs.demand,
            "pending_draw": self.pending_draw() if playing else 0,
            "playing_again": False,
            "announced": False,
            "free_play": hs.free_play,
            "penalty_owed": (False,) * n,
            "exposed": (0,) * n,
        }

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self) -> list[int]:
        ts = self.turn_state
        dec = ts.decision
        if dec is None:
            return []
        hand = self.hand_state.hands[ts.seat]
        kinds = self.deck.distinct_kinds_in
        if dec is Decision.PLAY:
            return self._turn_actions(hand)
        if dec is Decision.PLAY_OR_PASS:
            return [*kinds(hand & self._play_mask()), PASS]
        if dec is Decision.MORE:
            return [*kinds(hand & ts.group_mask), STOP]
        if dec is Decision.DEFLECT:
            return [*kinds(hand & self._skip_mask), PASS]
        if dec is Decision.REVERSE:
            return [REVERSE_PERMANENT, REVERSE_ONCE]
        return [SUIT + s for s in ts.suit_choices]

    def _turn_actions(self, hand: int) -> list[int]:
        hs, r = self.hand_state, self.rules
        kinds = self.deck.distinct_kinds_in
        if hs.demand:  # block, stack, or draw the total [003:95]
            return [*kinds(hand & self._answers), DRAW]
        plays = kinds(hand & self._play_mask())
        if hs.stock or (r.empty_stock == "reshuffle" and len(hs.discard) > 1):
            return [*plays, DRAW]
        # Nothing to draw: who can play must (E-63, §1.10). crazy_eights: drawing from the empty
        # stock blocks the hand; zimbabwe: pass.
        return plays or [DRAW if r.empty_stock == "blocked" else PASS]

    def _play_mask(self) -> int:
        hs = self.hand_state
        if hs.free_play:
            return self.deck.full_mask
        if hs.rank is None:  # a Joker on top: a 2 or a wild (C-28)
            return self._on_joker
        return self._match[hs.suit][hs.rank]

    # ------------------------------------------------------------------ acting
    def _act(self, action: int) -> None:
        ts = self.turn_state
        dec = ts.decision
        p = ts.seat
        if dec is Decision.SUIT:
            self._declare(p, action - SUIT)
        elif dec is Decision.REVERSE:
            self._reverse(p, once=action == REVERSE_ONCE)
        elif action == DRAW:
            self._draw_action(p)
        elif action == PASS:
            self._pass(p, dec)
        elif action == STOP:
            self._resolve_group(p)
        else:
            if dec is Decision.DEFLECT:
                self.hand_state.skips -= 1  # "they counter the skip effect and shift this" [003:79]
            self._play(p, action)

    def _draw_action(self, p: int) -> None:
        hs = self.hand_state
        if hs.demand:  # "pick as the offensive card dictates" and miss the turn (C-23)
            total, hs.demand = hs.demand, 0
            self._draw(p, total)
            hs.events.append(event("miss_turn", p))
            self._end_turn(p)
            return
        self._draw(p, 1)  # crazy_eights with an empty stock: the hand is blocked here
        hs.passes = 0
        after = Decision.PLAY if self.rules.draw_rule == "until_play" else Decision.PLAY_OR_PASS
        self.turn_state.decide(p, after)

    def _pass(self, p: int, decision: Decision) -> None:
        hs = self.hand_state
        if decision is Decision.DEFLECT:
            self._skip(p)
            return
        hs.events.append(event("pass", p))
        if decision is Decision.PLAY:  # nothing to draw, nothing to play (§1.10 zimbabwe)
            hs.passes += 1
            if hs.passes >= self.players_left:
                hs.events.append(event("stalled"))
                self._end_hand("stalled")
                return
        self._end_turn(p)

    def _play(self, p: int, kind: int) -> None:
        d, hs, ts = self.deck, self.hand_state, self.turn_state
        ids = hs.hands[p] & d.kind_mask[kind]
        low = ids & -ids
        hs.hands[p] ^= low
        hs.sizes[p] -= 1
        top = d.kinds[hs.discard[-1]]
        hs.discard.append(low.bit_length() - 1)
        hs.played[kind] += 1
        hs.passes = 0
        if ts.group is None:
            ts.group = PlayGroup(0, top, hs.suit, hs.declared)
            ts.group_mask = d.joker_mask if kind == JOKER else d.rank_mask[rank_of(kind)]
        ts.group.count += 1
        role = self._role[kind]
        if role == _OFFENSIVE:
            hs.demand += self._demand[kind]
            hs.events.append(event("play_demand", p, kind, hs.demand))
        elif role == _DEFENSIVE and hs.demand:
            hs.demand = 0  # "nullify the effects of a joker or a two" [003:111,115]
            hs.events.append(event("play_block", p, kind))
        else:
            hs.events.append(event("play", p, kind))
        self._set_top_card(kind)
        hs.declared = False
        hs.free_play = kind in self._free_after
        if self.rules.multi_card_plays and hs.hands[p] & ts.group_mask:
            ts.decide(p, Decision.MORE)
            return
        self._resolve_group(p)

    def _set_top_card(self, kind: int) -> None:
        hs = self.hand_state
        if kind == JOKER:
            hs.suit = hs.rank = None
        else:
            hs.suit, hs.rank = suit_of(kind), rank_of(kind)

    # ------------------------------------------------------------------ resolving a play
    def _resolve_group(self, p: int) -> None:
        """The cards of one rank just played act as successive plays with no turn between them
        (C-57); then the turn moves."""
        hs, ts = self.hand_state, self.turn_state
        group, ts.group = ts.group, None
        kind = self.deck.kinds[hs.discard[-1]]
        role = self._role[kind]
        self._restore_once(p)
        if not hs.sizes[p]:
            if self._wins(kind, group.base):
                hs.went_out = p
                hs.events.append(event("go_out", p))
                self._end_hand("out")
                return
            hs.events.append(event("in_air", p))
        if role == _DECLARE:
            self._after_eight(p, kind, group)
        elif role == _SKIP:  # each 7 skips one more player (C-57), never its own player
            hs.skips = min(hs.skips + group.count, self.players_left - 1)
            self._skip_next(self.next_seat(p))
        elif role == _CONTINUE:  # "allowing the player to play again" [003:91]
            hs.events.append(event("play_again", p))
            self._start_turn(p)
        elif role == _REVERSE:
            self._after_jacks(p, group.count)
        else:
            self._start_turn(self.next_seat(p))

    def _wins(self, kind: int, base: int) -> bool:
        """Going out wins unless ``in_air``: then the last card must be regular and the card it
        was played on neither offensive nor defensive [003:126,146] (C-26)."""
        if not self.rules.in_air:
            return True
        return self._role[kind] == "" and self._role[base] not in (_OFFENSIVE, _DEFENSIVE)

    def _after_eight(self, p: int, kind: int, group: PlayGroup) -> None:
        if group.on_declared and self.rules.eight_counter_keeps_suit:
            # "the game will continue following the suit of the newly played eight" [003:83]
            self.hand_state.events.append(event("suit_kept", None, None, suit_of(kind)))
            self._start_turn(self.next_seat(p))
            return
        choices = (0, 1, 2, 3)
        if self.rules.eight_must_change_suit:  # "(then must declare a different suit)" (C-22)
            choices = tuple(s for s in choices if s != group.suit_before)
        self.turn_state.suit_choices = choices
        self.turn_state.decide(p, Decision.SUIT)

    def _declare(self, p: int, suit: int) -> None:
        hs = self.hand_state
        hs.suit = suit
        hs.declared = True
        hs.events.append(event("name_suit", p, None, suit))
        self._start_turn(self.next_seat(p))

    def _after_jacks(self, p: int, count: int) -> None:
        events = self.hand_state.events
        if self.players_left == 2:  # 'a "reverse" allows the player to play again' [003:87]
            events.append(event("play_again", p))
            self._start_turn(p)
        elif count % 2 == 0:  # only the parity of the jacks matters (C-57)
            events.append(event("jacks_cancel"))
            self._start_turn(self.next_seat(p))
        elif count == 1:  # the one-turn option exists only for a single J (C-57)
            self.turn_state.decide(p, Decision.REVERSE)
        else:
            self._reverse(p, once=False)

    def _reverse(self, p: int, once: bool) -> None:
        """A J reverses play "for the remainder of the game play (until another jack is played)
        or ... only until the previous player has played" [003:87] (E-57)."""
        hs = self.hand_state
        hs.direction = -hs.direction
        nxt = self.next_seat(p)
        if once:
            hs.once_seat = nxt
            hs.events.append(event("reverse_once", None, None, None, nxt))
        else:
            hs.events.append(event("reverse"))
        self._start_turn(nxt)

    def _restore_once(self, p: int) -> None:
        """A one-turn reversal ends as its player has played: the original direction applies to
        that play's effects, so the turn comes back to the J's player (E-57)."""
        hs = self.hand_state
        if hs.once_seat == p:
            hs.once_seat = None
            hs.direction = -hs.direction
            hs.events.append(event("direction_restored"))

    def _skip_next(self, target: int) -> None:
        """The next skip falls on ``target``, who may pass it on with a 7 (E-56)."""
        if self.hand_state.hands[target] & self._skip_mask:
            self.turn_state.decide(target, Decision.DEFLECT)
        else:
            self._skip(target)

    def _skip(self, target: int) -> None:
        hs = self.hand_state
        hs.events.append(event("skipped", target))
        hs.skips -= 1
        nxt = self.next_seat(target)
        if hs.skips:
            self._skip_next(nxt)
        else:
            self._start_turn(nxt)

    # ------------------------------------------------------------------ turns
    def _start_turn(self, seat: int) -> None:
        self.turn_state.begin(seat)

    def _end_turn(self, p: int) -> None:
        """p's turn ended without a play to resolve (a pass, or a demand drawn)."""
        self._restore_once(p)
        self._start_turn(self.next_seat(p))

    # ------------------------------------------------------------------ end of hand
    def _settle_hand(self) -> None:
        """Players in air when another wins "must pick a card from the deck" [003:126]."""
        gs, hs = self.game_state, self.hand_state
        for s in range(self.n):
            if gs.active[s] and not hs.sizes[s] and s != hs.went_out:
                hs.events.append(event("in_air_at_end", s))
                self._draw(s, 1)

    def _score_hand(self) -> None:
        r, n = self.rules, self.n
        gs, hs = self.game_state, self.hand_state
        playing = [s for s in range(n) if gs.active[s]]
        values = [score_kinds(self.hand_kinds(s), r) for s in range(n)]
        eliminated: list[int] = []
        if r.hand_scoring == "winner_collects":
            points = self._collect(values)
        else:
            eliminated = self._eliminate(values)
            points = list(values)
        self._hand_result(
            values,
            points,
            went_out=hs.went_out,
            stars=[0] * n,
            revoke_points=[0] * n,
            eliminated=eliminated,
        )
        sides = tuple((s, points[s]) for s in playing)
        hs.events.append(Event("hand_scores", None, None, None, gs.hand_index + 1, sides))

    def _collect(self, values: list[int]) -> list[int]:
        """crazy_eights: the player who went out collects every hand's points; in a blocked hand
        the lowest hand scores the differences to each other hand [003:47] (E-63: each of several
        lowest scores that sum)."""
        went_out = self.hand_state.went_out
        if went_out is not None:
            points = [0] * self.n
            points[went_out] = sum(values)
            return points
        low = min(values)
        total = sum(v - low for v in values)
        return [total if v == low else 0 for v in values]

    def _eliminate(self, values: list[int]) -> list[int]:
        """zimbabwe: the highest hand loses the round and leaves the game [003:126]; players tied
        for highest draw one card each, in seat order, until one is strictly highest (E-60)."""
        gs, hs = self.game_state, self.hand_state
        playing = [s for s in range(self.n) if gs.active[s]]
        while True:
            high = max(values[s] for s in playing)
            tied = [s for s in playing if values[s] == high]
            if len(tied) == 1:
                break
            hs.events.append(Event("tie_for_highest", None, None, high, seats=tuple(tied)))
            drawn = 0
            for s in tied:
                drawn += self._draw(s, 1)
                values[s] = score_kinds(self.hand_kinds(s), self.rules)
            if not drawn:  # E-60 SILENT→ all of them go; if that is everybody, they share
                if len(tied) == len(playing):
                    hs.events.append(Event("share_game", seats=tuple(tied)))
                    hs.shared = True
                    return []
                break
        gs.active = tuple(active and s not in tied for s, active in enumerate(gs.active))
        for s in tied:
            hs.events.append(event("knocked_out", s))
        return tied

    def _game_decided(self) -> bool:
        r = self.rules
        if r.game_end == "target":  # "the first player to reach a specific number" [003:49]
            return max(self.game_state.scores) >= r.target_score
        return self.players_left <= 1 or self.hand_state.shared

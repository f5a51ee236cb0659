"""The Crazy Eights family of [003]: the basic game (``crazy_eights``) and the Zimbabwean variation
(``zimbabwe``), as a :class:`~crates_env.game.Game` engine.

``Game("zimbabwe", 4)`` builds an :class:`EightsGame` (``Game.__new__`` reads ``Ruleset.engine``).
The deal, the draw procedure, the event log and the public API are ``Game``'s; the turn is this
module's. Nothing here names a preset: what a card does is its rank's entry in
``Ruleset.card_roles`` (``"offensive"``, ``"defensive"``, ``"skip"``, ``"declare"``, ``"reverse"``,
``"continue"`` or ``""`` for a regular card [003:59-69]), with ``demands``, ``wild_kinds`` and
``free_after_kinds``; how a turn goes is ``draw_rule``; how a hand ends and scores is
``in_air``, ``empty_stock``, ``hand_scoring`` and ``game_end``.

A turn (RULES.md §1.3, §1.4, §4.7):

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

from collections.abc import Sequence
from dataclasses import dataclass

from .actions import DRAW, PASS, REVERSE_ONCE, REVERSE_PERMANENT, STOP, SUIT
from .cards import EIGHT, JOKER, NUM_KINDS, SUITS, card_code, rank_of, suit_of
from .game import Decision, Game, HandResult, _parse_suit
from .scoring import score_kinds

_OFFENSIVE, _DEFENSIVE, _SKIP, _DECLARE, _REVERSE, _CONTINUE = (
    "offensive", "defensive", "skip", "declare", "reverse", "continue",
)  # fmt: skip


@dataclass
class _Group:
    """Cards of one rank played in one go (C-57), and the state they were played on."""

    count: int
    base: int  # the top card before the group: going out on it may leave the player in air
    suit_before: int | None
    on_declared: bool  # the group was played on an 8 that named a suit


class EightsGame(Game):
    """A game of ``crazy_eights`` or ``zimbabwe``; see the module docstring."""

    # ------------------------------------------------------------------ setup
    def pending_draw(self) -> int:
        """Cards the player to act would take by drawing now: an offensive demand, or one."""
        return self.demand or 1

    def _build_masks(self) -> None:
        d, r = self.deck, self.rules
        self._role = [r.card_roles[13 if k == JOKER else rank_of(k)] for k in range(NUM_KINDS)]
        self._demand = [r.demands[13 if k == JOKER else rank_of(k)] for k in range(NUM_KINDS)]
        by_role: dict[str, int] = {}
        for k in range(NUM_KINDS):
            by_role[self._role[k]] = by_role.get(self._role[k], 0) | d.kind_mask[k]
        wild = 0
        for k in r.wild_kinds:
            wild |= d.kind_mask[k]
        # _match[suit][rank]: cards playable on that suit and rank when no demand is pending
        suits, ranks = d.suit_mask, d.rank_mask
        self._match = [[suits[s] | ranks[k] | wild for k in range(13)] for s in range(4)]
        offensive = by_role.get(_OFFENSIVE, 0)
        self._answers = offensive | by_role.get(_DEFENSIVE, 0)  # block or stack [003:95]
        self._on_joker = offensive | wild  # "A two can ... if the last played card is a Joker"
        self._skip_mask = by_role.get(_SKIP, 0)  # what passes a skip on [003:79]
        self._free_after = frozenset(r.free_after_kinds)

    def _reset_hand(self) -> None:
        n = self.n
        self.demand = 0  # cards the player on turn must take unless they block or stack
        self.skips = 0  # players still to skip (7s), from the player now deciding on a 7
        self.free_play = False  # after A♠: "the next player any suit or rank they like"
        self.declared = False  # the top card is an 8 that named a suit
        self.passes = 0  # turns in a row that could neither play nor draw
        self._group: _Group | None = None
        self._once_seat: int | None = None  # whose turn ends a one-turn reversal
        self._shared = False  # E-60: everybody left tied with nothing to draw
        # neutral values of the Crates family's state, for code that reads any Game
        self.count = 0
        self.penalty_owed = [False] * n
        self.exposed = [0] * n
        self.revoke_points = [0] * self.rules.num_teams
        self.turn_plays = 0
        self.cooper_draw = 1
        self.announced = False

    def _turn_starter(self) -> None:
        """The starter has no effect: it only sets the suit and rank (§1.2, C-27, E-62)."""
        d = self.dealer
        cid = self.stock.pop()
        self.discard.append(cid)
        kind = self.deck.kinds[cid]
        self.played_counts[kind] += 1
        self.events.append(f"p{d} turns {card_code(kind)}")
        self._set_top(kind)
        self._start_turn(self.next_seat(d))

    def set_position(
        self,
        hands: Sequence[Sequence[str | int]],
        stock: Sequence[str | int] = (),
        discard: Sequence[str | int] = (),
        *,
        turn: int,
        suit: str | None = None,
        direction: int = 1,
        demand: int = 0,
    ) -> None:
        """Replace the current hand's cards with a scripted position and give ``turn`` the move.

        ``stock`` is top first, ``discard`` bottom first (its last card is the top card); cards
        of the deck placed nowhere are set aside. ``suit`` names the suit an 8 on top declared.
        ``demand`` is an offensive total ``turn`` faces. Seats knocked out must hold no cards.
        """
        dc = self._place_cards(hands, stock, discard, direction)
        out = [s for s in range(self.n) if self.hands[s] and not self.active[s]]
        if out:
            raise ValueError(f"seats {out} are knocked out and hold no cards")
        self._reset_hand()
        self._set_top(dc[-1])
        if suit is not None:
            self.suit = _parse_suit(suit)
            self.declared = dc[-1] != JOKER and rank_of(dc[-1]) == EIGHT
        self.demand = demand
        self.events.append(f"position set, p{turn} to play")
        self._start_turn(turn)

    # ------------------------------------------------------------------ seats
    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` players on in the current direction, passing players knocked out."""
        active, n, step = self.active, self.n, self.direction
        for _ in range(steps):
            seat = (seat + step) % n
            while not active[seat]:
                seat = (seat + step) % n
        return seat

    def prev_seat(self, seat: int) -> int:
        active, n, step = self.active, self.n, -self.direction
        seat = (seat + step) % n
        while not active[seat]:
            seat = (seat + step) % n
        return seat

    @property
    def players_left(self) -> int:
        return sum(self.active)

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self) -> list[int]:
        dec = self._decision
        if dec is None:
            return []
        hand = self.hands[self.turn]
        kinds = self.deck.distinct_kinds_in
        if dec is Decision.PLAY:
            return self._turn_actions(hand)
        if dec is Decision.PLAY_OR_PASS:
            return [*kinds(hand & self._play_mask()), PASS]
        if dec is Decision.MORE:
            return [*kinds(hand & self._group_mask), STOP]
        if dec is Decision.DEFLECT:
            return [*kinds(hand & self._skip_mask), PASS]
        if dec is Decision.REVERSE:
            return [REVERSE_PERMANENT, REVERSE_ONCE]
        return [SUIT + s for s in self._suit_choices]

    def _turn_actions(self, hand: int) -> list[int]:
        kinds = self.deck.distinct_kinds_in
        if self.demand:  # block, stack, or draw the total [003:95]
            return [*kinds(hand & self._answers), DRAW]
        plays = kinds(hand & self._play_mask())
        if self.stock or (self.rules.empty_stock == "reshuffle" and len(self.discard) > 1):
            return [*plays, DRAW]
        # Nothing to draw: who can play must (E-63, §1.10). crazy_eights: drawing from the empty
        # stock blocks the hand; zimbabwe: pass.
        return plays or [DRAW if self.rules.empty_stock == "blocked" else PASS]

    def _play_mask(self) -> int:
        if self.free_play:
            return self.deck.full_mask
        if self.rank is None:  # a Joker on top: a 2 or a wild (C-28)
            return self._on_joker
        return self._match[self.suit][self.rank]

    # ------------------------------------------------------------------ acting
    def _act(self, action: int) -> None:
        dec = self._decision
        p = self.turn
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
                self.skips -= 1  # "they counter the skip effect and shift this" [003:79]
            self._play(p, action)

    def _draw_action(self, p: int) -> None:
        if self.demand:  # "pick as the offensive card dictates" and miss the turn (C-23)
            total, self.demand = self.demand, 0
            self._draw(p, total)
            self.events.append(f"p{p} misses the turn")
            self._end_turn(p)
            return
        self._draw(p, 1)  # crazy_eights with an empty stock: the hand is blocked here
        self.passes = 0
        after = Decision.PLAY if self.rules.draw_rule == "until_play" else Decision.PLAY_OR_PASS
        self._decide(p, after)

    def _pass(self, p: int, decision: Decision) -> None:
        if decision is Decision.DEFLECT:
            self._skip(p)
            return
        self.events.append(f"p{p} passes")
        if decision is Decision.PLAY:  # nothing to draw, nothing to play (§1.10 zimbabwe)
            self.passes += 1
            if self.passes >= self.players_left:
                self.events.append("nobody can play or draw")
                self._end_hand("stalled")
                return
        self._end_turn(p)

    def _play(self, p: int, kind: int) -> None:
        d = self.deck
        ids = self.hands[p] & d.kind_mask[kind]
        low = ids & -ids
        self.hands[p] ^= low
        self.sizes[p] -= 1
        top = d.kinds[self.discard[-1]]
        self.discard.append(low.bit_length() - 1)
        self.played_counts[kind] += 1
        self.passes = 0
        if self._group is None:
            self._group = _Group(0, top, self.suit, self.declared)
            self._group_mask = d.joker_mask if kind == JOKER else d.rank_mask[rank_of(kind)]
        self._group.count += 1
        text = f"p{p} plays {card_code(kind)}"
        role = self._role[kind]
        if role == _OFFENSIVE:
            self.demand += self._demand[kind]
            text += f", demand {self.demand}"
        elif role == _DEFENSIVE and self.demand:
            self.demand = 0  # "nullify the effects of a joker or a two" [003:111,115]
            text += ", blocks"
        self.events.append(text)
        self._set_top(kind)
        self.declared = False
        self.free_play = kind in self._free_after
        if self.rules.multi_card_plays and self.hands[p] & self._group_mask:
            self._decide(p, Decision.MORE)
            return
        self._resolve_group(p)

    def _set_top(self, kind: int) -> None:
        if kind == JOKER:
            self.suit = self.rank = None
        else:
            self.suit, self.rank = suit_of(kind), rank_of(kind)

    # ------------------------------------------------------------------ resolving a play
    def _resolve_group(self, p: int) -> None:
        """The cards of one rank just played act as successive plays with no turn between them
        (C-57); then the turn moves."""
        group, self._group = self._group, None
        kind = self.deck.kinds[self.discard[-1]]
        role = self._role[kind]
        self._restore_once(p)
        if not self.sizes[p]:
            if self._wins(kind, group.base):
                self.went_out = p
                self.events.append(f"p{p} goes out")
                self._end_hand("out")
                return
            self.events.append(f"p{p} is in air")
        if role == _DECLARE:
            self._after_eight(p, kind, group)
        elif role == _SKIP:  # each 7 skips one more player (C-57), never its own player
            self.skips = min(self.skips + group.count, self.players_left - 1)
            self._skip_next(self.next_seat(p))
        elif role == _CONTINUE:  # "allowing the player to play again" [003:91]
            self.events.append(f"p{p} plays again")
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

    def _after_eight(self, p: int, kind: int, group: _Group) -> None:
        if group.on_declared and self.rules.eight_counter_keeps_suit:
            # "the game will continue following the suit of the newly played eight" [003:83]
            self.events.append(f"the suit is {SUITS[suit_of(kind)]}")
            self._start_turn(self.next_seat(p))
            return
        choices = (0, 1, 2, 3)
        if self.rules.eight_must_change_suit:  # "(then must declare a different suit)" (C-22)
            choices = tuple(s for s in choices if s != group.suit_before)
        self._suit_choices = choices
        self._decide(p, Decision.SUIT)

    def _declare(self, p: int, suit: int) -> None:
        self.suit = suit
        self.declared = True
        self.events.append(f"p{p} names {SUITS[suit]}")
        self._start_turn(self.next_seat(p))

    def _after_jacks(self, p: int, count: int) -> None:
        if self.players_left == 2:  # 'a "reverse" allows the player to play again' [003:87]
            self.events.append(f"p{p} plays again")
            self._start_turn(p)
        elif count % 2 == 0:  # only the parity of the jacks matters (C-57)
            self.events.append("the jacks cancel out")
            self._start_turn(self.next_seat(p))
        elif count == 1:  # the one-turn option exists only for a single J (C-57)
            self._decide(p, Decision.REVERSE)
        else:
            self._reverse(p, once=False)

    def _reverse(self, p: int, once: bool) -> None:
        """A J reverses play "for the remainder of the game play (until another jack is played)
        or ... only until the previous player has played" [003:87] (E-57)."""
        self.direction = -self.direction
        nxt = self.next_seat(p)
        if once:
            self._once_seat = nxt
            self.events.append(f"direction reversed until p{nxt} has played")
        else:
            self.events.append("direction reversed")
        self._start_turn(nxt)

    def _restore_once(self, p: int) -> None:
        """A one-turn reversal ends as its player has played: the original direction applies to
        that play's effects, so the turn comes back to the J's player (E-57)."""
        if self._once_seat == p:
            self._once_seat = None
            self.direction = -self.direction
            self.events.append("direction restored")

    def _skip_next(self, target: int) -> None:
        """The next skip falls on ``target``, who may pass it on with a 7 (E-56)."""
        if self.hands[target] & self._skip_mask:
            self._decide(target, Decision.DEFLECT)
        else:
            self._skip(target)

    def _skip(self, target: int) -> None:
        self.events.append(f"p{target} is skipped")
        self.skips -= 1
        nxt = self.next_seat(target)
        if self.skips:
            self._skip_next(nxt)
        else:
            self._start_turn(nxt)

    # ------------------------------------------------------------------ turns
    def _start_turn(self, seat: int) -> None:
        self._decide(seat, Decision.PLAY)

    def _end_turn(self, p: int) -> None:
        """p's turn ended without a play to resolve (a pass, or a demand drawn)."""
        self._restore_once(p)
        self._start_turn(self.next_seat(p))

    # ------------------------------------------------------------------ end of hand
    def _settle_hand(self) -> None:
        """Players in air when another wins "must pick a card from the deck" [003:126]."""
        for s in range(self.n):
            if self.active[s] and not self.sizes[s] and s != self.went_out:
                self.events.append(f"p{s} is in air at the end")
                self._draw(s, 1)

    def _score_hand(self) -> None:
        r, n = self.rules, self.n
        playing = [s for s in range(n) if self.active[s]]
        values = [score_kinds(self.hand_kinds(s), r) for s in range(n)]
        eliminated: list[int] = []
        if r.hand_scoring == "winner_collects":
            points = self._collect(values)
        else:
            eliminated = self._eliminate(values)
            points = list(values)
        for s in range(n):
            self.scores[s] += points[s]
        self.results.append(
            HandResult(
                hand_index=self.hand_index,
                deal_size=self.deal_size,
                dealer=self.dealer,
                ended_by=self.ended_by,
                went_out=self.went_out,
                cards_left=[self.hand(s) for s in range(n)],
                card_points=values,
                pressure_points=[0] * n,
                pressures=[0] * n,
                team_points=points,
                stars=[0] * n,
                revoke_points=[0] * n,
                eliminated=eliminated,
            )
        )
        self.events.append(
            f"hand {self.hand_index + 1} scores: "
            + ", ".join(f"p{s} {points[s]:+d}" for s in playing)
        )

    def _collect(self, values: list[int]) -> list[int]:
        """crazy_eights: the player who went out collects every hand's points; in a blocked hand
        the lowest hand scores the differences to each other hand [003:47] (E-63: each of several
        lowest scores that sum)."""
        if self.went_out is not None:
            points = [0] * self.n
            points[self.went_out] = sum(values)
            return points
        low = min(values)
        total = sum(v - low for v in values)
        return [total if v == low else 0 for v in values]

    def _eliminate(self, values: list[int]) -> list[int]:
        """zimbabwe: the highest hand loses the round and leaves the game [003:126]; players tied
        for highest draw one card each, in seat order, until one is strictly highest (E-60)."""
        playing = [s for s in range(self.n) if self.active[s]]
        while True:
            high = max(values[s] for s in playing)
            tied = [s for s in playing if values[s] == high]
            if len(tied) == 1:
                break
            self.events.append(f"tie for highest ({high}): " + ", ".join(f"p{s}" for s in tied))
            drawn = 0
            for s in tied:
                drawn += self._draw(s, 1)
                values[s] = score_kinds(self.hand_kinds(s), self.rules)
            if not drawn:  # E-60 SILENT→ all of them go; if that is everybody, they share
                if len(tied) == len(playing):
                    self.events.append("nothing left to draw: " + ", ".join(
                        f"p{s}" for s in tied) + " share the game")  # fmt: skip
                    self._shared = True
                    return []
                break
        for s in tied:
            self.active[s] = False
            self.events.append(f"p{s} is knocked out")
        return tied

    def _game_decided(self) -> bool:
        r = self.rules
        if r.game_end == "target":  # "the first player to reach a specific number" [003:49]
            return max(self.scores) >= r.target_score
        return self.players_left <= 1 or self._shared

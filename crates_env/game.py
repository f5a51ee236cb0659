"""A whole game of Crates (or a relative) as a state machine, one decision at a time.

The engine knows nothing of RL. ``Game`` deals every hand of the schedule, asks the player to act
for one decision at a time (``decision``, ``to_play``, ``legal_actions()``), applies an action with
``apply()``, and scores hands and the game. Everything a rule system changes is read from its
``Ruleset``. ``Game`` plays the Crates family itself; for the Crazy Eights family
(``Ruleset.engine == "eights"``) ``Game(...)`` builds a :class:`crates_env.eights.EightsGame`,
which shares the deal, the draw procedure, the event log and this public API.

Internals are tuned for speed: a hand is an int bitmask over physical card ids, the stock and the
discard pile are lists with their top card last, and legal plays are one mask intersection.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NoReturn

import numpy as np

from .actions import ANNOUNCE, DRAW, NUM_ACTIONS, SUIT, action_name
from .cards import (
    ACE,
    EIGHT,
    FIVE,
    FOUR,
    JACK,
    JOKER,
    KING,
    NINE,
    NUM_KINDS,
    QUEEN,
    SEVEN,
    SIX,
    SPADES,
    SUITS,
    TEN,
    THREE,
    TWO,
    card_code,
    make_kind,
    parse_card,
    rank_of,
    same_colour_suits,
    suit_of,
)
from .rules import PRESET_ENGINES, Ruleset, make_ruleset
from .scoring import pressure_value, score_kinds

QUEEN_OF_SPADES = make_kind(QUEEN, SPADES)
SEVEN_OF_DIAMONDS = make_kind(SEVEN, 1)
_PIPS = {ACE: 1, TWO: 2}


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


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message names it and the legal ones."""


class _HandEnded(Exception):
    """Raised inside a draw when nothing is left to reshuffle: the hand ends on the spot."""


@dataclass
class HandResult:
    """The outcome of one hand. Lists are per seat unless named per team."""

    hand_index: int
    deal_size: int
    dealer: int
    # "out", "count", "pressure"; crazy_eights "blocked"; zimbabwe "stalled" (nobody could play or
    # draw for a whole round of turns)
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


class Game:
    """A game of the Crates family from the first deal to the final score.

    ``Game("kreights", 3, seed=7)`` or ``Game(make_ruleset(...), seed=7)``. ``deck`` (card codes,
    top first) stacks the first hand: cards are dealt one at a time from the dealer's left, then
    the starter is turned, the rest is the stock; a shorter list is completed with the remaining
    cards in random order. ``dealer`` fixes the first dealer; ``hand_index`` starts the game at a
    later hand of the schedule.

    ``turn`` is the seat whose turn (and hand) it is; ``to_play`` is the seat that decides, which
    differs for Figgy (``skill_hand_world_series``: played by the previous player) and when the
    previous player picks a kreights penalty card. A preset of the Crazy Eights family makes
    ``Game(...)`` return an :class:`~crates_env.eights.EightsGame` (a subclass).
    """

    def __new__(cls, rules: Ruleset | str = "crates", *args, **kwargs) -> Game:
        if cls is Game:
            engine = (
                rules.engine
                if isinstance(rules, Ruleset)
                else PRESET_ENGINES.get(rules, "crates")
                if isinstance(rules, str)
                else "crates"
            )
            if engine == "eights":
                from .eights import EightsGame  # the module imports this one

                cls = EightsGame
        return super().__new__(cls)

    def __init__(
        self,
        rules: Ruleset | str = "crates",
        num_players: int | None = None,
        *,
        seed: int | np.random.Generator | None = None,
        dealer: int | None = None,
        deck: Sequence[str | int] | None = None,
        hand_index: int = 0,
        **options,
    ) -> None:
        if isinstance(rules, Ruleset):
            if num_players not in (None, rules.num_players):
                raise ValueError(
                    f"num_players={num_players} contradicts the ruleset's {rules.num_players}"
                )
            rules = rules.with_options(**options) if options else rules
        else:
            rules = make_ruleset(rules, num_players, **options)
        self.rules = rules
        self.n = rules.num_players
        self.deck = rules.deck
        # Two streams: the deals (first dealer, every hand's deck order) and the reshuffles.
        # The deals then never depend on how the hands are played, so the same seed gives the
        # same cards in every hand whoever sits where: duplicate play.
        if isinstance(seed, np.random.Generator):
            deal_seed, play_seed = (int(x) for x in seed.integers(2**63, size=2))
            self.deal_rng = np.random.default_rng(deal_seed)
            self.rng = np.random.default_rng(play_seed)
        else:
            deal_seq, play_seq = np.random.SeedSequence(seed).spawn(2)
            self.deal_rng = np.random.default_rng(deal_seq)
            self.rng = np.random.default_rng(play_seq)
        hands = rules.num_hands or rules.max_hands
        if not 0 <= hand_index < hands:
            raise ValueError(f"hand_index must be 0..{hands - 1}, not {hand_index}")
        self.hand_index = hand_index
        self._build_masks()

        teams = rules.num_teams
        self.scores = list(rules.initial_scores)  # per team, cumulative
        self.stars = [0] * self.n
        self.pressure_count = [0] * teams  # pressures taken this game (drives their value)
        self.results: list[HandResult] = []
        self.hand_logs: list[list[str]] = []
        self.game_over = False
        self.truncated = False
        self.active = [True] * self.n  # zimbabwe knocks players out
        self._mulligan_left = set(rules.kreights_mulligan)
        self._penalize = rules.misplay_mode == "penalize"
        self._dummy = rules.dummy_seat
        self._chooser: int | None = None  # who picks a penalty card for the player on turn
        self.events: list[str] = []
        self.dealer = self._first_dealer(dealer)
        self._start_hand(deck)

    # ------------------------------------------------------------------ setup
    def _build_masks(self) -> None:
        d = self.deck
        wild = d.rank_mask[EIGHT] | d.rank_mask[NINE]
        jokers = d.joker_mask
        # _match[suit][rank]: cards playable on that suit and rank outside the count.
        self._match = [
            [d.suit_mask[s] | d.rank_mask[r] | wild | jokers for r in range(13)] for s in range(4)
        ]
        self._count_mask = d.rank_mask[ACE] | d.rank_mask[TWO] | jokers
        self._six_mask = d.rank_mask[SIX]

    def _first_dealer(self, dealer: int | None) -> int:
        rule = self.rules.dealer_rule if dealer is None else dealer
        seats = list(self.rules.dealer_seats)
        if isinstance(rule, int):
            if rule not in seats:
                raise ValueError(
                    f"dealer must be a seat that deals ({', '.join(map(str, seats))}), not {rule}"
                )
            return rule
        if rule == "random":
            return seats[int(self.deal_rng.integers(len(seats)))]
        while True:  # draw for deal; redraw ties where the rules say so
            drawn = self.deal_rng.permutation(self.deck.size)[: len(seats)]
            cards = [self.deck.kinds[i] for i in drawn]
            for s, c in zip(seats, cards, strict=True):
                self.events.append(f"p{s} draws {card_code(c)} for deal")
            low = lowest_cards(cards, break_ties_by_suit=self.rules.low_card_ties == "suit")
            if len(low) == 1:
                self.events.append(f"p{seats[low[0]]} deals")
                return seats[low[0]]
            seats = [seats[i] for i in low]

    def _start_hand(self, deck: Sequence[str | int] | None = None) -> None:
        r = self.rules
        n = self.n
        # a game that lasts until a score condition deals its schedule over and over
        self.deal_size = r.schedule[self.hand_index % len(r.schedule)]
        order = self._deck_order(deck)
        self.hands = [0] * n
        self.sizes = [0] * n
        self.aside = 0  # cards set aside by set_position
        self.direction = 1
        self.played_counts = [0] * NUM_KINDS
        self.pressure_points = [0] * r.num_teams
        self.hand_pressures = [0] * r.num_teams
        self.hand_over = False
        self.ended_by = ""
        self.went_out: int | None = None
        self.decisions_this_hand = 0
        self._pending: tuple | None = None
        self._reset_hand()
        pos = 0
        seats = self._deal_seats()
        for _ in range(self.deal_size):
            for seat in seats:
                cid = order[pos]
                pos += 1
                self.hands[seat] |= 1 << cid
                self.sizes[seat] += 1
        self.stock = order[pos:][::-1]  # top of stock last
        self.discard: list[int] = []
        self.events.append(
            f"hand {self.hand_index + 1}: p{self.dealer} deals {self.deal_size} cards each"
        )
        self._turn_starter()

    def _reset_hand(self) -> None:
        """The Crates family's per-hand state, before the deal."""
        n, r = self.n, self.rules
        self.count = 0
        self.free_play = False
        self.out_order: list[int] = []
        self.penalty_owed = [False] * n
        self.revoke_points = [0] * r.num_teams
        self.exposed = [0] * n  # kreights penalty cards: held, face up, to be played first
        self._forced: int | None = None  # the penalty card picked for the player on turn
        self.ha_ha = False  # kreights: the count came back to the first player out
        self.clean: list[int] = []
        self.jack_run = 0
        self.series_left = 0  # craits face K: cards still to play in the series
        self.deal_call_pending = [r.craits_one_card_on_deal and self.deal_size == 1] * n

    def _deal_seats(self) -> list[int]:
        """Seats in dealing order: one card at a time from the dealer's left (or right)."""
        step = -1 if self._deal_goes_right() else 1
        seats = ((self.dealer + i * step) % self.n for i in range(1, self.n + 1))
        return [s for s in seats if self.active[s]]

    def _deal_goes_right(self) -> bool:
        return self.rules.craits_dealer_follows_direction and getattr(self, "_last_dir", 1) == -1

    def _deck_order(self, deck: Sequence[str | int] | None) -> list[int]:
        d = self.deck
        if deck is None:
            return [int(i) for i in self.deal_rng.permutation(d.size)]
        ids = d.ids_for([parse_card(c) for c in deck])
        used = 0
        for i in ids:
            used |= 1 << i
        rest = [i for i in range(d.size) if not used >> i & 1]
        return ids + [rest[i] for i in self.deal_rng.permutation(len(rest))]

    def set_position(
        self,
        hands: Sequence[Sequence[str | int]],
        stock: Sequence[str | int] = (),
        discard: Sequence[str | int] = (),
        *,
        turn: int,
        suit: str | None = None,
        direction: int = 1,
        count: int = 0,
        penalty_owed: Sequence[int] = (),
    ) -> None:
        """Replace the current hand's cards with a scripted position and give ``turn`` the move.

        ``stock`` is top first, ``discard`` bottom first (its last card is the top card). Cards of
        the deck placed nowhere are set aside for the rest of the hand. ``suit`` is required when
        the top card is a wild. Hand-level flags start fresh; game scores and pressures are kept.
        """
        dc = self._place_cards(hands, stock, discard, direction)
        # Jokers are transparent: the current rank is that of the card beneath them.
        below = [k for k in dc if k != JOKER]
        top = below[-1] if below else JOKER
        self.rank = None if top == JOKER else rank_of(top)
        if suit is not None:
            self.suit = _parse_suit(suit)
        elif top == JOKER or rank_of(top) in (EIGHT, NINE):
            raise ValueError(f"the top card is {card_code(dc[-1])}: say which suit is current")
        else:
            self.suit = suit_of(top)
        if self.rank is None:
            self.suit = None  # nothing beneath the Jokers: the next play is free (E-35)
        self.count = count
        self.jack_run = 1 if top != JOKER and rank_of(top) == JACK else 0
        self.free_play = self.series_left = 0
        self.out_order, self.clean = [], []
        self.ha_ha = False
        self.penalty_owed = [s in penalty_owed for s in range(self.n)]
        self.exposed = [0] * self.n
        self.deal_call_pending = [False] * self.n
        self._chicago_six_missed = False
        self.events.append(f"position set, p{turn} to play")
        self._start_turn(turn)

    def _place_cards(
        self,
        hands: Sequence[Sequence[str | int]],
        stock: Sequence[str | int],
        discard: Sequence[str | int],
        direction: int,
    ) -> list[int]:
        """Lay out a scripted position's cards (see ``set_position``); returns the discard kinds,
        bottom first."""
        if len(hands) != self.n:
            raise ValueError(f"set_position needs {self.n} hands, got {len(hands)}")
        if direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, not {direction}")
        parsed = [[parse_card(c) for c in h] for h in hands]
        st, dc = [parse_card(c) for c in stock], [parse_card(c) for c in discard]
        if not dc:
            raise ValueError("set_position needs at least the top card in discard")
        ids = self.deck.ids_for([k for h in parsed for k in h] + st + dc)
        pos = 0
        self.hands, self.sizes = [0] * self.n, [0] * self.n
        for seat, h in enumerate(parsed):
            for _ in h:
                self.hands[seat] |= 1 << ids[pos]
                pos += 1
            self.sizes[seat] = len(h)
        self.stock = ids[pos : pos + len(st)][::-1]
        self.discard = ids[pos + len(st) :]
        placed = 0
        for i in ids:
            placed |= 1 << i
        self.aside = self.deck.full_mask & ~placed
        self.direction = direction
        self.hand_over = False
        self.went_out = None
        self._pending = None
        return dc

    # ------------------------------------------------------------------ seats
    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.n

    def prev_seat(self, seat: int) -> int:
        return (seat - self.direction) % self.n

    # ------------------------------------------------------------------ public view
    @property
    def decision(self) -> Decision | None:
        return self._decision

    @property
    def to_play(self) -> int:
        """The seat that must decide now: the player on ``turn``, except that Figgy's decisions
        are made by prev(Figgy) [000:161] and the previous player picks among several playable
        penalty cards [001:71]."""
        if self._chooser is not None:
            return self._chooser
        turn = self.turn
        return self.prev_seat(turn) if turn == self._dummy else turn

    def legal_actions(self) -> list[int]:
        """Legal actions for the pending decision (empty when the game is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        dec = self._decision
        if dec is None:
            return []
        p = self.turn
        if dec is Decision.PLAY:
            hand = self.hands[p]
            plays = hand & self._play_mask()
            if self.exposed[p]:
                plays = self._forced_plays(p, plays)
            if not plays:
                return [DRAW, ANNOUNCE] if self.deal_call_pending[p] else [DRAW]
            actions = self.deck.distinct_kinds_in(plays)
            if self._call_offered(p, hand, plays):
                actions.append(ANNOUNCE)
            return actions
        if dec is Decision.PENALTY_CARD:
            return self.deck.distinct_kinds_in(self.hands[p] & self.exposed[p] & self._play_mask())
        return [SUIT + s for s in self._suit_choices]

    def acceptable_actions(self) -> list[int]:
        """The actions ``apply`` accepts now: the legal ones, plus with ``misplay_mode="penalize"``
        the misplays the rules penalise (see ``_misplays``). ``legal_actions`` stays the mask of
        rule-abiding actions."""
        legal = self.legal_actions()
        return legal + self._misplays() if self._penalize else legal

    def _play_mask(self) -> int:
        if self.count:
            return self._count_mask
        if self.free_play or self.suit is None:
            return self.deck.full_mask
        return self._match[self.suit][self.rank]

    def _call_offered(self, p: int, hand: int, plays: int) -> bool:
        """Whether announcing "one card" can matter for the coming play (RULES.md §1.6)."""
        if self.announced or self.turn_called:
            return False
        if self.deal_call_pending[p]:
            return True
        size = self.sizes[p]
        if self.rules.one_card_per_turn:  # creights: once, with the turn's first play
            if self.turn_plays:
                return False
            sixes = (hand & self._six_mask).bit_count()
            return size == 2 or (size == 1 and sixes == 1) or (size >= 3 and sixes >= size - 2)
        if size == 2:
            return True
        # chicago1970: a last-card 6 needs the call [000:139]
        return size == 1 and self.rules.one_card_last_six and bool(plays & self._six_mask)

    def pending_draw(self) -> int:
        """Cards the player to act would take by drawing now: the count, a Cooper's, or one."""
        if self.count:
            return self.count
        return self.cooper_draw if self.turn_plays else 1

    def action_names(self) -> list[str]:
        return [action_name(a) for a in self.legal_actions()]

    def hand(self, seat: int) -> list[str]:
        """Card codes held by ``seat``."""
        return [card_code(k) for k in self.deck.kinds_in(self.hands[seat])]

    def hand_kinds(self, seat: int) -> list[int]:
        return self.deck.kinds_in(self.hands[seat])

    @property
    def top_card(self) -> str | None:
        return card_code(self.deck.kinds[self.discard[-1]]) if self.discard else None

    @property
    def current_suit(self) -> str | None:
        return None if self.suit is None else SUITS[self.suit]

    @property
    def hand_sizes(self) -> list[int]:
        return list(self.sizes)

    def stock_cards(self) -> list[str]:
        """Stock card codes, top first (hidden information: for tests and replays)."""
        return [card_code(self.deck.kinds[i]) for i in reversed(self.stock)]

    def discard_cards(self) -> list[str]:
        """Discard pile codes, bottom first (the last is the top card)."""
        return [card_code(self.deck.kinds[i]) for i in self.discard]

    def seat_scores(self) -> list[int]:
        """Cumulative score of each seat (its partnership's score in a partnership game)."""
        return [self.scores[self.rules.team_of(s)] for s in range(self.n)]

    def penalty_cards(self, seat: int) -> list[str]:
        """Card codes of ``seat``'s exposed kreights penalty cards (part of its hand)."""
        return [card_code(k) for k in self.deck.kinds_in(self.exposed[seat])]

    def winners(self) -> list[int]:
        """Teams (seats, without partnerships) with the best final score (the lowest, or the
        highest where ``higher_score_wins``); ties by stars. In an elimination game: the players
        left."""
        r = self.rules
        if r.game_end == "last_player":
            return [s for s in range(self.n) if self.active[s]]
        best = max(self.scores) if r.higher_score_wins else min(self.scores)
        tied = [t for t, s in enumerate(self.scores) if s == best]
        if self.rules.stars and len(tied) > 1:
            most = max(self.stars[t] for t in tied)
            tied = [t for t in tied if self.stars[t] == most]
        return tied

    # ------------------------------------------------------------------ acting
    def apply(self, action: int) -> None:
        """Apply one action of the pending decision; raises ``IllegalActionError`` unless it is
        legal (or, with ``misplay_mode="penalize"``, a misplay the rules penalise)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        handler = self._act
        if type(action) is not int or action not in legal:
            action, handler = self._screen(action, legal)
        self._legal = None
        self.decisions_this_hand += 1
        try:  # noqa: SIM105 (contextlib.suppress is slower on this hot path)
            handler(action)
        except _HandEnded:
            pass
        if self.hand_over:
            self._finish_hand()
        elif self.decisions_this_hand >= self.rules.max_decisions_per_hand:
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
        if self._penalize and action in self._misplays():
            return action, self._misplay
        self._reject(action, legal)

    def _act(self, action: int) -> None:
        """Carry out a legal action of the pending decision."""
        if self._decision is Decision.PLAY:
            p = self.turn
            if action == ANNOUNCE:
                self._announce(p)
                return
            if self.deal_call_pending[p]:
                self.deal_call_pending[p] = False
                self._missed_call(p)
            if action == DRAW:
                self._draw_move(p)
            else:
                self._play(p, action)
        elif self._decision is Decision.PENALTY_CARD:
            self._pick_penalty_card(action)
        else:
            self._name_suit(action - SUIT)

    def _reject(self, action: object, legal: list[int]) -> NoReturn:
        if self._decision is None:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        name = (
            action_name(action) if isinstance(action, int) and 0 <= action < NUM_ACTIONS else None
        )
        what = f"{action!r} ({name})" if name else repr(action)
        accepted = ", ".join(f"{a} ({action_name(a)})" for a in legal)
        misplays = self._misplays() if self._penalize else []
        if misplays:
            accepted += "; penalised misplays: " + ", ".join(
                f"{a} ({action_name(a)})" for a in misplays
            )
        raise IllegalActionError(
            f"illegal action {what} for p{self.to_play} ({self._decision.name.lower()} decision); "
            f"legal: {accepted}"
        )

    # ------------------------------------------------------------------ misplays (P1 penalize)
    def _misplays(self) -> list[int]:
        """Illegal actions that ``misplay_mode="penalize"`` applies with the seed's penalty
        (RULES.md §1.12): playing a held card that may not be played now (kreights: it becomes a
        penalty card, unless it already is one; creights: a dumbass card), drawing with a legal
        play (kreights revoke), naming a suit a 9 does not allow and a needless "one card" call
        (creights dumbass cards). Everything else stays impossible and is refused."""
        r = self.rules
        legal = self.legal_actions()
        p = self.turn
        if self._decision is Decision.PLAY:
            held = self.hands[p] if r.misplay_card else 0
            if r.misplay_card == "expose":
                held &= ~self.exposed[p]
            out = [k for k in self.deck.distinct_kinds_in(held) if k not in legal]
            if r.revoke_points and DRAW not in legal:
                out.append(DRAW)
            if r.dumbass_calls and ANNOUNCE not in legal:
                out.append(ANNOUNCE)
            return out
        if self._decision is Decision.SUIT and r.dumbass_calls:
            return [SUIT + s for s in range(4) if SUIT + s not in legal]
        return []

    def _misplay(self, action: int) -> None:
        p = self.turn
        if action == DRAW:  # a revoke: "1,000M points added to score" [001:53]
            self.revoke_points[self.rules.team_of(p)] += self.rules.revoke_points
            self.events.append(f"p{p} revokes +{self.rules.revoke_points}")
            self._act(DRAW)
        elif action == ANNOUNCE:  # says "One card" when it doesn't apply [004:23]
            self.events.append(f"p{p} announces one card needlessly")
            self._dumbass(p)
        elif action >= SUIT:  # "calls an invalid suit after playing a nine" [004:23]
            self.events.append(f"p{p} names {SUITS[action - SUIT]}: not a valid call")
            self._dumbass(p)  # and calls again (TV-16)
        elif self.rules.misplay_card == "expose":
            # "that card remains face up on the table and must be played at the first legal
            # opportunity" [001:71]; the player still owes a legal action
            ids = self.hands[p] & ~self.exposed[p] & self.deck.kind_mask[action]
            self.exposed[p] |= ids & -ids
            self.events.append(f"p{p} plays {card_code(action)} illegally: a penalty card")
        else:
            self._illegal_play_dumbass(p, action)

    def _illegal_play_dumbass(self, p: int, kind: int) -> None:
        """ "the card is returned, a dumbass card given, and the turn forfeited, unless it is
        during a crank, in which case the turn cannot be forfeited" [004:23]."""
        self.events.append(f"p{p} plays {card_code(kind)} illegally: the card is returned")
        self._dumbass(p)
        if not self.count:
            self.events.append(f"p{p} forfeits the turn")
            self._start_turn(self.next_seat(p))

    def _dumbass(self, p: int) -> None:
        self.events.append(f"p{p} takes a dumbass card")
        self._draw(p, 1)  # from the stock, through D: it can cause pressure [004:23]

    def _forced_plays(self, p: int, plays: int) -> int:
        """Penalty cards that can be played must be: only they are legal [001:71]."""
        forced = plays & self.exposed[p]
        if forced and self._forced is not None:
            forced &= self.deck.kind_mask[self._forced]
        return forced or plays

    def _offer_penalty_choice(self, p: int) -> None:
        """With several playable penalty cards, "the player who has just previously played
        chooses" [001:71]: the previous player picks before p acts."""
        self._forced = None
        options = self.hands[p] & self.exposed[p] & self._play_mask()
        if len(self.deck.distinct_kinds_in(options)) > 1:
            self._decision = Decision.PENALTY_CARD
            self._chooser = self.prev_seat(p)

    def _pick_penalty_card(self, kind: int) -> None:
        self.events.append(f"p{self._chooser} picks {card_code(kind)} for p{self.turn}")
        self._forced = kind
        self._chooser = None
        self._decision = Decision.PLAY

    def _announce(self, p: int) -> None:
        self.announced = True
        self.turn_called = True
        self.deal_call_pending[p] = False
        self.events.append(f"p{p} announces one card")

    def _play(self, p: int, kind: int) -> None:
        d = self.deck
        size_before = self.sizes[p]
        ids = self.hands[p] & d.kind_mask[kind]
        if self.exposed[p] & ids:  # a penalty card leaves the table first
            ids &= self.exposed[p]
            self.exposed[p] ^= ids & -ids
        low = ids & -ids
        self.hands[p] ^= low
        self.sizes[p] = size_before - 1
        self.discard.append(low.bit_length() - 1)
        self.played_counts[kind] += 1
        self.turn_plays += 1
        plain = self.series_left > 1  # the first two cards of a face-K series have no function
        if self.series_left:
            self.series_left -= 1
        announced, self.announced = self.announced, False
        text = f"p{p} plays {card_code(kind)}"
        if kind != JOKER:
            rank = rank_of(kind)
            self.rank = rank
            if rank != EIGHT and rank != NINE:
                self.suit = suit_of(kind)
            self.free_play = False
            self.jack_run = self.jack_run + 1 if rank == JACK else 0
        if self.count:
            self.count += _PIPS.get(rank_of(kind), 0) if kind != JOKER else 0
            text += f", count {self.count}"
        elif kind != JOKER and rank_of(kind) == TWO and not plain:
            self.count = 2
            text += ", count 2"
        self.events.append(text)
        self._check_call(p, size_before, kind, announced)
        if self.rules.one_card_per_turn and self.sizes[p] == 1:
            self._check_turn_call(p)
        if not self.sizes[p] and not self.count and not self._must_play_again(kind, plain):
            self.went_out = p  # out now, even if this card's draws end the hand on a pressure
        if not plain:
            self._card_effect(p, kind)
        if kind != JOKER and rank_of(kind) in (EIGHT, NINE) and (self.sizes[p] or self.series_left):
            self._ask_suit(p, kind, Decision.SUIT, plain)
            return
        self._after_play(p, kind, plain)

    def _ask_suit(self, p: int, kind: int, decision: Decision, plain: bool) -> None:
        if rank_of(kind) == EIGHT or (
            decision is Decision.STARTER_SUIT and self.rules.nine_starter_any_suit
        ):
            self._suit_choices = (0, 1, 2, 3)
        elif decision is Decision.STARTER_SUIT or self.suit is None:
            self._suit_choices = same_colour_suits(suit_of(kind))  # the 9's own colour [000:52]
        else:
            self._suit_choices = same_colour_suits(self.suit)  # the current suit's colour (C-16)
        self._pending = (p, kind, plain)
        self._decide(p, decision)

    def _name_suit(self, suit: int) -> None:
        p, kind, plain = self._pending
        self._pending = None
        self.suit = suit
        self.events.append(f"p{p} names {SUITS[suit]}")
        self._after_play(p, kind, plain)

    def _after_play(self, p: int, kind: int, plain: bool) -> None:
        """Move the turn after a card (or the starter) has resolved (RULES.md §1.15)."""
        if self.count:
            if self.sizes[p] == 0 and p not in self.out_order:
                self.out_order.append(p)
                self.events.append(f"p{p} is out, the count goes on")
            self._start_turn(self.prev_seat(p) if kind == JOKER else self.next_seat(p))
            return
        rank = -1 if kind == JOKER else rank_of(kind)
        if self._must_play_again(kind, plain):
            if not plain and rank == KING and not self.series_left:
                self.series_left = 3
            self._play_again(p)  # a 6, a face K or an open series must be followed, even from 0
            return
        if rank == TEN:  # before the out check: a final 10 counts for the next deal (E-43, E-47)
            self.direction = -self.direction
            self.events.append("direction " + ("clockwise" if self.direction == 1 else "reversed"))
        if self.sizes[p] == 0:
            self.events.append(f"p{p} goes out")
            self._end_hand("out")
            return
        if rank == FOUR:
            self.events.append(f"p{self.next_seat(p)} is skipped")
            self._start_turn(self.next_seat(p, 2))
        elif kind == JOKER:
            self._start_turn(self.prev_seat(p))
        elif self.rules.craits_face_cards and (rank == JACK or kind == QUEEN_OF_SPADES):
            self._start_turn(self.next_seat(p, 2))  # the victim drew and forfeits the turn
        else:
            self._start_turn(self.next_seat(p))

    def _must_play_again(self, kind: int, plain: bool) -> bool:
        """A 6, a face-card K (craits) or an unfinished K series keeps the turn with the player."""
        if self.series_left:
            return True
        if plain or kind == JOKER:
            return False
        rank = rank_of(kind)
        return rank == SIX or (rank == KING and self.rules.craits_face_cards)

    def _card_effect(self, p: int, kind: int) -> None:
        """Draws a card forces on others; they happen before the turn moves or the hand ends."""
        if kind == JOKER:
            return
        r = self.rules
        rank = rank_of(kind)
        if rank == FIVE:  # in order, in the current direction, so pressure lands right [000:87]
            for i in range(1, self.n):
                self._draw(self.next_seat(p, i), 1)
        elif rank == SEVEN:
            target = self.next_seat(p, 1 if r.seven_hits == "next" else 2)
            self._draw(target, 1)
            if r.seven_of_diamonds_beer and kind == SEVEN_OF_DIAMONDS and self.sizes[p] == 0:
                self.events.append(f"p{target} owes p{p} a beer")  # [004:21]
        elif rank == JACK:
            if r.craits_face_cards:
                self._draw(self.next_seat(p), 2 * self.jack_run)
            elif r.jack_hits_prev:
                self._draw(self.prev_seat(p), 1)
        elif rank == QUEEN:
            if r.craits_face_cards:
                if kind == QUEEN_OF_SPADES:
                    self._draw(self.next_seat(p), 5)
            elif r.queen_draws_two:
                self._draw(self.next_seat(p), 2)

    def _draw_move(self, p: int) -> None:
        """The DRAW action: draw the count, or draw when no play is legal, ending the turn."""
        if self.count:
            total, self.count = self.count, 0
            self._draw(p, total)
            self._count_over(p)
            return
        if self.turn_plays and self.cooper_draw == 2:
            self.events.append(f"p{p} played a last 6 without the call")
        self._draw(p, self.cooper_draw if self.turn_plays else 1)
        self.series_left = 0
        if self.rules.one_card_per_turn and self.turn_plays and self.sizes[p] == 1:
            self._check_turn_call(p)  # a Cooper from one card ends the turn holding one
        self._start_turn(self.next_seat(p))

    def _count_over(self, drawer: int) -> None:
        """After the count is drawn: the hand ends if someone went out during it (RULES.md §1.5)."""
        if self.out_order:
            self.ha_ha = drawer == self.out_order[0]
            self.clean = [s for s in self.out_order[1:] if self.rules.stars]
            if not self.rules.count_continues_hand or 0 in self.sizes:
                self._end_hand("count")
                return
            self.events.append("play goes on")
            self.out_order.clear()
        self.free_play = self.rules.kreights_free_play_after_count
        self._start_turn(self.next_seat(drawer))

    def _play_again(self, p: int) -> None:
        self.cooper_draw = 2 if self._chicago_six_missed else 1
        self._decide(p, Decision.PLAY)
        if self.exposed[p]:
            self._offer_penalty_choice(p)

    # ------------------------------------------------------------------ one card
    def _check_call(self, p: int, size_before: int, kind: int, announced: bool) -> None:
        """Check the call for a play from ``size_before`` cards (not creights' per-turn rule)."""
        self._chicago_six_missed = False
        if self.rules.one_card_per_turn:
            return
        if size_before == 2 and not announced:
            self._missed_call(p)
        elif (
            size_before == 1
            and self.rules.one_card_last_six
            and kind != JOKER
            and rank_of(kind) == SIX
            and not announced
        ):
            self._chicago_six_missed = True  # draws two instead of one, nothing more [000:139]

    def _check_turn_call(self, p: int) -> None:
        """creights: holding one card at any moment after the turn began needs the call [004:7]."""
        if not self.turn_called and not self.turn_call_missed:
            self.turn_call_missed = True
            self._missed_call(p)

    def _missed_call(self, p: int) -> None:
        if p in self._mulligan_left:
            self._mulligan_left.discard(p)
            self.events.append(f"p{p} missed the one-card call (mulligan)")
            return
        self.events.append(f"p{p} missed the one-card call")
        if self.rules.craits_idiot_card:
            self.events.append(f"p{p} takes an idiot card")
            self._draw(p, 1)
        else:
            self.penalty_owed[p] = True

    # ------------------------------------------------------------------ turns
    def _start_turn(self, seat: int) -> None:
        while not self.count and self.penalty_owed[seat]:
            self.penalty_owed[seat] = False
            self.turn = seat  # the turn is seat's, lost to the penalty (C-19 needs it)
            self.events.append(f"p{seat} loses the turn for the missed call")
            self._draw(seat, 2)
            seat = self.next_seat(seat)
        self.turn_plays = 0
        self.turn_called = False
        self.turn_call_missed = False
        self.cooper_draw = 1
        self._decide(seat, Decision.PLAY)
        if self.exposed[seat]:
            self._offer_penalty_choice(seat)

    def _decide(self, seat: int, decision: Decision) -> None:
        self.turn = seat
        self._decision = decision
        self._legal = None
        self.announced = False

    # ------------------------------------------------------------------ drawing and pressure
    def _draw(self, seat: int, k: int) -> int:
        """Procedure D of RULES.md §1.15: ``seat`` draws ``k`` cards, refilling the stock when it
        runs out; returns the number drawn (fewer only when zimbabwe has nothing to reshuffle)."""
        stock = self.stock
        if len(stock) < k:
            return self._draw_past_stock(seat, k)
        hand = self.hands[seat]
        for _ in range(k):
            hand |= 1 << stock.pop()
        self.hands[seat] = hand
        self.sizes[seat] += k
        self.events.append(f"p{seat} draws {k}")
        return k

    def _draw_past_stock(self, seat: int, k: int) -> int:
        got = 0
        while True:
            stock = self.stock
            take = min(k - got, len(stock))
            hand = self.hands[seat]
            for _ in range(take):
                hand |= 1 << stock.pop()
            self.hands[seat] = hand
            self.sizes[seat] += take
            got += take
            if got == k:
                self.events.append(f"p{seat} draws {k}")
                return k
            if not self._refill(seat, got, k):
                return got

    def _refill(self, seat: int, got: int, k: int) -> bool:
        """The stock is empty with cards still to draw; False: the draw stops short.

        Crates family: a pressure each time, and the hand ends when nothing can be reshuffled
        (E-1). zimbabwe: a free reshuffle, and the draw is skipped when there is nothing to
        reshuffle (§1.10). crazy_eights: no reshuffle, the hand is blocked [003:47] (E-63).
        """
        policy = self.rules.empty_stock
        if policy == "blocked":
            self.events.append(f"p{seat} cannot draw: the stock is empty, the hand is blocked")
            self._end_hand("blocked")
            raise _HandEnded
        if policy == "pressure":
            self._charge_pressure(seat)
        if len(self.discard) > 1:
            self._reshuffle()
            return True
        self.events.append(f"p{seat} draws {got} of {k}: nothing to reshuffle")
        if policy == "reshuffle":
            return False
        self._end_hand("pressure")
        raise _HandEnded

    def _charge_pressure(self, seat: int) -> None:
        note = ""
        if seat == self._dummy:  # Figgy "never receives a pressure" [000:162]
            note = f" (p{seat}'s draw)"
            seat = self._next_to_play()
        team = self.rules.team_of(seat)
        self.pressure_count[team] += 1
        value = pressure_value(self.pressure_count[team], self.rules.pressure)
        self.pressure_points[team] += value
        self.hand_pressures[team] += 1
        self.events.append(f"pressure p{seat} +{value}{note}")

    def _next_to_play(self) -> int:
        """SHWS: "the next player to play" after a draw of Figgy's (C-19): the seat the turn goes
        to from the player on turn, or the human after it when that is Figgy (DV-31)."""
        seat = self.next_seat(self.turn)
        return self.next_seat(seat) if seat == self._dummy else seat

    def _reshuffle(self) -> None:
        top = self.discard.pop()
        cards = self.discard
        self.stock = [cards[i] for i in self.rng.permutation(len(cards))]
        self.discard = [top]
        self.events.append(f"reshuffle {len(self.stock)}")

    # ------------------------------------------------------------------ starter
    def _turn_starter(self) -> None:
        d = self.dealer
        self.turn = d
        self.turn_plays = 0
        self.turn_called = self.turn_call_missed = False
        self.announced = False
        self._chicago_six_missed = False
        self.cooper_draw = 1
        self._legal = None
        self._decision = None
        cid = self.stock.pop()
        self.discard.append(cid)
        kind = self.deck.kinds[cid]
        self.played_counts[kind] += 1
        text = f"p{d} turns {card_code(kind)}"
        if kind == JOKER:
            self.suit = self.rank = None  # nothing beneath: the first play is free (E-35)
        else:
            self.suit, self.rank = suit_of(kind), rank_of(kind)
            if self.rank == TWO:
                self.count = 2
                text += ", count 2"
            self.jack_run = 1 if self.rank == JACK else 0
        self.events.append(text)
        try:
            self._card_effect(d, kind)
            if kind != JOKER and rank_of(kind) in (EIGHT, NINE):
                self._ask_suit(d, kind, Decision.STARTER_SUIT, False)
            else:
                self._after_play(d, kind, False)
        except _HandEnded:
            self._finish_hand()

    # ------------------------------------------------------------------ end of hand
    def _end_hand(self, reason: str) -> None:
        self.hand_over = True
        self.ended_by = reason
        self._decision = None
        self._legal = None

    def _finish_hand(self) -> None:
        self._settle_hand()
        self._last_dir = self.direction
        self._score_hand()
        self.hand_logs.append(self.events)
        self.hand_index += 1
        if self._game_decided():
            self.game_over = True
            self._decision = None
            return
        if self.hand_index >= self.rules.max_hands:
            self._truncate_game()
            return
        self.dealer = self._next_dealer()
        self.events = []
        self._start_hand()

    def _settle_hand(self) -> None:
        """Draws owed when the hand ends: kreights and creights serve one-card penalties."""
        if self.rules.penalty_drawn_at_end and self.ended_by != "pressure":
            owed = [s for s in range(self.n) if self.penalty_owed[s]]
            try:
                for s in owed:
                    self.penalty_owed[s] = False
                    self.events.append(f"p{s} draws the one-card penalty before scoring")
                    self._draw(s, 2)
            except _HandEnded:
                return  # a pressure with nothing to reshuffle ends the drawing too (E-5)

    def _game_decided(self) -> bool:
        return self.hand_index >= self.rules.num_hands

    def _next_dealer(self) -> int:
        """The deal passes left (right after a counter-clockwise craits finish), skipping seats
        that never deal (Figgy) and players knocked out."""
        step = -1 if self._deal_goes_right() else 1
        seat = self.dealer
        while True:
            seat = (seat + step) % self.n
            if self.active[seat] and seat in self.rules.dealer_seats:
                return seat

    def _score_hand(self) -> None:
        r = self.rules
        n = self.n
        kinds = [self.hand_kinds(s) for s in range(n)]
        points = [score_kinds(k, r) for k in kinds]
        if r.craits_go_out_minus_10:
            points = [p - 10 if not self.sizes[s] else p for s, p in enumerate(points)]
        first_out = self.out_order[0] if self.out_order else self.went_out
        ha_ha = r.stars and self.ha_ha
        stars = [0] * n
        if r.stars:
            if first_out is not None and not ha_ha:
                stars[first_out] += 1
            for s in range(n):
                if kinds[s] and all(k != JOKER and rank_of(k) == THREE for k in kinds[s]):
                    stars[s] += 2  # caught with only threes [001:65]
        team_points = [p + v for p, v in zip(self.pressure_points, self.revoke_points, strict=True)]
        for s in range(n):
            team_points[r.team_of(s)] += points[s]
            self.stars[s] += stars[s]
        for t, v in enumerate(team_points):
            self.scores[t] += v
        result = HandResult(
            hand_index=self.hand_index,
            deal_size=self.deal_size,
            dealer=self.dealer,
            ended_by=self.ended_by,
            went_out=first_out,
            cards_left=[[card_code(k) for k in ks] for ks in kinds],
            card_points=points,
            pressure_points=list(self.pressure_points),
            pressures=list(self.hand_pressures),
            team_points=team_points,
            stars=stars,
            clean=list(self.clean),
            ha_ha_no_star=ha_ha,
            revoke_points=list(self.revoke_points),
        )
        self.results.append(result)
        who = "team" if r.partnerships else "p"
        self.events.append(
            f"hand {self.hand_index + 1} scores: "
            + ", ".join(f"{who}{t} {v:+d}" for t, v in enumerate(team_points))
        )
        if ha_ha:
            self.events.append(f"p{first_out}: ha ha, no star")
        if r.kreights_barometer:
            leader = min(range(len(self.scores)), key=self.scores.__getitem__)
            self.events.append(f"barometer: p{leader} leads")

    def _truncate(self) -> None:
        self.events.append(
            f"hand truncated after {self.decisions_this_hand} decisions (turn guard)"
        )
        self.hand_over = True
        self.ended_by = "truncated"
        self.hand_logs.append(self.events)
        self._stop_truncated()

    def _truncate_game(self) -> None:
        self.events.append(f"game truncated after {self.hand_index} hands (max_hands guard)")
        self._stop_truncated()

    def _stop_truncated(self) -> None:
        self.truncated = True
        self.game_over = True
        self._decision = None
        self._legal = None


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

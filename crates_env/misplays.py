"""Misplays and their penalties (docs/rules.md §1.12, P1: ``misplay_mode="penalize"``).

Mixed into :class:`crates_env.crates.CratesGame`. With the default ``misplay_mode="reject"`` an
illegal action is refused and changes nothing. With ``"penalize"`` the engine accepts the misplays
a seed penalises and applies the penalty (``acceptable_actions()`` lists them beside the legal
ones):

- kreights penalty cards (``misplay_card == "expose"``): a card played illegally stays face up in
  the hand and must be played at the first legal opportunity; with several playable, the previous
  player picks which [001:71];
- kreights revokes (``revoke_points``): drawing with a legal play costs 1,000M points [001:53];
- creights dumbass cards (``misplay_card == "dumbass"``, ``dumbass_calls``): an illegal card is
  returned and costs a card and the turn (not during a count), as do an invalid suit call after a 9
  and a needless "one card" [004:23].
"""

from __future__ import annotations

from .actions import ANNOUNCE, DRAW, SUIT
from .events import event
from .state import Decision


class Misplays:
    """The misplays ``penalize`` accepts, their penalties, and the penalty cards they leave.

    A part of :class:`~crates_env.crates.CratesGame`: it works on the game's state
    (``hand_state``, ``turn_state``, ``game_state``) and its draw procedure."""

    def _misplays(self) -> list[int]:
        """Illegal actions that ``misplay_mode="penalize"`` applies with the seed's penalty:
        playing a held card that may not be played now (kreights: it becomes a penalty card,
        unless it already is one; creights: a dumbass card), drawing with a legal play (kreights
        revoke), naming a suit a 9 does not allow and a needless "one card" call (creights
        dumbass cards). Everything else stays impossible and is refused."""
        r, hs, ts = self.rules, self.hand_state, self.turn_state
        legal = self.legal_actions()
        p = ts.seat
        if ts.decision is Decision.PLAY:
            held = hs.hands[p] if r.misplay_card else 0
            if r.misplay_card == "expose":
                held &= ~hs.exposed[p]
            out = [k for k in self.deck.distinct_kinds_in(held) if k not in legal]
            if r.revoke_points and DRAW not in legal:
                out.append(DRAW)
            if r.dumbass_calls and ANNOUNCE not in legal:
                out.append(ANNOUNCE)
            return out
        if ts.decision is Decision.SUIT and r.dumbass_calls:
            return [SUIT + s for s in range(4) if SUIT + s not in legal]
        return []

    def _misplay(self, action: int) -> None:
        hs = self.hand_state
        p = self.turn_state.seat
        if action == DRAW:  # a revoke: "1,000M points added to score" [001:53]
            points = self.rules.revoke_points
            hs.revoke_points[self.rules.team_of(p)] += points
            hs.events.append(event("revoke", p, None, points))
            self._act(DRAW)
        elif action == ANNOUNCE:  # says "One card" when it doesn't apply [004:23]
            hs.events.append(event("needless_call", p))
            self._dumbass(p)
        elif action >= SUIT:  # "calls an invalid suit after playing a nine" [004:23]
            hs.events.append(event("invalid_suit", p, None, action - SUIT))
            self._dumbass(p)  # and calls again (TV-16)
        elif self.rules.misplay_card == "expose":
            # "that card remains face up on the table and must be played at the first legal
            # opportunity" [001:71]; the player still owes a legal action
            ids = hs.hands[p] & ~hs.exposed[p] & self.deck.kind_mask[action]
            hs.exposed[p] |= ids & -ids
            hs.events.append(event("penalty_card", p, action))
        else:
            self._illegal_play_dumbass(p, action)

    def _illegal_play_dumbass(self, p: int, kind: int) -> None:
        """ "the card is returned, a dumbass card given, and the turn forfeited, unless it is
        during a crank, in which case the turn cannot be forfeited" [004:23]."""
        hs = self.hand_state
        hs.events.append(event("card_returned", p, kind))
        self._dumbass(p)
        if not hs.count:
            hs.events.append(event("forfeit", p))
            self._start_turn(self.next_seat(p))

    def _dumbass(self, p: int) -> None:
        self.hand_state.events.append(event("dumbass_card", p))
        self._draw(p, 1)  # from the stock, through D: it can cause pressure [004:23]

    # ------------------------------------------------------------------ penalty cards
    def _forced_plays(self, p: int, plays: int) -> int:
        """Penalty cards that can be played must be: only they are legal [001:71]."""
        forced = plays & self.hand_state.exposed[p]
        pick = self.turn_state.forced
        if forced and pick is not None:
            forced &= self.deck.kind_mask[pick]
        return forced or plays

    def _offer_penalty_choice(self, p: int) -> None:
        """With several playable penalty cards, "the player who has just previously played
        chooses" [001:71]: the previous player picks before p acts."""
        ts, hs = self.turn_state, self.hand_state
        ts.forced = None
        options = hs.hands[p] & hs.exposed[p] & self._play_mask()
        if len(self.deck.distinct_kinds_in(options)) > 1:
            ts.decision = Decision.PENALTY_CARD
            ts.chooser = self.prev_seat(p)

    def _pick_penalty_card(self, kind: int) -> None:
        ts = self.turn_state
        self.hand_state.events.append(event("penalty_pick", ts.chooser, kind, None, ts.seat))
        ts.forced = kind
        ts.chooser = None
        ts.decision = Decision.PLAY

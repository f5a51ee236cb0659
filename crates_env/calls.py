"""The one-card call of the Crates family (docs/rules.md §1.6, P2), in all its variants.

Mixed into :class:`crates_env.crates.CratesGame`. The variants are resolved ruleset fields:

- a play from two cards needs the call, made with the play (crates, kreights, craits);
- ``one_card_last_six``: so does a last card that is a 6 (chicago1970) [000:139]; missing it
  draws two instead of one after the 6, nothing more;
- ``one_card_per_turn``: the call is made once per turn, with its first play, whenever the hand
  will hold one card at any moment after the turn began (creights) [004:7-9];
- ``call_on_one_card_deal``: in a 1-card hand every player calls on receiving the card (craits);
- ``missed_call``: ``"next_turn"`` (lose the next turn and draw two then) or ``"idiot_card"``
  (draw one at once, craits); ``mulligans``: seats whose first miss goes unpunished (kreights).
"""

from __future__ import annotations

from .cards import JOKER, SIX, rank_of
from .events import event


class OneCardCalls:
    """Offering, checking and punishing the one-card call.

    A part of :class:`~crates_env.crates.CratesGame`: it works on the game's state
    (``hand_state``, ``turn_state``, ``game_state``) and its draw procedure."""

    def _call_offered(self, p: int, hand: int, plays: int) -> bool:
        """Whether announcing "one card" can matter for the coming play (a needless call is
        never offered)."""
        ts, hs = self.turn_state, self.hand_state
        if ts.announced or ts.called:
            return False
        if hs.call_on_deal[p]:
            return True
        size = hs.sizes[p]
        if self.rules.one_card_per_turn:  # creights: once, with the turn's first play
            if ts.plays:
                return False
            sixes = (hand & self._six_mask).bit_count()
            return size == 2 or (size == 1 and sixes == 1) or (size >= 3 and sixes >= size - 2)
        if size == 2:
            return True
        # chicago1970: a last-card 6 needs the call [000:139]
        return size == 1 and self.rules.one_card_last_six and bool(plays & self._six_mask)

    def _announce(self, p: int) -> None:
        ts = self.turn_state
        ts.announced = True
        ts.called = True
        self.hand_state.call_on_deal[p] = False
        self.hand_state.events.append(event("announce", p))

    def _check_call(self, p: int, size_before: int, kind: int, announced: bool) -> None:
        """Check the call for a play from ``size_before`` cards (not creights' per-turn rule)."""
        ts = self.turn_state
        ts.six_missed = False
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
            ts.six_missed = True  # draws two instead of one, nothing more [000:139]

    def _check_turn_call(self, p: int) -> None:
        """creights: holding one card at any moment after the turn began needs the call [004:7]."""
        ts = self.turn_state
        if not ts.called and not ts.call_missed:
            ts.call_missed = True
            self._missed_call(p)

    def _missed_call(self, p: int) -> None:
        events = self.hand_state.events
        mulligans = self.game_state.mulligans_left
        if p in mulligans:
            mulligans.discard(p)
            events.append(event("mulligan", p))
            return
        events.append(event("missed_call", p))
        if self.rules.missed_call == "idiot_card":
            events.append(event("idiot_card", p))
            self._draw(p, 1)
        else:
            self.hand_state.penalty_owed[p] = True

"""The misplays ``misplay_mode="penalize"`` accepts and their penalties: ``crates_env.misplays``,
function for function (the penalty cards they leave are played by ``crates``: ``plays_of``,
``offer_penalty_choice``)."""

from __future__ import annotations

from numba import njit

from ..actions import ANNOUNCE, DRAW, SUIT
from ..cards import NUM_KINDS
from ..rules import MisplayCard
from ..state import Decision
from .crates import act, is_legal, plays_of, start_turn
from .table import ZERO, draw, kind_bit, mark_kinds, next_seat, team_of

PLAY_, SUIT_ = int(Decision.PLAY), int(Decision.SUIT)
EXPOSE, NO_MISPLAY_CARD = int(MisplayCard.EXPOSE), int(MisplayCard.NONE)


@njit(cache=True)
def held_to_misplay(G, R, p):
    """The kinds ``p`` may play illegally: every kind held (kreights: not a penalty card
    already), none without a card penalty."""
    if R.misplay_card == NO_MISPLAY_CARD:
        return ZERO
    held = G.held[p]
    if R.misplay_card == EXPOSE and G.exposed_held[p] != ZERO:
        for k in range(NUM_KINDS):
            if G.exposed[p, k] and G.counts[p, k] == G.exposed[p, k]:
                held &= ~kind_bit(k)
    return held


@njit(cache=True)
def misplays_into(G, R, out):
    """``Misplays._misplays`` as a mask: ``out[a] = 1`` for each misplay of the pending
    decision (the legal actions are not among them)."""
    p = G.seat
    if G.decision == PLAY_:
        mark_kinds(out, held_to_misplay(G, R, p) & ~plays_of(G, R, p))
        if R.revoke_points and not is_legal(G, R, DRAW):
            out[DRAW] = 1
        if R.dumbass_calls and not is_legal(G, R, ANNOUNCE):
            out[ANNOUNCE] = 1
    elif G.decision == SUIT_ and R.dumbass_calls:
        for s in range(4):
            if not is_legal(G, R, SUIT + s):
                out[SUIT + s] = 1


@njit(cache=True)
def is_misplay(G, R, action):
    """Whether ``action`` is a misplay ``penalize`` accepts now, decided apart from
    ``misplays_into`` (the fuzz holds the two equal)."""
    if is_legal(G, R, action):
        return False
    if G.decision == PLAY_:
        if action < SUIT:
            return action >= 0 and held_to_misplay(G, R, G.seat) & kind_bit(action) != ZERO
        if action == DRAW:
            return R.revoke_points != 0
        return action == ANNOUNCE and R.dumbass_calls
    return G.decision == SUIT_ and R.dumbass_calls and SUIT <= action < SUIT + 4


@njit(cache=True)
def misplay(G, R, action):
    """``Misplays._misplay``: the seed's penalty for an accepted misplay."""
    p = G.seat
    if action == DRAW:  # a revoke: "1,000M points added to score" [001:53]
        G.revoke_points[team_of(R, p)] += R.revoke_points
        act(G, R, DRAW)
    elif action == ANNOUNCE or action >= SUIT:
        # a needless "one card", an invalid suit after a 9 (and calls again, TV-16)
        draw(G, R, p, 1)  # a dumbass card, through D: it can cause pressure [004:23]
    elif R.misplay_card == EXPOSE:
        # "that card remains face up on the table and must be played at the first legal
        # opportunity" [001:71]; the player still owes a legal action
        G.exposed[p, action] += 1
        G.exposed_held[p] |= kind_bit(action)
    else:  # the card is returned, a dumbass card given and the turn forfeited, unless it is
        draw(G, R, p, 1)  # during a count [004:23]
        if not G.hand_over and not G.count:
            start_turn(G, R, next_seat(G, R, p, 1))

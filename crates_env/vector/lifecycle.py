"""A compiled game's lifecycle, for both families: ``crates_env.game.Game`` (the deal, applying an
action, finishing a hand and the game) over the families' kernels (``crates`` for the Crates
family, ``eights`` for the Crazy Eights family, ``misplays`` for ``penalize``, ``table`` for
what they share), and the
environment's steps (``crates_env.env.raw_env``). The family is ``R.engine``
(``crates_env.rules.Engine``), read here and nowhere else.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import ANNOUNCE
from ..rules import Engine
from ..settings import RewardMode
from . import crates, eights, misplays, table
from .layout import TRUNCATED
from .rng import permutation_into

EIGHTS = int(Engine.EIGHTS)
WIN = int(RewardMode.WIN)
PLAY_ = crates.PLAY_


# ---------------------------------------------------------------------------- the decision
@njit(cache=True)
def legal_into(G, R, out):
    """``Game.legal_actions`` as an action mask: ``out`` (int8, zeroed) gets a 1 per legal
    action of the game's pending decision."""
    if R.engine == EIGHTS:
        eights.legal_into(G, R, out)
    else:
        crates.legal_into(G, R, out)


@njit(cache=True)
def is_legal(G, R, action):
    if R.engine == EIGHTS:
        return eights.is_legal(G, R, action)
    return crates.is_legal(G, R, action)


@njit(cache=True)
def acceptable_into(G, R, out):
    """``Game.acceptable_actions`` as a mask: the legal actions, and with ``penalize`` the
    misplays the rules penalise."""
    legal_into(G, R, out)
    if R.penalize and G.decision >= 0:
        misplays.misplays_into(G, R, out)


@njit(cache=True)
def is_acceptable(G, R, action):
    return is_legal(G, R, action) or (R.penalize and misplays.is_misplay(G, R, action))


# ---------------------------------------------------------------------------- the deal
@njit(cache=True)
def start_hand(G, R):
    """``Game._start_hand``: a new hand state, the deal from the deal stream to the players
    still in, one card at a time from the dealer's left (or right), then the starter."""
    deal_size = R.schedule[G.hand_index % R.schedule_len]
    order = np.empty(R.deck_size, np.int64)
    permutation_into(G.rng[0], order)
    table.new_hand(G, R, deal_size)
    step = -1 if table.deal_goes_right(G, R) else 1
    pos = 0
    for _ in range(deal_size):
        for i in range(1, R.n + 1):
            seat = (G.dealer + i * step) % R.n
            if G.active[seat]:
                table.take(G, seat, R.deck_kinds[order[pos]])
                pos += 1
    rest = R.deck_size - pos
    for j in range(rest):  # the top of the stock last
        G.stock[j] = R.deck_kinds[order[R.deck_size - 1 - j]]
    G.n_stock = rest
    if R.engine == EIGHTS:
        eights.turn_starter(G, R)
    else:
        crates.turn_starter(G, R)


# ---------------------------------------------------------------------------- acting
@njit(cache=True)
def act(G, R, action):
    """``Game.apply``'s handler: the family's for a legal action, the penalty for a misplay."""
    if R.engine == EIGHTS:
        eights.act(G, R, action)
    elif R.penalize and not crates.is_legal(G, R, action):
        misplays.misplay(G, R, action)
    else:
        crates.act(G, R, action)


@njit(cache=True)
def apply(G, R, action, rewards, points):
    """``Game.apply`` for an accepted action: finish the hand it ends, or stop a hand that hit
    the decision guard."""
    G.decisions += 1
    act(G, R, action)
    if G.hand_over:
        resolve(G, R, rewards, points)
    elif G.decisions >= R.max_decisions:
        G.hand_over = True
        G.ended_by = TRUNCATED
        table.stop_truncated(G)


# ---------------------------------------------------------------------------- end of hand
@njit(cache=True)
def finish_hand(G, R, points):
    """``Game._finish_hand``: settle, score (``points`` gets the hand's per-team points), and
    deal the next hand or end the game."""
    if R.engine == EIGHTS:
        eights.settle_hand(G, R)
    else:
        crates.settle_hand(G, R)
    G.last_direction = G.direction
    if R.engine == EIGHTS:
        eights.score_hand(G, R, points)
    else:
        crates.score_hand(G, R, points)
    table.log_hand(G, points)
    G.hands_scored += 1
    G.hand_index += 1
    if game_decided(G, R):
        G.game_over = True
        G.decision = -1
        return
    if G.hand_index >= R.max_hands:
        table.stop_truncated(G)
        return
    G.dealer = table.next_dealer(G, R)
    start_hand(G, R)


@njit(cache=True)
def game_decided(G, R):
    if R.engine == EIGHTS:
        return eights.game_decided(G, R)
    return G.hand_index >= R.schedule_len


@njit(cache=True)
def resolve(G, R, rewards, points):
    """Finish every ended hand, paying its rewards (``Game._finish_hand`` deals the next one,
    which may end at its deal)."""
    while G.hand_over and not G.game_over:
        finish_hand(G, R, points)
        table.reward_unpaid(G, R, points, rewards)
        G.paid[:] = 0


# ---------------------------------------------------------------------------- the environment
@njit(cache=True)
def auto_announce(G, R, rewards, points):
    """one_card="auto": announce whenever the call is offered."""
    while R.auto_announce and G.decision == PLAY_ and is_legal(G, R, ANNOUNCE):
        apply(G, R, ANNOUNCE, rewards, points)


@njit(cache=True)
def after_move(G, R, rewards):
    """``raw_env._after_move`` once the finished hands are paid: this hand's pressures so far
    (reward_timing="event"), and the final rewards (reward_mode="win")."""
    if R.pressures_at_once and not G.game_over:
        table.reward_unpaid(G, R, G.pressure_points, rewards)
        G.paid[:] = G.pressure_points
    if G.game_over and R.reward_mode == WIN and not G.truncated:
        table.final_rewards(G, R, rewards)


@njit(cache=True)
def env_step(G, R, action, rewards, points):
    """``raw_env.step`` for an accepted action of the seat to play."""
    apply(G, R, action, rewards, points)
    auto_announce(G, R, rewards, points)
    after_move(G, R, rewards)


@njit(cache=True)
def env_start(G, R, rewards, points):
    """``raw_env.reset`` once the game is built: its first deal, then as after a step."""
    start_hand(G, R)
    resolve(G, R, rewards, points)
    auto_announce(G, R, rewards, points)
    after_move(G, R, rewards)

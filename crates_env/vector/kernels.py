"""Batched entry points over a batch of game records, and the observation of the seat to play.

``observe_into`` is ``crates_env.observation.Observer.encode`` for the seat to play: the slice
offsets and scales come from the Observer itself (``VectorGame`` passes them as ``at`` and
``scale``, indexed like ``OBS_SLICES``) and every slice is found by its name, so the two vectors
share one layout, kept in one place (``crates_env.observation.SLICES``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import NUM_ACTIONS
from ..cards import NUM_KINDS
from ..observation import CLIP, SLICES
from ..rules import Engine, GameEnd
from ..state import Decision
from .lifecycle import acceptable_into, env_start, env_step, is_acceptable, legal_into
from .rng import bounded_integer, game_rows, random_interval
from .table import pressure_value, score_hand_counts, team_of, to_play

OBS_SLICES = tuple(name for name, *_ in SLICES)  # the order of VectorGame's ``at`` and ``scale``


def _slice(name: str) -> int:
    """Where ``at`` and ``scale`` hold the observation slice ``name``."""
    return OBS_SLICES.index(name)


HAND, TOP, SUIT = _slice("hand"), _slice("top_card"), _slice("current_suit")
RANK, CLOCKWISE = _slice("current_rank"), _slice("clockwise")
COUNT, PENDING = _slice("count"), _slice("pending_draw")
DECISION, ACTING, AGAIN = _slice("decision"), _slice("acting_for"), _slice("playing_again")
ANNOUNCED, FREE, SIZES = _slice("announced"), _slice("free_play"), _slice("hand_sizes")
ACTIVE, DUMMY, PARTNER = _slice("active"), _slice("dummy_hand"), _slice("partner")
STOCK, DISCARD, PLAYED = _slice("stock_size"), _slice("discard_size"), _slice("played")
PRESSURES, NEXT_PRESSURE, SCORES = _slice("pressures"), _slice("next_pressure"), _slice("scores")
RISK, OWED, STARS = _slice("hand_points_at_risk"), _slice("penalty_owed"), _slice("stars")
PROGRESS, DEAL_SIZE = _slice("hand_progress"), _slice("deal_size")
STARTER_SUIT_ = int(Decision.STARTER_SUIT)
EIGHTS = int(Engine.EIGHTS)
TARGET, LAST_PLAYER = int(GameEnd.TARGET), int(GameEnd.LAST_PLAYER)


@njit(cache=True, inline="always")
def _clip(x):
    return CLIP if x > CLIP else -CLIP if x < -CLIP else x


@njit(cache=True)
def observe_into(G, R, seat, at, scale, v):
    """The observation vector of ``seat`` (``v`` zeroed, float32)."""
    n = R.n
    decision = G.decision
    if decision != STARTER_SUIT_:  # the dealer names it before looking (P4)
        _copy_kinds(G.counts[seat], _part(v, at, HAND, NUM_KINDS))
        v[at[RISK]] = _clip(score_hand_counts(R, G.counts[seat]) / scale[RISK])
    if G.n_discard:
        v[at[TOP] + G.discard[G.n_discard - 1]] = 1
    if G.suit >= 0:
        v[at[SUIT] + G.suit] = 1
    if G.rank >= 0:
        v[at[RANK] + G.rank] = 1
    v[at[CLOCKWISE]] = G.direction == 1
    v[at[COUNT]] = G.count / scale[COUNT]
    if decision >= 0:
        pending = G.count  # the count, a Cooper's draw, an offensive card's demand, or one
        if R.engine == EIGHTS:
            pending = G.demand
        if not pending:
            pending = G.cooper_draw if G.plays else 1
        v[at[PENDING]] = pending / scale[PENDING]
        v[at[DECISION] + decision] = 1
        v[at[ACTING] + (G.seat - seat) % n] = 1
    v[at[AGAIN]] = G.plays > 0
    v[at[ANNOUNCED]] = G.announced
    v[at[FREE]] = G.free_play or (G.suit < 0 and G.rank < 0)
    if R.partnerships:
        v[at[PARTNER] + 2] = 1  # partners sit opposite
    dummy = R.dummy_seat
    if dummy >= 0 and dummy != seat:
        _copy_kinds(G.counts[dummy], _part(v, at, DUMMY, NUM_KINDS))
    v[at[STOCK]] = G.n_stock / scale[STOCK]
    v[at[DISCARD]] = G.n_discard / scale[DISCARD]
    played = _part(v, at, PLAYED, NUM_KINDS)
    for k in range(NUM_KINDS):
        played[k] = min(G.played[k], CLIP)
    for i in range(n):
        s = (seat + i) % n
        team = team_of(R, s)
        v[at[SIZES] + i] = G.sizes[s] / scale[SIZES]
        v[at[OWED] + i] = G.penalty_owed[s]
        v[at[ACTIVE] + i] = G.active[s]
        taken = G.pressure_count[team]
        v[at[PRESSURES] + i] = _clip(taken / scale[PRESSURES])
        value = pressure_value(taken + 1, R.pressure)  # -1: past int64, clipped anyway
        v[at[NEXT_PRESSURE] + i] = CLIP if value < 0 else _clip(value / scale[NEXT_PRESSURE])
        v[at[SCORES] + i] = _clip(G.scores[team] / scale[SCORES])
        v[at[STARS] + i] = _clip(G.stars[s] / scale[STARS])
    v[at[PROGRESS]] = progress(G, R)
    v[at[DEAL_SIZE]] = G.deal_size / scale[DEAL_SIZE]


@njit(cache=True, inline="always")
def _part(v, at, which, length):
    """The first ``length`` entries of observation slice ``which``, as a view: a loop writing
    through it indexes from 0, so it needs no check for negative indices at every card."""
    return v[at[which] : at[which] + length]


@njit(cache=True, inline="always")
def _copy_kinds(counts, into):
    """A hand's copies per kind into its slice."""
    for k in range(NUM_KINDS):
        into[k] = counts[k]


@njit(cache=True)
def progress(G, R):
    """``observation._progress``: hands played of the schedule, the leader's score of the
    target (crazy_eights), or the players knocked out (zimbabwe)."""
    if R.game_end == TARGET:
        return max(0.0, G.scores[: R.teams].max() / R.target_score)
    if R.game_end == LAST_PLAYER:
        out = 0
        for s in range(R.n):
            out += not G.active[s]
        return out / (R.n - 1)
    return G.hand_index / R.schedule_len


@njit(cache=True)
def observe_games(states, R, games, seats, at, scale, out):
    """``out[k]``: the observation of game ``b = games[k]`` by seat ``seats[b]`` (-1: the seat
    to play)."""
    for k in range(games.shape[0]):
        b = games[k]
        G = states[b]
        out[k] = 0  # row by row: each is zeroed and filled while in the cache
        observe_into(G, R, to_play(G, R) if seats[b] < 0 else seats[b], at, scale, out[k])


@njit(cache=True)
def legal_masks(states, R, games, out):
    """``out[k]``: the legal mask of game ``games[k]``."""
    for k in range(games.shape[0]):
        out[k] = 0
        legal_into(states[games[k]], R, out[k])


@njit(cache=True)
def acceptable_masks(states, R, out):
    for b in range(states.shape[0]):
        out[b] = 0
        acceptable_into(states[b], R, out[b])


@njit(cache=True)
def first_unacceptable(states, R, actions, active):
    """The first game to step whose action the engine does not accept (legal, or a misplay
    ``penalize`` accepts; finished games take any), or -1."""
    for b in range(states.shape[0]):
        G = states[b]
        if active[b] and not G.game_over and not is_acceptable(G, R, actions[b]):
            return b
    return -1


@njit(cache=True)
def step_games(states, R, actions, active, rewards, over):
    """One decision in every active, unfinished game: ``rewards[b]`` what each seat is paid on
    it, ``over[b]`` whether game ``b`` is over (the others are left as they are)."""
    rewards[:] = 0.0
    points = np.zeros(states[0].scores.shape[0], np.int64)
    for b in range(states.shape[0]):
        G = states[b]
        over[b] = G.game_over
        if not active[b] or G.game_over:
            continue
        env_step(G, R, actions[b], rewards[b], points)
        over[b] = G.game_over


@njit(cache=True)
def start_games(states, R, slots, rewards):
    """Deal the first hand of each game in ``slots`` (their game fields and streams set)."""
    points = np.zeros(states[0].scores.shape[0], np.int64)
    for slot in slots:
        rewards[slot, :] = 0.0
        env_start(states[slot], R, rewards[slot], points)


@njit(cache=True)
def seed_games(seeds, rows):
    """``rows[i]``: the deal and reshuffle streams of the game of ``seeds[i]``
    (``crates_env.game.game_streams``)."""
    for i in range(seeds.shape[0]):
        game_rows(seeds[i], rows[i])


@njit(cache=True)
def random_dealers(rows, seats):
    """``first_dealer`` at random: ``seats[deal_rng.integers(len(seats))]`` for each game's
    deal stream ``rows[i, 0]`` (advanced)."""
    out = np.zeros(rows.shape[0], np.int64)
    for i in range(rows.shape[0]):
        out[i] = seats[bounded_integer(rows[i, 0], seats.shape[0])]
    return out


@njit(cache=True)
def next_seeds(streams, slots, out):
    """``out[i]``: the next seed of slot ``slots[i]``'s seed stream, ``integers(2**63)``."""
    for i in range(slots.shape[0]):
        out[i] = bounded_integer(streams[slots[i]], 2**63)


@njit(cache=True)
def seats_to_play(states, R, out):
    for b in range(states.shape[0]):
        out[b] = to_play(states[b], R)


NOT_ZERO_ONE, NOTHING_ALLOWED = 1, 2  # check_mask's findings


@njit(cache=True)
def check_mask(masks):
    """(NOT_ZERO_ONE, -1) if a mask holds something else than 0 and 1, else (NOTHING_ALLOWED,
    b) for the first game ``b`` whose mask allows nothing, else (0, -1)."""
    empty = -1
    for b in range(masks.shape[0]):
        ones = 0
        for a in range(masks.shape[1]):
            value = masks[b, a]
            if value != 0 and value != 1:
                return NOT_ZERO_ONE, -1
            ones += value
        if ones == 0 and empty < 0:
            empty = b
    return (NOTHING_ALLOWED, empty) if empty >= 0 else (0, -1)


@njit(cache=True)
def random_legal(masks, uniforms, out):
    """``out[b]``: the legal action of ``masks[b]`` that ``uniforms[b]`` in [0, 1) picks, each
    with the same chance (a random player for a whole batch in one call)."""
    for b in range(masks.shape[0]):
        row = masks[b]
        legal = 0
        for a in range(row.shape[0]):
            legal += row[a]
        out[b] = _nth_legal(row, int(uniforms[b] * legal))


@njit(cache=True, inline="always")
def _nth_legal(mask, pick):
    """The ``pick``-th legal action (from 0) of ``mask``."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True)
def play_random_seats(states, R, games, random_seat, row, paid_to, rewards, totals):
    """In each game of ``games``, every seat with ``random_seat[b, seat]`` set plays uniformly
    random legal actions until a seat without it is to play or the game is over: a whole batch
    of random opponents in one call. ``row`` is the random stream (``rng`` row); ``totals[b]``
    adds up the rewards paid to seat ``paid_to[b]`` on those steps. Returns -1, or the first
    game that is not over with no legal move (a record no game reaches): it stops there
    rather than spin. Every move counts towards the rules' guards (``max_decisions``,
    ``max_hands``), so each game's loop ends."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    points = np.zeros(states[0].scores.shape[0], np.int64)
    for b in games:
        G = states[b]
        while not G.game_over and random_seat[b, to_play(G, R)]:
            mask[:] = 0
            legal_into(G, R, mask)
            legal = mask.sum()
            if legal == 0:
                return b
            action = _nth_legal(mask, int(random_interval(row, legal - 1)))
            rewards[b, :] = 0.0
            env_step(G, R, action, rewards[b], points)
            totals[b] += rewards[b, paid_to[b]]
    return -1

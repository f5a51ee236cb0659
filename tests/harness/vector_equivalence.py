"""The differential check: ``VectorGame`` against the reference AEC environment, step by step.

``play_both`` starts ``games`` reference environments (``crates_v0.raw_env``), loads each one's
game into a slot of a ``VectorGame``, and plays random legal actions through both; with
``misplay_mode="penalize"`` a misplay the rules penalise one move in ``MISPLAY_SHARE`` where
there is one (``Game.acceptable_actions``). At every decision it compares the seat to play, the
action mask (and the misplays accepted) and the observation; after every step the rewards paid
to every seat and whether the game is over; at the end the final scores. The first difference
raises :class:`Difference` naming the table, the game, the step and the values; a difference is
a bug in one of the two engines.

The tests run a sample (``tests/test_vector.py``); ``benchmarks/vector_equivalence.py`` runs
millions of decisions per table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crates_env.env import raw_env
from crates_env.vector import VectorGame

from .vector_fuzz import MISPLAY_SHARE


class Difference(AssertionError):
    """The two engines disagree."""


@dataclass
class Played:
    """What a check played: decisions compared, games finished, and games left unfinished
    because a side's shuffle pressures passed the compiled engine's 64-bit scores (more than
    58 in one game: ``VectorGame`` refuses to play on, the reference engine's ints do not
    overflow)."""

    decisions: int = 0
    games: int = 0
    overflowed: int = 0


def play_both(preset: str, num_players: int, games: int, seed: int, **kwargs: Any) -> Played:
    """Play ``games`` games with random legal actions through both engines (env seeds
    ``seed``, ``seed + 1``, ...); raises :class:`Difference` at the first disagreement."""
    envs = [raw_env(preset=preset, num_players=num_players, **kwargs) for _ in range(games)]
    vg = VectorGame(games, preset, num_players, autoreset=False, **kwargs)
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
        vg.from_game(env.game, i, paid=env.paid_pressure_points)
    table = f"{preset} {num_players}p {kwargs}"
    rng = np.random.default_rng(seed)
    live = ~vg.game_over
    played = Played()
    penalize = vg.rules.misplay_mode == "penalize"
    step = 0
    while live.any():
        masks, observations, to_play = vg.legal_mask(), vg.observe(), vg.to_play
        accepted = vg.acceptable_mask()
        actions = np.zeros(games, dtype=np.int64)
        for i in np.flatnonzero(live):
            env = envs[i]
            where = f"{table}, game {i} (env seed {seed + i}), step {step}"
            seat = env.agent_seat[env.agent_selection]
            if to_play[i] != seat:
                raise Difference(f"{where}: seat to play {to_play[i]}, reference {seat}")
            reference = env.observe(env.agent_selection)
            _same(where, "action mask", reference["action_mask"], masks[i])
            _same(where, "observation", reference["observation"], observations[i], env)
            legal = np.flatnonzero(reference["action_mask"])
            actions[i] = legal[rng.integers(len(legal))]
            if penalize:
                actions[i] = _maybe_misplay(where, env.game, accepted[i], actions[i], rng)
        rewards, over, gone = _step(vg, actions, live)
        played.overflowed += int(gone.sum())
        live &= ~gone
        step += 1
        for i in np.flatnonzero(live):
            env = envs[i]
            where = f"{table}, game {i} (env seed {seed + i}), step {step}"
            env.step(int(actions[i]))
            played.decisions += 1
            paid = np.array([env.rewards[a] for a in env.possible_agents])
            _same(where, "rewards", paid, rewards[i])
            done = all(env.terminations.values()) or all(env.truncations.values())
            if done != over[i]:
                raise Difference(f"{where}: game over {over[i]}, reference {done}")
            if done:
                _same(where, "final scores", np.array(env.game.scores), vg.scores[i])
                live[i] = False
                played.games += 1
    return played


def _step(vg: VectorGame, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, ...]:
    """``vg.step`` on the live games: (rewards, game over, the games that overflowed on it,
    which are compared no further)."""
    try:
        rewards, over = vg.step(actions, active=live)
        return rewards, over, np.zeros_like(live)
    except OverflowError:  # the step was played: its rewards and ends are in the records
        gone = vg.states["overflow"].copy()
        vg.states["overflow"] = False
        return vg.rewards.copy(), vg.states["game_over"] & live, gone


def _maybe_misplay(where: str, game, accepted: np.ndarray, action: int, rng) -> int:
    """``action``, or one move in ``MISPLAY_SHARE`` a misplay the rules accept (if any); the
    compiled engine must accept the same misplays."""
    reference = np.zeros_like(accepted)
    reference[game.acceptable_actions()] = 1
    _same(where, "actions accepted", reference, accepted)
    misplays = sorted(set(game.acceptable_actions()) - set(game.legal_actions()))
    if misplays and rng.integers(MISPLAY_SHARE) == 0:
        return misplays[rng.integers(len(misplays))]
    return action


def _same(where: str, what: str, reference: np.ndarray, compiled: np.ndarray, env=None) -> None:
    if np.array_equal(reference, compiled):
        return
    at = np.flatnonzero(reference != compiled)
    names = ""
    if env is not None:
        slices = env.observation_layout().items()
        names = " in " + ", ".join(n for n, (a, b) in slices if any(a <= j < b for j in at))
    raise Difference(
        f"{where}: {what} differs at {at.tolist()}{names}: reference {reference[at].tolist()}, "
        f"compiled {compiled[at].tolist()}"
    )

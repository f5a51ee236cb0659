"""Gymnasium single-agent view of the AEC environment, for SB3 and sb3-contrib's MaskablePPO.

One seat is the learner; the other seats are played by opponents (``Opponent``: every
``agents.Agent``, or any object with ``act(observation, action_mask) -> int``, and optionally
``reset()``). In a partnership game the learner also plays its partner's seat unless told
otherwise, so a side is one policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np

from .env import RENDER_MODES, UniformRandom, play_seats, raw_env, step_info
from .observation import SEAT_LAYOUT
from .rules import int_value
from .settings import finite_number, one_of
from .table_observation import make_observer


@runtime_checkable
class Opponent(Protocol):
    """What the environment asks of the agent at another seat: the action of its observation
    and mask. Every ``agents.Agent`` is one (the environment never imports them); so is any
    object with this method."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


@runtime_checkable
class Resetting(Protocol):
    """An opponent that keeps state: ``reset()`` is called as each of its games starts."""

    def reset(self) -> None: ...


class CratesGymEnv(gym.Env):
    """A whole game as one episode, seen by the learner.

    ``learner_seat`` is a seat or ``"random"`` (drawn at every reset). ``opponents`` is one agent
    for every other seat or a list with one per seat (``None`` at the learner's seats).
    ``partner_is_learner`` (partnership games) lets the learner play its partner's seat too.
    Rewards are the AEC environment's rewards for the learner's seat (its side's hand results,
    even when a hand ends on an opponent's move); ``info`` says in numbers what hands finished
    since the learner's last decision (``crates_env.env.step_info``: ``hands_ended``,
    ``hand_points``, ``ended_by``, ``went_out``), with the learner's ``seat`` and the
    ``action_mask`` of its next decision; the hands' full records are
    ``env.aec.hand_summaries``.
    An action outside the mask is refused: with ``illegal_action="penalize"`` (default) the step
    changes nothing and returns ``illegal_reward`` with ``info["illegal"] = True`` (what
    unmasked learners and gymnasium's env checker need); ``"raise"`` raises ``ValueError``.
    ``observation`` is the learner's layout (``raw_env``'s: "seat" or "table"); opponents always
    read the seat layout, as every agent does. Every other keyword goes to
    :class:`crates_env.env.raw_env` (preset, reward mode, ruleset options, ...).
    """

    metadata = {  # noqa: RUF012 - gymnasium reads it (RecordVideo: rgb_array and the fps)
        "render_modes": list(RENDER_MODES),
        "render_fps": raw_env.metadata["render_fps"],
    }

    def __init__(
        self,
        preset: str = "crates",
        num_players: int | None = None,
        learner_seat: int | str = 0,
        opponents: Opponent | Sequence[Opponent | None] | None = None,
        partner_is_learner: bool = True,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        observation: str = SEAT_LAYOUT,
        **env_kwargs,
    ) -> None:
        self.illegal_action = one_of("illegal_action", illegal_action, ("penalize", "raise"))
        self.illegal_reward = finite_number("illegal_reward", illegal_reward)
        if not isinstance(partner_is_learner, bool):
            raise ValueError(f"partner_is_learner takes True or False, not {partner_is_learner!r}")
        # the opponents read the seat layout (agents do); the learner the layout it asked for
        self.aec = raw_env(preset, num_players, render_mode=render_mode, **env_kwargs)
        self.rules = self.aec.rules
        self.observer = make_observer(self.rules, observation)
        self.learner_seat = check_learner_seat(learner_seat, self.rules.num_players)
        self.partner_is_learner = partner_is_learner and self.rules.partnerships
        learner = set() if self.learner_seat == "random" else self._learner_side(self.learner_seat)
        # the default random seats draw from a stream reset(seed=...) seeds too
        self._random = UniformRandom()
        default = self._random if opponents is None else opponents
        self.opponents = seat_opponents(self.rules.num_players, default, learner)
        self.observation_space = gym.spaces.Box(
            self.observer.low, self.observer.high, dtype=np.float32
        )
        self.action_space = self.aec.action_space(self.aec.possible_agents[0])
        self.render_mode = render_mode
        self._seat_rng = np.random.default_rng()
        self.seat = 0
        self._carried = 0.0  # reward of hands that ended before the learner's first decision

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        if seed is not None:
            if int_value(seed) is None or seed < 0:
                raise ValueError(f"seed must be an int >= 0 or None, not {seed!r}")
            seed = int(seed)  # gymnasium takes Python ints only
        super().reset(seed=seed)
        if seed is not None:
            self._seat_rng = np.random.default_rng(seed)
            self._random.rng = np.random.default_rng([seed, 1])
        self.aec.reset(seed=seed, options=options)
        # A game can end before the learner decides (e.g. a one-hand game another seat wins
        # at once); such a game holds nothing to learn, so the next one is dealt.
        for _ in range(1000):
            self._start_game()
            if not self.aec.game.game_over:
                return self._observe(), self._info(self.aec.hand_summaries)
            if options and "deck" in options:
                raise ValueError(
                    "the stacked deck ends the game before the learner's first decision"
                )
            self.aec.reset()
        raise RuntimeError("1,000 games in a row ended before the learner's first decision")

    def _learner_side(self, seat: int) -> set[int]:
        """The seats the learner plays when it sits at ``seat``."""
        return set(self.rules.side_of(seat)) if self.partner_is_learner else {seat}

    def _start_game(self) -> None:
        """Seat the learner and play the opponents up to its first decision."""
        n = self.rules.num_players
        self.seat = (
            int(self._seat_rng.integers(n)) if self.learner_seat == "random" else self.learner_seat
        )
        self._learner_agents = {self.aec.possible_agents[s] for s in self._learner_side(self.seat)}
        for s, opp in enumerate(self.opponents):
            if isinstance(opp, Resetting) and self._is_opponent(s):
                opp.reset()
        self._carried = self._play_opponents()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.illegal_action == "penalize" and not self.action_masks()[int(action)]:
            info = {**self._info([]), "illegal": True}
            return self._observe(), self.illegal_reward, False, False, info
        already = len(self.aec.hand_summaries)
        self.aec.step(int(action))
        reward = self.aec.rewards[self._me] + self._carried
        self._carried = 0.0
        more = self._play_opponents()
        info = self._info(self.aec.hand_summaries[already:])
        over = self.aec.game.game_over
        truncated = over and self.aec.game.truncated
        return self._observe(), float(reward + more), over and not truncated, truncated, info

    def _info(self, hands: list) -> dict:
        """The learner's seat, the hands finished since its last decision (``step_info``), and
        the action mask of its next decision (``info["action_mask"]``, where AgileRL and others
        read it; the same as ``action_masks()``)."""
        info = step_info(hands, self.rules.num_players)
        return {"seat": self.seat, **info, "action_mask": self.action_masks()}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's pending decision (for MaskablePPO)."""
        g = self.aec.game
        mask = np.zeros(self.action_space.n, dtype=bool)
        if g.decision is not None:
            mask[g.legal_actions()] = True
        return mask

    def render(self) -> str | np.ndarray | None:
        return self.aec.render()

    # ------------------------------------------------------------------ internals
    @property
    def _me(self) -> str:
        return self.aec.possible_agents[self.seat]

    def _is_opponent(self, seat: int) -> bool:
        return self.aec.possible_agents[seat] not in self._learner_agents

    def _play_opponents(self) -> float:
        """Play other seats until a learner seat must decide or the game ends; the learner's
        reward on those steps."""
        played = play_seats(
            self.aec,
            lambda seat, obs: self.opponents[seat].act(obs["observation"], obs["action_mask"]),
            until=lambda seat: not self._is_opponent(seat),
        )
        return played.rewards[self._me]

    def _observe(self) -> np.ndarray:
        g = self.aec.game
        # Once the game is over nobody decides; show the learner's own view.
        seat = self.seat if g.game_over else g.to_play
        return self.observer.encode(g.view(seat))


def check_learner_seat(learner_seat: object, num_players: int) -> int | str:
    """A learner seat (an int 0..n-1) or ``"random"``; a ValueError naming both otherwise."""
    if isinstance(learner_seat, str) and learner_seat == "random":
        return learner_seat
    if int_value(learner_seat) is None or not 0 <= learner_seat < num_players:
        raise ValueError(
            f"learner_seat must be 0..{num_players - 1} or 'random', not {learner_seat!r}"
        )
    return int(learner_seat)


def seat_opponents(
    num_players: int, opponents: Opponent | Sequence[Opponent | None], learner: set[int]
) -> list:
    """One agent per seat (``opponents``: one for every seat, or a list of one per seat); None
    only at a seat the learner always plays (``learner``)."""
    if isinstance(opponents, str):
        raise ValueError(
            f"opponents takes agents, not the name {opponents!r}: build one with "
            f"agents.make_agent({opponents!r}, agents.Table.from_rules(preset, num_players))"
        )
    if isinstance(opponents, Sequence):
        if len(opponents) != num_players:
            raise ValueError(
                f"opponents needs one entry per seat ({num_players}), got {len(opponents)}"
            )
        seated = list(opponents)
    else:
        seated = [opponents] * num_players
    for seat, agent in enumerate(seated):
        if agent is None and seat in learner:
            continue
        if not isinstance(agent, Opponent):
            raise ValueError(
                f"opponents at seat {seat} must be an agent with act(observation, "
                f"action_mask), not {agent!r}"
            )
    return seated

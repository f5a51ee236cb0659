"""Agents as a user's own code would write them, for tests of ``my_pkg.bots:MyAgent`` specs:
plain classes and a factory, none built on this package's agent classes."""

from __future__ import annotations

import numpy as np


class LowestCard:
    """Plays the legal action with the lowest id; told the table, it checks the mask's width."""

    def __init__(self, table) -> None:
        self.width = len(table.card_points) + 10  # cards, then the 10 actions that are words
        self.games = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert len(action_mask) == self.width
        return int(np.flatnonzero(action_mask)[0])

    def reset(self) -> None:
        self.games += 1


def highest(seed: int | None = None):
    """A factory: an object with ``act`` and ``act_batch`` (the highest legal id) and no reset."""

    class Highest:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

        def act_batch(self, observations, action_masks):
            return np.array([np.flatnonzero(m)[-1] for m in action_masks])

    return Highest()


class Explaining:
    """Plays the lowest legal id and says what it weighed, with the game it is given as
    ``env`` (the keyword a user's explain has always taken)."""

    def __init__(self) -> None:
        self.asked = []

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])

    def explain(self, observation, action_mask, env=None, search=False):
        from agents import Explanation

        self.asked.append((env, search))
        return Explanation(tuple(int(a) for a in np.flatnonzero(action_mask)), value=1.0)


def protocol_agent(table, seed):
    """A factory returning one of this package's agents: it needs no adapting."""
    from agents import RandomAgent

    return RandomAgent(seed)


NOT_AN_AGENT = 3


class IllegalAtThree:
    """Plays the lowest legal id, but at a 3-player table an action its mask forbids: a bug
    that shows at one table only."""

    def __init__(self, table) -> None:
        self.illegal = table.num_players == 3

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(~action_mask if self.illegal else action_mask)[0])


class RaisesAtThree:
    """Plays the lowest legal id, but raises at a 3-player table."""

    def __init__(self, table) -> None:
        self.players = table.num_players

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.players == 3:
            raise RuntimeError("this agent was only written for four players")
        return int(np.flatnonzero(action_mask)[0])

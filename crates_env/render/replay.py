"""A game recorded step by step (:class:`Replay`), for the replay page.

Every decision is one step: the table before it, with the move the seat to play makes and the
events that move caused (the first step also holds the deal's events). A last step shows the
table once the game is over. Whoever drives the game calls :meth:`Recorder.record` with each
action just before applying it (and, if it has one, what the deciding agent weighed:
``agents.Explanation.as_dict()``), and :meth:`Recorder.finish` at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..game import Game
from .table import EventCursor, TableSnapshot, table_snapshot


@dataclass(frozen=True)
class Replay:
    """A recorded game: a title, a few lines about it (who sat where, how to play it again) and
    its steps."""

    title: str
    about: tuple[str, ...]
    steps: tuple[TableSnapshot, ...]
    # per step, what the agent to play weighed (plain data: moves, probabilities, value,
    # margins, margin_se); None where it only acted, and at the end
    explanations: tuple[Mapping[str, Any] | None, ...] = ()


class Recorder:
    """Builds a :class:`Replay` of one game as it is played."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._steps: list[TableSnapshot] = []
        self._explanations: list[Mapping[str, Any] | None] = []
        self._pending: TableSnapshot | None = None
        self._cursor: EventCursor | None = None
        self._game: Game | None = None

    def record(self, game: Game, action: int, explanation: Mapping[str, Any] | None = None) -> None:
        """The table of ``game`` as ``action`` is about to be applied (``explanation``: what
        the agent deciding weighed, if it says)."""
        if self._cursor is None:
            self._cursor = EventCursor(game, from_start=True)
            self._game = game
        self._close_step(game)
        self._pending = table_snapshot(game, self.names, move=action)
        self._explanations.append(explanation)

    def finish(self, title: str, about: Sequence[str] = (), game: Game | None = None) -> Replay:
        """The replay, once the game is over (``game``: the one recorded, needed only for a
        game that ended before its first decision)."""
        game = game or self._game
        if game is None:
            raise ValueError("no action was recorded: give the game")
        if not game.game_over:
            raise ValueError("the game is not over: record every action before finishing")
        if self._cursor is None:  # over before any decision (a game of no decisions)
            self._cursor = EventCursor(game, from_start=True)
        self._close_step(game)
        # nothing is left for the end but in a game that ended before its first decision
        last = table_snapshot(game, self.names, events=self._cursor.take(game))
        return Replay(title, tuple(about), (*self._steps, last), (*self._explanations, None))

    def _close_step(self, game: Game) -> None:
        """The pending step gets the events its move caused."""
        if self._pending is not None:
            self._steps.append(replace(self._pending, events=tuple(self._cursor.take(game))))
            self._pending = None

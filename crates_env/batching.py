"""What both engines' batches of games share: ``GameBatch``, the batch interface.

A batch holds ``num_games`` games of one table in slots and advances them a decision at a time:
the compiled engine's ``crates_env.vector.VectorGame`` and the reference engine's
``crates_env.batch.ReferenceGames`` are the two, and ``crates_env.batch.game_batch`` picks the
compiled one wherever it plays the table. This module holds what does not depend on the engine:
the seeds of the games dealt, and the checks of every input (a ValueError naming the argument
before any game moves).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from .actions import NUM_ACTIONS, action_name
from .game import Game
from .observation import Observer
from .rules import Ruleset, make_ruleset
from .settings import EnvSettings, next_game_rng


class GameBatch:
    """``num_games`` games of one table, advanced together (the base of both engines' batches).

    Built with the keyword arguments of ``crates_v0.raw_env`` (ruleset options, ``reward_mode``,
    ``reward_scale``, ``reward_timing``, ``one_card``). ``autoreset=True`` deals a finished
    game's slot a new game at once, its seed drawn from the slot's seed stream.

    After ``reset(seeds)``: ``to_play`` (the seat deciding in each game), ``legal_mask()``,
    ``observe()`` (the observation of that seat), ``step(actions) -> (rewards, game_over)``;
    ``hand_log`` says what each finished hand scored. ``from_game`` loads a reference position
    into a slot; ``copy_games`` copies games between slots (a search branches many continuations
    of one position this way).
    """

    rules: Ruleset
    settings: EnvSettings

    def __init__(
        self,
        num_games: int,
        preset: str = "crates",
        num_players: int | None = None,
        *,
        reward_mode: str = "points",
        reward_scale: float = 1.0,
        one_card: str = "action",
        reward_timing: str = "hand",
        render_mode: str | None = None,
        autoreset: bool = True,
        **options: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer):
            raise ValueError(f"num_games must be a positive int, not {num_games!r}")
        num_games = int(num_games)
        name = type(self).__name__
        if not 1 <= num_games <= self.max_games():
            raise ValueError(
                f"num_games must be from 1 to {self.max_games():,} (what this machine's memory "
                f"holds of {name}'s games), not {num_games:,}"
            )
        if render_mode is not None:
            raise ValueError(
                f"{name} does not render (render_mode={render_mode!r}); render one game of "
                "the reference engine (crates_env.crates_v0.raw_env)"
            )
        self.settings = EnvSettings(reward_mode, reward_scale, reward_timing, one_card)
        self.rules = make_ruleset(preset, num_players, **options)
        self.num_games = num_games
        self.num_players = self.rules.num_players
        self.autoreset = bool(autoreset)
        self.observer = Observer(self.rules)
        self.rewards = np.zeros((num_games, self.num_players), dtype=np.float64)
        self.game_over = np.ones(num_games, dtype=bool)
        self.seeds = np.zeros(num_games, dtype=np.int64)  # the seed of each slot's game
        self._no_seats = np.full(num_games, -1, dtype=np.int64)
        self._all = np.ones(num_games, dtype=bool)

    # what one game takes in memory, about (each engine's own); the largest batch is what the
    # machine's memory holds, checked before anything is allocated
    BYTES_A_GAME = 64 * 1024

    @classmethod
    def max_games(cls) -> int:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return max(1, memory // cls.BYTES_A_GAME)

    @property
    def observation_size(self) -> int:
        return self.observer.size

    # ------------------------------------------------------------------ starting games
    def reset(self, seeds: Sequence[int] | np.ndarray | int | None = None) -> None:
        """New games in every slot: game ``i`` is ``new_game(preset, num_players, seed=seeds[i],
        **options)`` deal for deal. ``seeds`` may be one int (slot ``i`` gets ``seed + i``) or
        None (fresh entropy). Later games of an autoreset slot take their seeds from a stream
        seeded by the slot's first seed."""
        b = self.num_games
        if seeds is None:
            seeds = np.random.SeedSequence().generate_state(b, np.uint32).astype(np.int64)
        elif np.ndim(seeds) == 0:
            base = check_seed(seeds)
            seeds = [base + i for i in range(b)]
        seeds = check_seeds(seeds, b, "reset needs one seed per game")
        self._seed_slots(seeds)
        self.start(np.arange(b), seeds)

    def start(self, slots: np.ndarray | Sequence[int], seeds: Sequence[int]) -> None:
        """New games in ``slots``: slot ``slots[i]`` gets ``new_game(..., seed=seeds[i])``."""
        slots = self._slots("slots", slots)
        seeds = check_seeds(seeds, len(slots), "start needs one seed per slot")
        self._deal(slots, seeds, as_env=False)

    def start_as_env(self, slots: np.ndarray | Sequence[int], env_seeds: Sequence[int]) -> None:
        """New games in ``slots``: the games ``raw_env.reset(seed=env_seeds[i])`` deals."""
        slots = self._slots("slots", slots)
        seeds = check_seeds(env_seeds, len(slots), "start_as_env needs one seed per slot")
        self._deal(slots, seeds, as_env=True)

    def start_from(
        self, slots: np.ndarray | Sequence[int], streams: Sequence[np.random.Generator]
    ) -> None:
        """New games in ``slots``: the next game ``raw_env`` deals from its reset stream
        ``streams[i]``, which is advanced (``reset(seed=s)`` then plain resets deal the games of
        ``default_rng(s)`` in turn). ``seeds`` holds -1 for them."""
        slots = self._slots("slots", slots)
        if len(streams) != len(slots):
            raise ValueError(f"start_from needs one stream per slot, not {len(streams)}")
        for stream in streams:
            check_rng(stream)
        self._deal_games(slots, [next_game_rng(s) for s in streams])

    def restart(self, slots: np.ndarray | Sequence[int]) -> None:
        """New games in ``slots``, their seeds drawn from each slot's seed stream (``seeds``
        then holds them): ``default_rng([seed, 1])`` of the slot's seed at ``reset``,
        ``default_rng([slot, 2])`` for a slot never reset."""
        self._restart(self._slots("slots", slots))

    # what each engine does: keep the slots' seed streams and deal games
    def _seed_slots(self, seeds: list[int]) -> None:
        """Every slot's seed stream from its first seed (``reset``)."""
        raise NotImplementedError

    def _deal(self, slots: np.ndarray, seeds: list[int], as_env: bool) -> None:
        """Deal ``new_game(..., seed=seeds[i])`` into ``slots[i]`` (``as_env``: the game
        ``raw_env.reset(seed=seeds[i])`` deals); ``seeds`` records the seeds."""
        raise NotImplementedError

    def _deal_games(self, slots: np.ndarray, games: list[np.random.Generator]) -> None:
        """Deal ``new_game(..., seed=games[i])`` into ``slots[i]``; ``seeds`` holds -1 for them."""
        raise NotImplementedError

    def _restart(self, slots: np.ndarray) -> None:
        """``restart`` of checked slots (int64, each once): autoreset's path."""
        raise NotImplementedError

    # ------------------------------------------------------------------ input checks
    def _check_slot(self, slot: object) -> None:
        if isinstance(slot, bool) or not isinstance(slot, int | np.integer):
            raise ValueError(f"slot must be an int 0..{self.num_games - 1}, not {slot!r}")
        if not 0 <= slot < self.num_games:
            raise ValueError(f"slot must be 0..{self.num_games - 1}, not {slot!r}")

    def _slots(self, name: str, slots: object, distinct: bool = True) -> np.ndarray:
        """``slots`` as int64 slot numbers 0..B-1 (each once, if ``distinct``); a ValueError
        naming ``name`` otherwise."""
        b = self.num_games
        slots = np.asarray(slots)
        if slots.size == 0:
            return np.zeros(0, dtype=np.int64)
        what = f"{name} must be a 1-D sequence of slots (ints 0..{b - 1})"
        if slots.ndim != 1 or not np.issubdtype(slots.dtype, np.integer):
            raise ValueError(f"{what}, not {slots.dtype} of shape {slots.shape}")
        outside = slots[(slots < 0) | (slots >= b)]
        if outside.size:
            raise ValueError(f"{what}: {outside[0]} is no slot")
        if distinct:
            values, counts = np.unique(slots, return_counts=True)
            if (counts > 1).any():
                raise ValueError(f"{name} names slot {values[counts > 1][0]} more than once")
        return slots.astype(np.int64, copy=False)

    def _seats(self, name: str, seats: object, low: int = 0) -> np.ndarray:
        """One seat per game (int64 ``[B]``, ``low``..num_players-1); ValueError otherwise."""
        seats = check_ints(name, seats, (self.num_games,))
        outside = seats[(seats < low) | (seats >= self.num_players)]
        if outside.size:
            raise ValueError(
                f"{name} holds seat {outside[0]}: seats at this table are {low}.."
                f"{self.num_players - 1}"
            )
        return seats

    @staticmethod
    def _flags(name: str, flags: object, shape: tuple[int, ...]) -> np.ndarray:
        """A bool array of ``shape``; a ValueError naming ``name`` otherwise."""
        flags = np.asarray(flags)
        if flags.shape != shape or flags.dtype != np.bool_:
            raise ValueError(
                f"{name} must be bool of shape {shape}, not {flags.dtype} of shape {flags.shape}"
            )
        return np.ascontiguousarray(flags)

    def _mask(self, mask: object) -> np.ndarray:
        """An action mask for every game (``legal_mask``'s): 0/1 of shape ``[B, 63]``, each
        row of a game in progress allowing something."""
        shape = (self.num_games, NUM_ACTIONS)
        mask = np.asarray(mask)
        if mask.shape != shape or not (
            np.issubdtype(mask.dtype, np.integer) or mask.dtype == np.bool_
        ):
            raise ValueError(
                f"mask must be ints or bools of shape {shape} (legal_mask()'s), not "
                f"{mask.dtype} of shape {mask.shape}"
            )
        zero_one, empty = self._mask_problems(mask)
        if not zero_one:
            raise ValueError("mask must hold 0 and 1 only (legal_mask()'s)")
        if empty >= 0:  # a finished game (over at its deal, too) has no move: only live ones
            stuck = np.flatnonzero(~mask.any(axis=1) & ~self.game_over)
            if stuck.size:
                raise ValueError(f"mask allows no action in game {stuck[0]}")
        return mask.astype(np.int8, copy=False)

    @staticmethod
    def _mask_problems(mask: np.ndarray) -> tuple[bool, int]:
        """Whether ``mask`` holds only 0 and 1, and the first game it allows nothing in (-1:
        none)."""
        empty = np.flatnonzero(~mask.any(axis=1))
        return bool(((mask == 0) | (mask == 1)).all()), int(empty[0]) if empty.size else -1

    def _step_input(self, actions: object, active: object) -> tuple[np.ndarray, np.ndarray]:
        """``step``'s actions (int64 ``[B]``) and active games (bool ``[B]``), checked: without
        autoreset, a finished game is no longer stepped."""
        actions = check_ints("actions", actions, (self.num_games,))
        active = self._all if active is None else self._flags("active", active, (self.num_games,))
        over = np.flatnonzero(active & self.game_over)
        if not self.autoreset and over.size:
            raise ValueError(
                f"game {over[0]} is over (autoreset=False): leave it out of active, or deal it "
                "a new game (start, restart)"
            )
        return actions, active

    @staticmethod
    def _refuse(game: int, action: int, legal: np.ndarray, accepted: np.ndarray) -> NoReturn:
        """The ValueError of an action ``step`` does not take in ``game`` (``legal``: its legal
        actions; ``accepted``: what ``step`` takes, the misplays ``penalize`` adds included)."""
        name = f" ({action_name(action)})" if 0 <= action < NUM_ACTIONS else ""
        text = f"game {game}: illegal action {action}{name}; legal: {_names(legal)}"
        misplays = (accepted != 0) & (legal == 0)
        raise ValueError(
            text + (f"; penalised misplays: {_names(misplays)}" if misplays.any() else "")
        )

    def _loadable(self, game: object, slot: object, paid: object) -> list[int]:
        """``from_game``'s checks: a game of this ruleset, a slot, at most one int of
        ``paid`` per side; ``paid`` for every side."""
        if not isinstance(game, Game) or game.rules != self.rules:
            raise ValueError("from_game takes a Game of this batch's ruleset")
        self._check_slot(slot)
        teams = self.rules.num_teams
        if (
            not isinstance(paid, Sequence | np.ndarray)
            or len(paid) > teams
            or any(isinstance(p, bool) or not isinstance(p, int | np.integer) for p in paid)
        ):
            raise ValueError(f"paid must be at most {teams} ints (one per side), not {paid!r}")
        return [int(p) for p in paid] + [0] * (teams - len(paid))

    def _check_first(self, first: object, last: int) -> int:
        """``hand_log``'s first hand: an int from 0 to ``last`` (the hands finished)."""
        if isinstance(first, bool) or not isinstance(first, int | np.integer) or first < 0:
            raise ValueError(f"first must be a hand index (an int >= 0), not {first!r}")
        if first > last:
            raise ValueError(
                f"first must be 0..{last} (the game has finished {last} hands), not {first}"
            )
        return int(first)


def _names(mask: np.ndarray) -> str:
    return ", ".join(f"{a} ({action_name(int(a))})" for a in np.flatnonzero(mask))


def check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
        raise ValueError(f"seeds must be ints from 0 to 2**63 - 1, not {seed!r}")
    return int(seed)


def check_seeds(seeds: object, count: int, what: str) -> list[int]:
    """``count`` seeds (ints >= 0), checked before any game is dealt."""
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence | np.ndarray):
        raise ValueError(f"{what}: {count} ints >= 0, not {seeds!r}")
    if len(seeds) != count:
        raise ValueError(f"{what}: {count} seeds, not {len(seeds)}")
    return [check_seed(s) for s in seeds]


def check_ints(name: str, values: object, shape: tuple[int, ...]) -> np.ndarray:
    """An int64 array of ``shape``; a ValueError naming ``name`` otherwise."""
    values = np.asarray(values)
    if values.shape != shape or not np.issubdtype(values.dtype, np.integer):
        raise ValueError(
            f"{name} must be integers of shape {shape} (one per game), not {values.dtype} of "
            f"shape {values.shape}"
        )
    return np.ascontiguousarray(values, dtype=np.int64)


def check_out(out: object, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A caller's output array: ``dtype``, ``shape``, C-contiguous and writeable."""
    if not (
        isinstance(out, np.ndarray)
        and out.shape == shape
        and out.dtype == dtype
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        got = f"{out.dtype} of shape {out.shape}" if isinstance(out, np.ndarray) else repr(out)
        raise ValueError(
            f"out must be a writeable C-contiguous {np.dtype(dtype)} array of shape {shape}, "
            f"not {got}"
        )
    return out


def check_rng(rng: object) -> None:
    pcg64 = isinstance(rng, np.random.Generator) and isinstance(rng.bit_generator, np.random.PCG64)
    if not pcg64:
        raise ValueError(f"rng must be a numpy Generator over PCG64 (default_rng), not {rng!r}")

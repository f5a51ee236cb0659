"""A batch of games: ``GameBatch``, the one interface to many games of one table advanced
together, and ``ReferenceGames``, the reference engine behind it.

A batch holds ``num_games`` games in slots and advances them a decision at a time. Two engines
stand behind the interface: the compiled one (``crates_env.vector.VectorGame``) and the
reference one (``ReferenceGames``: ``crates_env.Game`` objects, paid as ``raw_env`` pays them,
``crates_env.payouts``). ``crates_env.engine_choice.game_batch`` builds the compiled one
wherever it plays the table. Whoever drives games a batch at a time (the Gymnasium vector env
and self-play, evaluation, SearchAgent's rollouts) is written once against the interface; the
differential tests hold the two engines to the same games, move for move.

This module also holds what does not depend on the engine: the seeds of the games dealt, and
the checks of every input (a ValueError naming the argument before any game moves).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from .actions import NUM_ACTIONS, action_name
from .game import Game, new_game
from .observation import SEAT_LAYOUT
from .payouts import Payouts, final_standing, legal_mask
from .processes import machine_memory
from .rules import Ruleset, make_ruleset
from .settings import EnvSettings, next_game_rng
from .state import HAND_ENDINGS, HandScore
from .table_observation import make_observer


class GameBatch(ABC):
    """``num_games`` games of one table, advanced together: the batch interface.

    Built with the keyword arguments of ``crates_v0.raw_env`` (ruleset options, ``reward_mode``,
    ``reward_scale``, ``reward_timing``, ``one_card``, ``observation``: the layout ``observe``
    writes, "seat" or "table", docs/env.md). ``autoreset=True`` deals a finished
    game's slot a new game at once, its seed drawn from the slot's seed stream.

    Games start with ``reset(seeds)`` (``new_game(..., seed=seeds[i])``, in every slot or in
    ``slots``) or, as the environment deals them, ``reset_as_env(streams, slots)``. Then
    ``to_play`` (the seat deciding in each game), ``legal_mask()``, ``observe()`` (the
    observation of that seat), ``step(actions) -> (rewards, game_over)``; ``hand_log`` says what
    each finished hand scored. ``from_game`` loads a reference position into a slot;
    ``copy_games`` copies games between slots (a search branches many continuations of one
    position this way).

    A slot holds no game until one of those puts one there: every method that reads or moves a
    game refuses (a ValueError naming the slot) while a slot it would read holds none, rather
    than play a blank record (the compiled engine's kernels would never finish it).
    ``game_over`` is True for such a slot.
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
        observation: str = SEAT_LAYOUT,
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
        if not isinstance(autoreset, bool | np.bool_):
            raise ValueError(f"autoreset must be True or False, not {autoreset!r}")
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
        self.observer = make_observer(self.rules, observation)
        self.rewards = np.zeros((num_games, self.num_players), dtype=np.float64)
        self.game_over = np.ones(num_games, dtype=bool)  # a slot without a game counts as over
        self._holds = np.zeros(num_games, dtype=bool)  # the slots that hold a game
        self._holds_all = False  # every slot does (the checks then cost nothing)
        self.seeds = np.zeros(num_games, dtype=np.int64)  # the seed of each slot's game
        self._no_seats = np.full(num_games, -1, dtype=np.int64)
        self._every = np.arange(num_games)
        self._all = np.ones(num_games, dtype=bool)

    # what one game takes in memory, about (each engine's own); the largest batch is what the
    # machine's memory holds, checked before anything is allocated
    BYTES_A_GAME = 64 * 1024

    @classmethod
    def max_games(cls) -> int:
        return max(1, machine_memory() // cls.BYTES_A_GAME)

    @property
    def observation_size(self) -> int:
        return self.observer.size

    # ------------------------------------------------------------------ starting games
    def reset(
        self,
        seeds: Sequence[int] | np.ndarray | int | None = None,
        slots: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """New games in every slot (or in ``slots``): slot ``slots[i]`` gets
        ``new_game(preset, num_players, seed=seeds[i], **options)``, deal for deal. ``seeds``
        may be one int (the ``i``-th slot gets ``seed + i``) or None (fresh entropy). Later games
        of an autoreset slot take their seeds from a stream seeded by the slot's seed here."""
        slots = np.arange(self.num_games) if slots is None else self._slots("slots", slots)
        count = len(slots)
        if seeds is None:
            seeds = np.random.SeedSequence().generate_state(count, np.uint32).astype(np.int64)
        elif np.ndim(seeds) == 0:
            base = check_seed(seeds)
            seeds = [base + i for i in range(count)]
        seeds = check_seeds(seeds, count, "reset needs one seed per slot")
        self._seed_slots(slots, seeds)
        self._deal(slots, seeds)
        self._hold(slots)

    def reset_as_env(
        self,
        streams: Sequence[np.random.Generator],
        slots: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """New games in every slot (or in ``slots``), as the environment deals them: the next
        game ``raw_env`` deals from its reset stream ``streams[i]``, which is advanced
        (``raw_env.reset(seed=s)`` then plain resets deal the games of ``default_rng(s)`` in
        turn). ``seeds`` holds -1 for them."""
        slots = np.arange(self.num_games) if slots is None else self._slots("slots", slots)
        if not isinstance(streams, Sequence) or len(streams) != len(slots):
            raise ValueError(
                f"reset_as_env needs streams: one numpy Generator per slot ({len(slots)}), not "
                f"{streams!r}"
            )
        for stream in streams:
            check_rng(stream, "streams")
        self._deal_games(slots, [next_game_rng(s) for s in streams])
        self._hold(slots)

    # what each engine does: keep the slots' seed streams and deal games
    @abstractmethod
    def _seed_slots(self, slots: np.ndarray, seeds: list[int]) -> None:
        """The seed streams of ``slots`` (autoreset's next seeds) from their seeds."""

    @abstractmethod
    def _deal(self, slots: np.ndarray, seeds: list[int]) -> None:
        """Deal ``new_game(..., seed=seeds[i])`` into ``slots[i]``; ``seeds`` records them."""

    @abstractmethod
    def _deal_games(self, slots: np.ndarray, games: list[np.random.Generator]) -> None:
        """Deal ``new_game(..., seed=games[i])`` into ``slots[i]``; ``seeds`` holds -1 for
        them."""

    @abstractmethod
    def _restart(self, slots: np.ndarray) -> None:
        """New games in ``slots`` (int64, each once), their seeds drawn from each slot's seed
        stream (``seeds`` then holds them): autoreset's path. A slot never reset draws from
        ``default_rng([slot, 2])``."""

    # ------------------------------------------------------------------ positions
    def from_game(self, game: Game, slot: int = 0, paid: Sequence[int] = ()) -> None:
        """Load a copy of ``game`` into ``slot``: it plays on exactly as ``game`` does (the same
        reshuffles and later deals). ``paid``: pressure points of the hand in play already
        rewarded (``raw_env``'s, with ``reward_timing="event"``), per side from 0 to what the
        hand has charged so far."""
        paid = self._loadable(game, slot, paid)
        self._load_game(game, int(slot), paid)
        self._hold([slot])

    @abstractmethod
    def _load_game(self, game: Game, slot: int, paid: list[int]) -> None:
        """``from_game`` with checked input."""

    def copy_games(
        self, source: np.ndarray | Sequence[int], target: np.ndarray | Sequence[int]
    ) -> None:
        """Game ``source[i]`` copied into slot ``target[i]``: both play on identically."""
        source = self._slots("source", source, distinct=False)
        target = self._slots("target", target)
        if len(source) != len(target):
            raise ValueError(
                f"copy_games needs as many target slots as source slots, not {len(target)} "
                f"for {len(source)}"
            )
        self._check_games(source)
        self._copy_games(source, target)
        self._hold(target)

    @abstractmethod
    def _copy_games(self, source: np.ndarray, target: np.ndarray) -> None:
        """``copy_games`` of checked slots."""

    # ------------------------------------------------------------------ playing
    @property
    def to_play(self) -> np.ndarray:
        """The seat that decides in each game (meaningless in a finished game)."""
        self._check_games()
        return self._seats_to_play()

    @abstractmethod
    def _seats_to_play(self) -> np.ndarray:
        """``to_play`` of a batch whose every slot holds a game."""

    def legal_mask(
        self, out: np.ndarray | None = None, games: np.ndarray | None = None
    ) -> np.ndarray:
        """int8 ``[B, 63]``: the AEC action mask of the seat to play in each game; with
        ``games`` (slots), ``[len(games), 63]``: those games' alone, in that order (a search
        whose rollouts end one by one asks only for those still playing)."""
        games = self._every if games is None else self._slots("games", games, distinct=False)
        shape = (len(games), NUM_ACTIONS)
        out = np.empty(shape, dtype=np.int8) if out is None else check_out(out, shape, np.int8)
        self._check_games(games)
        self._legal_masks(games, out)
        return out

    @abstractmethod
    def _legal_masks(self, games: np.ndarray, out: np.ndarray) -> None:
        """``out[k]``: the whole mask (zeros in a finished game) of game ``games[k]``."""

    def observe(
        self,
        seats: np.ndarray | None = None,
        out: np.ndarray | None = None,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """float32 ``[B, observation_size]``: the AEC observation of the seat to play in each
        game, or of ``seats[i]`` in game ``i`` (-1: the seat to play; a finished game's seats
        see its final position); with ``games`` (slots), ``[len(games), observation_size]``:
        those games' alone, in that order."""
        games = self._every if games is None else self._slots("games", games, distinct=False)
        seats = self._no_seats if seats is None else self._seats("seats", seats, low=-1)
        shape = (len(games), self.observer.size)
        out = (
            np.empty(shape, dtype=np.float32) if out is None else check_out(out, shape, np.float32)
        )
        self._check_games(games)
        seat = self.observer.seat
        if seat is self.observer:
            self._observe(games, seats, out)
        else:  # the engines write the seat layout; the table layout widens it
            rows = np.empty((len(games), seat.size), dtype=np.float32)
            self._observe(games, seats, rows)
            self.observer.widen(rows, out)
        return out

    @abstractmethod
    def _observe(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """``out[k]``: the whole seat-layout observation of game ``games[k]`` by seat
        ``seats[games[k]]``."""

    @abstractmethod
    def step(
        self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One decision in every game (or in those ``active`` marks): ``actions[i]`` for the
        seat to play in game ``i``.

        Returns ``(rewards [B, num_players], game_over [B])``: what the AEC env pays each seat
        on that step, and which games ended on it. With ``autoreset`` those slots already hold
        new games. With ``misplay_mode="penalize"`` a misplay the rules penalise is accepted and
        penalised (``Game.acceptable_actions``). Any other action raises ``ValueError`` naming
        the game, the action and the legal ones, and no game moves."""

    def random_actions(
        self, rng: np.random.Generator, mask: np.ndarray | None = None
    ) -> np.ndarray:
        """A uniformly random legal action in every game (``mask``: ``legal_mask()``'s, if
        already built): the legal action that one ``rng.random()`` a game picks."""
        check_rng(rng)
        self._check_games()
        mask = self.legal_mask() if mask is None else self._mask(mask)
        return self._random_actions(mask, rng.random(self.num_games))

    @abstractmethod
    def _random_actions(self, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """Per game, the legal action of ``mask`` at ``draws[i]`` (in [0, 1)) of the way
        through its legal actions."""

    def play_random_seats(
        self,
        random_seats: np.ndarray,
        paid_to: np.ndarray,
        rng: np.random.Generator,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """Let the seats marked in ``random_seats`` (bool ``[B, num_players]``) play uniformly
        random legal moves until an unmarked seat is to play or the game is over (in every
        game, or in ``games``). Returns float64 ``[B]``: the rewards paid on those moves to seat
        ``paid_to[i]`` of game ``i``. ``rng`` draws the moves and is advanced. Finished games
        stay finished (``game_over``), whatever ``autoreset`` says."""
        b, n = self.num_games, self.num_players
        games = np.arange(b) if games is None else self._slots("games", games)
        random_seats = self._flags("random_seats", random_seats, (b, n))
        paid_to = self._seats("paid_to", paid_to)
        check_rng(rng)
        self._check_games(games)
        return self._play_random_seats(random_seats, paid_to, rng, games)

    @abstractmethod
    def _play_random_seats(
        self, random_seats: np.ndarray, paid_to: np.ndarray, rng: np.random.Generator, games
    ) -> np.ndarray:
        """``play_random_seats`` with checked input (``games``: int64 slots)."""

    # ------------------------------------------------------------------ results
    @property
    def scores(self) -> np.ndarray:
        """int64 ``[B, teams]``: each game's cumulative scores."""
        self._check_games()
        return self._scores()

    @property
    def stars(self) -> np.ndarray:
        """int ``[B, num_players]``: each seat's stars (kreights)."""
        self._check_games()
        return self._stars()

    @property
    def pressures_taken(self) -> np.ndarray:
        """int ``[B, teams]``: the shuffle pressures each side has taken this game."""
        self._check_games()
        return self._pressures_taken()

    @property
    def hands_played(self) -> np.ndarray:
        """int ``[B]``: the hands each game has finished."""
        self._check_games()
        return self._hands_played()

    @property
    def truncated(self) -> np.ndarray:
        """bool ``[B]``: games stopped by a guard (``max_hands``, ``max_decisions_per_hand``)."""
        self._check_games()
        return self._truncated()

    def winners(self, slot: int) -> list[int]:
        """``Game.winners`` of the game in ``slot``: the sides with the best standing; in an
        elimination game the players left."""
        return self._winners(self._slot_with_game(slot))

    def standing(self, slot: int) -> list[float]:
        """``crates_env.payouts.final_standing`` of the game in ``slot``: per side, larger is
        better (in an elimination game the hand a side was knocked out in)."""
        return self._standing(self._slot_with_game(slot))

    @property
    def standings(self) -> np.ndarray:
        """float ``[B, teams]``: every game's ``standing``, as it stands now."""
        self._check_games()
        return self._standings()

    def last_hands(self) -> tuple[np.ndarray, np.ndarray]:
        """Per game, how its last finished hand ended (int ``[B]``, an index of
        ``HAND_ENDINGS``) and who went out in it (-1: nobody); 0 and -1 before any hand."""
        self._check_games()
        return self._last_hands()

    def hand_log(self, slot: int, first: int) -> list[HandScore]:
        """The hands game ``slot`` finished from hand ``first`` on, oldest first, as the
        reference game's ``results[first:]`` score them (``HandScore``)."""
        return self._hand_log(self._slot_with_game(slot), first)

    # what each engine reads, of a batch (or a slot) checked to hold games
    @abstractmethod
    def _scores(self) -> np.ndarray: ...

    @abstractmethod
    def _stars(self) -> np.ndarray: ...

    @abstractmethod
    def _pressures_taken(self) -> np.ndarray: ...

    @abstractmethod
    def _hands_played(self) -> np.ndarray: ...

    @abstractmethod
    def _truncated(self) -> np.ndarray: ...

    @abstractmethod
    def _winners(self, slot: int) -> list[int]: ...

    @abstractmethod
    def _standing(self, slot: int) -> list[float]: ...

    @abstractmethod
    def _standings(self) -> np.ndarray: ...

    @abstractmethod
    def _last_hands(self) -> tuple[np.ndarray, np.ndarray]: ...

    @abstractmethod
    def _hand_log(self, slot: int, first: int) -> list[HandScore]: ...

    # ------------------------------------------------------------------ input checks
    def _hold(self, slots: Sequence[int] | np.ndarray) -> None:
        """``slots`` hold games from now on."""
        self._holds[slots] = True
        self._holds_all = bool(self._holds.all())

    def _check_games(self, slots: np.ndarray | None = None) -> None:
        """A ValueError naming the first slot of ``slots`` (default: every slot) that holds no
        game: its record is blank, no game the engines can play or score."""
        if self._holds_all:
            return
        empty = np.flatnonzero(~self._holds) if slots is None else slots[~self._holds[slots]]
        if empty.size:
            raise ValueError(
                f"slot {empty[0]} holds no game yet: deal one first (reset or reset_as_env), or "
                "load one (from_game, copy_games)"
            )

    def _check_slot(self, slot: object) -> None:
        if isinstance(slot, bool) or not isinstance(slot, int | np.integer):
            raise ValueError(f"slot must be an int 0..{self.num_games - 1}, not {slot!r}")
        if not 0 <= slot < self.num_games:
            raise ValueError(f"slot must be 0..{self.num_games - 1}, not {slot!r}")

    def _slot_with_game(self, slot: object) -> int:
        """``slot``, checked to be one and to hold a game."""
        self._check_slot(slot)
        self._check_games(np.array([slot], dtype=np.int64))
        return int(slot)

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
        if slots.min() < 0 or slots.max() >= b:  # (a search asks this of every rollout step)
            raise ValueError(f"{what}: {slots[(slots < 0) | (slots >= b)][0]} is no slot")
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
        if not self._holds_all:  # (the list of active games only then: this runs every step)
            self._check_games(np.flatnonzero(active))
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
        ``paid`` per side, each from 0 to the pressure points its side has been charged in the
        hand in play (nothing more can have been paid); ``paid`` for every side."""
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
        sides = [int(p) for p in paid] + [0] * (teams - len(paid))
        charged = game.pressure_points
        if any(not 0 <= p <= c for p, c in zip(sides, charged, strict=True)):
            raise ValueError(
                f"paid must be, per side, from 0 to the pressure points the hand in play has "
                f"charged it ({charged}), not {sides[: len(paid)]}"
            )
        return sides

    def _check_first(self, first: object, last: int) -> int:
        """``hand_log``'s first hand: an int from 0 to ``last`` (the hands finished)."""
        if isinstance(first, bool) or not isinstance(first, int | np.integer) or first < 0:
            raise ValueError(f"first must be a hand index (an int >= 0), not {first!r}")
        if first > last:
            raise ValueError(
                f"first must be 0..{last} (the game has finished {last} hands), not {first}"
            )
        return int(first)


class ReferenceGames(GameBatch):
    """``num_games`` games of the reference engine (``crates_env.Game``, paid as ``raw_env``
    pays them: ``crates_env.payouts``) behind the batch interface: every rule system, one game
    at a time in Python. ``game(slot)`` is the game in a slot, for what only the reference
    engine offers (a search's re-deals, the hidden state, pressure shaping).

    ``random_actions`` picks the compiled engine's moves from the same generator;
    ``play_random_seats`` draws from the generator given as the compiled engine does, but not
    the same moves: the same distribution, another stream.
    """

    def __init__(self, num_games: int, preset: str = "crates", **kwargs: Any) -> None:
        super().__init__(num_games, preset, **kwargs)
        self._games: list[Payouts | None] = [None] * num_games
        self._seed_streams: list[np.random.Generator | None] = [None] * num_games

    def game(self, slot: int) -> Game:
        """The reference game in ``slot`` (playing it moves the batch's game)."""
        return self._games[self._slot_with_game(slot)].game

    def paid_pressure_points(self, slot: int) -> list[int]:
        """Per side, the pressure points of the hand in play already paid (``from_game``'s
        ``paid``)."""
        self.game(slot)
        return list(self._games[slot].paid)

    # ------------------------------------------------------------------ starting games
    def _seed_slots(self, slots: np.ndarray, seeds: list[int]) -> None:
        for slot, seed in zip(slots, seeds, strict=True):
            self._seed_streams[slot] = np.random.default_rng([seed, 1])

    def _deal(self, slots: np.ndarray, seeds: list[int]) -> None:
        self._start_games(slots, seeds, seeds)

    def _deal_games(self, slots: np.ndarray, games: list[np.random.Generator]) -> None:
        self._start_games(slots, [-1] * len(slots), games)

    def _start_games(
        self, slots: np.ndarray, seeds: list[int], games: Sequence[int | np.random.Generator]
    ) -> None:
        for slot, seed, game_seed in zip(slots, seeds, games, strict=True):
            self._load(int(slot), Payouts(new_game(self.rules, seed=game_seed), self.settings))
            self.seeds[slot] = seed
            self.rewards[slot] = self._games[slot].start()

    def _restart(self, slots: np.ndarray) -> None:
        seeds = [int(self._stream(int(s)).integers(2**63)) for s in slots]
        self._deal(slots, seeds)

    def _stream(self, slot: int) -> np.random.Generator:
        """The seed stream of ``slot`` (a slot never reset gets one of its own)."""
        if self._seed_streams[slot] is None:
            self._seed_streams[slot] = np.random.default_rng([slot, 2])
        return self._seed_streams[slot]

    def _load(self, slot: int, payouts: Payouts) -> None:
        self._games[slot] = payouts
        self.game_over[slot] = payouts.game.game_over

    def _load_game(self, game: Game, slot: int, paid: list[int]) -> None:
        self._load(slot, Payouts(game.clone(), self.settings, paid))

    def _copy_games(self, source: np.ndarray, target: np.ndarray) -> None:
        copies = [self._games[s].clone() for s in source]
        for slot, payouts in zip(target, copies, strict=True):
            self._load(int(slot), payouts)

    # ------------------------------------------------------------------ playing
    def _seats_to_play(self) -> np.ndarray:
        return np.array([p.game.to_play for p in self._games], dtype=np.int32)

    def _legal_masks(self, games: np.ndarray, out: np.ndarray) -> None:
        out[:] = 0
        for k, i in enumerate(games):
            g = self._games[i].game
            if not g.game_over:
                out[k] = legal_mask(g)

    def _observe(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for k, i in enumerate(games):
            g = self._games[i].game
            view = g.view(g.to_play if seats[i] < 0 else int(seats[i]))
            out[k] = self.observer.seat.encode(view)

    def observe_hidden(self, seats: np.ndarray) -> np.ndarray:
        """float32 ``[B, hidden_size]``: what seat ``seats[i]`` cannot see in game ``i``
        (``Observer.encode_hidden``): for a critic, never for a policy."""
        seats = self._seats("seats", seats)
        self._check_games()
        out = np.zeros((self.num_games, self.observer.hidden_size), dtype=np.float32)
        for i, p in enumerate(self._games):
            out[i] = self.observer.encode_hidden(p.game, int(seats[i]))
        return out

    def step(
        self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        actions, active = self._step_input(actions, active)
        moving = [i for i in np.flatnonzero(active) if not self.game_over[i]]
        for i in moving:
            g = self._games[i].game
            accepted = g.acceptable_actions()  # what raw_env accepts
            if int(actions[i]) not in accepted:
                self._refuse(i, int(actions[i]), legal_mask(g), _mask_of(accepted))
        self.rewards[:] = 0.0
        ended = np.zeros(self.num_games, dtype=bool)
        for i in moving:
            payouts = self._games[i]
            self.rewards[i] = payouts.apply(int(actions[i]))
            ended[i] = payouts.game.game_over
        self.game_over |= ended
        rewards = self.rewards.copy()
        if self.autoreset and ended.any():
            self._restart(np.flatnonzero(ended))
        return rewards, ended

    def _random_actions(self, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        picks = (draws * mask.sum(axis=1)).astype(np.int64)
        return np.argmax(mask.cumsum(axis=1) > picks[:, None], axis=1).astype(np.int64)

    def _play_random_seats(
        self, random_seats: np.ndarray, paid_to: np.ndarray, rng: np.random.Generator, games
    ) -> np.ndarray:
        totals = np.zeros(self.num_games)
        for i in games:
            payouts = self._games[i]
            g = payouts.game
            while not g.game_over and random_seats[i, g.to_play]:
                legal = g.legal_actions()
                totals[i] += payouts.apply(legal[int(rng.integers(len(legal)))])[paid_to[i]]
            self.game_over[i] = g.game_over
        return totals

    # ------------------------------------------------------------------ results
    def _field(self, read, dtype, width: int) -> np.ndarray:
        out = np.zeros((self.num_games, width), dtype=dtype)
        for i, p in enumerate(self._games):
            out[i] = read(p.game)
        return out

    def _scores(self) -> np.ndarray:
        return self._field(lambda g: g.scores, np.int64, self.rules.num_teams)

    def _stars(self) -> np.ndarray:
        return self._field(lambda g: g.stars, np.int64, self.num_players)

    def _pressures_taken(self) -> np.ndarray:
        return self._field(lambda g: g.game_state.pressure_count, np.int64, self.rules.num_teams)

    def _hands_played(self) -> np.ndarray:
        return self._field(lambda g: g.hand_index, np.int64, 1)[:, 0]

    def _truncated(self) -> np.ndarray:
        return self._field(lambda g: g.truncated, bool, 1)[:, 0]

    def _winners(self, slot: int) -> list[int]:
        return self._games[slot].game.winners()

    def _standing(self, slot: int) -> list[float]:
        return final_standing(self._games[slot].game)

    def _standings(self) -> np.ndarray:
        return self._field(final_standing, np.float64, self.rules.num_teams)

    def _last_hands(self) -> tuple[np.ndarray, np.ndarray]:
        ended_by = np.zeros(self.num_games, dtype=np.int64)
        went_out = np.full(self.num_games, -1, dtype=np.int64)
        for i, p in enumerate(self._games):
            if p.game.results:
                last = p.game.results[-1]
                ended_by[i] = HAND_ENDINGS.index(last.ended_by)
                went_out[i] = -1 if last.went_out is None else last.went_out
        return ended_by, went_out

    def _hand_log(self, slot: int, first: int) -> list[HandScore]:
        g = self._games[slot].game
        return [HandScore.of(r) for r in g.results[self._check_first(first, len(g.results)) :]]


def _mask_of(actions) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(actions)] = 1
    return mask


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
    """An int64 array of ``shape``; a ValueError naming ``name`` otherwise (an unsigned value
    past int64 too: cast, it would wrap to a negative one, and -1 means "the seat to play")."""
    values = np.asarray(values)
    if values.shape != shape or not np.issubdtype(values.dtype, np.integer):
        raise ValueError(
            f"{name} must be integers of shape {shape} (one per game), not {values.dtype} of "
            f"shape {values.shape}"
        )
    if values.dtype.kind == "u" and values.size and values.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds {values.max()}, past any seat, action or slot")
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


def check_rng(rng: object, name: str = "rng") -> None:
    pcg64 = isinstance(rng, np.random.Generator) and isinstance(rng.bit_generator, np.random.PCG64)
    if not pcg64:
        raise ValueError(f"{name}: a numpy Generator over PCG64 (default_rng), not {rng!r}")

"""A batch of games on either engine: ``ReferenceGames`` (the reference engine behind the batch
interface, ``crates_env.batching.GameBatch``) and ``game_batch``, which takes the compiled
engine (``crates_env.vector.VectorGame``) wherever it plays the table.

Whoever drives games a batch at a time (self-play and the Gymnasium vector env, evaluation,
SearchAgent's rollouts) is written once against the interface and runs on both engines; the
differential tests hold the two batches to the same games, move for move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .actions import NUM_ACTIONS
from .batching import GameBatch, check_out, check_rng
from .game import Game, new_game
from .payouts import Payouts, final_standing, legal_mask
from .rules import Ruleset, make_ruleset
from .settings import next_game_rng
from .state import HAND_ENDINGS, HandScore

ENGINES = ("auto", "vector", "reference")
# a batch's keyword arguments that are no ruleset option
BATCH_SETTINGS = ("reward_mode", "reward_scale", "one_card", "reward_timing", "render_mode")
BATCH_SETTINGS += ("autoreset",)


class ReferenceGames(GameBatch):
    """``num_games`` games of the reference engine (``crates_env.Game``, paid as ``raw_env``
    pays them: ``crates_env.payouts``) behind the batch interface: every rule system, one game
    at a time in Python. ``game(slot)`` is the game in a slot, for what only the reference
    engine offers (a search's re-deals, the hidden state, pressure shaping).

    Random seats (``random_actions``, ``play_random_seats``) draw from the generator given, as
    the compiled engine does, but not the same moves: the same distribution, another stream.
    """

    def __init__(self, num_games: int, preset: str = "crates", **kwargs: Any) -> None:
        super().__init__(num_games, preset, **kwargs)
        self._games: list[Payouts | None] = [None] * num_games
        self._seed_streams: list[np.random.Generator | None] = [None] * num_games

    def game(self, slot: int) -> Game:
        """The reference game in ``slot`` (playing it moves the batch's game)."""
        self._check_slot(slot)
        payouts = self._games[slot]
        if payouts is None:
            raise ValueError(f"slot {slot} holds no game yet: reset() or start() first")
        return payouts.game

    def paid_pressure_points(self, slot: int) -> list[int]:
        """Per side, the pressure points of the hand in play already paid (``from_game``'s
        ``paid``)."""
        self.game(slot)
        return list(self._games[slot].paid)

    # ------------------------------------------------------------------ starting games
    def _seed_slots(self, seeds: list[int]) -> None:
        self._seed_streams = [np.random.default_rng([s, 1]) for s in seeds]

    def _deal(self, slots: np.ndarray, seeds: list[int], as_env: bool) -> None:
        games = [next_game_rng(np.random.default_rng(s)) for s in seeds] if as_env else seeds
        self._start_games(slots, seeds, games)

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
        self._deal(slots, seeds, as_env=False)

    def _stream(self, slot: int) -> np.random.Generator:
        """The seed stream of ``slot`` (a slot never reset gets one of its own)."""
        if self._seed_streams[slot] is None:
            self._seed_streams[slot] = np.random.default_rng([slot, 2])
        return self._seed_streams[slot]

    def _load(self, slot: int, payouts: Payouts) -> None:
        self._games[slot] = payouts
        self.game_over[slot] = payouts.game.game_over

    def from_game(self, game: Game, slot: int = 0, paid: Sequence[int] = ()) -> None:
        """Load a copy of ``game`` into ``slot``: it plays on exactly as ``game`` does.
        ``paid``: pressure points of the hand in play already rewarded (``raw_env``'s, with
        ``reward_timing="event"``)."""
        paid = self._loadable(game, slot, paid)
        self._load(slot, Payouts(game.clone(), self.settings, paid))

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
        copies = [self._live(int(s)).clone() for s in source]
        for slot, payouts in zip(target, copies, strict=True):
            self._load(int(slot), payouts)

    def _live(self, slot: int) -> Payouts:
        payouts = self._games[slot]
        if payouts is None:
            raise ValueError(f"slot {slot} holds no game yet: reset() or start() first")
        return payouts

    # ------------------------------------------------------------------ playing
    @property
    def to_play(self) -> np.ndarray:
        """The seat that decides in each game (meaningless in a finished game)."""
        return np.array([0 if p is None else p.game.to_play for p in self._games], dtype=np.int32)

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """int8 ``[B, 63]``: the AEC action mask of the seat to play in each game."""
        shape = (self.num_games, NUM_ACTIONS)
        out = np.zeros(shape, dtype=np.int8) if out is None else check_out(out, shape, np.int8)
        out[:] = 0
        for i, p in enumerate(self._games):
            if p is not None and not p.game.game_over:
                out[i] = legal_mask(p.game)
        return out

    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """float32 ``[B, observation_size]``: the AEC observation of the seat to play in each
        game, or of ``seats[i]`` in game ``i`` (-1: the seat to play; a finished game's seats
        see its final position)."""
        shape = (self.num_games, self.observer.size)
        out = (
            np.zeros(shape, dtype=np.float32) if out is None else check_out(out, shape, np.float32)
        )
        seats = self._no_seats if seats is None else self._seats("seats", seats, low=-1)
        for i, p in enumerate(self._games):
            if p is None:
                out[i] = 0
                continue
            g = p.game
            out[i] = self.observer.encode(g.view(g.to_play if seats[i] < 0 else int(seats[i])))
        return out

    def observe_hidden(self, seats: np.ndarray) -> np.ndarray:
        """float32 ``[B, hidden_size]``: what seat ``seats[i]`` cannot see in game ``i``
        (``Observer.encode_hidden``): for a critic, never for a policy."""
        seats = self._seats("seats", seats)
        out = np.zeros((self.num_games, self.observer.hidden_size), dtype=np.float32)
        for i, p in enumerate(self._games):
            if p is not None:
                out[i] = self.observer.encode_hidden(p.game, int(seats[i]))
        return out

    def step(
        self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One decision in every game (or in those ``active`` marks): ``actions[i]`` for the
        seat to play in game ``i``.

        Returns ``(rewards [B, num_players], game_over [B])``: what the AEC env pays each seat
        on that step, and which games ended on it. With ``autoreset`` those slots already hold
        new games. An illegal action raises ``ValueError`` naming the game, the action and the
        legal ones, and no game moves."""
        actions, active = self._step_input(actions, active)
        moving = [i for i in np.flatnonzero(active) if not self.game_over[i]]
        for i in moving:
            g = self._live(i).game
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
            self.restart(np.flatnonzero(ended))
        return rewards, ended

    def random_actions(
        self, rng: np.random.Generator, mask: np.ndarray | None = None
    ) -> np.ndarray:
        """A uniformly random legal action in every game (``mask``: ``legal_mask()``'s, if
        already built): the legal action that one ``rng.random()`` a game picks, as the compiled
        engine's does."""
        check_rng(rng)
        mask = self.legal_mask() if mask is None else self._mask(mask)
        picks = (rng.random(self.num_games) * mask.sum(axis=1)).astype(np.int64)
        return np.argmax(mask.cumsum(axis=1) > picks[:, None], axis=1).astype(np.int64)

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
        ``paid_to[i]`` of game ``i``. Finished games stay finished, whatever ``autoreset``
        says."""
        b, n = self.num_games, self.num_players
        games = np.arange(b) if games is None else self._slots("games", games)
        random_seats = self._flags("random_seats", random_seats, (b, n))
        paid_to = self._seats("paid_to", paid_to)
        check_rng(rng)
        totals = np.zeros(b)
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
            if p is not None:
                out[i] = read(p.game)
        return out

    @property
    def scores(self) -> np.ndarray:
        """int64 ``[B, teams]``: each game's cumulative scores."""
        return self._field(lambda g: g.scores, np.int64, self.rules.num_teams)

    @property
    def stars(self) -> np.ndarray:
        """int ``[B, num_players]``: each seat's stars (kreights)."""
        return self._field(lambda g: g.stars, np.int64, self.num_players)

    @property
    def pressures_taken(self) -> np.ndarray:
        """int ``[B, teams]``: the shuffle pressures each side has taken this game."""
        return self._field(lambda g: g.game_state.pressure_count, np.int64, self.rules.num_teams)

    @property
    def hands_played(self) -> np.ndarray:
        """int ``[B]``: the hands each game has finished."""
        return self._field(lambda g: g.hand_index, np.int64, 1)[:, 0]

    @property
    def truncated(self) -> np.ndarray:
        """bool ``[B]``: games stopped by a guard (``max_hands``, ``max_decisions_per_hand``)."""
        return self._field(lambda g: g.truncated, bool, 1)[:, 0]

    def winners(self, slot: int) -> list[int]:
        """``Game.winners`` of the game in ``slot``: the sides with the best standing."""
        return self.game(slot).winners()

    def standing(self, slot: int) -> list[float]:
        """``crates_env.payouts.final_standing`` of the game in ``slot``: per side, larger is
        better."""
        return final_standing(self.game(slot))

    @property
    def standings(self) -> np.ndarray:
        """float ``[B, teams]``: every game's ``standing``, as it stands now (zeros in a slot
        that holds no game yet)."""
        out = np.zeros((self.num_games, self.rules.num_teams), dtype=np.float64)
        for i, p in enumerate(self._games):
            if p is not None:
                out[i] = final_standing(p.game)
        return out

    def last_hands(self) -> tuple[np.ndarray, np.ndarray]:
        """Per game, how its last finished hand ended (int ``[B]``, an index of
        ``HAND_ENDINGS``) and who went out in it (-1: nobody); 0 and -1 before any hand."""
        ended_by = np.zeros(self.num_games, dtype=np.int64)
        went_out = np.full(self.num_games, -1, dtype=np.int64)
        for i, p in enumerate(self._games):
            if p is not None and p.game.results:
                last = p.game.results[-1]
                ended_by[i] = HAND_ENDINGS.index(last.ended_by)
                went_out[i] = -1 if last.went_out is None else last.went_out
        return ended_by, went_out

    def hand_log(self, slot: int, first: int) -> list[HandScore]:
        """The hands game ``slot`` finished from hand ``first`` on, oldest first
        (``HandScore``)."""
        g = self.game(slot)
        return [HandScore.of(r) for r in g.results[self._check_first(first, len(g.results)) :]]


def _mask_of(actions) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(actions)] = 1
    return mask


def game_batch(num_games: int, engine: str = "auto", **env_kwargs: Any) -> GameBatch:
    """``num_games`` games of the table ``env_kwargs`` names (``raw_env``'s keyword arguments,
    with ``autoreset``): on the compiled engine where it plays the table (``engine="auto"``),
    on the reference engine (``"reference"``), or insisting on the compiled one (``"vector"``:
    a ValueError saying why it cannot)."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not valid; use one of {', '.join(ENGINES)}")
    if engine != "reference":
        why = compiled_refusal(rules_of_env(env_kwargs))
        if not why:
            from .vector import VectorGame

            return VectorGame(num_games, **env_kwargs)
        if engine == "vector":
            raise ValueError(f"engine='vector' cannot play this table: {why}")
    return ReferenceGames(num_games, **env_kwargs)


def rules_of_env(env_kwargs: dict[str, Any]) -> Ruleset:
    """The ruleset ``env_kwargs`` name (the environment's own settings set aside)."""
    options = {k: v for k, v in env_kwargs.items() if k not in BATCH_SETTINGS}
    return make_ruleset(
        options.pop("preset", "crates"), options.pop("num_players", None), **options
    )


def compiled_refusal(rules: Ruleset) -> str:
    """Why the compiled engine cannot play ``rules`` ("" when it can): a table it does not
    play, or a numpy whose generator it does not reproduce."""
    try:
        from .vector.games import check_supported

        check_supported(rules)
    except (ValueError, ImportError) as exc:
        return str(exc)
    return ""

"""``CratesVectorEnv``: ``Crates-v0`` for ``num_envs`` games at once, a native Gymnasium
``VectorEnv`` over a batch of games (``crates_env.batch.GameBatch``: the compiled engine wherever it
plays the table, ``crates_env.engine_choice``).

``gym.make_vec("Crates-v0", num_envs=1024, vectorization_mode="vector_entry_point", ...)``
builds it with the single env's options. Each game is one episode seen by the learner; the
other seats are played inside the env, a batch at a time: uniformly random seats (the default)
in one compiled call, an agent with ``act_batch`` (HeuristicAgent's compiled twin, a network's
forward pass) once for every game waiting on it. ``step`` takes one action per game and returns
numpy arrays; the action masks are in ``infos["action_mask"]`` (and ``action_masks()``).

Who sits where is a ``Seating``: the default (``TableSeating``) seats the learner and the
opponents as ``Crates-v0`` does; self-play (``train.opponents.PoolSeating``) brings its own,
drawing each game's opponents from a pool of agents and snapshots. Two more options serve a
learner on the reference engine: ``hidden_state`` (what the seat cannot see after each
observation, for a critic that reads it) and ``shaping`` (potential-based reward shaping).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .actions import NUM_ACTIONS
from .batch import GameBatch, ReferenceGames
from .engine_choice import ENGINES, game_batch
from .observation import SEAT_LAYOUT
from .rules import int_value
from .settings import finite_number, one_of
from .table_observation import make_observer
from .view import PublicView
from .wrappers import Opponent, Resetting, check_learner_seat, seat_opponents

RANDOM = "random"  # a lineup whose opponents play uniformly random moves, in the engine
FIRST_DECISION_TRIES = 1000  # games in a row that may end before the learner's first decision
# what every game's info holds at every step (a finished game's adds its result)
STEP_INFOS = ("seat", "hands_ended", "hand_points", "ended_by", "went_out", "action_mask")
STEP_INFOS += ("illegal",)


@dataclass(frozen=True)
class Lineup:
    """Who plays a game: dealt from ``deal`` (a reset stream, as ``raw_env``'s), the learner at
    ``seat`` and all of ``learner``'s seats, the others by ``who``: ``RANDOM``, or the name of a
    group of games whose opponents decide together (``Seating.act``), with ``agents`` one agent
    per seat (None at the learner's) or None when ``who`` alone decides."""

    deal: np.random.Generator
    seat: int  # the learner's seat: its rewards, its view of the final position
    learner: tuple[int, ...]  # every seat it plays: its own, and its partner's
    who: str
    agents: tuple[Any, ...] | None = None


@runtime_checkable
class BatchOpponent(Protocol):
    """An opponent that decides many games at once (every ``agents.Agent``: a network's one
    forward pass, HeuristicAgent's compiled twin): asked once for all the games waiting on it."""

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


class Shaping(Protocol):
    """Potential-based reward shaping: the learner's reward at each of its steps gains the
    change of ``potential`` since its last decision (``train.shaping.PressureShaping``)."""

    def potential(self, view: PublicView, team: int) -> float:
        """The potential of the position ``view`` shows, for side ``team``, in reward units."""


class Seating(Protocol):
    """Who sits where in each game of a ``CratesVectorEnv``, and how the opponents decide."""

    def reset(self, seed: int | None, num_envs: int) -> None:
        """The env's ``reset(seed=...)``: a seed starts the streams the games are drawn from
        again; None goes on with them (fresh ones the first time)."""

    def new_game(self, slot: int) -> Lineup:
        """The lineup of the next game in ``slot``."""

    def act(
        self,
        who: str,
        agents: list[Any] | None,
        observations: np.ndarray,
        masks: np.ndarray,
        games: GameBatch,
        rows: np.ndarray,
    ) -> np.ndarray:
        """The moves of the opponents ``who`` of games ``rows``, one row each: ``agents[i]``
        the agent at the seat to play (or None), ``observations`` and ``masks`` (bool) that
        seat's."""


class TableSeating:
    """``Crates-v0``'s seating: the learner at ``learner_seat`` (or ``"random"``, drawn every
    game) and its partner's seat (``partner_is_learner``), ``opponents`` at the others (None:
    uniformly random moves; one agent for every seat; or one per seat). An opponent object plays
    its seat in every game: with ``act_batch`` once for all the games waiting on it, otherwise
    ``act`` per game; its ``reset()`` is called at the env's reset.

    ``reset(seed=s)`` gives game slot ``i`` the reset stream of ``Crates-v0.reset(seed=s + i)``:
    the games of slot ``i`` are the ones a single env deals from that seed on (a differential test
    holds them equal)."""

    def __init__(
        self,
        num_players: int,
        partnership_of,
        learner_seat: int | str = 0,
        opponents: Opponent | Sequence[Opponent | None] | None = None,
        partner_is_learner: bool = True,
    ) -> None:
        self.num_players = num_players
        self.learner_seat = check_learner_seat(learner_seat, num_players)
        if not isinstance(partner_is_learner, bool):
            raise ValueError(f"partner_is_learner takes True or False, not {partner_is_learner!r}")
        self._side = partnership_of if partner_is_learner else (lambda seat: (seat,))
        fixed = () if self.learner_seat == "random" else self._side(self.learner_seat)
        self.opponents = (
            None if opponents is None else seat_opponents(num_players, opponents, set(fixed))
        )
        self._streams: list[np.random.Generator] = []
        self._seat_rngs: list[np.random.Generator] = []

    def reset(self, seed: int | None, num_envs: int) -> None:
        if seed is not None or len(self._streams) != num_envs:
            seeds = [None] * num_envs if seed is None else [seed + i for i in range(num_envs)]
            self._streams = [np.random.default_rng(s) for s in seeds]
            self._seat_rngs = [np.random.default_rng(s) for s in seeds]
        for agent in {id(a): a for a in self.opponents or () if a is not None}.values():
            if isinstance(agent, Resetting):
                agent.reset()

    def new_game(self, slot: int) -> Lineup:
        seat = self.learner_seat
        if seat == "random":
            seat = int(self._seat_rngs[slot].integers(self.num_players))
        learner = tuple(self._side(seat))
        if self.opponents is None:
            return Lineup(self._streams[slot], seat, learner, RANDOM)
        return Lineup(self._streams[slot], seat, learner, "table", tuple(self.opponents))

    def act(self, who, agents, observations, masks, games, rows) -> np.ndarray:
        """Each opponent object decides all of its rows: ``act_batch`` at once, or ``act``."""
        actions = np.zeros(len(rows), dtype=np.int64)
        by_agent: dict[int, list[int]] = {}
        for i, agent in enumerate(agents):
            by_agent.setdefault(id(agent), []).append(i)
        for members in by_agent.values():
            agent = agents[members[0]]
            if isinstance(agent, BatchOpponent):
                actions[members] = agent.act_batch(observations[members], masks[members])
            else:
                actions[members] = [agent.act(observations[i], masks[i]) for i in members]
        return actions


class CratesVectorEnv(VectorEnv):
    """``num_envs`` games of ``Crates-v0``, stepped together.

    Takes ``Crates-v0``'s options (``preset``, ``num_players``, ``learner_seat``, ``opponents``,
    ``partner_is_learner``, ``illegal_action``, ``illegal_reward``, and ``raw_env``'s: reward
    mode, scale and timing, ``one_card``, ruleset options) and ``engine`` ("auto": the compiled
    engine wherever it plays the table; "vector"; "reference"), ``autoreset_mode``
    (Gymnasium's ``AutoresetMode``: ``NEXT_STEP``, the default, or ``SAME_STEP``) and
    ``seating`` (a ``Seating`` instead of ``learner_seat``, ``opponents`` and
    ``partner_is_learner``). ``hidden_state=True`` follows each observation with what its seat
    cannot see (``Observer.encode_hidden``: the other hands, the stock), for a critic that
    reads it and never for a policy; ``shaping`` (a ``Shaping``) shapes the learner's rewards;
    ``observation`` is the learner's layout ("seat" or "table", ``raw_env``'s), the opponents
    reading the seat layout as every agent does.
    Both read the reference engine's games: "auto" then takes it, "vector" refuses.

    Observations are float32 ``[num_envs, size]``, the single env's vectors; actions one int
    per game. ``infos`` hold, per game, the learner's ``seat``, the hands finished since its
    last decision (``hands_ended``, ``hand_points`` per seat, ``ended_by``, ``went_out``, as
    ``crates_env.env.step_info`` counts them), its next decision's ``action_mask`` (bool) and
    ``illegal``. A finished game's info adds its ``scores`` (per side) and the learner's
    ``side``, its ``win`` (1, or the share of a tie), the ``hands`` played, the ``pressures``
    each side took and ``opponents`` (the lineup's name). With
    ``NEXT_STEP`` a finished game's slot returns its final observation, and the next ``step``
    ignores its action and starts the next game (reward 0); with ``SAME_STEP`` the slot already
    holds the next game and ``infos["final_obs"]``, ``infos["final_info"]`` hold the finished
    one's (as Gymnasium's ``SyncVectorEnv`` does).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        preset: str = "crates",
        num_players: int | None = None,
        learner_seat: int | str = 0,
        opponents: Opponent | Sequence[Opponent | None] | None = None,
        partner_is_learner: bool = True,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        *,
        engine: str = "auto",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seating: Seating | None = None,
        hidden_state: bool = False,
        shaping: Shaping | None = None,
        observation: str = SEAT_LAYOUT,
        **env_kwargs: Any,
    ) -> None:
        if int_value(num_envs) is None or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        if render_mode is not None:
            raise ValueError(
                f"CratesVectorEnv does not render (render_mode={render_mode!r}); render one "
                "game with gym.make('Crates-v0', render_mode='ansi')"
            )
        self.illegal_action = one_of("illegal_action", illegal_action, ("penalize", "raise"))
        self.illegal_reward = finite_number("illegal_reward", illegal_reward)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        one_of("engine", engine, ENGINES)
        self.hidden_state, self.shaping = bool(hidden_state), shaping
        if self.hidden_state or shaping is not None:  # they read the reference engine's games
            if engine == "vector":
                raise ValueError(
                    "engine='vector' cannot give hidden_state or shaping: they read the "
                    "reference engine's games"
                )
            engine = "reference"
        self.games = game_batch(
            int(num_envs),
            engine,
            preset=preset,
            num_players=num_players,
            autoreset=False,
            **env_kwargs,
        )
        self.rules = self.games.rules
        # the games write the seat layout, which the opponents read; the learner's is widened
        self.observer = make_observer(self.rules, observation)
        self.num_envs = int(num_envs)
        n = self.rules.num_players
        self.seating = seating or TableSeating(
            n, self.rules.side_of, learner_seat, opponents, partner_is_learner
        )
        self.single_observation_space = self._observation_space()
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        b = self.num_envs
        self._learner = np.zeros((b, n), dtype=bool)  # [game, seat]: the learner plays it
        self._seat = np.zeros(b, dtype=np.int64)  # the learner's seat (its side's first)
        self._lineups: list[Lineup | None] = [None] * b
        self._random = np.zeros(b, dtype=bool)  # the game's opponents play at random
        self._random_rng = np.random.default_rng()
        self._pending = np.zeros(b)  # the learner's reward since its last decision
        self._potential = np.zeros(b)  # the shaping potential at that decision
        self._to_reset = np.zeros(b, dtype=bool)  # NEXT_STEP: finished, restarted at next step
        self._masks = np.zeros((b, NUM_ACTIONS), dtype=bool)  # of the decisions awaited
        self._started = False
        self._team_of_seat = np.array([self.rules.team_of(s) for s in range(n)])
        # what a game has scored before its first hand, and at the learner's last decision
        self._initial_scores = np.tile(np.asarray(self.rules.initial_scores), (b, 1))
        self._no_hands = np.zeros(b, dtype=np.int64)
        self._no_games = np.zeros(b, dtype=bool)
        self._all = np.ones(b, dtype=bool)
        self._scores, self._hands = self._initial_scores, self._no_hands

    def _observation_space(self) -> spaces.Box:
        observer = self.observer
        public = spaces.Box(observer.low, observer.high, dtype=np.float32)
        return with_hidden_space(public, observer.hidden_size) if self.hidden_state else public

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot: slot ``i``'s from seed ``seed + i``, as a single env's
        ``reset(seed=seed + i)``; None goes on drawing from the streams already seeded (fresh
        entropy the first time). ``options`` are not taken (a stacked deal is the single
        env's)."""
        if seed is not None and (int_value(seed) is None or seed < 0):
            raise ValueError(f"seed must be an int >= 0 or None, not {seed!r}")
        if options:
            raise ValueError(
                f"CratesVectorEnv.reset takes no options (got {sorted(options)}); stack a deal "
                "with the single env, gym.make('Crates-v0')"
            )
        seed = None if seed is None else int(seed)  # gymnasium takes Python ints only
        super().reset(seed=seed)
        self.seating.reset(seed, self.num_envs)
        if seed is not None:  # None goes on with the streams
            self._random_rng = np.random.default_rng([seed, 1])
        self._to_reset[:] = False
        self._start_live(np.arange(self.num_envs))
        self._started = True
        infos = self._infos(self._initial_scores, self._no_hands, self._no_games)
        self._mark_decision()
        return self._observe(), infos

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise ValueError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} ints (one per game), not {actions.dtype} of "
                f"shape {actions.shape}"
            )
        restarting = self._to_reset.copy()
        moving, illegal = self._legal(actions, ~restarting)
        rewards, _ = self.games.step(np.where(moving, actions, 0), active=moving)
        self._collect(rewards)
        self._advance()
        out = self._pending.copy()
        self._pending[:] = 0.0
        shaping = self._shaping_potential()
        if shaping is not None:
            out[moving] += shaping[moving] - self._potential[moving]
            self._potential[moving] = shaping[moving]
        out[illegal] = self.illegal_reward
        over = moving & self.games.game_over
        truncated = over & self.games.truncated
        infos = self._infos(self._scores, self._hands, illegal)
        infos.update(self._final_infos(over))
        obs = self._observe()
        if over.any():
            obs[over] = self._observe(seats=self._seat)[over]  # the learner's own final view
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                infos = self._same_step_reset(over, obs, infos)
            else:
                self._to_reset |= over
        if restarting.any():  # NEXT_STEP: the games that ended on the last step give way
            self._to_reset[restarting] = False
            self._fresh(restarting, obs, infos)
            out[restarting] = 0.0
        self._mark_decision()
        return obs, out, over & ~truncated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool ``[num_envs, 63]``: the legal actions of each game's pending decision (none in
        a finished game awaiting its restart)."""
        masks = self.games.legal_mask().astype(bool)
        masks[self._to_reset] = False
        return masks

    def close_extras(self, **kwargs: Any) -> None:
        self._started = False

    def _legal(self, actions: np.ndarray, playing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which games move (``playing`` and a legal action) and which refuse an illegal one
        (``illegal_action="raise"``: a ValueError naming the first); the masks are the ones
        the last step or reset returned."""
        masks = self._masks
        inside = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = np.zeros(self.num_envs, dtype=bool)
        legal[inside] = masks[inside, actions[inside]]
        illegal = playing & ~legal
        if illegal.any() and self.illegal_action == "raise":
            i = int(np.flatnonzero(illegal)[0])
            allowed = ", ".join(str(a) for a in np.flatnonzero(masks[i]))
            raise ValueError(f"game {i}: illegal action {actions[i]}; legal: {allowed}")
        return playing & legal, illegal

    # ------------------------------------------------------------------ games
    def _start_live(self, slots: np.ndarray) -> None:
        """New games in ``slots``, played until the learner decides; a game that ends before
        (possible only in very short schedules) holds nothing to learn and the next is dealt.
        What the opponents' moves paid the learner meanwhile comes with its first step."""
        started = slots
        for _ in range(FIRST_DECISION_TRIES):
            if not slots.size:
                break
            self._new_games(slots)
            self._advance(slots)
            slots = slots[self.games.game_over[slots]]
        else:
            raise RuntimeError("1,000 games in a row ended before the learner's first decision")
        shaping = self._shaping_potential()
        if shaping is not None:
            self._potential[started] = shaping[started]

    def _new_games(self, slots: np.ndarray) -> None:
        lineups = [self.seating.new_game(int(i)) for i in slots]
        self.games.reset_as_env([lineup.deal for lineup in lineups], slots)
        for i, lineup in zip(slots, lineups, strict=True):
            self._lineups[i] = lineup
            self._learner[i] = False
            self._learner[i, list(lineup.learner)] = True
            self._seat[i] = lineup.seat
            self._random[i] = lineup.who == RANDOM
        self._pending[slots] = 0.0

    def _advance(self, slots: np.ndarray | None = None) -> None:
        """Play the opponents of ``slots`` (default: every game) until each game waits for the
        learner or is over: random seats in one call, the others a round at a time, the
        waiting games of each lineup name together."""
        games, b = self.games, self.num_envs
        within = np.ones(b, dtype=bool)
        if slots is not None:
            within[:] = False
            within[slots] = True
        randoms = np.flatnonzero(within & self._random)
        if randoms.size:
            seats = ~self._learner & self._random[:, None]
            among = None if randoms.size == b else randoms  # every game: nothing to check
            self._pending += games.play_random_seats(seats, self._seat, self._random_rng, among)
        while True:
            to_play = games.to_play
            waiting = within & ~games.game_over & ~self._learner[np.arange(b), to_play]
            if not waiting.any():
                return
            masks, observations = games.legal_mask().astype(bool), games.observe()
            actions = np.zeros(b, dtype=np.int64)
            groups: dict[str, list[int]] = {}
            for i in np.flatnonzero(waiting):
                groups.setdefault(self._lineups[i].who, []).append(int(i))
            for who, members in groups.items():
                rows = np.asarray(members)
                seated = [self._lineups[i].agents for i in members]
                agents = (
                    None
                    if seated[0] is None
                    else [agents[to_play[i]] for agents, i in zip(seated, members, strict=True)]
                )
                chosen = self.seating.act(who, agents, observations[rows], masks[rows], games, rows)
                actions[rows] = chosen
            rewards, _ = games.step(actions, active=waiting)
            self._collect(rewards)

    def _collect(self, rewards: np.ndarray) -> None:
        """Add the learner's reward (its seat's) of one step of the games."""
        self._pending += rewards[np.arange(self.num_envs), self._seat]

    def _fresh(self, slots: np.ndarray, obs: np.ndarray, infos: dict[str, Any]) -> None:
        """New games in the (finished) games of ``slots``: their rows of ``obs`` and of the
        infos every game has become the new games' first ones."""
        rows = np.flatnonzero(slots)
        self._start_live(rows)
        obs[rows] = self._observe()[rows]
        fresh = self._infos(self._initial_scores, self._no_hands, self._no_games)
        for key in fresh:
            infos[key][rows] = fresh[key][rows]

    def _same_step_reset(self, over: np.ndarray, obs: np.ndarray, infos: dict) -> dict:
        """SAME_STEP: the finished games' slots take new games at once; the finished ones'
        observations and infos go to ``final_obs`` and ``final_info``."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(over):
            final_obs[i] = obs[i].copy()
        final_info = {  # as Gymnasium's vector envs gather them: only the finished games'
            key: _rows_only(value, over & infos[f"_{key}"])
            for key, value in infos.items()
            if not key.startswith("_") and (over & infos[f"_{key}"]).any()
        }
        final_info.update({f"_{key}": over & infos[f"_{key}"] for key in list(final_info)})
        infos = {key: value for key, value in infos.items() if key.lstrip("_") in STEP_INFOS}
        self._fresh(over, obs, infos)
        infos.update(
            final_obs=final_obs,
            _final_obs=over.copy(),
            final_info=final_info,
            _final_info=over.copy(),
        )
        return infos

    def _mark_decision(self) -> None:
        """Every game waits for the learner: what it has scored by now, for the next infos."""
        self._scores, self._hands = self.games.scores, self.games.hands_played

    # ------------------------------------------------------------------ what the learner sees
    def _observe(self, seats: np.ndarray | None = None) -> np.ndarray:
        """The learner's observation in every game (of ``seats[i]``; default the seat to
        play), with ``hidden_state`` what that seat cannot see after it."""
        public = self.observer.widen(self.games.observe(seats))
        if not self.hidden_state:
            return public
        games: ReferenceGames = self.games
        hidden = games.observe_hidden(games.to_play if seats is None else seats)
        return np.concatenate([public, hidden], axis=1)

    def _shaping_potential(self) -> np.ndarray | None:
        """Per game, the ``shaping`` potential for the learner's side, whose change is added to
        the learner's reward at each of its steps; None: no shaping."""
        if self.shaping is None:
            return None
        out = np.zeros(self.num_envs)
        for i in range(self.num_envs):
            seat = int(self._seat[i])
            view = self.games.game(i).view(seat)
            out[i] = self.shaping.potential(view, self.rules.team_of(seat))
        return out

    def _infos(self, scores: np.ndarray, hands: np.ndarray, illegal: np.ndarray) -> dict:
        """Every game's info: the hands finished since ``scores`` and ``hands`` (the learner's
        last decision's), the learner's seat, its next mask, ``illegal``."""
        now, played = self.games.scores, self.games.hands_played
        ended = (played - hands).astype(np.int64)
        points = (now - scores)[:, self._team_of_seat].astype(np.float64)
        ended_by, went_out = self.games.last_hands()
        self._masks = self.action_masks()
        infos = {
            "seat": self._seat.copy(),
            "hands_ended": ended,
            "hand_points": points,
            "ended_by": np.where(ended > 0, ended_by, 0),
            "went_out": np.where(ended > 0, went_out, -1),
            "action_mask": self._masks.copy(),
        }
        # as the single env: only a refused step's info says so
        return {
            **_with_masks(infos, self._all),
            "illegal": illegal.copy(),
            "_illegal": illegal.copy(),
        }

    def _final_infos(self, over: np.ndarray) -> dict:
        """What a finished game adds to its info: the scores per side, each side's standing
        (larger is better, ``GameBatch.standings``), the learner's side, its win (1, or its
        share of a tie), the hands played, the pressures each side took and its opponents'
        name."""
        if not over.any():
            return {}
        side = np.where(over, self._team_of_seat[self._seat], 0)
        win = np.zeros(self.num_envs)
        opponents = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(over):
            winners = self.games.winners(int(i))
            win[i] = 1 / len(winners) if side[i] in winners else 0.0
            opponents[i] = self._lineups[i].who
        final = {
            "scores": np.where(over[:, None], self.games.scores, 0),
            "standings": np.where(over[:, None], self.games.standings, 0.0),
            "side": side,
            "win": win,
            "hands": np.where(over, self.games.hands_played, 0).astype(np.int64),
            "pressures": np.where(over[:, None], self.games.pressures_taken, 0),
            "opponents": opponents,
        }
        return _with_masks(final, over)


def with_hidden_space(public: spaces.Box, hidden: int) -> spaces.Box:
    """``public`` followed by ``hidden`` card counts, within the public vector's bounds."""
    return spaces.Box(
        np.concatenate([public.low, np.zeros(hidden, dtype=np.float32)]),
        np.concatenate([public.high, np.full(hidden, public.high.max(), dtype=np.float32)]),
        dtype=np.float32,
    )


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    valid = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    for choice in valid:
        if mode == choice or mode == choice.value:
            return choice
    names = ", ".join(f"AutoresetMode.{m.name}" for m in valid)
    raise ValueError(f"autoreset_mode={mode!r} is not valid; use one of {names}")


def _with_masks(infos: dict[str, Any], rows: np.ndarray) -> dict[str, Any]:
    """Gymnasium's vector infos: each key's array, and ``_key`` saying which games have it."""
    return {**infos, **{f"_{key}": rows.copy() for key in infos}}


def _rows_only(value: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``value`` with the rows outside ``rows`` blanked (zeros, None)."""
    out = np.zeros_like(value) if value.dtype != object else np.full(len(value), None, object)
    out[rows] = value[rows]
    return out


__all__ = [
    "RANDOM",
    "BatchOpponent",
    "CratesVectorEnv",
    "Lineup",
    "Seating",
    "Shaping",
    "TableSeating",
    "with_hidden_space",
]

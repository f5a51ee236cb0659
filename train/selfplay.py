"""Self-play games: a batch of games seen from the learner's seats (``make_batch``), on the
compiled engine or the reference one; ``train.vec_env.SelfPlayVecEnv`` runs batches of them in
worker processes as SB3's VecEnv, and the warm start collects its demonstrations from one.

The games are the Gymnasium vector env's (``crates_env.vector_env.CratesVectorEnv``, here
``SelfPlayEnv``): it steps them, plays the opponents and pays the learner; this module brings
who sits where (``PoolSeating``) and what SB3 reads (``SelfPlayBatch``), no stepping of its own.

In every game the learner plays one seat (and its partner's in a partnership game); the other
seats are played by one opponent drawn from the pool at the start of the game: a scripted agent
or a frozen snapshot of the learner. Opponents' moves are gathered across all games of the batch:
random players all in one compiled call, a snapshot's pending moves in one batched forward pass,
scripted agents a kind at a time (``agents.decide_batch``), so self-play does not throttle
training.

The learner's reward for a step is its side's reward (from the AEC environment) for everything
that happened until its next decision, so hands that end on an opponent's move count.

With ``LearnerSpec(privileged=True)`` the learner's observations (and its snapshots') carry the
hidden state after the public vector, for a critic that reads it (``agents.networks``); scripted
opponents see the public vector only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from agents import Table, make_agent
from agents.base import decide_batch
from crates_env.engine_choice import compiled_refusal
from crates_env.env import raw_env
from crates_env.vector_env import RANDOM, CratesVectorEnv, Lineup
from train.metrics import game_summary_of_final
from train.shaping import PressureShaping


@dataclass
class PoolSpec:
    """Who the learner meets: scripted agents and snapshots, with sampling weights."""

    scripted: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_weight: float = 0.0  # total weight of the snapshots, shared equally
    max_snapshots: int = 5


@dataclass(frozen=True)
class LearnerSpec:
    """What the learner is fed: the reward it trains on and what its network sees."""

    reward_transform: str = "none"  # "symlog": sign(r) * log1p(|r|), tames doubling pressures
    shaping: PressureShaping | None = None  # pressures charged their cost to the game
    privileged: bool = False  # the hidden state appended to its observations (critic only)

    def reward(self, reward: float) -> float:
        """The reward the learner trains on (``reward_transform``)."""
        return float(self.rewards(np.asarray(reward)))

    def rewards(self, rewards: np.ndarray) -> np.ndarray:
        """``reward`` of each of ``rewards``."""
        if self.reward_transform == "symlog":
            return np.sign(rewards) * np.log1p(np.abs(rewards))
        return np.asarray(rewards)


def opponent_odds(
    scripted: dict[str, float], snapshot_weight: float, snapshots: Sequence[str]
) -> tuple[list[str], np.ndarray]:
    """The opponents a new game may draw and the probability of each: the scripted agents by
    their weights, the snapshots sharing ``snapshot_weight`` equally (on either backend)."""
    names = list(scripted)
    weights = [scripted[n] for n in names]
    if snapshots and snapshot_weight > 0:
        names += list(snapshots)
        weights += [snapshot_weight / len(snapshots)] * len(snapshots)
    p = np.asarray(weights, dtype=float)
    return names, p / p.sum()


class OpponentPool:
    """Scripted agents and frozen policy snapshots (worker side)."""

    def __init__(self, spec: PoolSpec, table: Table, policy_factory, seed: int) -> None:
        self.spec = spec
        self.table = table
        self.policy_factory = policy_factory
        self.rng = np.random.default_rng(seed)
        self.snapshots: list[Any] = []  # policies, oldest first

    def add_snapshot(self, state_dict: dict) -> None:
        policy = self.policy_factory()
        policy.load_state_dict(state_dict)
        policy.set_training_mode(False)
        self.snapshots.append(policy)
        del self.snapshots[: -self.spec.max_snapshots]

    def draw(self) -> str:
        """An opponent for a new game: a scripted name or ``"snapshot:<i>"``."""
        snapshots = [f"snapshot:{i}" for i in range(len(self.snapshots))]
        names, p = opponent_odds(self.spec.scripted, self.spec.snapshot_weight, snapshots)
        return names[int(self.rng.choice(len(names), p=p))]

    def act_batch(
        self, who: str, agents: list[Any] | None, obs: np.ndarray, masks: np.ndarray, games=None
    ):
        """Actions for a group of pending moves by the same opponent: a snapshot's in one
        forward pass, scripted agents' a kind at a time (``agents.decide_batch``; ``games``:
        their games, for an agent that looks ahead in them)."""
        if who.startswith("snapshot:"):
            policy = self.snapshots[int(who.split(":")[1])]
            actions, _ = policy.predict(obs, action_masks=masks, deterministic=False)
            return np.asarray(actions, dtype=np.int64)
        return decide_batch(agents, obs, masks, games)


def learner_seats(rules, seed: int) -> set[int]:
    """The seats the learner plays in the game of ``seed``: one, and its partner's."""
    return set(rules.side_of(seed % rules.num_players))


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seeds of ``workers`` batches of games run from one run seed."""
    return [int(ss.generate_state(1)[0]) for ss in np.random.SeedSequence(seed).spawn(workers)]


def new_game_seed(seed_seq: np.random.SeedSequence) -> int:
    return int(seed_seq.spawn(1)[0].generate_state(1)[0])


class PoolSeating:
    """Self-play's seating (``crates_env.vector_env.Seating``): each new game's seed from the
    worker's seed sequence, the learner at the side of ``seed % players``, its opponents drawn
    from the pool (a scripted agent at every other seat, seeded by the game and seat, or a
    snapshot)."""

    def __init__(self, pool: OpponentPool, privileged: bool) -> None:
        self.pool, self.privileged = pool, privileged
        self.rules = pool.table.rules
        self.seed_seq = np.random.SeedSequence()

    def reset(self, seed: int | None, num_envs: int) -> None:
        if seed is not None:
            self.seed_seq = np.random.SeedSequence(seed)

    def new_game(self, slot: int) -> Lineup:
        seed = new_game_seed(self.seed_seq)
        seats = tuple(sorted(learner_seats(self.rules, seed)))
        who = self.pool.draw()
        agents = None
        if who != RANDOM and not who.startswith("snapshot:"):
            n = self.rules.num_players
            agents = tuple(make_agent(who, self.pool.table, seed=seed + s) for s in range(n))
        return Lineup(np.random.default_rng(seed), seats[0], seats, who, agents)

    def act(self, who, agents, observations, masks, games, rows) -> np.ndarray:
        """A snapshot reads the learner's view (the hidden state after the public vector with
        the privileged critic); a searching agent looks ahead in its reference game."""
        if who.startswith("snapshot:") and self.privileged:
            hidden = games.observe_hidden(games.to_play)[rows]
            observations = np.concatenate([observations, hidden], axis=1)
        ahead = agents is not None and any(a.looks_ahead for a in agents)
        in_play = [games.game(int(i)) for i in rows] if ahead else None
        return self.pool.act_batch(who, agents, observations, masks, in_play)


class SelfPlayEnv(CratesVectorEnv):
    """The learner's self-play games as the vector env (``CratesVectorEnv``, same-step
    autoreset) with self-play's seating, plus what ``learner`` asks of the learner's side:
    the hidden state after each observation (``privileged``) and pressure shaping, both read
    from the reference engine's games."""

    def __init__(
        self,
        count: int,
        env_kwargs: dict,
        pool: OpponentPool,
        learner: LearnerSpec,
        engine: str = "auto",
    ) -> None:
        self.spec = learner
        super().__init__(
            count,
            seating=PoolSeating(pool, learner.privileged),
            engine=engine,
            autoreset_mode=AutoresetMode.SAME_STEP,
            **env_kwargs,
        )

    def _observation_space(self) -> spaces.Box:
        public = super()._observation_space()
        if not self.spec.privileged:
            return public
        return privileged_space(public, self.games.observer.hidden_size)

    def _observe(self, seats: np.ndarray | None = None) -> np.ndarray:
        public = super()._observe(seats)
        if not self.spec.privileged:
            return public
        hidden = self.games.observe_hidden(self.games.to_play if seats is None else seats)
        return np.concatenate([public, hidden], axis=1)

    def _shaping_potential(self) -> np.ndarray | None:
        """The pressure-shaping potential of every game for the learner's side."""
        shaping = self.spec.shaping
        if shaping is None:
            return None
        out = np.zeros(self.num_envs)
        for i in range(self.num_envs):
            seat = int(self._seat[i])
            out[i] = shaping.potential(self.games.game(i).view(seat), self.rules.team_of(seat))
        return out


class SelfPlayBatch:
    """A worker's self-play games as SB3's VecEnv steps them (``train.vec_env``): ``reset() ->
    (observations, masks)``, ``step(actions) -> (observations, rewards, dones, infos, masks)``
    with the learner's reward transform applied and, for a finished game, SB3's
    ``terminal_observation``, the episode's return and length and the game's summary
    (``train.metrics.game_summary_of_final``). The stepping itself is the vector env's."""

    def __init__(
        self,
        count: int,
        env_kwargs: dict,
        pool_spec: PoolSpec,
        learner: LearnerSpec,
        policy_factory,
        seed: int,
        engine: str = "auto",
    ) -> None:
        table = Table.from_rules(raw_env(**env_kwargs).rules)
        self.pool = OpponentPool(pool_spec, table, policy_factory, seed)
        self.env = SelfPlayEnv(count, env_kwargs, self.pool, learner, engine)
        self.spec, self.seed = learner, seed
        self.returns = np.zeros(count)
        self.lengths = np.zeros(count, dtype=np.int64)
        self._seeded = False

    @property
    def games(self):
        """The batch of games (``crates_env.batch``) the env plays."""
        return self.env.games

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        obs, infos = self.env.reset(seed=None if self._seeded else self.seed)
        self._seeded = True
        self.returns[:], self.lengths[:] = 0.0, 0
        return obs, infos["action_mask"]

    def step(self, actions: Sequence[int]):
        obs, rewards, terminated, truncated, infos = self.env.step(np.asarray(actions))
        out = self.spec.rewards(rewards).astype(np.float32)
        self.returns += out
        self.lengths += 1
        dones = terminated | truncated
        sb3_infos: list[dict] = [{} for _ in range(len(dones))]
        for i in np.flatnonzero(dones):
            final = {key: value[i] for key, value in infos["final_info"].items()}
            game = game_summary_of_final(final)
            episode = (float(self.returns[i]), int(self.lengths[i]))
            sb3_infos[i] = final_info(infos["final_obs"][i], bool(truncated[i]), episode, game)
            self.returns[i], self.lengths[i] = 0.0, 0
        return obs, out, dones, sb3_infos, infos["action_mask"]


def final_info(
    terminal: np.ndarray, truncated: bool, episode: tuple[float, int], game: dict[str, Any]
) -> dict:
    """The info SB3 and the training callbacks read when a game ends (``game``: its
    ``game_summary``)."""
    return {
        "terminal_observation": terminal,
        "TimeLimit.truncated": bool(truncated),
        "episode": {"r": episode[0] + 0.0, "l": episode[1]},
        "game": game,
    }


def make_batch(
    count: int,
    env_kwargs: dict,
    pool_spec: PoolSpec,
    learner: LearnerSpec,
    policy_factory,
    seed,
    engine: str = "auto",
) -> SelfPlayBatch:
    """The games of one worker, on the compiled engine where it plays the table and the run
    (``engine``: "auto", "vector" to insist, "reference" for the Python engine)."""
    shaped = learner.shaping is not None
    searching = "search" in pool_spec.scripted
    why = vector_refusal(env_kwargs, shaped, learner.privileged, searching)
    if engine == "vector" and why:
        raise ValueError(f"engine='vector' cannot train this run: {why}")
    engine = "reference" if engine == "reference" or why else "vector"
    return SelfPlayBatch(count, env_kwargs, pool_spec, learner, policy_factory, seed, engine)


def vector_refusal(env_kwargs: dict, shaped: bool, privileged: bool, searching: bool) -> str:
    """Why the compiled engine cannot play this run ("" when it can)."""
    if searching:
        return "a search opponent looks ahead in the reference engine's games"
    if privileged:
        return "the privileged critic reads the reference engine's hidden state"
    if shaped:
        return "pressure shaping reads the reference engine's view"
    return compiled_refusal(raw_env(**env_kwargs).rules)


def observation_space_of(env_kwargs: dict, privileged: bool = False) -> spaces.Box:
    """The learner's observation space: the environment's, plus the hidden state if
    ``privileged`` (card counts, within the public vector's bounds)."""
    probe = raw_env(**env_kwargs)
    public = probe.observation_space(probe.possible_agents[0])["observation"]
    return privileged_space(public, probe.observer.hidden_size) if privileged else public


def privileged_space(public: spaces.Box, hidden: int) -> spaces.Box:
    """``public`` followed by ``hidden`` card counts, within the public vector's bounds."""
    return spaces.Box(
        np.concatenate([public.low, np.zeros(hidden, dtype=np.float32)]),
        np.concatenate([public.high, np.full(hidden, public.high.max(), dtype=np.float32)]),
        dtype=np.float32,
    )

"""Self-play games for SB3: a worker's batch of games seen from the learner's seats
(``make_batch``, ``SelfPlayBatch``), on the compiled engine or the reference one;
``train.vec_env.SelfPlayVecEnv`` runs batches of them in worker processes as SB3's VecEnv, and
the warm start collects its demonstrations from one.

The games are the Gymnasium vector env's (``crates_env.vector_env.CratesVectorEnv``, with
same-step autoreset): it steps them, plays the opponents and pays the learner. Who sits where
is self-play's seating (``train.opponents.PoolSeating``); this module brings what the learner is
fed (``LearnerSpec``) and what SB3 reads (``SelfPlayBatch``), no stepping of its own.

In every game the learner plays one seat (and its partner's in a partnership game); the other
seats are played by one opponent drawn from the pool at the start of the game: a scripted agent
or a frozen snapshot of the learner. Opponents' moves are gathered across all games of the batch
(``train.opponents``), so self-play does not throttle training.

The learner's reward for a step is its side's reward (from the AEC environment) for everything
that happened until its next decision, so hands that end on an opponent's move count.

With ``LearnerSpec(privileged=True)`` the learner's observations (and its snapshots') carry the
hidden state after the public vector (the vector env's ``hidden_state``), for a critic that
reads it (``agents.networks``); scripted opponents see the public vector only. Pressure shaping
(``LearnerSpec.shaping``) is the vector env's ``shaping``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from agents import Table
from crates_env.engine_choice import compiled_refusal
from crates_env.env import raw_env
from crates_env.vector_env import CratesVectorEnv, with_hidden_space
from train.duplicate import DuplicateSeating, duplicate_rewards
from train.metrics import game_summary_of_final
from train.opponents import OpponentPool, PoolSeating, PoolSpec
from train.shaping import PressureShaping


@dataclass(frozen=True)
class LearnerSpec:
    """What the learner is fed: the reward it trains on and what its network sees."""

    reward_transform: str = "none"  # "symlog": sign(r) * log1p(|r|), tames doubling pressures
    shaping: PressureShaping | None = None  # pressures charged their cost to the game
    privileged: bool = False  # the hidden state appended to its observations (critic only)
    # paid only at a game's end, +1 / 0 / -1 as its side stood against the same deal played by
    # HeuristicAgent at every seat (train.duplicate), instead of the environment's rewards
    duplicate: bool = False
    # the environment's rewards less, hand by hand, what its side was paid for the same hands of
    # the same deal played by HeuristicAgent at every seat (train.duplicate): the cards' luck
    # taken out of the pay; only where every game has the same hands (a schedule)
    duplicate_hands: bool = False

    def reward(self, reward: float) -> float:
        """The reward the learner trains on (``reward_transform``)."""
        return float(self.rewards(np.asarray(reward)))

    def rewards(self, rewards: np.ndarray) -> np.ndarray:
        """``reward`` of each of ``rewards``."""
        if self.reward_transform == "symlog":
            return np.sign(rewards) * np.log1p(np.abs(rewards))
        return np.asarray(rewards)


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seeds of ``workers`` batches of games run from one run seed."""
    return [int(ss.generate_state(1)[0]) for ss in np.random.SeedSequence(seed).spawn(workers)]


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
        seating = (
            DuplicateSeating(self.pool, env_kwargs, engine, by_hand=learner.duplicate_hands)
            if learner.duplicate or learner.duplicate_hands
            else PoolSeating(self.pool, learner.privileged)
        )
        self.env = CratesVectorEnv(
            count,
            seating=seating,
            engine=engine,
            autoreset_mode=AutoresetMode.SAME_STEP,
            hidden_state=learner.privileged,
            shaping=learner.shaping,
            **env_kwargs,
        )
        seating.learner_view = self.env.observer  # the learner's snapshots read its layout
        self.spec, self.seed = learner, seed
        self.returns = np.zeros(count)
        self.lengths = np.zeros(count, dtype=np.int64)
        self._seeded = False

    @property
    def games(self):
        """The batch of games (``crates_env.batch.GameBatch``) the env plays."""
        return self.env.games

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every slot: from ``seed`` (every stream of the games, and of who is
        drawn to play them, started again), else from the batch's seed the first time and going
        on with the streams after that."""
        if seed is None and not self._seeded:
            seed = self.seed
        if seed is not None:  # who plays the new games: drawn from seed's stream too
            self.pool.reset(seed)
        obs, infos = self.env.reset(seed=seed)
        self._seeded = True
        self.returns[:], self.lengths[:] = 0.0, 0
        return obs, infos["action_mask"]

    def step(self, actions: Sequence[int]):
        deals = self._deals()  # the games now in play: the ones a finished game's reward is of
        obs, rewards, terminated, truncated, infos = self.env.step(np.asarray(actions))
        if deals is not None and self.spec.duplicate_hands:
            rewards = rewards - self._baseline_pay(deals, terminated | truncated, infos)
        elif deals is not None:
            rewards = self._duplicate_rewards(deals, terminated, infos)
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

    def _deals(self) -> list[int] | None:
        """The deal of each slot's game (duplicate rewards), else None."""
        seating = self.env.seating
        if not isinstance(seating, DuplicateSeating):
            return None
        return [seating.deal_of[i] for i in range(self.env.num_envs)]

    def _duplicate_rewards(self, deals: list[int], ended: np.ndarray, infos: dict) -> np.ndarray:
        """Nothing during a game; at its end (not a truncation) the sign of the learner's side's
        standing against that side's in the deal's baseline game (``train.duplicate``)."""
        seating: DuplicateSeating = self.env.seating
        out = np.zeros(self.env.num_envs)
        final = infos.get("final_info", {})
        for i in np.flatnonzero(ended):
            side = int(final["side"][i])
            mine = final["standings"][i][side]
            out[i] = duplicate_rewards(mine, seating.baseline(deals[i])[side])
        return out

    def _baseline_pay(self, deals: list[int], over: np.ndarray, infos: dict) -> np.ndarray:
        """Per slot, what the learner's seat was paid in its deal's baseline game for the hands
        its own game ended on this step (``train.duplicate``)."""
        seating: DuplicateSeating = self.env.seating
        ended, played = np.array(infos["hands_ended"]), np.array(self.games.hands_played)
        seats = np.array(infos["seat"])
        if over.any():  # a finished game's slot holds a new game: its infos are the final ones
            final = infos["final_info"]
            ended[over], played[over], seats[over] = (
                final[key][over] for key in ("hands_ended", "hands", "seat")
            )
        out = np.zeros(self.env.num_envs)
        for i in np.flatnonzero(ended):
            hands = range(int(played[i] - ended[i]), int(played[i]))
            out[i] = seating.paid(deals[i], int(seats[i]), hands)
        for i in np.flatnonzero(over):
            seating.forget(deals[i])
        return out


class TableMix:
    """The self-play games of several tables in one worker, stepped as one batch: each table's
    games (a ``SelfPlayBatch``) in rows of their own, in order, every observation in the one
    layout of the mixture (``observation="table"``). What SB3 reads is ``SelfPlayBatch``'s."""

    def __init__(self, batches: Sequence[SelfPlayBatch]) -> None:
        self.batches = list(batches)
        self._ends = np.cumsum([b.env.num_envs for b in self.batches])[:-1]

    def reset(self, seeds: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every table's slots (``SelfPlayBatch.reset``), from ``seeds[i]`` at
        table ``i`` if given."""
        seeds = [None] * len(self.batches) if seeds is None else seeds
        parts = [b.reset(s) for b, s in zip(self.batches, seeds, strict=True)]
        return tuple(np.concatenate(part) for part in zip(*parts, strict=True))

    def step(self, actions: Sequence[int]):
        shares = np.split(np.asarray(actions), self._ends)
        parts = [b.step(a) for b, a in zip(self.batches, shares, strict=True)]
        obs, rewards, dones, infos, masks = zip(*parts, strict=True)
        infos = [info for part in infos for info in part]
        return (*(np.concatenate(p) for p in (obs, rewards, dones)), infos, np.concatenate(masks))

    def add_snapshot(self, state_dict: dict) -> None:
        """A frozen copy of the learner joins every table's pool (one copy, shared)."""
        policy = self.batches[0].pool.frozen(state_dict)
        for batch in self.batches:
            batch.pool.keep(policy)


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


def make_mix(
    groups: Sequence[tuple[int, dict, int]],
    pool_spec: PoolSpec,
    learner: LearnerSpec,
    policy_factory,
    engine: str = "auto",
) -> TableMix:
    """The games of one worker: ``groups`` of (games, env_kwargs, seed), one table each."""
    return TableMix(
        [
            make_batch(count, env_kwargs, pool_spec, learner, policy_factory, seed, engine)
            for count, env_kwargs, seed in groups
        ]
    )


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
    return with_hidden_space(public, probe.observer.hidden_size) if privileged else public

"""Self-play games: a batch of games seen from the learner's seats (``make_batch``), on the
compiled engine or the reference one; ``train.vec_env.SelfPlayVecEnv`` runs batches of them in
worker processes as SB3's VecEnv, and the warm start collects its demonstrations from one.

In every game the learner plays one seat (and its partner's in a partnership game); the other
seats are played by one opponent drawn from the pool at the start of the game: a scripted agent
or a frozen snapshot of the learner. Opponents' moves are gathered across all games of the batch
and a snapshot decides all of its pending moves in one batched forward pass, so self-play does
not throttle training.

The learner's reward for a step is its side's reward (from the AEC environment) for everything
that happened until its next decision, so hands that end on an opponent's move count.

With ``LearnerSpec(privileged=True)`` the learner's observations (and its snapshots') carry the
hidden state after the public vector, for a critic that reads it (``agents.networks``); scripted
opponents see the public vector only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from agents import Table, decide, make_agent
from crates_env.env import legal_mask, raw_env
from train.metrics import game_summary, game_summary_of
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
        if self.reward_transform == "symlog":
            return float(np.sign(reward) * np.log1p(abs(reward)))
        return reward


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

    def act_batch(self, who: str, agents: list[Any], obs: np.ndarray, masks: np.ndarray, envs=None):
        """Actions for a group of pending moves by the same opponent (``envs``: their games,
        for an agent that looks ahead in them)."""
        if who.startswith("snapshot:"):
            policy = self.snapshots[int(who.split(":")[1])]
            actions, _ = policy.predict(obs, action_masks=masks, deterministic=False)
            return [int(a) for a in actions]
        envs = envs or [None] * len(agents)
        return [decide(a, e, o, m) for a, e, o, m in zip(agents, envs, obs, masks, strict=True)]


def learner_seats(rules, seed: int) -> set[int]:
    """The seats the learner plays in the game of ``seed``: one, and its partner's."""
    return set(rules.side_of(seed % rules.num_players))


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seeds of ``workers`` batches of games run from one run seed."""
    return [int(ss.generate_state(1)[0]) for ss in np.random.SeedSequence(seed).spawn(workers)]


def new_game_seed(seed_seq: np.random.SeedSequence) -> int:
    return int(seed_seq.spawn(1)[0].generate_state(1)[0])


class GameBatch:
    """A batch of games seen from the learner's seats (worker side), on the reference engine."""

    def __init__(
        self,
        count: int,
        env_kwargs: dict,
        pool_spec: PoolSpec,
        learner: LearnerSpec,
        policy_factory,
        seed,
    ):
        self.envs = [raw_env(**env_kwargs) for _ in range(count)]
        self.spec = learner
        self.rules = self.envs[0].rules
        self.table = Table.from_env(self.envs[0])
        self.pool = OpponentPool(pool_spec, self.table, policy_factory, seed)
        self.seed_seq = np.random.SeedSequence(seed)
        self.opponent = [""] * count
        self.scripted: list[list[Any]] = [[] for _ in range(count)]
        self.learner: list[set[int]] = [set() for _ in range(count)]
        self.returns = [0.0] * count
        self.lengths = [0] * count
        self.pending_reward = [0.0] * count
        self.potential = [0.0] * count  # the shaping potential at the learner's last decision
        self._blank = np.zeros(self.envs[0].observer.size, dtype=np.float32)

    # -------------------------------------------------------------- episodes
    def _new_game(self, i: int) -> None:
        env = self.envs[i]
        seed = new_game_seed(self.seed_seq)
        env.reset(seed=seed)
        n = self.rules.num_players
        self.learner[i] = learner_seats(self.rules, seed)
        self.opponent[i] = self.pool.draw()
        self.scripted[i] = (
            []
            if self.opponent[i].startswith("snapshot:")
            else [make_agent(self.opponent[i], self.table, seed=seed + s) for s in range(n)]
        )
        self.returns[i] = 0.0
        self.lengths[i] = 0
        self.pending_reward[i] = 0.0

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        for i in range(len(self.envs)):
            self._new_game(i)
        self._advance()
        for i in range(len(self.envs)):
            self._deal_until_live(i)
        return self._observe_all()

    def _deal_until_live(self, i: int) -> None:
        """A game that ended before the learner's decision (tiny schedules) holds nothing to
        learn: deal the next one. The learner's episode starts from the live game's potential."""
        for _ in range(1000):
            if not self.envs[i].game.game_over:
                self.potential[i] = self._potential(i)
                return
            self._new_game(i)
            self._advance([i])
        raise RuntimeError("1,000 games in a row ended before the learner's first decision")

    def step(self, actions: Sequence[int]):
        rewards = np.zeros(len(self.envs), dtype=np.float32)
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            me = self._learner_agent(i)
            env.step(int(action))
            self.pending_reward[i] += env.rewards[me]
        self._advance()
        dones = np.zeros(len(self.envs), dtype=bool)
        infos: list[dict] = [{} for _ in self.envs]
        shaping = self.spec.shaping
        for i, env in enumerate(self.envs):
            reward = self.pending_reward[i]
            if shaping is not None:
                now = self._potential(i)
                reward += now - self.potential[i]
                self.potential[i] = now
            rewards[i] = self.spec.reward(reward)
            self.pending_reward[i] = 0.0
            self.returns[i] += float(rewards[i])
            self.lengths[i] += 1
            if env.game.game_over:
                dones[i] = True
                infos[i] = self._final_info(i)
                self._deal_until_live(i)
        obs, masks = self._observe_all()
        return obs, rewards, dones, infos, masks

    def _final_info(self, i: int) -> dict:
        env = self.envs[i]
        g = env.game
        seat = min(self.learner[i])
        return final_info(
            self._learner_view(env, seat),
            g.truncated,
            (self.returns[i], self.lengths[i]),
            game_summary_of(g, self.rules.team_of(seat), self.opponent[i]),
        )

    def _potential(self, i: int) -> float:
        """The pressure-shaping potential of game ``i`` for the learner's side (0 unshaped)."""
        shaping = self.spec.shaping
        if shaping is None:
            return 0.0
        seat = min(self.learner[i])
        return shaping.potential(self.envs[i].game.view(seat), self.rules.team_of(seat))

    # -------------------------------------------------------------- opponents
    def _learner_agent(self, i: int) -> str:
        env = self.envs[i]
        return env.possible_agents[min(self.learner[i])]

    def _advance(self, games: Sequence[int] | None = None) -> None:
        """Play the opponents of ``games`` (default: all), batched by opponent, until every one
        of those games waits for the learner or is over."""
        games = range(len(self.envs)) if games is None else games
        while True:
            waiting = [i for i in games if self._opponent_to_play(i)]
            if not waiting:
                return
            self._play_group(waiting)

    def _opponent_to_play(self, i: int) -> bool:
        g = self.envs[i].game
        return not g.game_over and g.to_play not in self.learner[i]

    def _play_group(self, games: list[int]) -> None:
        groups: dict[str, list[int]] = defaultdict(list)
        for i in games:
            groups[self.opponent[i]].append(i)
        for who, members in groups.items():
            obs, masks, agents = [], [], []
            for i in members:
                env = self.envs[i]
                seat = env.game.to_play
                agent = self.scripted[i][seat] if self.scripted[i] else None
                obs.append(self._opponent_view(env, seat, agent))
                masks.append(legal_mask(env.game).astype(bool))
                agents.append(agent)
            envs = [self.envs[i] for i in members]
            actions = self.pool.act_batch(who, agents, np.stack(obs), np.stack(masks), envs)
            for i, action in zip(members, actions, strict=True):
                env = self.envs[i]
                env.step(action)
                self.pending_reward[i] += env.rewards[self._learner_agent(i)]

    def _opponent_view(self, env, seat: int, agent) -> np.ndarray:
        """One encoding per move: a snapshot reads the learner's view, a scripted agent the
        public vector, an agent that decides from the mask alone nothing (zeros)."""
        if agent is None:
            return self._learner_view(env, seat)
        if not getattr(agent, "reads_observation", True):
            return self._blank
        return env.observer.encode(env.game.view(seat))

    def _observe_all(self) -> tuple[np.ndarray, np.ndarray]:
        obs, masks = [], []
        for env in self.envs:
            seat = env.game.to_play
            masks.append(legal_mask(env.game).astype(bool))
            obs.append(self._learner_view(env, seat))
        return np.stack(obs), np.stack(masks)

    def _learner_view(self, env, seat: int) -> np.ndarray:
        """What the learner's network is fed: the public vector, then the hidden state."""
        public = env.observer.encode(env.game.view(seat))
        if not self.spec.privileged:
            return public
        return np.concatenate([public, env.observer.encode_hidden(env.game, seat)])


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


class VectorBatch:
    """A batch of games seen from the learner's seats, on the compiled engine
    (``crates_env.vector.VectorGame``): the opponents' moves of all games are made a few batched
    calls at a time (random players all in one compiled call, each snapshot in one forward pass
    a round, scripted agents from the same observation vectors).

    The same games, seeds, learner seats and rewards as :class:`GameBatch` (a differential test
    holds the two batches equal step by step), without pressure shaping or the privileged
    critic, which read the reference engine's state."""

    def __init__(
        self,
        count: int,
        env_kwargs: dict,
        pool_spec: PoolSpec,
        learner: LearnerSpec,
        policy_factory,
        seed,
    ):
        from crates_env.vector import VectorGame

        self.spec = learner

        self.vg = VectorGame(count, autoreset=False, **env_kwargs)
        self.rules = self.vg.rules
        self.table = Table.from_rules(self.rules)
        self.pool = OpponentPool(pool_spec, self.table, policy_factory, seed)
        self.seed_seq = np.random.SeedSequence(seed)
        self.rng = np.random.default_rng([seed, 1])  # random opponents' moves
        n = self.rules.num_players
        self.opponent = [""] * count
        self.scripted: list[list[Any]] = [[] for _ in range(count)]
        self.learner = np.zeros((count, n), dtype=bool)  # [game, seat]: the learner plays it
        self.seat = np.zeros(count, dtype=np.int64)  # the learner's first seat (its side's)
        self.returns = np.zeros(count)
        self.lengths = np.zeros(count, dtype=np.int64)
        self.pending_reward = np.zeros(count)

    def _new_games(self, games: np.ndarray) -> None:
        seeds = [new_game_seed(self.seed_seq) for _ in games]
        self.vg.start_as_env(games, seeds)  # the games GameBatch deals for these seeds
        for i, seed in zip(games, seeds, strict=True):
            seats = learner_seats(self.rules, seed)
            self.learner[i] = False
            self.learner[i, list(seats)] = True
            self.seat[i] = min(seats)
            self.opponent[i] = self.pool.draw()
            name = self.opponent[i]
            scripted = name != "random" and not name.startswith("snapshot:")
            n = self.rules.num_players
            self.scripted[i] = (
                [make_agent(name, self.table, seed=seed + s) for s in range(n)] if scripted else []
            )
        self.returns[games] = 0.0
        self.lengths[games] = 0
        self.pending_reward[games] = 0.0

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        self._start_live(np.arange(self.vg.num_games))
        return self._observe_all()

    def _start_live(self, games: np.ndarray) -> None:
        """New games in ``games``, played until the learner decides; a game that ends before
        that (tiny schedules) holds nothing to learn and is dealt again."""
        for _ in range(1000):
            if not games.size:
                return
            self._new_games(games)
            self._advance()
            games = games[self.vg.game_over[games]]
        raise RuntimeError("1,000 games in a row ended before the learner's first decision")

    def step(self, actions: Sequence[int]):
        vg = self.vg
        rewards, _ = vg.step(np.asarray(actions, dtype=np.int64))
        self._collect(rewards)
        self._advance()
        out = np.array([self.spec.reward(r) for r in self.pending_reward])
        out = out.astype(np.float32)
        self.pending_reward[:] = 0.0
        self.returns += out
        self.lengths += 1
        dones = vg.game_over.copy()
        infos: list[dict] = [{} for _ in range(vg.num_games)]
        ended = np.flatnonzero(dones)
        if ended.size:
            terminal = vg.observe(self.seat)
            for i in ended:
                infos[i] = self._final_info(i, terminal[i])
            self._start_live(ended)
        obs, masks = self._observe_all()
        return obs, out, dones, infos, masks

    def _collect(self, rewards: np.ndarray) -> None:
        """Add the learner's side's share of a step's rewards (its first seat's reward)."""
        self.pending_reward += rewards[np.arange(len(self.seat)), self.seat]

    def _final_info(self, i: int, terminal: np.ndarray) -> dict:
        vg = self.vg
        side = self.rules.team_of(int(self.seat[i]))
        game = game_summary(
            self.opponent[i],
            side,
            vg.scores[i].tolist(),
            vg.winners(int(i)),
            int(vg.hands_played[i]),
            int(vg.pressures_taken[i, side]),
        )
        return final_info(
            terminal, vg.truncated[i], (float(self.returns[i]), int(self.lengths[i])), game
        )

    # -------------------------------------------------------------- opponents
    def _advance(self) -> None:
        """Play the opponents' moves until every game waits for the learner or is over: random
        opponents in one compiled call, the others a batched round at a time."""
        vg = self.vg
        rows = np.arange(vg.num_games)
        randoms = np.array([who == "random" for who in self.opponent])
        self.pending_reward += vg.play_random_seats(
            ~self.learner & randoms[:, None], self.seat, self.rng, np.flatnonzero(randoms)
        )
        while True:
            to_play = vg.to_play
            waiting = ~vg.game_over & ~self.learner[rows, to_play]
            if not waiting.any():
                return
            masks = vg.legal_mask()
            observations = vg.observe()
            actions = np.zeros(vg.num_games, dtype=np.int64)
            groups: dict[str, list[int]] = defaultdict(list)
            for i in np.flatnonzero(waiting):
                groups[self.opponent[i]].append(int(i))
            for who, members in groups.items():
                agents = [
                    self.scripted[i][to_play[i]] if self.scripted[i] else None for i in members
                ]
                chosen = self.pool.act_batch(
                    who, agents, observations[members], masks[members].astype(bool)
                )
                actions[members] = chosen
            rewards, _ = vg.step(actions, active=waiting)
            self._collect(rewards)

    def _observe_all(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vg.observe(), self.vg.legal_mask().astype(bool)


def make_batch(
    count: int,
    env_kwargs: dict,
    pool_spec: PoolSpec,
    learner: LearnerSpec,
    policy_factory,
    seed,
    engine: str = "auto",
) -> GameBatch | VectorBatch:
    """The games of one worker, on the compiled engine where it plays the table (``engine``:
    "auto", "vector" to insist, "reference" for the Python engine)."""
    shaped = learner.shaping is not None
    searching = "search" in pool_spec.scripted
    why = vector_refusal(env_kwargs, shaped, learner.privileged, searching)
    why = why if engine != "reference" else ""
    if engine == "vector" and why:
        raise ValueError(f"engine='vector' cannot train this run: {why}")
    if engine == "reference" or why:
        return GameBatch(count, env_kwargs, pool_spec, learner, policy_factory, seed)
    return VectorBatch(count, env_kwargs, pool_spec, learner, policy_factory, seed)


def vector_refusal(env_kwargs: dict, shaped: bool, privileged: bool, searching: bool) -> str:
    """Why the compiled engine cannot play this run ("" when it can)."""
    if searching:
        return "a search opponent looks ahead in the reference engine's games"
    if privileged:
        return "the privileged critic reads the reference engine's hidden state"
    if shaped:
        return "pressure shaping reads the reference engine's view"
    try:
        from crates_env.vector.games import check_supported

        check_supported(raw_env(**env_kwargs).rules)
    except (ValueError, ImportError) as exc:  # a table it does not play; a numpy it refuses
        return str(exc)
    return ""


ENGINES = ("auto", "vector", "reference")


def observation_space_of(env_kwargs: dict, privileged: bool = False) -> spaces.Box:
    """The learner's observation space: the environment's, plus the hidden state if
    ``privileged`` (card counts, within the public vector's bounds)."""
    probe = raw_env(**env_kwargs)
    public = probe.observation_space(probe.possible_agents[0])["observation"]
    if not privileged:
        return public
    hidden = probe.observer.hidden_size
    return spaces.Box(
        np.concatenate([public.low, np.zeros(hidden, dtype=np.float32)]),
        np.concatenate([public.high, np.full(hidden, public.high.max(), dtype=np.float32)]),
        dtype=np.float32,
    )

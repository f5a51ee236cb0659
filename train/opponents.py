"""Who the learner meets in self-play (on either backend): the pool of opponents (scripted
agents by their weights, frozen snapshots of the learner sharing theirs: ``PoolSpec``,
``OpponentPool``) and the seating that deals each game, seats the learner and draws the game's
opponents from the pool (``PoolSeating``, the ``crates_env.vector_env.Seating`` of self-play).

The vector env calls the seating as each game starts (``new_game``) and whenever a game's
opponents are to play (``act``): a snapshot's moves in one forward pass, scripted agents a kind
at a time (``agents.decide_batch``), a searching agent in its reference game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import Table, make_agent
from agents.base import decide_batch
from crates_env.vector_env import RANDOM, Lineup


@dataclass
class PoolSpec:
    """Who the learner meets: scripted agents and snapshots, with sampling weights."""

    scripted: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_weight: float = 0.0  # total weight of the snapshots, shared equally
    max_snapshots: int = 5


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

    def reset(self, seed: int) -> None:
        """Draw the opponents of new games from ``seed``'s stream again."""
        self.rng = np.random.default_rng(seed)

    def add_snapshot(self, state_dict: dict) -> None:
        self.keep(self.frozen(state_dict))

    def frozen(self, state_dict: dict) -> Any:
        """A policy of the learner's architecture holding ``state_dict``, for play only."""
        policy = self.policy_factory()
        policy.load_state_dict(state_dict)
        policy.set_training_mode(False)
        return policy

    def keep(self, policy: Any) -> None:
        """``policy`` joins the snapshots, the oldest leaving past ``max_snapshots``."""
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


def new_game_seed(seed_seq: np.random.SeedSequence) -> int:
    return int(seed_seq.spawn(1)[0].generate_state(1)[0])


class PoolSeating:
    """Self-play's seating (``crates_env.vector_env.Seating``): each new game's seed from the
    worker's seed sequence, the learner at the side of ``seed % players``, its opponents drawn
    from the pool (a scripted agent at every other seat, seeded by the game and seat, or a
    snapshot)."""

    def __init__(self, pool: OpponentPool, privileged: bool, learner_view=None) -> None:
        self.pool, self.privileged = pool, privileged
        self.rules = pool.table.rules
        # the learner's layout, which its snapshots read (an observer of crates_env's; the
        # seat layout's own when None)
        self.learner_view = learner_view
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
        """A snapshot reads the learner's view (its layout; the hidden state after the public
        vector with the privileged critic); a searching agent looks ahead in its reference
        game."""
        if who.startswith("snapshot:") and self.learner_view is not None:
            observations = self.learner_view.widen(observations)
        if who.startswith("snapshot:") and self.privileged:
            hidden = games.observe_hidden(games.to_play)[rows]
            observations = np.concatenate([observations, hidden], axis=1)
        ahead = agents is not None and any(a.looks_ahead for a in agents)
        in_play = [games.game(int(i)) for i in rows] if ahead else None
        return self.pool.act_batch(who, agents, observations, masks, in_play)

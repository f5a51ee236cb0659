"""A trained policy at the table: a checkpoint this package wrote (``agents.checkpoints``).

sb3_contrib (and torch) are imported only when a checkpoint is loaded, so the scripted agents
stay importable without them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from crates_env.actions import ANNOUNCE, NUM_ACTIONS
from crates_env.game import Game
from crates_env.table_observation import TABLE_LAYOUT, TableObserver

from .base import Agent, Explanation, Games, Table, forced_moves
from .checkpoints import Network, TableRecord, load_network


class PolicyAgent(Agent):
    """Plays a checkpoint (``agents.checkpoints``: crates train's, or a shipped network): its most
    likely legal action (``deterministic=True``) or a sample from its masked distribution.

    ``auto_announce`` (default) calls "one card" whenever the call is allowed, as the training
    environment's ``one_card="auto"`` does: the call is never wrong when it is offered, so a
    policy need not learn it. ``table`` (optional) checks that the network learned this table
    (it is one of the set its checkpoint records) and reads its observations; ``other_table``
    plays a network of another table there on purpose (a start to learn that table from: a
    search's base in expert iteration's first round). A missing file, a file that is not a
    checkpoint or a network whose input does not fit raises ``ValueError`` naming the path and
    the problem, and so does a network that learned other tables than ``table`` (it would play a
    game it never learned).
    """

    # the table layout's observer where the network reads it and is handed the seat layout
    # (it widens each vector itself); None: it reads what it is handed
    _view: TableObserver | None = None

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        device: str = "cpu",
        table: Table | None = None,
        auto_announce: bool = True,
        seed: int | None = None,
        other_table: bool = False,
    ) -> None:
        self.path = Path(path)
        self.deterministic = deterministic
        self.table = table
        self.auto_announce = auto_announce
        self.rng = np.random.default_rng(seed)
        version = self.path.stat().st_mtime_ns if self.path.is_file() else None
        self.network = _shared_network(self.path.resolve(), version, device)
        self.policy = self.network.policy
        if table is not None:
            self._view = _check_table(self.network, self.path, table, other_table)

    def describe(self) -> str:
        """What the network is, in words: its file, the tables it learned and its layout."""
        checkpoint = self.network.checkpoint
        tables = checkpoint.tables
        learned = checkpoint.learned() if len(tables) <= 3 else f"{len(tables)} tables"
        name, version = checkpoint.layout
        return f"{self.path}: a network of {learned} ({name} layout {version})"

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        return int(self.act_batch(observation[None, :], action_mask[None, :])[0])

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        """One action per row of ``observations`` (shape ``(batch, obs_size)``): one forward
        pass."""
        return self._act_group([self] * len(observations), observations, action_masks)

    @property
    def _group(self) -> tuple:
        """Agents of one loaded model (and one table, where they widen what they see) decide
        together (one forward pass)."""
        return ("policy", id(self.policy), id(self._view), self.deterministic, self.auto_announce)

    @classmethod
    def _act_group(cls, agents, observations, masks, games=None) -> np.ndarray:
        """Row ``i``'s action by ``agents[i]``: one forward pass for every row; a sampling
        agent draws its row's action from its own generator."""
        obs, masks = _checked(observations, masks)
        first = agents[0]
        actions, asks = first._unasked(masks)
        if not first.deterministic:  # every agent draws, asked or not: its stream stays one
            draws = np.array([agent.rng.random() for agent in agents])
        rows = np.flatnonzero(asks)
        if rows.size:
            logits = first._masked_logits(obs[rows], masks[rows])
            if first.deterministic:
                actions[rows] = logits.argmax(axis=1)
            else:  # sample from the masked softmax
                p = _softmax(logits)
                actions[rows] = (p.cumsum(axis=1) > draws[rows, None]).argmax(axis=1)
        return actions.astype(np.int64)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's distribution over the actions of each row (``(batch, NUM_ACTIONS)``,
        zero where illegal): the network's masked softmax where it is asked (a sampling agent
        draws from it, a deterministic one plays its likeliest move), and all on the move it
        makes unasked (a forced move, the "one card" call with ``auto_announce``). What a
        student learns from it as a teacher (the warm start's soft targets), through the same
        forward pass as :meth:`act_batch`."""
        obs, masks = _checked(observations, masks)
        actions, asks = self._unasked(masks)
        p = np.zeros(masks.shape)
        p[np.arange(len(p)), actions] = 1.0
        rows = np.flatnonzero(asks)
        if rows.size:
            p[rows] = _softmax(self._masked_logits(obs[rows], masks[rows]))
        return p

    def _unasked(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's move where the network is not asked, and the rows where it is: it sees
        only the rows with a choice (about half of a search's rollout positions are a forced
        draw or pass), and "one card" is called without asking it."""
        actions, asks = forced_moves(masks)
        if self.auto_announce:
            asks &= ~masks[:, ANNOUNCE]
            actions[masks[:, ANNOUNCE]] = ANNOUNCE
        return actions, asks

    def explain(self, observation: np.ndarray, action_mask: np.ndarray, **_: Any) -> Explanation:
        """The network's probability of each legal move (its softmax over them) and its value
        estimate of the position (None for a policy file, a network written to play alone, or a
        critic that reads hidden cards: the seat cannot know its input). It needs neither the
        game nor a search (``game=``, ``search=``, which the protocol passes every agent)."""
        obs = np.asarray(observation, dtype=np.float32)[None, :]
        mask = np.asarray(action_mask, dtype=bool)
        legal = np.flatnonzero(mask)
        p = _softmax(self._masked_logits(obs, mask[None, :]))[0, legal]
        return Explanation(
            moves=tuple(int(a) for a in legal),
            probabilities=tuple(float(x) for x in p),
            value=self._value(obs if self._view is None else self._view.widen(obs)),
        )

    def _value(self, obs: np.ndarray) -> float | None:
        """The critic's estimate for one observation, where it reads only what the seat sees."""
        policy = self.policy  # a checkpoint's (a policy file's has no critic)
        if (
            not hasattr(policy, "predict_values")  # a policy file's module
            or not self.network.checkpoint.critic
            or hasattr(policy, "public_size")
        ):
            return None
        import torch

        with torch.no_grad():
            return float(policy.predict_values(torch.as_tensor(obs))[0, 0])

    def _masked_logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The logits of the rows of ``obs`` (in the layout the agent is handed), -inf where
        ``masks`` says illegal."""
        if self._view is not None:
            obs = self._view.widen(obs)
        logits = self._logits(obs, masks)
        logits[~masks] = -np.inf
        return logits

    def _logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action logits, straight through its network (no SB3 predict overhead;
        SB3's networks do not read the masks)."""
        import torch

        policy = self.policy
        with torch.inference_mode():
            if self._actor is not None:
                return self._actor.logits(torch.as_tensor(obs)).numpy().astype(np.float64)
            features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            return policy.action_net(latent).numpy().astype(np.float64)

    @functools.cached_property
    def _actor(self):
        """The policy's ``Actor`` where its network is a plain MLP (SB3's own), else None."""
        from .networks import Actor

        return Actor.of(self.policy)


def _checked(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observations as float32 and masks as bool, ValueError unless they are ``(batch, size)``
    and ``(batch, NUM_ACTIONS)``."""
    obs = np.asarray(observations, dtype=np.float32)
    masks = np.asarray(masks, dtype=bool)
    if obs.ndim != 2 or masks.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(
            f"act_batch needs observations (batch, size) and masks (batch, {NUM_ACTIONS}); "
            f"got {obs.shape} and {masks.shape}"
        )
    return obs, masks


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Each row's softmax (-inf logits get probability 0)."""
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def is_rllib_module(path: Path) -> bool:
    """Whether ``path`` is a folder RLlib saved a module in (``RLModule.save_to_path``)."""
    return path.is_dir() and (path / "class_and_ctor_args.pkl").is_file()


@functools.lru_cache(maxsize=8)
def _shared_network(path: Path, version: int | None, device: str) -> Network:
    """One loaded network per checkpoint file (and version of it) in a process: agents that play
    it only read it, and an evaluation makes a fresh agent for every seat of every game."""
    return load_network(path, device)


def _check_table(network: Network, path: Path, table: Table, other_table: bool) -> Any:
    """The network must read this table's observations and (unless ``other_table``) have
    learned it (``Checkpoint.check``). Returns the table layout's observer where the network
    reads it and the table hands out the seat layout (it widens each vector), else None."""
    observed = network.checkpoint.architecture.actor_inputs
    view = None
    if network.checkpoint.layout[0] == TABLE_LAYOUT:
        view = table.derived(TABLE_LAYOUT, lambda t: TableObserver(t.ruleset))
        if table.obs_size == view.size:  # a table-layout env's own vectors
            view = None
    given = table.obs_size if view is None else view.size
    if observed != given:
        raise ValueError(
            f"{path}: the network observes {observed} values, but this table "
            f"({table.preset}, {table.num_players} players) gives {given}"
        )
    network.checkpoint.check(path, TableRecord.of(table.ruleset), other_table)
    return view

"""Agents as Ray RLlib modules, and RLlib modules as agents (RLlib is the optional extra ``ray``;
this module imports it).

- ``MaskedPPOModule``: PPO's default torch module over an observation vector with its action
  mask after it (``with_mask``: one flat array, which RLlib batches and slices without taking a
  dict apart per game), its action logits masked by that mask: the learner's module when
  training on RLlib (``train/rllib.py``). It never takes an illegal action.
- ``RLlibPolicyAgent``: a trained ``MaskedPPOModule``, saved in a folder, at our tables: an
  ``agents.Agent`` (``act``, ``act_batch``), so ``crates eval`` and ``crates play`` take the folder
  like a checkpoint file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from crates_env.actions import NUM_ACTIONS
from crates_env.game import Game

from .base import Agent, Games, Table
from .policy import is_rllib_module


def with_mask(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """float32 ``[n, size + 63]``: each observation vector with its action mask (1 legal, 0
    not) after it, what ``MaskedPPOModule`` reads."""
    return np.concatenate(
        [np.asarray(observations, dtype=np.float32), np.asarray(masks, dtype=np.float32)], axis=1
    )


def with_mask_space(observation_space: spaces.Box) -> spaces.Box:
    """The space of ``with_mask``'s rows for observation vectors of ``observation_space``."""
    return spaces.Box(
        np.concatenate([observation_space.low, np.zeros(NUM_ACTIONS, dtype=np.float32)]),
        np.concatenate([observation_space.high, np.ones(NUM_ACTIONS, dtype=np.float32)]),
        dtype=np.float32,
    )


def masked_logits(module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """float32 ``[n, 63]``: a ``MaskedPPOModule``'s inference logits for observation vectors and
    their action masks, the illegal actions' at RLlib's minimum."""
    rows = with_mask(observations, np.asarray(masks).reshape(-1, NUM_ACTIONS))
    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: torch.as_tensor(rows)})
    return out[Columns.ACTION_DIST_INPUTS].numpy()


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's torch module over the observation vectors of ``with_mask`` rows, logits of the
    actions their mask forbids pushed to RLlib's minimum (no probability).

    It also reads the AEC env's own observations, ``{"observation": ..., "action_mask": ...}``
    (a ``Dict`` observation space), as RLlib's ``PettingZooEnv`` hands them on."""

    def __init__(self, *, observation_space=None, **kwargs):
        self.observation_with_mask = observation_space
        if isinstance(observation_space, spaces.Dict):  # the AEC env's, through PettingZooEnv
            vectors = observation_space["observation"]
        else:
            size = observation_space.shape[0] - NUM_ACTIONS
            vectors = spaces.Box(observation_space.low[:size], observation_space.high[:size])
        super().__init__(observation_space=vectors, **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_with_mask  # what the env runners hand it

    def _split(self, batch):
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):  # the AEC env's observation dicts
            return obs["action_mask"], {**batch, Columns.OBS: obs["observation"]}
        return obs[:, -NUM_ACTIONS:], {**batch, Columns.OBS: obs[:, :-NUM_ACTIONS]}

    def _masked(self, out, mask):
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, FLOAT_MIN)
        return out

    def _forward_inference(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:  # the batch's rows still carry their masks
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)

    def heads(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action logits (unmasked) and state values of observation vectors: what the warm
        start fits to a teacher's moves and returns (``train.imitation.clone``)."""
        batch = {Columns.OBS: observations}
        out = DefaultPPOTorchRLModule._forward_train(self, batch)
        values = DefaultPPOTorchRLModule.compute_values(self, batch, out[Columns.EMBEDDINGS])
        return out[Columns.ACTION_DIST_INPUTS], values


class RLlibPolicyAgent(Agent):
    """A ``MaskedPPOModule`` saved by ``crates train --backend rllib`` (its run's
    ``rllib_policy`` folder): the most likely legal action of its masked logits."""

    def __init__(self, path: str | Path, table: Table) -> None:
        self.path = Path(path)
        if not is_rllib_module(self.path):
            raise ValueError(f"{self.path} is not a folder holding a saved RLlib module")
        self.module = RLModule.from_checkpoint(str(self.path.resolve()))
        size = self.module.observation_space.shape[0] - NUM_ACTIONS
        if size != table.obs_size:
            raise ValueError(
                f"{self.path} was trained on observations of {size} values; this table's "
                f"have {table.obs_size}"
            )

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        return int(self.act_batch(observation[None, :], action_mask[None, :])[0])

    @property
    def _group(self) -> tuple:
        """Agents of one saved module decide together (one forward pass of the first's)."""
        return ("rllib", str(self.path.resolve()))

    @classmethod
    def _act_group(cls, agents, observations, masks, games=None) -> np.ndarray:
        return agents[0].act_batch(observations, masks)

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        logits = masked_logits(self.module, observations, action_masks)
        return logits.argmax(axis=1).astype(np.int64)

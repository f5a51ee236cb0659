"""Agents as Ray RLlib modules, and RLlib modules as agents (RLlib is the optional extra ``ray``;
this module imports it).

- ``MaskedPPOModule``: PPO's default torch module over the ``observation`` entry of our AEC
  environment's observation dict, its action logits masked by ``action_mask``: the learner's
  module when training on RLlib (``train/rllib.py``). It never takes an illegal action.
- ``RLlibPolicyAgent``: a trained ``MaskedPPOModule``, saved in a folder, at our tables: the
  agent protocol (``act``, ``act_batch``), so ``crates eval`` and ``crates play`` take the folder
  like a checkpoint file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from crates_env.actions import NUM_ACTIONS

from .base import BaseAgent, Table
from .policy import is_rllib_module


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's torch module over ``observation``, logits of the actions ``action_mask`` forbids
    pushed to RLlib's minimum (no probability)."""

    def __init__(self, *, observation_space=None, **kwargs):
        self.observation_dict = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_dict  # what the env runners hand it

    def _split(self, batch):
        obs = batch[Columns.OBS]
        return obs["action_mask"], {**batch, Columns.OBS: obs["observation"]}

    def _masked(self, out, mask):
        logits = out[Columns.ACTION_DIST_INPUTS]
        illegal = torch.clamp(torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)
        out[Columns.ACTION_DIST_INPUTS] = logits + illegal
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
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)

    def heads(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action logits (unmasked) and state values of observation vectors: what the warm
        start fits to a teacher's moves and returns (``train.imitation.clone``)."""
        batch = {Columns.OBS: observations}
        out = DefaultPPOTorchRLModule._forward_train(self, batch)
        values = DefaultPPOTorchRLModule.compute_values(self, batch, out[Columns.EMBEDDINGS])
        return out[Columns.ACTION_DIST_INPUTS], values


class RLlibPolicyAgent(BaseAgent):
    """A ``MaskedPPOModule`` saved by ``crates train --backend rllib`` (its run's
    ``rllib_policy`` folder): the most likely legal action of its masked logits."""

    def __init__(self, path: str | Path, table: Table) -> None:
        self.path = Path(path)
        if not is_rllib_module(self.path):
            raise ValueError(f"{self.path} is not a folder holding a saved RLlib module")
        self.module = RLModule.from_checkpoint(str(self.path.resolve()))
        size = self.module.observation_space["observation"].shape[0]
        if size != table.obs_size:
            raise ValueError(
                f"{self.path} was trained on observations of {size} values; this table's "
                f"have {table.obs_size}"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None, :], action_mask[None, :])[0])

    @property
    def batch_group(self) -> tuple:
        """Agents of one saved module decide together (one forward pass of the first's)."""
        return ("rllib", str(self.path.resolve()))

    @classmethod
    def act_group(cls, agents, observations, masks, envs=None) -> np.ndarray:
        return agents[0].act_batch(observations, masks)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        masks = torch.as_tensor(np.asarray(action_masks, dtype=bool).reshape(-1, NUM_ACTIONS))
        with torch.no_grad():
            out = self.module.forward_inference(
                {Columns.OBS: {"observation": obs, "action_mask": masks}}
            )
        return out[Columns.ACTION_DIST_INPUTS].argmax(dim=1).numpy().astype(np.int64)

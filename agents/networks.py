"""The learner's networks: one-hot views of the small counts beside the observation, and an
actor-critic whose critic sees the hidden cards (asymmetric actor-critic).

In training, the learner's observation is the public vector followed by the hidden state
(``Observer.encode_hidden``: the other hands and the stock). The actor reads only the public part,
so the trained policy plays from what a player may know; the critic reads everything, so its
value estimates, and with them PPO's advantages, are not drowned in the luck of unseen cards.
At the table the actor needs only the public vector: ``PolicyAgent`` passes it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn

from .base import Table

# The counts a shuffle pressure turns on, and how many values each one-hot tells apart (larger
# values share the last): who meets the empty stock, and how much a reshuffle brings back.
COUNT_VIEWS: tuple[tuple[str, int], ...] = (
    ("stock_size", 16),
    ("discard_size", 16),
    ("pending_draw", 10),
    ("count", 13),
    ("hand_sizes", 12),
)


def count_views(table: Table) -> list[tuple[int, float, int]]:
    """(index in the observation, scale it was stored with, one-hot width) of each count of
    ``COUNT_VIEWS`` on ``table`` (a slice of several values, hand_sizes, gives one per seat)."""
    views = []
    for name, width in COUNT_VIEWS:
        start, stop = table.layout[name]
        views += [(i, float(table.scales.get(name, 1.0)), width) for i in range(start, stop)]
    return views


class CountsExtractor(BaseFeaturesExtractor):
    """The observation followed by a one-hot of each count of ``counts`` (from
    :func:`count_views`). The observation stores a count scaled, so a tanh layer tells one card
    left in the stock from two only through weights sharp enough to split 1/52 from 2/52; a
    one-hot gives every value its own weights, and the search's changes of move at the end of
    the stock are learned from far fewer examples."""

    def __init__(self, observation_space: spaces.Box, counts: Sequence[Sequence[float]]) -> None:
        counts = [(int(i), float(scale), int(width)) for i, scale, width in counts]
        super().__init__(observation_space, observation_space.shape[0] + sum(w for *_, w in counts))
        self.register_buffer("index", torch.tensor([i for i, _, _ in counts]), persistent=False)
        self.register_buffer("scale", torch.tensor([s for _, s, _ in counts]), persistent=False)
        self.widths = [w for *_, w in counts]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        values = torch.round(observations[:, self.index] * self.scale).long()
        parts = [observations]
        for k, width in enumerate(self.widths):
            parts.append(nn.functional.one_hot(values[:, k].clamp(0, width - 1), width))
        return torch.cat([p.to(observations.dtype) for p in parts], 1)


class SplitMlpExtractor(nn.Module):
    """SB3's actor and critic networks, the actor fed only the first ``public_size`` values."""

    def __init__(self, feature_dim: int, public_size: int, net_arch, activation_fn) -> None:
        super().__init__()
        self.public_size = public_size
        actor = MlpExtractor(public_size, net_arch, activation_fn)
        critic = MlpExtractor(feature_dim, net_arch, activation_fn)
        self.policy_net, self.value_net = actor.policy_net, critic.value_net
        self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[..., : self.public_size])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with a critic that also reads the hidden state.

    ``public_size`` is the length of the public observation at the front of each vector.
    """

    def __init__(self, *args, public_size: int, **kwargs) -> None:
        self.public_size = public_size
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitMlpExtractor(
            self.features_dim, self.public_size, self.net_arch, self.activation_fn
        )

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "public_size": self.public_size}


def untrained_policy(
    policy_class: type[MaskableActorCriticPolicy],
    kwargs: dict,
    observation_space: spaces.Space,
    action_space: spaces.Space,
) -> MaskableActorCriticPolicy:
    """A policy of ``policy_class`` (built with ``kwargs``) that has learned nothing: self-play's
    workers load each frozen snapshot's weights into one (``train.ppo.policy_spec`` names the
    learner's class and arguments)."""
    return policy_class(observation_space, action_space, lambda _: 0.0, **kwargs)

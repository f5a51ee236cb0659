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
from stable_baselines3.common.torch_layers import (
    BaseFeaturesExtractor,
    FlattenExtractor,
    MlpExtractor,
)
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
        counts = tuple((int(i), float(scale), int(width)) for i, scale, width in counts)
        super().__init__(observation_space, observation_space.shape[0] + sum(w for *_, w in counts))
        self.counts = counts  # what a checkpoint records of it (agents.checkpoints.Architecture)
        widths = torch.tensor([w for *_, w in counts])
        self.register_buffer("index", torch.tensor([i for i, _, _ in counts]), persistent=False)
        self.register_buffer("scale", torch.tensor([s for _, s, _ in counts]), persistent=False)
        self.register_buffer("top", widths - 1, persistent=False)  # a larger count: the last
        self.register_buffer("start", torch.cumsum(widths, 0) - widths, persistent=False)
        self.width = int(widths.sum())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        # every count's one-hot in one scatter: a network in a search's rollouts runs this
        # hundreds of thousands of times on small batches, where each torch call's cost counts
        one_hots = observations.new_zeros(len(observations), self.width)
        return torch.cat((observations, one_hots.scatter_(1, self.hot(observations), 1.0)), 1)

    def hot(self, observations: torch.Tensor) -> torch.Tensor:
        """int64 ``[batch, counts]``: where each count's 1 lies among the one-hots."""
        values = torch.round(observations.index_select(1, self.index) * self.scale)
        return torch.minimum(values.long().clamp_(min=0), self.top) + self.start


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


# the activations an Actor applies in place, by their module's type
IN_PLACE = {nn.Tanh: torch.tanh_, nn.ReLU: torch.relu_}


class Actor:
    """A trained policy's actor at play: the action logits of a batch of observations in a few
    torch calls, from a copy of the policy's weights as they are when it is made (a network
    loaded to play, as ``PolicyAgent``'s, which nothing trains). The count one-hots meet the
    first layer as sums of its columns (an ``embedding_bag``) rather than as a wide input: the
    same logits to float rounding, for far fewer calls than the modules make, which a search's
    many small rollout batches pay each."""

    def __init__(self, policy: MaskableActorCriticPolicy) -> None:
        extractor = policy.pi_features_extractor
        first, *rest = [*policy.mlp_extractor.policy_net, policy.action_net]
        seen = policy.observation_space.shape[0]  # the first layer's columns past it: counts
        self.counts = extractor if isinstance(extractor, CountsExtractor) else None
        self.first = (_copy(first.weight[:, :seen].t()), _copy(first.bias))
        self.count_columns = _copy(first.weight[:, seen:].t()) if self.counts else None
        self.rest = [
            (_copy(m.weight.t()), _copy(m.bias)) if isinstance(m, nn.Linear) else IN_PLACE[type(m)]
            for m in rest
        ]

    @classmethod
    def of(cls, policy: MaskableActorCriticPolicy) -> Actor | None:
        """``policy``'s actor, or None where its network is not an MLP on the whole observation
        (a split actor, another extractor or activation: the policy's own modules serve)."""
        layers = [*policy.mlp_extractor.policy_net, policy.action_net]
        plain = (
            not isinstance(policy.mlp_extractor, SplitMlpExtractor)
            and isinstance(policy.pi_features_extractor, CountsExtractor | FlattenExtractor)
            and isinstance(layers[0], nn.Linear)
            and all(isinstance(m, nn.Linear) or type(m) in IN_PLACE for m in layers)
        )
        return cls(policy) if plain else None

    def logits(self, observations: torch.Tensor) -> torch.Tensor:
        """float32 ``[batch, actions]``: the logits of float32 ``[batch, observation]``."""
        weight, bias = self.first
        h = torch.addmm(bias, observations, weight)
        if self.counts is not None:
            h += nn.functional.embedding_bag(
                self.counts.hot(observations), self.count_columns, mode="sum"
            )
        for layer in self.rest:
            if isinstance(layer, tuple):
                h = torch.addmm(layer[1], h, layer[0])
            else:
                layer(h)
        return h


def _copy(weights: torch.Tensor) -> torch.Tensor:
    """A contiguous copy, out of autograd's sight (an embedding_bag over a strided view copies
    it at every call)."""
    return weights.detach().contiguous().clone()

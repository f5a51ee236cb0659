"""An actor-critic whose critic sees the hidden cards (asymmetric actor-critic).

In training, the learner's observation is the public vector followed by the hidden state
(``Observer.encode_hidden``: the other hands and the stock). The actor reads only the public part,
so the trained policy plays from what a player may know; the critic reads everything, so its
value estimates, and with them PPO's advantages, are not drowned in the luck of unseen cards.
At the table the actor needs only the public vector: ``PolicyAgent`` passes it as it is.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn


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

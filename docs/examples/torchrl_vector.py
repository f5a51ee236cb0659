"""TorchRL over Crates' vector env: ``GymWrapper`` around ``gym.make_vec("Crates-v0", ...)``,
legal moves as TorchRL's action mask, and a masked policy playing a batch of games.

TorchRL reads a Gymnasium vector env with same-step autoreset (``AutoresetMode.SAME_STEP``):
the step that ends a game returns its final observation under ``("next", "observation")`` and the
next game's first observation at the root of the following step. Every key of the env's infos
becomes an entry of the tensordict (``action_mask``, ``seat``, ``hands_ended``, ...); the
``ActionMask`` transform turns ``action_mask`` into the action spec's mask, so
``env.rand_action`` and a ``MaskedCategorical`` policy only take legal moves.

    python docs/examples/torchrl_vector.py --num-envs 64 --steps 200

From here, TorchRL's collectors, losses (``ClipPPOLoss``) and replay buffers take the env as any
other; a trained policy goes back to ``crates eval`` as TorchScript (``docs/agents.md``).
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MaskedCategorical, ProbabilisticActor

import crates_env  # noqa: F401  (registers Crates-v0 and its vector entry point)
from agents import Table, make_agent


def make_env(num_envs: int, opponent: str = "heuristic", seed: int = 0, **options: Any):
    """``num_envs`` games of 4-player Crates against ``opponent`` as a TorchRL env, batch size
    ``[num_envs]``, its actions masked by the legal moves (``options``: Crates-v0's, e.g.
    ``deal_schedule=[3]`` for short games)."""
    table = Table.from_rules("crates", 4, **options)
    games = gym.make_vec(
        "Crates-v0",
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        learner_seat="random",
        opponents=make_agent(opponent, table, seed=seed),
        one_card="auto",
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,  # what TorchRL reads
        **options,
    )
    env = TransformedEnv(GymWrapper(games, categorical_action_encoding=True), ActionMask())
    env.set_seed(seed)
    return env


def make_policy(env, hidden: int = 128) -> ProbabilisticActor:
    """An MLP's logits, sampled from among the legal moves (``MaskedCategorical``)."""
    obs_size = env.observation_spec["observation"].shape[-1]
    num_actions = env.action_spec.space.n
    net = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, num_actions))
    logits = TensorDictModule(net, in_keys=["observation"], out_keys=["logits"])
    return ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )


def main(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--opponent", default="heuristic")
    args = parser.parse_args(argv)
    env = make_env(args.num_envs, args.opponent)
    check_env_specs(env)  # reset and step agree with the specs
    policy = make_policy(env)
    with torch.no_grad():
        rollout = env.rollout(args.steps, policy, break_when_any_done=False)
    legal = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1)).all()
    games = int(rollout["next", "done"].sum())
    print(
        f"{rollout.numel():,} decisions in {args.num_envs} games, all legal: {bool(legal)}; "
        f"{games} games finished; mean reward {rollout['next', 'reward'].mean():.4f}"
    )
    env.close()
    return rollout


if __name__ == "__main__":
    main()

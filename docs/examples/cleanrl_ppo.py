"""Masked PPO on Crates, CleanRL style: one file to read top to bottom, your own trainer at the
compiled engine's speed.

The games come from ``gym.make_vec("Crates-v0", vectorization_mode="vector_entry_point")``:
``CratesVectorEnv`` plays ``--num-envs`` games at once, the learner at one seat of each (drawn
every game) and HeuristicAgent at the other three, all of their moves inside the env in one
batched call. Each step takes one action per game and hands back the learner's next
observation, its reward for everything that happened since, and its legal moves in
``infos["action_mask"]``; the policy pushes the logits of illegal moves to a large negative
number, so it never samples one (invalid-action masking, Huang & Ontañón 2020).

The trained policy is saved as TorchScript, ``forward(observations, masks) -> logits``, which
``crates eval`` plays as a user agent:

    python docs/examples/cleanrl_ppo.py --total-timesteps 300000 --out policy.pt
    crates eval --agents policy.pt random --deals 200
    crates eval --agents policy.pt heuristic --deals 2000

Only Crates' environment and its agents are imported from this package; everything else is
PyTorch and Gymnasium, to be copied and changed.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import crates_env  # noqa: F401  (registers Crates-v0 and its vector entry point)
from agents import Table, make_agent


@dataclass
class Args:
    seed: int = 1
    preset: str = "crates"
    num_players: int = 4
    opponent: str = "heuristic"  # any agent name of agents.make_agent: random, greedy, ...
    total_timesteps: int = 300_000  # the learner's decisions
    learning_rate: float = 3e-4
    num_envs: int = 64  # games played side by side
    num_steps: int = 64  # decisions per game in each rollout
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    threads: int = 1  # torch's: one is fastest for these small batches on shared cores (0: all)
    out: str = "policy.pt"

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches


def parse_args(argv: list[str] | None = None) -> Args:
    """Every field of ``Args`` as ``--field-name`` (booleans take true/false)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for field in dataclasses.fields(Args):
        kind = type(field.default)
        if kind is bool:
            kind = _true
        flag = "--" + field.name.replace("_", "-")
        parser.add_argument(flag, type=kind, default=field.default, dest=field.name)
    return Args(**vars(parser.parse_args(argv)))


def _true(text: str) -> bool:
    return text.lower() in ("1", "true", "yes")


def make_env(args: Args) -> gym.vector.VectorEnv:
    """``num_envs`` games of Crates-v0 against ``opponent`` at every other seat, rewarded by
    the points of each hand against the opponents' mean (scaled to about one), a game's next
    deal dealt in the step that ends it (same-step autoreset, as this loop expects)."""
    table = Table.from_rules(args.preset, args.num_players)
    opponent = make_agent(args.opponent, table, seed=args.seed)  # one agent for every seat
    return gym.make_vec(
        "Crates-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        preset=args.preset,
        num_players=args.num_players,
        learner_seat="random",
        opponents=opponent,
        reward_mode="relative",
        reward_scale=0.01,
        one_card="auto",  # the env calls "one card" for the learner, as crates eval does
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs. ``forward`` is the policy that gets saved: masked logits
    of observations and their legal moves (what ``crates eval`` reads from a ``.pt``)."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, 1, std=1.0),
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, num_actions, std=0.01),
        )

    def forward(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        # an illegal move's logit: no probability, and no NaN where a mask is empty
        return self.actor(observations).masked_fill(~masks, -1e8)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ):
        probs = Categorical(logits=self(x, mask))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def save_policy(agent: Agent, path: str | Path) -> Path:
    """The actor as TorchScript: ``forward(observations, masks) -> logits``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.jit.script(agent).save(str(path))
    return path


def train(args: Args) -> Agent:
    """Train for ``total_timesteps`` decisions, printing progress at every update."""
    if args.batch_size % args.num_minibatches:
        raise ValueError("num_envs * num_steps must split into num_minibatches")
    num_iterations = max(1, args.total_timesteps // args.batch_size)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)

    envs = make_env(args)
    obs_size = int(envs.single_observation_space.shape[0])
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # rollout storage
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, start = 0, time.perf_counter()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(args.num_envs)
    wins: list[float] = []  # the learner's finished games: 1 won, 0 lost, a share of a tie

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob

            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            done = np.logical_or(terminations, truncations)
            next_done = torch.as_tensor(done, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(infos["action_mask"])  # the next game's, once one ends
            if "final_info" in infos:
                final = infos["final_info"]
                wins.extend(final["win"][final["_win"]].tolist())

        # generalized advantage estimation, bootstrapped from the value of the next state
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1, obs_size))
        b_masks = masks.reshape((-1, num_actions))
        b_actions = actions.reshape(-1)
        b_logprobs = logprobs.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        # optimize the policy and value network
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for begin in range(0, args.batch_size, args.minibatch_size):
                mb = b_inds[begin : begin + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (
                    mb_advantages.std() + 1e-8
                )
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef
                )
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        y_pred, y_true = b_values.numpy(), b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        sps = int(global_step / (time.perf_counter() - start))
        recent = wins[-500:]
        won = f"{np.mean(recent):.3f} of {len(recent)}" if recent else "-"
        print(
            f"step {global_step:>9,}  sps {sps:>6,}  games won {won:>14}  "
            f"value loss {v_loss.item():.4f}  entropy {entropy_loss.item():.3f}  "
            f"kl {approx_kl.item():.4f}  clipfrac {np.mean(clipfracs):.3f}  "
            f"explained var {explained_var:.3f}",
            flush=True,
        )

    envs.close()
    return agent


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    path = save_policy(train(args), args.out)
    print(f"policy saved to {path}: crates eval --agents {path} {args.opponent}")
    return path


if __name__ == "__main__":
    main()

"""The docs' examples run: the CleanRL-style masked PPO on the vector env (a tiny budget) and
TorchRL over it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import torch

from agents import Table, TorchScriptAgent, make_agent
from crates_env.env import raw_env
from train.cli import main as crates

from .extras import needs

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
TABLE = Table.from_rules("crates", 4)


def example(name: str):
    """The example ``docs/examples/<name>.py`` as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def positions(n: int = 60, seed: int = 2):
    """Observations and legal moves of the seats to play in a game of random moves."""
    env = raw_env(one_card="auto")
    env.reset(seed=seed)
    rng, rows = np.random.default_rng(seed), []
    while len(rows) < n and env.agents:
        seen = env.observe(env.agent_selection)
        rows.append((seen["observation"], seen["action_mask"].astype(bool)))
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return rows


def test_the_cleanrl_example_trains_and_crates_eval_plays_its_policy(tmp_path):
    ppo = example("cleanrl_ppo")
    argv = ["--total-timesteps", "2048", "--num-envs", "16", "--num-steps", "32"]
    argv += ["--update-epochs", "2", "--hidden", "32", "--anneal-lr", "false"]
    args = ppo.parse_args([*argv, "--out", str(tmp_path / "policy.pt")])
    assert (args.batch_size, args.minibatch_size, args.anneal_lr) == (512, 128, False)
    agent = ppo.train(args)
    torch.manual_seed(args.seed)  # the network it started from
    start = ppo.Agent(TABLE.obs_size, 63, args.hidden)
    assert not torch.equal(agent.actor[0].weight, start.actor[0].weight)  # it learned something

    path = ppo.save_policy(agent, args.out)
    player = make_agent(str(path), TABLE)
    assert isinstance(player, TorchScriptAgent)
    obs, masks = map(np.array, zip(*positions(), strict=True))
    with torch.no_grad():
        logits = agent(torch.as_tensor(obs), torch.as_tensor(masks)).numpy()
    assert np.allclose(player._logits(obs, masks), logits, atol=1e-5)  # the saved policy
    moves = player.act_batch(obs, masks)
    assert masks[np.arange(len(moves)), moves].all()  # legal moves only

    out = tmp_path / "eval"
    argv = ["eval", "--agents", str(path), "random", "--deals", "2", "--workers", "1"]
    assert crates([*argv, "--out", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert {row["name"]: row["games"] for row in report["agents"]} == {str(path): 4, "random": 4}


@needs("torchrl", "clients")
def test_torchrl_reads_the_vector_env_with_its_masks():
    from torchrl.envs.utils import check_env_specs

    rl = example("torchrl_vector")
    env = rl.make_env(4, "greedy", seed=3, deal_schedule=[3])  # games of three 3-card hands
    check_env_specs(env)
    assert env.batch_size == (4,) and env.action_spec.space.n == 63
    rollout = env.rollout(40, rl.make_policy(env, hidden=16), break_when_any_done=False)
    masks, actions = rollout["action_mask"], rollout["action"]
    assert masks.shape == (4, 40, 63) and masks.any(-1).all()  # a decision at every step
    assert masks.gather(-1, actions.unsqueeze(-1)).all()  # the policy took legal moves only
    assert not rollout["next", "illegal"].any()
    done = rollout["next", "done"].squeeze(-1)
    assert done[:, :-1].any()  # short games end within 40 decisions
    # a finished game's next observation is its last; the next step starts a new game
    env_index, step = (int(i) for i in done[:, :-1].nonzero()[0])
    assert rollout["next", "hands_ended"][env_index, step] >= 1
    assert not torch.equal(
        rollout["next", "observation"][env_index, step],
        rollout["observation"][env_index, step + 1],
    )

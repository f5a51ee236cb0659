"""Agents written by other code meet the harness: a class by import path, a TorchScript file."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents import Agent, Explanation, Table, TorchScriptAgent, UserAgent, make_agent
from crates_env.actions import ANNOUNCE, DRAW, NUM_ACTIONS
from crates_env.env import raw_env
from train.cli import main

from .user_agents import LowestCard

TABLE = Table.from_rules("crates", 4)


class Preferring(torch.nn.Module):
    """Logits that rank the actions by a fixed preference; the masks are read (and used)."""

    def __init__(self, obs_size: int) -> None:
        super().__init__()
        self.obs_size = obs_size
        self.register_buffer("order", torch.arange(NUM_ACTIONS, dtype=torch.float32).flip(0))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self.order.expand(obs.shape[0], -1) + 0.0 * obs[:, : self.obs_size].sum(1)[:, None]
        return logits.masked_fill(~mask, -1e9)


class Narrow(torch.nn.Module):
    """Ten logits an observation: not one per action."""

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return obs[:, :10]


def script(module: torch.nn.Module, path) -> str:
    torch.jit.script(module).save(str(path))
    return str(path)


def positions(n: int = 40):
    env = raw_env(one_card="auto")
    env.reset(seed=1)
    rows = []
    while len(rows) < n:
        seen = env.observe(env.agent_selection)
        rows.append((seen["observation"], seen["action_mask"].astype(bool)))
        env.step(int(np.flatnonzero(seen["action_mask"])[0]))
    return rows


def test_a_class_by_import_path_gets_the_table_and_plays_its_moves():
    agent = make_agent("tests.user_agents:LowestCard", TABLE, seed=3)
    assert isinstance(agent, UserAgent) and isinstance(agent.agent, LowestCard)
    assert not agent.looks_ahead
    for obs, mask in positions():
        assert agent.act(obs, mask) == np.flatnonzero(mask)[0]
    agent.reset()
    assert agent.agent.games == 1
    assert agent.explain(obs, mask) is None  # it has no explain: its move is all it shows


def test_a_factory_by_import_path_gets_its_seed_and_a_reset():
    agent = make_agent("tests.user_agents:highest", TABLE, seed=3)
    agent.reset()  # the protocol's reset, nothing where the user's object has none
    obs, masks = map(np.array, zip(*positions(), strict=True))
    assert agent.act_batch(obs, masks).tolist() == [np.flatnonzero(m)[-1] for m in masks]


def test_a_users_explain_is_asked_with_the_game_as_env_and_an_agent_passes_through():
    agent = make_agent("tests.user_agents:Explaining", TABLE)
    obs, mask = positions(1)[0]
    game = object()
    assert agent.explain(obs, mask, game=game, search=True) == Explanation(
        tuple(int(a) for a in np.flatnonzero(mask)), value=1.0
    )
    assert agent.agent.asked == [(game, True)]
    made = make_agent("tests.user_agents:protocol_agent", TABLE, seed=3)
    assert isinstance(made, Agent) and not isinstance(made, UserAgent)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("tests.no_such_module:Agent", "cannot import tests.no_such_module"),
        ("tests.user_agents:Missing", "tests.user_agents has no class or function Missing"),
        ("tests.user_agents:NOT_AN_AGENT", "has no class or function NOT_AN_AGENT"),
        ("numpy.random:default_rng", "Generator has no act(observation, action_mask) method"),
        # a class or function that cannot be built used to end in its traceback
        ("agents:Agent", "cannot build Agent: TypeError: Can't instantiate abstract class Agent"),
        ("os:system", "cannot build system: TypeError: system() missing required argument"),
        ("agents.base:Table", "cannot build Table: TypeError: Table.__init__() missing 4"),
    ],
)
def test_a_bad_import_path_is_one_clear_error(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec, TABLE)


def test_an_agent_that_cannot_be_built_is_one_line_from_the_command_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["eval", "--agents", "agents:Agent", "random", "--deals", "1", "--workers", "1"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.count("\n") == 0, err
    assert err.startswith("crates eval: error: agent 'agents:Agent': cannot build Agent")


def test_a_torchscript_policy_plays_its_best_legal_move_and_calls_one_card(tmp_path):
    path = script(Preferring(TABLE.obs_size), tmp_path / "policy.pt")
    agent = make_agent(path, TABLE, seed=0)
    assert isinstance(agent, TorchScriptAgent)
    for obs, mask in positions():
        best = ANNOUNCE if mask[ANNOUNCE] else np.flatnonzero(mask)[0]  # lowest id ranks first
        assert agent.act(obs, mask) == best
    _, mask = positions(1)[0]
    only_draw = np.zeros(NUM_ACTIONS, dtype=bool)
    only_draw[DRAW] = True
    assert agent.act(np.zeros(TABLE.obs_size, dtype=np.float32), only_draw) == DRAW


def test_an_exported_program_plays_as_its_torchscript_twin(tmp_path):
    module = Preferring(TABLE.obs_size)
    batch = torch.export.Dim("batch", min=1)
    example = torch.zeros(2, TABLE.obs_size), torch.ones(2, NUM_ACTIONS, dtype=torch.bool)
    exported = torch.export.export(module, example, dynamic_shapes=({0: batch}, {0: batch}))
    torch.export.save(exported, tmp_path / "policy.pt2")
    twin = make_agent(script(module, tmp_path / "policy.pt"), TABLE)
    agent = make_agent(str(tmp_path / "policy.pt2"), TABLE)
    obs, masks = map(np.array, zip(*positions(), strict=True))
    assert agent.act_batch(obs, masks).tolist() == twin.act_batch(obs, masks).tolist()
    (tmp_path / "junk.pt2").write_bytes(b"not torch")
    with pytest.raises(ValueError, match=r"junk\.pt2: not an exported program"):
        make_agent(str(tmp_path / "junk.pt2"), TABLE)


def test_a_torchscript_file_that_does_not_fit_is_refused_by_name(tmp_path):
    narrow = script(Narrow(), tmp_path / "narrow.pt")
    with pytest.raises(ValueError, match=r"narrow\.pt: the policy returns logits of shape \(10,\)"):
        make_agent(narrow, TABLE)
    small = script(torch.nn.Sequential(torch.nn.Linear(7, NUM_ACTIONS)), tmp_path / "small.pt")
    with pytest.raises(ValueError, match=r"small\.pt: not a TorchScript file|cannot read"):
        make_agent(small, TABLE)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not torch")
    with pytest.raises(ValueError, match=r"junk\.pt: not a TorchScript file"):
        make_agent(str(junk), TABLE)


def test_crates_eval_seats_a_users_class_and_a_torchscript_policy(tmp_path, capsys):
    path = script(Preferring(TABLE.obs_size), tmp_path / "policy.pt")
    out = tmp_path / "eval"
    argv = ["eval", "--agents", "tests.user_agents:LowestCard", path, "--deals", "2"]
    assert main([*argv, "--workers", "1", "--out", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    names = {row["name"]: row["games"] for row in report["agents"]}
    assert names == {"tests.user_agents:LowestCard": 4, path: 4}  # 2 deals, seats swapped

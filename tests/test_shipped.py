"""The shipped network: it loads, plays, is crates eval's default, and goes with every install
(as do the configs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agents import PolicyAgent, Table
from crates_env.env import raw_env
from train.cli import main
from train.cli.commands import DEFAULT_CONFIG, ROOT, SHIPPED, shipped_checkpoint


def test_the_shipped_network_plays_legal_moves_of_4_player_crates():
    path = shipped_checkpoint()
    assert path == ROOT / SHIPPED
    env = raw_env(preset="crates", num_players=4)
    agent = PolicyAgent(path, table=Table.from_env(env))
    env.reset(seed=3)
    for _ in range(200):
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        env.step(action)
        if env.game.game_over:
            break


def test_crates_eval_without_agents_plays_the_shipped_network(tmp_path, capsys):
    argv = ["eval", "--deals", "1", "--workers", "1", "--out", str(tmp_path / "out"), "--quiet"]
    assert main([*argv, "--no-tensorboard"]) == 0
    table = capsys.readouterr().out
    assert "crates_4p.zip" in table and "heuristic" in table


def test_a_regular_install_carries_the_shipped_network(tmp_path):
    """The wheel holds the network and the configs where installed_file() looks after a
    non-editable install (built from a copy of the project, leaving no build/ behind)."""
    source = tmp_path / "project"
    for part in ("crates_env", "agents", "train", "checkpoints", "configs"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("crates_rl-*.whl")
    with zipfile.ZipFile(wheel) as z:
        for shipped in (SHIPPED, DEFAULT_CONFIG):
            (name,) = [n for n in z.namelist() if n.endswith(f"share/crates-rl/{shipped}")]
            assert z.read(name) == (ROOT / shipped).read_bytes()
            assert Path(name).parts[1:4] == ("data", "share", "crates-rl")


def test_a_damaged_shipped_network_is_one_clear_error(tmp_path, monkeypatch, capsys):
    from train.cli import commands as cli

    broken = tmp_path / "checkpoints" / "crates_4p.zip"
    broken.parent.mkdir()
    broken.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(cli, "DATA_PLACES", (tmp_path,))
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--deals", "1", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert str(broken) in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()

"""crates eval --ray: the duplicate deals as Ray tasks on a local Ray, the same games as the
local worker processes. Ray is the optional extra `ray`, installed by the README's test command."""

import sys

import pytest

from train.cli import main
from train.evaluation import EvalConfig, validate

from .extras import needs
from .test_cli_errors import fails

TABLE = ["--deals", "3", "--seed", "11", "--rule", "deal_schedule=[3, 2]", "--quiet"]
AGENTS = ["--agents", "heuristic", "random", "--no-tensorboard", *TABLE]


@needs("ray", "ray")
def test_eval_on_a_local_ray_plays_the_games_of_the_local_workers(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.chdir(tmp_path)  # Ray's tasks play from the driver's folder, wherever it is
    assert main(["eval", *AGENTS, "--workers", "2", "--out", "local"]) == 0
    assert main(["eval", *AGENTS, "--workers", "2", "--ray", "--out", "ray"]) == 0
    local = (tmp_path / "local" / "deals.csv").read_text()
    assert local.count("\n") == 4  # a header and three deals
    assert (tmp_path / "ray" / "deals.csv").read_text() == local


def test_eval_on_ray_without_ray_installed_is_one_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    err = fails(["eval", *AGENTS, "--ray"], capsys)
    assert "--ray needs Ray, an optional extra: pip install 'crates-rl[ray]'" in err


@pytest.mark.parametrize("address", ["", "  "])
def test_a_blank_ray_address_is_refused_before_any_game(address):
    with pytest.raises(ValueError, match=r"--ray takes a cluster's address .* or nothing"):
        validate(EvalConfig(agents=("random", "greedy"), ray=address))

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


# ---------------------------------------------------------------------- labelling on Ray
@needs("ray", "ray")
def test_labels_on_a_local_ray_are_the_local_chunks_byte_for_byte(tmp_path, monkeypatch):
    """Each chunk is seeded by its index alone and its file has no date in it: the chunks a
    Ray cluster labels are the bytes local workers write. A run stopped after its first chunk
    keeps it, and the next labels only the missing ones."""
    from train.labels import chunk_path, label

    from .test_labels import PLAN

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local, ray = tmp_path / "local", tmp_path / "ray"
    assert len(list(label(PLAN, local, range(3)))) == 3
    stopped = label(PLAN, ray, range(3), workers=2, ray="local")
    next(stopped)
    stopped.close()  # as Ctrl-C would: the tasks left are cancelled, Ray shut down
    kept = sorted(p.name for p in ray.glob("chunk_*.npz"))
    assert len(kept) == 1
    kept_bytes = (ray / kept[0]).read_bytes()
    assert len(list(label(PLAN, ray, range(3), workers=2, ray="local"))) == 2  # the rest only
    assert (ray / kept[0]).read_bytes() == kept_bytes
    for i in range(3):
        assert chunk_path(ray, i).read_bytes() == chunk_path(local, i).read_bytes()


@needs("ray", "ray")
def test_crates_label_and_train_on_ray_label_as_local_training_does(tmp_path, monkeypatch):
    """``crates label --ray`` and expert iteration's ``crates train --ray`` write the chunks a
    local ``crates train`` writes, byte for byte."""
    from .test_expert import TINY

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr("train.evaluation.baselines.eval_workers", lambda chunks: 1)
    config = ["--config", "configs/crates_4p_expert.yaml"]

    def sets(name: str) -> list[str]:
        more = [*TINY, "expert.rounds=1", f"runs_dir={tmp_path / name}"]
        more.append(f"expert.labels={tmp_path / name / 'labels'}")
        return [arg for item in more for arg in ("--set", item)]

    assert main(["label", *config, *sets("label_ray"), "--ray"]) == 0
    assert main(["train", *config, *sets("local")]) == 0
    assert main(["train", *config, *sets("train_ray"), "--ray"]) == 0
    local = sorted((tmp_path / "local" / "labels" / "round_1").glob("chunk_*.npz"))
    assert len(local) == 2
    for name in ("label_ray", "train_ray"):
        folder = tmp_path / name / "labels" / "round_1"
        assert [p.read_bytes() for p in sorted(folder.glob("chunk_*.npz"))] == [
            p.read_bytes() for p in local
        ]


def test_train_ray_without_expert_iteration_is_refused(capsys):
    err = fails(["train", "--ray", "--set", "total_steps=64"], capsys)
    assert "--ray labels expert iteration's rounds on Ray" in err

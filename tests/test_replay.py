"""Replays of evaluation games: the very game crates eval plays, its page from the command line,
the pages of an evaluation and of training's final evaluation."""

from __future__ import annotations

import pytest

from crates_env import new_game
from train.cli import main
from train.evaluation import EvalConfig, game_tasks, run
from train.evaluation.replays import replay_game, write_replays

from .test_cli_errors import fails
from .test_render import page_steps

SHORT = {"deal_schedule": [2, 1]}


def test_a_replay_is_the_game_crates_eval_plays():
    config = EvalConfig(agents=("heuristic", "greedy"), deals=2, workers=1, seed=7, options=SHORT)
    records = run(config, progress=False)
    for (deal, lineup, seating), record in zip(game_tasks(config), records, strict=True):
        replay, again = replay_game(config, deal, lineup)
        assert again == record
        end = replay.steps[-1]
        assert end.game_over and end.scores == tuple(record.final_scores)
        names = ["heuristic" if a == 0 else "greedy" for a in seating]
        assert [s.name for s in end.seats] == names
        assert f"--seed 7 --deal {deal} --lineup {lineup}" in replay.about[-1]


def test_replay_writes_a_page(tmp_path, capsys):
    out = tmp_path / "game.html"
    argv = ["replay", "--agents", "heuristic", "random", "--rule", "deal_schedule=[2,1]"]
    assert main([*argv, "--seed", "3", "--lineup", "1", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    fragments, steps = page_steps(out.read_text())
    assert f"wrote {out}: {len(steps)} steps" in said
    config = EvalConfig(agents=("heuristic", "random"), deals=1, seed=3, options=SHORT)
    _, record = replay_game(config, 0, 1)
    last = "".join(fragments[i] for i in steps[-1])
    for side, score in enumerate(record.final_scores):
        assert f'data-role="total-{side}">{score}</text>' in last


def test_replay_and_eval_refuse_bad_games(tmp_path, capsys):
    agents = ["--agents", "heuristic", "greedy"]
    assert "lineup must be 0..1 (2 seatings), not 2" in fails(
        ["replay", *agents, "--lineup", "2", "--out", str(tmp_path / "x.html")], capsys
    )
    assert "--deal takes a deal number >= 0, not -1" in fails(
        ["replay", *agents, "--deal", "-1"], capsys
    )
    assert "unknown agent 'nobody'" in fails(["replay", "--agents", "nobody", "greedy"], capsys)
    assert "valid presets: crates" in fails(["replay", *agents, "--preset", "hearts"], capsys)
    out = tmp_path / "eval"
    assert "--replays takes 0..4 (the games to play), not 5" in fails(
        ["eval", *agents, "--deals", "2", "--replays", "5", "--out", str(out)], capsys
    )
    assert not out.exists()  # refused before anything was played or written
    assert not (tmp_path / "x.html").exists()


def test_eval_writes_the_pages_of_its_first_games(tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["eval", "--agents", "heuristic", "greedy", "--deals", "2", "--workers", "1"]
    argv += ["--rule", "deal_schedule=[2,1]", "--quiet", "--no-tensorboard", "--out", str(out)]
    assert main([*argv, "--replays", "3"]) == 0
    pages = sorted(p.name for p in (out / "replays").iterdir())
    assert pages == ["deal0-lineup0.html", "deal0-lineup1.html", "deal1-lineup0.html"]
    assert "wrote 3 replay pages" in capsys.readouterr().out


def test_write_replays_counts_the_games():
    config = EvalConfig(agents=("heuristic", "greedy"), deals=1, options=SHORT)
    with pytest.raises(ValueError, match=r"replays must be 0\.\.2"):
        write_replays(config, None, 3)


def test_training_writes_replays_of_its_final_evaluation_and_says_where(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.shipped import shipped_network
    from train.config import load_config
    from train.evaluation.baselines import final_replays

    config = load_config(
        "configs/default.yaml",
        [f"runs_dir={tmp_path}", "eval.baselines=[random, greedy]", "eval.final_deals=1",
         "eval.replays=1"],
    )  # fmt: skip
    pages = final_replays(config, shipped_network(config.ruleset()))
    run = config.run_dir
    assert pages == [run / "replays/vs_random/deal0-lineup0.html",
                     run / "replays/vs_greedy/deal0-lineup0.html"]  # fmt: skip
    assert all(p.is_file() for p in pages)
    events = EventAccumulator(str(run / "tb" / "replays"), size_guidance={"tensors": 0})
    events.Reload()
    (text,) = events.Tensors("eval/replays/text_summary")
    said = text.tensor_proto.string_val[0].decode()
    assert "replays/vs_random/deal0-lineup0.html" in said and str(run.resolve()) in said


def test_a_recorder_finishes_only_a_finished_game():
    from crates_env.render import Recorder

    g = new_game("crates", 2, seed=0, deal_schedule=[1])
    with pytest.raises(ValueError, match="give the game"):
        Recorder(["a", "b"]).finish("t")
    with pytest.raises(ValueError, match="not over"):
        Recorder(["a", "b"]).finish("t", game=g)

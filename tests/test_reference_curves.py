"""Reference learning curves: what a run's checks log for them (the share of decided deals
against each baseline, the training's CPU time), the reference file, and the overlay of a run
on it (``crates curves RUN_DIR --reference``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import matplotlib.image
import pytest

import train.evaluation.baselines as baselines
import train.ppo as ppo
from crates_env.processes import cpu_seconds
from train.cli import main
from train.evaluation import run, summarize
from train.evaluation.curves import DPI, read_scalars
from train.evaluation.games import CHUNK_DEALS
from train.evaluation.reference_curves import (
    CPU,
    DECIDED,
    FIGSIZE,
    SHARE,
    Curve,
    Point,
    draw_reference,
    read_reference,
    run_points,
    to_json,
)
from train.ppo import STATE, train

from .test_curves import PNG_MAGIC, write_log
from .test_train import tiny

pytestmark = pytest.mark.usefixtures("one_torch_thread")


# ---------------------------------------------------------------------- what the checks log
class Recorder:
    """A logger that keeps what is recorded."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def record(self, key: str, value: float) -> None:
        self.values[key] = value


def test_a_check_logs_the_share_of_decided_deals_each_baseline_stood_worse_in(tmp_path):
    config = tiny(tmp_path, "eval.baselines=[heuristic, random]")
    logger = Recorder()
    # "greedy" in the checkpoint's place: the check plays whatever agent it is given
    baselines.evaluate_against_baselines(config, "greedy", 8, logger)
    for baseline in ("heuristic", "random"):
        ev = baselines.baseline_check(config, "greedy", baseline, 8)
        report = summarize(ev, run(ev, progress=False))  # the same deals played again
        ahead = [learner - other for learner, other in report.deal_standings]
        decided = [a for a in ahead if a != 0]
        assert logger.values[f"eval/vs_{baseline}/decided"] == len(decided)
        assert logger.values[f"eval/vs_{baseline}/better_share"] == pytest.approx(
            sum(a > 0 for a in decided) / len(decided)
        )


def test_a_check_starts_its_workers_once_and_only_for_deals_enough_to_pay_their_start(
    tmp_path, monkeypatch
):
    """With two cores free a check of a few dozen deals used to start two worker processes
    for each baseline, each importing torch afresh, to play one batch: now it plays them here,
    and a check of many chunks starts one pool for all its baselines."""
    import train.evaluation.tournament as tournament

    started = []

    class Pool:  # plays the chunks here, as a started pool plays them in its workers
        def imap(self, play, chunks):
            return map(play, chunks)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    def worker_pool(workers):
        started.append(workers)
        return Pool()

    monkeypatch.setattr(tournament, "worker_pool", worker_pool)
    monkeypatch.setattr(baselines, "worker_pool", worker_pool)
    monkeypatch.setattr(baselines.core_share(), "free", lambda keep=0: 2)  # two free cores
    config = tiny(tmp_path, "eval.baselines=[heuristic, random]")
    baselines.evaluate_against_baselines(config, "greedy", 20)
    assert started == []
    deals = baselines.CHUNKS_A_WORKER * CHUNK_DEALS  # a worker's chunks at each baseline
    _, reports = baselines.evaluate_against_baselines(config, "greedy", deals)
    assert started == [2]
    assert [len(report.deals) for report in reports] == [deals, deals]


def test_cpu_seconds_counts_a_running_worker_once_and_again_once_it_is_reaped():
    burn = "import time\nwhile time.process_time() < 0.5: pass\nprint(flush=True)\ntime.sleep(60)"
    before = cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE)
    try:
        child.stdout.readline()  # it has burned its half second and sleeps
        alive = cpu_seconds() - before
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    reaped = cpu_seconds() - before
    assert alive >= 0.45 and reaped >= 0.45  # /proc counts whole hundredths, rounded down
    assert reaped - alive < 0.25  # not counted twice (0.5 more), once in /proc, once reaped


def test_a_run_logs_its_training_cpu_at_each_check_without_the_checks(tmp_path, monkeypatch):
    real = ppo.evaluate_against_baselines

    def slow_check(*args, **kwargs):  # a check that costs a CPU-second more
        start = time.process_time()
        while time.process_time() - start < 1.0:
            pass
        return real(*args, **kwargs)

    monkeypatch.setattr(ppo, "evaluate_against_baselines", slow_check)
    more = ("eval.every=32", "eval.deals=2", "eval.baselines=[heuristic]", "total_steps=96")
    config = tiny(tmp_path, *more)
    train(config)
    scalars = read_scalars(config.run_dir)
    # at the steps checked (not a rollout later), each with its share and CPU time
    assert [step for step, _ in scalars[SHARE]] == [32, 64]
    assert [step for step, _ in scalars[DECIDED]] == [32, 64]
    (_, first), (_, second) = scalars[CPU]
    assert 0 < first < second < first + 1.0  # the check at 32 and its CPU-second left out
    saved = json.loads((config.run_dir / STATE).read_text())["training_cpu_seconds"]
    assert saved >= second

    # resumed, the run goes on from the CPU time its checkpoint recorded
    before = cpu_seconds()
    train(tiny(tmp_path, *more[:-1], "total_steps=128"), resume=True)
    spent = cpu_seconds() - before
    steps, cpu = zip(*read_scalars(config.run_dir)[CPU], strict=True)
    assert steps == (32, 64, 96)
    assert saved - 1e-3 <= cpu[-1] <= saved + spent  # (TensorBoard keeps float32)


# ---------------------------------------------------------------------- a run's points
def test_run_points_are_the_checks_with_share_decided_and_cpu_time(tmp_path):
    write_log(
        tmp_path / "tb" / "ppo_1",
        {
            100: {SHARE: 0.5, DECIDED: 96.0, CPU: 1800.0, "train/value_loss": 3.0},
            150: {"train/value_loss": 2.0},
            200: {SHARE: 0.625, DECIDED: 80.0, CPU: 5400.0},
            300: {SHARE: 0.75, DECIDED: 90.0},  # no CPU time: not a point
        },
    )
    assert run_points(tmp_path) == (Point(100, 0.5, 0.5, 96), Point(200, 1.5, 0.625, 80))


def test_a_run_without_checks_against_heuristic_is_a_value_error_naming_the_tags(tmp_path):
    write_log(tmp_path / "tb" / "ppo_1", {100: {"eval/vs_random/better_share": 0.5}})
    with pytest.raises(ValueError, match="no check against heuristic") as exc:
        run_points(tmp_path)
    assert SHARE in str(exc.value) and CPU in str(exc.value)


# ---------------------------------------------------------------------- the reference file
CURVES = [
    Curve("a", "configs/a.yaml", (Point(0, 0.125, 0.25, 90), Point(500, 0.5, 0.5, 92)), "x"),
    Curve("b", "configs/b.yaml --set total_steps=9", (Point(7, 3.0, 0.75, 180),)),
]


def test_the_reference_file_reads_back_what_was_written(tmp_path):
    path = tmp_path / "curves.json"
    path.write_text(to_json(CURVES))
    assert read_reference(path) == CURVES


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"curves": [{"name": "a"}]}',
        '{"curves": [{"name": "a", "config": "c", "points": [{"steps": 1}]}]}',
    ],
)
def test_a_damaged_reference_file_is_a_value_error_naming_it(tmp_path, text):
    path = tmp_path / "curves.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"{path}: not reference learning curves"):
        read_reference(path)


def test_the_shipped_reference_has_the_three_recipes_in_step_order():
    curves = read_reference()
    assert [c.name for c in curves] == [
        "PPO from scratch",
        "PPO from the clone",
        "expert iteration",
    ]
    for curve in curves:
        assert curve.config.startswith("configs/crates_4p")
        steps = [p.steps for p in curve.points]
        assert steps == sorted(steps) and len(curve.points) >= 3
        assert all(0 <= p.share <= 1 and p.decided > 0 and p.cpu_hours > 0 for p in curve.points)


# ---------------------------------------------------------------------- the overlay
def test_the_overlay_draws_the_run_over_the_reference_by_steps_and_cpu_hours():
    user = Curve("mine", "runs/mine", (Point(100, 0.25, 0.5, 96), Point(200, 0.75, 0.625, 80)))
    by_steps, by_cpu = draw_reference(CURVES, user).axes
    assert [line.get_label() for line in by_steps.lines[:3]] == ["a", "b", "mine"]
    mine = by_steps.lines[2], by_cpu.lines[2]
    assert list(mine[0].get_xdata()) == [100, 200] and list(mine[1].get_xdata()) == [0.25, 0.75]
    assert list(mine[0].get_ydata()) == list(mine[1].get_ydata()) == [0.5, 0.625]
    assert mine[0].get_color() == "black"
    assert list(by_cpu.lines[0].get_xdata()) == [0.125, 0.5]


def test_crates_curves_reference_writes_the_overlay_beside_the_run(tmp_path, capsys):
    write_log(tmp_path / "tb" / "ppo_1", {100: {SHARE: 0.5, DECIDED: 96.0, CPU: 1800.0}})
    assert main(["curves", str(tmp_path), "--reference"]) == 0
    out = tmp_path / "reference_curves.png"
    assert capsys.readouterr().out == f"wrote {out}\n"
    assert out.read_bytes().startswith(PNG_MAGIC)
    height, width, _ = matplotlib.image.imread(out).shape
    assert (width, height) == (FIGSIZE[0] * DPI, FIGSIZE[1] * DPI)


def test_crates_curves_reference_of_a_run_without_the_checks_is_one_line(tmp_path, capsys):
    write_log(tmp_path / "tb" / "ppo_1", {100: {"time/fps": 1000.0}})
    with pytest.raises(SystemExit) as exc:
        main(["curves", str(tmp_path), "--reference"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no check against heuristic" in err[0]

"""The reference learning curves of 4-player crates: the committed file and its chart.

    python benchmarks/reference_curves.py --scratch runs/ref_scratch --clone runs/ref_clone \\
        --expert runs/eval_crates_4p_clone runs/eval_crates_4p_round2 runs/eval_crates_4p \\
        --out benchmarks/reference_curves.json --png docs/reference_curves.png
    python benchmarks/reference_curves.py --png docs/reference_curves.png   # the chart alone

Each curve is the share of decided duplicate deals in which the learner scored fewer points
than HeuristicAgent, against environment steps and CPU-hours (docs/benchmark.md, "Reference
learning curves"):

- PPO from scratch and PPO from the clone: the checks a run of ``RECIPES``' commands logged
  (``train.evaluation.reference_curves.run_points``: 100 deals of the check's seed at each).
- Expert iteration, which takes many core-hours to run again: the shipped checkpoints of its
  steps (the clone, round 2, round 3), each measured by ``crates eval --agents CHECKPOINT
  heuristic --deals 200 --seed 54000054`` (the bench's seed, on which no config trains) into
  the folders ``--expert`` names, placed at the steps and CPU-hours of ``EXPERT_COSTS``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env.files import write_atomically
from train.evaluation.curves import DPI
from train.evaluation.reference_curves import (
    Curve,
    Point,
    draw_reference,
    read_reference,
    run_points,
    to_json,
)

CHECKS = "--set eval.deals=100 --set eval.baselines=[heuristic] --set eval.final_deals=100"
RECIPES = {  # the runs' commands: crates train --config ...
    "PPO from scratch": "configs/crates_4p_scratch.yaml --set total_steps=8000000 "
    f"--set eval.every=500000 {CHECKS}",
    "PPO from the clone": f"configs/crates_4p.yaml --set eval.every=250000 {CHECKS}",
}
EXPERT = "expert iteration"
EXPERT_CONFIG = (
    "configs/crates_4p.yaml (the clone), configs/crates_4p_expert.yaml (rounds 1 and 2), "
    "configs/crates_4p_round3.yaml (round 3, shipped)"
)
# What each round of expert iteration added to the clone's recipe: (positions of its labelled
# games, both sides' choices; CPU-hours of labelling and fine-tuning). docs/model_card.md:
# rounds 1-2 labelled 4,416 games, 1,939,200 positions, in "about 75 minutes for round 1 and
# 3 h 20 min for round 2 ... on two free cores" and fine-tuned in "8 min 41 s and 6 min 29 s"
# (on two cores, with the checks); round 3 labelled 1,323,981 positions at "about 115 s a chunk
# on one core" (190 chunks) and fine-tuned in "about 5 minutes on two cores".
EXPERT_COSTS = {
    "round 2": (1_939_200, 2 * (75 + 200) / 60 + 2 * (8 + 41 / 60 + 6 + 29 / 60) / 60),
    "round 3": (1_323_981, 190 * 115 / 3600 + 2 * 5 / 60),
}
EXPERT_NOTE = (
    "the clone at its recipe's 1.5M PPO steps and the CPU-hours the PPO-from-the-clone run "
    "recorded (state.json's training_cpu_seconds, warm start included); each round adds the "
    "positions of its labelled games (the search's rollouts not counted as steps) and the "
    "labelling and fine-tuning hours of docs/model_card.md; each checkpoint measured on 200 "
    "deals of seed 54000054"
)
CLONE_STEPS = 1_500_000  # configs/crates_4p.yaml's total_steps


def report_point(folder: Path, steps: int, cpu_hours: float) -> Point:
    """The checkpoint against HeuristicAgent in ``crates eval``'s report.json in ``folder``."""
    report = json.loads((folder / "report.json").read_text())
    (pair,) = report["pairs"]
    if pair["second"] != "heuristic":
        raise ValueError(f"{folder}: not an evaluation against heuristic ({pair['second']})")
    return Point(steps, cpu_hours, round(pair["better_share"], 4), pair["decided"])


def expert_curve(clone_run: Path, folders: list[Path]) -> Curve:
    """The clone, round 2 and round 3, measured in ``folders``, at their recipes' costs."""
    state = json.loads((clone_run / "state.json").read_text())
    steps, hours = CLONE_STEPS, state["training_cpu_seconds"] / 3600
    costs = [(0, 0.0), *EXPERT_COSTS.values()]
    points = []
    for folder, (more_steps, more_hours) in zip(folders, costs, strict=True):
        steps, hours = steps + more_steps, hours + more_hours
        points.append(report_point(folder, steps, round(hours, 3)))
    return Curve(EXPERT, EXPERT_CONFIG, tuple(points), EXPERT_NOTE)


def run_curve(name: str, run_dir: Path) -> Curve:
    points = tuple(
        Point(p.steps, round(p.cpu_hours, 4), round(p.share, 4), p.decided)
        for p in run_points(run_dir)
    )
    note = f"the checks of the run, up to step {points[-1].steps:,}"
    return Curve(name, RECIPES[name], points, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", type=Path, help="the PPO-from-scratch run's folder")
    parser.add_argument("--clone", type=Path, help="the PPO-from-the-clone run's folder")
    parser.add_argument("--expert", type=Path, nargs=3, help="crates eval folders: clone, 2, 3")
    parser.add_argument("--out", type=Path, help="the reference file to write")
    parser.add_argument("--png", type=Path, help="the chart to draw (of --out, or the shipped)")
    args = parser.parse_args()
    if args.out:
        curves = [
            run_curve("PPO from scratch", args.scratch),
            run_curve("PPO from the clone", args.clone),
            expert_curve(args.clone, args.expert),
        ]
        write_atomically(args.out, lambda tmp: tmp.write_text(to_json(curves)))
        print(f"wrote {args.out}")
    if args.png:
        fig = draw_reference(read_reference(args.out))
        write_atomically(args.png, lambda tmp: fig.savefig(tmp, dpi=DPI))
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()

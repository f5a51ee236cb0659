"""A training run's checks against the scripted baselines (its config's ``eval`` section):
duplicate deals of a checkpoint against each baseline, during the run and in the table that
ends it. Both backends call them (``train.ppo``, ``train.rllib``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from train.config import TrainConfig
from train.workers import usable_cores

from .games import EvalConfig
from .report import format_report
from .stats import Report, summarize
from .tournament import run


def evaluate_against_baselines(
    config: TrainConfig, checkpoint: Path, deals: int, logger: Any = None
) -> tuple[float, list[Report]]:
    """Duplicate games of the checkpoint against each baseline; returns (score, reports), and
    writes the scalars to ``logger`` (anything with ``record(key, value)``) when given.

    The score is the learner's mean win-rate margin over the baselines (its win rate minus the
    baseline's, averaged): higher is better. Win rates, not points, pick the best checkpoint
    because doubling pressures make a few games dominate mean points over a few dozen deals.
    """
    reports, margins = [], []
    for baseline in config.eval.baselines:
        ev = EvalConfig(
            agents=(str(checkpoint), baseline),
            preset=config.preset,
            num_players=config.num_players,
            deals=deals,
            seed=config.eval.seed,
            workers=usable_cores(),
            options=dict(config.rules),
        )
        report = summarize(ev, run(ev, progress=False))
        learner, other = report.agents
        (pair,) = report.pairs
        margins.append(pair.win_rate_difference)
        reports.append(report)
        if logger is not None:
            logger.record(f"eval/vs_{baseline}/points_difference", pair.mean_difference)
            logger.record(f"eval/vs_{baseline}/relative_difference", pair.relative)
            logger.record(f"eval/vs_{baseline}/win_rate", learner.win_rate)
            logger.record(f"eval/vs_{baseline}/learner_points", learner.mean_points)
            logger.record(f"eval/vs_{baseline}/baseline_points", other.mean_points)
    score = float(np.mean(margins))
    if logger is not None:
        logger.record("eval/mean_win_rate_margin", score)
    return score, reports


def final_table(config: TrainConfig, checkpoint: Path) -> str:
    """The run's last word: the checkpoint against every baseline over ``eval.final_deals``
    deals, as tables for the terminal."""
    start = time.perf_counter()
    _, reports = evaluate_against_baselines(config, checkpoint, config.eval.final_deals)
    tables = [format_report(r) for r in reports]
    return "\n\n".join(tables) + f"\n(evaluated in {time.perf_counter() - start:.0f} s)"

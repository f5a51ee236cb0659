"""A training run's checks against the scripted baselines (its config's ``eval`` section):
duplicate deals of a checkpoint against each baseline, during the run and in the table that
ends it (with replay pages of its first games). Both backends call them (``train.ppo``,
``train.rllib``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from crates_env.processes import core_share
from train.config import TrainConfig

from .games import CHUNK_DEALS, EvalConfig
from .replays import write_replays
from .report import format_report
from .stats import Report, summarize
from .tournament import game_tasks, run, worker_pool

# A worker process starts by importing torch and the engine afresh, which costs about as much
# as playing a few chunks of deals (a chunk is one batch of games); a worker is started only
# for this many chunks of the check (docs/training.md, "A shared machine").
CHUNKS_A_WORKER = 4


def eval_workers(chunks: int) -> int:
    """Worker processes for a check of ``chunks`` chunks of deals in all: the cores the
    machine leaves free now, one for every ``CHUNKS_A_WORKER`` chunks at most; 1 plays the
    check in this process, on one torch thread."""
    return max(1, min(core_share().free(), chunks // CHUNKS_A_WORKER))


def baseline_check(
    config: TrainConfig, checkpoint: Path, baseline: str, deals: int, workers: int = 1
) -> EvalConfig:
    """The evaluation of ``checkpoint`` against ``baseline`` on the run's table."""
    return EvalConfig(
        agents=(str(checkpoint), baseline),
        preset=config.preset,
        num_players=config.num_players,
        deals=deals,
        seed=config.eval.seed,
        workers=workers,
        options=dict(config.rules),
    )


def evaluate_against_baselines(
    config: TrainConfig,
    checkpoint: Path,
    deals: int,
    logger: Any = None,
    say: Callable[[str], None] | None = None,
) -> tuple[float, list[Report]]:
    """Duplicate games of the checkpoint against each baseline, at each table the run plays;
    returns (score, reports), and writes the scalars to ``logger`` (anything with
    ``record(key, value)``) when given: ``eval/vs_<baseline>/...``, and for a mixture of
    tables ``eval/<preset>_<players>p/vs_<baseline>/...`` per table.

    The score is the learner's mean win-rate margin over the baselines (its win rate minus the
    baseline's, averaged over baselines and tables): higher is better. Win rates, not points,
    pick the best checkpoint because doubling pressures make a few games dominate mean points
    over a few dozen deals. ``say`` hears a line as each baseline is done.
    """
    reports, margins = [], []
    start = time.perf_counter()
    tables = config.played_tables()
    runs = len(tables) * len(config.eval.baselines)
    workers = eval_workers(runs * -(-deals // CHUNK_DEALS))
    # one pool for the whole check: its workers start once, not once a baseline and table
    with worker_pool(workers) if workers > 1 else contextlib.nullcontext() as pool:
        for preset, players in tables:
            at = config.at_table(preset, players) if len(tables) > 1 else config
            where = f"{preset}_{players}p/" if len(tables) > 1 else ""
            for baseline in config.eval.baselines:
                ev = baseline_check(at, checkpoint, baseline, deals, workers)
                report = summarize(ev, run(ev, progress=False, pool=pool))
                learner, other = report.agents
                margins.append(report.pairs[0].win_rate_difference)
                reports.append(report)
                if say is not None:
                    at_where = f"at {where[:-1]} " if where else ""
                    say(
                        f"  {deals} deals {at_where}against {baseline}: win rate "
                        f"{learner.win_rate:.1%} against {other.win_rate:.1%} "
                        f"({time.perf_counter() - start:.0f} s)"
                    )
                if logger is not None:
                    record_check(logger, f"eval/{where}vs_{baseline}", report)
    score = float(np.mean(margins))
    if logger is not None:
        logger.record("eval/mean_win_rate_margin", score)
    return score, reports


def record_check(logger: Any, key: str, report: Report) -> None:
    """One baseline's check as the run's scalars under ``key``."""
    learner, other = report.agents
    (pair,) = report.pairs
    logger.record(f"{key}/points_difference", pair.mean_difference)
    logger.record(f"{key}/relative_difference", pair.relative)
    logger.record(f"{key}/win_rate", learner.win_rate)
    # of the deals one of them stood better in: the learner (the reference learning curves'
    # measure, docs/benchmark.md), and how many there were
    logger.record(f"{key}/better_share", pair.better_share)
    logger.record(f"{key}/decided", pair.decided)
    logger.record(f"{key}/learner_points", learner.mean_points)
    logger.record(f"{key}/baseline_points", other.mean_points)


def final_table(config: TrainConfig, checkpoint: Path) -> str:
    """The run's last word: the checkpoint against every baseline over ``eval.final_deals``
    deals, as tables for the terminal, and where the replay pages of its first games are."""
    start = time.perf_counter()
    print(f"final evaluation: {config.eval.final_deals} deals against each baseline")
    _, reports = evaluate_against_baselines(config, checkpoint, config.eval.final_deals, say=print)
    tables = [format_report(r) for r in reports]
    text = "\n\n".join(tables) + f"\n(evaluated in {time.perf_counter() - start:.0f} s)"
    pages = final_replays(config, checkpoint)
    if pages:
        text += f"\nreplays of its first games: {config.run_dir / 'replays'} ({len(pages)} pages)"
    return text


def final_replays(config: TrainConfig, checkpoint: Path) -> list[Path]:
    """The first ``eval.replays`` games of the final evaluation against each baseline as
    replay pages (``replays/vs_<baseline>/``, ``replays/<preset>_<players>p/vs_<baseline>/``
    for each table of a mixture); the run's TensorBoard text lists them."""
    folder = config.run_dir / "replays"
    pages = []
    tables = config.played_tables()
    for preset, players in tables:
        at = config.at_table(preset, players) if len(tables) > 1 else config
        where = folder / f"{preset}_{players}p" if len(tables) > 1 else folder
        for baseline in config.eval.baselines:
            check = baseline_check(at, checkpoint, baseline, config.eval.final_deals)
            count = min(config.eval.replays, len(game_tasks(check)))
            pages += write_replays(check, where / f"vs_{baseline}", count)
    if pages:
        from torch.utils.tensorboard import SummaryWriter

        lines = [f"- {page.relative_to(config.run_dir)}" for page in pages]
        text = f"Replay pages of the final evaluation, in {folder.resolve()}:\n\n" + "\n".join(
            lines
        )
        with SummaryWriter(str(config.run_dir / "tb" / "replays")) as writer:
            writer.add_text("eval/replays", text, config.total_steps)
    return pages

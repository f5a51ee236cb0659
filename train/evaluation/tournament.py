"""An evaluation from start to end: check the agents and the table, then play every deal in
every lineup, in this process, in worker processes (``games``) or as Ray tasks (``on_ray``),
the records in a fixed order whichever runs them. The deals go out in chunks, each played side
by side as one batch of games (``games.play_games``)."""

from __future__ import annotations

import contextlib
import functools
import multiprocessing as mp
import sys
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.pool import Pool

from agents import Table
from crates_env.engine_choice import ENGINES
from crates_env.processes import one_thread_worker
from train.config import rules_of
from train.workers import check_ray, torch_threads

from . import games
from .games import EvalConfig, GameRecord, Interrupted, check_deals, lineups
from .on_ray import run_on_ray


def validate(config: EvalConfig) -> Table:
    """Check rules and agents before any game; raise ValueError with one clear message."""
    if len(config.agents) < 2:
        raise ValueError("name at least two agents to compare")
    if config.deals < 1:
        raise ValueError(f"deals must be at least 1, not {config.deals}")
    if isinstance(config.seed, bool) or not isinstance(config.seed, int) or config.seed < 0:
        raise ValueError(f"seed must be an int >= 0, not {config.seed!r}")
    if config.workers < 1:
        raise ValueError(f"workers must be at least 1, not {config.workers}")
    if config.engine not in ENGINES:
        raise ValueError(f"engine={config.engine!r} is not valid; use one of {', '.join(ENGINES)}")
    if config.ray is not None:
        check_ray(config.ray)
    rules = rules_of(config.preset, config.num_players, config.options)
    if len(config.agents) > rules.num_players:
        raise ValueError(
            f"{len(config.agents)} agents cannot all sit at a {rules.num_players}-player table"
        )
    table = Table.from_rules(rules)
    for spec in dict.fromkeys(config.agents):
        config.agent(spec, table, seed=0)  # raises for an unknown name or a bad checkpoint
    return table


def game_tasks(config: EvalConfig) -> list[tuple[int, int, tuple[int, ...]]]:
    """Every game, in the order the results come back: (deal, lineup index, lineup). More
    deals than this machine's memory holds the records of is a ValueError, before any is
    listed."""
    check_deals(config.deals, len(config.agents), config.num_players)
    seatings = lineups(len(config.agents), config.num_players)
    return [(d, i, lu) for d in range(config.deals) for i, lu in enumerate(seatings)]


def run(
    config: EvalConfig,
    progress: bool = True,
    keep: Callable[[list[GameRecord]], None] | None = None,
    pool: Pool | None = None,
) -> list[GameRecord]:
    """Play every deal in every lineup; results come back in a fixed order, and ``keep`` sees
    them as they do, a batch of whole deals at a time (``report.DealLog`` writes them down).
    ``pool``: worker processes already started (``worker_pool``) to play them, for several
    evaluations in a row (``crates bench``); without it, ``config.workers`` processes are
    started for this one. Stopped by Ctrl-C, it raises :class:`Interrupted` with the deals
    played to the end (whole chunks)."""
    keep = keep or (lambda records: None)
    table = validate(config)
    games.looks_ahead(config, table)  # an engine that cannot play the agents says so now
    tasks = game_tasks(config)
    seatings = len(tasks) // config.deals
    chunks = chunked(tasks, config, seatings)
    workers = min(config.workers, len(chunks))  # no more processes than chunks to play
    bar = _progress(len(tasks), progress)
    records: list[GameRecord] = []
    try:
        if config.ray is not None:
            records = run_on_ray(replace(config, workers=workers), chunks, bar)
            keep(records)
        elif workers == 1:
            # a batch's forward passes run fastest on one thread while the cores are shared
            threads = torch_threads(1) if "torch" in sys.modules else contextlib.nullcontext()
            with threads:
                for chunk in chunks:
                    played = games.play_games(config, chunk)
                    records.extend(played)
                    keep(played)
                    bar.update(len(chunk))
        else:
            play = functools.partial(games.play_games, config)
            started = worker_pool(workers) if pool is None else contextlib.nullcontext(pool)
            with started as processes:
                for played in processes.imap(play, chunks):
                    records.extend(played)
                    keep(played)
                    bar.update(len(played))
    except KeyboardInterrupt as stop:
        bar.close()
        played = stop.records if isinstance(stop, Interrupted) else records  # in task order
        deals = len(played) // seatings
        raise Interrupted(played[: deals * seatings], deals) from None
    bar.close()
    return records


def worker_pool(workers: int) -> Pool:
    """``workers`` clean processes to play games (``run``'s ``pool``): spawned, so no torch or
    RNG state is inherited; they end with the ``with`` block."""
    return mp.get_context("spawn").Pool(workers, initializer=one_thread_worker)


def chunked(tasks: list[tuple], config: EvalConfig, lineups_a_deal: int) -> list[list[tuple]]:
    """The tasks in chunks of whole deals: up to ``games.CHUNK_DEALS`` deals a chunk, fewer so
    that every worker gets one when there are few deals."""
    spread = -(-config.deals // max(config.workers, 1))
    size = max(1, min(games.CHUNK_DEALS, spread)) * lineups_a_deal
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="games", unit="game", disable=not enabled, leave=False)

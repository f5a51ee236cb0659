"""Duplicate-deal evaluation: agents played against each other on the same cards with the seats
rotated, compared deal by deal, by each preset's own standing (lowest score, highest score or
last player left).

``tournament`` runs them (``games`` plays them side by side as one batch of games, each seeded
by itself, in worker processes or as Ray tasks: ``on_ray``), ``stats`` pairs them by deal,
``report`` prints and saves the results and pools saved runs, ``replays`` records games to
watch in a browser, ``curves`` draws a training run's curves (over the reference learning
curves ``reference_curves`` keeps, if asked). ``bench`` plays agents against
the reference ladder at every benchmark table (``crates bench``) and ``bench_report`` writes its
results, page and leaderboard.
``crates eval`` is the command line over it; training calls it for its checks against the
baselines (``baselines``).
"""

from .baselines import evaluate_against_baselines, final_table
from .games import EvalConfig, GameRecord, Interrupted, SeatRecord, lineups, play_games
from .report import DealLog, format_report, pooled_pairs, prepare_output, read_deals, write_outputs
from .stats import AgentSummary, PairComparison, Report, summarize
from .tournament import game_tasks, run, validate

__all__ = [
    "AgentSummary",
    "DealLog",
    "EvalConfig",
    "GameRecord",
    "Interrupted",
    "PairComparison",
    "Report",
    "SeatRecord",
    "evaluate_against_baselines",
    "final_table",
    "format_report",
    "game_tasks",
    "lineups",
    "play_games",
    "pooled_pairs",
    "prepare_output",
    "read_deals",
    "run",
    "summarize",
    "validate",
    "write_outputs",
]

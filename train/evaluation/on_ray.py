"""The games of an evaluation as Ray tasks (``crates eval --ray [ADDRESS]``).

Every game is seeded from ``(seed, deal, lineup, seat)`` alone, so the records are the ones the
local worker processes give, whatever the number of nodes and CPUs. Each node needs this package
installed (the same version) and the checkpoints named by the agents at the same paths (a shared
file system, or the package's own shipped network).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from train.workers import RAY_RETRIES, WorkersFailed, ray_session

from .games import EvalConfig, GameRecord, Interrupted, play_games


def _play_chunk(config: EvalConfig, tasks: Sequence[tuple], cwd: str) -> list[GameRecord]:
    """A Ray task: play a chunk of ``tasks`` side by side, as a worker process does
    (relative checkpoint paths read from the driver's folder where the node has it)."""
    if Path(cwd).is_dir():
        os.chdir(cwd)
    return play_games(config, list(tasks))


def run_on_ray(config: EvalConfig, chunks: list[list[tuple]], bar) -> list[GameRecord]:
    """Play the ``chunks`` of tasks on the Ray cluster of ``config.ray``, records in task
    order."""
    done: dict[Any, list[GameRecord]] = {}
    refs: list[Any] = []
    with ray_session(config.ray, config.workers) as ray:
        try:
            play = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(_play_chunk)
            refs = [play.remote(config, chunk, os.getcwd()) for chunk in chunks]
            pending = list(refs)
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                try:
                    done[ready[0]] = ray.get(ready[0])
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                    raise WorkersFailed(
                        f"a Ray worker playing deals died ({type(exc).__name__}), and so did "
                        f"the {RAY_RETRIES} retries of its task: nothing written; play again, "
                        "or without --ray"
                    ) from None
                bar.update(len(done[ready[0]]))
            return [record for ref in refs for record in done[ref]]
        except KeyboardInterrupt:  # the tasks finished in order from the first, for a partial
            finished = list(itertools.takewhile(lambda ref: ref in done, refs))
            raise Interrupted([record for ref in finished for record in done[ref]], 0) from None

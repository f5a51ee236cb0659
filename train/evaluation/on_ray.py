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

from train.workers import WorkersFailed, init_ray

from .games import EvalConfig, GameRecord, Interrupted, play_games

LOCAL = "local"  # --ray without an address: RAY_ADDRESS's cluster if set, else a local Ray
# A task whose worker process dies (killed, out of memory, a node lost) is played again from
# scratch this many times: every game is seeded by itself, so the records are the same.
RETRIES = 3


def check_ray(address: str) -> Any:
    """The ``ray`` module, checked before any game: ValueError when it is not installed or the
    address is blank."""
    if not isinstance(address, str) or not address.strip():
        raise ValueError(
            f"--ray takes a cluster's address (host:port, ray://host:port) or nothing, "
            f"not {address!r}"
        )
    try:
        import ray
    except ImportError:
        raise ValueError(
            "--ray needs Ray, an optional extra: pip install 'crates-rl[ray]' "
            "(pip install -e '.[ray]' in a checkout)"
        ) from None
    return ray


def _play_chunk(config: EvalConfig, tasks: Sequence[tuple], cwd: str) -> list[GameRecord]:
    """A Ray task: play a chunk of ``tasks`` side by side, as a worker process does
    (relative checkpoint paths read from the driver's folder where the node has it)."""
    if Path(cwd).is_dir():
        os.chdir(cwd)
    return play_games(config, list(tasks))


def run_on_ray(config: EvalConfig, chunks: list[list[tuple]], bar) -> list[GameRecord]:
    """Play the ``chunks`` of tasks on the Ray cluster of ``config.ray``, records in task
    order."""
    ray = check_ray(config.ray)
    started = not ray.is_initialized()
    if started:
        address = None if config.ray == LOCAL else config.ray
        # A local Ray gets the evaluation's worker count as its CPUs; a cluster brings its own.
        cpus = config.workers if address is None and "RAY_ADDRESS" not in os.environ else None
        init_ray(address=address, num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    done: dict[Any, list[GameRecord]] = {}
    refs: list[Any] = []
    try:
        play = ray.remote(num_cpus=1, max_retries=RETRIES)(_play_chunk)
        refs = [play.remote(config, chunk, os.getcwd()) for chunk in chunks]
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            try:
                done[ready[0]] = ray.get(ready[0])
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                raise WorkersFailed(
                    f"a Ray worker playing deals died ({type(exc).__name__}), and so did "
                    f"the {RETRIES} retries of its task: nothing written; play again, or "
                    "without --ray"
                ) from None
            bar.update(len(done[ready[0]]))
        return [record for ref in refs for record in done[ref]]
    except KeyboardInterrupt:  # the tasks finished in order from the first, for a partial result
        finished = list(itertools.takewhile(lambda ref: ref in done, refs))
        raise Interrupted([record for ref in finished for record in done[ref]], 0) from None
    finally:
        if started:
            ray.shutdown()

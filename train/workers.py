"""Training's and evaluation's workers beyond the process's own plumbing
(``crates_env.processes``): the threads torch takes, the Ray session games and labels run in,
and the one error for workers past mending.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from crates_env.processes import core_share, sigterm_kept


class WorkersFailed(RuntimeError):
    """Worker processes failed past what retrying mends: the command stops with one line."""


def learner_threads(setting: int, keep: int = 0) -> int:
    """torch's threads for a learner's update: ``setting`` (a config's ``torch_threads``) when it
    is fixed, which keeps the run reproducible; 0 takes the cores the machine leaves free now,
    less ``keep`` for the game workers (``CoreShare``)."""
    return setting if setting > 0 else core_share().free(keep)


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """torch on ``count`` threads inside the block: a batch of a few positions at a time runs
    fastest on one (threads that wait for each other crawl while other work shares the
    cores)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


LOCAL_RAY = "local"  # --ray without an address: RAY_ADDRESS's cluster if set, else a local Ray
# A Ray task whose worker process dies (killed, out of memory, a node lost) runs again from
# scratch this many times: games and label chunks are seeded by themselves, so nothing changes.
RAY_RETRIES = 3


def check_ray(address: str) -> Any:
    """The ``ray`` module, checked before any work: ValueError when it is not installed or the
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


@contextlib.contextmanager
def ray_session(address: str, cpus: int) -> Iterator[Any]:
    """The ``ray`` module, joined to the cluster at ``address`` (``LOCAL_RAY``: RAY_ADDRESS's
    cluster if set, else a local Ray of ``cpus`` CPUs) for the block; a Ray this process
    started is shut down after it, one already running is left as it was."""
    ray = check_ray(address)
    started = not ray.is_initialized()
    if started:
        where = None if address == LOCAL_RAY else address
        # A local Ray gets the command's worker count as its CPUs; a cluster brings its own.
        local = where is None and "RAY_ADDRESS" not in os.environ
        init_ray(
            address=where,
            num_cpus=cpus if local else None,
            include_dashboard=False,
            log_to_driver=False,
        )
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def init_ray(**kwargs) -> None:
    """``ray.init(**kwargs)``, keeping this process's SIGTERM handler: Ray installs its own,
    which aborts the process with a stack dump, where the command's saves and says so."""
    import ray

    with sigterm_kept():
        ray.init(**kwargs)

"""The compiled, batched twin of the rules engine (numba): ``VectorGame``, every rule system."""

import os
import sys
from pathlib import Path


def numba_cache_folder() -> Path:
    """Where numba keeps the compiled engine: the user's cache folder
    (``$XDG_CACHE_HOME/crates-rl/numba``, by default ``~/.cache/crates-rl/numba``), never the
    installed package (its files would outlive ``pip uninstall`` and turn a later install's
    ``crates_env`` into an empty namespace package). ``NUMBA_CACHE_DIR``, if set, wins."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "crates-rl" / "numba"


def _use_user_cache() -> None:
    """Point numba's cache at :func:`numba_cache_folder` before anything here compiles (the
    environment variable, so worker processes find it too)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_folder())
    if "numba" in sys.modules:  # numba read its settings already: again
        from numba.core import config

        config.reload_config()


_use_user_cache()

from .vector_game import VectorGame  # noqa: E402  (after the cache folder is set)

__all__ = ["VectorGame", "numba_cache_folder"]

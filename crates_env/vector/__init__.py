"""The compiled, batched twin of the rules engine (numba): ``VectorGame``, every rule system."""

import hashlib
import os
import sys
from pathlib import Path


def numba_cache_folder() -> Path:
    """Where numba keeps the compiled engine: the user's cache folder
    (``$XDG_CACHE_HOME/crates-rl/numba/<sources>``, by default under ``~/.cache``), never the
    installed package (its files would outlive ``pip uninstall`` and turn a later install's
    ``crates_env`` into an empty namespace package). ``NUMBA_CACHE_DIR``, if set, wins.

    ``<sources>`` is a digest of the engine's source files (``engine_digest``): numba keeps a
    compiled function as long as its own file is unchanged, even when a function or constant it
    uses from another file has changed, so an edited or upgraded engine gets a folder of its
    own."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "crates-rl" / "numba" / engine_digest(Path(__file__).parent.parent)


def engine_digest(package: Path) -> str:
    """A short digest of the ``.py`` files of ``package`` (``crates_env``) and its ``vector``
    folder, which the compiled kernels are made of."""
    digest = hashlib.sha256()
    for path in sorted([*package.glob("*.py"), *package.glob("vector/*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


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

__all__ = ["VectorGame", "engine_digest", "numba_cache_folder"]

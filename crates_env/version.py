"""Which code made a file: the package's version and, in a git checkout, its commit.

``VERSION`` is the one place the version is written: pyproject.toml reads it
(``[tool.setuptools.dynamic]``), ``crates_env.__version__`` and ``crates --version`` show it, and
``provenance()`` is what a run folder and a checkpoint record of the code that made them.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

VERSION = "0.1.0"

# the checkout this package sits in, if it is one: the folder above crates_env/
_SOURCE = Path(__file__).resolve().parent.parent
GIT_SECONDS = 10.0  # a git that has not answered by then is not waited for


def provenance() -> dict[str, str | None]:
    """``{"version": VERSION, "commit": ...}``: the commit is the git checkout's HEAD (40 hex
    digits, ``-dirty`` after it when tracked files differ from it), or None where the package
    is not a checkout of its own (installed from a wheel, git missing)."""
    return {"version": VERSION, "commit": commit()}


@functools.cache
def commit() -> str | None:
    """The HEAD commit of the checkout the package was imported from (see ``provenance``)."""
    top = _git("rev-parse", "--show-toplevel")
    # a package installed inside some other repository (a venv in a checkout) is not its code
    if top is None or Path(top).resolve() != _SOURCE:
        return None
    head = _git("rev-parse", "HEAD")
    if head is None:
        return None
    changed = _git("status", "--porcelain", "--untracked-files=no")
    return head + ("-dirty" if changed else "")


def _git(*args: str) -> str | None:
    """git's answer in the package's checkout, stripped; None if git fails or is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(_SOURCE), *args],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None

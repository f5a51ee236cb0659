"""Writing a file whole or not at all: a temporary file beside it, then a rename, so a kill,
a full disk or a read-only folder mid-write never leaves half a file (the one helper every
writer of the project uses: replay pages here, a run's and an evaluation's files in
``train.files``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from .processes import stops_held

FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest date, for archives that compare by bytes


def write_atomically(path: Path, write: Callable[[Path], None]) -> Path:
    """``write(tmp)`` to a temporary file beside ``path`` (same suffix), then rename it over
    ``path``; on any failure the temporary file goes and ``path`` is as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.tmp{path.suffix}")  # readers skip *.tmp.* files
    with stops_held():
        try:
            write(tmp)
            os.replace(tmp, path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(exc, OSError) and exc.filename in (None, str(tmp), tmp):
                # the file the caller asked for: not our temporary one, and named even where
                # the error came from writing to an open file (a full disk's has no name)
                exc.filename = str(path)
            raise
    return path


def atomic_write(path: Path, text: str) -> Path:
    """``path`` holds ``text`` (UTF-8), written atomically."""
    return write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))

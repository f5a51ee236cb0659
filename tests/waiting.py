"""Waiting in the tests: for an event, or for a condition polled until a deadline, never for a
guessed length of time; and commands started as a person would start them at a terminal."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLL = 0.1  # seconds between two looks at a condition


def wait_for(
    done: Callable[[], bool],
    seconds: float,
    what: str,
    process: subprocess.Popen | None = None,
) -> None:
    """Return as soon as ``done()`` holds. An AssertionError saying ``what`` was awaited when
    ``seconds`` pass first, or at once when ``process`` ends first (with what it wrote to a
    piped stderr). Between looks it waits on ``process`` itself, which wakes it when it ends."""
    deadline = time.monotonic() + seconds
    while not done():
        if process is not None and process.poll() is not None:
            err = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"{what}: the process ended first ({process.returncode}) {err}")
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {seconds:g} s")
        if process is None:
            time.sleep(POLL)
            continue
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=POLL)


@contextlib.contextmanager
def ctrl_c_at_default() -> Iterator[None]:
    """Within the block, Ctrl-C at Python's default, as a command typed at a terminal has it (a
    shell that starts pytest in the background starts it ignoring SIGINT, which a child would
    inherit)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def crates_command(args: list[str], **popen) -> subprocess.Popen:
    """``python -m train.cli ARGS`` from the repository, started with Ctrl-C at its default."""
    with ctrl_c_at_default():
        return subprocess.Popen([sys.executable, "-m", "train.cli", *args], cwd=ROOT, **popen)


def lines_in(path: Path) -> int:
    """The lines a file holds so far (0 while it does not exist)."""
    try:
        return path.read_text().count("\n")
    except FileNotFoundError:
        return 0

"""Progress lines for the phases of a run that have no progress bar (the warm start's games and
epochs, the checks against the baselines, PPO with ``progress_bar: false``): a line at least
every few seconds, so no minute of a run passes in silence."""

from __future__ import annotations

import time
from collections.abc import Callable


class Progress:
    """``update(done)`` says ``what: done/total unit`` when ``every`` seconds have passed since
    the last line, and at the end."""

    def __init__(
        self,
        what: str,
        total: int,
        unit: str,
        every: float = 10.0,
        say: Callable[[str], None] = print,
    ) -> None:
        self.what, self.total, self.unit, self.every, self.say = what, total, unit, every, say
        self.start = self.last = time.perf_counter()

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if done >= self.total or now - self.last >= self.every:
            self.last = now
            self.say(
                f"{self.what}: {min(done, self.total):,}/{self.total:,} {self.unit} "
                f"({now - self.start:.0f} s)"
            )

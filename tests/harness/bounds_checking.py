"""The compiled engine's tests once more with numba's bounds checking on (an index out of range
is an IndexError, not a read past an array), compiled afresh into a cache of their own, in a
process of their own: the differential tests on a table of each preset, the input checks and
the fuzz. Compiling the engine that way keeps a core busy for a minute or two: its test starts
it (the ``bounds_checked_run`` fixture, ``tests/conftest.py``) and waits for the verdict, one of
the suite's two pytest-xdist workers waiting while the other goes on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/test_vector_fuzz.py::test_the_compiled_engine_tests_pass_with_bounds_checking"
TABLES = (
    "crates-4-options2 or crates-3-options8 or kreights-5 or craits-12 or creights-4 or "
    "crazy_eights-7 or zimbabwe-6"
)
FILES = ["tests/test_vector_fuzz.py", "tests/test_vector_input.py", "tests/test_vector.py"]


def inside() -> bool:
    """Whether this process is that run."""
    return os.environ.get("NUMBA_BOUNDSCHECK") == "1"


class BoundsCheckedRun:
    """The run, started: its output goes to a file (a pipe nobody reads until the end would
    stall a run that says much)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="crates-boundscheck-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
        env |= {"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(self.folder)}
        self.output = self.folder / "output.txt"
        with self.output.open("w") as out:
            # one process: the run is one worker's share of the machine already
            command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider"]
            tests = [*FILES, "-k", f"not step_by_step or {TABLES}"]
            self.process = subprocess.Popen(
                [*command, *tests], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )

    def verdict(self, timeout: float) -> tuple[int, str]:
        """Its exit code and the end of what it printed, once it ends."""
        code = self.process.wait(timeout=timeout)
        return code, self.output.read_text()[-6000:]

    def stop(self) -> None:
        """Ends it if it still runs (its test stopped first) and removes its folder."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

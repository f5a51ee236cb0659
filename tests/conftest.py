"""The suite opens no windows: matplotlib draws to memory (render_mode="human" then prints its
text table), whatever display the machine has.

Browser tests (the replay page, the served table) share one headless Chromium, Debian's
``chromium`` package driven by playwright's Python package, never a browser it downloads: the
``browser`` fixture. Without one they skip and say what is missing; CI (``.ci/run``) installs
both and sets ``CRATES_BROWSER_TESTS=required``, so there they fail instead of skipping.
"""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import bounds_checking

os.environ["MPLBACKEND"] = "Agg"

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# the flags that work in a container, without a network or a profile
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> list[str]:
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package (pip install -e '.[browser]')")
    if not Path(CHROMIUM).is_file():
        missing.append("Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    return missing


@pytest.fixture(scope="module")
def one_torch_thread():
    """torch on one thread for a module's tests, then as many as before (the small networks of
    the training tests run fastest so while other tests share the cores)."""
    from train.workers import torch_threads

    with torch_threads(1):
        yield


@pytest.fixture(scope="session")
def browser():
    missing = _missing()
    if missing:
        message = "no browser for the browser tests: " + " and ".join(missing)
        if os.environ.get("CRATES_BROWSER_TESTS") == "required":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:  # launch() starts from a new, empty profile of its own
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def bounds_checked_run() -> Iterator[bounds_checking.BoundsCheckedRun]:
    """The bounds-checked run, started on the worker its test lands on while the other worker
    goes on with the suite, and stopped at the test's end if it still runs."""
    run = bounds_checking.BoundsCheckedRun()
    yield run
    run.stop()

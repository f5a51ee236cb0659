"""The README's quick starts run as written, and every link between the docs leads to a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize(
    "code", re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
)
def test_the_readme_python_quick_starts_run(code, tmp_path, monkeypatch):
    # SB3 gives a model learning without TensorBoard a log folder of its own, in the system's
    # temporary folder unless SB3_LOGDIR names one: this test's, removed with it
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))
    exec(compile(code.replace("learn(10_000)", "learn(64)"), "README.md", "exec"), {})


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_between_pages_lead_to_files(page):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
        assert (page.parent / target).exists(), f"{page.name} links to missing {target}"

"""Every rule citation in the repository resolves inside it (docs/rules.md).

The code, the tests and the docs cite the rule contract by code (C-, E-, TV- and DV- numbers) and
the seed texts as ``[NNN]`` or ``[NNN:lines]``. Neither the contract nor the seeds are shipped, so
docs/rules.md carries a "Citation key" table with a row per code and a "Sources" section that
describes every seed document.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
CODE_DIRS = ("crates_env", "agents", "train", "tests")

KINDS = ("C", "E", "TV", "DV")
CODE = re.compile(r"\b(C|E|TV|DV)-(\d+)\b")
# "E-7 .. E-53", "DV-21..DV-25", "DV-01 to DV-12": a range cites every code in it.
CODE_RANGE = re.compile(r"\b(C|E|TV|DV)-(\d+)\s*(?:\.\.|to)\s*(?:\1-)?(\d+)\b")
SEED = re.compile(r"\[(00\d)(?::[\d,-]+)?\]")


def _section(text: str, title: str) -> str:
    """The body of the level-2 section ``title`` of a markdown text ('' when it is missing)."""
    match = re.search(rf"^## {re.escape(title)}[ \t]*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def _without_section(text: str, title: str) -> str:
    body = _section(text, title)
    return text.replace(body, "") if body else text


def _citing_texts() -> dict[str, str]:
    """Source and docs that cite rules, by path: the .py files of the code and the tests (this
    file aside), README.md and docs/*.md, with the citation key itself left out."""
    files = [p for d in CODE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    files += [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    texts = {}
    for path in files:
        if path.resolve() == Path(__file__).resolve() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if path.resolve() == RULES_DOC.resolve():
            text = _without_section(text, "Citation key")
        texts[str(path.relative_to(ROOT))] = text
    return texts


def _cited_codes() -> dict[str, set[str]]:
    """Every cited code (ranges expanded), with the files citing it."""
    cited: dict[str, set[str]] = {}
    for name, text in _citing_texts().items():
        codes = {f"{kind}-{num}" for kind, num in CODE.findall(text)}
        for kind, first, last in CODE_RANGE.findall(text):
            width = len(first)
            codes |= {f"{kind}-{n:0{width}d}" for n in range(int(first), int(last) + 1)}
        for code in codes:
            cited.setdefault(code, set()).add(name)
    return cited


def _key_codes() -> list[str]:
    key = _section(RULES_DOC.read_text(encoding="utf-8"), "Citation key")
    return re.findall(r"^\| ((?:C|E|TV|DV)-\d+) \|", key, re.M)


def _sort_key(code: str) -> tuple[int, int]:
    kind, num = code.split("-")
    return KINDS.index(kind), int(num)


def test_every_cited_code_is_in_the_citation_key():
    cited = _cited_codes()
    assert cited, "no rule codes found: the scan is broken"
    keyed = set(_key_codes())
    missing = {code: sorted(files) for code, files in sorted(cited.items()) if code not in keyed}
    assert not missing, f"codes cited but not in the Citation key of docs/rules.md: {missing}"


def test_citation_key_rows_are_unique_sorted_and_explained():
    key = _section(RULES_DOC.read_text(encoding="utf-8"), "Citation key")
    codes = _key_codes()
    assert codes, "docs/rules.md has no Citation key rows"
    assert len(codes) == len(set(codes)), "a code has two rows"
    assert codes == sorted(codes, key=_sort_key), "rows are not sorted by kind, then number"
    for code in codes:
        row = re.search(rf"^\| {re.escape(code)} \|(.*)\|[ \t]*$", key, re.M)
        assert row and len(row.group(1).strip()) > 20, f"{code} has no explanation"


def test_every_cited_seed_document_is_described_in_sources():
    cited: dict[str, set[str]] = {}
    for name, text in _citing_texts().items():
        for doc in SEED.findall(text):
            cited.setdefault(doc, set()).add(name)
    assert cited, "no seed citations found: the scan is broken"
    sources = _section(RULES_DOC.read_text(encoding="utf-8"), "Sources")
    described = set(re.findall(r"^\| `\[(\d{3})\]` \|", sources, re.M))
    missing = {doc: sorted(files) for doc, files in sorted(cited.items()) if doc not in described}
    assert not missing, f"seed documents cited but not described in Sources: {missing}"

"""Every rule citation in the repository resolves inside it (docs/rules.md).

The code, the tests and the docs cite the rule contract by section (``§1.15``, ranges such as
``§1.3-1.15``), by policy (``P1`` to ``P6``), by label (``SILENT→``, ``INH``, ``DERIVED``) and by
code (C-, E-, TV- and DV- numbers), and the seed texts as ``[NNN]`` or ``[NNN:lines]``. The seeds
are not shipped, and the contract is docs/rules.md itself: its "The rules by section" has a
heading per section, "Engine-wide policies" one per policy and the labels, the "Citation key" a
row per code, and "Sources" describes every seed document. Nothing cites a file outside the
repository.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
CODE_DIRS = ("crates_env", "agents", "train", "tests", "benchmarks", "docs")

KINDS = ("C", "E", "TV", "DV")
CODE = re.compile(r"\b(C|E|TV|DV)-(\d+)\b")
# "E-7 .. E-53", "DV-21..DV-25", "DV-01 to DV-12": a range cites every code in it.
CODE_RANGE = re.compile(r"\b(C|E|TV|DV)-(\d+)\s*(?:\.\.|to)\s*(?:\1-)?(\d+)\b")
SEED = re.compile(r"\[(00\d)(?::[\d,-]+)?\]")
# "§1.15", "§4", a range "§1.3-1.15" (both ends must exist)
SECTION = re.compile(r"§(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?")
POLICY = re.compile(r"\bP(\d+)\b")
LABELS = ("SILENT→", "INH", "DERIVED")
# a citation of the contract or the seeds that leads out of the repository
OUTSIDE = re.compile(r"RULES\.md|shared/|seeds/")


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
    files += [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / ".ci" / "run"]
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


def _defined_sections() -> set[str]:
    """The section numbers docs/rules.md explains: its ``### §N`` and ``#### §N.M`` headings."""
    text = _section(RULES_DOC.read_text(encoding="utf-8"), "The rules by section")
    return set(re.findall(r"^#{3,4} §(\d+(?:\.\d+)?) \S", text, re.M))


def _defined_policies() -> set[str]:
    text = _section(RULES_DOC.read_text(encoding="utf-8"), "Engine-wide policies")
    return set(re.findall(r"^### P(\d+): \S", text, re.M))


def _unresolved(texts: dict[str, str]) -> dict[str, list[str]]:
    """Per file, the citations in ``texts`` that lead nowhere in the repository: a section or a
    policy docs/rules.md does not explain, a label it does not define, a path outside."""
    sections, policies = _defined_sections(), _defined_policies()
    labels = _section(RULES_DOC.read_text(encoding="utf-8"), "Engine-wide policies")
    found: dict[str, list[str]] = {}
    for name, text in texts.items():
        wrong = [f"§{n}" for ends in SECTION.findall(text) for n in ends if n and n not in sections]
        wrong += [f"P{n}" for n in POLICY.findall(text) if n not in policies]
        wrong += [label for label in LABELS if label in text and f"**{label}" not in labels]
        wrong += OUTSIDE.findall(text)
        if wrong:
            found[name] = sorted(set(wrong))
    return found


def test_every_cited_section_policy_and_label_is_explained_in_docs_rules():
    texts = _citing_texts()
    cited = "".join(texts.values())
    assert SECTION.search(cited) and POLICY.search(cited), "no citations found: the scan is broken"
    assert len(_defined_sections()) >= 30 and _defined_policies() == {str(n) for n in range(1, 7)}
    assert _unresolved(texts) == {}


def test_no_citation_leads_out_of_the_repository():
    """The rule contract is docs/rules.md itself: no file names another contract or the seed
    files, and docs/rules.md links to nothing outside the repository."""
    rules = RULES_DOC.read_text(encoding="utf-8")
    assert not OUTSIDE.search(rules)
    links = re.findall(r"\]\(([^)#]+)", rules)
    assert all((RULES_DOC.parent / link).resolve().is_relative_to(ROOT) for link in links)
    outside = {
        name: w for name, w in _unresolved(_citing_texts()).items() if OUTSIDE.search(" ".join(w))
    }
    assert outside == {}


def test_the_check_finds_a_citation_that_leads_nowhere():
    planted = {
        "a.py": "the count (docs/rules.md §1.5, P2)",
        "b.py": "see RULES.md §9.9 and P7; SILENT→ nothing",
        "c.md": "ranges §1.3-1.15 resolve, §1.3-1.99 does not",
    }
    assert _unresolved(planted) == {"b.py": ["P7", "RULES.md", "§9.9"], "c.md": ["§1.99"]}

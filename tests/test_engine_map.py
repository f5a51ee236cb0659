"""docs/engine.md's two maps hold the code's real names: the adapters from games to trainers
(the diagram and its table) and the rule map (each reference-engine rule function, its compiled
twin and the differential test that holds them equal; HeuristicAgent and its compiled twin).

Names are found in the source (``ast``), so the check needs none of the optional extras."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "engine.md"
# an adapter is a class of the library built on one of these (an API a trainer speaks)
ADAPTER_BASES = {
    "AECEnv",
    "OrderEnforcingWrapper",
    "Env",
    "VectorEnv",
    "VectorWrapper",
    "VecEnv",
    "SingleAgentEnvRunner",
    "GameBatch",
}
LIBRARY = ("crates_env", "agents", "train")
# the reference engine's rule classes, by module (crates_env/<module>.py)
RULE_CLASSES = {
    "game": ("Game",),
    "crates": ("CratesGame", "CratesTurn"),
    "calls": ("OneCardCalls",),
    "misplays": ("Misplays",),
    "eights": ("EightsGame", "EightsTurn"),
    "scoring": (),
}
# HeuristicAgent's methods that are no part of its play (building it, deciding in batches)
NOT_PLAY = {"__init__", "act_batch", "_group", "_act_group", "_arrays"}


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}[ \t]*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/engine.md has no section {title!r}"
    return match.group(1)


def _tables(text: str) -> list[list[list[str]]]:
    """Every markdown table of ``text``: its rows (header and rule lines left out), cells
    stripped."""
    tables, rows = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif rows:
            tables.append(rows[1:])
            rows = []
    return tables


@cache
def _names(path: Path) -> dict[str, set[str]]:
    """What a module defines: ``{"": top-level names, "Class": its methods}``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found[""].add(node.name)
            found[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            found[""].add(node.name)
        elif isinstance(node, ast.ImportFrom):
            found[""] |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Assign):
            found[""] |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def _resolves(dotted: str) -> bool:
    """Whether ``package.module.Name`` or ``package.module.Class.method`` is defined in the
    repository's source."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        path = (
            base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        )
        if not path.is_file():
            continue
        rest = parts[cut:]
        names = _names(path)
        if len(rest) == 1:
            return rest[0] in names[""]
        return len(rest) == 2 and rest[1] in names.get(rest[0], set())
    return False


def _test_exists(node: str) -> bool:
    """``tests/test_x.py::test_name`` names a test function of that file."""
    file, _, name = node.partition("::")
    path = ROOT / file
    return path.is_file() and name in _names(path)[""] and name.startswith("test_")


def _adapters_in_code() -> set[str]:
    found = set()
    for top in LIBRARY:
        for path in sorted((ROOT / top).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef):
                    bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                             for b in node.bases}  # fmt: skip
                    if bases & ADAPTER_BASES:
                        found.add(f"{module}.{node.name}")
    return found


DOTTED = re.compile(r"\b((?:crates_env|agents|train)(?:\.\w+)+)")


def _diagram() -> str:
    match = re.search(r"```mermaid\n(.*?)```", _section("From games to trainers"), re.S)
    assert match, "the adapter diagram is missing"
    return match.group(1)


def test_every_name_of_the_adapter_diagram_and_table_is_in_the_code():
    names = set(DOTTED.findall(_diagram()))
    for row in _tables(_section("From games to trainers"))[0]:
        names |= set(DOTTED.findall(row[0]))
    assert len(names) > 10, names
    assert sorted(n for n in names if not _resolves(n)) == []


def test_every_adapter_of_the_code_is_in_the_diagram_and_says_why_it_exists():
    diagram = set(DOTTED.findall(_diagram()))
    table = {row[0].strip("`"): row[1] for row in _tables(_section("From games to trainers"))[0]}
    adapters = _adapters_in_code()
    assert {"crates_env.env.raw_env", "train.vec_env.SelfPlayVecEnv"} <= adapters
    assert sorted(adapters - diagram) == []
    assert sorted(adapters - set(table)) == []
    assert all(len(why) > 40 for why in table.values())
    assert set(table) <= diagram


def _rule_map() -> tuple[list[list[str]], dict[str, str], list[list[str]]]:
    rows, legend, heuristic = _tables(_section("The rule map"))
    return rows, {key: where.strip("`") for key, _, where in legend}, heuristic


def _rule_functions() -> set[str]:
    """Every function of the engines' rules: the methods of the rule classes (properties and
    dunders aside) and the public functions of their modules and of the scoring module."""
    found = set()
    for module, classes in RULE_CLASSES.items():
        tree = ast.parse((ROOT / "crates_env" / f"{module}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                found.add(f"{module}.{node.name}")
            if isinstance(node, ast.ClassDef) and node.name in classes:
                for f in node.body:
                    if not isinstance(f, ast.FunctionDef) or f.name.startswith("__"):
                        continue
                    if "property" not in {getattr(d, "id", "") for d in f.decorator_list}:
                        found.add(f"{module}.{node.name}.{f.name}")
    return found


def test_the_rule_map_pairs_real_functions_with_real_twins_and_tests():
    rows, legend, _ = _rule_map()
    assert legend and all(_test_exists(node) for node in legend.values()), legend
    wrong = []
    for reference, twin, test in rows:
        if not _resolves("crates_env." + reference.strip("`")):
            wrong.append(reference)
        if twin.startswith("none"):
            assert test == "none" and len(twin) > 20, (reference, twin)
        elif not _resolves("crates_env.vector." + twin.strip("`")) or test not in legend:
            wrong.append(f"{reference}: {twin}, {test}")
    assert wrong == []


def test_every_rule_function_of_the_engines_has_its_row_once():
    rows, _, _ = _rule_map()
    listed = [row[0].strip("`") for row in rows]
    assert len(listed) == len(set(listed)), "a function has two rows"
    rules = _rule_functions()
    assert len(rules) > 100
    assert sorted(rules - set(listed)) == []
    assert sorted(set(listed) - rules) == []


def test_heuristic_agents_map_pairs_each_method_of_its_play_with_its_twin():
    _, _, rows = _rule_map()
    play = _names(ROOT / "agents" / "scripted.py")["HeuristicAgent"] - NOT_PLAY
    assert sorted(play - {row[0].strip("`") for row in rows}) == []
    for method, twin, test in rows:
        assert _resolves("agents.scripted.HeuristicAgent." + method.strip("`"))
        if not twin.startswith("none"):
            assert _resolves("agents.heuristic_batch." + twin.strip("`")), twin
            assert _test_exists(test.strip("`")), test


@pytest.mark.parametrize(
    ("dotted", "found"),
    [
        ("crates_env.vector.table.draw", True),
        ("crates_env.vector.table.no_such_kernel", False),
        ("crates_env.game.Game._draw", True),
        ("crates_env.game.Game._no_such_rule", False),
        ("crates_env.vector.VectorGame", True),  # imported by the package
        ("crates_env.no_module.Game", False),
    ],
)
def test_the_check_tells_a_real_name_from_a_wrong_one(dotted, found):
    assert _resolves(dotted) is found

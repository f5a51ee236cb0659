"""The layers import one way: engine and environment (crates_env) <- agents <- training <-
evaluation's users; evaluation needs nothing of training but its worker processes and the rule
checks of the config; only the command line imports the command line."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("crates_env", "agents", "train")


def _group(module: str) -> str:
    """The layer a module belongs to: crates_env, agents, train.evaluation, train.cli, or
    train (the training modules)."""
    parts = module.split(".")
    if parts[0] == "train" and len(parts) > 1 and parts[1] in ("evaluation", "cli"):
        return ".".join(parts[:2])
    return parts[0]


def _imports(module: str, source: str) -> set[str]:
    """The modules of this project that ``source`` (of ``module``) imports, relative imports
    resolved."""
    package = module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                found.add(".".join([*base, *([node.module] if node.module else [])]))
            else:
                found.add(node.module)
    return {m for m in found if m.split(".")[0] in OURS}


ALLOWED = {
    "crates_env": {"crates_env"},
    "agents": {"crates_env", "agents"},
    "train": {"crates_env", "agents", "train", "train.evaluation"},
    # evaluation is training's tool, not its user: only the worker processes and the rule checks
    "train.evaluation": {
        "crates_env",
        "agents",
        "train.evaluation",
        "train.workers",
        "train.config",
    },
    "train.cli": {"crates_env", "agents", "train", "train.evaluation", "train.cli"},
}


def _allowed(group: str, imported: str) -> bool:
    allowed = ALLOWED[group]
    return _group(imported) in allowed or imported in allowed


MODULES = sorted(p.relative_to(ROOT) for top in OURS for p in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=str)
def test_each_module_imports_only_its_own_layer_and_those_below(path):
    module = ".".join(path.with_suffix("").parts)
    group = _group(module)
    wrong = sorted(m for m in _imports(module, (ROOT / path).read_text()) if not _allowed(group, m))
    assert not wrong, f"{module} ({group}) imports {wrong}"


def test_the_layer_check_sees_a_wrong_import():
    """A planted upward import (the engine reaching for an agent) is caught, and relative
    imports resolve to their package."""
    assert _imports("crates_env.game", "from agents import RandomAgent\n") == {"agents"}
    assert _imports("train.cli.commands", "from .play import x\n") == {"train.cli.play"}
    assert _imports("train.evaluation.__init__", "from . import games\n") == {"train.evaluation"}
    assert not _allowed("crates_env", "agents")
    assert not _allowed("train.evaluation", "train.ppo")
    assert _allowed("train.evaluation", "train.workers")

"""The layers import one way, and no two modules import each other, lazy imports included.

The arrows: the engine (``crates_env``: rules, games, observations, the environment's settings
and payouts, the batch interface ``crates_env.batch``) <- its compiled twin (``crates_env.vector``)
and the environment (``crates_env.env``, the Gymnasium wrapper, ``crates_v0``, and its pictures
of the table, ``crates_env.render``) <- agents <- training <- the command line. The choice of
engine for a batch of games (``crates_env.engine_choice``) reads the engine and the twin; the
Gymnasium vector env (``crates_env.vector_env``) reads the choice and the environment.
Evaluation needs nothing of training but its worker processes and the rule checks of the
config.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("crates_env", "agents", "train")
ENVIRONMENT = ("crates_env.env", "crates_env.wrappers", "crates_env.crates_v0")
RENDER = "crates_env.render"  # the environment's pictures (and the replay pages)
ENGINE_CHOICE = "crates_env.engine_choice"
VECTOR_ENV = "crates_env.vector_env"


def _module(path: Path) -> str:
    """``crates_env/vector/table.py`` -> ``crates_env.vector.table`` (a package: its name)."""
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module(p.relative_to(ROOT)): p for top in OURS for p in sorted((ROOT / top).rglob("*.py"))
}


def _group(module: str) -> str:
    """The layer a module belongs to: engine, twin, engine choice, environment, vector env,
    agents, train.evaluation, train.cli, or train (the training modules)."""
    parts = module.split(".")
    named = {ENGINE_CHOICE: "engine choice", VECTOR_ENV: "vector env"}
    if module in named:
        return named[module]
    if module in ENVIRONMENT or module == RENDER or module.startswith(RENDER + "."):
        return "environment"
    if parts[0] == "crates_env":
        return "twin" if parts[:2] == ["crates_env", "vector"] else "engine"
    if parts[0] == "train" and len(parts) > 1 and parts[1] in ("evaluation", "cli"):
        return ".".join(parts[:2])
    return parts[0]


def _imports(module: str, source: str, is_package: bool = False) -> set[str]:
    """The modules of this project that ``source`` (of ``module``) imports anywhere in it
    (inside functions too), relative imports resolved; ``from package import name`` is the
    submodule when ``name`` is one, the package otherwise."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            submodules = {f"{base}.{a.name}" for a in node.names} & MODULES.keys()
            found |= submodules
            if len(submodules) < len(node.names):
                found.add(base)
    return {m for m in found if m.split(".")[0] in OURS}


def _graph() -> dict[str, set[str]]:
    """Each module of ours and the modules of ours it imports."""
    return {
        module: _imports(module, path.read_text(), path.name == "__init__.py") - {module}
        for module, path in MODULES.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (Tarjan's
    strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


ENGINE_SIDE = {"engine", "twin", "engine choice", "environment", "vector env"}
ALLOWED = {
    "engine": {"engine"},
    "twin": {"engine", "twin"},
    "engine choice": {"engine", "twin"},
    "environment": {"engine", "environment"},
    "vector env": {"engine", "engine choice", "environment"},
    "agents": {*ENGINE_SIDE, "agents"},
    "train": {*ENGINE_SIDE, "agents", "train", "train.evaluation"},
    # evaluation is training's tool, not its user: only the worker processes and the rule checks
    "train.evaluation": {
        *ENGINE_SIDE,
        "agents",
        "train.evaluation",
        "train.workers",
        "train.config",
    },
    "train.cli": {*ENGINE_SIDE, "agents", "train", "train.evaluation", "train.cli"},
}


def _allowed(group: str, imported: str) -> bool:
    allowed = ALLOWED[group]
    return _group(imported) in allowed or imported in allowed


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports_only_its_own_layer_and_those_below(module):
    path = MODULES[module]
    group = _group(module)
    imported = _imports(module, path.read_text(), path.name == "__init__.py")
    wrong = sorted(m for m in imported if not _allowed(group, m))
    assert not wrong, f"{module} ({group}) imports {wrong}"


def test_no_two_modules_import_each_other():
    assert _cycles(_graph()) == []


def test_the_layer_check_sees_a_wrong_import_and_a_cycle():
    """A planted upward import (the engine reaching for an agent, the twin for the
    environment) is caught, relative imports resolve to their module, and a loop of imports
    (however long, lazy or not) is a cycle."""
    assert _imports("crates_env.game", "from agents import RandomAgent\n") == {"agents"}
    assert _imports("train.cli.commands", "from .play import x\n") == {"train.cli.play"}
    assert _imports("train.evaluation", "from . import games\n", True) == {"train.evaluation.games"}
    assert _imports("agents.rllib", "def f():\n    from . import make_agent\n") == {"agents"}
    assert not _allowed("engine", "agents")
    assert not _allowed("twin", "crates_env.env")
    assert not _allowed("engine", "crates_env.render.raster")
    assert not _allowed("twin", "crates_env.render")
    assert _allowed("environment", "crates_env.render.table")
    assert not _allowed("twin", ENGINE_CHOICE) and not _allowed("environment", VECTOR_ENV)
    assert _allowed("twin", "crates_env.batch")  # the batch interface is below the twin
    assert _group(VECTOR_ENV) == "vector env" and _group("crates_env.vector.vector_game") == "twin"
    assert not _allowed("train.evaluation", "train.ppo")
    assert _allowed("train.evaluation", "train.workers")
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


PROCESSES = "crates_env.processes"
# the operating system's side of a process: signals, the cores and memory, a worker's parent
OS_MODULES = {"signal", "ctypes", "_thread", "resource"}
OS_CALLS = {"sched_getaffinity", "sched_setaffinity", "sysconf", "getppid", "_exit", "kill", "nice"}


def _os_plumbing(source: str) -> list[str]:
    """What of the OS plumbing ``source`` reaches for: modules imported, ``os.`` calls."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found += [n for n in names if n in OS_MODULES]
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value) == "os":
            found += [f"os.{node.attr}"] if node.attr in OS_CALLS else []
    return found


def test_the_process_plumbing_lives_in_one_module():
    """Signals held or turned into a clean stop, the cores and memory, workers tied to their
    parent: ``crates_env.processes`` alone deals with the operating system for them."""
    assert _os_plumbing("import signal\nx = os.sched_getaffinity(0)\n") == [
        "signal",
        "os.sched_getaffinity",
    ]
    assert _os_plumbing(MODULES[PROCESSES].read_text())
    elsewhere = {m: _os_plumbing(p.read_text()) for m, p in MODULES.items() if m != PROCESSES}
    assert {m: found for m, found in elsewhere.items() if found} == {}


def _reached_from(module: str, graph: dict[str, set[str]]) -> set[str]:
    """Every module of ours that importing ``module`` may load, lazy imports included."""
    seen, todo = set(), [module]
    while todo:
        for imported in graph[todo.pop()] - seen:
            seen.add(imported)
            todo.append(imported)
    return seen


def test_the_rllib_backend_imports_nothing_of_the_sb3_trainer():
    """Not train.ppo or SB3's VecEnv (train.vec_env), however deep or lazy the import, and a
    fresh ``import train.rllib`` loads neither stable-baselines3 nor sb3-contrib."""
    assert not _reached_from("train.rllib", _graph()) & {"train.ppo", "train.vec_env"}
    assert _loaded_by("import train.rllib", ("stable_baselines3", "sb3_contrib")) == []


def _loaded_by(statement: str, libraries: tuple[str, ...]) -> list[str]:
    """Which of ``libraries`` a fresh interpreter has loaded after ``statement``."""
    code = f"{statement}; import json, sys; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return sorted({m.split(".")[0] for m in json.loads(out)} & set(libraries))


@pytest.mark.parametrize(
    "package", ["crates_env", "crates_env.vector", "crates_env.batch", ENGINE_CHOICE]
)
def test_the_engine_and_its_twin_load_no_rl_library(package):
    libraries = ("gymnasium", "pettingzoo", "torch", "matplotlib")
    assert _loaded_by(f"import {package}", libraries) == []


def test_the_scripted_agents_load_neither_pettingzoo_nor_gymnasium():
    """RandomAgent, GreedyAgent and HeuristicAgent at a table need the engine's numpy modules
    alone (a network's agent loads torch only when its checkpoint is loaded)."""
    statement = (
        "from agents import GreedyAgent, HeuristicAgent, RandomAgent, Table; "
        "t = Table.from_rules('crates', 4); [RandomAgent(0), GreedyAgent(t), HeuristicAgent(t)]"
    )
    libraries = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")
    assert _loaded_by(statement, libraries) == []


@pytest.mark.parametrize("package", ["crates_env.render", "crates_env.env"])
def test_matplotlib_loads_only_when_a_frame_is_drawn(package):
    """The pictures and the environment import no matplotlib (nor torch): a replay page and
    render_mode="ansi" never need it; the first frame of rgb_array or human loads it."""
    assert _loaded_by(f"import {package}", ("matplotlib", "torch")) == []
    draw = (
        "from crates_env import crates_v0; e = crates_v0.env(render_mode='rgb_array'); "
        "e.reset(seed=0); e.render()"
    )
    assert _loaded_by(draw, ("matplotlib",)) == ["matplotlib"]


@pytest.mark.parametrize("package", ["train", "train.evaluation", "train.cli"])
def test_each_packages_map_names_every_module_in_it(package):
    """The docstring of a package of ``train`` names each of its modules (``name``), so the
    map a newcomer reads first is never stale."""
    folder = ROOT.joinpath(*package.split("."))
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("__")}
    assert modules and sorted(m for m in modules if f"``{m}``" not in doc) == []

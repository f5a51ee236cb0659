"""The benchmark scripts (``benchmarks/*.py``, not a package) loaded as modules, for tests of
their helpers."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, imported."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would: a dataclass of the script looks itself up
    spec.loader.exec_module(module)
    return module

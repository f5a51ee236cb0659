"""The optional extras' tests skip, saying what to install, where the extra is missing
(``pip install -e ".[test]"`` alone runs the core suite; CI runs it so, and with every extra)."""

import importlib.util

import pytest


def needs(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` (of the optional extra ``extra``) is installed."""
    return pytest.mark.skipif(
        importlib.util.find_spec(module) is None,
        reason=f"{module} is not installed: the optional extra {extra}, "
        f"pip install -e '.[{extra}]'",
    )

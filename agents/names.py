"""Agents by name, as the command line, the configs and evaluation spell them: ``random``,
``greedy``, ``heuristic``, ``search`` with its settings after a colon
(``search:samples=16,stock_max=10,base=shipped,z=1``) and ``shipped``, the network the package
ships (``agents.shipped``). ``agents.make_agent`` also takes a checkpoint's path.
"""

from __future__ import annotations

from . import shipped
from .base import Agent, Table
from .policy import PolicyAgent
from .scripted import GreedyAgent, HeuristicAgent, RandomAgent
from .search import EVERYWHERE, SearchAgent

AGENT_NAMES = ("random", "greedy", "heuristic", "search", shipped.SHIPPED)


def _stock(text: str) -> int:
    """A ``stock_max`` setting: a number of cards, or ``all`` (search from the first move)."""
    return EVERYWHERE if text == "all" else int(text)


def _flag(text: str) -> bool:
    """A yes-or-no setting: ``true`` or ``false``."""
    if text not in ("true", "false"):
        raise ValueError(text)
    return text == "true"


SEARCH_SETTINGS = {
    "samples": int,
    "stock_max": _stock,
    "base": str,
    "z": float,
    "deepen": int,
    "deepen_at": float,
    "other_table": _flag,
}


def agent_by_name(spec: str, table: Table, seed: int | None = None) -> Agent:
    """The agent ``spec`` names (one of ``AGENT_NAMES``, ``search`` with settings); ValueError
    naming the valid names (or settings) for anything else."""
    name, colon, settings = spec.partition(":")
    if name == "search":
        return SearchAgent(table, seed=seed, **search_settings(settings))
    if name == "random" and not colon:
        return RandomAgent(seed)
    if name == "greedy" and not colon:
        return GreedyAgent(table)
    if name == "heuristic" and not colon:
        return HeuristicAgent(table, seed)
    if name == shipped.SHIPPED and not colon:
        return PolicyAgent(shipped.shipped_network(table.ruleset), table=table)
    raise ValueError(
        f"unknown agent {spec!r}: valid names are {', '.join(AGENT_NAMES)} (search:setting=value,"
        f"... with settings {', '.join(SEARCH_SETTINGS)}), the path of an existing "
        "checkpoint (.zip), policy file (TorchScript .pt, exported .pt2) or RLlib "
        "module folder, or a class by import path (my_pkg.bots:MyAgent)"
    )


def search_settings(text: str) -> dict[str, int | float | str]:
    """``"samples=16,stock_max=10"`` -> ``{"samples": 16, "stock_max": 10}`` (SearchAgent's
    keyword arguments); ValueError naming the valid settings for anything else."""
    settings: dict[str, int | float | str] = {}
    for item in filter(None, text.split(",")):
        key, equals, value = item.partition("=")
        if key not in SEARCH_SETTINGS or not equals:
            raise ValueError(
                f"search setting {item!r}: write name=value with a name among "
                f"{', '.join(SEARCH_SETTINGS)}"
            )
        try:
            settings[key] = SEARCH_SETTINGS[key](value)
        except ValueError:
            kind = {int: "an integer", _stock: "an integer or all", _flag: "true or false"}.get(
                SEARCH_SETTINGS[key], "a number"
            )
            raise ValueError(f"search setting {key} must be {kind}, not {value!r}") from None
    return settings

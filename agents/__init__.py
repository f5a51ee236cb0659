"""Agents for Crates: scripted players and a trained-policy player, all behind one protocol."""

from __future__ import annotations

from pathlib import Path

from .base import Agent, BaseAgent, Table, decide
from .policy import PolicyAgent, is_rllib_module
from .scripted import GreedyAgent, HeuristicAgent, RandomAgent
from .search import SearchAgent

AGENT_NAMES = ("random", "greedy", "heuristic", "search")


def make_agent(spec: str, table: Table, seed: int | None = None) -> Agent:
    """An agent by name ("random", "greedy", "heuristic", "search": SearchAgent over
    HeuristicAgent), the path of a MaskablePPO checkpoint (.zip) or of a folder holding an RLlib
    module (``crates train --backend rllib``'s ``rllib_policy``). SearchAgent takes settings
    after a colon, ``search:samples=16,stock_max=10,base=checkpoints/crates_4p.zip,z=1``. Raises
    ``ValueError`` naming the valid names (or settings) for anything else."""
    if Path(spec).is_file():
        return PolicyAgent(spec, table=table)
    if is_rllib_module(Path(spec)):
        from .rllib import RLlibPolicyAgent  # RLlib is an optional extra

        return RLlibPolicyAgent(spec, table)
    name, colon, settings = spec.partition(":")
    if name == "search":
        return SearchAgent(table, seed=seed, **search_settings(settings))
    if name == "random" and not colon:
        return RandomAgent(seed)
    if name == "greedy" and not colon:
        return GreedyAgent(table)
    if name == "heuristic" and not colon:
        return HeuristicAgent(table, seed)
    raise ValueError(
        f"unknown agent {spec!r}: valid names are {', '.join(AGENT_NAMES)} (search:setting=value,"
        f"... with settings {', '.join(SEARCH_SETTINGS)}), or the path of an existing "
        "MaskablePPO checkpoint (.zip) or RLlib module folder"
    )


SEARCH_SETTINGS = {"samples": int, "stock_max": int, "base": str, "z": float}


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
            kind = "an integer" if SEARCH_SETTINGS[key] is int else "a number"
            raise ValueError(f"search setting {key} must be {kind}, not {value!r}") from None
    return settings


__all__ = [
    "AGENT_NAMES",
    "Agent",
    "BaseAgent",
    "GreedyAgent",
    "HeuristicAgent",
    "PolicyAgent",
    "RandomAgent",
    "SearchAgent",
    "Table",
    "decide",
    "make_agent",
    "search_settings",
]

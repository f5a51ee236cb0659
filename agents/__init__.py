"""Agents for Crates: scripted players and a trained-policy player, all behind one protocol."""

from __future__ import annotations

from pathlib import Path

from .base import Agent, BaseAgent, Table, decide
from .policy import PolicyAgent
from .scripted import GreedyAgent, HeuristicAgent, RandomAgent
from .search import SearchAgent

AGENT_NAMES = ("random", "greedy", "heuristic", "search")


def make_agent(spec: str, table: Table, seed: int | None = None) -> Agent:
    """An agent by name ("random", "greedy", "heuristic", "search": SearchAgent over
    HeuristicAgent) or the path of a MaskablePPO checkpoint (.zip). Raises ``ValueError``
    naming the valid names for anything else."""
    if spec == "random":
        return RandomAgent(seed)
    if spec == "greedy":
        return GreedyAgent(table)
    if spec == "heuristic":
        return HeuristicAgent(table, seed)
    if spec == "search":
        return SearchAgent(table, seed=seed)
    if Path(spec).is_file():
        return PolicyAgent(spec, table=table)
    raise ValueError(
        f"unknown agent {spec!r}: valid names are {', '.join(AGENT_NAMES)}, or the path of an "
        "existing MaskablePPO checkpoint (.zip)"
    )


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
]

"""Agents for Crates: scripted players, trained-policy players and a search, all behind one
protocol (``Agent``)."""

from __future__ import annotations

from pathlib import Path

from .base import Agent, Explanation, Table, decide_batch
from .names import AGENT_NAMES, agent_by_name, search_settings
from .policy import PolicyAgent, is_rllib_module
from .scripted import GreedyAgent, HeuristicAgent, RandomAgent
from .search import SearchAgent
from .shipped import shipped_network
from .user import (
    SCRIPT_SUFFIXES,
    TorchScriptAgent,
    UserAgent,
    agent_by_import_path,
    is_import_path,
)


def make_agent(
    spec: str, table: Table, seed: int | None = None, other_table: bool = False
) -> Agent:
    """An agent by name ("random", "greedy", "heuristic", "search": SearchAgent over
    HeuristicAgent, "shipped": the network the package ships), the path of a MaskablePPO
    checkpoint (.zip) or of a folder holding an RLlib module (``crates train --backend
    rllib``'s ``rllib_policy``). SearchAgent takes settings after a colon,
    ``search:samples=16,stock_max=10,base=shipped,z=1``. Agents written elsewhere come in by
    import path, ``my_pkg.bots:MyAgent``, or as a policy file (TorchScript ``.pt``, exported
    ``.pt2``): ``agents.user``. Raises ``ValueError`` naming the valid names (or settings) for
    anything else. ``other_table``: a checkpoint path plays even at a table outside the set it
    learned (``PolicyAgent``'s, a measurement: ``crates eval --other-table``); the shipped
    network and a search's base keep to theirs."""
    if Path(spec).is_file():
        if Path(spec).suffix in SCRIPT_SUFFIXES:
            return TorchScriptAgent(spec, table=table, seed=seed)
        return PolicyAgent(spec, table=table, other_table=other_table)
    if is_import_path(spec, AGENT_NAMES):
        return agent_by_import_path(spec, table, seed)
    if Path(spec).suffix in (".zip", *SCRIPT_SUFFIXES) and spec.split(":")[0] not in AGENT_NAMES:
        raise ValueError(f"agent {spec!r}: no such file; check the path of the checkpoint")
    if is_rllib_module(Path(spec)):
        from .rllib import RLlibPolicyAgent  # RLlib is an optional extra

        return RLlibPolicyAgent(spec, table)
    return agent_by_name(spec, table, seed)


__all__ = [
    "AGENT_NAMES",
    "Agent",
    "Explanation",
    "GreedyAgent",
    "HeuristicAgent",
    "PolicyAgent",
    "RandomAgent",
    "SearchAgent",
    "Table",
    "TorchScriptAgent",
    "UserAgent",
    "decide_batch",
    "make_agent",
    "search_settings",
    "shipped_network",
]

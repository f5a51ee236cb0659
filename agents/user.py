"""Agents written by other code: a class by its import path, or a TorchScript policy file.

A policy trained outside this package (a CleanRL-style script, TorchRL, Tianshou, your own
code) meets the baselines from the command line in one of two ways:

- **A class or factory by import path**, ``my_pkg.bots:MyAgent``: anything with
  ``act(observation, action_mask) -> int``, and optionally ``act_batch(observations,
  action_masks) -> actions`` (a batch of rows at once), ``reset()`` (called at each game's
  start) and ``explain(observation, action_mask, env=..., search=...)`` (``env``: the game).
  It is called with the keyword
  arguments it accepts among ``table`` (the ``agents.Table`` of the game: layout, players, card
  points) and ``seed``; the module must be importable where the games are played (Ray workers
  too). ``UserAgent`` adapts what it makes to the agent protocol (``agents.Agent``), so it need
  not know this package's classes.
- **A policy file**: a TorchScript module (``.pt``, ``torch.jit.script(...).save``) or an
  exported program (``.pt2``, ``torch.export.save``, exported with a dynamic batch dimension)
  mapping observations (float32, ``(batch, obs_size)``) and action masks (bool, ``(batch,
  63)``) to action logits ``(batch, 63)``. The agent plays the best legal action, as a
  checkpoint's ``PolicyAgent`` does.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import numpy as np

from crates_env.actions import NUM_ACTIONS
from crates_env.game import Game

from .base import Agent, Games, Table
from .checkpoints import first_line
from .policy import PolicyAgent

IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
SCRIPT_SUFFIXES = (".pt", ".pt2")


def is_import_path(spec: str, names: tuple[str, ...] = ()) -> bool:
    """``module.path:Name`` or ``module:Name`` (a module, a colon, a name in it), unless the
    module part is one of the agent ``names`` (``search:z`` is SearchAgent's setting)."""
    return bool(IMPORT_PATH.match(spec)) and spec.partition(":")[0] not in names


def agent_by_import_path(spec: str, table: Table, seed: int | None = None) -> Agent:
    """The agent ``module:Name`` makes, called with those of ``table`` and ``seed`` it accepts
    (adapted by ``UserAgent`` unless it is an ``agents.Agent`` already); ValueError naming the
    spec and what is wrong."""
    module_name, _, name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and module_name.startswith(exc.name or "\0"):
            hint = (
                f": add the folder that holds {module_name.split('.')[0]} to PYTHONPATH (the "
                "crates command does not import from the folder it runs in)"
            )
        raise ValueError(f"agent {spec!r}: cannot import {module_name} ({exc}){hint}") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise ValueError(f"agent {spec!r}: {module_name} has no class or function {name}")
    offered = {"table": table, "seed": seed}
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature: call it bare
        params = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    try:
        agent = factory(**{k: v for k, v in offered.items() if takes_any or k in params})
    except Exception as exc:  # the user's code, whatever it raises: one line, not its traceback
        raise ValueError(
            f"agent {spec!r}: cannot build {name}: {type(exc).__name__}: {first_line(exc)} "
            "(it is called with those of table and seed it takes)"
        ) from None
    if isinstance(agent, Agent):
        return agent
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"agent {spec!r}: {type(agent).__name__} has no act(observation, action_mask) "
            "method (the agent protocol: act, and optionally act_batch and reset)"
        )
    return UserAgent(agent)


class UserAgent(Agent):
    """An agent written elsewhere, adapted to the agent protocol: its ``act(observation,
    action_mask)``, and its ``act_batch``, ``reset`` and ``explain`` where it has them (the
    protocol's defaults where it has not). It never looks ahead: it is not given the game."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        # what the object offers beyond act, found once here, at the boundary
        self._offers = {
            name
            for name in ("act_batch", "reset", "explain")
            if callable(getattr(agent, name, None))
        }

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        return int(self.agent.act(observation, action_mask))

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        if "act_batch" not in self._offers:
            return super().act_batch(observations, action_masks)
        return np.asarray(self.agent.act_batch(observations, action_masks), dtype=np.int64)

    def reset(self) -> None:
        if "reset" in self._offers:
            self.agent.reset()

    def explain(self, observation: np.ndarray, action_mask: np.ndarray, **asked: Any) -> Any:
        """The object's own explain, asked with the game as ``env`` (the keyword a user's explain
        has always taken); None where it has none."""
        if "explain" not in self._offers:
            return None
        game, search = asked.get("game"), asked.get("search", False)
        return self.agent.explain(observation, action_mask, env=game, search=search)


class TorchScriptAgent(PolicyAgent):
    """Plays a policy file (TorchScript ``.pt`` or exported ``.pt2``): ``module(observations,
    masks) -> logits``, its best legal action (or a sample, ``deterministic=False``), calling
    "one card" as ``PolicyAgent`` does. ``ValueError`` naming the file if it is neither or its
    logits do not have one column per action for this table's observations."""

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        table: Table | None = None,
        auto_announce: bool = True,
        seed: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.deterministic, self.table, self.auto_announce = deterministic, table, auto_announce
        self.rng = np.random.default_rng(seed)
        if not self.path.is_file():
            raise ValueError(f"{self.path}: no such policy file")
        self.policy = _shared_script(self.path.resolve(), self.path.stat().st_mtime_ns)
        if table is not None:
            size = table.obs_size
            probe = np.zeros((2, size), dtype=np.float32), np.ones((2, NUM_ACTIONS), dtype=bool)
            try:
                logits = self._logits(*probe)
            except Exception as exc:  # a module of another shape raises torch's own errors
                raise ValueError(
                    f"{self.path}: the policy cannot read this table's observations "
                    f"(size {size}): {first_line(exc)}"
                ) from None
            if logits.shape != (2, NUM_ACTIONS):
                raise ValueError(
                    f"{self.path}: the policy returns logits of shape {logits.shape[1:]} for an "
                    f"observation, not ({NUM_ACTIONS},)"
                )

    def describe(self) -> str:
        """What the policy is, in words: a file records no tables or layout."""
        return f"{self.path}: a policy file (it records no tables; it reads what it is handed)"

    def _logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits = self.policy(torch.as_tensor(obs), torch.as_tensor(masks))
        return logits.numpy().astype(np.float64)


@functools.lru_cache(maxsize=8)
def _shared_script(path: Path, version: int) -> Any:
    """One loaded policy module per file (and version of it) in a process."""
    import torch

    exported = path.suffix == ".pt2"
    try:
        if exported:
            return torch.export.load(str(path)).module()
        module = torch.jit.load(str(path), map_location="cpu")
    except Exception as exc:  # torch raises RuntimeError and others on a foreign file
        what = "an exported program (torch.export)" if exported else "a TorchScript file"
        raise ValueError(f"{path}: not {what} ({first_line(exc)})") from None
    module.eval()
    return module

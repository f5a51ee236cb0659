"""Crates RL: an exact rules engine for Crates and its family (importable without torch)."""

import importlib.abc
import importlib.util
import sys

from .actions import (
    ANNOUNCE,
    DRAW,
    NUM_ACTIONS,
    PASS,
    REVERSE_ONCE,
    REVERSE_PERMANENT,
    STOP,
    action_name,
    parse_action,
)
from .cards import card_code, parse_card, parse_cards
from .crates import CratesGame
from .eights import EightsGame
from .events import Event
from .game import Decision, Game, HandResult, IllegalActionError, new_game
from .presets import CardFunction, RuleSystem
from .rules import (
    PRESETS,
    Ruleset,
    make_ruleset,
    preset_names,
    register_preset,
    register_rules_file,
)
from .scoring import pressure_value, score_hand
from .version import VERSION, provenance
from .view import PublicView


def register_gymnasium() -> None:
    """Make ``gymnasium.make("Crates-v0", ...)`` and ``gymnasium.make_vec("Crates-v0", ...)``
    (``crates_env.vector_env.CratesVectorEnv``) work. The engine never imports gymnasium: the
    wrapper is registered here when gymnasium is already loaded, and by the environment
    (``crates_env.env``, which loads it) otherwise."""
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is not None and "Crates-v0" not in gymnasium.registry:
        gymnasium.register(
            id="Crates-v0",
            entry_point="crates_env.wrappers:CratesGymEnv",
            vector_entry_point="crates_env.vector_env:CratesVectorEnv",
        )


class _RegisterWhenImported(importlib.abc.MetaPathFinder):
    """Registers ``Crates-v0`` right after gymnasium loads, when it loads after this package
    (``import crates_env; import gymnasium``): the engine itself never imports gymnasium."""

    def find_spec(self, name, path, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)  # once: the real finders find gymnasium itself
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader)
        return spec


class _ThenRegister(importlib.abc.Loader):
    """gymnasium's own loader, then :func:`register_gymnasium`."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        register_gymnasium()


__version__ = VERSION  # crates_env/version.py's, the one place it is written

if "gymnasium" in sys.modules:
    register_gymnasium()
elif not any(isinstance(f, _RegisterWhenImported) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenImported())

__all__ = [
    "ANNOUNCE",
    "DRAW",
    "NUM_ACTIONS",
    "PASS",
    "PRESETS",
    "REVERSE_ONCE",
    "REVERSE_PERMANENT",
    "STOP",
    "CardFunction",
    "CratesGame",
    "Decision",
    "EightsGame",
    "Event",
    "Game",
    "HandResult",
    "IllegalActionError",
    "PublicView",
    "RuleSystem",
    "Ruleset",
    "action_name",
    "card_code",
    "make_ruleset",
    "new_game",
    "parse_action",
    "parse_card",
    "parse_cards",
    "preset_names",
    "pressure_value",
    "provenance",
    "register_gymnasium",
    "register_preset",
    "register_rules_file",
    "score_hand",
]

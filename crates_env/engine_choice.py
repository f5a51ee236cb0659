"""Which engine a batch of games runs on: ``game_batch`` builds the compiled one
(``crates_env.vector.VectorGame``) wherever it plays the table, the reference one
(``crates_env.batch.ReferenceGames``) elsewhere or when asked, and ``compiled_refusal`` says
why the compiled engine cannot play a table.

Apart from ``crates_env.batch`` because it reads the compiled twin, which is built on the
batch interface: the interface sits below the twin, the choice above it.
"""

from __future__ import annotations

from typing import Any

from .batch import GameBatch, ReferenceGames
from .rules import Ruleset, make_ruleset

ENGINES = ("auto", "vector", "reference")
# a batch's keyword arguments that are no ruleset option
BATCH_SETTINGS = ("reward_mode", "reward_scale", "one_card", "reward_timing", "render_mode")
BATCH_SETTINGS += ("autoreset", "observation")


def game_batch(num_games: int, engine: str = "auto", **env_kwargs: Any) -> GameBatch:
    """``num_games`` games of the table ``env_kwargs`` names (``raw_env``'s keyword arguments,
    with ``autoreset``): on the compiled engine where it plays the table (``engine="auto"``),
    on the reference engine (``"reference"``), or insisting on the compiled one (``"vector"``:
    a ValueError saying why it cannot)."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not valid; use one of {', '.join(ENGINES)}")
    if engine != "reference":
        why = compiled_refusal(rules_of_env(env_kwargs))
        if not why:
            from .vector import VectorGame

            return VectorGame(num_games, **env_kwargs)
        if engine == "vector":
            raise ValueError(f"engine='vector' cannot play this table: {why}")
    return ReferenceGames(num_games, **env_kwargs)


def in_seat_layout(env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``env_kwargs`` with the games writing the seat layout, the one scripted agents and the
    search read (a learner of the table layout widens it)."""
    return {key: value for key, value in env_kwargs.items() if key != "observation"}


def rules_of_env(env_kwargs: dict[str, Any]) -> Ruleset:
    """The ruleset ``env_kwargs`` name (the environment's own settings set aside)."""
    options = {k: v for k, v in env_kwargs.items() if k not in BATCH_SETTINGS}
    return make_ruleset(
        options.pop("preset", "crates"), options.pop("num_players", None), **options
    )


def compiled_refusal(rules: Ruleset) -> str:
    """Why the compiled engine cannot play ``rules`` ("" when it can): a table it does not
    play, or a numpy whose generator it does not reproduce."""
    try:
        from .vector.vector_game import check_supported

        check_supported(rules)
    except (ValueError, ImportError) as exc:
        return str(exc)
    return ""

"""Helpers for scripted-deal tests: stacked decks, actions by name, event logs.

The rules' tests (``test_count.py``, ``test_pressures.py``, ``test_one_card_call.py``, ...) stack
the deck (``deck=``) or script a position (``set_position``) and check exact hands, scores, event
lines, the seat to play and the legal actions. Card order in ``g.hand()`` and ``cards_left`` is
the engine's: clubs, diamonds, hearts, spades, and A, 2, ..., 10, J, Q, K inside a suit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from functools import cache

from crates_env import Game, new_game, parse_action
from crates_env.events import Event, texts

ALL_SUITS = ["suit C", "suit D", "suit H", "suit S"]  # every suit a wild may name, in action order


def deal_order(
    hands: Sequence[Sequence[str]], dealer: int, starter: str, stock: Sequence[str] = ()
) -> list[str]:
    """A deck (top first) that deals ``hands[seat]`` to each seat one card at a time from the
    dealer's left, then turns ``starter``; ``stock`` follows, top first."""
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    order = [hands[(dealer + i) % n][r] for r in range(size) for i in range(1, n + 1)]
    return [*order, starter, *stock]


def stacked(preset, n, hands, starter, stock=(), dealer=0, **options) -> Game:
    """A one-hand game dealt from :func:`deal_order`."""
    deck = deal_order(hands, dealer, starter, stock)
    schedule = [len(hands[0])]
    return new_game(preset, n, seed=0, dealer=dealer, deck=deck, deal_schedule=schedule, **options)


def short_game(preset="crates", n=4, schedule=(8,), dealer=0, **options) -> Game:
    """A game with a fixed first dealer and a short schedule (one hand unless told)."""
    return new_game(preset, n, seed=0, dealer=dealer, deal_schedule=list(schedule), **options)


def tiny_maskable_ppo(steps: int, **env_kwargs):
    """A MaskablePPO on short games (2- and 1-card hands; ``env_kwargs``: more of the wrapper's
    keyword arguments) after ``steps`` of learning, torch on one thread for the test's
    duration."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from crates_env.wrappers import CratesGymEnv
    from train.workers import torch_threads

    with torch_threads(1):
        env = CratesGymEnv(deal_schedule=[2, 1], **env_kwargs)
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu"
        )
        # SB3 left on its own makes an empty log folder in the system's temp dir every learn()
        model.set_logger(Logger(folder=None, output_formats=[]))
        model.learn(steps)
    return model, env


def act(g: Game, *names: str) -> None:
    """Apply actions by name, checking each is legal first."""
    for name in names:
        legal = g.action_names()
        assert name in legal, f"{name!r} is not legal for p{g.to_play}: {legal}"
        g.apply(parse_action(name))


def names(g: Game) -> list[str]:
    """The legal actions by name, sorted (their order is not part of the contract)."""
    return sorted(g.action_names())


def same(a: Sequence[str], b: Sequence[str]) -> bool:
    return sorted(a) == sorted(b)


def since_setup(log: list[str]) -> list[str]:
    """The event lines after the last ``position set`` line of a hand log (as text)."""
    marks = [i for i, line in enumerate(log) if line.startswith("position set")]
    assert marks, log
    return log[marks[-1] + 1 :]


def log_texts(logs: list[tuple[Event, ...]]) -> list[list[str]]:
    """Hand logs as the lines a person reads."""
    return [texts(log) for log in logs]


def last_log(g: Game) -> list[str]:
    """Events of the last finished hand after its scripted position."""
    return since_setup(texts(g.hand_logs[-1]))


def snapshot(g: Game) -> tuple:
    """Everything the game holds: its state value field by field (lists copied, logs by their
    length: they only grow) and where its random streams stand."""
    legal = g.legal_actions()  # first: it fills the turn's cache of legal actions
    parts = []
    for part in g.state:
        for name, is_log in _fields_of(type(part)):
            value = getattr(part, name)
            if is_log:
                value = len(value)
            elif isinstance(value, list | set):
                value = tuple(value)
            parts.append(value)
    streams = tuple(r.bit_generator.state["state"]["state"] for r in (g.rng, g.deal_rng))
    return parts, legal, streams


@cache
def _fields_of(cls: type) -> tuple[tuple[str, bool], ...]:
    return tuple((f.name, f.name in ("events", "results", "hand_logs")) for f in fields(cls))

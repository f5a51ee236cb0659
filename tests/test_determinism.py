"""Deals depend on the seed alone: duplicate play replays the same cards whoever plays them."""

from __future__ import annotations

import random

import pytest

from crates_env import new_game


def first_positions(seed: int, policy_seed: int, preset: str, n: int) -> list[tuple]:
    """Each hand's cards at its first decision (before any choice can change them)."""
    g = new_game(preset, n, seed=seed)
    rng = random.Random(policy_seed)
    seen, positions = -1, []
    while not g.game_over:
        if g.hand_index != seen:
            seen = g.hand_index
            positions.append((tuple(tuple(g.hand(s)) for s in range(n)), tuple(g.stock_cards())))
        g.apply(rng.choice(g.legal_actions()))
    return positions


@pytest.mark.parametrize(("preset", "n"), [("crates", 4), ("kreights", 3), ("craits", 6)])
def test_every_hand_is_dealt_the_same_whatever_the_play(preset, n):
    a = first_positions(7, policy_seed=1, preset=preset, n=n)
    b = first_positions(7, policy_seed=2, preset=preset, n=n)
    assert len(a) == len(b) > 1
    assert a == b


def test_different_seeds_deal_differently():
    assert first_positions(1, 0, "crates", 4)[0] != first_positions(2, 0, "crates", 4)[0]

"""The differential check of HeuristicAgent's compiled twin (``agents.heuristic_batch``) against
the agent itself: ``act_batch`` must play ``act``'s move at every position.

The tests run a sample (``tests/test_heuristic_batch.py``), ``benchmarks/heuristic_equivalence.py``
many more positions.
"""

from __future__ import annotations

import numpy as np

from agents import HeuristicAgent, Table
from crates_env.vector import VectorGame

from .vector_fuzz import random_moves


def check_against_reference(
    preset: str, num_players: int, games: int, rounds: int, seed: int, **options
) -> int:
    """The differential check: ``games`` games on the compiled engine for ``rounds`` decisions
    each, HeuristicAgent deciding three moves in four and a random move the rest (to reach
    positions it would not play into: with ``misplay_mode="penalize"``, sometimes a misplay the
    rules penalise, so that penalty cards come up); at every decision ``act_batch`` is held
    against ``act`` row by row. Returns the positions compared; raises AssertionError at a
    difference."""
    vg = VectorGame(games, preset, num_players, **options)
    vg.reset(np.arange(seed, seed + games))
    table = Table.from_rules(vg.rules)
    batched, reference = HeuristicAgent(table, seed), HeuristicAgent(table, seed)
    rng = np.random.default_rng(seed)
    compared = 0
    for step in range(rounds):
        observations, masks = vg.observe(), vg.legal_mask()
        actions = batched.act_batch(observations, masks)
        for i, (o, m) in enumerate(zip(observations, masks, strict=True)):
            expected = reference.act(o, m)
            if actions[i] != expected:
                raise AssertionError(
                    f"{preset} {num_players}p {options}, game {i}, round {step}: act_batch "
                    f"{actions[i]}, act {expected}"
                )
        compared += len(masks)
        random = random_moves(vg, rng, masks, vg.acceptable_mask())
        vg.step(np.where(rng.random(games) < 0.75, actions, random))
    return compared

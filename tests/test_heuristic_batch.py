"""HeuristicAgent.act_batch (agents/heuristic_batch.py): the compiled twin plays act's moves."""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent, Table
from crates_env.actions import NUM_ACTIONS, SUIT
from crates_env.env import raw_env

from .harness.heuristic_equivalence import check_against_reference

TABLES = [
    ("crates", 4, {}),
    ("crates", 2, {}),
    ("crates", 5, {"queen_draws_two": True, "standig_jokers": True}),
    ("crates", 3, {"skill_hand_world_series": True}),  # the dummy's hand
    ("chicago1970", 4, {}),
    ("kreights", 5, {}),
    ("kreights", 4, {"seven_card_format": True}),
    ("craits", 6, {"craits_punitive_threes": True}),
    ("craits", 4, {"craits_three_covers_eight": True, "craits_face_cards": True}),
    ("creights", 4, {}),
    ("crazy_eights", 4, {}),
    ("crazy_eights", 6, {"crazy_eights_eight_must_change_suit": True}),  # two packs
    ("zimbabwe", 4, {}),
    ("zimbabwe", 7, {"zimbabwe_jokers": 4, "deal_size": 7}),
    ("kreights", 4, {"misplay_mode": "penalize", "kreights_penalty_cards": True}),
    ("creights", 3, {"misplay_mode": "penalize", "creights_dumbass_cards": True}),
]


@pytest.mark.parametrize(("preset", "players", "options"), TABLES)
def test_act_batch_plays_the_moves_act_plays(preset, players, options):
    positions = check_against_reference(preset, players, 24, 60, seed=7, **options)
    assert positions == 24 * 60


def _positions(preset: str, players: int, decisions: int, **options):
    env = raw_env(preset=preset, num_players=players, **options)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    observations, masks = [], []
    while len(masks) < decisions and not env.game.game_over:
        seen = env.observe(env.agent_selection)
        observations.append(seen["observation"])
        masks.append(seen["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return Table.from_env(env), np.stack(observations), np.stack(masks)


def test_tables_the_twin_does_not_play_are_decided_row_by_row():
    """A table the compiled engine does not play (a schedule past its records)."""
    table, observations, masks = _positions("crates", 4, 60, deal_schedule=[1] * 65)
    agent = HeuristicAgent(table)
    expected = [agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert agent.act_batch(observations, masks).tolist() == expected


def test_a_wild_starters_suit_comes_from_the_agents_own_generator():
    """The dealer names a wild starter's suit before looking at the hand: at random, from the
    agent's generator, as act does, in row order."""
    env = raw_env()
    for seed in range(200):
        env.reset(seed=seed)
        seen = env.observe(env.agent_selection)
        if seen["action_mask"][SUIT : SUIT + 4].any():
            break
    else:
        pytest.fail("no wild starter in 200 deals")
    table = Table.from_env(env)
    rows = np.repeat(seen["observation"][None], 16, axis=0)
    masks = np.repeat(seen["action_mask"][None], 16, axis=0)
    one_by_one = HeuristicAgent(table, seed=9)
    expected = [one_by_one.act(o, m) for o, m in zip(rows, masks, strict=True)]
    assert HeuristicAgent(table, seed=9).act_batch(rows, masks).tolist() == expected
    assert len(set(expected)) > 1  # a random suit, not a fixed one


def test_bad_batches_are_refused():
    table, observations, masks = _positions("crates", 4, 4)
    agent = HeuristicAgent(table)
    with pytest.raises(ValueError, match="act_batch needs"):
        agent.act_batch(observations[0], masks[0])
    with pytest.raises(ValueError, match="act_batch needs"):
        agent.act_batch(observations, masks[:, :-1])
    empty = masks.copy()
    empty[2] = 0
    with pytest.raises(ValueError, match="allows nothing"):
        agent.act_batch(observations, empty)
    assert masks.shape[1] == NUM_ACTIONS

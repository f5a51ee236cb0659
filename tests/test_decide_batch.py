"""Agents deciding a batch at a time (``agents.decide_batch``, each kind's ``_act_group``):
the same moves as ``act`` row by row, every agent drawing from its own generator."""

from __future__ import annotations

import numpy as np
import pytest

from agents import (
    GreedyAgent,
    HeuristicAgent,
    PolicyAgent,
    RandomAgent,
    SearchAgent,
    Table,
    UserAgent,
)
from agents.base import decide_batch
from crates_env.actions import ANNOUNCE, DRAW, NUM_ACTIONS
from crates_env.batch import ReferenceGames

SHIPPED = "checkpoints/crates_4p.zip"
PRESETS = [
    ("crates", 4, {}),
    ("crates", 3, {"skill_hand_world_series": True}),
    ("kreights", 5, {"misplay_mode": "penalize", "kreights_penalty_cards": True}),
    ("craits", 6, {"craits_face_cards": True}),
    ("crazy_eights", 4, {}),
    ("zimbabwe", 4, {}),
]


def _positions(preset: str, n: int, options: dict, rounds: int, games: int = 12):
    """Rounds of positions of reference games played at random: (batch, observations,
    masks, live rows) after each round's moves."""
    batch = ReferenceGames(games, preset, num_players=n, **options)
    batch.reset(seeds=4)
    rng = np.random.default_rng(4)
    for _ in range(rounds):
        live = np.flatnonzero(~batch.game_over)
        yield batch, batch.observe()[live], batch.legal_mask()[live].astype(bool), live
        batch.step(batch.random_actions(rng))


@pytest.mark.parametrize(("preset", "n", "options"), PRESETS, ids=[p[0] for p in PRESETS])
def test_greedys_numpy_twin_plays_its_moves(preset, n, options):
    table = Table.from_rules(preset, n, **options)
    agent = GreedyAgent(table)
    rows = 0
    for _, observations, masks, _ in _positions(preset, n, options, 80):
        expected = [agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
        assert agent.act_batch(observations, masks).tolist() == expected
        rows += len(masks)
    assert rows > 500


def _lineup(table: Table, seed: int) -> list:
    """One agent of every kind, each seeded: the network samples from its distribution."""
    return [
        RandomAgent(seed),
        HeuristicAgent(table, seed),
        GreedyAgent(table),
        PolicyAgent(SHIPPED, table=table, deterministic=False, seed=seed),
        RandomAgent(seed + 1),
        SearchAgent(table, samples=2, stock_max=8, seed=seed),
    ]


def test_a_batch_of_mixed_agents_decides_what_each_decides_alone():
    """Rows decided by random, heuristic, greedy, sampling-network and searching agents, one
    kind deciding together (a compiled call, a forward pass, one batch of rollouts): each row's
    move is the one its agent makes alone, and every agent's stream stays in step."""
    table = Table.from_rules("crates", 4)
    together, alone = _lineup(table, 1), _lineup(table, 1)
    searched = 0
    for batch, observations, masks, live in _positions("crates", 4, {}, 100):
        kinds = live % len(together)
        games = [batch.game(int(i)) for i in live]
        moves = decide_batch([together[k] for k in kinds], observations, masks, games)
        for move, k, game, o, m in zip(moves, kinds, games, observations, masks, strict=True):
            assert move == alone[k].act(o, m, game)
            searched += k == 5 and alone[5].searches(game, np.flatnonzero(m))
    assert searched > 0


def test_a_users_object_adapted_decides_all_its_rows_in_one_call_and_bare_is_refused():
    class Counting:
        def __init__(self):
            self.calls = []

        def act(self, observation, action_mask):
            raise AssertionError("act_batch is there")

        def act_batch(self, observations, masks):
            self.calls.append(len(masks))
            return np.array([np.flatnonzero(m)[0] for m in masks])

    agent = Counting()
    _, observations, masks, _ = next(_positions("crates", 4, {}, 1))
    moves = decide_batch([UserAgent(agent)] * len(masks), observations, masks)
    assert agent.calls == [len(masks)] and all(masks[np.arange(len(masks)), moves])
    with pytest.raises(ValueError, match="is no agent"):
        decide_batch([agent] * len(masks), observations, masks)


def test_a_network_is_asked_only_where_there_is_a_choice(monkeypatch):
    """Rows with one legal move (a forced draw) take it, and rows offering "one card" call it,
    without the network: it sees only the rows with a choice. A sampling agent still draws for
    every row, so its stream of moves is the same whichever rows were forced."""
    agent = PolicyAgent(SHIPPED, Table.from_rules("crates", 4))
    asked = []
    logits = type(agent)._logits
    monkeypatch.setattr(
        type(agent), "_logits", lambda self, o, m: asked.append(len(o)) or logits(self, o, m)
    )
    masks = np.zeros((4, NUM_ACTIONS), dtype=bool)
    masks[0, DRAW] = True  # forced
    masks[1, [DRAW, 3, 7]] = True
    masks[2, [ANNOUNCE, DRAW]] = True
    masks[3, [5, 9]] = True
    observations = np.zeros((4, agent.policy.observation_space.shape[0]), dtype=np.float32)
    actions = agent.act_batch(observations, masks)
    assert asked == [2]
    assert actions[0] == DRAW and actions[2] == ANNOUNCE
    assert masks[[1, 3], actions[[1, 3]]].all()
    sampler = PolicyAgent(SHIPPED, table=Table.from_rules("crates", 4), deterministic=False, seed=7)
    sampler.act_batch(observations, masks)
    stream = np.random.default_rng(7)
    stream.random(4)  # one draw a row, the forced ones too
    assert sampler.rng.random() == stream.random()

"""The table layout (``observation="table"``): one size at every table, the seat layout's values
in their slots, what the table is at the end, and every writer (the AEC env, the Gymnasium
wrapper, the native vector env, VectorGame) writing the same vectors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import crates_env  # noqa: F401 - registers Crates-v0
from crates_env import crates_v0, new_game
from crates_env.cards import JOKER, QUEEN, SEVEN, SPADES, make_kind
from crates_env.observation import Observer
from crates_env.rules import PRESETS, make_ruleset
from crates_env.table_observation import (
    CARD_FEATURES,
    COVERED_TABLES,
    PER_SEAT,
    TABLE_SEATS,
    TableObserver,
    card_features,
    make_observer,
    table_features,
)
from crates_env.vector import VectorGame

from .harness.vector_equivalence import play_both

COLUMN = {name: i for i, (name, _) in enumerate(CARD_FEATURES)}


def test_the_covered_tables_are_the_28_users_set():
    assert len(COVERED_TABLES) == 28
    assert ("crates", 5) in COVERED_TABLES and ("craits", 6) in COVERED_TABLES
    assert ("crates", 6) not in COVERED_TABLES and ("chicago1970", 2) not in COVERED_TABLES


def test_every_table_has_one_size_and_its_own_features():
    sizes = {TableObserver(make_ruleset(p, n)).size for p, n in COVERED_TABLES}
    sizes.add(TableObserver(make_ruleset("craits", 12)).size)
    assert len(sizes) == 1
    features = [table_features(make_ruleset(p, n)).tobytes() for p, n in COVERED_TABLES]
    assert len(set(features)) == len(COVERED_TABLES)  # no two tables read alike
    # an option in force is another table
    plain, queens = make_ruleset("crates", 4), make_ruleset("crates", 4, queen_draws_two=True)
    assert not np.array_equal(table_features(plain), table_features(queens))


@pytest.mark.parametrize(("preset", "n"), [("crates", 3), ("zimbabwe", 6), ("craits", 12)])
def test_the_seat_part_is_the_seat_layout_padded(preset, n):
    """Every slice decodes to the seat layout's values; the slots past the players are 0."""
    g = new_game(preset, num_players=n, seed=4)
    rng = np.random.default_rng(0)
    wide, seat = TableObserver(g.rules), Observer(g.rules)
    for _ in range(60):
        if g.game_over:
            break
        view = g.view(g.to_play)
        v, s = wide.encode(view), seat.encode(view)
        for name in seat.layout():
            got, want = wide.decode(v, name), seat.decode(s, name)
            assert np.array_equal(got[: len(want)], want), name
            assert not got[len(want) :].any(), name
            if name in PER_SEAT:
                assert len(got) == TABLE_SEATS
        g.apply(int(rng.choice(g.legal_actions())))
    table = wide.layout()["table_preset"]
    assert np.array_equal(v[table[0] :], table_features(g.rules))


def test_what_the_table_says_of_crates_and_zimbabwe():
    crates = make_ruleset("crates", 4)
    features = table_features(crates)
    layout = TableObserver(crates).layout()
    start = layout["table_preset"][0]

    def part(name: str) -> np.ndarray:
        a, b = layout[name]
        return features[a - start : b - start]

    assert part("table_preset").tolist() == [float(p == "crates") for p in PRESETS]
    assert part("table_players").tolist() == [0, 0, 1] + [0] * (TABLE_SEATS - 4)  # 4 players
    cards = card_features(crates)
    seven = make_kind(SEVEN, SPADES)
    # a 7: the next-but-one player takes a card; an 8 is wild and names a suit; 50 points
    assert cards[seven, COLUMN["others_draw"]] == pytest.approx(1 / 5)
    assert cards[seven, COLUMN["next_draws"]] == 0
    eight = make_kind(7, SPADES)
    assert cards[eight, [COLUMN["wild"], COLUMN["declare"], COLUMN["points"]]].tolist() == [1, 1, 1]
    assert cards[make_kind(QUEEN, SPADES), COLUMN["next_draws"]] == 0
    queens = card_features(make_ruleset("crates", 4, queen_draws_two=True))
    assert queens[make_kind(QUEEN, SPADES), COLUMN["next_draws"]] == pytest.approx(2 / 5)
    zimbabwe = card_features(make_ruleset("zimbabwe", 4))
    # the Joker: offensive, the next player takes 5; 50 points; two in the pack
    assert zimbabwe[JOKER, [COLUMN["next_draws"], COLUMN["points"], COLUMN["copies"]]].tolist() == [
        1,
        1,
        1,
    ]


COVERED_IDS = [f"{p}-{n}" for p, n in COVERED_TABLES]


@pytest.mark.parametrize(("preset", "n"), COVERED_TABLES, ids=COVERED_IDS)
def test_vectorgame_writes_the_reference_table_layout(preset, n):
    """The compiled engine's table-layout vectors are the AEC env's, step by step (random
    legal moves through whole games), at every covered table."""
    played = play_both(preset, n, games=2, seed=70 + n, observation="table")
    assert played.games == 2


def test_the_wrapper_and_the_vector_env_give_the_learner_the_table_layout():
    """Crates-v0 and its native vector env show the learner the AEC env's table-layout vector
    (seed for seed), while the opponents read the seat layout."""
    kwargs = {"preset": "kreights", "num_players": 3, "observation": "table"}
    single = gym.make("Crates-v0", learner_seat=1, **kwargs)
    vec = gym.make_vec(
        "Crates-v0", num_envs=2, vectorization_mode="vector_entry_point", learner_seat=1, **kwargs
    )
    obs, _ = single.reset(seed=8)
    batch, _ = vec.reset(seed=8)
    assert obs.shape == batch.shape[1:] == (TableObserver(make_ruleset("kreights", 3)).size,)
    assert np.array_equal(obs, batch[0])
    assert single.unwrapped.aec.observer.name == "seat"  # what the opponents read
    assert single.observation_space.contains(obs) and vec.single_observation_space.contains(obs)


def test_a_layout_that_does_not_exist_is_refused_everywhere():
    for build in (
        lambda: crates_v0.env(observation="wide"),
        lambda: gym.make("Crates-v0", observation="wide"),
        lambda: VectorGame(2, "crates", 4, observation="wide"),
        lambda: make_observer(make_ruleset("crates", 4), "wide"),
    ):
        with pytest.raises(ValueError, match="'wide' is not a layout; use one of seat, table"):
            build()


def test_an_agent_reads_a_table_layout_env_as_the_seat_layout():
    """HeuristicAgent seated by Table.from_env at a table-layout env plays the moves it plays
    at the seat-layout env, decision for decision."""
    from agents import HeuristicAgent, Table

    moves = []
    for observation in ("seat", "table"):
        env = crates_v0.env(preset="crates", num_players=3, observation=observation)
        env.reset(seed=5)
        agent = HeuristicAgent(Table.from_env(env), seed=1)
        played = []
        for _ in range(300):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            played.append(agent.act(obs["observation"], obs["action_mask"]))
            env.step(played[-1])
        moves.append(played)
    assert len(moves[0]) == 300 and moves[0] == moves[1]

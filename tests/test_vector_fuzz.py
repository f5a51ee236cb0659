"""The compiled engine fuzzed as the reference engine is: random play over random tables (every
preset, player counts, options, misplay penalties, reward settings, seeds), every invariant
checked after every step (``tests.harness.vector_fuzz``). ``benchmarks/vector_fuzz.py`` runs 10^7
decisions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from crates_env.rules import OPTIONS, PRESETS, make_ruleset, option_owners, player_counts
from crates_env.vector import VectorGame

from .harness import bounds_checking
from .harness.vector_fuzz import (
    CARDS,
    EXPOSED,
    HELD,
    MASK,
    OUT,
    SCORES,
    SIZES,
    Broken,
    check_games,
    fuzz,
)

# options that take a number, and the numbers they take
NUMBERS = {"zimbabwe_jokers": st.integers(0, 8), "deal_size": st.integers(5, 8)}


@st.composite
def tables(draw) -> tuple[str, int, dict]:
    """A table of any preset, with environment settings."""
    preset = draw(st.sampled_from(PRESETS))
    flags = sorted(
        name
        for name in OPTIONS
        if preset in option_owners(name) and name not in NUMBERS and name != "kreights_mulligan"
    )
    options = dict.fromkeys(draw(st.sets(st.sampled_from(flags))) if flags else (), True)
    if any(OPTIONS[name].penalty for name in options):
        options["misplay_mode"] = "penalize"
    for name in sorted(set(NUMBERS) & {n for n in OPTIONS if preset in option_owners(n)}):
        options[name] = draw(NUMBERS[name])
    players = 3 if options.get("skill_hand_world_series") else None
    players = players or draw(st.sampled_from(list(player_counts(preset))))
    if preset in option_owners("kreights_mulligan") and draw(st.booleans()):
        options["kreights_mulligan"] = draw(st.sets(st.integers(0, players - 1), max_size=2))
        options["kreights_mulligan"] = sorted(options["kreights_mulligan"])
    if draw(st.booleans()):
        options["deal_schedule"] = draw(st.lists(st.integers(1, 8), min_size=1, max_size=4))
    options["reward_mode"] = draw(st.sampled_from(["points", "relative", "win"]))
    options["reward_timing"] = draw(st.sampled_from(["hand", "event"]))
    options["one_card"] = draw(st.sampled_from(["action", "auto"]))
    rules = {k: v for k, v in options.items() if k not in ("reward_mode", "reward_timing")}
    rules.pop("one_card")
    try:
        make_ruleset(preset, players, **rules)
    except ValueError:
        assume(False)  # options that exclude each other, a deal the deck cannot hold
    return preset, players, options


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), seed=st.integers(0, 2**32))
@example(  # slot 10's game ends at its deal: its empty mask is no error (it was)
    table=("crates", 5, {"no_kings_queens": True, "deal_schedule": [8], "one_card": "action"}),
    seed=0,
)
def test_random_play_keeps_every_invariant(table, seed):
    preset, players, options = table
    played = fuzz(preset, players, decisions=2048, seed=seed, games=16, **options)
    assert played.decisions >= 2048


LONG = [
    ("crates", 4, {}),
    ("chicago1970", 3, {}),
    ("kreights", 5, {}),
    ("craits", 7, {}),
    ("creights", 2, {}),
    ("crazy_eights", 6, {}),
    ("zimbabwe", 5, {"zimbabwe_jokers": 4}),
    ("kreights", 4, {"misplay_mode": "penalize", "kreights_penalty_cards": True}),
    ("creights", 3, {"misplay_mode": "penalize", "creights_dumbass_cards": True}),
]


@pytest.mark.parametrize(("preset", "players", "options"), LONG)
def test_a_long_sample_of_each_rule_system_keeps_every_invariant(preset, players, options):
    """A sample of the 10^7 decisions of benchmarks/vector_fuzz.py: whole games."""
    played = fuzz(preset, players, decisions=150_000, seed=players, games=64, **options)
    assert played.games > 0  # whole games, finished slots dealt new ones


def _broken(vg: VectorGame, plant) -> int:
    """What ``check_games`` finds in slot 0 after ``plant(states, masks, scores)``."""
    mask, accepted = vg.legal_mask(), vg.acceptable_mask()
    scores, hands = vg.scores, vg.hands_played
    plant(vg.states, mask, scores)
    broken = np.zeros(vg.num_games, dtype=np.int64)
    check_games(vg.states, vg.R, mask, accepted, scores, hands, broken)
    assert (broken[1:] == 0).all()
    return int(broken[0])


def _move_a_card(states, mask, scores):  # seat 0 plays a card, and its size stays
    g = states[0]
    k = int(np.flatnonzero(g["counts"][0])[0])
    g["counts"][0, k] -= 1
    g["held"][0] ^= np.uint64(1) << np.uint64(k)
    g["discard"][g["n_discard"]] = k
    g["n_discard"] += 1


def _copy_a_card(states, mask, scores):  # seat 0 gets a second copy of a kind it holds
    g = states[0]
    k = int(np.flatnonzero(g["counts"][0])[0])
    g["counts"][0, k] += 1
    g["sizes"][0] += 1


def _unmark(states, mask, scores):
    states[0]["held"][0] = np.uint64(0)


def _score(states, mask, scores):
    states[0]["scores"][1] += 5


def _offer_more(states, mask, scores):
    mask[0, np.flatnonzero(mask[0] == 0)[0]] = 1


def _expose_a_card_not_held(states, mask, scores):
    g = states[0]
    k = int(np.flatnonzero(g["counts"][0] == 0)[0])
    g["exposed"][0, k] = 1
    g["exposed_held"][0] |= np.uint64(1) << np.uint64(k)


def _knock_out_a_player_holding_cards(states, mask, scores):
    states[0]["active"][1] = False


@pytest.mark.parametrize(
    ("plant", "found"),
    [
        (_move_a_card, SIZES),
        (_copy_a_card, CARDS),
        (_unmark, HELD),
        (_score, SCORES),
        (_offer_more, MASK),
        (_expose_a_card_not_held, EXPOSED),
        (_knock_out_a_player_holding_cards, OUT),
    ],
)
def test_the_checks_find_a_planted_break(plant, found):
    vg = VectorGame(2, "crates", 4, autoreset=False)
    vg.reset(5)
    assert _broken(vg, lambda *_: None) == 0
    assert _broken(vg, plant) == found


def test_a_break_is_reported_with_the_table_game_and_step(monkeypatch):
    from .harness import vector_fuzz as fuzzing

    real = fuzzing.check_games

    def plant_at_step(states, R, masks, accepted, scores, hands, broken):
        real(states, R, masks, accepted, scores, hands, broken)
        if states[0]["decisions"] >= 3:
            broken[0] = SCORES

    monkeypatch.setattr(fuzzing, "check_games", plant_at_step)
    with pytest.raises(Broken, match=r"crates 4p \{\}, slot 0 \(game seed 9\), step \d+: the "):
        fuzz("crates", 4, decisions=400, seed=9, games=2)


@pytest.mark.skipif(bounds_checking.inside(), reason="this is that run")
def test_the_compiled_engine_tests_pass_with_bounds_checking(bounds_checked_run):
    """The compiled engine's tests once more with numba's bounds checking on, compiled afresh
    (``harness/bounds_checking.py``: in a process of its own, on this test's worker)."""
    code, output = bounds_checked_run.verdict(timeout=900)
    assert code == 0, output


def test_bounds_checking_is_on_in_that_run():
    """In the run above an index out of range raises: the flag reached numba."""
    if not bounds_checking.inside():
        pytest.skip("checked in the bounds-checking run")
    from numba import njit

    @njit
    def read(values, i):
        return values[i]

    with pytest.raises(IndexError):
        read(np.zeros(3), 7)

"""VectorGame trusts none of its inputs: every public method checks shapes, dtypes, ranges and
slots before any compiled kernel runs (the kernels do not check bounds: a seat out of range read
past the arrays, and far enough out killed the process). Bad input is a ValueError naming the
argument, and no game moves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crates_env import new_game
from crates_env.vector import VectorGame

B, N = 3, 4


@pytest.fixture(scope="module")
def vg() -> VectorGame:
    return VectorGame(B, "crates", N, autoreset=False, deal_schedule=[3, 2])


def _snapshot(vg: VectorGame) -> tuple[bytes, ...]:
    return (vg.states.tobytes(), vg.game_over.tobytes(), vg.rewards.tobytes(), vg.seeds.tobytes())


def _refused(vg: VectorGame, call, name: str) -> None:
    """``call()`` raises a ValueError naming ``name``, and leaves every game as it was."""
    before = _snapshot(vg)
    with pytest.raises(ValueError, match=name):
        call()
    assert _snapshot(vg) == before


@pytest.fixture
def dealt(vg: VectorGame) -> VectorGame:
    vg.reset(7)
    return vg


MASK = (B, 63)


@pytest.mark.parametrize(
    ("method", "args", "name"),
    [
        # observe: a seat out of range used to read past the arrays (700000: a segfault)
        ("observe", ([7, 0, 0],), "seats"),
        ("observe", ([700_000, 0, 0],), "seats"),
        ("observe", ([-2, 0, 0],), "seats"),
        ("observe", ([0, 0],), "seats"),
        ("observe", ([0.5, 0, 0],), "seats"),
        # an unsigned seat past int64 used to wrap to -1, "the seat to play"
        ("observe", (np.array([2**64 - 1, 0, 0], np.uint64),), "seats"),
        ("observe", (None, np.zeros((B, 5), np.float32)), "out"),
        ("observe", (None, np.zeros((B, 999), np.float64)), "out"),
        ("legal_mask", (np.zeros((B, 62), np.int8),), "out"),
        ("legal_mask", (np.zeros(MASK, np.int64),), "out"),
        ("legal_mask", (np.zeros((63, B), np.int8).T,), "out"),  # not C-contiguous
        # step: an active mask of the wrong length used to move games
        ("step", ([0] * B, [True] * (B + 2)), "active"),
        ("step", ([0] * B, [1] * B), "active"),
        ("step", ([0] * (B + 1),), "actions"),
        ("step", ([0.0] * B,), "actions"),
        # copy_games: slots out of range used to raise IndexError
        ("copy_games", ([0], [B]), "target"),
        ("copy_games", ([-1], [1]), "source"),
        ("copy_games", ([0, 0], [1]), "target"),
        ("copy_games", ([0, 0], [1, 1]), "target"),
        ("copy_games", ([[0]], [[1]]), "source"),
        ("reset", ([1], [B]), "slots"),
        ("reset", ([1], [0, 1]), "seed"),
        ("reset", ([1, 2], [0, 0]), "slots"),
        ("reset", ([1, -2], [0, 1]), "seeds"),
        ("reset_as_env", ([np.random.default_rng(s) for s in range(3)], [0, 1]), "streams"),
        ("reset_as_env", ([np.random.default_rng(1)], [True]), "slots"),
        ("reset_as_env", ([np.random.default_rng(1).bit_generator], [0]), "streams"),
        ("reset", ([1, 2],), "seed"),
        ("reset", ("abc",), "seeds"),
        ("winners", (B,), "slot"),
        ("random_actions", (np.random.default_rng(0), np.ones((B, 5), np.int8)), "mask"),
        ("random_actions", (np.random.default_rng(0), np.full(MASK, 2, np.int8)), "mask"),
        ("random_actions", (np.random.default_rng(0), np.zeros(MASK, np.int8)), "mask"),
        ("random_actions", (np.random.default_rng(0).bit_generator,), "rng"),
        ("random_actions", (np.random.Generator(np.random.MT19937(0)),), "rng"),
        ("play_random_seats", (np.ones((B, N + 1), bool), [0] * B, np.random.default_rng(0)),
         "random_seats"),
        ("play_random_seats", (np.ones((B, N), np.int64), [0] * B, np.random.default_rng(0)),
         "random_seats"),
        ("play_random_seats", (np.ones((B, N), bool), [N] * B, np.random.default_rng(0)),
         "paid_to"),
        ("play_random_seats", (np.ones((B, N), bool), [0] * B, 5), "rng"),
        ("play_random_seats", (np.ones((B, N), bool), [0] * B, np.random.default_rng(0), [B]),
         "games"),
    ],
)  # fmt: skip
def test_bad_input_is_a_value_error_naming_it_and_no_game_moves(dealt, method, args, name):
    _refused(dealt, lambda: getattr(dealt, method)(*args), name)


def test_from_game_checks_what_was_paid(dealt):
    g = new_game("crates", N, seed=1, deal_schedule=[3, 2])
    _refused(dealt, lambda: dealt.from_game(g, 0, paid=[0, 0, 0]), "paid")
    _refused(dealt, lambda: dealt.from_game(g, 0, paid=[0.5]), "paid")
    _refused(dealt, lambda: dealt.from_game(g, B), "slot")
    # more than the hand has charged, or less than nothing (2**70 was an OverflowError)
    nothing_charged = r"from 0 to the pressure points the hand in play has charged it \(\[0, 0\]\)"
    for paid in ([-5], [2**70], [0, 1]):
        _refused(dealt, lambda paid=paid: dealt.from_game(g, 0, paid=paid), nothing_charged)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reward_scale": 0}, "reward_scale must be > 0, not 0.0"),
        ({"reward_scale": -0.01}, "reward_scale must be > 0, not -0.01"),
        ({"autoreset": "no"}, "autoreset must be True or False, not 'no'"),
        ({"autoreset": 0}, "autoreset must be True or False, not 0"),
    ],
)
def test_settings_that_make_no_sense_are_refused(kwargs, message):
    """A reward scale of 0 or less paid nothing or the wrong way; ``autoreset="no"`` was
    truthy, so it autoreset."""
    with pytest.raises(ValueError, match=message):
        VectorGame(B, "crates", N, **kwargs)


NEVER_SPINS = """
import numpy as np
from crates_env.vector import VectorGame
from crates_env.vector.rng import bounded_integer

def said(call):
    try:
        call()
    except ValueError as exc:
        return str(exc)
    return "no error"

def random_seats(vg, games=None):
    seats = np.ones((3, 4), bool)
    return vg.play_random_seats(seats, np.zeros(3, np.int64), np.random.default_rng(0), games)

fresh = VectorGame(3, "crates", 4)
print(said(lambda: fresh.step(np.full(3, 57))))
print(said(lambda: random_seats(fresh)))
for preset in ("crates", "crazy_eights"):
    vg = VectorGame(3, preset, 4)
    vg.reset(1)
    vg.states[0] = np.zeros((), vg.states.dtype)  # a record no reset or from_game wrote
    print(said(lambda: vg.step(np.full(3, 57), active=np.arange(3) == 0)))
    print(said(lambda: random_seats(vg, [0])))
print(said(lambda: bounded_integer(np.zeros(6, np.uint64), 3)))  # a stream of zeros
"""


def test_the_compiled_engine_never_spins_on_a_record_that_is_no_game():
    """``VectorGame(3, "crates", 4).step(np.full(3, 57))`` never returned, nor could Ctrl-C
    stop it (a compiled loop looked for a seat to deal among none); so did
    ``play_random_seats``. Before ``reset`` both refuse; on a blank record written into
    ``states`` the compiled loops stop at their bound with a ValueError, as do the random
    streams' rejection loops on a row that is no PCG64 state. (In a process of its own: a loop
    that spins cannot be stopped in this one.)"""
    done = subprocess.run(
        [sys.executable, "-c", NEVER_SPINS],
        cwd=Path(__file__).parents[1],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [lines[0]] * 2 and lines[0].startswith("slot 0 holds no game yet")
    for step, random in (lines[2:4], lines[4:6]):
        assert step.startswith("no seat in the game may deal: the record is no game reset")
        assert random.startswith("game 0 has no legal move but is not over")
    assert lines[6] == "a random stream rejected 128 draws in a row: its row is no PCG64 state"


def test_empty_slot_lists_are_no_work(dealt):
    before = _snapshot(dealt)
    dealt.copy_games([], [])
    dealt.reset([], [])
    dealt.reset_as_env([], np.array([], dtype=np.int64))
    dealt.play_random_seats(
        np.ones((B, N), bool), np.zeros(B, np.int64), np.random.default_rng(0), []
    )
    assert _snapshot(dealt) == before


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.lists(st.integers(-(2**33), 2**33), max_size=B + 2),
    st.lists(st.booleans(), max_size=B + 2),
    st.builds(
        lambda shape, value, dtype: np.full(shape, value).astype(dtype),
        st.sampled_from([(B,), (B, N), (B, 63), (2, B), (B, 1), (0,)]),
        st.integers(-3, 70) | st.sampled_from([700_000, -(2**40)]),
        st.sampled_from([np.int8, np.int32, np.int64, np.float32, bool, np.uint64]),
    ),
)
CALLS = {
    "observe": 2,
    "legal_mask": 1,
    "step": 2,
    "copy_games": 2,
    "winners": 1,
    "random_actions": 2,
    "play_random_seats": 4,
    "reset": 2,
    "reset_as_env": 2,
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(sorted(CALLS)), data=st.data())
def test_any_input_is_taken_or_refused_with_a_value_error(method, data):
    """Whatever a public method is given, it either works or refuses with a ValueError that
    leaves the games as they were; never another exception, never a crash."""
    vg = VectorGame(B, "crates", N, autoreset=False, deal_schedule=[3, 2])
    vg.reset(3)
    args = [data.draw(JUNK, label=f"arg{i}") for i in range(CALLS[method])]
    before = _snapshot(vg)
    try:
        getattr(vg, method)(*args)
    except ValueError:
        assert _snapshot(vg) == before


def test_an_edited_engine_compiles_into_a_cache_folder_of_its_own(tmp_path):
    """numba reuses a cached function while its own file is unchanged, whatever changed in
    the files it calls: the cache folder is keyed by every engine source file, so an edit
    anywhere (here a kernel's callee in another file) is a new folder."""
    import shutil
    from pathlib import Path

    import crates_env
    from crates_env.vector import engine_digest, numba_cache_folder

    package = Path(crates_env.__file__).parent
    copy = tmp_path / "crates_env"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "render"))
    before = engine_digest(copy)
    assert before == engine_digest(package)
    assert numba_cache_folder().name == before
    table = copy / "vector" / "table.py"
    table.write_text(table.read_text() + "\n# an edit\n")
    assert engine_digest(copy) != before

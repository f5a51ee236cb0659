"""The numba PCG64 rows in ``crates_env.vector.rng`` replay numpy's ``Generator`` bit for bit.

Every check runs the jitted row and a numpy ``Generator`` from the same state side by side and
compares both the outputs and the full ``bit_generator.state`` afterwards, so the LCG step, the
XSL-RR output and the ``has_uint32`` / ``uinteger`` buffer must all agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crates_env.game import game_streams
from crates_env.vector.rng import (
    HAS_UINT32,
    NO_SPAWN,
    STATE_WIDTH,
    UINTEGER,
    bounded_integer,
    export_state,
    game_rows,
    import_state,
    new_states,
    next_uint32,
    next_uint64,
    permutation_into,
    random_interval,
    seed_row,
    shuffle_in_place,
    write_state,
)

FIXED_NS = (1, 2, 3, 52, 53, 104, 108)


def spawned(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The engine's two streams for ``seed`` (crates_env.game: SeedSequence(seed).spawn(2))."""
    a, b = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    return a, b


def same_state(row: np.ndarray, gen: np.random.Generator) -> bool:
    return bool(np.array_equal(row, export_state(gen)))


def jit_permutation(row: np.ndarray, n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.int64)
    permutation_into(row, out)
    return out


def test_permutation_sequences_match_numpy_across_a_batch():
    """200 spawned generators held in one batch array, each drawing a run of permutations."""
    n_seeds = 100
    gens = [spawned(seed) for seed in range(n_seeds)]
    states = new_states((n_seeds, 2))
    for g, pair in enumerate(gens):
        for s, gen in enumerate(pair):
            write_state(states, (g, s), gen)

    pick = np.random.default_rng(12345)
    for g, pair in enumerate(gens):
        for s, gen in enumerate(pair):
            ns = list(FIXED_NS) + [int(x) for x in pick.integers(0, 301, size=5)]
            pick.shuffle(ns)
            row = states[g, s]  # a view: the kernels must update the batch in place
            for n in ns:
                assert np.array_equal(jit_permutation(row, n), gen.permutation(n)), (g, s, n)
                assert same_state(states[g, s], gen), (g, s, n)


@pytest.mark.parametrize(
    "prime",
    [
        lambda gen: gen.random(dtype=np.float32),
        lambda gen: gen.integers(0, 10, dtype=np.uint32),
        lambda gen: gen.integers(10),
        lambda gen: gen.permutation(2),  # one 32-bit draw: leaves the high half pending
    ],
    ids=["float32", "uint32", "int64-small", "permutation2"],
)
def test_pending_uint32_half_is_served_first(prime):
    for seed in range(40):
        gen = spawned(seed)[seed % 2]
        prime(gen)
        row = export_state(gen)
        assert row[HAS_UINT32] == 1
        pending = row[UINTEGER]
        # The first 32-bit draw is the buffered half, untouched by the LCG.
        peek = row.copy()
        assert next_uint32(peek) == pending and peek[HAS_UINT32] == 0
        for n in (3, 52, 1, 53, 108):
            assert np.array_equal(jit_permutation(row, n), gen.permutation(n)), (seed, n)
            assert same_state(row, gen), (seed, n)


def test_raw_draws_interleave_like_numpy():
    """next_uint32 = full-range uint32 integers (low half first), next_uint64 = random_raw."""
    pick = np.random.default_rng(99)
    for seed in range(30):
        gen = spawned(seed)[0]
        row = export_state(gen)
        for op in pick.integers(0, 3, size=40):
            if op == 0:
                assert next_uint32(row) == gen.integers(0, 2**32, dtype=np.uint32)
            elif op == 1:  # next64 bypasses, and keeps, any pending 32-bit half
                assert next_uint64(row) == gen.bit_generator.random_raw()
            else:
                n = int(pick.integers(0, 60))
                assert np.array_equal(jit_permutation(row, n), gen.permutation(n))
            assert same_state(row, gen), (seed, op)


def test_low_half_comes_first():
    gen = spawned(5)[1]
    row = export_state(gen)
    raw = int(import_state(row).bit_generator.random_raw())
    assert int(next_uint32(row)) == raw & 0xFFFFFFFF
    assert int(next_uint32(row)) == raw >> 32


def reference_interval(gen: np.random.Generator, max_value: int) -> int:
    """distributions.c random_interval, drawing through numpy's own bit generator."""
    if max_value == 0:
        return 0
    mask = (1 << max_value.bit_length()) - 1
    while True:
        if max_value <= 0xFFFFFFFF:
            value = int(gen.integers(0, 2**32, dtype=np.uint32)) & mask
        else:
            value = int(gen.bit_generator.random_raw()) & mask
        if value <= max_value:
            return value


@pytest.mark.parametrize(
    "max_value",
    [0, 1, 2, 7, 51, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**40 + 5, 2**63, 2**64 - 1],
)
def test_random_interval_both_branches(max_value):
    for seed in range(10):
        gen = spawned(seed)[1]
        gen.random(dtype=np.float32)  # start with a pending half to cover both buffer states
        row = export_state(gen)
        for _ in range(20):
            got = int(random_interval(row, np.uint64(max_value)))
            assert got == reference_interval(gen, max_value)
            assert 0 <= got <= max_value
            assert same_state(row, gen)


@settings(max_examples=300, deadline=None)
@given(seed=st.one_of(st.integers(0, 2**32 + 9), st.integers(0, 2**63 - 1)))
def test_seeds_give_the_rows_numpy_seeds(seed):
    """default_rng(seed) and the engine's two streams (SeedSequence(seed).spawn(2)):
    SeedSequence's hashing and PCG64's seeding, reproduced."""
    row = np.zeros(STATE_WIDTH, dtype=np.uint64)
    seed_row(seed, NO_SPAWN, row)
    assert same_state(row, np.random.default_rng(seed))
    rows = np.zeros((2, STATE_WIDTH), dtype=np.uint64)
    game_rows(seed, rows)
    assert all(same_state(r, g) for r, g in zip(rows, game_streams(seed), strict=True))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 12, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 2**62])
def test_bounded_integers_are_numpys_integers(n):
    """Generator.integers(n): Lemire's method over 32 bits (the buffered half served first) or
    over 64."""
    for seed in range(10):
        gen = spawned(seed)[1]
        if seed % 2:
            gen.random(dtype=np.float32)  # a pending half
        row = export_state(gen)
        for _ in range(30):
            assert bounded_integer(row, n) == gen.integers(n)
            assert same_state(row, gen)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float64])
def test_shuffle_in_place_matches_generator_shuffle(dtype):
    for seed in range(20):
        gen = spawned(seed)[0]
        row = export_state(gen)
        for n in (0, 1, 2, 52, 99):
            ours = (np.arange(n) * 3 % 101).astype(dtype)
            theirs = ours.copy()
            shuffle_in_place(row, ours)
            gen.shuffle(theirs)
            assert np.array_equal(ours, theirs)
            assert same_state(row, gen)


def test_export_import_round_trip():
    for seed in range(20):
        gen = spawned(seed)[seed % 2]
        if seed % 3:
            gen.random(dtype=np.float32)  # mix rows with and without a pending half
        row = export_state(gen)
        assert row.dtype == np.uint64 and row.shape == (STATE_WIDTH,)
        clone = import_state(row)
        assert clone.bit_generator.state == gen.bit_generator.state
        assert np.array_equal(export_state(clone), row)
        assert np.array_equal(clone.permutation(53), gen.permutation(53))
        assert clone.bit_generator.state == gen.bit_generator.state


def test_helpers_validate_and_allocate():
    assert new_states(4).shape == (4, STATE_WIDTH)
    assert new_states((3, 2)).shape == (3, 2, STATE_WIDTH)
    with pytest.raises(ValueError, match="PCG64"):
        export_state(np.random.Generator(np.random.PCG64DXSM(1)))
    with pytest.raises(ValueError, match="shape"):
        import_state(np.zeros(5, dtype=np.uint64))


def test_a_numpy_that_draws_otherwise_is_refused_in_one_line_naming_it():
    """The import-time check (``check_numpy``) passes on the numpy installed, and refuses one
    whose permutations differ, naming its version: the compiled engine would deal other games."""
    from crates_env.vector.rng import NumpyMismatch, check_numpy

    check_numpy()
    for drift in (
        lambda gen, n: np.roll(gen.permutation(n), 1),  # another shuffle
        lambda gen, n: gen.permutation(n) if n < 100 else gen.permutation(n + 1)[:n],  # draws
    ):
        with pytest.raises(NumpyMismatch) as refused:
            check_numpy(permutation=drift)
        message = str(refused.value)
        assert f"numpy {np.__version__}" in message and "\n" not in message
        assert isinstance(refused.value, ImportError)

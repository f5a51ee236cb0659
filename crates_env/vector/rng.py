"""numpy's ``Generator(PCG64)`` reproduced bit for bit inside numba kernels.

The vectorised engine keeps one generator per game slot and stream, so a generator state is a row
of one plain ``uint64`` array (``states[..., STATE_WIDTH]``) that jitted code mutates in place::

    col 0 STATE_HI   high 64 bits of the 128-bit LCG state
    col 1 STATE_LO   low 64 bits of the LCG state
    col 2 INC_HI     high 64 bits of the (odd) LCG increment
    col 3 INC_LO     low 64 bits of the increment
    col 4 HAS_UINT32 1 if a buffered 32-bit half is pending, else 0
    col 5 UINTEGER   the pending 32-bit half (only meaningful when HAS_UINT32 is 1)

This mirrors ``PCG64.state`` exactly, so a row round-trips through ``export_state`` /
``import_state`` and draws interleave with numpy's own.

What numpy does (numpy/random/src/pcg64/pcg64.h, distributions.c). Importing this module checks
it against the numpy installed (:func:`check_numpy`): a numpy that draws otherwise is refused in
one line naming its version, since the compiled engine would then deal other games than the
reference engine.

* ``next64`` steps the LCG (``state = state * MULT + inc mod 2**128``) *before* emitting, and
  emits XSL-RR of the new state: ``rotr64(hi ^ lo, hi >> 58)``.
* ``next32`` serves a 64-bit draw as two halves: the low half is returned first, the high half is
  kept in ``uinteger`` with ``has_uint32 = 1`` and returned by the next ``next32`` call.
  ``next64`` ignores (and keeps) that buffer.
* ``random_interval(max)`` masks draws to the smallest all-ones mask >= max and rejects values
  > max, drawing with ``next32`` when ``max <= 0xffffffff`` and ``next64`` otherwise.
* ``Generator.permutation(n)`` is ``arange(n)`` then ``shuffle``: for i = n-1 down to 1,
  ``j = random_interval(i)`` and swap ``a[i], a[j]``.
* ``Generator.integers(n)`` (int64, ``n - 1`` the range) is Lemire's method: for a range within
  32 bits ``next32() * n`` with rejection of the low half below ``(2**32 - n) % n``, otherwise
  the same over 64 bits with ``next64`` (numpy/random/src/distributions/distributions.c).
* ``default_rng(seed)`` seeds PCG64 from ``SeedSequence(seed)`` (numpy/random/bit_generator.pyx,
  after M. O'Neill's seed_seq): the seed's 32-bit words (padded with zeros to the pool size
  when a spawn key follows) are hashed into a pool of four words, the pool gives four 64-bit
  words, and PCG64's ``srandom`` takes the first two as the state and the last two as the
  stream (``inc = stream << 1 | 1``; step, add the state, step). ``SeedSequence(s).spawn(2)``
  are the sequences with spawn keys ``(0,)`` and ``(1,)``.

numba has no 128-bit integers, so the LCG runs on uint64 halves. numba types a uint64/int64 mix
as float64, so every constant and operand below is an explicit ``np.uint64``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

STATE_HI = 0
STATE_LO = 1
INC_HI = 2
INC_LO = 3
HAS_UINT32 = 4
UINTEGER = 5
STATE_WIDTH = 6

_MASK64 = (1 << 64) - 1

# PCG_DEFAULT_MULTIPLIER_128 = 0x2360ed051fc65da4_4385df649fccf645, split into halves.
_MULT_HI = np.uint64(0x2360ED051FC65DA4)
_MULT_LO = np.uint64(0x4385DF649FCCF645)

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_LOW32 = np.uint64(0xFFFFFFFF)
_MAX64 = np.uint64(0xFFFFFFFFFFFFFFFF)

# SeedSequence's hash constants (numpy/random/bit_generator.pyx), as uint64 masked to 32 bits.
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
POOL_SIZE = 4
NO_SPAWN = -1  # seed_row: a SeedSequence of the seed alone


# --- Python side: numpy Generator <-> state row ---------------------------------------------------


def export_state(gen: np.random.Generator) -> np.ndarray:
    """The ``uint64[STATE_WIDTH]`` row holding ``gen``'s PCG64 state (``gen`` is not advanced)."""
    st = gen.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"expected a PCG64 generator, got {st['bit_generator']}")
    s = int(st["state"]["state"])
    inc = int(st["state"]["inc"])
    return np.array(
        [s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, int(st["has_uint32"]), st["uinteger"]],
        dtype=np.uint64,
    )


def import_state(row: np.ndarray) -> np.random.Generator:
    """A fresh ``Generator(PCG64)`` whose future output equals the row's."""
    r = np.asarray(row, dtype=np.uint64)
    if r.shape != (STATE_WIDTH,):
        raise ValueError(f"state row must have shape ({STATE_WIDTH},), got {r.shape}")
    bg = np.random.PCG64(0)  # seed is irrelevant: the whole state is overwritten below
    bg.state = {
        "bit_generator": "PCG64",
        "state": {
            "state": (int(r[STATE_HI]) << 64) | int(r[STATE_LO]),
            "inc": (int(r[INC_HI]) << 64) | int(r[INC_LO]),
        },
        "has_uint32": int(r[HAS_UINT32]),
        "uinteger": int(r[UINTEGER]),
    }
    return np.random.Generator(bg)


def new_states(shape: int | tuple[int, ...]) -> np.ndarray:
    """A zeroed batch ``uint64[*shape, STATE_WIDTH]``; fill rows with ``write_state``."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return np.zeros((*shape, STATE_WIDTH), dtype=np.uint64)


def write_state(states: np.ndarray, index: int | tuple[int, ...], gen: np.random.Generator) -> None:
    """Copy ``gen``'s state into row ``states[index]``."""
    states[index] = export_state(gen)


# --- numba side: draws on a 1-D row view (mutated in place) ---------------------------------------


@njit(cache=True)
def _mulhi64(x: np.uint64, y: np.uint64) -> np.uint64:
    """High 64 bits of the 128-bit product x * y, via 32-bit limbs (same as pcg64.h's fallback)."""
    x0 = x & _LOW32
    x1 = x >> _U32
    y0 = y & _LOW32
    y1 = y >> _U32
    w0 = x0 * y0
    t = x1 * y0 + (w0 >> _U32)
    w1 = (t & _LOW32) + x0 * y1
    return x1 * y1 + (t >> _U32) + (w1 >> _U32)


@njit(cache=True)
def next_uint64(row: np.ndarray) -> np.uint64:
    """``PCG64.next64``: step the LCG, then emit XSL-RR of the new state."""
    _step(row)
    new_hi = row[STATE_HI]
    new_lo = row[STATE_LO]
    v = new_hi ^ new_lo
    rot = new_hi >> _U58
    # (64 - rot) & 63 instead of -rot & 63: unary minus on uint64 is awkward in numba.
    return (v >> rot) | (v << ((_U64 - rot) & _U63))


@njit(cache=True)
def _step(row: np.ndarray) -> None:
    """The LCG step: ``state = state * MULT + inc mod 2**128``."""
    s_hi = row[STATE_HI]
    s_lo = row[STATE_LO]
    # state * MULT mod 2**128: the hi*hi term overflows away entirely; uint64 mul wraps.
    lo = s_lo * _MULT_LO
    hi = _mulhi64(s_lo, _MULT_LO) + s_hi * _MULT_LO + s_lo * _MULT_HI
    # + inc, carrying out of the low half.
    inc_lo = row[INC_LO]
    new_lo = lo + inc_lo
    carry = _U1 if new_lo < inc_lo else _U0
    new_hi = hi + row[INC_HI] + carry
    row[STATE_HI] = new_hi
    row[STATE_LO] = new_lo


@njit(cache=True)
def next_uint32(row: np.ndarray) -> np.uint32:
    """``PCG64.next32``: the buffered high half if pending, else the low half of a fresh next64."""
    if row[HAS_UINT32] != _U0:
        row[HAS_UINT32] = _U0
        return np.uint32(row[UINTEGER])
    v = next_uint64(row)
    row[HAS_UINT32] = _U1
    row[UINTEGER] = v >> _U32
    return np.uint32(v & _LOW32)


# A draw is rejected with a chance under 1/2, so a PCG64 stream is rejected this many times in
# a row with a chance under 2**-128: a row rejected that often is no PCG64 state (an even
# increment, as in a row of zeros, can repeat one value for ever), and the loops stop on it.
REJECTIONS = 128
NOT_A_STREAM = f"a random stream rejected {REJECTIONS} draws in a row: its row is no PCG64 state"


@njit(cache=True, inline="always")
def _again(tries: int) -> int:
    """One more rejected draw; the ``REJECTIONS``-th is a ValueError, not an endless loop."""
    if tries >= REJECTIONS:
        raise ValueError(NOT_A_STREAM)
    return tries + 1


@njit(cache=True)
def random_interval(row: np.ndarray, max_value: int) -> np.uint64:
    """numpy's ``random_interval``: uniform in [0, max_value] by masked rejection."""
    mx = np.uint64(max_value)
    if mx == _U0:
        return _U0  # numpy draws nothing here
    mask = mx
    for k in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(k)
    tries = 0
    if mx <= _LOW32:
        while True:
            value = np.uint64(next_uint32(row)) & mask
            if value <= mx:
                return value
            tries = _again(tries)
    while True:
        value = next_uint64(row) & mask
        if value <= mx:
            return value
        tries = _again(tries)


@njit(cache=True)
def bounded_integer(row: np.ndarray, n: int) -> int:
    """``Generator.integers(n)``: uniform in [0, n) by Lemire's method, over 32 bits when
    ``n - 1`` fits them, else over 64."""
    rng = np.uint64(n - 1)
    if rng == _U0:
        return 0  # numpy draws nothing here
    if rng == _LOW32:
        return np.int64(next_uint32(row))
    if rng < _LOW32:
        excl = rng + _U1
        m = np.uint64(next_uint32(row)) * excl
        leftover = m & _LOW32
        if leftover < excl:
            threshold = (_LOW32 - rng) % excl
            tries = 0
            while leftover < threshold:
                tries = _again(tries)
                m = np.uint64(next_uint32(row)) * excl
                leftover = m & _LOW32
        return np.int64(m >> _U32)
    excl = rng + _U1
    x = next_uint64(row)
    leftover = x * excl
    if leftover < excl:
        threshold = (_MAX64 - rng) % excl
        tries = 0
        while leftover < threshold:
            tries = _again(tries)
            x = next_uint64(row)
            leftover = x * excl
    return np.int64(_mulhi64(x, excl))


@njit(cache=True)
def _hashmix(value: np.uint64, hash_const: np.ndarray) -> np.uint64:
    value = (value ^ hash_const[0]) & _LOW32
    hash_const[0] = (hash_const[0] * _MULT_A) & _LOW32
    value = (value * hash_const[0]) & _LOW32
    return value ^ (value >> _XSHIFT)


@njit(cache=True)
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _LOW32
    return result ^ (result >> _XSHIFT)


@njit(cache=True)
def seed_row(seed: int, spawn: int, row: np.ndarray) -> None:
    """``row`` := the state of ``default_rng(SeedSequence(seed, spawn_key=(spawn,)))``
    (``spawn`` ``NO_SPAWN``: ``default_rng(seed)``), for a seed in [0, 2**64)."""
    entropy = np.zeros(POOL_SIZE + 1, np.uint64)  # the seed's words, then the spawn key
    value = np.uint64(seed)
    entropy[0] = value & _LOW32
    n = 2 if value >> _U32 else 1
    entropy[1] = value >> _U32
    if spawn != NO_SPAWN:
        entropy[POOL_SIZE] = np.uint64(spawn)
        n = POOL_SIZE + 1
    pool = np.zeros(POOL_SIZE, np.uint64)  # SeedSequence.mix_entropy
    hash_const = np.full(1, _INIT_A, np.uint64)
    for i in range(POOL_SIZE):
        pool[i] = _hashmix(entropy[i] if i < n else _U0, hash_const)
    for i_src in range(POOL_SIZE):
        for i_dst in range(POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    for i_src in range(POOL_SIZE, n):
        for i_dst in range(POOL_SIZE):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hash_const))
    words = np.zeros(4, np.uint64)  # SeedSequence.generate_state(4, np.uint64)
    hash_b = _INIT_B
    for i in range(8):
        value = pool[i % POOL_SIZE] ^ hash_b
        hash_b = (hash_b * _MULT_B) & _LOW32
        value = (value * hash_b) & _LOW32
        value ^= value >> _XSHIFT
        words[i // 2] |= value << np.uint64(32 * (i % 2))
    row[INC_HI] = (words[2] << _U1) | (words[3] >> _U63)  # PCG64's srandom
    row[INC_LO] = (words[3] << _U1) | _U1
    row[STATE_HI] = _U0
    row[STATE_LO] = _U0
    _step(row)
    low = row[STATE_LO] + words[1]
    row[STATE_HI] = row[STATE_HI] + words[0] + (_U1 if low < words[1] else _U0)
    row[STATE_LO] = low
    _step(row)
    row[HAS_UINT32] = _U0
    row[UINTEGER] = _U0


@njit(cache=True)
def game_rows(seed: int, rows: np.ndarray) -> None:
    """``crates_env.game.game_streams(seed)`` for an int seed: ``SeedSequence(seed).spawn(2)``
    as the deal and reshuffle rows."""
    seed_row(seed, 0, rows[0])
    seed_row(seed, 1, rows[1])


@njit(cache=True)
def shuffle_in_place(row: np.ndarray, arr: np.ndarray) -> None:
    """``Generator.shuffle`` of a 1-D array (Fisher-Yates from the top, numpy's draw order)."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = np.int64(random_interval(row, np.uint64(i)))
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True)
def permutation_into(row: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` with ``Generator.permutation(len(out))``: arange, then shuffle."""
    for i in range(out.shape[0]):
        out[i] = i
    shuffle_in_place(row, out)


# --- the numpy installed: does it draw what the rows draw? ----------------------------------------


class NumpyMismatch(ImportError):
    """The installed numpy's PCG64 draws are not the ones reproduced here."""


SELF_TEST_SEEDS = (0, 1, 2**32 + 7, 2**63 - 1)
SELF_TEST_SIZES = (2, 53, 112, 7)  # shuffles of the sizes the engine deals (two packs: 112)


def _numpy_permutation(gen: np.random.Generator, n: int) -> np.ndarray:
    return gen.permutation(n)


def check_numpy(permutation=_numpy_permutation) -> None:
    """Raise :class:`NumpyMismatch` unless the rows draw what numpy's own ``Generator`` draws:
    a run of permutations (every draw ``random_interval`` makes, the buffered 32-bit half
    included) and of bounded integers from a few seeds, and the generator's whole state after
    them; and unless a seed gives the rows numpy's seeding gives (``default_rng`` and the
    engine's ``game_streams``). ``permutation`` is numpy's draw (a parameter for the tests)."""
    from ..game import game_streams

    for seed in SELF_TEST_SEEDS:
        gen = np.random.Generator(np.random.PCG64(seed))
        row = export_state(gen)
        for n in SELF_TEST_SIZES:
            out = np.empty(n, dtype=np.int64)
            permutation_into(row, out)
            if not np.array_equal(out, permutation(gen, n)):
                _refuse(f"permutation({n}) from seed {seed}")
            if bounded_integer(row, n) != gen.integers(n):
                _refuse(f"integers({n}) from seed {seed}")
        if not np.array_equal(row, export_state(gen)):
            _refuse(f"the generator's state after the draws from seed {seed}")
        rows = np.zeros((2, 2, STATE_WIDTH), dtype=np.uint64)
        seed_row(seed, NO_SPAWN, rows[0, 0])
        game_rows(seed, rows[1])
        seeded = ([np.random.default_rng(seed)], game_streams(seed))
        for got, generators in zip(rows, seeded, strict=True):
            for row, generator in zip(got, generators, strict=False):
                if not np.array_equal(row, export_state(generator)):
                    _refuse(f"the streams seeded by {seed}")


def _refuse(what: str) -> None:
    raise NumpyMismatch(
        f"numpy {np.__version__} draws other numbers than crates_env.vector's copy of its PCG64 "
        f"streams ({what} differs), so the compiled engine would deal other games than the "
        "reference: install a numpy it matches (2.x) or play on the reference engine "
        "(crates_env.crates_v0, engine='reference')"
    )


check_numpy()

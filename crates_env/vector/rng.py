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
    v = new_hi ^ new_lo
    rot = new_hi >> _U58
    # (64 - rot) & 63 instead of -rot & 63: unary minus on uint64 is awkward in numba.
    return (v >> rot) | (v << ((_U64 - rot) & _U63))


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


@njit(cache=True)
def random_interval(row: np.ndarray, max_value: int) -> np.uint64:
    """numpy's ``random_interval``: uniform in [0, max_value] by masked rejection."""
    mx = np.uint64(max_value)
    if mx == _U0:
        return _U0  # numpy draws nothing here
    mask = mx
    for k in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(k)
    if mx <= _LOW32:
        while True:
            value = np.uint64(next_uint32(row)) & mask
            if value <= mx:
                return value
    while True:
        value = next_uint64(row) & mask
        if value <= mx:
            return value


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
    included) from a few seeds, and the generator's whole state after them. ``permutation``
    is numpy's draw (a parameter for the tests)."""
    for seed in SELF_TEST_SEEDS:
        gen = np.random.Generator(np.random.PCG64(seed))
        row = export_state(gen)
        for n in SELF_TEST_SIZES:
            out = np.empty(n, dtype=np.int64)
            permutation_into(row, out)
            if not np.array_equal(out, permutation(gen, n)):
                _refuse(f"permutation({n}) from seed {seed}")
        if not np.array_equal(row, export_state(gen)):
            _refuse(f"the generator's state after the draws from seed {seed}")


def _refuse(what: str) -> None:
    raise NumpyMismatch(
        f"numpy {np.__version__} draws other numbers than crates_env.vector's copy of its PCG64 "
        f"streams ({what} differs), so the compiled engine would deal other games than the "
        "reference: install a numpy it matches (2.x) or play on the reference engine "
        "(crates_env.crates_v0, engine='reference')"
    )


check_numpy()

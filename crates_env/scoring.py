"""Scoring a hand left at the end of a deal, and pressure values (docs/rules.md §1.8-1.10, §1.15).

The three-scoring algorithms are the closed forms of docs/rules.md §1.15; P3 says the engine
always takes the minimum a player could reach by choosing covers, and these forms are that minimum
(the tests check them against a brute-force search over every way to cover).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from .cards import ACE, EIGHT, JOKER, THREE, parse_card, rank_of
from .rules import Pressure, Ruleset, make_ruleset


def card_points(kind: int, points: tuple[int, ...]) -> int:
    return points[13] if kind == JOKER else points[rank_of(kind)]


def _top(values: list[int], n: int) -> int:
    return sum(sorted(values, reverse=True)[:n])


def score_kinds(kinds: Iterable[int], ruleset: Ruleset) -> int:
    """Points of a hand of card kinds under ``ruleset``'s point table and three-scoring."""
    kinds = list(kinds)
    if ruleset.three_scoring == "none":  # the Crazy Eights family: face values [003:47,130]
        kind_points = ruleset.kind_points
        return sum(kind_points[k] for k in kinds)
    if not kinds:
        return 0
    points = ruleset.points
    threes = sum(1 for k in kinds if k != JOKER and rank_of(k) == THREE)
    if threes == len(kinds):  # a hand of threes only (kreights' own table [001:41])
        table = ruleset.all_threes
        return table[threes - 1] if threes <= len(table) else -50 * threes
    others = [k for k in kinds if k == JOKER or rank_of(k) != THREE]
    values = [card_points(k, points) for k in others]
    if threes == 0:
        return sum(values)
    algorithm = ruleset.three_scoring
    if algorithm == "crates":
        eights = sum(v for k, v in zip(others, values, strict=True) if _rank(k) == EIGHT)
        n = [v for k, v in zip(others, values, strict=True) if _rank(k) != EIGHT]
        if not n:
            return eights + 3  # the threes collapse into one pair (or one bare three)
        j = min(threes, max(1, sum(1 for v in n if v > 3)))
        return eights + sum(n) - _top(n, j) + 3 * j
    if algorithm == "kreights":
        n = [v for k, v in zip(others, values, strict=True) if _rank(k) != EIGHT]
        targets = n if threes == 1 else n + [3] * threes  # threes may cancel each other [001:48]
        return sum(values) + 3 * threes - _top(targets, threes)
    if algorithm == "cover8":
        return sum(values) - _top(values, threes) + 3 * threes
    # punitive (creights; craits_punitive_threes), optionally with eights coverable
    barred = (ACE,) if algorithm == "punitive_cover8" else (ACE, EIGHT)
    eligible = [v for k, v in zip(others, values, strict=True) if _rank(k) not in barred]
    j = min(threes, len(eligible))
    return sum(values) - _top(eligible, j) + 3 * j + 100 * (threes - j)


class HandScorer:
    """Points of a hand given as a bitmask of card ids (the observation's hot path).

    A hand without threes is the sum of its cards, read ``CHUNK`` cards at a time from tables;
    a hand with threes goes through :func:`score_kinds` (covers), cached, since threes are held
    less often and the same hands recur.
    """

    CHUNK = 13

    def __init__(self, ruleset: Ruleset) -> None:
        deck = ruleset.deck
        self.ruleset = ruleset
        self._threes = 0 if ruleset.three_scoring == "none" else deck.rank_mask[THREE]
        # Without threes a hand's points add up card by card (both branches of score_kinds).
        values = tuple(score_kinds([kind], ruleset) for kind in deck.kinds)
        self._tables = _chunk_tables(values, self.CHUNK)
        self._cache: dict[int, int] = {}

    def __call__(self, hand: int) -> int:
        if not hand & self._threes:
            total, shift, low = 0, self.CHUNK, (1 << self.CHUNK) - 1
            for table in self._tables:
                total += table[hand & low]
                hand >>= shift
            return total
        points = self._cache.get(hand)
        if points is None:
            if len(self._cache) > 200_000:
                self._cache.clear()
            points = score_kinds(self.ruleset.deck.kinds_in(hand), self.ruleset)
            self._cache[hand] = points
        return points


@lru_cache(maxsize=32)
def _chunk_tables(values: tuple[int, ...], chunk: int) -> tuple[list[int], ...]:
    """``tables[c][bits]``: points of the cards ``c * chunk + j`` for each bit ``j`` set."""
    bits = (np.arange(1 << chunk)[:, None] >> np.arange(chunk)) & 1
    padded = np.zeros(-(-len(values) // chunk) * chunk, dtype=np.int64)
    padded[: len(values)] = values
    return tuple((bits @ part).tolist() for part in padded.reshape(-1, chunk))


def _rank(kind: int) -> int:
    return -1 if kind == JOKER else rank_of(kind)


@lru_cache(maxsize=64)
def _cached_ruleset(preset: str, options: tuple) -> Ruleset:
    return make_ruleset(preset, **dict(options))


def score_hand(cards: Iterable[str | int], preset: str = "crates", **overrides) -> int:
    """Points for ``cards`` (codes such as ``"3H"`` or kinds) left in hand at the end of a deal.

    Every card needs a suit, e.g. ``["AS", "3H", "8C"]``.
    ``overrides`` are ruleset options, e.g. ``craits_punitive_threes=True``.
    """
    options = tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in overrides.items())
    )
    ruleset = _cached_ruleset(preset, options)
    return score_kinds((parse_card(c) for c in cards), ruleset)


def pressure_value(n: int, progression: str) -> int:
    """Value of the ``n``-th pressure (1-based) of one player or partnership."""
    if n < 1:
        raise ValueError(f"pressures are counted from 1, not {n}")
    if progression == "flat5":
        return 5
    if progression == "none":  # crazy_eights and zimbabwe have no pressure (§1.10)
        return 0
    if progression == "double":
        return 5 << (n - 1)
    if progression == "cap20":  # p1 = 5, pn = pn-1 + min(pn-1, 20) [000:150]
        return 40 + 20 * (n - 4) if n > 4 else 5 << (n - 1)
    valid = ", ".join(p.name.lower() for p in Pressure)
    raise ValueError(f"unknown pressure progression {progression!r}; valid: {valid}")

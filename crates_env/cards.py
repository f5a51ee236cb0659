"""Cards as compact ints.

A card *kind* is ``suit * 13 + rank`` with suits in bridge order (clubs, diamonds, hearts, spades)
and ranks ``0 = A, 1 = 2, ..., 9 = 10, 10 = J, 11 = Q, 12 = K``; the Joker is kind 52. Public codes
are what a card player writes: ``AS``, ``10H``, ``QD``, ``8C`` and ``JK``.

A deck may hold several physical copies of a kind (two decks, two Jokers). The engine gives every
physical card its own id so a hand can be an int bitmask over ids; ``Deck`` maps ids to kinds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = 52
NUM_KINDS = 53

ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING = range(13)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
RED_SUITS = (DIAMONDS, HEARTS)


def suit_of(kind: int) -> int:
    """Suit index of a kind (meaningless for the Joker)."""
    return kind // 13


def rank_of(kind: int) -> int:
    """Rank index of a kind, 0 = ace ... 12 = king (meaningless for the Joker)."""
    return kind % 13


def make_kind(rank: int, suit: int) -> int:
    return suit * 13 + rank


def same_colour_suits(suit: int) -> tuple[int, int]:
    """The suit and its partner of the same colour (a 9 names one of these)."""
    return RED_SUITS if suit in RED_SUITS else (CLUBS, SPADES)


def card_code(kind: int) -> str:
    """Public code of a kind: ``AS``, ``10H``, ``JK``."""
    if kind == JOKER:
        return "JK"
    if not 0 <= kind < JOKER:
        raise ValueError(f"not a card kind: {kind!r} (valid: 0..52)")
    return RANKS[rank_of(kind)] + SUITS[suit_of(kind)]


def _build_codes() -> dict[str, int]:
    codes = {card_code(k): k for k in range(NUM_KINDS)}
    for k in range(JOKER):
        if rank_of(k) == TEN:
            codes["T" + SUITS[suit_of(k)]] = k  # the one-letter ten many tools write
    return codes


_CODES = _build_codes()


def parse_card(code: str | int) -> int:
    """Kind of a public code (case-insensitive; ``TH`` is accepted for ``10H``).

    Raises ``ValueError`` naming the bad code.
    """
    if isinstance(code, int) and not isinstance(code, bool):
        card_code(code)  # validates
        return code
    if not isinstance(code, str):
        raise ValueError(f"bad card code {code!r}: expected a string such as 'AS', '10H' or 'JK'")
    kind = _CODES.get(code.strip().upper())
    if kind is None:
        raise ValueError(
            f"bad card code {code!r}: expected rank A,2-10,J,Q,K then suit C,D,H,S (e.g. '10H'), "
            "or 'JK' for a Joker"
        )
    return kind


def card_list(codes: object, what: str) -> list[int]:
    """Kinds of a list (or tuple) of codes given as ``what``; ValueError naming ``what`` when it
    is not a list of valid codes."""
    if not isinstance(codes, list | tuple):
        raise ValueError(
            f"{what} must be a list of card codes such as ['AS', '10H'], not {codes!r}"
        )
    return [parse_card(c) for c in codes]


def parse_cards(codes: Iterable[str | int] | str) -> list[int]:
    """Kinds of several codes; a string is split on whitespace and commas."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return [parse_card(c) for c in codes]


def pretty(kind: int) -> str:
    """Code with a suit symbol, for rendering: ``10♥``, ``Jk``."""
    if kind == JOKER:
        return "Jk"
    return RANKS[rank_of(kind)] + SUIT_SYMBOLS[suit_of(kind)]


@dataclass(frozen=True)
class Deck:
    """The physical cards of a rule system and bitmasks over their ids.

    ``kinds[i]`` is the kind of physical card ``i``; ``kind_mask[k]`` has a bit for every copy of
    kind ``k``. Hands are ints with one bit per physical card held.
    """

    kinds: tuple[int, ...]
    kind_mask: tuple[int, ...]
    suit_mask: tuple[int, ...]
    rank_mask: tuple[int, ...]
    joker_mask: int
    full_mask: int

    @classmethod
    def build(cls, decks: int = 1, jokers: int = 0, no_kings_queens: bool = False) -> Deck:
        kinds = []
        for _ in range(decks):
            kinds.extend(
                k for k in range(JOKER) if not (no_kings_queens and rank_of(k) in (QUEEN, KING))
            )
        kinds.extend([JOKER] * jokers)
        kind_mask = [0] * NUM_KINDS
        for i, k in enumerate(kinds):
            kind_mask[k] |= 1 << i
        suit_mask = [0] * 4
        rank_mask = [0] * 13
        for k in range(JOKER):
            suit_mask[suit_of(k)] |= kind_mask[k]
            rank_mask[rank_of(k)] |= kind_mask[k]
        return cls(
            kinds=tuple(kinds),
            kind_mask=tuple(kind_mask),
            suit_mask=tuple(suit_mask),
            rank_mask=tuple(rank_mask),
            joker_mask=kind_mask[JOKER],
            full_mask=(1 << len(kinds)) - 1,
        )

    @property
    def size(self) -> int:
        return len(self.kinds)

    def copies(self, kind: int) -> int:
        return self.kind_mask[kind].bit_count()

    def kinds_in(self, mask: int) -> list[int]:
        """Kinds of the physical cards in ``mask``, one entry per card, in id order."""
        kinds = self.kinds
        out = []
        while mask:
            low = mask & -mask
            out.append(kinds[low.bit_length() - 1])
            mask ^= low
        return out

    def kind_bits(self, mask: int) -> int:
        """The kinds of the cards in ``mask`` as a bitmask over kinds (bit ``k``: a card of kind
        ``k``), for tables that do not tell copies apart."""
        return sum(1 << k for k in self.distinct_kinds_in(mask))

    def distinct_kinds_in(self, mask: int) -> list[int]:
        """Kinds present in ``mask``, each once."""
        kinds, kind_mask = self.kinds, self.kind_mask
        out = []
        while mask:
            k = kinds[(mask & -mask).bit_length() - 1]
            out.append(k)
            mask &= ~kind_mask[k]
        return out

    def ids_for(self, cards: Iterable[int]) -> list[int]:
        """Physical ids for kinds, taking distinct copies; raises if the deck lacks them."""
        used = 0
        ids = []
        for k in cards:
            free = self.kind_mask[k] & ~used
            if not free:
                have = self.copies(k)
                raise ValueError(
                    f"card {card_code(k)} appears more often than the deck holds it ({have})"
                )
            low = free & -free
            used |= low
            ids.append(low.bit_length() - 1)
        return ids

"""Card codes, card kinds and decks (crates_env.cards)."""

from __future__ import annotations

import pytest

from crates_env.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    EIGHT,
    HEARTS,
    JOKER,
    KING,
    NUM_KINDS,
    QUEEN,
    RANKS,
    SPADES,
    SUITS,
    TEN,
    THREE,
    Deck,
    card_code,
    make_kind,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

ALL_CODES = [rank + suit for suit in SUITS for rank in RANKS] + ["JK"]


# --- codes ----------------------------------------------------------------------------------------


def test_there_are_53_kinds_with_53_distinct_codes():
    assert NUM_KINDS == 53
    assert len(ALL_CODES) == 53
    assert len({card_code(k) for k in range(NUM_KINDS)}) == 53


@pytest.mark.parametrize("kind", range(NUM_KINDS))
def test_card_code_parse_card_round_trip_for_every_kind(kind):
    code = card_code(kind)
    assert parse_card(code) == kind
    assert card_code(parse_card(code)) == code


@pytest.mark.parametrize("code", ALL_CODES)
def test_parse_card_card_code_round_trip_for_every_code(code):
    assert card_code(parse_card(code)) == code


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [
        ("AS", ACE, SPADES),
        ("10H", TEN, HEARTS),
        ("QD", QUEEN, DIAMONDS),
        ("8C", EIGHT, CLUBS),
        ("KS", KING, SPADES),
        ("3D", THREE, DIAMONDS),
    ],
)
def test_parse_card_gives_rank_and_suit(code, rank, suit):
    kind = parse_card(code)
    assert kind == make_kind(rank, suit)
    assert rank_of(kind) == rank
    assert suit_of(kind) == suit


def test_kind_layout_is_suit_times_13_plus_rank():
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13
    assert parse_card("10H") == 2 * 13 + 9
    assert parse_card("KS") == 51
    assert parse_card("JK") == JOKER == 52


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("as", "AS"),
        ("As", "AS"),
        ("10h", "10H"),
        ("qd", "QD"),
        ("8c", "8C"),
        ("jk", "JK"),
        ("Jk", "JK"),
        ("jh", "JH"),
    ],
)
def test_parse_card_is_case_insensitive(code, expected):
    assert parse_card(code) == parse_card(expected)


@pytest.mark.parametrize(("code", "expected"), [("TH", "10H"), ("th", "10H"), ("TC", "10C")])
def test_t_is_accepted_for_ten(code, expected):
    assert parse_card(code) == parse_card(expected)
    assert card_code(parse_card(code)) == expected  # the canonical code is "10H", not "TH"


def test_parse_card_accepts_a_valid_kind_int():
    assert parse_card(0) == 0
    assert parse_card(52) == JOKER


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        ("1H", "1H"),
        ("11S", "11S"),
        ("ZZ", "ZZ"),
        ("", "''"),
        (None, "None"),
        (53, "53"),
        (-1, "-1"),
        ("10X", "10X"),
        ("JKX", "JKX"),
    ],
)
def test_bad_code_raises_value_error_naming_it(bad, shown):
    with pytest.raises(ValueError) as info:
        parse_card(bad)
    assert shown in str(info.value)


@pytest.mark.parametrize("bad", [53, -1, 100])
def test_card_code_of_bad_kind_raises(bad):
    with pytest.raises(ValueError, match=str(bad)):
        card_code(bad)


def test_parse_cards_splits_on_whitespace_and_commas():
    assert parse_cards("AS, 10h JK") == [parse_card("AS"), parse_card("10H"), JOKER]
    assert parse_cards(["3H", "8C"]) == [parse_card("3H"), parse_card("8C")]


# --- decks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "size"),
    [
        ({}, 52),
        ({"jokers": 2}, 54),
        ({"no_kings_queens": True}, 44),
        ({"no_kings_queens": True, "jokers": 2}, 46),
        ({"decks": 2}, 104),
        ({"decks": 2, "no_kings_queens": True}, 88),
    ],
)
def test_a_deck_holds_as_many_card_ids_as_its_options_give_cards(kwargs, size):
    deck = Deck.build(**kwargs)
    assert deck.size == size
    assert len(deck.kinds) == size
    assert deck.full_mask == (1 << size) - 1


def test_single_deck_holds_each_kind_once_and_no_joker():
    deck = Deck.build()
    assert sorted(deck.kinds) == list(range(52))
    assert all(deck.copies(k) == 1 for k in range(52))
    assert deck.copies(JOKER) == 0
    assert deck.joker_mask == 0


def test_jokers_are_the_last_ids():
    deck = Deck.build(jokers=2)
    assert deck.kinds[52:] == (JOKER, JOKER)
    assert deck.copies(JOKER) == 2
    assert deck.joker_mask == (1 << 52) | (1 << 53)


def test_no_kings_queens_removes_all_eight_kings_and_queens():
    deck = Deck.build(no_kings_queens=True)
    assert all(rank_of(k) not in (QUEEN, KING) for k in deck.kinds)
    assert deck.copies(parse_card("KS")) == 0
    assert deck.copies(parse_card("QH")) == 0
    assert deck.copies(parse_card("JH")) == 1


def test_two_decks_hold_every_kind_twice():
    deck = Deck.build(decks=2)
    assert all(deck.copies(k) == 2 for k in range(52))
    assert deck.copies(JOKER) == 0


def test_suit_and_rank_masks_partition_the_cards():
    deck = Deck.build(decks=2, jokers=2)
    assert [m.bit_count() for m in deck.suit_mask] == [26, 26, 26, 26]
    assert [m.bit_count() for m in deck.rank_mask] == [8] * 13
    no_jokers = deck.full_mask & ~deck.joker_mask
    assert deck.suit_mask[0] | deck.suit_mask[1] | deck.suit_mask[2] | deck.suit_mask[3] == (
        no_jokers
    )


def test_kinds_in_lists_one_entry_per_card_in_id_order():
    deck = Deck.build()
    ids = deck.ids_for(parse_cards("KS AC 10H"))
    mask = sum(1 << i for i in ids)
    assert deck.kinds_in(mask) == parse_cards("AC 10H KS")  # id order = kind order in one deck
    assert deck.kinds_in(0) == []


def test_ids_for_in_a_single_deck_is_the_kind():
    deck = Deck.build()
    assert deck.ids_for(parse_cards("AC KS 3H")) == [0, 51, parse_card("3H")]


def test_ids_for_takes_distinct_copies_in_a_two_deck_deck():
    deck = Deck.build(decks=2)
    ace = parse_card("AS")
    ids = deck.ids_for([ace, ace])
    assert len(set(ids)) == 2
    assert [deck.kinds[i] for i in ids] == [ace, ace]
    mask = (1 << ids[0]) | (1 << ids[1])
    assert deck.kinds_in(mask) == [ace, ace]
    assert deck.distinct_kinds_in(mask) == [ace]


def test_distinct_kinds_in_lists_each_kind_once_with_duplicates():
    deck = Deck.build(decks=2, jokers=2)
    cards = parse_cards("3H 8C 3H JK JK")
    ids = deck.ids_for(cards)
    mask = sum(1 << i for i in ids)
    assert mask.bit_count() == 5
    assert sorted(deck.kinds_in(mask)) == sorted(cards)
    distinct = deck.distinct_kinds_in(mask)
    assert len(distinct) == 3
    assert sorted(distinct) == sorted({parse_card("3H"), parse_card("8C"), JOKER})


def test_two_jokers_get_two_ids():
    deck = Deck.build(jokers=2)
    assert sorted(deck.ids_for([JOKER, JOKER])) == [52, 53]


def test_ids_for_raises_when_a_card_appears_more_often_than_the_deck_holds_it():
    with pytest.raises(ValueError, match=r"AS appears more often than the deck holds it \(1\)"):
        Deck.build().ids_for(parse_cards("AS KD AS"))
    with pytest.raises(ValueError, match=r"10H appears more often than the deck holds it \(2\)"):
        Deck.build(decks=2).ids_for(parse_cards("10H 10H 10H"))
    with pytest.raises(ValueError, match=r"JK appears more often than the deck holds it \(0\)"):
        Deck.build().ids_for([JOKER])
    with pytest.raises(ValueError, match=r"KS appears more often than the deck holds it \(0\)"):
        Deck.build(no_kings_queens=True).ids_for(parse_cards("KS"))


def test_ids_for_with_exactly_the_held_copies_does_not_raise():
    deck = Deck.build(decks=2, jokers=2)
    assert len(deck.ids_for(parse_cards("10H 10H JK JK"))) == 4

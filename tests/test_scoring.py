"""Hand scoring and shuffle-pressure values (docs/rules.md §1.8-1.10, §1.15, §2.1, §2.2)."""

from __future__ import annotations

import itertools
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crates_env.cards import JOKER, THREE, card_code, parse_cards, rank_of
from crates_env.rules import make_ruleset
from crates_env.scoring import HandScorer, pressure_value, score_hand, score_kinds

SUITS = "CDHS"


def hand(ranks: str) -> list[str]:
    """Card codes for comma-separated ranks, e.g. "A,3,3" -> ["AC", "3D", "3H"].

    Suits cycle C, D, H, S so that up to four cards of one rank are distinct cards. "Joker" is the
    Joker.
    """
    out = []
    for i, rank in enumerate(r for r in ranks.split(",") if r):
        out.append("JK" if rank == "Joker" else rank + SUITS[i % 4])
    return out


def test_the_hand_helper_gives_one_card_of_each_rank_in_suit_order():
    assert hand("A,3,3,Joker") == ["AC", "3D", "3H", "JK"]
    assert hand("") == []


# --- docs/rules.md §2.2: the seed hands scored under every preset -----------------------------

COLUMNS = {
    "crates": ("crates", {}),
    "chicago1970": ("chicago1970", {}),
    "kreights": ("kreights", {}),
    "craits": ("craits", {}),
    "craits_punitive": ("craits", {"craits_punitive_threes": True}),
    "craits_cover8": ("craits", {"craits_three_covers_eight": True}),
    "creights": ("creights", {}),
}

# Hand: crates / chicago1970, kreights, craits, craits+punitive, craits+cover8, creights
TABLE_2_2 = {
    "A,2,3,3,6,8,K": (67, 67, 67, 67, 37, 67),
    "3,3,8": (53, 50, 53, 250, 6, 250),
    "10,7,6,2": (95, 90, 95, 95, 95, 100),
    "K,9,3": (13, 13, 13, 13, 13, 13),
    "8,5,3": (53, 53, 53, 53, 33, 53),
    "A,3,3": (3, 1, 3, 201, 6, 201),
    "3,3": (-100, -75, -100, -100, -100, -100),
    "A,3,3,6,7,9,K": (37, 32, 37, 37, 37, 42),
    "3,J,6": (13, 13, 13, 13, 13, 13),
    "3,3,3,8": (53, 50, 53, 350, 9, 350),
    "A,3": (3, 3, 3, 101, 3, 101),
    "3,8": (53, 53, 53, 150, 3, 150),
    "A,A,3,3": (4, 2, 4, 202, 6, 202),
    "3,3,3,K": (3, 3, 3, 203, 9, 203),
    "3": (-50, -50, -50, -50, -50, -50),
    "3,3,3,3": (-200, -200, -200, -200, -200, -200),
    "": (0, 0, 0, 0, 0, 0),
}


def _table_cases():
    for ranks, (crates, kreights, craits, punitive, cover8, creights) in TABLE_2_2.items():
        row = {
            "crates": crates,
            "chicago1970": crates,
            "kreights": kreights,
            "craits": craits,
            "craits_punitive": punitive,
            "craits_cover8": cover8,
            "creights": creights,
        }
        for column, expected in row.items():
            yield pytest.param(ranks, column, expected, id=f"{ranks or 'empty'}-{column}")


@pytest.mark.parametrize(("ranks", "column", "expected"), list(_table_cases()))
def test_the_seed_hands_score_as_section_2_2_says_under_every_preset(ranks, column, expected):
    preset, options = COLUMNS[column]
    assert score_hand(hand(ranks), preset, **options) == expected


@pytest.mark.parametrize(("ranks", "expected"), [("Joker,3", 3), ("Joker,8,3", 53)])
def test_table_2_2_jokers_crates_standig(ranks, expected):
    assert score_hand(hand(ranks), "crates", standig_jokers=True) == expected


def test_table_2_2_joker_alone_is_40():
    assert score_hand(["JK"], "crates", standig_jokers=True) == 40


# --- docs/rules.md §2.1: the seed examples --------------------------------------------------------


def test_tv01_crates_threes_cover_the_6_and_the_2():
    assert score_hand(hand("A,2,3,3,6,8,K"), "crates") == 67


def test_tv01_covering_6_and_k_would_be_worse():
    # 50 (8) + 20 (2) + 1 (A) + 3 + 3 = 77 > 67: the engine picks the minimum (P3).
    assert score_hand(hand("A,2,3,3,6,8,K"), "crates") < 77


def test_tv02_crates_three_covers_three_then_8():
    assert score_hand(hand("3,3,8"), "crates") == 53


def test_tv05_kreights_no_threes():
    assert score_hand(hand("10,7,6,2"), "kreights") == 90  # 25 + 15 + 30 + 20


def test_tv05_same_hand_in_crates_and_creights():
    assert score_hand(hand("10,7,6,2"), "crates") == 95
    assert score_hand(hand("10,7,6,2"), "creights") == 100


def test_tv06_kreights_three_cancels_the_9():
    assert score_hand(hand("K,9,3"), "kreights") == 13


def test_tv07_kreights_8_cannot_be_cancelled():
    assert score_hand(hand("8,5,3"), "kreights") == 53


def test_tv08_kreights_mutual_cancellation_a_3_3_is_1():
    assert score_hand(hand("A,3,3"), "kreights") == 1


def test_tv08_kreights_without_mutual_cancellation_a_3_3_is_3():
    assert score_hand(hand("A,3,3"), "kreights", kreights_three_mutual_cancel=False) == 3


def test_tv09_kreights_two_threes_only():
    assert score_hand(hand("3,3"), "kreights") == -75


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "craits", "creights"])
def test_tv09_two_threes_only_elsewhere(preset):
    assert score_hand(hand("3,3"), preset) == -100


@pytest.mark.parametrize(
    ("threes", "expected"), [(1, -50), (2, -75), (3, -100), (4, -200), (5, -250), (8, -400)]
)
def test_tv10_kreights_all_threes_table(threes, expected):
    # 1-4 from [001:41]; 5+ (two decks) is -50 each (C-2, E-44).
    cards = [f"3{SUITS[i % 4]}" for i in range(threes)]
    assert score_hand(cards, "kreights") == expected


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "craits", "creights"])
@pytest.mark.parametrize("threes", [1, 2, 3, 4, 5])
def test_all_threes_minus_50_each_outside_kreights(preset, threes):
    cards = [f"3{SUITS[i % 4]}" for i in range(threes)]
    assert score_hand(cards, preset) == -50 * threes


def test_tv11_craits_threes_cancel_the_6_and_the_9():
    assert score_hand(hand("A,3,3,6,7,9,K"), "craits") == 37  # 1 + 3 + 3 + 20 + 10


def test_tv11_same_hand_in_kreights_and_creights():
    assert score_hand(hand("A,3,3,6,7,9,K"), "kreights") == 32
    assert score_hand(hand("A,3,3,6,7,9,K"), "creights") == 42


def test_tv13_creights_cover_the_6_not_the_j():
    assert score_hand(hand("3,J,6"), "creights") == 13  # covering the J instead would be 33


# DV-25 (a zimbabwe hand worth 244) is not tested: zimbabwe is not implemented yet.


# --- other scoring boundaries (E-50) ---------------------------------------------------------


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_empty_hand_scores_zero(preset):
    assert score_hand([], preset) == 0


def test_score_hand_accepts_kinds_and_any_case():
    assert score_hand(["as", "3h", "8C"], "crates") == score_hand(["AS", "3H", "8C"], "crates")
    assert score_hand([card_code(0), 2 * 13 + 2], "crates") == 3  # AC, 3H


@pytest.mark.parametrize("bad", ["A", "3", "1H"])
def test_score_hand_needs_suits(bad):
    with pytest.raises(ValueError, match=re.escape(f"bad card code {bad!r}")):
        score_hand([bad, "3H"], "crates")


@pytest.mark.parametrize(
    ("preset", "cards", "expected"),
    [
        # §1.8 single-card values per preset.
        ("crates", ["7H"], 20),
        ("kreights", ["7H"], 15),
        ("creights", ["7H"], 25),
        ("kreights", ["4H"], 20),
        ("crates", ["4H"], 15),
        ("kreights", ["9H"], 40),
        ("crates", ["9H"], 30),
        ("crates", ["AS", "2S", "5S", "6S", "8S", "10S", "JS", "QS", "KS"], 186),
    ],
)
def test_single_cards_score_their_presets_values(preset, cards, expected):
    assert score_hand(cards, preset) == expected


# --- pressures (TV-03, TV-04, TV-12, TV-14, DV-02) ------------------------------------------


def test_tv03_crates_doubling_pressures():
    assert make_ruleset("crates").pressure == "double"
    assert [pressure_value(n, "double") for n in (1, 2, 3, 4)] == [5, 10, 20, 40]
    # NS's pressures: #1 in hand 2 (+5), #2 and #3 in hand 3 (+30), the next is worth 40.
    assert pressure_value(2, "double") + pressure_value(3, "double") == 30


def test_tv04_pressure_cap_20_values():
    progression = make_ruleset("crates", pressure_cap_20=True).pressure
    assert progression == "cap20"
    assert [pressure_value(n, progression) for n in range(1, 8)] == [5, 10, 20, 40, 60, 80, 100]


def test_tv04_uncapped_values_the_seed_names():
    assert [pressure_value(n, "double") for n in (5, 6, 7)] == [80, 160, 320]


def test_tv04_totals_for_seven_pressures():
    assert sum(pressure_value(n, "cap20") for n in range(1, 8)) == 315
    assert sum(pressure_value(n, "double") for n in range(1, 8)) == 635


def test_cap20_matches_its_recurrence():
    previous = 5
    assert pressure_value(1, "cap20") == 5
    for n in range(2, 40):
        previous += min(previous, 20)
        assert pressure_value(n, "cap20") == previous


def test_tv12_craits_pressures():
    progression = make_ruleset("craits").pressure
    assert [pressure_value(n, progression) for n in (1, 2, 3)] == [5, 10, 20]


def test_tv14_creights_pressures():
    progression = make_ruleset("creights").pressure
    assert [pressure_value(n, progression) for n in (1, 2, 3, 4)] == [5, 10, 20, 40]


def test_tv14_fifteen_doubled_pressures_total_163835():
    assert sum(pressure_value(n, "double") for n in range(1, 16)) == 163_835 == 5 * (2**15 - 1)


def test_tv14_fifteen_pressures_capped_and_flat():
    assert sum(pressure_value(n, "cap20") for n in range(1, 16)) == 1_835
    kreights = make_ruleset("kreights").pressure
    assert sum(pressure_value(n, kreights) for n in range(1, 16)) == 75


def test_kreights_flat_five_and_optional_doubling():
    assert [pressure_value(n, "flat5") for n in (1, 2, 10)] == [5, 5, 5]
    doubling = make_ruleset("kreights", kreights_pressure_doubling=True).pressure
    assert [pressure_value(n, doubling) for n in (1, 2, 3)] == [5, 10, 20]


def test_dv02_two_pressures_in_one_draw():
    assert pressure_value(1, "double") + pressure_value(2, "double") == 15
    assert pressure_value(1, "flat5") + pressure_value(2, "flat5") == 10


@pytest.mark.parametrize("n", [0, -1])
def test_pressures_are_counted_from_one(n):
    with pytest.raises(ValueError, match=f"not {n}"):
        pressure_value(n, "double")


def test_unknown_progression_raises():
    with pytest.raises(ValueError, match="valid: double, cap20, flat5"):
        pressure_value(1, "triple")


# --- property: the closed forms are the minimum over every legal way to cover ----------------

# docs/rules.md §1.8 point values by rank letter, written out independently of crates_env.rules.
_BASE = {"A": 1, "2": 20, "3": 3, "4": 15, "5": 30, "6": 30, "7": 20, "8": 50, "9": 30}
_BASE |= {"10": 25, "J": 10, "Q": 10, "K": 10, "JK": 40}
POINTS = {
    "crates": _BASE,
    "chicago1970": _BASE,
    "craits": _BASE,
    "creights": _BASE | {"7": 25},
}


def _rank_letter(kind: int) -> str:
    return "JK" if kind == JOKER else card_code(kind)[:-1]


@cache
def _best_crates_chain(coverable: tuple[int, ...], bare: int, pairs: int) -> int:
    """T-CRATES by search: a bare 3 covers a coverable card, another bare 3 or a pair.

    Every covering makes a pair worth 3 that is itself eligible; pairing goes on while any bare 3
    can cover something; the player picks the sequence with the lowest total.
    """
    options = []
    if bare:
        for value in set(coverable):
            rest = list(coverable)
            rest.remove(value)
            options.append(_best_crates_chain(tuple(rest), bare - 1, pairs + 1))
        if bare >= 2:
            options.append(_best_crates_chain(coverable, bare - 2, pairs + 1))
        if pairs:
            options.append(_best_crates_chain(coverable, bare - 1, pairs))
    if not options:  # nothing left to pair: score what is on the table
        return sum(coverable) + 3 * (bare + pairs)
    return min(options)


def brute_crates(kinds: list[int], points: dict[str, int]) -> int:
    letters = [_rank_letter(k) for k in kinds]
    threes = letters.count("3")
    if not kinds:
        return 0
    if threes == len(kinds):
        return -50 * threes
    eights = sum(points[r] for r in letters if r == "8")
    coverable = tuple(sorted(points[r] for r in letters if r not in ("3", "8")))
    return eights + _best_crates_chain(coverable, threes, 0)


def brute_one_to_one(
    kinds: list[int], points: dict[str, int], barred: tuple[str, ...], idle_three: int
) -> int:
    """Each 3 covers at most one eligible card (not a 3, nor a ``barred`` rank) and no card is
    covered twice; a covered card scores 0, a covering 3 scores 3, an idle 3 ``idle_three``.
    Tries every assignment of threes to targets (or to nothing) and returns the lowest total.
    """
    letters = [_rank_letter(k) for k in kinds]
    threes = letters.count("3")
    if not kinds:
        return 0
    if threes == len(kinds):
        return -50 * threes
    non_threes = [r for r in letters if r != "3"]
    others = [points[r] for r in non_threes]
    eligible = [i for i, r in enumerate(non_threes) if r not in barred]
    best = None
    for targets in itertools.product([None, *eligible], repeat=threes):
        chosen = [t for t in targets if t is not None]
        if len(chosen) != len(set(chosen)):
            continue  # a card can be covered only once
        total = sum(v for i, v in enumerate(others) if i not in chosen)
        total += sum(3 if t is not None else idle_three for t in targets)
        best = total if best is None else min(best, total)
    return best


PROPERTY_CASES = {
    # id: (preset, options, jokers in the deck, brute force)
    "crates": ("crates", {}, 0, lambda h: brute_crates(h, POINTS["crates"])),
    "crates+standig_jokers": (
        "crates",
        {"standig_jokers": True},
        2,
        lambda h: brute_crates(h, POINTS["crates"]),
    ),
    "chicago1970": ("chicago1970", {}, 0, lambda h: brute_crates(h, POINTS["chicago1970"])),
    "craits": ("craits", {}, 0, lambda h: brute_crates(h, POINTS["craits"])),
    "creights": (
        "creights",
        {},
        0,
        lambda h: brute_one_to_one(h, POINTS["creights"], ("A", "8"), 100),
    ),
    "craits+craits_punitive_threes": (
        "craits",
        {"craits_punitive_threes": True},
        0,
        lambda h: brute_one_to_one(h, POINTS["craits"], ("A", "8"), 100),
    ),
    "craits+craits_three_covers_eight": (
        "craits",
        {"craits_three_covers_eight": True},
        0,
        lambda h: brute_one_to_one(h, POINTS["craits"], (), 3),
    ),
    "craits+punitive+covers_eight": (
        "craits",
        {"craits_punitive_threes": True, "craits_three_covers_eight": True},
        0,
        lambda h: brute_one_to_one(h, POINTS["craits"], ("A",), 100),
    ),
}


@st.composite
def hands(draw, jokers: int) -> list[int]:
    """0-10 cards drawn without replacement from a 52-card deck (plus ``jokers`` Jokers).

    The threes are drawn first (0-4 of the four) so that hands with several threes are common.
    """
    physical = list(range(52)) + [JOKER] * jokers
    three_ids = [i for i, k in enumerate(physical) if k != JOKER and rank_of(k) == THREE]
    other_ids = [i for i in range(len(physical)) if i not in three_ids]
    threes = draw(st.lists(st.sampled_from(three_ids), unique=True, max_size=4))
    others = draw(st.lists(st.sampled_from(other_ids), unique=True, max_size=10 - len(threes)))
    return draw(st.permutations([physical[i] for i in threes + others]))


@pytest.mark.parametrize("case", list(PROPERTY_CASES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_closed_form_equals_brute_force_minimum(case, data):
    preset, options, jokers, brute = PROPERTY_CASES[case]
    kinds = data.draw(hands(jokers), label="hand")
    expected = brute(kinds)
    assert score_kinds(kinds, make_ruleset(preset, **options)) == expected
    assert score_hand(kinds, preset, **options) == expected


# The brute forces themselves reproduce the seed examples, so they are a fair reference.
@pytest.mark.parametrize(
    ("ranks", "case", "expected"),
    [
        ("A,2,3,3,6,8,K", "crates", 67),
        ("3,3,8", "crates", 53),
        ("3,3,3,8", "crates", 53),
        ("A,A,3,3", "crates", 4),
        ("A,3,3,6,7,9,K", "craits", 37),
        ("Joker,8,3", "crates+standig_jokers", 53),
        ("3,J,6", "creights", 13),
        ("A,3,3,6,7,9,K", "creights", 42),
        ("3,3,3,K", "creights", 203),
        ("3,3,8", "craits+craits_three_covers_eight", 6),
        ("8,5,3", "craits+craits_three_covers_eight", 33),
        ("3,3,3,3", "crates", -200),
    ],
)
def test_brute_force_reproduces_seed_examples(ranks, case, expected):
    brute = PROPERTY_CASES[case][3]
    assert brute(parse_cards(hand(ranks))) == expected


TABLES = [
    ("crates", 4, {}),
    ("crates", 4, {"standig_jokers": True}),
    ("kreights", 4, {}),
    ("kreights", 5, {}),  # two decks
    ("craits", 4, {"craits_punitive_threes": True}),
    ("creights", 4, {}),
    ("crazy_eights", 4, {}),
    ("zimbabwe", 6, {}),  # two decks, four Jokers
]


@pytest.mark.parametrize(("preset", "players", "options"), TABLES)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_bitmask_scorer_agrees_with_score_kinds(preset, players, options, data):
    """HandScorer (tables for hands without threes, the cover rules with them) scores every
    hand as score_kinds does."""
    rules = make_ruleset(preset, players, **options)
    size = rules.deck.size
    ids = data.draw(st.sets(st.integers(0, size - 1), max_size=min(size, 20)))
    hand = sum(1 << i for i in ids)
    assert HandScorer(rules)(hand) == score_kinds(rules.deck.kinds_in(hand), rules)

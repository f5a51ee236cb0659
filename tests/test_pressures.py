"""Shuffle pressures: procedure D past an empty stock, the doubling values, partnerships' shared
counter, several pressures in one draw, and the hand that ends when nothing is left to reshuffle
(docs/rules.md §1.10, §1.15, §4.1: TV-03, TV-21, DV-01 to DV-04).
"""

from __future__ import annotations

import pytest

from crates_env import new_game
from crates_env.events import texts
from crates_env.scoring import pressure_value

from .scripted import act, deal_order, log_texts, names, same, since_setup

# --- TV-03: partnership pressures across hands ----------------------------------------------------


def test_tv03_partnership_pressures_double_across_hands():
    """NS (team 0): first pressure in hand 2 (+5), two more in hand 3 (+10 +20), next is 40."""
    g = new_game("crates", 4, seed=3, dealer=0, deal_schedule=[1, 1, 1, 1])

    # Hand 1: only EW (seat 1) takes a pressure; NS's counter is separate.
    g.set_position(
        hands=[["KH"], ["5H", "6H"], ["QS"], ["KC"]],
        stock=[],
        discard=["4C", "JS"],
        turn=1,
    )
    assert names(g) == ["draw"]
    act(g, "draw")
    assert g.to_play == 2
    act(g, "play QS")
    r1 = g.results[-1]
    assert r1.hand_index == 0
    assert r1.ended_by == "out"
    assert r1.went_out == 2
    assert r1.pressures == [0, 1]
    assert r1.pressure_points == [0, 5]
    assert r1.team_points == [10, 90]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p1 +5",
        "reshuffle 1",
        "p1 draws 1",
        "p2 plays QS",
        "p2 goes out",
        "hand 1 scores: team0 +10, team1 +90",
    ]
    assert g.pressure_count == [0, 1]

    # Hand 2: NS's first pressure of the game is worth 5.
    g.set_position(
        hands=[["KH", "QH"], ["4S"], ["5D"], ["KC"]],
        stock=[],
        discard=["2C", "JS"],
        turn=0,
    )
    assert names(g) == ["draw"]
    act(g, "draw")
    assert same(g.hand(0), ["KH", "QH", "2C"])
    assert g.pressure_points == [5, 0]
    act(g, "play 4S")
    r2 = g.results[-1]
    assert r2.hand_index == 1
    assert r2.pressures == [1, 0]
    assert r2.pressure_points == [5, 0]
    assert r2.card_points == [40, 0, 30, 10]
    assert r2.team_points == [75, 10]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p0 +5",
        "reshuffle 1",
        "p0 draws 1",
        "p1 plays 4S",
        "p1 goes out",
        "hand 2 scores: team0 +75, team1 +10",
    ]
    assert g.pressure_count == [1, 1]

    # Hand 3: two more NS pressures (seat 0, then partner seat 2): +10 and +20 = 30.
    g.set_position(
        hands=[["KH"], ["QS", "KD"], ["KC", "10H"], ["QC"]],
        stock=[],
        discard=["4C", "JS"],
        turn=0,
    )
    act(g, "draw")
    assert g.pressure_points == [10, 0]
    assert names(g) == ["announce", "play QS"]
    act(g, "announce", "play QS")
    assert g.to_play == 2
    assert names(g) == ["draw"]
    act(g, "draw")
    assert g.pressure_points == [30, 0]
    assert same(g.hand(2), ["KC", "10H", "JS"])
    assert g.stock_cards() == []
    assert g.discard_cards() == ["QS"]
    act(g, "play QC")
    r3 = g.results[-1]
    assert r3.hand_index == 2
    assert r3.pressures == [2, 0]
    assert r3.pressure_points == [30, 0]
    assert r3.card_points == [25, 10, 45, 0]
    assert r3.team_points == [100, 10]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p0 +10",
        "reshuffle 1",
        "p0 draws 1",
        "p1 announces one card",
        "p1 plays QS",
        "pressure p2 +20",
        "reshuffle 1",
        "p2 draws 1",
        "p3 plays QC",
        "p3 goes out",
        "hand 3 scores: team0 +100, team1 +10",
    ]
    assert g.pressure_count == [3, 1]
    assert pressure_value(4, g.rules.pressure) == 40

    # Hand 4: the next NS pressure is worth 40 (and ends the hand: nothing to reshuffle).
    g.set_position(
        hands=[["KH"], ["KD"], ["KC"], ["KS"]],
        stock=[],
        discard=["5H"],
        turn=2,
    )
    act(g, "draw")
    r4 = g.results[-1]
    assert r4.hand_index == 3
    assert r4.ended_by == "pressure"
    assert r4.pressure_points == [40, 0]
    assert r4.team_points == [60, 20]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p2 +40",
        "p2 draws 0 of 1: nothing to reshuffle",
        "hand 4 scores: team0 +60, team1 +20",
    ]
    assert g.pressure_count == [4, 1]
    assert g.game_over
    assert g.scores == [10 + 75 + 100 + 60, 90 + 10 + 10 + 20]
    assert g.seat_scores() == [245, 130, 245, 130]


# --- TV-21: creights pressure with nothing to reshuffle -------------------------------------------


def test_tv21_creights_pressure_with_nothing_to_reshuffle_ends_the_round():
    hearts = ["AH", "2H", "3H", "5H", "6H", "7H", "10H", "JH", "QH", "KH"]
    spades = ["AS", "2S", "3S", "5S", "6S", "7S", "10S", "JS", "QS", "KS"]
    clubs = ["AC", "2C", "3C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"]
    diamonds = [r + "D" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    rest = ["4H", "8H", "9H", "4S", "8S", "9S"]
    hands = [clubs, hearts + spades, diamonds, rest]
    g = new_game("creights", 4, seed=21, dealer=0, deal_schedule=[8])
    g.set_position(hands=hands, stock=[], discard=["4C"], turn=1)
    # 51 cards in hands, the play pile is only its top card, the stock is empty.
    assert sum(g.hand_sizes) == 51
    assert g.hand_sizes == [12, 20, 13, 6]
    assert g.stock_cards() == []
    assert g.discard_cards() == ["4C"]
    assert g.to_play == 1
    assert g.action_names() == ["draw"]
    act(g, "draw")

    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "pressure"
    assert r.went_out is None
    assert r.pressures == [0, 1, 0, 0]
    assert r.pressure_points == [0, 5, 0, 0]
    # creights: 3 covers a non-{3, A, 8} card and still counts 3.
    assert r.card_points == [214, 268, 229, 190]
    assert r.team_points == [214, 273, 229, 190]
    assert [len(c) for c in r.cards_left] == [12, 20, 13, 6]
    assert same(r.cards_left[1], hearts + spades)
    assert g.scores == [214, 273, 229, 190]
    assert g.pressure_count == [0, 1, 0, 0]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p1 +5",
        "p1 draws 0 of 1: nothing to reshuffle",
        "hand 1 scores: p0 +214, p1 +273, p2 +229, p3 +190",
    ]


# --- DV-01: a starter 5 empties a tiny stock ------------------------------------------------------


def test_dv01_five_player_starter_five_pressure_ends_hand_at_once():
    hands = [
        ["AC", "2C", "3C", "4C", "6C", "7C", "8C", "9C"],
        ["10C", "AD", "2D", "3D", "4D", "5D", "6D", "7D"],
        ["8D", "9D", "10D", "AH", "2H", "3H", "4H", "5H"],
        ["6H", "7H", "8H", "9H", "10H", "JS", "AS", "2S"],
        ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"],
    ]
    deck = deal_order(hands, dealer=0, starter="5C", stock=["JC", "JD", "JH"])
    assert len(deck) == 44
    g = new_game("crates", 5, seed=1, dealer=0, deck=deck, no_kings_queens=True, deal_schedule=[8])
    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "pressure"
    assert r.went_out is None
    assert [len(c) for c in r.cards_left] == [8, 9, 9, 9, 8]
    assert same(r.cards_left[1], [*hands[1], "JC"])
    assert same(r.cards_left[2], [*hands[2], "JD"])
    assert same(r.cards_left[3], [*hands[3], "JH"])
    assert same(r.cards_left[4], hands[4])
    assert r.pressures == [0, 0, 0, 0, 1]
    assert r.pressure_points == [0, 0, 0, 0, 5]
    assert r.card_points == [139, 124, 154, 196, 173]
    assert r.team_points == [139, 124, 154, 196, 178]
    assert g.scores == [139, 124, 154, 196, 178]
    assert log_texts(g.hand_logs)[-1] == [
        "hand 1: p0 deals 8 cards each",
        "p0 turns 5C",
        "p1 draws 1",
        "p2 draws 1",
        "p3 draws 1",
        "pressure p4 +5",
        "p4 draws 0 of 1: nothing to reshuffle",
        "hand 1 scores: p0 +139, p1 +124, p2 +154, p3 +196, p4 +178",
    ]


# --- DV-02: two pressures in one count draw -------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "second", "team_points", "score_line"),
    [
        ("crates", 10, [20, 75], "hand 1 scores: team0 +20, team1 +75"),
        ("kreights", 5, [10, 60, 10, 10], "hand 1 scores: p0 +10, p1 +60, p2 +10, p3 +10"),
    ],
    ids=["crates", "kreights"],
)
def test_dv02_count_draw_takes_two_pressures(preset, second, team_points, score_line):
    g = new_game(preset, 4, seed=2, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["KH"], ["KD", "QD"], ["KS"], ["QH"]],
        stock=[],
        discard=["KC", "QC", "JC", "2S"],
        turn=1,
        count=7,
    )
    assert g.count == 7
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "pressure"
    team = 1  # seat 1: team EW in crates, its own seat in kreights
    assert r.pressures[team] == 2
    assert r.pressure_points[team] == 5 + second
    assert sum(r.pressure_points) == 5 + second
    assert same(r.cards_left[1], ["KD", "QD", "KC", "QC", "JC"])
    assert r.card_points == [10, 50, 10, 10]
    assert r.team_points == team_points
    assert g.pressure_count[team] == 2
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p1 +5",
        "reshuffle 3",
        f"pressure p1 +{second}",
        "p1 draws 3 of 7: nothing to reshuffle",
        score_line,
    ]


# --- DV-03: a shared partnership counter ----------------------------------------------------------


def test_dv03_partnership_shares_the_pressure_counter():
    g = new_game("crates", 4, seed=3, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["QC"], ["5H", "6H"], ["QS", "JD"], ["10H", "7D"]],
        stock=[],
        discard=["4C", "KS"],
        turn=1,
    )
    act(g, "draw")
    assert g.pressure_points == [0, 5]
    assert same(g.hand(1), ["5H", "6H", "4C"])
    act(g, "announce", "play QS")
    assert g.to_play == 3
    assert names(g) == ["draw"]
    act(g, "draw")
    assert g.pressure_points == [0, 15]
    assert g.pressure_count == [0, 2]
    assert same(g.hand(3), ["10H", "7D", "KS"])
    assert g.to_play == 0
    act(g, "play QC")
    r = g.results[-1]
    assert r.ended_by == "out"
    assert r.went_out == 0
    assert r.pressures == [0, 2]
    assert r.pressure_points == [0, 15]
    assert r.card_points == [0, 75, 10, 55]
    assert r.team_points == [10, 145]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "pressure p1 +5",
        "reshuffle 1",
        "p1 draws 1",
        "p2 announces one card",
        "p2 plays QS",
        "pressure p3 +10",
        "reshuffle 1",
        "p3 draws 1",
        "p0 plays QC",
        "p0 goes out",
        "hand 1 scores: team0 +10, team1 +145",
    ]


# --- DV-04: a 5 runs through the stock ------------------------------------------------------------


def test_dv04_five_draws_in_order_and_last_player_takes_the_pressure():
    g = new_game("crates", 4, seed=4, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["5H", "KC", "QC"], ["KD", "QD", "JD"], ["KS", "QS", "JS"], ["4C", "4D", "4S"]],
        stock=["2C", "2D"],
        discard=["JH", "10H"],
        turn=0,
    )
    act(g, "play 5H")
    assert same(g.hand(1), ["KD", "QD", "JD", "2C"])
    assert same(g.hand(2), ["KS", "QS", "JS", "2D"])
    assert g.hand_sizes == [2, 4, 4, 4]
    new3 = sorted(set(g.hand(3)) - {"4C", "4D", "4S"})
    assert len(new3) == 1
    assert same(new3 + g.stock_cards(), ["JH", "10H"])
    assert g.discard_cards() == ["5H"]
    assert g.pressure_points == [0, 5]
    assert g.pressure_count == [0, 1]
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == [
        "p0 plays 5H",
        "p1 draws 1",
        "p2 draws 1",
        "pressure p3 +5",
        "reshuffle 2",
        "p3 draws 1",
    ]

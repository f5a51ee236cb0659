"""Standig Jokers (``standig_jokers``): the turn goes back a seat, the Joker is transparent, a
Joker on a Joker steps back twice, and a Joker in the count adds nothing (docs/rules.md §1.14:
DV-09 to DV-11).
"""

from __future__ import annotations

from crates_env import new_game
from crates_env.events import texts

from .scripted import act, names, same, since_setup

# --- DV-09 .. DV-11: Standig Jokers ---------------------------------------------------------------


def test_dv09_joker_sends_the_turn_back_and_is_transparent():
    g = new_game("crates", 4, seed=9, dealer=3, standig_jokers=True, deal_schedule=[8])
    g.set_position(
        hands=[
            ["KC", "QC", "JC"],
            ["5H", "7C", "8S", "KD", "QS"],
            ["JK", "KS", "JS"],
            ["4C", "4D", "4S"],
        ],
        stock=["2C", "2D", "2H", "2S"],
        discard=["7H"],
        turn=2,
    )
    assert names(g) == ["play JK"]
    act(g, "play JK")
    # Seat 1 plays again; the Joker is transparent: match hearts or a 7, or a wild/Joker.
    assert g.top_card == "JK"
    assert g.current_suit == "H"
    assert g.to_play == 1
    assert g.direction == 1
    assert names(g) == ["play 5H", "play 7C", "play 8S"]
    act(g, "play 5H")
    assert same(g.hand(2), ["KS", "JS", "2C"])
    assert same(g.hand(3), ["4C", "4D", "4S", "2D"])
    assert same(g.hand(0), ["KC", "QC", "JC", "2H"])
    assert g.to_play == 2
    assert since_setup(texts(g.events)) == [
        "p2 plays JK",
        "p1 plays 5H",
        "p2 draws 1",
        "p3 draws 1",
        "p0 draws 1",
    ]


def test_dv10_joker_on_joker_steps_back_twice():
    g = new_game("crates", 4, seed=10, standig_jokers=True, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["KH", "QS", "2D"], ["JK", "KD", "QD"], ["JK", "KC", "QC"], ["4C", "4D", "4S"]],
        stock=["2C", "3C"],
        discard=["7H"],
        turn=2,
    )
    act(g, "play JK")
    assert g.to_play == 1
    assert names(g) == ["play JK"]
    act(g, "play JK")
    assert g.to_play == 0
    assert g.direction == 1
    assert g.current_suit == "H"
    assert g.discard_cards() == ["7H", "JK", "JK"]
    # Seat 0 must match the card beneath both Jokers (7 of hearts).
    assert names(g) == ["play KH"]
    act(g, "play KH")
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p2 plays JK", "p1 plays JK", "p0 plays KH"]


def test_dv11_joker_in_the_count_adds_nothing():
    g = new_game("crates", 4, seed=11, standig_jokers=True, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["2S", "KC", "QC"], ["2H", "KD", "QD"], ["JK", "KH", "QS"], ["4C", "4D", "4S"]],
        stock=["5C", "6C", "7C", "9C", "10C"],
        discard=["5S"],
        turn=0,
    )
    act(g, "play 2S")
    assert g.count == 2
    act(g, "play 2H")
    assert g.count == 4
    assert g.to_play == 2
    assert names(g) == ["play JK"]
    act(g, "play JK")
    assert g.count == 4
    assert g.to_play == 1
    assert g.direction == 1
    assert names(g) == ["draw"]
    act(g, "draw")
    assert same(g.hand(1), ["KD", "QD", "5C", "6C", "7C", "9C"])
    assert g.count == 0
    assert g.to_play == 2
    assert g.current_suit == "H"
    assert names(g) == ["announce", "play KH"]
    assert since_setup(texts(g.events)) == [
        "p0 plays 2S, count 2",
        "p1 plays 2H, count 4",
        "p2 plays JK, count 4",
        "p1 draws 4",
    ]


def test_dv11_joker_in_the_count_prev_player_may_follow():
    g = new_game("crates", 4, seed=11, standig_jokers=True, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["2S", "KC", "QC"], ["2H", "AD", "KD"], ["JK", "KH", "QS"], ["4C", "4D", "4S"]],
        stock=["5C", "6C", "7C", "9C", "10C"],
        discard=["5S"],
        turn=0,
    )
    act(g, "play 2S", "play 2H", "play JK")
    assert g.to_play == 1
    assert g.count == 4
    assert names(g) == ["announce", "play AD"]
    act(g, "announce", "play AD")
    assert g.count == 5
    assert g.to_play == 2

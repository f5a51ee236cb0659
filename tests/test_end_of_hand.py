"""The end of a hand and of the game: the last card's effect before scoring, scoring limits,
creights' beer, the kreights barometer, craits' going out for -10, and ties at the end
(docs/rules.md §1.7, §1.13, §4.6: TV-30, E-45, E-46, E-50).
"""

from __future__ import annotations

import pytest

from crates_env import new_game, score_hand
from crates_env.events import texts

from .scripted import act, last_log, log_texts, same, short_game, since_setup

# --- TV-30: a beer for a last 7 of diamonds -------------------------------------------------------


def test_tv30_creights_last_seven_of_diamonds_beer():
    g = new_game("creights", 4, seed=30, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["7D"], ["QH"], ["QS"], ["JH"]],
        stock=["KC", "KD"],
        discard=["5D"],
        turn=0,
    )
    assert g.action_names() == ["play 7D"]
    act(g, "play 7D")
    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "out"
    assert r.went_out == 0
    assert r.cards_left[0] == []
    assert r.cards_left[1] == ["QH"]
    assert r.cards_left[3] == ["JH"]
    assert same(r.cards_left[2], ["QS", "KC"])
    assert r.card_points == [0, 10, 20, 10]
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "p0 plays 7D",
        "p2 draws 1",
        "p2 owes p0 a beer",
        "p0 goes out",
        "hand 1 scores: p0 +0, p1 +10, p2 +20, p3 +10",
    ]


def test_tv30_creights_no_beer_for_another_last_seven():
    g = new_game("creights", 4, seed=30, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["7H"], ["QH"], ["QS"], ["JH"]], stock=["KC", "KD"], discard=["5H"], turn=0
    )
    act(g, "play 7H")
    assert g.game_over
    assert since_setup(log_texts(g.hand_logs)[-1]) == [
        "p0 plays 7H",
        "p2 draws 1",
        "p0 goes out",
        "hand 1 scores: p0 +0, p1 +10, p2 +20, p3 +10",
    ]


def test_tv30_creights_no_beer_for_a_seven_of_diamonds_not_last():
    g = new_game("creights", 4, seed=30, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["7D", "KD"], ["QH", "JC"], ["QS", "JS"], ["JH", "10C"]],
        stock=["KC", "KS"],
        discard=["5D"],
        turn=0,
    )
    act(g, "announce", "play 7D")
    assert not g.game_over
    assert same(g.hand(2), ["QS", "JS", "KC"])
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 announces one card", "p0 plays 7D", "p2 draws 1"]


# --- E-45 / E-46: the last card's effect ----------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "n", "card", "options", "left", "points"),
    [
        ("crates", 3, "5H", {}, [["KC", "2S"], ["QC", "4S"]], [30, 25]),
        ("crates", 3, "7H", {}, [["KC", "2S"], ["4S"]], [30, 15]),
        ("crates", 3, "JH", {}, [["2S"], ["KC", "4S"]], [20, 25]),
        ("crates", 3, "QH", {"queen_draws_two": True}, [["QC", "KC", "2S"], ["4S"]], [40, 15]),
        ("craits", 3, "5H", {}, [["KC", "2S"], ["QC", "4S"]], [30, 25]),
        ("creights", 3, "JH", {}, [["2S"], ["KC", "4S"]], [20, 25]),
        ("kreights", 3, "7H", {}, [["2S"], ["KC", "4S"]], [20, 30]),
    ],
)
def test_e45_last_card_draws_happen_before_scoring(preset, n, card, options, left, points):
    g = short_game(preset, n, schedule=[3], **options)
    g.set_position(hands=[[card], ["2S"], ["4S"]], stock=["KC", "QC", "JC"], discard=["KH"], turn=0)
    act(g, f"play {card}")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left == [[], *left]
    assert r.card_points == [0, *points]
    log = last_log(g)
    assert log[0] == f"p0 plays {card}"
    assert log[-2] == "p0 goes out"


def test_e45_last_five_draws_charge_pressure():
    # E-4/E-5: seat 1 meets the empty stock (reshuffle of KH), seat 2 finds nothing to reshuffle
    g = short_game("crates", 3, schedule=[3])
    g.set_position(hands=[["5H"], ["2S"], ["4S"]], stock=[], discard=["KH"], turn=0)
    act(g, "play 5H")
    r = g.results[-1]
    assert r.ended_by == "pressure"
    assert r.cards_left == [[], ["KH", "2S"], ["4S"]]
    assert r.pressure_points == [0, 5, 5]
    assert r.team_points == [0, 35, 20]
    assert last_log(g) == [
        "p0 plays 5H",
        "pressure p1 +5",
        "reshuffle 1",
        "p1 draws 1",
        "pressure p2 +5",
        "p2 draws 0 of 1: nothing to reshuffle",
        "hand 1 scores: p0 +0, p1 +35, p2 +20",
    ]


def test_e45_kreights_last_five_ending_on_pressure_still_out_with_star():
    # the player who played the last card went out; the draw only ended the hand early
    g = short_game("kreights", 3, schedule=[3])
    g.set_position(hands=[["5H"], ["2S"], ["4S"]], stock=[], discard=["KH"], turn=0)
    act(g, "play 5H")
    r = g.results[-1]
    assert r.ended_by == "pressure"
    assert r.cards_left[0] == []
    assert r.went_out == 0
    assert r.stars == [1, 0, 0]


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights"])
@pytest.mark.parametrize("card", ["8S", "9S"])
def test_e46_last_card_wild_names_no_suit(preset, card):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(hands=[[card], ["2S"], ["4S"]], stock=["KC"], discard=["5H"], turn=0)
    act(g, f"play {card}")
    assert g.game_over
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    log = last_log(g)
    assert log[:2] == [f"p0 plays {card}", "p0 goes out"]
    assert not any("names" in e for e in log)


# --- E-50: scoring boundaries ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "preset", "options", "expected"),
    [
        ([], "crates", {}, 0),
        ([], "kreights", {}, 0),
        ([], "creights", {}, 0),
        (["8S", "3H"], "crates", {}, 53),
        (["8S", "3H"], "chicago1970", {}, 53),
        (["8S", "3H"], "craits", {}, 53),
        (["8S", "3H"], "kreights", {}, 53),
        (["8S", "3H"], "creights", {}, 150),
        (["8S", "3H"], "craits", {"craits_punitive_threes": True}, 150),
        (["8S", "3H"], "craits", {"craits_three_covers_eight": True}, 3),
        (["AS", "3H"], "creights", {}, 101),
        (["AS", "3H"], "crates", {}, 3),
        (["JK", "3H"], "crates", {"standig_jokers": True}, 3),
        (["3H"], "kreights", {}, -50),
        (["3H", "3S"], "kreights", {}, -75),
    ],
)
def test_e50_scoring_boundaries(cards, preset, options, expected):
    assert score_hand(cards, preset, **options) == expected


def test_e50_kreights_all_threes_hand_earns_two_stars():
    g = short_game("kreights", 3, schedule=[3])
    g.set_position(hands=[["KH"], ["3C", "3D"], ["QS"]], stock=["2C"], discard=["5H"], turn=0)
    act(g, "play KH")
    r = g.results[-1]
    assert r.card_points == [0, -75, 10]
    assert r.stars == [1, 2, 0]
    assert g.stars == [1, 2, 0]


# --- kreights_barometer: the leader logged after each deal ----------------------------------------


def test_kreights_barometer_logs_leader_after_each_deal():
    g = short_game("kreights", 3, schedule=[1, 1], kreights_barometer=True)
    g.set_position(hands=[["QC"], ["KH"], ["8C"]], stock=["2C"], discard=["5H"], turn=1)
    act(g, "play KH")
    assert log_texts(g.hand_logs)[0][-2:] == [
        "hand 1 scores: p0 +10, p1 +0, p2 +50",
        "barometer: p1 leads",
    ]
    g.set_position(hands=[["KH"], ["9C"], ["KC"]], stock=["2C"], discard=["5H"], turn=0)
    act(g, "play KH")
    assert g.scores == [10, 40, 60]
    assert log_texts(g.hand_logs)[1][-2:] == [
        "hand 2 scores: p0 +0, p1 +40, p2 +10",
        "barometer: p0 leads",
    ]
    assert g.game_over


def test_kreights_no_barometer_by_default():
    g = short_game("kreights", 3, schedule=[1])
    g.set_position(hands=[["QC"], ["KH"], ["8C"]], stock=["2C"], discard=["5H"], turn=1)
    act(g, "play KH")
    assert not any(e.startswith("barometer") for e in log_texts(g.hand_logs)[0])


# --- craits toggles -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "points"), [({}, [0, 10, 50]), ({"craits_go_out_minus_10": True}, [-10, 10, 50])]
)
def test_craits_go_out_minus_10(options, points):
    g = short_game("craits", 3, schedule=[1], **options)
    g.set_position(hands=[["KH"], ["QC"], ["8C"]], stock=["2C"], discard=["5H"], turn=0)
    act(g, "play KH")
    r = g.results[-1]
    assert r.card_points == points
    assert r.team_points == points
    assert g.scores == points


# --- game end -----------------------------------------------------------------------------------


def _two_hand_tie(preset):
    g = short_game(preset, 3, schedule=[1, 1])
    g.set_position(hands=[["3C"], ["KH"], ["KC"]], stock=["2C"], discard=["5H"], turn=1)
    act(g, "play KH")
    assert not g.game_over
    assert g.hand_index == 1
    g.set_position(hands=[["8D", "KD"], ["KH"], ["QS"]], stock=["2C"], discard=["5S"], turn=2)
    act(g, "play QS")
    return g


def test_game_end_kreights_winners_tie_broken_by_stars():
    g = _two_hand_tie("kreights")
    assert g.game_over
    assert g.decision is None
    assert len(g.results) == 2
    assert g.scores == [10, 10, 10]
    assert g.stars == [2, 1, 1]  # seat 0 was caught with only a 3 (two stars)
    assert g.winners() == [0]


def test_game_end_crates_tie_is_shared():
    g = _two_hand_tie("crates")
    assert g.game_over
    assert g.scores == [10, 10, 10]
    assert g.winners() == [0, 1, 2]

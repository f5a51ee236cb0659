"""Scripted deals for docs/rules.md §2.3 (DV-13..DV-20, DV-28..DV-30) and the §4 edge cases of the
Crates family (E-7 .. E-53), plus the kreights/craits toggles that change play.

Every test stacks the deck (``deck=``) or scripts a position (``set_position``) and checks exact
hands, scores, event lines, the seat to play and the legal actions.

Card order in ``g.hand()`` and ``cards_left`` is the engine's card order: clubs, diamonds, hearts,
spades, and A, 2, ..., 10, J, Q, K inside a suit.
"""

from __future__ import annotations

import pytest

from crates_env import (
    Decision,
    IllegalActionError,
    new_game,
    parse_action,
    parse_card,
    score_hand,
)
from crates_env.events import texts
from crates_env.game import lowest_cards

from .scripted import act, last_log, log_texts, short_game, since_setup, stacked

ALL_SUITS = ["suit C", "suit D", "suit H", "suit S"]


# --- DV-13: kreights ha-ha-no-star and clean ----------------------------------------------------


def test_dv13_kreights_ha_ha_no_star_and_clean():
    g = short_game("kreights", 4, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC"], ["AH", "KS"], ["2H", "AD", "QC"]],
        stock=["4C", "5C", "6C", "7C", "9C", "10C", "JC", "JD"],
        discard=["5H"],
        turn=3,
    )
    act(g, "play 2H", "play 2C", "play AC", "announce", "play AH", "announce", "play AD")
    # the count comes back to seat 0, who has 0 cards: it can only draw the count
    assert (g.to_play, g.count, g.hand_sizes) == (0, 7, [0, 0, 1, 1])
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.went_out == 0
    assert r.ha_ha_no_star is True
    assert r.stars == [0, 0, 0, 0]
    assert r.clean == [1]
    assert r.cards_left == [["4C", "5C", "6C", "7C", "9C", "10C", "JC"], [], ["KS"], ["QC"]]
    # kreights: 4=20, 5=30, 6=30, 7=15, 9=40, 10=25, J=10
    assert r.card_points == [170, 0, 10, 10]
    assert g.scores == [170, 0, 10, 10]
    assert g.stars == [0, 0, 0, 0]
    assert last_log(g) == [
        "p3 plays 2H, count 2",
        "p0 plays 2C, count 4",
        "p0 is out, the count goes on",
        "p1 plays AC, count 5",
        "p1 is out, the count goes on",
        "p2 announces one card",
        "p2 plays AH, count 6",
        "p3 announces one card",
        "p3 plays AD, count 7",
        "p0 draws 7",
        "hand 1 scores: p0 +170, p1 +0, p2 +10, p3 +10",
        "p0: ha ha, no star",
    ]


def test_dv13_kreights_alternative_first_out_keeps_star_second_is_clean():
    g = short_game("kreights", 4, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC"], ["KS", "QS"], ["2H", "AD", "QC"]],
        stock=["4C", "5C", "6C", "7C", "9C", "10C"],
        discard=["5H"],
        turn=3,
    )
    act(g, "play 2H", "play 2C", "play AC")
    assert (g.to_play, g.count) == (2, 5)
    assert g.action_names() == ["draw"]
    act(g, "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.went_out == 0
    assert r.ha_ha_no_star is False
    assert r.stars == [1, 0, 0, 0]
    assert r.clean == [1]
    assert r.cards_left == [[], [], ["4C", "5C", "6C", "7C", "9C", "QS", "KS"], ["QC", "AD"]]
    assert r.card_points == [0, 0, 155, 11]
    assert g.stars == [1, 0, 0, 0]
    assert last_log(g) == [
        "p3 plays 2H, count 2",
        "p0 plays 2C, count 4",
        "p0 is out, the count goes on",
        "p1 plays AC, count 5",
        "p1 is out, the count goes on",
        "p2 draws 5",
        "hand 1 scores: p0 +0, p1 +0, p2 +155, p3 +11",
    ]


# --- DV-14: creights play goes on after the crank ------------------------------------------------

DV14_HANDS = [["2S"], ["AS", "5D", "2C", "7S"], ["2D", "9H", "QC"]]
DV14_STOCK = ["4C", "5C", "6C", "7C", "10C", "KH"]


def test_dv14_creights_continue_after_crank():
    g = short_game("creights", 3, schedule=[4])
    g.set_position(hands=DV14_HANDS, stock=DV14_STOCK, discard=["5S"], turn=0)
    act(g, "play 2S", "play AS", "play 2D", "draw")
    assert not g.game_over
    assert g.results == []
    assert g.hand(0) == ["4C", "5C", "6C", "7C", "10C"]
    assert g.hand_sizes == [5, 3, 2]
    assert (g.to_play, g.decision, g.count) == (1, Decision.PLAY, 0)
    assert (g.top_card, g.current_suit) == ("2D", "D")
    # normal matching on 2D: a diamond or a 2 (no free play)
    assert g.action_names() == ["play 2C", "play 5D"]
    assert since_setup(texts(g.events)) == [
        "p0 plays 2S, count 2",
        "p0 is out, the count goes on",
        "p1 plays AS, count 3",
        "p2 plays 2D, count 5",
        "p0 draws 5",
        "play goes on",
    ]


def test_dv14_craits_continue_after_count_variant_goes_on():
    g = short_game("craits", 3, schedule=[4], craits_continue_after_count=True)
    g.set_position(hands=DV14_HANDS, stock=DV14_STOCK, discard=["5S"], turn=0)
    act(g, "play 2S", "play AS", "play 2D", "draw")
    assert not g.game_over
    assert g.hand(0) == ["4C", "5C", "6C", "7C", "10C"]
    assert g.to_play == 1
    assert g.action_names() == ["play 2C", "play 5D"]
    assert since_setup(texts(g.events))[-1] == "play goes on"


@pytest.mark.parametrize(
    ("preset", "points", "ha_ha"),
    [
        ("crates", [120, 70, 40], False),
        ("craits", [120, 70, 40], False),
        ("kreights", [120, 65, 50], True),
    ],
)
def test_dv14_other_presets_hand_ends_after_count(preset, points, ha_ha):
    g = short_game(preset, 3, schedule=[4])
    g.set_position(hands=DV14_HANDS, stock=DV14_STOCK, discard=["5S"], turn=0)
    act(g, "play 2S", "play AS", "play 2D", "draw")
    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.went_out == 0
    assert r.cards_left == [["4C", "5C", "6C", "7C", "10C"], ["2C", "5D", "7S"], ["QC", "9H"]]
    assert r.card_points == points
    assert r.ha_ha_no_star is ha_ha
    assert r.stars == [0, 0, 0]
    assert "play goes on" not in log_texts(g.hand_logs)[-1]


# --- DV-15 / DV-16: the one-card call around 6s, per preset ------------------------------------

DV15_STOCK = ["4S", "5S", "7S"]


@pytest.mark.parametrize(
    ("preset", "first", "second", "owed_draw", "score", "star"),
    [
        ("crates", ["play 6C", "play 6H"], ["play 6C", "announce"], False, 0, 0),
        ("craits", ["play 6C", "play 6H"], ["play 6C", "announce"], False, 0, 0),
        ("kreights", ["play 6C", "play 6H"], ["play 6C", "announce"], True, 50, 1),
        ("creights", ["play 6C", "play 6H", "announce"], ["play 6C"], True, 45, 0),
    ],
)
def test_dv15_three_card_six_turn_missed_call(preset, first, second, owed_draw, score, star):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "6C", "QC"], ["KS"], ["KD"]], stock=DV15_STOCK, discard=["6D"], turn=0
    )
    assert g.action_names() == first
    act(g, "play 6H")
    assert g.to_play == 0
    assert g.action_names() == second
    act(g, "play 6C")
    assert g.action_names() == ["play QC"]
    act(g, "play QC")
    r = g.results[-1]
    assert r.ended_by == "out"
    assert r.went_out == 0
    assert r.card_points[0] == score
    assert r.stars == [star, 0, 0]
    log = last_log(g)
    assert "p0 missed the one-card call" in log
    if owed_draw:
        assert r.cards_left[0] == ["4S", "5S"]
        assert log[-3:] == [
            "p0 draws the one-card penalty before scoring",
            "p0 draws 2",
            f"hand 1 scores: p0 +{score}, p1 +10, p2 +10",
        ]
    else:  # forgotten: no further turn
        assert r.cards_left[0] == []
        assert log[-2:] == ["p0 goes out", "hand 1 scores: p0 +0, p1 +10, p2 +10"]


def test_dv15_creights_call_with_first_play_avoids_penalty():
    g = short_game("creights", 3, schedule=[3])
    g.set_position(
        hands=[["6H", "6C", "QC"], ["KS"], ["KD"]], stock=DV15_STOCK, discard=["6D"], turn=0
    )
    act(g, "announce", "play 6H", "play 6C", "play QC")
    r = g.results[-1]
    assert r.cards_left[0] == []
    assert r.card_points == [0, 10, 10]
    assert last_log(g) == [
        "p0 announces one card",
        "p0 plays 6H",
        "p0 plays 6C",
        "p0 plays QC",
        "p0 goes out",
        "hand 1 scores: p0 +0, p1 +10, p2 +10",
    ]


def test_dv15_crates_log_order_of_missed_call():
    g = short_game("crates", 3, schedule=[3])
    g.set_position(
        hands=[["6H", "6C", "QC"], ["KS"], ["KD"]], stock=DV15_STOCK, discard=["6D"], turn=0
    )
    act(g, "play 6H", "play 6C", "play QC")
    assert last_log(g) == [
        "p0 plays 6H",
        "p0 plays 6C",
        "p0 missed the one-card call",
        "p0 plays QC",
        "p0 goes out",
        "hand 1 scores: p0 +0, p1 +10, p2 +10",
    ]


def test_dv16_creights_single_cooper_requires_the_call():
    g = short_game("creights", 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]],
        stock=["7C", "JC", "10C", "4C", "5C"],
        discard=["5S"],
        turn=0,
    )
    assert g.action_names() == ["play 6S", "announce"]
    act(g, "play 6S")
    assert (g.to_play, g.hand_sizes[0]) == (0, 0)
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(0) == ["7C"]
    assert g.penalty_owed == [True, False, False]
    assert g.to_play == 1
    # seats 1 and 2 cannot play on 6S; then seat 0 loses its turn and draws 2
    act(g, "draw", "draw")
    assert g.to_play == 1
    assert g.hand(0) == ["4C", "5C", "7C"]
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == [
        "p0 plays 6S",
        "p0 draws 1",
        "p0 missed the one-card call",
        "p1 draws 1",
        "p2 draws 1",
        "p0 loses the turn for the missed call",
        "p0 draws 2",
    ]


def test_dv16_creights_single_cooper_with_call_is_clean():
    g = short_game("creights", 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]], stock=["7C", "JC"], discard=["5S"], turn=0
    )
    act(g, "announce", "play 6S", "draw")
    assert g.hand(0) == ["7C"]
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == ["p0 announces one card", "p0 plays 6S", "p0 draws 1"]


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits"])
def test_dv16_contrast_single_cooper_needs_no_call(preset):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]], stock=["7C", "JC"], discard=["5S"], turn=0
    )
    assert g.action_names() == ["play 6S"]
    act(g, "play 6S", "draw")
    assert g.hand(0) == ["7C"]
    assert g.penalty_owed == [False, False, False]
    assert "p0 missed the one-card call" not in texts(g.events)


# --- DV-17: craits idiot card -----------------------------------------------------------------


def test_dv17_craits_idiot_card_draws_one_at_once_no_forfeit():
    g = short_game("craits", 3, schedule=[3], craits_idiot_card=True)
    g.set_position(
        hands=[["KH", "QH"], ["KS", "5C", "5D"], ["KC", "5S", "6D"]],
        stock=["4C", "7C", "8D"],
        discard=["5H"],
        turn=0,
    )
    assert g.action_names() == ["play QH", "play KH", "announce"]
    act(g, "play KH")
    assert g.hand(0) == ["4C", "QH"]
    assert g.hand_sizes == [2, 3, 3]
    assert g.penalty_owed == [False, False, False]
    assert g.to_play == 1
    act(g, "play KS", "play KC")
    # seat 0's next turn is a normal turn (no forfeit)
    assert g.to_play == 0
    assert g.action_names() == ["play 4C", "announce"]
    assert since_setup(texts(g.events)) == [
        "p0 plays KH",
        "p0 missed the one-card call",
        "p0 takes an idiot card",
        "p0 draws 1",
        "p1 plays KS",
        "p2 plays KC",
    ]


# --- DV-18 / DV-19 / DV-20: craits face cards -----------------------------------------------------


def test_dv18_craits_face_jack_run_draws_2_4_6_8():
    g = short_game("craits", 4, schedule=[4], craits_face_cards=True)
    stock = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "QS", "KS"]
    stock += ["AH", "2H", "3H", "4H", "6H", "7H", "8H", "9H", "10H", "QH"]
    g.set_position(
        hands=[["JC", "JD", "4C", "5H"], ["KH"], ["JH", "JS", "7C", "7D"], ["KD"]],
        stock=stock,
        discard=["5C"],
        turn=0,
    )
    act(g, "play JC")
    assert (g.to_play, g.hand_sizes) == (2, [3, 3, 4, 1])
    act(g, "play JH")
    assert (g.to_play, g.hand_sizes) == (0, [3, 3, 3, 5])
    act(g, "play JD")
    assert (g.to_play, g.hand_sizes) == (2, [2, 9, 3, 5])
    act(g, "play JS")
    assert (g.to_play, g.hand_sizes) == (0, [2, 9, 2, 13])
    assert sum(g.hand_sizes[s] for s in (1, 3)) - 2 == 20
    assert g.hand(1) == ["KH", "AS", "2S", "7S", "8S", "9S", "10S", "QS", "KS"]
    assert g.hand(3) == [
        "KD",
        "AH",
        "2H",
        "3H",
        "4H",
        "6H",
        "7H",
        "8H",
        "9H",
        "3S",
        "4S",
        "5S",
        "6S",
    ]
    assert g.stock_cards() == ["10H", "QH"]
    assert since_setup(texts(g.events)) == [
        "p0 plays JC",
        "p1 draws 2",
        "p2 plays JH",
        "p3 draws 4",
        "p0 plays JD",
        "p1 draws 6",
        "p2 plays JS",
        "p3 draws 8",
    ]


def test_dv19_craits_face_queen_of_spades_draws_five_and_skips():
    g = short_game("craits", 4, schedule=[4], craits_face_cards=True)
    g.set_position(
        hands=[["QS", "4C", "5C"], ["KH"], ["KD", "2D"], ["KC"]],
        stock=["AC", "2C", "3C", "6C", "7C", "8C"],
        discard=["5S"],
        turn=0,
    )
    act(g, "play QS")
    assert g.to_play == 2
    assert g.hand(1) == ["AC", "2C", "3C", "6C", "7C", "KH"]
    assert since_setup(texts(g.events)) == ["p0 plays QS", "p1 draws 5"]


def test_dv19_craits_face_other_queens_do_nothing():
    g = short_game("craits", 4, schedule=[4], craits_face_cards=True)
    g.set_position(
        hands=[["QH", "4C", "5C"], ["KH"], ["KD", "2D"], ["KC"]],
        stock=["AC", "2C"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play QH")
    assert g.to_play == 1
    assert g.hand_sizes == [2, 1, 2, 1]
    assert since_setup(texts(g.events)) == ["p0 plays QH"]


DV20_HANDS = [["KD", "2D", "6D", "6S", "8C", "9C", "4H"], ["KH", "QH"], ["KS"], ["KC"]]


def test_dv20_craits_face_king_series_then_third_card_six():
    g = short_game("craits", 4, schedule=[7], craits_face_cards=True)
    g.set_position(hands=DV20_HANDS, stock=["AC", "2C"], discard=["4D"], turn=0)
    act(g, "play KD")
    assert (g.to_play, g.decision) == (0, Decision.PLAY)
    assert g.action_names() == ["play 8C", "play 9C", "play 2D", "play 6D"]
    act(g, "play 2D")  # 1st card: no count
    assert (g.to_play, g.count) == (0, 0)
    act(g, "play 6D")  # 2nd card: a plain card, the series goes on
    assert g.to_play == 0
    act(g, "play 6S")  # 3rd card: full function, the 6 grants another play
    assert (g.to_play, g.decision) == (0, Decision.PLAY)
    act(g, "play 8C")
    assert g.decision == Decision.SUIT
    assert g.action_names() == ALL_SUITS
    act(g, "suit H")
    assert (g.to_play, g.current_suit, g.count) == (1, "H", 0)
    assert g.hand(0) == ["9C", "4H"]
    assert since_setup(texts(g.events)) == [
        "p0 plays KD",
        "p0 plays 2D",
        "p0 plays 6D",
        "p0 plays 6S",
        "p0 plays 8C",
        "p0 names H",
    ]


def test_dv20_craits_face_king_series_nine_on_six_of_spades_names_black():
    g = short_game("craits", 4, schedule=[7], craits_face_cards=True)
    g.set_position(hands=DV20_HANDS, stock=["AC", "2C"], discard=["4D"], turn=0)
    act(g, "play KD", "play 2D", "play 6D", "play 6S", "play 9C")
    assert (g.decision, g.to_play) == (Decision.SUIT, 0)
    assert g.action_names() == ["suit C", "suit S"]


# --- DV-28: first dealer by low card ------------------------------------------------------------


def test_dv28_kreights_lowest_card_deals_clubs_lowest():
    cards = [parse_card(c) for c in ["5D", "AS", "AC", "9H"]]
    assert lowest_cards(cards) == [2]
    assert lowest_cards(cards, break_ties_by_suit=False) == [1, 2]


def test_dv28_kreights_game_draw_for_deal_picks_the_lowest():
    for seed in range(5):
        g = new_game("kreights", 4, seed=seed, deal_schedule=[8])
        draws = [e for e in texts(g.events) if e.endswith(" for deal")]
        assert len(draws) == 4  # suits break ties: one round always decides
        drawn = {int(e[1]): parse_card(e.split()[2]) for e in draws}
        low = min(drawn, key=lambda s: (drawn[s] % 13, drawn[s] // 13))
        assert f"p{low} deals" in texts(g.events)
        assert g.dealer == low


# --- DV-29 / E-26 / E-27: wild starters ---------------------------------------------------------

FOUR_SINGLES = [["KC"], ["KD"], ["KH"], ["KS"]]


@pytest.mark.parametrize(
    ("preset", "choices"),
    [
        ("crates", ["suit D", "suit H"]),
        ("chicago1970", ["suit D", "suit H"]),
        ("kreights", ["suit D", "suit H"]),
        ("craits", ["suit D", "suit H"]),
        ("creights", ALL_SUITS),
    ],
)
def test_dv29_wild_nine_starter_suit_choices(preset, choices):
    g = stacked(preset, 4, FOUR_SINGLES, "9H")
    assert g.decision == Decision.STARTER_SUIT
    assert g.to_play == 0
    assert g.action_names() == choices
    act(g, "suit D")
    assert (g.decision, g.to_play, g.current_suit, g.top_card) == (Decision.PLAY, 1, "D", "9H")
    assert texts(g.events) == ["hand 1: p0 deals 1 cards each", "p0 turns 9H", "p0 names D"]
    assert g.action_names() == ["play KD"]


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_e26_eight_starter_any_suit_dealer_names(preset):
    g = stacked(preset, 4, FOUR_SINGLES, "8D", dealer=1)
    assert (g.decision, g.to_play) == (Decision.STARTER_SUIT, 1)
    assert g.action_names() == ALL_SUITS
    act(g, "suit S")
    assert (g.to_play, g.current_suit) == (2, "S")
    assert texts(g.events)[-2:] == ["p1 turns 8D", "p1 names S"]


@pytest.mark.parametrize(
    ("preset", "choices"),
    [
        ("crates", ["suit C", "suit S"]),
        ("chicago1970", ["suit C", "suit S"]),
        ("kreights", ["suit C", "suit S"]),
        ("craits", ["suit C", "suit S"]),
        ("creights", ALL_SUITS),
    ],
)
def test_e27_nine_starter_colour_of_the_nine(preset, choices):
    g = stacked(preset, 4, FOUR_SINGLES, "9C")
    assert (g.decision, g.to_play) == (Decision.STARTER_SUIT, 0)
    assert g.action_names() == choices
    with pytest.raises(IllegalActionError):
        g.apply(parse_action("play KC"))


# --- DV-30: a 9 on a named 8 --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights"])
def test_dv30_nine_on_eight_named_diamonds_names_red(preset):
    g = short_game(preset, 4, schedule=[3])
    g.set_position(
        hands=[["9C", "KS", "QS"], ["KH"], ["KD"], ["KC"]], discard=["8S"], suit="D", turn=0
    )
    assert g.current_suit == "D"
    act(g, "play 9C")
    assert (g.decision, g.to_play) == (Decision.SUIT, 0)
    assert g.action_names() == ["suit D", "suit H"]
    act(g, "suit H")
    assert (g.to_play, g.current_suit) == (1, "H")


# --- E-7: the count reaches the player who already went out ----------------------------------


def test_e07_crates_partnership_count_returns_to_out_player_hand_ends():
    g = short_game("crates", 4, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC", "KC"], ["AH", "KS"], ["2H", "AD", "QC"]],
        stock=["4C", "5C", "6C", "7C", "9C", "10C", "JC", "JD"],
        discard=["5H"],
        turn=3,
    )
    act(g, "play 2H", "play 2C", "announce", "play AC", "announce", "play AH")
    act(g, "announce", "play AD")
    assert (g.to_play, g.count, g.hand_sizes[0]) == (0, 7, 0)
    assert g.action_names() == ["draw"]
    act(g, "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.went_out == 0
    assert r.cards_left == [["4C", "5C", "6C", "7C", "9C", "10C", "JC"], ["KC"], ["KS"], ["QC"]]
    assert r.card_points == [160, 10, 10, 10]
    assert r.team_points == [170, 20]
    assert g.scores == [170, 20]
    assert g.seat_scores() == [170, 20, 170, 20]
    assert last_log(g)[-3:] == [
        "p3 plays AD, count 7",
        "p0 draws 7",
        "hand 1 scores: team0 +170, team1 +20",
    ]


E07_HANDS = [["2C"], ["AC", "KH", "QH"], ["AH", "KD", "QD"]]


@pytest.mark.parametrize(("preset", "options"), [("craits", {}), ("crates", {})])
def test_e07_count_back_to_out_player_ends_hand(preset, options):
    g = short_game(preset, 3, schedule=[3], **options)
    g.set_position(hands=E07_HANDS, stock=["4S", "5S", "6S", "7S"], discard=["5C"], turn=0)
    act(g, "play 2C", "play AC", "play AH", "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.cards_left == [["4S", "5S", "6S", "7S"], ["QH", "KH"], ["QD", "KD"]]
    assert r.card_points == [95, 20, 20]


@pytest.mark.parametrize(
    ("preset", "options"), [("craits", {"craits_continue_after_count": True}), ("creights", {})]
)
def test_e07_count_back_to_out_player_play_goes_on(preset, options):
    g = short_game(preset, 3, schedule=[3], **options)
    g.set_position(hands=E07_HANDS, stock=["4S", "5S", "6S", "7S"], discard=["5C"], turn=0)
    act(g, "play 2C", "play AC", "play AH", "draw")
    assert not g.game_over
    assert g.hand(0) == ["4S", "5S", "6S", "7S"]
    assert (g.to_play, g.count, g.top_card) == (1, 0, "AH")
    assert g.action_names() == ["play QH", "play KH", "announce"]
    assert since_setup(texts(g.events))[-2:] == ["p0 draws 4", "play goes on"]


def test_e07_creights_round_ends_when_someone_still_has_zero():
    # TV-15 shape: two players out during the crank, the first draws; the round ends
    g = short_game("creights", 3, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC"], ["AH", "KD", "QD"]],
        stock=["4S", "5S", "6S", "7S"],
        discard=["5C"],
        turn=0,
    )
    act(g, "play 2C", "play AC", "play AH", "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.cards_left == [["4S", "5S", "6S", "7S"], [], ["QD", "KD"]]
    assert r.card_points == [100, 0, 20]
    assert "play goes on" not in log_texts(g.hand_logs)[-1]


# --- E-12: a 2 as the starter -------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights"])
def test_e12_two_starter_opens_count(preset):
    hands = [["KD", "QD", "JD"], ["KS", "QS", "JS"], ["7C", "5D", "AH"], ["KH", "QH", "JH"]]
    g = stacked(preset, 4, hands, "2C", stock=["4S", "5S", "6S"])
    assert (g.count, g.to_play, g.top_card) == (2, 1, "2C")
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(1) == ["4S", "5S", "JS", "QS", "KS"]
    assert (g.count, g.to_play) == (0, 2)
    assert g.action_names() == ["play 7C"]  # match 2C as usual
    assert texts(g.events) == [
        "hand 1: p0 deals 3 cards each",
        "p0 turns 2C, count 2",
        "p1 draws 2",
    ]


def test_e12_two_starter_two_players_count_alternates():
    g = stacked(
        "crates", 2, [["2D", "KD"], ["AH", "KS"]], "2C", stock=["4S", "5S", "6S", "7S", "8S"]
    )
    assert (g.count, g.to_play) == (2, 1)
    assert g.action_names() == ["play AH", "announce"]
    act(g, "announce", "play AH")
    assert (g.count, g.to_play) == (3, 0)
    act(g, "announce", "play 2D")
    assert (g.count, g.to_play) == (5, 1)
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(1) == ["4S", "5S", "6S", "7S", "8S", "KS"]
    assert g.hand_sizes == [1, 6]
    assert (g.count, g.to_play) == (0, 0)
    assert texts(g.events)[1:] == [
        "p0 turns 2C, count 2",
        "p1 announces one card",
        "p1 plays AH, count 3",
        "p0 announces one card",
        "p0 plays 2D, count 5",
        "p1 draws 5",
    ]


# --- E-14: going out with a 2 in a 2-player game ---------------------------------------------


def test_e14_crates_two_player_out_with_two_follow_then_out_player_draws():
    g = short_game("crates", 2, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC", "KH", "QH"]], stock=["4S", "5S", "6S"], discard=["5C"], turn=0
    )
    act(g, "play 2C")
    assert (g.to_play, g.count) == (1, 2)
    act(g, "play AC")
    assert (g.to_play, g.count, g.hand_sizes[0]) == (0, 3, 0)
    act(g, "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.cards_left == [["4S", "5S", "6S"], ["QH", "KH"]]
    assert r.card_points == [75, 20]
    assert last_log(g) == [
        "p0 plays 2C, count 2",
        "p0 is out, the count goes on",
        "p1 plays AC, count 3",
        "p0 draws 3",
        "hand 1 scores: p0 +75, p1 +20",
    ]


def test_e14_crates_two_player_out_with_two_opponent_draws_hand_ends():
    g = short_game("crates", 2, schedule=[3])
    g.set_position(hands=[["2C"], ["KH", "QH", "JH"]], stock=["4S", "5S"], discard=["5C"], turn=0)
    act(g, "play 2C", "draw")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("count", 0)
    assert r.cards_left == [[], ["JH", "QH", "KH", "4S", "5S"]]
    assert r.card_points == [0, 75]


@pytest.mark.parametrize(
    ("preset", "options"), [("creights", {}), ("craits", {"craits_continue_after_count": True})]
)
def test_e14_two_player_out_with_two_play_goes_on(preset, options):
    g = short_game(preset, 2, schedule=[3], **options)
    g.set_position(
        hands=[["2C"], ["AC", "KH", "QC"]], stock=["4S", "5S", "6S"], discard=["5C"], turn=0
    )
    act(g, "play 2C", "play AC", "draw")
    assert not g.game_over
    assert g.hand(0) == ["4S", "5S", "6S"]
    assert (g.to_play, g.count) == (1, 0)
    assert g.action_names() == ["play QC", "announce"]


# --- E-16 .. E-21: the 6, the Cooper and the one-card call --------------------------------------


@pytest.mark.parametrize(
    ("preset", "names"),
    [
        ("crates", ["play 6S"]),
        ("kreights", ["play 6S"]),
        ("craits", ["play 6S"]),
        ("chicago1970", ["play 6S", "announce"]),
        ("creights", ["play 6S", "announce"]),
    ],
)
def test_e16_last_card_legal_six_cooper_draws_one(preset, names):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]], stock=["7C", "JC"], discard=["5S"], turn=0
    )
    assert g.action_names() == names
    if "announce" in names:
        act(g, "announce")
    act(g, "play 6S")
    assert (g.to_play, g.hand_sizes[0], g.action_names()) == (0, 0, ["draw"])
    act(g, "draw")
    assert g.hand(0) == ["7C"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False]
    assert not g.game_over


def test_e16_chicago_last_six_without_call_draws_two_and_nothing_more():
    g = short_game("chicago1970", 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]],
        stock=["7C", "JC", "10C"],
        discard=["5S"],
        turn=0,
    )
    act(g, "play 6S", "draw")
    assert g.hand(0) == ["7C", "JC"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == [
        "p0 plays 6S",
        "p0 played a last 6 without the call",
        "p0 draws 2",
    ]


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_e17_last_card_six_not_legal_plain_draw(preset):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6S"], ["KH", "QH"], ["KD", "QD"]], stock=["7C", "JC"], discard=["5H"], turn=0
    )
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(0) == ["7C", "6S"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == ["p0 draws 1"]


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_e18_six_then_no_legal_play_draws_one_not_played(preset):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "KS", "QC"], ["KD", "QD"], ["JD", "10D"]],
        stock=["7H", "JC"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play 6H")
    assert (g.to_play, g.action_names()) == (0, ["draw"])
    act(g, "draw")
    # 7H would be legal on 6H but the drawn card is not played: the turn ends
    assert g.hand(0) == ["QC", "7H", "KS"]
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 plays 6H", "p0 draws 1"]


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_e19_two_card_cooper_call_due_with_the_six(preset):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "KS"], ["KD", "QD"], ["JD", "10D"]],
        stock=["7C", "JC"],
        discard=["5H"],
        turn=0,
    )
    assert g.action_names() == ["play 6H", "announce"]
    act(g, "play 6H", "draw")
    assert g.hand(0) == ["7C", "KS"]
    assert g.penalty_owed == [True, False, False]
    assert "p0 missed the one-card call" in texts(g.events)


@pytest.mark.parametrize("preset", ["crates", "chicago1970", "kreights", "craits", "creights"])
def test_e19_two_card_cooper_with_call_no_penalty(preset):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "KS"], ["KD", "QD"], ["JD", "10D"]],
        stock=["7C", "JC"],
        discard=["5H"],
        turn=0,
    )
    act(g, "announce", "play 6H", "draw")
    assert g.hand(0) == ["7C", "KS"]
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == ["p0 announces one card", "p0 plays 6H", "p0 draws 1"]


@pytest.mark.parametrize(
    ("preset", "first", "second"),
    [
        ("crates", ["play 6H"], ["play 6C", "announce"]),
        ("chicago1970", ["play 6H"], ["play 6C", "announce"]),
        ("kreights", ["play 6H"], ["play 6C", "announce"]),
        ("craits", ["play 6H"], ["play 6C", "announce"]),
        ("creights", ["play 6H", "announce"], ["play 6C"]),
    ],
)
def test_e20_six_six_x_call_due_with_second_six_creights_first(preset, first, second):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "6C", "QC"], ["KD"], ["JD"]], stock=["7S", "JS"], discard=["5H"], turn=0
    )
    assert g.action_names() == first
    if "announce" in first:
        act(g, "announce")
    act(g, "play 6H")
    assert g.action_names() == second
    if "announce" in second:
        act(g, "announce")
    act(g, "play 6C", "play QC")
    r = g.results[-1]
    assert (r.ended_by, r.went_out, r.cards_left[0], r.card_points[0]) == ("out", 0, [], 0)
    assert not any("missed" in e for e in log_texts(g.hand_logs)[-1])


@pytest.mark.parametrize(
    ("preset", "drawn", "score", "stars"),
    [
        ("crates", [], 0, [0, 0, 0]),
        ("chicago1970", [], 0, [0, 0, 0]),
        ("craits", [], 0, [0, 0, 0]),
        ("kreights", ["4S", "5S"], 50, [1, 0, 0]),
        ("creights", ["4S", "5S"], 45, [0, 0, 0]),
    ],
)
def test_e21_missed_call_then_out_same_turn(preset, drawn, score, stars):
    g = short_game(preset, 3, schedule=[3])
    g.set_position(
        hands=[["6H", "KH"], ["KD"], ["JD"]], stock=["4S", "5S", "7S"], discard=["5H"], turn=0
    )
    act(g, "play 6H", "play KH")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left == [drawn, ["KD"], ["JD"]]
    assert r.card_points == [score, 10, 10]
    assert r.stars == stars
    log = last_log(g)
    assert log[:2] == ["p0 plays 6H", "p0 missed the one-card call"]
    assert log[2:4] == ["p0 plays KH", "p0 goes out"]
    if drawn:
        assert log[4:6] == ["p0 draws the one-card penalty before scoring", "p0 draws 2"]
    else:
        assert log[4:] == ["hand 1 scores: p0 +0, p1 +10, p2 +10"]


# --- E-22 / E-23: when the penalised player's turn is skipped or replayed ----------------------


def test_e22_penalty_waits_through_a_skip_by_four():
    g = short_game("crates", 3, schedule=[3])
    g.set_position(
        hands=[["4H", "KC", "QC", "JC"], ["KD", "QD"], ["KH", "7D", "6D"]],
        stock=["2S", "3S", "4S"],
        discard=["5H"],
        turn=0,
        penalty_owed=[1],
    )
    act(g, "play 4H")
    assert g.to_play == 2
    assert g.penalty_owed == [False, True, False]
    act(g, "play KH", "play KC")
    # seat 1's next real turn: it loses it and draws 2
    assert g.to_play == 2
    assert g.hand(1) == ["QD", "KD", "2S", "3S"]
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == [
        "p0 plays 4H",
        "p1 is skipped",
        "p2 plays KH",
        "p0 plays KC",
        "p1 loses the turn for the missed call",
        "p1 draws 2",
    ]


def test_e22_penalty_waits_through_a_craits_face_jack_forfeit():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["JH", "KC", "QC"], ["KD", "QD"], ["KH", "7D", "6D"]],
        stock=["2S", "3S", "4S", "5S"],
        discard=["5H"],
        turn=0,
        penalty_owed=[1],
    )
    act(g, "play JH")
    assert g.to_play == 2
    assert g.hand(1) == ["QD", "KD", "2S", "3S"]
    assert g.penalty_owed == [False, True, False]
    assert since_setup(texts(g.events)) == ["p0 plays JH", "p1 draws 2"]


def test_e23_joker_sends_turn_to_penalised_player_who_loses_it():
    g = short_game("crates", 4, schedule=[3], standig_jokers=True)
    g.set_position(
        hands=[["KH", "QH"], ["KD", "QD"], ["JK", "KC", "QC"], ["JH", "10H"]],
        stock=["2S", "3S", "4S"],
        discard=["5H"],
        turn=2,
        penalty_owed=[1],
    )
    act(g, "play JK")
    assert g.to_play == 2
    assert g.hand(1) == ["QD", "KD", "2S", "3S"]
    assert g.penalty_owed == [False, False, False, False]
    # the Joker is transparent: seat 2 must still match 5H
    assert (g.top_card, g.current_suit) == ("JK", "H")
    assert g.action_names() == ["draw"]
    assert since_setup(texts(g.events)) == [
        "p2 plays JK",
        "p1 loses the turn for the missed call",
        "p1 draws 2",
    ]


def test_e23_joker_in_the_count_postpones_the_penalty():
    g = short_game("crates", 4, schedule=[3], standig_jokers=True)
    g.set_position(
        hands=[["KH", "QH"], ["KD", "QD"], ["JK", "KC", "QC"], ["JH", "10H"]],
        stock=["2S", "3S", "4S", "5S", "6S"],
        discard=["5H", "2H"],
        turn=2,
        count=4,
        penalty_owed=[1],
    )
    act(g, "play JK")
    assert (g.to_play, g.count) == (1, 4)
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(1) == ["QD", "KD", "2S", "3S", "4S", "5S"]
    assert g.penalty_owed == [False, True, False, False]
    assert (g.to_play, g.count) == (2, 0)
    assert since_setup(texts(g.events)) == ["p2 plays JK, count 4", "p1 draws 4"]


# --- E-24: craits idiot card timing ---------------------------------------------------------------


def test_e24_idiot_card_drawn_before_the_cards_action():
    g = short_game("craits", 3, schedule=[3], craits_idiot_card=True)
    g.set_position(
        hands=[["5H", "KS"], ["KD", "QD"], ["JD", "10D"]],
        stock=["2C", "3C", "4C", "6C"],
        discard=["4H"],
        turn=0,
    )
    act(g, "play 5H")
    # the idiot card is the top stock card; the 5's draws come after it
    assert g.hand(0) == ["2C", "KS"]
    assert g.hand(1) == ["3C", "QD", "KD"]
    assert g.hand(2) == ["4C", "10D", "JD"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False]
    assert since_setup(texts(g.events)) == [
        "p0 plays 5H",
        "p0 missed the one-card call",
        "p0 takes an idiot card",
        "p0 draws 1",
        "p1 draws 1",
        "p2 draws 1",
    ]


def test_e24_idiot_card_reshuffle_keeps_the_offending_card_on_top():
    # the card is placed before the idiot card is drawn: it stays on top, the rest is reshuffled
    g = short_game("craits", 3, schedule=[3], craits_idiot_card=True)
    g.set_position(
        hands=[["QH", "KS"], ["KD", "QD"], ["JD", "10D"]],
        stock=[],
        discard=["2C", "4H"],
        turn=0,
    )
    act(g, "play QH")
    assert g.discard_cards() == ["QH"]
    drawn = [c for c in g.hand(0) if c != "KS"]
    assert sorted(drawn + g.stock_cards()) == ["2C", "4H"]
    assert g.hand_sizes == [2, 2, 2]
    assert g.pressure_points == [5, 0, 0]
    assert len(g.stock_cards()) == 1
    assert since_setup(texts(g.events))[:5] == [
        "p0 plays QH",
        "p0 missed the one-card call",
        "p0 takes an idiot card",
        "pressure p0 +5",
        "reshuffle 2",
    ]


# --- E-25 / craits_one_card_on_deal: the 1-card hand ----------------------------------------------


@pytest.mark.parametrize(
    ("preset", "card", "options", "names"),
    [
        ("crates", "KH", {}, ["play KH"]),
        ("kreights", "KH", {}, ["play KH"]),
        ("craits", "KH", {}, ["play KH"]),
        ("creights", "KH", {}, ["play KH"]),
        ("chicago1970", "KH", {}, ["play KH"]),
        ("crates", "6H", {}, ["play 6H"]),
        ("chicago1970", "6H", {}, ["play 6H", "announce"]),
        ("craits", "KH", {"craits_one_card_on_deal": True}, ["play KH", "announce"]),
    ],
)
def test_e25_one_card_hand_only_card_call(preset, card, options, names):
    g = stacked(preset, 3, [["QC"], [card], ["QS"]], "3H", **options)
    assert g.to_play == 1
    assert g.action_names() == names


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights", "chicago1970"])
def test_e25_one_card_hand_going_out_without_call_is_clean(preset):
    g = stacked(preset, 3, [["QC"], ["KH"], ["QS"]], "3H")
    act(g, "play KH")
    r = g.results[-1]
    assert (r.ended_by, r.went_out, r.card_points[1]) == ("out", 1, 0)
    assert log_texts(g.hand_logs)[-1][:4] == [
        "hand 1: p0 deals 1 cards each",
        "p0 turns 3H",
        "p1 plays KH",
        "p1 goes out",
    ]


def test_craits_one_card_on_deal_each_first_decision_offers_announce():
    g = stacked(
        "craits",
        3,
        [["4D"], ["KC"], ["QS"]],
        "3H",
        stock=["KD", "QD", "JD", "7C", "6C"],
        craits_one_card_on_deal=True,
    )
    assert g.to_play == 1
    assert g.action_names() == ["draw", "announce"]
    act(g, "draw")  # acting without the call is a failure
    assert g.penalty_owed == [False, True, False]
    assert g.to_play == 2
    assert g.action_names() == ["draw", "announce"]
    act(g, "announce")
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.to_play == 0
    assert g.action_names() == ["draw", "announce"]
    act(g, "announce", "draw")
    # seat 1 forfeits its next turn and draws 2
    assert g.to_play == 2
    assert g.hand(1) == ["6C", "7C", "KC", "KD"]
    assert g.penalty_owed == [False, False, False]
    # later decisions offer no call (announce is gone once the first decision is made)
    assert g.action_names() == ["draw"]
    assert texts(g.events)[1:] == [
        "p0 turns 3H",
        "p1 missed the one-card call",
        "p1 draws 1",
        "p2 announces one card",
        "p2 draws 1",
        "p0 announces one card",
        "p0 draws 1",
        "p1 loses the turn for the missed call",
        "p1 draws 2",
    ]


def test_craits_one_card_on_deal_not_in_longer_hands():
    g = stacked(
        "craits",
        3,
        [["4D", "5D"], ["KC", "QC"], ["QS", "JS"]],
        "3H",
        craits_one_card_on_deal=True,
    )
    assert g.action_names() == ["draw"]


# --- E-28 .. E-35: starters -----------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights"])
def test_e28_five_starter_each_other_player_draws_in_order(preset):
    g = stacked(preset, 4, FOUR_SINGLES, "5H", stock=["QC", "JC", "10C"], dealer=2)
    # dealer 2: seat 3 dealt first; the 5 hands cards to 3, 0, 1 in that order
    assert g.hand(3) == ["QC", "KS"]
    assert g.hand(0) == ["JC", "KC"]
    assert g.hand(1) == ["10C", "KD"]
    assert g.hand(2) == ["KH"]
    assert g.to_play == 3
    assert texts(g.events) == [
        "hand 1: p2 deals 1 cards each",
        "p2 turns 5H",
        "p3 draws 1",
        "p0 draws 1",
        "p1 draws 1",
    ]


@pytest.mark.parametrize("preset", ["crates", "kreights", "craits", "creights"])
def test_e29_six_starter_one_card_dealer_must_play_and_goes_out(preset):
    g = stacked(preset, 4, [["KH"], ["KD"], ["KS"], ["KC"]], "6H")
    assert (g.to_play, g.decision) == (0, Decision.PLAY)
    assert g.action_names() == ["play KH"]
    act(g, "play KH")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert log_texts(g.hand_logs)[-1][1:4] == ["p0 turns 6H", "p0 plays KH", "p0 goes out"]


def test_e29_six_starter_dealer_unable_draws_one():
    g = stacked("crates", 4, [["KS"], ["KD"], ["QS"], ["KC"]], "6H", stock=["JC"])
    assert (g.to_play, g.action_names()) == (0, ["draw"])
    act(g, "draw")
    assert g.hand(0) == ["JC", "KS"]
    assert g.to_play == 1


def test_e29_six_starter_dealer_six_is_a_cooper():
    g = stacked("crates", 4, [["6C"], ["KD"], ["QS"], ["KC"]], "6H", stock=["JC"])
    act(g, "play 6C")
    assert (g.to_play, g.hand_sizes[0], g.action_names()) == (0, 0, ["draw"])
    act(g, "draw")
    assert g.hand(0) == ["JC"]
    assert g.to_play == 1
    assert texts(g.events)[1:] == ["p0 turns 6H", "p0 plays 6C", "p0 draws 1"]


def test_e29_six_starter_dealer_two_starts_count_and_is_out():
    g = stacked("crates", 4, [["2H"], ["KD"], ["QS"], ["KC"]], "6H")
    act(g, "play 2H")
    assert (g.to_play, g.count, g.hand_sizes[0]) == (1, 2, 0)
    assert texts(g.events)[1:] == [
        "p0 turns 6H",
        "p0 plays 2H, count 2",
        "p0 is out, the count goes on",
    ]


@pytest.mark.parametrize(
    ("preset", "n", "first"),
    [("crates", 4, 2), ("kreights", 4, 2), ("creights", 4, 2), ("crates", 2, 0), ("craits", 2, 0)],
)
def test_e30_four_starter_skips_next(preset, n, first):
    hands = FOUR_SINGLES[:n]
    g = stacked(preset, n, hands, "4H")
    assert (g.to_play, g.decision) == (first, Decision.PLAY)
    assert texts(g.events)[1:] == ["p0 turns 4H", "p1 is skipped"]


@pytest.mark.parametrize(
    ("preset", "n", "first"),
    [("crates", 4, 3), ("kreights", 3, 2), ("creights", 4, 3), ("craits", 2, 1)],
)
def test_e31_ten_starter_reverses(preset, n, first):
    g = stacked(preset, n, FOUR_SINGLES[:n], "10H")
    assert (g.to_play, g.direction) == (first, -1)
    assert texts(g.events)[1:] == ["p0 turns 10H", "direction reversed"]


@pytest.mark.parametrize(
    ("preset", "n", "target"),
    [
        ("crates", 4, 2),  # the dealer's partner
        ("crates", 3, 1),
        ("crates", 2, 1),
        ("chicago1970", 3, 1),
        ("kreights", 3, 2),  # nbo(dealer) = prev(dealer)
        ("kreights", 4, 2),
        ("craits", 3, 1),
        ("creights", 3, 1),
        ("creights", 4, 2),
    ],
)
def test_e32_seven_starter_target(preset, n, target):
    g = stacked(preset, n, FOUR_SINGLES[:n], "7H", stock=["QC"])
    assert g.hand_sizes == [2 if s == target else 1 for s in range(n)]
    assert "QC" in g.hand(target)
    assert g.to_play == 1
    assert texts(g.events)[1:] == ["p0 turns 7H", f"p{target} draws 1"]


@pytest.mark.parametrize(
    ("preset", "n", "target"),
    [
        ("crates", 3, 2),
        ("crates", 2, 1),
        ("chicago1970", 3, 2),
        ("creights", 3, 2),
        ("crates", 4, None),
        ("kreights", 3, None),
        ("craits", 3, None),
    ],
)
def test_e33_jack_starter(preset, n, target):
    g = stacked(preset, n, FOUR_SINGLES[:n], "JH", stock=["QC"])
    assert g.hand_sizes == [2 if s == target else 1 for s in range(n)]
    assert g.to_play == 1
    assert texts(g.events)[1:] == ["p0 turns JH"] + (
        [f"p{target} draws 1"] if target is not None else []
    )


def test_e33_jack_starter_craits_face_cards_next_draws_two_and_is_skipped():
    g = stacked("craits", 3, FOUR_SINGLES[:3], "JH", stock=["QC", "JC"], craits_face_cards=True)
    assert g.hand(1) == ["JC", "QC", "KD"]
    assert g.to_play == 2
    assert texts(g.events)[1:] == ["p0 turns JH", "p1 draws 2"]


def test_e34_queen_starter_does_nothing_by_default():
    g = stacked("crates", 4, FOUR_SINGLES, "QH")
    assert g.hand_sizes == [1, 1, 1, 1]
    assert g.to_play == 1
    assert texts(g.events)[1:] == ["p0 turns QH"]


def test_e34_queen_starter_queen_draws_two_next_draws_then_plays():
    g = stacked("crates", 4, FOUR_SINGLES, "QH", stock=["2C", "3C"], queen_draws_two=True)
    assert g.hand(1) == ["2C", "3C", "KD"]
    assert g.to_play == 1
    assert texts(g.events)[1:] == ["p0 turns QH", "p1 draws 2"]


def test_e34_queen_of_spades_starter_craits_face_cards():
    g = stacked(
        "craits",
        4,
        FOUR_SINGLES,
        "QS",
        stock=["2C", "3C", "4C", "5C", "6C"],
        craits_face_cards=True,
    )
    assert g.hand(1) == ["2C", "3C", "4C", "5C", "6C", "KD"]
    assert g.to_play == 2
    assert texts(g.events)[1:] == ["p0 turns QS", "p1 draws 5"]


def test_e34_king_starter_craits_face_cards_dealer_plays_three():
    hands = [["5D", "2D", "7D"], ["KH", "QH", "JH"], ["KS", "QS", "JS"], ["KC", "QC", "JC"]]
    g = stacked("craits", 4, hands, "KD", stock=["2C"], craits_face_cards=True)
    assert (g.to_play, g.decision) == (0, Decision.PLAY)
    assert g.action_names() == ["play 2D", "play 5D", "play 7D"]
    act(g, "play 5D")  # 1st: no function, nobody draws
    assert g.hand_sizes == [2, 3, 3, 3]
    act(g, "announce", "play 2D")  # 2nd: no count
    assert (g.count, g.to_play) == (0, 0)
    act(g, "play 7D")  # 3rd: full function, then the dealer is out
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left[2] == ["2C", "JS", "QS", "KS"]
    assert log_texts(g.hand_logs)[-1][1:9] == [
        "p0 turns KD",
        "p0 plays 5D",
        "p0 announces one card",
        "p0 plays 2D",
        "p0 plays 7D",
        "p2 draws 1",
        "p0 goes out",
        "hand 1 scores: p0 +0, p1 +30, p2 +50, p3 +30",
    ]


def test_e35_joker_starter_prev_dealer_plays_anything_then_normal():
    hands = [["KH", "QH"], ["KD", "QD"], ["KS", "QS"], ["4C", "JD"]]
    g = stacked("crates", 4, hands, "JK", standig_jokers=True)
    assert (g.top_card, g.current_suit, g.direction) == ("JK", None, 1)
    assert g.to_play == 3
    assert g.action_names() == ["play 4C", "play JD", "announce"]
    act(g, "announce", "play 4C")
    # 4C skips seat 0 (next clockwise) and play goes on normally on 4C
    assert g.to_play == 1
    assert g.action_names() == ["draw"]
    assert texts(g.events)[1:] == [
        "p0 turns JK",
        "p3 announces one card",
        "p3 plays 4C",
        "p0 is skipped",
    ]


def test_e35_joker_starter_first_play_free_then_dealer_matches():
    hands = [["KH", "QC"], ["KD", "QD"], ["KS", "QS"], ["AC", "JD"]]
    g = stacked("crates", 4, hands, "JK", standig_jokers=True)
    act(g, "announce", "play JD")
    assert g.to_play == 0
    assert (g.current_suit, g.top_card) == ("D", "JD")
    assert g.action_names() == ["draw"]


# --- E-36 .. E-41: player-count specials and partnerships -------------------------------------

FILL = [["KC", "QC"], ["KD", "QD"], ["KS", "QS"], ["JC", "JD"], ["JS", "10C"]]


def _position(g, n, mover_hand, top="5H", stock=("2C", "3C", "4C"), **kw):
    hands = [list(mover_hand)] + [list(h) for h in FILL[1:n]]
    g.set_position(hands=hands, stock=list(stock), discard=[top], turn=0, **kw)


@pytest.mark.parametrize(
    ("preset", "n", "target"),
    [
        ("crates", 2, 1),
        ("craits", 2, 1),
        ("creights", 2, 1),
        ("crates", 3, 1),
        ("chicago1970", 3, 1),
        ("craits", 3, 1),
        ("creights", 3, 1),
        ("kreights", 3, 2),
        ("crates", 4, 2),
        ("kreights", 4, 2),
        ("craits", 4, 2),
        ("creights", 4, 2),
        ("crates", 5, 2),
        ("craits", 5, 2),
        ("kreights", 5, 2),
    ],
)
def test_e36_seven_by_player_count(preset, n, target):
    g = short_game(preset, n, schedule=[3])
    _position(g, n, ["7H", "4S", "5S"])
    act(g, "play 7H")
    assert g.hand_sizes == [2] + [3 if s == target else 2 for s in range(1, n)]
    assert "2C" in g.hand(target)
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 plays 7H", f"p{target} draws 1"]


@pytest.mark.parametrize("preset", ["crates", "craits", "creights"])
def test_e37_four_with_two_players_plays_again(preset):
    g = short_game(preset, 2, schedule=[3])
    _position(g, 2, ["4H", "4S", "5S"])
    act(g, "play 4H")
    assert (g.to_play, g.decision) == (0, Decision.PLAY)
    assert g.action_names() == ["play 4S", "announce"]
    assert since_setup(texts(g.events)) == ["p0 plays 4H", "p1 is skipped"]


@pytest.mark.parametrize("preset", ["crates", "craits", "creights"])
def test_e38_ten_with_two_players_opponent_still_next(preset):
    g = short_game(preset, 2, schedule=[3])
    _position(g, 2, ["10H", "4S", "5S"])
    act(g, "play 10H")
    assert (g.to_play, g.direction) == (1, -1)
    assert since_setup(texts(g.events)) == ["p0 plays 10H", "direction reversed"]
    act(g, "draw")
    assert g.to_play == 0


@pytest.mark.parametrize(
    ("preset", "n", "target"),
    [
        ("crates", 2, 1),
        ("crates", 3, 2),
        ("chicago1970", 3, 2),
        ("creights", 3, 2),
        ("creights", 2, 1),
        ("kreights", 3, None),
        ("craits", 3, None),
        ("crates", 4, None),
    ],
)
def test_e39_jack_small_games_previous_player_draws(preset, n, target):
    g = short_game(preset, n, schedule=[3])
    _position(g, n, ["JH", "4S", "5S"])
    act(g, "play JH")
    assert g.hand_sizes == [2] + [3 if s == target else 2 for s in range(1, n)]
    assert g.to_play == 1
    drew = [f"p{target} draws 1"] if target is not None else []
    assert since_setup(texts(g.events)) == ["p0 plays JH", *drew]


def test_e40_joker_two_players_no_turn_effect_and_joker_on_joker():
    g = short_game("crates", 2, schedule=[3], standig_jokers=True)
    g.set_position(
        hands=[["JK", "KC", "QH"], ["JK", "KD", "QD"]], stock=["2C"], discard=["5H"], turn=0
    )
    act(g, "play JK")
    assert (g.to_play, g.direction) == (1, 1)
    act(g, "play JK")
    assert g.to_play == 0  # back to the first Joker's player
    assert (g.current_suit, g.top_card) == ("H", "JK")
    assert g.action_names() == ["play QH", "announce"]


def test_e41_partnership_seven_hits_partner():
    g = short_game("crates", 4, schedule=[3])
    g.set_position(
        hands=[["KC", "QC"], ["7H", "4S", "5S"], ["KS", "QS"], ["JC", "JD"]],
        stock=["2C"],
        discard=["5H"],
        turn=1,
    )
    act(g, "play 7H")
    assert g.hand(3) == ["2C", "JC", "JD"]
    assert g.to_play == 2
    assert since_setup(texts(g.events)) == ["p1 plays 7H", "p3 draws 1"]


def test_e41_partnership_five_makes_partner_draw_too():
    g = short_game("crates", 4, schedule=[3])
    _position(g, 4, ["5H", "4S", "5S"], top="5C")
    act(g, "play 5H")
    assert g.hand_sizes == [2, 3, 3, 3]
    assert g.hand(2) == ["3C", "QS", "KS"]
    assert since_setup(texts(g.events)) == ["p0 plays 5H", "p1 draws 1", "p2 draws 1", "p3 draws 1"]


def test_e41_partnership_pressure_counter_shared():
    g = short_game("crates", 4, schedule=[3])
    g.set_position(
        hands=[["QC", "JC"], ["2D", "4D"], ["2S", "4S"], ["5D", "6D"]],
        stock=[],
        discard=["4C", "5C", "KH"],
        turn=1,
    )
    act(g, "draw", "draw", "draw")
    r = g.results[-1]
    assert r.ended_by == "pressure"
    assert r.pressure_points == [0, 15]
    assert r.pressures == [0, 2]
    assert g.pressure_count == [0, 2]
    assert sorted(r.cards_left[1] + r.cards_left[2]) == sorted(["2D", "4D", "2S", "4S", "4C", "5C"])
    # the reshuffled 4C (15) and 5C (30) went one each to seats 1 and 2
    seat1_extra = 15 if "4C" in r.cards_left[1] else 30
    assert r.card_points == [20, 35 + seat1_extra, 80 - seat1_extra, 60]
    assert r.team_points == [20 + 80 - seat1_extra, 35 + seat1_extra + 60 + 15]
    assert last_log(g)[:-1] == [
        "pressure p1 +5",
        "reshuffle 2",
        "p1 draws 1",
        "p2 draws 1",
        "pressure p3 +10",
        "p3 draws 0 of 1: nothing to reshuffle",
    ]


def test_e41_partnership_score_sums_hands_threes_scored_separately():
    g = short_game("crates", 4, schedule=[3])
    g.set_position(
        hands=[["3C"], ["KH"], ["KS"], ["QD", "QC"]], stock=["2C"], discard=["5H"], turn=1
    )
    act(g, "play KH")  # seat 1 out: the hand ends although its partner still holds cards
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 1)
    assert r.card_points == [-50, 0, 10, 20]
    # seat 0's lone 3 is -50 and does not cover its partner's K ([3, K] together would be 3)
    assert r.team_points == [-40, 20]
    assert g.scores == [-40, 20]
    assert last_log(g)[-1] == "hand 1 scores: team0 -40, team1 +20"


# --- E-43: craits_dealer_follows_direction --------------------------------------------------------


def _two_hand_craits(n, **options):
    return short_game("craits", n, schedule=[1, 1], **options)


def test_e43_counter_clockwise_finish_moves_dealer_right():
    g = _two_hand_craits(3, craits_dealer_follows_direction=True)
    g.set_position(
        hands=[["KH"], ["KS"], ["KD"]], stock=["4S"], discard=["5H"], turn=0, direction=-1
    )
    act(g, "play KH")
    assert g.results[-1].dealer == 0
    assert g.dealer == 2
    assert texts(g.events)[0] == "hand 2: p2 deals 1 cards each"
    # each new hand still starts clockwise (unless its own starter is a 10)
    assert g.direction == (-1 if g.top_card.startswith("10") else 1)


def test_e43_clockwise_finish_moves_dealer_left():
    g = _two_hand_craits(3, craits_dealer_follows_direction=True)
    g.set_position(hands=[["KH"], ["KS"], ["KD"]], stock=["4S"], discard=["5H"], turn=0)
    act(g, "play KH")
    assert g.dealer == 1


def test_e43_final_ten_counts_for_the_direction():
    # clockwise until the last card, a 10: the final direction is counter-clockwise
    g = _two_hand_craits(3, craits_dealer_follows_direction=True)
    g.set_position(hands=[["10H"], ["KS"], ["KD"]], stock=["4S"], discard=["5H"], turn=0)
    act(g, "play 10H")
    assert g.results[-1].went_out == 0
    assert g.dealer == 2


def test_e43_without_flag_dealer_always_moves_left():
    g = _two_hand_craits(3)
    g.set_position(
        hands=[["KH"], ["KS"], ["KD"]], stock=["4S"], discard=["5H"], turn=0, direction=-1
    )
    act(g, "play KH")
    assert g.dealer == 1


def test_e43_two_players_no_effect():
    g = _two_hand_craits(2, craits_dealer_follows_direction=True)
    g.set_position(hands=[["KH"], ["KS"]], stock=["4S"], discard=["5H"], turn=0, direction=-1)
    act(g, "play KH")
    assert g.dealer == 1


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


# --- E-48 / E-49: craits face cards at the end of the hand ---------------------------------------


def test_e48_king_as_last_card_must_draw():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(hands=[["KH"], ["2S", "3S"], ["4S", "5S"]], stock=["QC"], discard=["5H"], turn=0)
    act(g, "play KH")
    assert (g.to_play, g.hand_sizes[0], g.action_names()) == (0, 0, ["draw"])
    act(g, "draw")
    assert not g.game_over
    assert g.hand(0) == ["QC"]
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 plays KH", "p0 draws 1"]


def test_e48_out_of_cards_on_first_follow_up_must_draw():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["KH", "QH"], ["2S", "3S"], ["4S", "5S"]], stock=["QC"], discard=["5H"], turn=0
    )
    act(g, "announce", "play KH", "play QH")
    assert (g.to_play, g.hand_sizes[0], g.action_names()) == (0, 0, ["draw"])
    act(g, "draw")
    assert g.hand(0) == ["QC"]
    assert g.to_play == 1


def test_e48_out_on_third_card_allowed():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["KH", "QH", "JH", "4H"], ["2S", "3S"], ["4S", "5S"]],
        stock=["QC"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play KH", "play QH", "announce", "play JH")
    assert g.hand_sizes == [1, 2, 2]  # the plain J made nobody draw
    act(g, "play 4H")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.card_points == [0, 3, 45]


def test_e48_third_card_six_needs_another_play():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["KH", "QH", "JH", "6H"], ["2S", "3S"], ["4S", "5S"]],
        stock=["QC"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play KH", "play QH", "announce", "play JH", "play 6H")
    assert (g.to_play, g.hand_sizes[0], g.action_names()) == (0, 0, ["draw"])
    act(g, "draw")
    assert g.hand(0) == ["QC"]
    assert not g.game_over


def test_e49_last_card_jack_run_next_draws_before_scoring():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["JH"], ["2S"], ["4S"]],
        stock=["AC", "2C", "3C", "4C", "5C"],
        discard=["JC"],
        turn=0,
    )
    act(g, "play JH")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left == [[], ["AC", "2C", "3C", "4C", "2S"], ["4S"]]
    assert last_log(g)[:3] == ["p0 plays JH", "p1 draws 4", "p0 goes out"]


def test_e49_last_card_queen_of_spades_next_draws_five():
    g = short_game("craits", 3, schedule=[3], craits_face_cards=True)
    g.set_position(
        hands=[["QS"], ["2H"], ["4H"]],
        stock=["AC", "2C", "3C", "4C", "5C"],
        discard=["5S"],
        turn=0,
    )
    act(g, "play QS")
    r = g.results[-1]
    assert r.cards_left == [[], ["AC", "2C", "3C", "4C", "5C", "2H"], ["4H"]]
    assert r.card_points == [0, 59, 15]
    assert last_log(g)[:3] == ["p0 plays QS", "p1 draws 5", "p0 goes out"]


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


# --- E-51: kreights clean player who owes a penalty -----------------------------------------------


def test_e51_kreights_clean_player_owing_penalty_draws_two_at_end():
    g = short_game("kreights", 4, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC"], ["KS", "QS"], ["2H", "KD", "QC"]],
        stock=["4C", "5C", "6C", "7C", "10C", "JC", "QH"],
        discard=["5H"],
        turn=3,
        penalty_owed=[1],
    )
    act(g, "play 2H", "play 2C")
    # the count turn does not serve the penalty
    assert (g.to_play, g.penalty_owed) == (1, [False, True, False, False])
    act(g, "play AC", "draw")
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.clean == [1]
    assert r.stars == [1, 0, 0, 0]
    assert r.cards_left[1] == ["JC", "QH"]
    assert r.card_points[1] == 20
    assert r.cards_left[2] == ["4C", "5C", "6C", "7C", "10C", "QS", "KS"]
    assert last_log(g)[-4:] == [
        "p2 draws 5",
        "p1 draws the one-card penalty before scoring",
        "p1 draws 2",
        "hand 1 scores: p0 +0, p1 +20, p2 +140, p3 +20",
    ]


# --- E-53: a player with 0 cards never takes a normal turn ---------------------------------------


def test_e53_out_player_only_draws_the_count():
    g = short_game("crates", 3, schedule=[3])
    g.set_position(
        hands=[["2C"], ["AC", "KH", "QH"], ["AH", "KD", "QD"]],
        stock=["4S", "5S", "6S", "7S"],
        discard=["5C"],
        turn=0,
    )
    act(g, "play 2C", "play AC", "play AH")
    assert (g.to_play, g.hand_sizes[0], g.count) == (0, 0, 4)
    assert g.legal_actions() == [parse_action("draw")]
    act(g, "draw")
    assert g.game_over
    assert g.decision is None
    assert g.legal_actions() == []


def test_e53_going_out_outside_count_ends_hand_before_any_turn():
    g = short_game("crates", 3, schedule=[3])
    g.set_position(hands=[["KH"], ["2S"], ["4S"]], stock=["KC"], discard=["5H"], turn=0)
    act(g, "play KH")
    assert g.game_over
    assert g.decision is None
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply(parse_action("draw"))


# --- kreights toggles ---------------------------------------------------------------------------


def test_kreights_mulligan_first_failure_free_second_penalised():
    g = short_game("kreights", 3, schedule=[3], kreights_mulligan=(0,))
    g.set_position(
        hands=[["KH", "QH"], ["KS", "KD"], ["JC", "10C", "4D"]],
        stock=["2C", "3C", "4C"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play KH")
    assert g.penalty_owed == [False, False, False]
    act(g, "play KS")  # seat 1 is not designated: penalised at once
    assert g.penalty_owed == [False, True, False]
    assert since_setup(texts(g.events)) == [
        "p0 plays KH",
        "p0 missed the one-card call (mulligan)",
        "p1 plays KS",
        "p1 missed the one-card call",
    ]
    # a second failure by seat 0 (same game) is penalised
    g.set_position(
        hands=[["KH", "QH"], ["KS", "KD"], ["JC", "10C", "4D"]],
        stock=["2C", "3C", "4C"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play KH")
    assert g.penalty_owed == [True, False, False]
    assert since_setup(texts(g.events)) == ["p0 plays KH", "p0 missed the one-card call"]


def _after_count_position(g):
    g.set_position(
        hands=[["2C", "KS", "QS"], ["KH", "QD", "4S"], ["KD", "7H", "JC", "9S"]],
        stock=["2H", "3H", "4H"],
        discard=["5C"],
        turn=0,
    )
    act(g, "play 2C", "draw")
    assert g.hand(1) == ["QD", "2H", "3H", "KH", "4S"]
    assert (g.to_play, g.count, g.top_card) == (2, 0, "2C")


def test_kreights_default_after_count_must_match_top_card():
    g = short_game("kreights", 3, schedule=[4])
    _after_count_position(g)
    assert g.action_names() == ["play JC", "play 9S"]


def test_kreights_free_play_after_count_any_card_then_normal():
    g = short_game("kreights", 3, schedule=[4], kreights_free_play_after_count=True)
    _after_count_position(g)
    assert g.action_names() == ["play JC", "play KD", "play 7H", "play 9S"]
    act(g, "play 7H")
    # only the first play after the count is free
    assert g.to_play == 0
    assert g.action_names() == ["draw"]


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

"""The count (the 2-sequence, the crank): a 2 starts it, aces and 2s add to it, the player who
cannot add draws the total; a player who went out stays in it, and when it is drawn the hand ends
unless the preset goes on (docs/rules.md §1.5, §4.2: TV-15, TV-17, DV-13, DV-14, E-7, E-12,
E-14, E-53, C-13).
"""

from __future__ import annotations

import pytest

from crates_env import Decision, IllegalActionError, new_game, parse_action
from crates_env.events import texts

from .scripted import act, last_log, log_texts, names, same, short_game, since_setup, stacked

# --- TV-15: the round of one ----------------------------------------------------------------------


TV15_DECK = ["2H", "AD", "2D", "2S", "8C", "9C", "6C", "7C", "JC", "QC", "KC"]


TV15_STOCK = ["8C", "9C", "6C", "7C", "JC", "QC", "KC"]


@pytest.mark.parametrize(
    ("preset", "lefty_points"),
    [("creights", 165), ("crates", 160), ("craits", 160), ("kreights", 165)],
)
def test_tv15_round_of_one_creights(preset, lefty_points):
    g = new_game(preset, 3, seed=15, dealer=0, deck=TV15_DECK, deal_schedule=[1])
    assert g.hand(1) == ["2H"]
    assert g.hand(2) == ["AD"]
    assert g.hand(0) == ["2D"]
    assert g.top_card == "2S"
    assert g.count == 2
    assert g.stock_cards()[:7] == TV15_STOCK
    # The starter opens the crank at 2; lefty (seat 1) must follow. No call: 1 card each.
    assert g.to_play == 1
    assert g.decision is Decision.PLAY
    assert g.action_names() == ["play 2H"]
    act(g, "play 2H")
    assert g.count == 4
    assert g.to_play == 2
    assert g.action_names() == ["play AD"]
    act(g, "play AD")
    assert g.count == 5
    assert g.to_play == 0
    assert g.action_names() == ["play 2D"]
    act(g, "play 2D")
    assert g.count == 7
    # The crank comes back to lefty, who holds nothing: draw 7.
    assert g.to_play == 1
    assert g.action_names() == ["draw"]
    act(g, "draw")

    assert g.game_over
    r = g.results[-1]
    assert r.ended_by == "count"
    assert r.went_out == 1
    assert r.cards_left[0] == [] and r.cards_left[2] == []
    assert same(r.cards_left[1], TV15_STOCK)
    assert r.card_points == [0, lefty_points, 0]
    assert r.team_points == [0, lefty_points, 0]
    assert r.pressures == [0, 0, 0]
    assert g.scores == [0, lefty_points, 0]
    log = log_texts(g.hand_logs)[-1]
    assert log[:2] == ["hand 1: p0 deals 1 cards each", "p0 turns 2S, count 2"]
    expected = [
        "p1 plays 2H, count 4",
        "p1 is out, the count goes on",
        "p2 plays AD, count 5",
        "p2 is out, the count goes on",
        "p0 plays 2D, count 7",
        "p0 is out, the count goes on",
        "p1 draws 7",
        f"hand 1 scores: p0 +0, p1 +{lefty_points}, p2 +0",
    ]
    if preset == "kreights":
        # Ha-ha-no-star: the count came back to the first player out; R and D are clean.
        expected.append("p1: ha ha, no star")
        assert r.ha_ha_no_star is True
        assert sorted(r.clean) == [0, 2]
        assert r.stars == [0, 0, 0]
        assert g.stars == [0, 0, 0]
    else:
        assert r.ha_ha_no_star is False
        assert r.clean == []
    assert log[2:] == expected
    assert not any("one-card" in line or "announces" in line for line in log)


# --- TV-17: the maximum 2-sequence ----------------------------------------------------------------


def test_tv17_kreights_maximum_count_is_twelve():
    stock = ["3C", "4C", "6C", "7C", "9C", "10C", "3D", "4D", "5D", "6D", "7D", "9D", "10D"]
    g = new_game("kreights", 4, seed=17, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[
            ["2C", "2H", "KC", "QC"],
            ["AC", "AH", "KS", "QD"],
            ["2D", "2S", "KH", "QH"],
            ["AD", "AS", "JC", "JD"],
        ],
        stock=stock,
        discard=["5C"],
        turn=0,
    )
    assert names(g) == ["play 2C", "play KC", "play QC"]
    plays = ["2C", "AC", "2D", "AD", "2H", "AH", "2S", "AS"]
    totals = [2, 3, 5, 6, 8, 9, 11, 12]
    for i, (card, total) in enumerate(zip(plays, totals, strict=True)):
        seat = i % 4
        assert g.to_play == seat
        if i:  # in the count only the A/2 held may be played (no wilds, no draw while able)
            held = sorted(f"play {c}" for c in g.hand(seat) if c[0] in "A2")
            assert names(g) == held
            assert f"play {card}" in held
        act(g, f"play {card}")
        assert g.count == total
    assert g.to_play == 0
    assert names(g) == ["draw"]
    act(g, "draw")
    assert g.count == 0
    assert same(g.hand(0), ["KC", "QC", *stock[:12]])
    assert g.hand_sizes == [14, 2, 2, 2]
    assert g.stock_cards() == ["10D"]
    # Play reverts to normal: seat 1 matches the A of spades by suit or rank.
    assert g.to_play == 1
    assert g.top_card == "AS"
    assert g.current_suit == "S"
    assert names(g) == ["announce", "play KS"]  # seat 1 holds 2 cards: KS, QD
    assert since_setup(texts(g.events)) == [
        "p0 plays 2C, count 2",
        "p1 plays AC, count 3",
        "p2 plays 2D, count 5",
        "p3 plays AD, count 6",
        "p0 plays 2H, count 8",
        "p1 plays AH, count 9",
        "p2 plays 2S, count 11",
        "p3 plays AS, count 12",
        "p0 draws 12",
    ]


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


# --- C-13: after a count, by default the next play matches (kreights_free_play_after_count) -------


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

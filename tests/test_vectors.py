"""Scripted deals for the docs/rules.md §2 test vectors, part A.

Seed examples TV-03, TV-15, TV-17, TV-21..TV-25, TV-27, TV-29, TV-30 and derived vectors DV-01 to
DV-12. Every test drives the engine through a stacked deck (``deck=``) or a scripted position
(``set_position``) and checks exact hands, scores, event lines, the seat to play and the legal
actions.
"""

from __future__ import annotations

import pytest

from crates_env import Decision, Game, IllegalActionError, make_ruleset, new_game, parse_action
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


# --- TV-22 / TV-23: a single-card Cooper ----------------------------------------------------------


def _single_six(preset: str) -> Game:
    g = new_game(preset, 4, seed=22, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["6S"], ["KS", "QH", "JH"], ["KD", "QD", "JD"], ["KC", "QC", "JC"]],
        stock=["KH", "QS", "JS", "2C"],
        discard=["10S"],
        turn=0,
    )
    return g


def test_tv22_crates_single_card_cooper_draws_one_without_call():
    g = _single_six("crates")
    assert g.current_suit == "S"
    # The 6 must be played; no call is required in crates (none is even offered).
    assert g.action_names() == ["play 6S"]
    for illegal in ("draw", "announce"):
        with pytest.raises(IllegalActionError):
            g.apply(parse_action(illegal))
    act(g, "play 6S")
    assert g.to_play == 0
    assert g.hand(0) == []
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(0) == ["KH"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False, False]
    assert g.stock_cards() == ["QS", "JS", "2C"]
    assert since_setup(texts(g.events)) == ["p0 plays 6S", "p0 draws 1"]


def test_tv23_chicago1970_single_six_with_call_draws_one():
    g = _single_six("chicago1970")
    assert names(g) == ["announce", "play 6S"]
    act(g, "announce", "play 6S")
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert g.hand(0) == ["KH"]
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False, False]
    assert since_setup(texts(g.events)) == ["p0 announces one card", "p0 plays 6S", "p0 draws 1"]


def test_tv23_chicago1970_single_six_without_call_draws_two_and_nothing_more():
    g = _single_six("chicago1970")
    act(g, "play 6S")
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert same(g.hand(0), ["KH", "QS"])
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False, False]
    # Nothing further: seat 0's next turn is a normal one.
    act(g, "play KS", "play KD", "play KC")
    assert g.to_play == 0
    assert g.decision is Decision.PLAY
    assert names(g) == ["announce", "play KH"]
    assert same(g.hand(0), ["KH", "QS"])
    assert since_setup(texts(g.events)) == [
        "p0 plays 6S",
        "p0 played a last 6 without the call",
        "p0 draws 2",
        "p1 plays KS",
        "p2 plays KD",
        "p3 plays KC",
    ]


# --- TV-24: a two-card Cooper ---------------------------------------------------------------------


def _two_card_cooper() -> Game:
    g = new_game("crates", 4, seed=24, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["6H", "KS"], ["KH", "JS", "4S"], ["KD", "QS", "4D"], ["QD", "5S", "5C"]],
        stock=["QC", "JC", "10C", "9D"],
        discard=["5H"],
        turn=0,
    )
    return g


def test_tv24_two_card_cooper_with_call():
    g = _two_card_cooper()
    assert g.top_card == "5H"
    assert names(g) == ["announce", "play 6H"]
    act(g, "announce", "play 6H")
    # K of spades cannot follow the 6 of hearts: draw 1 and end the turn with 2 cards.
    assert g.to_play == 0
    assert g.action_names() == ["draw"]
    act(g, "draw")
    assert same(g.hand(0), ["KS", "QC"])
    assert g.to_play == 1
    assert g.penalty_owed == [False, False, False, False]
    act(g, "play KH", "play KD", "play QD")
    assert g.to_play == 0
    assert g.decision is Decision.PLAY
    assert names(g) == ["announce", "play QC"]
    assert since_setup(texts(g.events)) == [
        "p0 announces one card",
        "p0 plays 6H",
        "p0 draws 1",
        "p1 plays KH",
        "p2 plays KD",
        "p3 plays QD",
    ]


def test_tv24_two_card_cooper_without_call_draws_two_next_turn():
    g = _two_card_cooper()
    act(g, "play 6H")
    assert g.penalty_owed == [True, False, False, False]
    act(g, "draw")
    assert same(g.hand(0), ["KS", "QC"])
    assert g.to_play == 1
    act(g, "play KH", "play KD", "play QD")
    # Seat 0's next (non-count) turn: it draws 2 and the turn is over.
    assert g.to_play == 1
    assert same(g.hand(0), ["KS", "QC", "JC", "10C"])
    assert g.hand_sizes == [4, 2, 2, 2]
    assert g.penalty_owed == [False, False, False, False]
    assert g.stock_cards() == ["9D"]
    assert names(g) == ["draw"]  # seat 1 holds JS, 4S on the Q of diamonds
    assert since_setup(texts(g.events)) == [
        "p0 plays 6H",
        "p0 missed the one-card call",
        "p0 draws 1",
        "p1 plays KH",
        "p2 plays KD",
        "p3 plays QD",
        "p0 loses the turn for the missed call",
        "p0 draws 2",
    ]


# --- TV-25: card for my partner -------------------------------------------------------------------


def test_tv25_seven_hits_the_partner():
    g = new_game("crates", 4, seed=25, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["7H", "KC", "QC"], ["KD", "QD", "JD"], ["KS", "QS", "JS"], ["4C", "4D", "4S"]],
        stock=["10C", "10D"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play 7H")
    assert same(g.hand(2), ["KS", "QS", "JS", "10C"])
    assert g.hand_sizes == [2, 3, 4, 3]
    assert g.to_play == 1
    assert g.stock_cards() == ["10D"]
    assert since_setup(texts(g.events)) == ["p0 plays 7H", "p2 draws 1"]


def test_tv25_seven_starter_hits_the_dealers_partner():
    hands = [["KC", "QC"], ["KD", "QD"], ["KS", "QS"], ["KH", "QH"]]
    deck = deal_order(hands, dealer=0, starter="7H", stock=["JC", "JD"])
    g = new_game("crates", 4, seed=25, dealer=0, deck=deck, deal_schedule=[2])
    assert g.hand_sizes == [2, 2, 3, 2]
    assert same(g.hand(2), ["KS", "QS", "JC"])
    assert g.stock_cards()[0] == "JD"
    assert g.to_play == 1
    assert texts(g.events) == ["hand 1: p0 deals 2 cards each", "p0 turns 7H", "p2 draws 1"]


# --- TV-27: kreights seven-card format ------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "schedule"),
    [
        (3, (7, 6, 5, 4, 3, 2, 1, 1, 1, 2, 3, 4, 5, 6, 7)),
        (4, (7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7)),
        (5, (7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7)),
    ],
)
def test_tv27_kreights_seven_card_format_schedule(n, schedule):
    rs = make_ruleset("kreights", n, seven_card_format=True)
    assert rs.schedule == schedule
    assert rs.num_hands == {3: 15, 4: 16, 5: 17}[n]
    for i, size in enumerate(schedule):
        g = new_game("kreights", n, seed=i, dealer=0, hand_index=i, seven_card_format=True)
        assert g.hand_index == i
        assert g.deal_size == size
        assert texts(g.events)[0] == f"hand {i + 1}: p0 deals {size} cards each"
    with pytest.raises(ValueError):
        new_game("kreights", n, seed=0, hand_index=len(schedule), seven_card_format=True)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_tv27_kreights_seven_card_format_by_playing(n):
    """Play whole games (always the first legal action): the hands follow the schedule."""
    schedule = [7, 6, 5, 4, 3, 2] + [1] * n + [2, 3, 4, 5, 6, 7]
    g = new_game("kreights", n, seed=27, dealer=0, seven_card_format=True)
    while not g.game_over:
        g.apply(g.legal_actions()[0])
    assert not g.truncated
    assert [r.deal_size for r in g.results] == schedule
    assert [r.hand_index for r in g.results] == list(range(12 + n))
    assert [r.dealer for r in g.results] == [i % n for i in range(12 + n)]
    # Each player deals exactly one of the 1-card hands.
    assert sorted(r.dealer for r in g.results if r.deal_size == 1) == list(range(n))
    assert [log[0] for log in log_texts(g.hand_logs)] == [
        f"hand {i + 1}: p{i % n} deals {size} cards each" for i, size in enumerate(schedule)
    ]


# --- TV-29: whipsaw -------------------------------------------------------------------------------


def test_tv29_kreights_whipsaw():
    g = new_game("kreights", 4, seed=29, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[["KC", "QC", "JC"], ["10H", "KD", "QD"], ["KS", "QS", "JS"], ["10S", "JD", "4D"]],
        stock=["2C", "3C"],
        discard=["5H"],
        turn=1,
    )
    act(g, "play 10H")
    assert g.direction == -1
    assert g.to_play == 0
    assert names(g) == ["draw"]
    act(g, "draw")
    assert same(g.hand(0), ["KC", "QC", "JC", "2C"])
    assert g.to_play == 3
    assert names(g) == ["play 10S"]
    act(g, "play 10S")
    assert g.direction == 1
    assert g.to_play == 0
    assert since_setup(texts(g.events)) == [
        "p1 plays 10H",
        "direction reversed",
        "p0 draws 1",
        "p3 plays 10S",
        "direction clockwise",
    ]


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


# --- DV-05 .. DV-08: who a card hits, by player count ---------------------------------------------


@pytest.mark.parametrize(("preset", "target"), [("kreights", 2), ("crates", 1), ("craits", 1)])
def test_dv05_three_player_seven(preset, target):
    g = new_game(preset, 3, seed=5, dealer=2, deal_schedule=[8])
    g.set_position(
        hands=[["7H", "KC", "QC"], ["KD", "QD", "JD"], ["KS", "QS", "JS"]],
        stock=["2C", "2D"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play 7H")
    sizes = [2, 3, 3]
    sizes[target] += 1
    assert g.hand_sizes == sizes
    assert "2C" in g.hand(target)
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 plays 7H", f"p{target} draws 1"]


def test_dv06_two_player_four_plays_again():
    g = new_game("crates", 2, seed=6, dealer=1, deal_schedule=[8])
    g.set_position(
        hands=[["4H", "KH", "QC"], ["KD", "QD", "JD"]],
        stock=["2C", "2D"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play 4H")
    assert g.to_play == 0
    assert g.decision is Decision.PLAY
    assert names(g) == ["announce", "play KH"]
    assert g.hand_sizes == [2, 3]
    assert since_setup(texts(g.events)) == ["p0 plays 4H", "p1 is skipped"]


def test_dv07_two_player_ten_flips_direction_opponent_plays():
    g = new_game("crates", 2, seed=7, dealer=1, deal_schedule=[8])
    g.set_position(
        hands=[["10H", "KH", "QC"], ["KD", "QD", "JH"]],
        stock=["2C", "2D"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play 10H")
    assert g.direction == -1
    assert g.to_play == 1
    assert names(g) == ["play JH"]
    assert since_setup(texts(g.events)) == ["p0 plays 10H", "direction reversed"]
    act(g, "play JH")  # the 2-player J: the previous player (seat 0) takes a card
    assert g.to_play == 0
    assert same(g.hand(0), ["KH", "QC", "2C"])


def test_dv08_three_player_jack_hits_previous_player():
    g = new_game("crates", 3, seed=8, dealer=2, deal_schedule=[8])
    g.set_position(
        hands=[["JH", "KC", "QC"], ["KD", "QD", "KH"], ["KS", "QS", "JS"]],
        stock=["2C", "2D"],
        discard=["5H"],
        turn=0,
    )
    act(g, "play JH")
    assert same(g.hand(2), ["KS", "QS", "JS", "2C"])
    assert g.hand_sizes == [2, 3, 4]
    assert g.to_play == 1
    assert names(g) == ["play KH"]
    assert since_setup(texts(g.events)) == ["p0 plays JH", "p2 draws 1"]


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


# --- DV-12: a one-card penalty waits out a count --------------------------------------------------


def test_dv12_kreights_penalty_waits_for_a_non_count_turn():
    g = new_game("kreights", 4, seed=12, dealer=3, deal_schedule=[8])
    g.set_position(
        hands=[
            ["AS", "JH", "QC", "JD"],
            ["KH", "QH"],
            ["2H", "KS", "JC", "4C"],
            ["2S", "KD", "QD", "JS"],
        ],
        stock=["3C", "4D", "5C", "6C", "7C", "9D", "10H", "6D"],
        discard=["5H"],
        turn=1,
    )
    assert names(g) == ["announce", "play KH", "play QH"]
    act(g, "play KH")  # from 2 cards to 1 without the call
    assert g.penalty_owed == [False, True, False, False]
    act(g, "play 2H", "play 2S", "play AS")
    assert g.count == 5
    # The count reaches seat 1, who holds no A/2: draw the total; the penalty is not served.
    assert g.to_play == 1
    assert names(g) == ["draw"]
    act(g, "draw")
    assert same(g.hand(1), ["QH", "3C", "4D", "5C", "6C", "7C"])
    assert g.penalty_owed == [False, True, False, False]
    assert g.to_play == 2
    assert g.count == 0
    act(g, "play KS", "play KD", "play JD")
    # Seat 1's next non-count turn: it loses the turn and draws 2.
    assert g.to_play == 2
    assert same(g.hand(1), ["QH", "3C", "4D", "5C", "6C", "7C", "9D", "10H"])
    assert g.penalty_owed == [False, False, False, False]
    assert g.stock_cards() == ["6D"]
    assert since_setup(texts(g.events)) == [
        "p1 plays KH",
        "p1 missed the one-card call",
        "p2 plays 2H, count 2",
        "p3 plays 2S, count 4",
        "p0 plays AS, count 5",
        "p1 draws 5",
        "p2 plays KS",
        "p3 plays KD",
        "p0 plays JD",
        "p1 loses the turn for the missed call",
        "p1 draws 2",
    ]

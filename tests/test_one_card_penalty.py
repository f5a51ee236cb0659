"""What a missed one-card call costs and when it is served: the next non-count turn, turns
skipped or replayed, craits' idiot card, a clean kreights player who still owes it, the kreights
mulligan (docs/rules.md §1.6, §4.3: DV-12, DV-17, E-22 to E-24, E-51).
"""

from __future__ import annotations

from crates_env import new_game
from crates_env.events import texts

from .scripted import act, last_log, names, same, short_game, since_setup

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


# --- kreights_mulligan: a newcomer's first missed call is forgiven --------------------------------


def test_kreights_mulligan_first_failure_free_second_penalised():
    g = short_game("kreights", 3, schedule=[3], kreights_mulligan=(0,))
    hands = [["KH", "QH"], ["KS", "KD"], ["JC", "10C", "4D"]]
    g.set_position(hands, ["2C", "3C", "4C"], ["5H"], turn=0)
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
    g.set_position(hands, ["2C", "3C", "4C"], ["5H"], turn=0)
    act(g, "play KH")
    assert g.penalty_owed == [True, False, False]
    assert since_setup(texts(g.events)) == ["p0 plays KH", "p0 missed the one-card call"]

"""When the one-card call is due, per preset: plays from two cards, 6s and Coopers (single and
two-card), creights' per-turn call, the one-card hand and ``craits_one_card_on_deal``
(docs/rules.md §1.6, §4.3: TV-22 to TV-24, DV-15, DV-16, E-16 to E-21, E-25).
"""

from __future__ import annotations

import pytest

from crates_env import Decision, Game, IllegalActionError, new_game, parse_action
from crates_env.events import texts

from .scripted import act, last_log, log_texts, names, same, short_game, since_setup, stacked

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

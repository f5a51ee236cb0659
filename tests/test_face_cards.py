"""craits face cards (``craits_face_cards``): jack runs, the queen of spades, the king's three
cards, and these cards at the end of a hand (docs/rules.md §1.14, §4.6: DV-18 to DV-20, E-48,
E-49).
"""

from __future__ import annotations

from crates_env import Decision
from crates_env.events import texts

from .scripted import ALL_SUITS, act, last_log, short_game, since_setup

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

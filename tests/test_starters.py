"""The deal and the starter: the kreights seven-card schedule, the first dealer by low card, wild
starters named before the hand is seen, and what each starter card does in each preset
(docs/rules.md §1.1, §1.2, §4.4: TV-27, DV-28 to DV-30, E-26 to E-35).
"""

from __future__ import annotations

import pytest

from crates_env import (
    Decision,
    IllegalActionError,
    make_ruleset,
    new_game,
    parse_action,
    parse_card,
)
from crates_env.events import texts
from crates_env.game import lowest_cards

from .scripted import ALL_SUITS, act, log_texts, short_game, stacked

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
def test_e32_seven_starter_makes_its_target_draw_one(preset, n, target):
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
def test_e33_jack_starter_makes_the_previous_player_draw_in_small_games(preset, n, target):
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

"""Player counts, partnerships and direction: who a 4, 7, 10, J or Joker hits with two or three
players, the partner a 7 hits, shared pressure counters, the whipsaw, and the dealer following
the direction in craits (docs/rules.md §1.4, §4.5: TV-25, TV-29, DV-05 to DV-08, E-36 to E-43).
"""

from __future__ import annotations

import pytest

from crates_env import Decision, new_game
from crates_env.events import texts

from .scripted import act, deal_order, last_log, names, same, short_game, since_setup

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

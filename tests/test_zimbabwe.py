"""Scripted deals for ``zimbabwe``, the Zimbabwean variation of Crazy Eights [003:51-146].

docs/rules.md vectors TV-19, DV-21..DV-25 and edge cases E-55..E-61 (C-23, C-25..C-29, C-57): legal
plays, offensive cards and their stacking, blocks, 7 skips and their deflection, the J's two
reversals, the K, the 8 and its counter, several cards of one rank in one play, "in air", the round
scores and the elimination with its tie-break draws, until one player is left. Every test scripts a
position or stacks the deck and checks exact hands, scores, event lines and legal actions.
"""

from __future__ import annotations

import random

import pytest

from crates_env import Decision, Game, IllegalActionError, new_game, parse_action, score_hand
from crates_env.events import texts

from .scripted import act, last_log, names, short_game, since_setup, stacked

STOCK = ["6H", "10D", "QH", "2S", "7S", "6S", "10C", "9H", "3H", "5H"]


def zim(n: int = 4, **position) -> Game:
    """A zimbabwe game of 5-card deals, at a scripted position when one is given (the keyword
    arguments of ``Game.set_position``)."""
    g = short_game("zimbabwe", n, schedule=[5])
    if position:
        g.set_position(**position)
    return g


# --- TV-19 / C-29: what may follow 6♣ ------------------------------------------------------------


def test_tv19_legal_plays_on_six_of_clubs():
    g = zim(
        2,
        hands=[
            ["6D", "2C", "7C", "JC", "KC", "AC", "8H", "AS", "JK", "AD", "AH", "2D", "9H"],
            ["QD"],
        ],
        stock=["3S", "4S"],
        discard=["5D", "6C"],
        turn=0,
    )
    # any 6, any club, any 8, A♠, a Joker, or draw; not A♦/A♥ (no match, the top is no ace),
    # not 2♦ (no match, the top is no Joker), not 9♥
    assert names(g) == [
        "draw",
        "play 2C",
        "play 6D",
        "play 7C",
        "play 8H",
        "play AC",
        "play AS",
        "play JC",
        "play JK",
        "play KC",
    ]
    for card in ("AD", "AH", "2D", "9H"):
        with pytest.raises(IllegalActionError):
            g.apply(parse_action("play " + card))


def test_tv19_draw_one_then_play_if_willing_or_pass():
    g = zim(
        hands=[["6D", "KH"], ["QD", "4D"], ["9S", "3C"], ["QS", "4S"]],
        stock=["9C", "10S"],
        discard=["5D", "6C"],
        turn=0,
    )
    act(g, "draw")  # allowed although 6D is playable ("does not wish to play")
    assert (g.decision, g.to_play, g.hand(0)) == (Decision.PLAY_OR_PASS, 0, ["9C", "6D", "KH"])
    assert names(g) == ["pass", "play 6D", "play 9C"]  # no second draw
    act(g, "pass")
    assert (g.decision, g.to_play) == (Decision.PLAY, 1)
    assert since_setup(texts(g.events)) == ["p0 draws 1", "p0 passes"]


# --- DV-21: offensive cards stack -----------------------------------------------------------------


def test_dv21_two_joker_two_stack_to_nine_then_a_fresh_start_on_the_two():
    g = zim(
        hands=[["2H", "5C", "KS"], ["JK", "6D"], ["2C", "9S"], ["KD", "5S", "QD"]],
        stock=["3H", "4H", "5H", "6H", "7C", "8H", "9H", "10H", "JH", "QH"],
        discard=["9D", "7H"],
        turn=0,
    )
    act(g, "play 2H")
    assert (g.to_play, g.demand) == (1, 2)
    assert names(g) == ["draw", "play JK"]  # block, stack or draw only: 6D is no answer
    act(g, "play JK")
    assert names(g) == ["draw", "play 2C"]  # a 2 may be played on a Joker [003:99]
    act(g, "play 2C")
    assert (g.to_play, g.demand, names(g)) == (3, 9, ["draw"])
    act(g, "draw")
    assert g.hand_sizes == [2, 1, 1, 12]
    assert (g.to_play, g.demand, g.top_card) == (0, 0, "2C")
    assert names(g) == ["draw", "play 5C"]  # match clubs or a 2; a new 2 would start afresh
    assert since_setup(texts(g.events)) == [
        "p0 plays 2H, demand 2",
        "p1 plays JK, demand 7",
        "p2 plays 2C, demand 9",
        "p3 draws 9",
        "p3 misses the turn",
    ]


# --- DV-22: blocks --------------------------------------------------------------------------------


def dv22(ace: str) -> Game:
    g = zim(
        hands=[["JK", "5C"], [ace, "6D"], ["9C", "4S", "QD", "10H"], ["KD", "5S"]],
        stock=STOCK[:4],
        discard=["9D", "7H"],
        turn=0,
    )
    act(g, "play JK")
    assert names(g) == ["draw", "play " + ace]
    act(g, "play " + ace)
    return g


def test_dv22_ace_of_diamonds_blocks_then_follow_the_ace():
    g = dv22("AD")
    assert (g.to_play, g.demand, g.current_suit) == (2, 0, "D")
    assert names(g) == ["draw", "play QD"]
    assert since_setup(texts(g.events)) == ["p0 plays JK, demand 5", "p1 plays AD, blocks"]


def test_dv22_ace_of_spades_blocks_then_any_card():
    g = dv22("AS")
    assert (g.to_play, g.demand) == (2, 0)
    assert names(g) == ["draw", "play 10H", "play 4S", "play 9C", "play QD"]


def test_ace_of_spades_opens_the_play_until_a_card_is_played_on_it():
    g = zim(
        hands=[["AS", "5C"], ["QD", "6D"], ["9C", "4H"], ["KD", "5S"]],
        stock=STOCK[:4],
        discard=["9D", "7H"],
        turn=0,
    )
    act(g, "play AS", "draw", "pass")  # no block: A♠ may be played at any time [003:115]
    assert names(g) == ["draw", "play 4H", "play 9C"]
    act(g, "play 4H")
    assert names(g) == ["draw"]  # KD and 5S do not match 4H


def test_c28_a_settled_joker_admits_only_a_two_a_joker_an_eight_or_the_ace_of_spades():
    g = zim(
        hands=[["JK", "5C"], ["QD", "6D"], ["2D", "8C", "AS", "AH", "JD", "JK"], ["KD", "5S"]],
        stock=STOCK[:4],
        discard=["9D", "7H"],
        turn=0,
    )
    act(g, "play JK", "draw")  # p1 takes the 5
    assert names(g) == ["draw", "play 2D", "play 8C", "play AS", "play JK"]


# --- DV-23 / DV-24 / E-55 / E-59: in air ---------------------------------------------------------


def dv23() -> Game:
    g = zim(
        hands=[["7C"], ["KD", "3D"], ["9C", "9S"], ["QD", "4H"]],
        stock=["10S", "6C", "3H"],
        discard=["2H", "5C"],
        turn=0,
    )
    act(g, "play 7C")
    return g


def test_dv23_last_card_a_seven_goes_in_air_then_draws_and_wins_on_its_next_turn():
    g = dv23()
    assert g.hand_sizes[0] == 0 and not g.results
    assert (g.to_play, names(g)) == (2, ["draw", "play 9C"])  # the 7 skipped p1
    act(g, "play 9C")
    assert g.decision is Decision.MORE
    act(g, "stop")
    act(g, "draw", "pass")  # p3 has nothing on 9C and takes 10S
    assert (g.to_play, names(g)) == (0, ["draw"])  # in air: the turn starts with a draw
    act(g, "draw")
    assert (g.decision, names(g)) == (Decision.PLAY_OR_PASS, ["pass", "play 6C"])
    act(g, "play 6C")  # regular on regular: p0 wins the round
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left == [[], ["3D", "KD"], ["9S"], ["QD", "4H", "10S"]]
    assert r.card_points == r.team_points == [0, 13, 9, 24]
    assert r.eliminated == [3]
    assert last_log(g) == [
        "p0 plays 7C",
        "p0 is in air",
        "p1 is skipped",
        "p2 plays 9C",
        "p3 draws 1",
        "p3 passes",
        "p0 draws 1",
        "p0 plays 6C",
        "p0 goes out",
        "p3 is knocked out",
        "hand 1 scores: p0 +0, p1 +13, p2 +9, p3 +24",
    ]


def test_dv23_in_air_player_draws_one_card_that_scores_when_another_wins():
    g = dv23()
    act(g, "play 9C", "play 9S")  # two 9s at once: the last is regular, on the 7 (shifting)
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 2)
    assert r.cards_left == [["10S"], ["3D", "KD"], [], ["QD", "4H"]]
    assert r.card_points == [10, 13, 0, 14]
    assert r.eliminated == [3]
    assert last_log(g) == [
        "p0 plays 7C",
        "p0 is in air",
        "p1 is skipped",
        "p2 plays 9C",
        "p2 plays 9S",
        "p2 goes out",
        "p0 is in air at the end",
        "p0 draws 1",
        "p3 is knocked out",
        "hand 1 scores: p0 +10, p1 +13, p2 +0, p3 +14",
    ]


def test_dv24_last_card_on_a_served_offensive_card_is_in_air():
    g = zim(
        hands=[["5C"], ["KD", "3D"], ["9S", "4C"], ["QD", "4H"]],
        stock=["10S", "6C"],
        discard=["9D", "2C"],
        turn=0,
    )
    act(g, "play 5C")
    assert not g.results
    assert (g.hand_sizes[0], g.to_play) == (0, 1)
    assert since_setup(texts(g.events)) == ["p0 plays 5C", "p0 is in air"]


def test_e59_last_card_the_ace_of_spades_is_in_air_and_opens_the_next_play():
    g = zim(
        hands=[["AS"], ["KD", "3D"], ["9S", "4C"], ["QD", "4H"]],
        stock=["10S", "6C"],
        discard=["9D", "5C"],
        turn=0,
    )
    act(g, "play AS")
    assert not g.results and g.hand_sizes[0] == 0
    assert names(g) == ["draw", "play 3D", "play KD"]  # any card after A♠


def test_e55_in_air_player_hit_by_an_offensive_card_draws_it_and_is_no_longer_in_air():
    g = zim(
        hands=[["KD", "3D"], ["7H"], ["9S", "4C"], ["2H", "QD"]],
        stock=["10S", "6C", "3C", "5S"],
        discard=["9D", "5H"],
        turn=1,
    )
    act(g, "play 7H")  # p1 in air, skips p2
    act(g, "play 2H")  # p3: p0 must answer
    act(g, "draw")
    assert g.hand(0) == ["6C", "3D", "KD", "10S"]
    assert (g.to_play, names(g)) == (1, ["draw"])
    act(g, "draw")
    assert g.hand(1) == ["3C"]
    assert names(g) == ["pass"]  # 3C is no heart and no 2
    act(g, "pass")
    assert since_setup(texts(g.events)) == [
        "p1 plays 7H",
        "p1 is in air",
        "p2 is skipped",
        "p3 plays 2H, demand 2",
        "p0 draws 2",
        "p0 misses the turn",
        "p1 draws 1",
        "p1 passes",
    ]


def test_e55_in_air_player_facing_a_demand_can_only_draw_it():
    g = zim(
        hands=[["2H", "KD"], [], ["9S", "4C"], ["QD", "4H"]],
        stock=["10S", "6C", "3C"],
        discard=["9D", "5H"],
        turn=0,
    )
    act(g, "play 2H")
    assert (g.to_play, names(g)) == (1, ["draw"])
    act(g, "draw")
    assert (g.hand(1), g.to_play) == (["6C", "10S"], 2)


# --- E-56: the 7 and its deflection ---------------------------------------------------------------


def sevens() -> Game:
    g = zim(
        hands=[["7C", "KD"], ["7D", "KS"], ["9C", "4C"], ["QC", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "5C"],
        turn=0,
    )
    act(g, "play 7C")
    return g


def test_e56_the_skipped_player_may_deflect_with_a_seven():
    g = sevens()
    assert (g.decision, g.to_play, names(g)) == (Decision.DEFLECT, 1, ["pass", "play 7D"])
    act(g, "play 7D")  # the skip passes on to p2, who has no 7
    assert (g.decision, g.to_play) == (Decision.PLAY, 3)
    assert g.hand_sizes == [1, 1, 2, 2]
    assert since_setup(texts(g.events)) == ["p0 plays 7C", "p1 plays 7D", "p2 is skipped"]


def test_e56_declining_to_deflect_takes_the_skip():
    g = sevens()
    act(g, "pass")
    assert (g.decision, g.to_play) == (Decision.PLAY, 2)
    assert since_setup(texts(g.events)) == ["p0 plays 7C", "p1 is skipped"]


def test_e56_deflection_can_come_back_to_the_first_player():
    g = zim(
        3,
        hands=[["7C", "7S", "KD"], ["7D", "KS"], ["9C", "4C"]],
        stock=STOCK[:4],
        discard=["9D", "5C"],
        turn=0,
    )
    act(g, "play 7C", "stop", "play 7D")  # p1 passes it to p2, who has none: p2 skipped
    assert g.to_play == 0
    assert since_setup(texts(g.events)) == ["p0 plays 7C", "p1 plays 7D", "p2 is skipped"]


# --- E-57: the J --------------------------------------------------------------------------------


def jacks() -> Game:
    g = zim(
        hands=[["JC", "5C", "KD"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H", "6D"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play JC")
    assert (g.decision, names(g)) == (Decision.REVERSE, ["reverse once", "reverse permanent"])
    return g


def test_e57_one_turn_reversal_previous_player_plays_then_back_to_the_jack_player():
    g = jacks()
    act(g, "reverse once")
    assert (g.to_play, g.direction) == (3, -1)
    act(g, "play 3C")
    assert (g.to_play, g.direction) == (0, 1)  # the J's player plays again, clockwise
    act(g, "play 5C")
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == [
        "p0 plays JC",
        "direction reversed until p3 has played",
        "p3 plays 3C",
        "direction restored",
        "p0 plays 5C",
    ]


def test_e57_permanent_reversal_lasts():
    g = jacks()
    act(g, "reverse permanent")
    act(g, "play 3C")
    assert (g.to_play, g.direction) == (2, -1)
    act(g, "play 4C")
    assert g.to_play == 1


def test_e57_one_turn_reversal_ends_with_a_pass_too():
    g = jacks()
    act(g, "reverse once", "draw", "pass")
    assert (g.to_play, g.direction) == (0, 1)


# --- E-58: two players ----------------------------------------------------------------------------


@pytest.mark.parametrize("card", ["7C", "JC", "KC"])
def test_e58_two_players_seven_jack_king_play_again(card):
    g = zim(
        2, hands=[[card, "5C", "QD"], ["QC", "KS"]], stock=STOCK[:4], discard=["9D", "6C"], turn=0
    )
    act(g, "play " + card)
    assert (g.decision, g.to_play) == (Decision.PLAY, 0)  # no reversal choice with 2 players
    assert names(g) == ["draw", "play 5C"]


def test_e58_two_players_the_opponent_may_deflect_a_seven_back():
    g = zim(2, hands=[["7C", "5C"], ["7D", "KS"]], stock=STOCK[:4], discard=["9D", "6C"], turn=0)
    act(g, "play 7C", "play 7D")
    assert (g.to_play, g.hand_sizes) == (1, [1, 1])
    assert since_setup(texts(g.events)) == ["p0 plays 7C", "p1 plays 7D", "p0 is skipped"]


# --- K and 8 -------------------------------------------------------------------------------------


def test_king_continue_the_player_plays_again_following_the_king():
    g = zim(
        hands=[["KC", "KH", "9S"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play KC", "stop")
    assert (g.to_play, names(g)) == (0, ["draw", "play KH"])
    act(g, "draw", "pass")  # the extra play is a turn: draw and pass is allowed
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == [
        "p0 plays KC",
        "p0 plays again",
        "p0 draws 1",
        "p0 passes",
    ]


def test_eight_declares_any_suit_even_with_a_matching_card():
    g = zim(
        hands=[["8H", "5C"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 8H")
    assert (g.decision, names(g)) == (Decision.SUIT, ["suit C", "suit D", "suit H", "suit S"])
    act(g, "suit S")
    assert (g.to_play, g.current_suit, names(g)) == (1, "S", ["draw", "play KS"])


def test_eight_on_a_declaring_eight_keeps_its_own_suit():
    g = zim(
        hands=[["8H", "5C"], ["8D", "KS", "QD"], ["9C", "4C"], ["3C", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 8H", "suit S", "play 8D")  # a counter: no declaration [003:83]
    assert (g.decision, g.to_play, g.current_suit) == (Decision.PLAY, 2, "D")
    assert since_setup(texts(g.events)) == [
        "p0 plays 8H",
        "p0 names S",
        "p1 plays 8D",
        "the suit is D",
    ]


# --- E-61 / C-57: several cards of one rank at once ----------------------------------------------


def test_c57_twos_at_once_add_to_the_demand():
    g = zim(
        hands=[["2C", "2D", "2H", "KD"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 2C")
    assert (g.decision, names(g)) == (Decision.MORE, ["play 2D", "play 2H", "stop"])
    act(g, "play 2H", "stop")
    assert (g.to_play, g.demand) == (1, 4)
    assert g.top_card == "2H"


def test_c57_sevens_at_once_skip_one_player_each():
    g = zim(
        hands=[["7C", "7D", "KD"], ["QC", "KS"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 7C", "play 7D")
    assert g.to_play == 3
    assert since_setup(texts(g.events)) == [
        "p0 plays 7C",
        "p0 plays 7D",
        "p1 is skipped",
        "p2 is skipped",
    ]


@pytest.mark.parametrize(
    ("jacks", "direction", "first"),
    [(["JC", "JD"], 1, 1), (["JC", "JD", "JH"], -1, 3)],
)
def test_c57_jacks_at_once_only_their_parity_counts(jacks, direction, first):
    g = zim(
        hands=[[*jacks, "KD"], ["QC", "KS"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, *(f"play {j}" for j in jacks))
    assert (g.decision, g.direction, g.to_play) == (Decision.PLAY, direction, first)


def test_c57_eights_at_once_make_one_declaration():
    g = zim(
        hands=[["8C", "8D", "KD"], ["QC", "KS"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 8C", "play 8D")
    assert g.decision is Decision.SUIT
    act(g, "suit H")
    assert (g.to_play, g.current_suit) == (1, "H")


def test_c57_an_illegal_card_cannot_start_a_group_but_any_suit_may_follow():
    g = zim(
        hands=[["5C", "5D", "5S", "KD"], ["QC", "KS"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK[:3],
        discard=["9D", "6C"],
        turn=0,
    )
    with pytest.raises(IllegalActionError):
        g.apply(parse_action("play 5D"))
    act(g, "play 5C", "play 5D", "play 5S")
    assert (g.to_play, g.current_suit, g.hand(0)) == (1, "S", ["KD"])


# --- starters and the stock -----------------------------------------------------------------------

HANDS = [
    ["KC", "2C", "3C", "4C", "5C"],
    ["9H", "JS", "QS", "KS", "AD"],
    ["6D", "7D", "9D", "10D", "JD"],
    ["3S", "4S", "5S", "6S", "9S"],
]


@pytest.mark.parametrize(
    ("starter", "plays"),
    [
        ("2H", ["9H"]),  # no demand
        ("7H", ["9H"]),  # no skip
        ("JH", ["9H", "JS"]),  # no reversal
        ("KH", ["9H", "KS"]),
        ("AS", ["AD", "JS", "KS", "QS"]),  # no free play
    ],
)
def test_starter_has_no_effect_it_sets_suit_and_rank(starter, plays):
    g = stacked("zimbabwe", 4, HANDS, starter, stock=["10C", "QC"], dealer=0)
    assert (g.decision, g.to_play, g.demand, g.direction) == (Decision.PLAY, 1, 0, 1)
    assert names(g) == ["draw", *(f"play {c}" for c in plays)]
    assert texts(g.events) == ["hand 1: p0 deals 5 cards each", f"p0 turns {starter}"]


def test_joker_starter_first_player_may_play_a_two_a_joker_an_eight_or_the_ace_of_spades():
    hands = [HANDS[0], ["2H", "8S", "AS", "KS", "AD"], HANDS[2], HANDS[3]]
    g = stacked("zimbabwe", 4, hands, "JK", stock=["10C"], dealer=0)
    assert names(g) == ["draw", "play 2H", "play 8S", "play AS"]


def test_empty_stock_reshuffles_without_pressure():
    g = zim(
        hands=[["KD", "3D"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H"]],
        stock=[],
        discard=["9S", "10S", "6C"],
        turn=0,
    )
    act(g, "draw")
    assert g.hand_sizes[0] == 3
    assert (len(g.stock_cards()), g.discard_cards(), g.pressure_count) == (1, ["6C"], [0, 0, 0, 0])
    assert since_setup(texts(g.events)) == ["reshuffle 2", "p0 draws 1"]


def test_e1_a_demand_with_too_few_cards_left_draws_what_there_is():
    g = zim(
        hands=[["JK", "5C"], ["QD", "6D"], ["9C", "4C"], ["KD", "5S"]],
        stock=["3H"],
        discard=["7H"],
        turn=0,
    )
    act(g, "play JK", "draw")
    assert g.hand(1) == ["6D", "QD", "3H", "7H"]  # 3H, then the reshuffled 7H: 2 of 5
    assert (g.to_play, g.demand, g.pressure_count) == (2, 0, [0, 0, 0, 0])
    assert since_setup(texts(g.events)) == [
        "p0 plays JK, demand 5",
        "reshuffle 1",
        "p1 draws 2 of 5: nothing to reshuffle",
        "p1 misses the turn",
    ]


def test_e3_a_named_suit_survives_a_reshuffle():
    g = zim(
        hands=[["KD", "3D"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H"]],
        stock=[],
        discard=["9S", "10S", "8H"],
        turn=0,
        suit="S",
    )
    act(g, "draw")
    assert (g.discard_cards(), g.current_suit, g.top_card) == (["8H"], "S", "8H")
    act(g, "pass")
    assert names(g) == ["draw", "play KS"]


def test_nothing_to_draw_play_or_pass_and_a_round_of_passes_ends_the_round():
    g = zim(
        3,
        hands=[["KD", "3D"], ["QC", "5H"], ["4C", "9H"]],
        stock=[],
        discard=["6S"],
        turn=0,
    )
    assert names(g) == ["pass"]
    act(g, "pass", "pass", "pass")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("stalled", None)
    assert r.card_points == [13, 15, 13]
    assert r.eliminated == [1]
    assert last_log(g) == [
        "p0 passes",
        "p1 passes",
        "p2 passes",
        "nobody can play or draw",
        "p1 is knocked out",
        "hand 1 scores: p0 +13, p1 +15, p2 +13",
    ]


def test_nothing_to_draw_a_player_who_can_play_must():
    g = zim(3, hands=[["KD", "6D"], ["QC", "5H"], ["4C", "9H"]], stock=[], discard=["6S"], turn=0)
    assert names(g) == ["play 6D"]


# --- DV-25 / E-60 / C-25: round scores, elimination, tie-break ------------------------------------


def test_dv25_zimbabwe_hand_value():
    assert score_hand(["AS", "2D", "7C", "8H", "JK", "QS", "5D"], "zimbabwe") == 244
    assert score_hand(["AD", "3C", "KH"], "zimbabwe") == 24


def test_dv25_round_scores_the_hands_left_and_knocks_out_the_highest():
    g = zim(
        hands=[["5C"], ["AS", "2D", "7C", "8H", "JK", "QS", "5D"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 5C")
    r = g.results[-1]
    assert r.card_points == r.team_points == [0, 244, 13, 7]
    assert r.eliminated == [1]
    assert g.scores == [0, 244, 13, 7]
    assert g.active == [True, False, True, True]
    assert not g.game_over
    # the next round is dealt to the three players left, by the next dealer on the left
    assert (g.hand_index, g.dealer, g.hand_sizes) == (1, 2, [5, 0, 5, 5])
    assert g.to_play == 3
    assert (g.next_seat(0), g.prev_seat(2)) == (2, 0)  # turns pass over p1


def test_e60_tie_for_highest_draw_until_one_is_highest():
    g = zim(
        3,
        hands=[["5C"], ["KD", "3D"], ["QH", "3S"]],
        stock=["4H", "4S", "6H", "2H"],
        discard=["9D", "6C"],
        turn=0,
    )
    act(g, "play 5C")
    r = g.results[-1]
    # 13 v 13: both draw (4H, 4S) -> 17 v 17; again (6H, 2H) -> 23 v 42
    assert r.cards_left == [[], ["3D", "KD", "4H", "6H"], ["2H", "QH", "3S", "4S"]]
    assert r.card_points == [0, 23, 42]
    assert r.eliminated == [2]
    assert last_log(g) == [
        "p0 plays 5C",
        "p0 goes out",
        "tie for highest (13): p1, p2",
        "p1 draws 1",
        "p2 draws 1",
        "tie for highest (17): p1, p2",
        "p1 draws 1",
        "p2 draws 1",
        "p2 is knocked out",
        "hand 1 scores: p0 +0, p1 +23, p2 +42",
    ]


def test_e60_tie_with_nothing_to_draw_knocks_out_every_tied_player():
    g = zim(
        hands=[["KD", "3D"], ["QC", "5H"], ["JH", "5D"], ["4C", "9H"]],
        stock=[],
        discard=["6S"],
        turn=0,
    )
    act(g, "pass", "pass", "pass", "pass")
    r = g.results[-1]
    assert (r.ended_by, r.card_points, r.eliminated) == ("stalled", [13, 15, 15, 13], [1, 2])
    assert g.active == [True, False, False, True]
    assert last_log(g)[-6:] == [
        "tie for highest (15): p1, p2",
        "p1 draws 0 of 1: nothing to reshuffle",
        "p2 draws 0 of 1: nothing to reshuffle",
        "p1 is knocked out",
        "p2 is knocked out",
        "hand 1 scores: p0 +13, p1 +15, p2 +15, p3 +13",
    ]
    assert not g.game_over  # p0 and p3 play on


def test_e60_everybody_tied_with_nothing_to_draw_share_the_game():
    g = zim(3, hands=[["KD", "3D"], ["QC", "3H"], ["JH", "3C"]], stock=[], discard=["6S"], turn=0)
    act(g, "pass", "pass", "pass")
    assert g.game_over and not g.truncated
    assert g.results[-1].eliminated == []
    assert g.winners() == [0, 1, 2]
    assert last_log(g)[-2] == "nothing left to draw: p0, p1, p2 share the game"


def test_game_ends_when_one_player_is_left():
    g = zim(2, hands=[["5C"], ["KD", "3D"]], stock=STOCK, discard=["9D", "6C"], turn=0)
    act(g, "play 5C")
    assert g.game_over and not g.truncated
    assert g.results[-1].eliminated == [1]
    assert g.winners() == [0]
    assert g.active == [True, False]


def test_a_whole_game_knocks_out_one_player_a_round():
    g = new_game("zimbabwe", 5, seed=11)
    rng = random.Random(3)
    while not g.game_over:
        g.apply(rng.choice(g.legal_actions()))
    assert not g.truncated
    assert [len(r.eliminated) for r in g.results] == [1, 1, 1, 1]
    assert len(g.winners()) == 1
    assert [r.deal_size for r in g.results] == [5, 5, 5, 5]

"""Scripted deals for ``crazy_eights``, the basic game of [003:22-49].

docs/rules.md vectors TV-18, TV-20, DV-26, DV-27 and edge cases E-62, E-63, E-64 (C-22, C-54),
plus the open-ended game: hands repeat until someone reaches the target, the highest score wins,
and a ``max_hands`` guard truncates. Every test stacks the deck or scripts a position and checks
exact hands, scores, event lines and legal actions.
"""

from __future__ import annotations

import pytest

from crates_env import Decision, Game, IllegalActionError, new_game, parse_action
from crates_env.events import texts

from .scripted import ALL_SUITS, act, last_log, log_texts, names, short_game, since_setup, stacked


def crazy(n=3, **options) -> Game:
    return short_game("crazy_eights", n, schedule=[5], **options)


# --- TV-18: what may follow 6♣ -----------------------------------------------------------------


def test_tv18_legal_plays_on_six_of_clubs_and_voluntary_draw():
    g = crazy()
    g.set_position(
        hands=[["6D", "6H", "6S", "2C", "KC", "8D", "8H", "9D", "QH"], ["KD"], ["QS"]],
        stock=["4H", "5H"],
        discard=["3D", "6C"],
        turn=0,
    )
    # any 6, any club, any 8, or draw even though plays exist
    assert names(g) == [
        "draw",
        "play 2C",
        "play 6D",
        "play 6H",
        "play 6S",
        "play 8D",
        "play 8H",
        "play KC",
    ]
    assert g.decision is Decision.PLAY
    with pytest.raises(IllegalActionError):
        g.apply(parse_action("play 9D"))
    act(g, "play 8H")
    assert (g.decision, g.to_play) == (Decision.SUIT, 0)
    assert names(g) == ALL_SUITS  # any suit may be declared (C-22), the current one included
    act(g, "suit C")
    assert (g.to_play, g.current_suit, g.top_card) == (1, "C", "8H")
    assert since_setup(texts(g.events)) == ["p0 plays 8H", "p0 names C"]


def test_tv18_after_an_eight_follow_the_named_suit_or_play_an_eight():
    g = crazy()
    g.set_position(
        hands=[["5C", "8S", "KH", "9D"], ["KD"], ["QS"]],
        stock=["4H"],
        discard=["3D", "8H"],
        turn=0,
        suit="C",
    )
    assert names(g) == ["draw", "play 5C", "play 8S"]  # not the KH: the 8's rank is no match


def test_c22_eight_must_change_suit_toggle_excludes_the_current_suit():
    g = crazy(crazy_eights_eight_must_change_suit=True)
    g.set_position(
        hands=[["8C", "KH", "9D"], ["KD"], ["QS"]], stock=["4H"], discard=["3D", "6C"], turn=0
    )
    act(g, "play 8C")
    # "(then must declare a different suit)": a suit other than the clubs in play
    assert names(g) == ["suit D", "suit H", "suit S"]


# --- E-64 / C-54: drawing is voluntary and repeatable; the turn ends with a play -----------------


def test_e64_draw_repeatedly_with_a_legal_play_then_play_the_drawn_card():
    g = crazy()
    g.set_position(
        hands=[["6D", "KH"], ["KD"], ["QS"]],
        stock=["7S", "9C", "JD"],
        discard=["3C", "6C"],
        turn=0,
    )
    act(g, "draw")
    assert (g.to_play, g.decision, g.hand(0)) == (0, Decision.PLAY, ["6D", "KH", "7S"])
    assert names(g) == ["draw", "play 6D"]
    act(g, "draw")  # drawing a playable card does not end the turn either
    assert g.hand(0) == ["9C", "6D", "KH", "7S"]
    assert names(g) == ["draw", "play 6D", "play 9C"]
    act(g, "play 9C")
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == ["p0 draws 1", "p0 draws 1", "p0 plays 9C"]


def test_c54_empty_stock_with_a_legal_play_must_play():
    g = crazy()
    g.set_position(hands=[["6D", "KH"], ["KD"], ["QS"]], stock=["7S"], discard=["3C", "6C"], turn=0)
    act(g, "draw")
    assert g.stock_cards() == []
    assert names(g) == ["play 6D"]  # no draw left: the player who can play must
    with pytest.raises(IllegalActionError):
        g.apply(parse_action("draw"))


def test_no_other_card_has_a_function():
    """Only the 8 is special [003:38]: 2, 4, 5, 10 and Q pass the turn on like any card."""
    g = crazy()
    g.set_position(
        hands=[["2C", "4C", "10C", "7C", "JC", "KD"], ["QC", "9C", "KS"], ["5C", "3C", "KH"]],
        stock=["9H", "9S"],
        discard=["3D", "6C"],
        turn=0,
    )
    act(g, "play 2C", "play QC", "play 5C", "play 4C", "play 9C", "play 3C", "play 10C")
    assert (g.to_play, g.direction, g.view(1).count, g.demand) == (1, 1, 0, 0)
    assert g.hand_sizes == [3, 1, 1]
    assert g.stock_cards() == ["9H", "9S"]
    assert since_setup(texts(g.events)) == [
        "p0 plays 2C",
        "p1 plays QC",
        "p2 plays 5C",
        "p0 plays 4C",
        "p1 plays 9C",
        "p2 plays 3C",
        "p0 plays 10C",
    ]


# --- E-62: an 8 as starter ----------------------------------------------------------------------


def test_e62_eight_starter_has_no_declaration_its_printed_suit_stands():
    hands = [
        ["KC", "2C", "3C", "4C", "5C"],
        ["9H", "JS", "QS", "KS", "AD"],
        ["6D", "7D", "9D", "10D", "JD"],
    ]
    g = stacked("crazy_eights", 3, hands, "8H", stock=["2S", "3S"], dealer=0)
    assert (g.decision, g.to_play) == (Decision.PLAY, 1)  # left of the dealer; no suit call
    assert (g.top_card, g.current_suit) == ("8H", "H")
    assert names(g) == ["draw", "play 9H"]
    assert texts(g.events) == ["hand 1: p0 deals 5 cards each", "p0 turns 8H"]


def test_first_player_is_left_of_the_dealer():
    hands = [
        ["KC", "2C", "3C", "4C", "5C"],
        ["9H", "JS", "QS", "KS", "AD"],
        ["6D", "7D", "9D", "10D", "JD"],
    ]
    g = stacked("crazy_eights", 3, hands, "4D", stock=["2S", "3S"], dealer=2)
    assert g.to_play == 0
    assert names(g) == ["draw", "play 4C"]
    assert [sorted(g.hand(s)) for s in range(3)] == [sorted(h) for h in hands]


# --- DV-26: the winner collects; TV-20: the game runs to the target ------------------------------


def test_dv26_winner_collects_the_other_hands_then_the_next_hand_is_dealt():
    g = crazy()
    g.set_position(
        hands=[["5H"], ["8S", "KD", "3C"], ["AH", "9C"]], stock=["2S"], discard=["5C"], turn=0
    )
    act(g, "play 5H")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("out", 0)
    assert r.cards_left == [[], ["3C", "KD", "8S"], ["9C", "AH"]]
    assert r.card_points == [0, 63, 10]
    assert r.team_points == [73, 0, 0]
    assert g.scores == [73, 0, 0]
    assert last_log(g) == ["p0 plays 5H", "p0 goes out", "hand 1 scores: p0 +73, p1 +0, p2 +0"]
    # 73 < 150: hands repeat, the deal moving left
    assert not g.game_over
    assert (g.hand_index, g.dealer, g.deal_size, g.hand_sizes) == (1, 1, 5, [5, 5, 5])
    assert texts(g.events)[0] == "hand 2: p1 deals 5 cards each"
    assert g.to_play == 2


def test_tv20_game_ends_when_a_score_reaches_the_target_highest_wins():
    g = short_game("crazy_eights", 2, schedule=[7])
    assert g.rules.target_score == 100
    g.set_position(hands=[["5H"], ["8S", "KD", "3C"]], stock=["2S"], discard=["5C"], turn=0)
    act(g, "play 5H")
    assert (g.scores, g.game_over) == ([63, 0], False)
    g.set_position(hands=[["QH", "8C", "8D"], ["KH"]], stock=["2S"], discard=["5H"], turn=1)
    act(g, "play KH")
    assert g.results[-1].team_points == [0, 110]
    assert g.scores == [63, 110]
    assert g.game_over and not g.truncated
    assert g.winners() == [1]  # the higher score: points won, not points lost
    assert g.decision is None and g.legal_actions() == []


def test_tv20_equal_scores_at_the_target_share_the_win():
    g = crazy()
    g.set_position(
        hands=[["7C"], ["7D"], ["8C", "8D", "8H", "8S"]], stock=[], discard=["5H"], turn=0
    )
    assert names(g) == ["draw"]
    act(g, "draw")  # blocked: p0 and p1 tie for lowest and each score 193 (E-63)
    assert g.results[-1].team_points == [193, 193, 0]
    assert g.game_over
    assert g.winners() == [0, 1]


# --- DV-27 / E-63: the blocked hand --------------------------------------------------------------


def test_dv27_blocked_hand_lowest_scores_the_differences():
    g = crazy()
    g.set_position(
        hands=[["2C", "KH"], ["KD", "QS", "JH"], ["7C"]], stock=[], discard=["9D", "5D"], turn=0
    )
    assert names(g) == ["draw"]  # cannot play, and the stock is empty
    act(g, "draw")
    r = g.results[-1]
    assert (r.ended_by, r.went_out) == ("blocked", None)
    assert r.card_points == [12, 30, 7]
    assert r.team_points == [0, 0, 28]  # (12 - 7) + (30 - 7)
    assert g.scores == [0, 0, 28]
    assert last_log(g) == [
        "p0 cannot draw: the stock is empty, the hand is blocked",
        "hand 1 scores: p0 +0, p1 +0, p2 +28",
    ]
    assert g.discard_cards() != ["9D", "5D"]  # a new hand is dealt; nothing was reshuffled


def test_e63_blocked_hand_tied_lowest_each_score_the_sum():
    g = crazy()
    g.set_position(
        hands=[["7C"], ["2D", "5H"], ["KD", "QS"]], stock=[], discard=["9D", "3S"], turn=0
    )
    act(g, "draw")
    r = g.results[-1]
    assert r.card_points == [7, 7, 20]
    assert r.team_points == [13, 13, 0]  # (7 - 7) + (20 - 7) each


# --- decks, deals and the hand guard -------------------------------------------------------------


@pytest.mark.parametrize(("n", "deal", "stock"), [(2, 7, 37), (5, 5, 26), (6, 5, 73), (7, 5, 68)])
def test_deal_sizes_and_two_decks_above_five_players(n, deal, stock):
    g = new_game("crazy_eights", n, seed=4)
    assert g.hand_sizes == [deal] * n
    assert len(g.stock_cards()) == stock
    assert g.deck.size == (104 if n > 5 else 52)


def test_two_decks_identical_cards_match_each_other():
    g = short_game("crazy_eights", 6, schedule=[5])
    g.set_position(
        hands=[["7C", "KD"], ["2S"], ["3S"], ["4S"], ["5S"], ["6S"]],
        stock=["9H"],
        discard=["7C"],
        turn=0,
    )
    assert names(g) == ["draw", "play 7C"]


def test_max_hands_guard_truncates_an_open_ended_game():
    g = crazy(max_hands=1)
    g.set_position(hands=[["5H"], ["3C"], ["AH"]], stock=["2S"], discard=["5C"], turn=0)
    act(g, "play 5H")
    assert g.game_over and g.truncated
    assert g.scores == [4, 0, 0]
    assert log_texts(g.hand_logs)[-1][-1] == "game truncated after 1 hands (max_hands guard)"
    assert g.winners() == [0]

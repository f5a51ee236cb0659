"""``misplay_mode="penalize"`` (docs/rules.md P1, §1.12, TV-16, E-6, E-52, C-24, C-36).

Penalised misplays, applied as the seeds say instead of refused:

- kreights + ``kreights_penalty_cards``: playing a held card that is not legal leaves it in the
  hand as an exposed penalty card, which must be played at the first legal opportunity; when
  several are playable the previous player chooses [001:71];
- kreights + ``kreights_revoke_penalty``: drawing while a legal play is available adds
  1,000,000,000 to the score, and the draw happens [001:53];
- creights + ``creights_dumbass_cards``: an illegal play returns the card, draws a dumbass card and
  forfeits the turn (not during a crank); an invalid suit call after a 9 and a needless "one card"
  call each draw a dumbass card [004:23].

``acceptable_actions()`` is the legal actions plus those misplays; anything else (a card not held,
a suit out of a suit decision, a revoke in creights, ...) still raises ``IllegalActionError``.
"""

from __future__ import annotations

import pytest

from crates_env import Decision, Game, IllegalActionError, action_name, new_game, parse_action
from crates_env.events import texts

from .scripted import act, log_texts, names, short_game, since_setup

PENALTY_CARDS = {"misplay_mode": "penalize", "kreights_penalty_cards": True}
REVOKES = {"misplay_mode": "penalize", "kreights_revoke_penalty": True}
DUMBASS = {"misplay_mode": "penalize", "creights_dumbass_cards": True}


def accepted(g: Game) -> list[str]:
    return sorted(action_name(a) for a in g.acceptable_actions())


def misplay(g: Game, name: str) -> None:
    assert name not in g.action_names(), f"{name!r} is legal"
    assert parse_action(name) in g.acceptable_actions(), accepted(g)
    g.apply(parse_action(name))


def refused(g: Game, *names_: str) -> None:
    for name in names_:
        with pytest.raises(IllegalActionError):
            g.apply(parse_action(name))


# --- reject mode ----------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["crates", "kreights", "creights", "zimbabwe"])
def test_reject_mode_accepts_only_legal_actions(preset):
    g = new_game(preset, 3, seed=1)
    assert g.acceptable_actions() == g.legal_actions()


# --- kreights penalty cards (E-52) ---------------------------------------------------------------


def penalty_game() -> Game:
    g = short_game("kreights", 4, schedule=[4], **PENALTY_CARDS)
    g.set_position(
        hands=[
            ["KH", "QH", "7C", "4S"],
            ["7H", "JS", "5D"],
            ["3H", "JC", "6D"],
            ["JH", "9S", "QD"],
        ],
        stock=["2C", "3C", "10C", "KC"],
        discard=["10S", "5C"],
        turn=0,
    )
    return g


def test_e52_an_illegal_card_becomes_a_penalty_card_and_the_turn_goes_on():
    g = penalty_game()
    assert names(g) == ["play 7C"]
    assert accepted(g) == ["play 4S", "play 7C", "play KH", "play QH"]
    misplay(g, "play KH")
    assert (g.to_play, g.decision, g.hand_sizes[0]) == (0, Decision.PLAY, 4)
    assert g.penalty_cards(0) == ["KH"]
    assert names(g) == ["play 7C"]
    assert accepted(g) == ["play 4S", "play 7C", "play QH"]  # KH is on the table already
    refused(g, "play KH", "play 2C", "draw", "announce", "suit H")
    misplay(g, "play QH")
    act(g, "play 7C")
    assert g.penalty_cards(0) == ["QH", "KH"]
    assert since_setup(texts(g.events)) == [
        "p0 plays KH illegally: a penalty card",
        "p0 plays QH illegally: a penalty card",
        "p0 plays 7C",
        "p2 draws 1",
    ]


def test_e52_several_playable_penalty_cards_the_previous_player_chooses():
    g = penalty_game()
    misplay(g, "play KH")
    misplay(g, "play QH")
    act(g, "play 7C", "play 7H", "play 3H", "play JH")
    # hearts on top: both penalty cards can be played; p3 (the previous player) picks
    assert (g.decision, g.turn, g.to_play) == (Decision.PENALTY_CARD, 0, 3)
    assert names(g) == ["play KH", "play QH"]
    assert g.acceptable_actions() == g.legal_actions()
    act(g, "play QH")
    assert (g.decision, g.turn, g.to_play) == (Decision.PLAY, 0, 0)
    assert names(g) == ["play QH"]  # the 4S is not a legal alternative
    act(g, "play QH")
    assert g.hand(0) == ["KH", "4S"]
    assert since_setup(texts(g.events))[-3:] == ["p3 plays JH", "p3 picks QH for p0", "p0 plays QH"]


def test_e52_one_playable_penalty_card_must_be_played_and_counts_for_the_call():
    g = short_game("kreights", 4, schedule=[3], **PENALTY_CARDS)
    g.set_position(
        hands=[["KH", "7C", "QH"], ["7H", "JS", "5D"], ["3H", "JC", "6D"], ["JH", "4C", "QD"]],
        stock=["2C", "3C", "10C", "KC"],
        discard=["10S", "5C"],
        turn=0,
    )
    misplay(g, "play KH")
    act(g, "play 7C", "play 7H", "play 3H", "play JH")
    assert (g.decision, g.to_play, g.hand(0)) == (Decision.PLAY, 0, ["QH", "KH"])
    # not the QH, though it is a legal heart; the penalty card is in a 2-card hand: call due
    assert names(g) == ["announce", "play KH"]
    act(g, "announce", "play KH")
    assert g.penalty_cards(0) == []


def test_e52_penalty_cards_are_scored_with_the_hand():
    g = short_game("kreights", 3, schedule=[2], **PENALTY_CARDS)
    g.set_position(
        hands=[["KH", "7C"], ["KS"], ["QD", "4D"]], stock=["2S"], discard=["3S", "5S"], turn=0
    )
    misplay(g, "play KH")
    act(g, "draw", "play KS")
    r = g.results[-1]
    assert r.cards_left[0] == ["7C", "KH", "2S"]
    assert r.card_points[0] == 15 + 10 + 20


# --- kreights revoke (C-24) ---------------------------------------------------------------------


def test_c24_drawing_with_a_legal_play_is_a_revoke_worth_a_billion():
    g = short_game("kreights", 3, schedule=[2], **REVOKES)
    g.set_position(
        hands=[["KC", "7D"], ["5C", "QH"], ["QD", "4D"]], stock=["2S"], discard=["5S"], turn=1
    )
    assert names(g) == ["announce", "play 5C"]
    assert accepted(g) == ["announce", "draw", "play 5C"]
    refused(g, "play QH")  # illegal cards are not penalised without kreights_penalty_cards
    misplay(g, "draw")
    assert g.hand(1) == ["5C", "QH", "2S"]
    assert g.to_play == 2
    act(g, "draw")  # stock empty: a pressure, nothing to reshuffle: the hand ends
    r = g.results[-1]
    assert r.revoke_points == [0, 1_000_000_000, 0]
    assert r.team_points[1] == 1_000_000_000 + 30 + 10 + 20
    assert g.scores[1] == r.team_points[1]
    assert since_setup(log_texts(g.hand_logs)[-1])[:2] == ["p1 revokes +1000000000", "p1 draws 1"]


def test_c24_revoke_during_the_count_draws_the_count():
    g = short_game("kreights", 3, schedule=[2], **REVOKES)
    g.set_position(
        hands=[["KC", "7D"], ["AC", "QH"], ["QD", "4D"]],
        stock=["2S", "3C", "4C"],
        discard=["3S", "2H"],
        turn=1,
        count=2,
    )
    misplay(g, "draw")
    assert g.hand_sizes[1] == 4
    assert (g.count, g.to_play, g.revoke_points) == (0, 2, [0, 1_000_000_000, 0])


# --- creights dumbass cards (TV-16) ---------------------------------------------------------------


def tv16(stock: list[str], discard: list[str]) -> Game:
    g = short_game("creights", 3, schedule=[3], **DUMBASS)
    g.set_position(
        hands=[["9C", "KD", "5S"], ["QC", "4D"], ["JS", "3H"]],
        stock=stock,
        discard=discard,
        turn=0,
    )
    act(g, "play 9C")
    assert names(g) == ["suit D", "suit H"]  # the colour of the suit in play [004:23]
    assert accepted(g) == ["suit C", "suit D", "suit H", "suit S"]
    return g


def test_tv16_two_invalid_nine_calls_two_dumbass_cards_and_a_pressure():
    g = tv16(stock=["7S"], discard=["2D", "6H"])
    misplay(g, "suit S")
    assert (g.decision, g.to_play, g.stock_cards()) == (Decision.SUIT, 0, [])
    misplay(g, "suit C")
    assert (g.decision, g.to_play) == (Decision.SUIT, 0)  # P must still call hearts or diamonds
    assert names(g) == ["suit D", "suit H"]
    assert g.hand_sizes[0] == 3 - 1 + 2
    assert g.pressure_count == [1, 0, 0]
    assert g.pressure_points == [5, 0, 0]
    assert g.discard_cards() == ["9C"]  # the discard pile minus the 9C was reshuffled
    assert sorted(g.hand(0) + g.stock_cards()) == sorted(["KD", "5S", "7S", "2D", "6H"])
    act(g, "suit H")
    assert g.to_play == 1
    assert since_setup(texts(g.events)) == [
        "p0 plays 9C",
        "p0 names S: not a valid call",
        "p0 takes a dumbass card",
        "p0 draws 1",
        "p0 names C: not a valid call",
        "p0 takes a dumbass card",
        "pressure p0 +5",
        "reshuffle 2",
        "p0 draws 1",
        "p0 names H",
    ]


def test_tv16_dumbass_card_with_nothing_to_reshuffle_ends_the_round():
    g = tv16(stock=[], discard=["6H"])
    misplay(g, "suit S")  # pressure #1, reshuffle 6H, draw it
    misplay(g, "suit C")  # pressure #2 and nothing to reshuffle: the round ends (E-6)
    r = g.results[-1]
    assert (r.ended_by, r.pressures, r.pressure_points) == ("pressure", [2, 0, 0], [15, 0, 0])
    assert r.cards_left[0] == ["KD", "6H", "5S"]


def test_creights_illegal_play_card_returned_dumbass_card_turn_forfeited():
    g = short_game("creights", 3, schedule=[3], **DUMBASS)
    g.set_position(
        hands=[["5S", "KD", "7C"], ["QC", "4D"], ["JS", "3H"]],
        stock=["2S", "3S"],
        discard=["2H", "4C"],
        turn=0,
    )
    assert names(g) == ["play 7C"]
    assert accepted(g) == ["announce", "play 5S", "play 7C", "play KD"]
    refused(g, "draw", "play 5H", "suit S", "stop")  # no revoke penalty in creights
    misplay(g, "play 5S")
    assert g.hand(0) == ["7C", "KD", "2S", "5S"]
    assert (g.to_play, g.decision) == (1, Decision.PLAY)
    assert since_setup(texts(g.events)) == [
        "p0 plays 5S illegally: the card is returned",
        "p0 takes a dumbass card",
        "p0 draws 1",
        "p0 forfeits the turn",
    ]


def test_creights_illegal_play_during_a_crank_keeps_the_turn():
    g = short_game("creights", 3, schedule=[3], **DUMBASS)
    g.set_position(
        hands=[["5S", "KD", "7C"], ["AC", "KS", "QS"], ["JS", "3H"]],
        stock=["KC", "3S"],
        discard=["4H", "2H"],
        turn=1,
        count=2,
    )
    misplay(g, "play KS")
    assert (g.to_play, g.count, g.hand_sizes[1]) == (1, 2, 4)
    assert names(g) == ["play AC"]
    assert since_setup(texts(g.events)) == [
        "p1 plays KS illegally: the card is returned",
        "p1 takes a dumbass card",
        "p1 draws 1",
    ]


def test_creights_needless_one_card_call_draws_a_dumbass_card():
    g = short_game("creights", 3, schedule=[4], **DUMBASS)
    g.set_position(
        hands=[["KD", "QD", "JD", "5D"], ["QC", "4S"], ["JS", "3H"]],
        stock=["2S", "3S"],
        discard=["4H", "9D"],
        turn=0,
        suit="D",
    )
    assert "announce" not in names(g)
    misplay(g, "announce")
    assert (g.to_play, g.decision, g.hand_sizes[0]) == (0, Decision.PLAY, 5)
    assert since_setup(texts(g.events)) == [
        "p0 announces one card needlessly",
        "p0 takes a dumbass card",
        "p0 draws 1",
    ]


def test_kreights_penalises_neither_suit_calls_nor_needless_calls():
    g = short_game("kreights", 3, schedule=[3], **PENALTY_CARDS, kreights_revoke_penalty=True)
    g.set_position(
        hands=[["9C", "KD", "5S"], ["QC", "4D"], ["JS", "3H"]],
        stock=["2S"],
        discard=["2D", "6H"],
        turn=0,
    )
    assert "announce" not in accepted(g)
    refused(g, "announce")
    act(g, "play 9C")
    assert accepted(g) == ["suit D", "suit H"]
    refused(g, "suit C", "suit S", "play KD", "draw")

"""Scripted deals for the Skill-hand World Series [000:154-162] (``skill_hand_world_series``).

Two humans (H1 = seat 0, H2 = seat 1) and the dummy Figgy (seat 2) play three-handed Crates: hands
of 2, 1, 1, 2 cards (TV-28), the humans alternate the deal, Figgy starts at -50 and can win. Figgy's
decisions, suit calls and one-card calls are made by prev(Figgy) in the current direction (E-42),
so ``to_play`` is that controller while ``turn`` is Figgy's; a pressure Figgy would take goes to
the next player to play (C-19, DV-31).
"""

from __future__ import annotations

import random

import pytest

from crates_env import Decision, Game, new_game
from crates_env.events import texts

from .scripted import act, names, short_game, since_setup

H1, H2, FIGGY = 0, 1, 2


def shws(schedule=(2,), dealer=H1) -> Game:
    return short_game("crates", 3, schedule=schedule, dealer=dealer, skill_hand_world_series=True)


# --- TV-28: the start of the game and the deal --------------------------------------------------


def test_tv28_hands_of_2_1_1_2_figgy_at_minus_50_humans_alternate_the_deal():
    g = new_game("crates", skill_hand_world_series=True, seed=5)
    assert g.n == 3
    assert g.scores == [0, 0, -50]
    assert g.rules.schedule == (2, 1, 1, 2)
    assert g.hand_sizes == [2, 2, 2]
    rng = random.Random(5)
    while not g.game_over:
        g.apply(rng.choice(g.legal_actions()))
    assert [r.deal_size for r in g.results] == [2, 1, 1, 2]
    dealers = [r.dealer for r in g.results]
    assert dealers in ([H1, H2, H1, H2], [H2, H1, H2, H1])
    assert g.scores[FIGGY] == -50 + sum(r.team_points[FIGGY] for r in g.results)


@pytest.mark.parametrize("seed", range(8))
def test_tv28_figgy_never_deals_even_when_the_first_dealer_is_drawn(seed):
    g = new_game("crates", 3, seed=seed, skill_hand_world_series=True)
    assert g.dealer in (H1, H2)
    low = new_game("crates", 3, seed=seed, skill_hand_world_series=True, first_dealer="low_card")
    assert low.dealer in (H1, H2)


def test_tv28_figgy_cannot_be_made_dealer():
    with pytest.raises(ValueError, match="dealer must be a seat that deals"):
        new_game("crates", 3, seed=0, dealer=FIGGY, skill_hand_world_series=True)


def test_deal_after_h2_skips_figgy():
    g = shws(schedule=(1, 1, 1), dealer=H2)
    g.set_position(hands=[["KD"], ["KC"], ["QD"]], stock=["2S"], discard=["5C"], turn=H1)
    act(g, "draw", "play KC")  # H2 goes out
    assert g.dealer == H1
    assert texts(g.events)[0] == "hand 2: p0 deals 1 cards each"


# --- E-42: who decides for Figgy ----------------------------------------------------------------


def test_e42_figgys_turn_is_played_by_the_previous_player():
    g = shws()
    g.set_position(
        hands=[["KC", "QC"], ["9H", "5S"], ["9D", "3H"]],
        stock=["2S"],
        discard=["4H", "6H"],
        turn=H2,
    )
    act(g, "announce", "play 9H", "suit H")
    assert (g.turn, g.to_play, g.decision) == (FIGGY, H2, Decision.PLAY)
    assert names(g) == ["announce", "play 3H", "play 9D"]  # Figgy's hand, H2's choice


def test_e42_control_switches_with_the_direction():
    g = shws()
    g.set_position(
        hands=[["10H", "QC"], ["9S", "5S"], ["9D", "3H"]],
        stock=["2S"],
        discard=["4H", "6H"],
        turn=H1,
    )
    act(g, "announce", "play 10H")  # counter-clockwise: Figgy is next and H1 is prev(Figgy)
    assert (g.direction, g.turn, g.to_play) == (-1, FIGGY, H1)


def test_e42_controller_makes_figgys_suit_and_one_card_calls_figgy_draws_the_penalty():
    g = shws(schedule=(3,))
    g.set_position(
        hands=[["QD", "QC", "JC"], ["5H", "JS"], ["8C", "KS"]],
        stock=["2S", "3S", "4S"],
        discard=["4H", "6H"],
        turn=FIGGY,
    )
    assert (g.to_play, names(g)) == (H2, ["announce", "play 8C"])
    act(g, "play 8C")  # without the call: Figgy owes the penalty
    assert (g.decision, g.to_play) == (Decision.SUIT, H2)
    act(g, "suit D")
    act(g, "play QD", "draw")  # H1, then H2 cannot follow diamonds
    assert g.hand(FIGGY) == ["3S", "4S", "KS"]  # Figgy loses its turn and draws two
    assert g.to_play == H1
    assert since_setup(texts(g.events)) == [
        "p2 plays 8C",
        "p2 missed the one-card call",
        "p2 names D",
        "p0 plays QD",
        "p1 draws 1",
        "p2 loses the turn for the missed call",
        "p2 draws 2",
    ]


# --- DV-31 / C-19: Figgy never receives a pressure ------------------------------------------------


def test_dv31_h2s_seven_makes_figgy_draw_from_an_empty_stock_h1_takes_the_pressure():
    g = shws()
    g.set_position(
        hands=[["KC", "QC"], ["7H", "5S"], ["9D", "3C"]], stock=[], discard=["6H"], turn=H2
    )
    act(g, "announce", "play 7H")  # three-hand rule: the next player, Figgy, takes a card
    assert g.hand(FIGGY) == ["3C", "9D", "6H"]
    assert g.pressure_count == [1, 0, 0]
    assert g.pressure_points == [5, 0, 0]
    assert (g.turn, g.to_play) == (FIGGY, H2)  # Figgy plays next, so the pressure is H1's
    assert since_setup(texts(g.events)) == [
        "p1 announces one card",
        "p1 plays 7H",
        "pressure p0 +5 (p2's draw)",
        "reshuffle 1",
        "p2 draws 1",
    ]


def test_c19_figgys_pressure_goes_to_the_next_player_to_play():
    g = shws()
    g.set_position(
        hands=[["JH", "QC"], ["7S", "5S"], ["9D", "3C"]], stock=[], discard=["6H"], turn=H1
    )
    act(g, "announce", "play JH")  # three-hand rule: the previous player, Figgy, takes a card
    assert g.pressure_points == [0, 5, 0]  # H2 plays next
    assert since_setup(texts(g.events))[2] == "pressure p1 +5 (p2's draw)"
    assert (g.turn, g.to_play) == (H2, H2)


def test_c19_figgys_own_draw_pressure_goes_to_the_human_after_figgy():
    g = shws()
    g.set_position(
        hands=[["KC", "QC"], ["7S", "5S"], ["10D", "3C"]],
        stock=[],
        discard=["4H", "6H"],
        turn=FIGGY,
    )
    assert (g.to_play, names(g)) == (H2, ["draw"])
    act(g, "draw")
    assert g.pressure_points == [5, 0, 0]
    assert g.results == []


def test_c19_pressure_that_ends_the_hand_still_goes_to_a_human():
    g = shws()
    g.set_position(
        hands=[["KC", "QC"], ["7S", "5S"], ["10D", "3C"]], stock=[], discard=["6H"], turn=FIGGY
    )
    act(g, "draw")
    r = g.results[-1]
    assert (r.ended_by, r.pressures, r.pressure_points) == ("pressure", [1, 0, 0], [5, 0, 0])
    assert r.team_points == [25, 50, 3]  # KC QC + 5; 7S 5S; 10D covered by 3C


def test_figgy_can_win():
    g = shws()
    g.set_position(
        hands=[["KC", "QC"], ["10S", "5S"], ["3H", "3D"]],
        stock=["2S", "4S"],
        discard=["4H", "6H"],
        turn=FIGGY,
    )
    act(g, "announce", "play 3H", "draw", "draw", "play 3D")
    assert g.game_over
    assert g.scores == [40, 70, -50]
    assert g.winners() == [FIGGY]

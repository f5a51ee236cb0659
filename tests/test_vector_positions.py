"""The compiled engine on the scripted positions of the rules' edge cases.

Each position comes from the reference engine's scripted tests (``test_zimbabwe.py``,
``test_crazy_eights.py``, ``test_misplays.py``): it is loaded into a ``VectorGame`` and the same
actions are played through both engines. After every action the two hold the same game: every
seat's observation, the legal and accepted actions, the seat to play, every card's place (the
hands, the stock in order, the discard pile), the scores and who is still in, and where the
random streams stand. Then the exact outcome the seeds give, read from the compiled game.
"""

from __future__ import annotations

import numpy as np
import pytest

from crates_env import Decision, Game, parse_action
from crates_env.env import legal_mask
from crates_env.observation import Observer
from crates_env.vector import VectorGame
from crates_env.vector.vector_game import game_record

from .scripted import short_game

STOCK = ["6H", "10D", "QH", "2S", "7S", "6S", "10C", "9H", "3H", "5H"]
PENALTY_CARDS = {"misplay_mode": "penalize", "kreights_penalty_cards": True}
REVOKES = {"misplay_mode": "penalize", "kreights_revoke_penalty": True}
DUMBASS = {"misplay_mode": "penalize", "creights_dumbass_cards": True}
# the record's fields that hold the game (the rest is bookkeeping of the turn in progress)
FIELDS = (
    "hand_index", "dealer", "scores", "active", "out_hand", "hands_scored", "counts", "held",
    "sizes", "played", "pressure_points", "direction", "suit", "rank", "free_play", "went_out",
    "count", "penalty_owed", "revoke_points", "exposed", "demand", "skips", "declared", "passes",
    "once_seat", "shared", "seat", "decision", "chooser", "rng",
)  # fmt: skip


def replay(g: Game, *actions: str) -> VectorGame:
    """Load ``g`` into a VectorGame, play ``actions`` (by name) through both engines, and
    hold the two equal before and after each; the VectorGame at the end."""
    r = g.rules
    vg = VectorGame(1, r.preset, r.num_players, autoreset=False, **r.options())
    vg.from_game(g, 0)
    _same_game(g, vg, "the position")
    for name in actions:
        action = parse_action(name)
        assert action in g.acceptable_actions(), f"{name!r}: {g.acceptable_actions()}"
        g.apply(action)
        vg.step([action])
        _same_game(g, vg, f"after {name!r}")
    return vg


def _same_game(g: Game, vg: VectorGame, when: str) -> None:
    ref, got = game_record(g), vg.states[0]
    for name in FIELDS:
        assert np.array_equal(ref[name], got[name]), f"{when}: {name} {ref[name]} {got[name]}"
    for pile, size in (("stock", "n_stock"), ("discard", "n_discard")):
        n = ref[size]
        assert got[size] == n and np.array_equal(ref[pile][:n], got[pile][:n]), f"{when}: {pile}"
    assert vg.game_over[0] == g.game_over, when
    if g.game_over:
        return
    assert vg.to_play[0] == g.to_play, when
    assert np.array_equal(vg.legal_mask()[0], legal_mask(g)), f"{when}: legal"
    accepted = np.zeros(63, dtype=np.int8)
    accepted[g.acceptable_actions()] = 1
    assert np.array_equal(vg.acceptable_mask()[0], accepted), f"{when}: accepted"
    observer = Observer(g.rules)
    for seat in range(g.n):
        seen = vg.observe(np.array([seat]))[0]
        assert np.array_equal(seen, observer.encode(g.view(seat))), f"{when}: seat {seat}"


def zim(n: int = 4, **position) -> Game:
    g = short_game("zimbabwe", n, schedule=[5])
    g.set_position(**position)
    return g


def crazy(n: int = 3, **position) -> Game:
    g = short_game("crazy_eights", n, schedule=[5])
    g.set_position(**position)
    return g


# ---------------------------------------------------------------------- zimbabwe
def test_offensive_cards_stack_and_the_next_player_draws_the_total():
    g = zim(
        hands=[["2H", "5C", "KS"], ["JK", "6D"], ["2C", "9S"], ["KD", "5S", "QD"]],
        stock=["3H", "4H", "5H", "6H", "7C", "8H", "9H", "10H", "JH", "QH"],
        discard=["9D", "7H"],
        turn=0,
    )
    vg = replay(g, "play 2H", "play JK", "play 2C")
    assert vg.states["demand"][0] == 9
    vg = replay(g, "draw")
    assert vg.states["sizes"][0, :4].tolist() == [2, 1, 1, 12] and vg.to_play[0] == 0


@pytest.mark.parametrize("answer", ["pass", "play 7D"])
def test_a_seven_skips_and_the_skipped_player_may_deflect_it(answer):
    g = zim(
        hands=[["7C", "KD"], ["7D", "KS"], ["9C", "4C"], ["QC", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "5C"],
        turn=0,
    )
    vg = replay(g, "play 7C")
    assert (vg.states["decision"][0], vg.to_play[0]) == (Decision.DEFLECT, 1)
    vg = replay(g, answer)
    assert vg.to_play[0] == (2 if answer == "pass" else 3)


@pytest.mark.parametrize(
    ("moves", "direction", "to_play"),
    [
        (["play JC", "reverse once", "play 3C"], 1, 0),  # back to the J's player, clockwise
        (["play JC", "reverse once", "draw", "pass"], 1, 0),
        (["play JC", "reverse permanent", "play 3C"], -1, 2),
    ],
)
def test_a_jack_reverses_for_good_or_for_one_turn(moves, direction, to_play):
    g = zim(
        hands=[["JC", "5C", "KD"], ["QC", "KS"], ["9C", "4C"], ["3C", "4H", "6D"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    vg = replay(g, *moves)
    assert (vg.states["direction"][0], vg.to_play[0]) == (direction, to_play)


@pytest.mark.parametrize(
    ("hand", "moves"),
    [
        (["2C", "2D", "2H", "KD"], ["play 2C", "play 2H", "stop"]),
        (["7C", "7D", "KD"], ["play 7C", "play 7D"]),
        (["JC", "JD", "JH", "KD"], ["play JC", "play JD", "play JH"]),
        (["8C", "8D", "KD"], ["play 8C", "play 8D", "suit H"]),
        (["5C", "5D", "5S", "KD"], ["play 5C", "play 5D", "play 5S"]),
    ],
)
def test_several_cards_of_one_rank_play_as_one_group(hand, moves):
    g = zim(
        hands=[hand, ["QC", "KS"], ["9C", "4C"], ["3D", "4H"]],
        stock=STOCK,
        discard=["9D", "6C"],
        turn=0,
    )
    replay(g, *moves)


def test_an_eight_on_a_declaring_eight_keeps_its_own_suit():
    g = zim(
        hands=[["8H", "5C"], ["8D", "KS", "QD"], ["9C", "4C"], ["3C", "4H"]],
        stock=STOCK[:4],
        discard=["9D", "6C"],
        turn=0,
    )
    vg = replay(g, "play 8H", "suit S", "play 8D")
    assert vg.states["suit"][0] == 1  # diamonds, not the spades named


def test_in_air_then_a_regular_card_wins_and_the_highest_hand_is_knocked_out():
    g = zim(
        hands=[["7C"], ["KD", "3D"], ["9C", "9S"], ["QD", "4H"]],
        stock=["10S", "6C", "3H"],
        discard=["2H", "5C"],
        turn=0,
    )
    vg = replay(g, "play 7C", "play 9C", "stop", "draw", "pass", "draw", "play 6C")
    assert vg.states["active"][0, :4].tolist() == [1, 1, 1, 0]
    assert vg.states["out_hand"][0, 3] == 0
    assert vg.scores[0].tolist() == [0, 13, 9, 24]


def test_a_tie_for_highest_draws_until_one_is_highest():
    g = zim(
        3,
        hands=[["5C"], ["KD", "3D"], ["QH", "3S"]],
        stock=["4H", "4S", "6H", "2H"],
        discard=["9D", "6C"],
        turn=0,
    )
    vg = replay(g, "play 5C")
    assert vg.scores[0].tolist() == [0, 23, 42]
    assert vg.states["active"][0, :3].tolist() == [1, 1, 0]


def test_nothing_to_draw_a_round_of_passes_knocks_out_every_tied_player():
    g = zim(
        hands=[["KD", "3D"], ["QC", "5H"], ["JH", "5D"], ["4C", "9H"]],
        stock=[],
        discard=["6S"],
        turn=0,
    )
    vg = replay(g, "pass", "pass", "pass", "pass")
    assert vg.states["active"][0, :4].tolist() == [1, 0, 0, 1]
    assert not vg.game_over[0]


def test_everybody_tied_with_nothing_to_draw_share_the_game():
    g = zim(3, hands=[["KD", "3D"], ["QC", "3H"], ["JH", "3C"]], stock=[], discard=["6S"], turn=0)
    vg = replay(g, "pass", "pass", "pass")
    assert vg.game_over[0] and vg.winners(0) == [0, 1, 2]


def test_the_game_ends_when_one_player_is_left():
    g = zim(2, hands=[["5C"], ["KD", "3D"]], stock=STOCK, discard=["9D", "6C"], turn=0)
    vg = replay(g, "play 5C")
    assert vg.game_over[0] and vg.winners(0) == [0]


# ---------------------------------------------------------------------- crazy_eights
def test_drawing_is_voluntary_and_repeatable_then_the_drawn_card_is_played():
    g = crazy(
        hands=[["KH", "3D"], ["QS", "JD"], ["4C"]],
        stock=["5D", "6C", "9S"],
        discard=["9D", "6H"],
        turn=0,
    )
    replay(g, "draw", "draw", "play 6C")


def test_an_eight_must_change_suit_when_the_option_says_so():
    g = short_game("crazy_eights", 3, schedule=[5], crazy_eights_eight_must_change_suit=True)
    g.set_position(
        hands=[["8C", "3D"], ["QS", "JD"], ["4C"]], stock=STOCK[1:4], discard=["9D", "6H"], turn=0
    )
    vg = replay(g, "play 8C")
    assert np.flatnonzero(vg.legal_mask()[0]).tolist() == [53, 54, 56]  # not hearts


def test_a_blocked_hand_the_lowest_scores_the_differences():
    g = crazy(
        hands=[["2C", "KH"], ["KD", "QS", "JH"], ["7C"]], stock=[], discard=["9D", "5D"], turn=0
    )
    vg = replay(g, "draw")
    assert vg.scores[0].tolist() == [0, 0, 28]


def test_the_winner_collects_and_the_game_ends_at_the_target():
    g = crazy(2, hands=[["5H"], ["8S", "KD", "3C"]], stock=["2S"], discard=["5C"], turn=0)
    vg = replay(g, "play 5H")
    assert vg.scores[0].tolist() == [63, 0]
    assert not vg.game_over[0]


# ---------------------------------------------------------------------- misplays (penalize)
def test_penalty_cards_stay_face_up_and_the_previous_player_picks_among_them():
    g = short_game("kreights", 4, schedule=[5], **PENALTY_CARDS)
    g.set_position(
        hands=[
            ["KH", "QH", "7C", "4S", "2D"],
            ["7H", "JS", "5D"],
            ["3H", "JC", "6D"],
            ["JH", "4C", "QD"],
        ],
        stock=["2C", "3C", "10C", "KC"],
        discard=["10S", "5C"],
        turn=0,
    )
    vg = replay(g, "play KH", "play QH", "play 7C", "play 7H", "play 3H", "play JH")
    assert (vg.states["decision"][0], vg.to_play[0]) == (Decision.PENALTY_CARD, 3)
    vg = replay(g, "play QH", "play QH")
    assert vg.states["exposed"][0, 0].sum() == 1  # KH is still on the table


def test_a_revoke_costs_a_billion_and_the_draw_happens():
    g = short_game("kreights", 3, schedule=[2], **REVOKES)
    g.set_position(
        hands=[["KC", "7D"], ["5C", "QH"], ["QD", "4D"]], stock=["2S"], discard=["5S"], turn=1
    )
    vg = replay(g, "draw", "draw")
    assert vg.scores[0, 1] == 1_000_000_000 + 30 + 10 + 20


@pytest.mark.parametrize("count", [0, 2])
def test_a_dumbass_card_forfeits_the_turn_unless_in_a_count(count):
    g = short_game("creights", 3, schedule=[3], **DUMBASS)
    g.set_position(
        hands=[["5S", "KD", "7C"], ["AC", "KS", "QS"], ["JS", "3H"]],
        stock=["KC", "3S"],
        discard=["4H", "2H"],
        turn=1,
        count=count,
    )
    vg = replay(g, "play KS")
    assert vg.to_play[0] == (1 if count else 2)


def test_invalid_suit_calls_and_needless_calls_draw_dumbass_cards():
    g = short_game("creights", 3, schedule=[3], **DUMBASS)
    g.set_position(
        hands=[["9C", "KD", "5S"], ["QC", "4D"], ["JS", "3H"]],
        stock=["7S"],
        discard=["2D", "6H"],
        turn=0,
    )
    vg = replay(g, "play 9C", "suit S", "suit C", "suit H", "announce")
    assert vg.pressures_taken[0].tolist() == [1, 0, 0]

"""Rule systems as data: make_ruleset validation and resolved fields (docs/rules.md §1, §1.14,
§2.1)."""

from __future__ import annotations

import dataclasses

import pytest

from crates_env.rules import Ruleset, make_ruleset

ALLOWED_PLAYERS = {
    "crates": (2, 5),
    "chicago1970": (3, 5),
    "kreights": (3, 5),
    "craits": (2, 12),
    "creights": (2, 4),
}
PRESETS = tuple(ALLOWED_PLAYERS)
STANDARD = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)

# Every (preset, allowed player count) pair.
PRESET_PLAYERS = [
    (preset, n) for preset, (lo, hi) in ALLOWED_PLAYERS.items() for n in range(lo, hi + 1)
]
# Every (preset, disallowed player count) pair just outside the range, plus a few odd values.
BAD_PLAYERS = [
    (preset, n)
    for preset, (lo, hi) in ALLOWED_PLAYERS.items()
    for n in sorted({0, 1, lo - 1, hi + 1, hi + 2} - set(range(lo, hi + 1)))
]


# --- building -------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_builds_with_its_defaults(preset):
    rs = make_ruleset(preset)
    assert isinstance(rs, Ruleset)
    assert rs.preset == preset
    assert rs.num_players == 4


def test_default_preset_is_crates_with_four_players():
    rs = make_ruleset()
    assert rs.preset == "crates"
    assert rs.num_players == 4


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_each_allowed_player_count_builds(preset, n):
    rs = make_ruleset(preset, n)
    assert rs.num_players == n
    assert rs.deck.size >= n * max(rs.schedule) + 1


@pytest.mark.parametrize(("preset", "n"), BAD_PLAYERS)
def test_disallowed_player_count_raises_with_allowed_range(preset, n):
    lo, hi = ALLOWED_PLAYERS[preset]
    with pytest.raises(ValueError, match=f"{lo} to {hi} players") as info:
        make_ruleset(preset, n)
    assert repr(preset) in str(info.value)
    assert f"not {n}" in str(info.value)


@pytest.mark.parametrize("n", ["4", 4.0, True])
def test_non_int_player_count_raises(n):
    with pytest.raises(ValueError, match="2 to 5 players"):
        make_ruleset("crates", n)


def test_unknown_preset_lists_valid_presets():
    with pytest.raises(ValueError) as info:
        make_ruleset("bridge")
    message = str(info.value)
    assert "unknown preset 'bridge'" in message
    for preset in (*PRESETS, "crazy_eights", "zimbabwe"):
        assert preset in message
    assert "not implemented yet" not in message


@pytest.mark.parametrize(("preset", "engine"), [("crazy_eights", "eights"), ("zimbabwe", "eights")])
def test_crazy_eights_family_presets_build(preset, engine):
    rs = make_ruleset(preset)
    assert rs.preset == preset
    assert rs.engine == engine
    assert rs.num_players == 4
    assert make_ruleset("crates").engine == "crates"


def test_unknown_option_lists_valid_options():
    with pytest.raises(ValueError) as info:
        make_ruleset("crates", jokers=True)
    message = str(info.value)
    assert "unknown ruleset option(s) 'jokers'" in message
    assert "valid options:" in message
    for name in ("standig_jokers", "pressure_cap_20", "deal_schedule", "misplay_mode"):
        assert name in message


def test_misspelt_adjunct_is_an_unknown_option():
    with pytest.raises(ValueError, match=r"unknown ruleset option.*'standig_joker'"):
        make_ruleset("crates", standig_joker=True)


@pytest.mark.parametrize(
    ("preset", "option", "owners"),
    [
        ("kreights", "standig_jokers", "crates, chicago1970"),
        ("kreights", "pressure_cap_20", "crates, chicago1970, craits, creights"),
        ("creights", "no_kings_queens", "crates, chicago1970, craits"),
        ("crates", "seven_card_format", "kreights"),
        ("craits", "queen_draws_two", "crates, chicago1970"),
        ("crates", "craits_short_game", "craits"),
        ("creights", "kreights_pressure_doubling", "kreights"),
        ("kreights", "craits_three_covers_eight", "craits"),
    ],
)
def test_adjunct_of_another_preset_raises_naming_its_presets(preset, option, owners):
    with pytest.raises(ValueError) as info:
        make_ruleset(preset, **{option: True})
    message = str(info.value)
    assert f"option {option!r} belongs to preset(s) {owners}" in message
    assert repr(preset) in message


def test_adjunct_of_another_preset_switched_off_is_accepted():
    assert make_ruleset("kreights", standig_jokers=False).option("standig_jokers") is False


@pytest.mark.parametrize(
    ("preset", "options", "message"),
    [
        ("crates", {"misplay_mode": "penalize"}, "not available for preset 'crates'"),
        ("zimbabwe", {"misplay_mode": "penalize"}, "not available for preset 'zimbabwe'"),
        (
            "kreights",
            {"misplay_mode": "penalize"},
            "needs at least one penalty: kreights_penalty_cards, kreights_revoke_penalty",
        ),
        ("creights", {"misplay_mode": "penalize"}, "needs at least one penalty: creights_dumbass"),
        ("creights", {"creights_dumbass_cards": True}, "needs misplay_mode='penalize'"),
        ("kreights", {"kreights_penalty_cards": True}, "needs misplay_mode='penalize'"),
        ("kreights", {"kreights_revoke_penalty": True}, "needs misplay_mode='penalize'"),
    ],
)
def test_misplay_penalties_need_penalize_and_penalize_needs_a_penalty(preset, options, message):
    """P1: penalize exists only for kreights and creights, and only with one of their penalties."""
    with pytest.raises(ValueError, match=message):
        make_ruleset(preset, **options)


@pytest.mark.parametrize(
    ("preset", "options", "misplay_card", "revoke_points", "dumbass_calls"),
    [
        ("kreights", {"kreights_penalty_cards": True}, "expose", 0, False),
        ("kreights", {"kreights_revoke_penalty": True}, "", 1_000_000_000, False),
        ("creights", {"creights_dumbass_cards": True}, "dumbass", 0, True),
    ],
)
def test_each_misplay_penalty_option_resolves_to_its_penalty(
    preset, options, misplay_card, revoke_points, dumbass_calls
):
    rs = make_ruleset(preset, misplay_mode="penalize", **options)
    assert (rs.misplay_card, rs.revoke_points, rs.dumbass_calls) == (
        misplay_card,
        revoke_points,
        dumbass_calls,
    )
    assert rs.options() == {"misplay_mode": "penalize", **options}


@pytest.mark.parametrize("preset", PRESETS)
def test_reject_mode_penalises_nothing(preset):
    rs = make_ruleset(preset)
    assert (rs.misplay_mode, rs.misplay_card, rs.revoke_points, rs.dumbass_calls) == (
        "reject",
        "",
        0,
        False,
    )


def test_unknown_misplay_mode_raises():
    with pytest.raises(ValueError, match="misplay_mode 'lenient'"):
        make_ruleset("crates", misplay_mode="lenient")


@pytest.mark.parametrize(
    ("preset", "n", "options", "needed", "have"),
    [
        ("crates", 5, {"deal_schedule": [11]}, 56, 52),
        ("crates", 4, {"deal_schedule": [13]}, 53, 52),
        ("crates", 5, {"deal_schedule": [8, 9, 10, 11]}, 56, 52),
        ("crates", 5, {"deal_schedule": [11], "standig_jokers": True}, 56, 54),
        ("chicago1970", 5, {"no_kings_queens": True, "deal_schedule": [9]}, 46, 44),
        ("craits", 11, {"no_kings_queens": True}, 89, 88),
        ("craits", 12, {"no_kings_queens": True}, 97, 88),
    ],
)
def test_deal_that_does_not_fit_the_deck_raises(preset, n, options, needed, have):
    with pytest.raises(ValueError, match=f"needs {needed} cards, but the deck has {have}"):
        make_ruleset(preset, n, **options)


@pytest.mark.parametrize(
    ("preset", "n", "options"),
    [
        ("crates", 5, {"deal_schedule": [10]}),  # 51 + 1 = 52 cards: exactly fits
        ("crates", 4, {"deal_schedule": [12]}),
        ("crates", 5, {"no_kings_queens": True}),  # 41 of 44 cards (E-2)
        ("crates", 5, {"deal_schedule": [9], "no_kings_queens": True, "standig_jokers": True}),
        ("craits", 10, {"no_kings_queens": True}),  # 81 of 88 cards
        ("craits", 12, {}),  # 97 of 104 cards
    ],
)
def test_deal_that_fits_the_deck_builds(preset, n, options):
    rs = make_ruleset(preset, n, **options)
    assert n * max(rs.schedule) + 1 <= rs.deck.size


@pytest.mark.parametrize("schedule", [[], [0], [8, -1], "8", 8, [8.0]])
def test_bad_deal_schedule_raises(schedule):
    with pytest.raises(ValueError, match="deal_schedule"):
        make_ruleset("crates", deal_schedule=schedule)


def test_custom_deal_schedule_is_used():
    rs = make_ruleset("crates", 4, deal_schedule=[5, 5])
    assert rs.schedule == (5, 5)
    assert rs.option("deal_schedule") == (5, 5)
    assert rs.num_hands == 2


@pytest.mark.parametrize("first_dealer", ["nobody", 4, -1])
def test_bad_first_dealer_raises(first_dealer):
    with pytest.raises(ValueError, match="first_dealer"):
        make_ruleset("crates", 4, first_dealer=first_dealer)


@pytest.mark.parametrize(
    ("preset", "dealer_rule"),
    [
        ("crates", "random"),
        ("chicago1970", "random"),
        ("kreights", "low_card"),
        ("craits", "low_card"),
        ("creights", "random"),
    ],
)
def test_first_dealer_rule_per_preset(preset, dealer_rule):
    assert make_ruleset(preset).dealer_rule == dealer_rule
    assert make_ruleset(preset, first_dealer=2).dealer_rule == 2


# --- partnerships ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_partnerships_only_in_four_player_crates(preset, n):
    rs = make_ruleset(preset, n)
    assert rs.partnerships is (preset == "crates" and n == 4)
    assert rs.num_teams == (2 if rs.partnerships else n)


def test_team_of_in_four_player_crates_pairs_opposite_seats():
    rs = make_ruleset("crates", 4)
    assert [rs.team_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert rs.num_teams == 2


@pytest.mark.parametrize(("preset", "n"), [("crates", 3), ("crates", 5), ("chicago1970", 4)])
def test_team_of_without_partnerships_is_the_seat(preset, n):
    rs = make_ruleset(preset, n)
    assert [rs.team_of(seat) for seat in range(n)] == list(range(n))


# --- decks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_decks_per_preset_and_player_count(preset, n):
    rs = make_ruleset(preset, n)
    two_decks = (preset == "kreights" and n == 5) or (preset == "craits" and n >= 6)
    assert rs.decks == (2 if two_decks else 1)
    assert rs.deck.size == (104 if two_decks else 52)
    assert rs.jokers == 0


def test_kreights_five_players_uses_104_cards():
    rs = make_ruleset("kreights", 5)
    assert rs.decks == 2
    assert rs.deck.size == 104


@pytest.mark.parametrize(("n", "size"), [(5, 52), (6, 104), (12, 104)])
def test_craits_two_decks_from_six_players(n, size):
    assert make_ruleset("craits", n).deck.size == size


def test_crates_five_players_uses_one_deck():
    assert make_ruleset("crates", 5).deck.size == 52


@pytest.mark.parametrize(
    ("preset", "options", "size"),
    [
        ("crates", {"standig_jokers": True}, 54),
        ("chicago1970", {"standig_jokers": True}, 54),
        ("crates", {"no_kings_queens": True}, 44),
        ("crates", {"no_kings_queens": True, "standig_jokers": True}, 46),
        ("craits", {"no_kings_queens": True}, 44),
    ],
)
def test_deck_adjuncts_set_the_deck_size_and_the_jokers(preset, options, size):
    rs = make_ruleset(preset, 4, **options)
    assert rs.deck.size == size
    assert rs.jokers == (2 if options.get("standig_jokers") else 0)


# --- who a 7 and a J hit --------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_a_seven_hits_the_next_player_in_small_games_except_kreights(preset, n):
    expected = "next" if n <= 3 and preset != "kreights" else "nbo"
    assert make_ruleset(preset, n).seven_hits == expected


@pytest.mark.parametrize(
    ("preset", "n", "seven_hits"),
    [
        ("crates", 2, "next"),
        ("crates", 3, "next"),
        ("crates", 4, "nbo"),
        ("crates", 5, "nbo"),
        ("chicago1970", 3, "next"),
        ("chicago1970", 4, "nbo"),
        ("kreights", 3, "nbo"),  # DV-05: in 3p, nbo(p) is prev(p)
        ("kreights", 4, "nbo"),
        ("craits", 3, "next"),
        ("craits", 6, "nbo"),
        ("creights", 2, "next"),
        ("creights", 4, "nbo"),  # TV-30: the player across
    ],
)
def test_who_a_seven_hits_by_preset_and_player_count(preset, n, seven_hits):
    assert make_ruleset(preset, n).seven_hits == seven_hits


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_jack_hits_prev_only_in_small_crates_chicago_creights(preset, n):
    expected = n <= 3 and preset in ("crates", "chicago1970", "creights")
    assert make_ruleset(preset, n).jack_hits_prev is expected


@pytest.mark.parametrize(
    ("preset", "n", "jack_hits_prev"),
    [
        ("crates", 2, True),
        ("crates", 3, True),
        ("crates", 4, False),
        ("chicago1970", 3, True),
        ("chicago1970", 5, False),
        ("creights", 3, True),
        ("kreights", 3, False),
        ("craits", 2, False),
        ("craits", 3, False),
    ],
)
def test_whether_a_jack_hits_the_previous_player_by_preset_and_player_count(
    preset, n, jack_hits_prev
):
    assert make_ruleset(preset, n).jack_hits_prev is jack_hits_prev


# --- pressure -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "options", "pressure"),
    [
        ("crates", {}, "double"),
        ("chicago1970", {}, "double"),
        ("kreights", {}, "flat5"),
        ("craits", {}, "double"),
        ("creights", {}, "double"),
        ("crates", {"pressure_cap_20": True}, "cap20"),
        ("chicago1970", {"pressure_cap_20": True}, "cap20"),
        ("craits", {"pressure_cap_20": True}, "cap20"),
        ("creights", {"pressure_cap_20": True}, "cap20"),
        ("kreights", {"kreights_pressure_doubling": True}, "double"),
    ],
)
def test_each_preset_resolves_its_pressure_progression(preset, options, pressure):
    assert make_ruleset(preset, **options).pressure == pressure


# --- three scoring and points ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "options", "three_scoring"),
    [
        ("crates", {}, "crates"),
        ("crates", {"standig_jokers": True}, "crates"),
        ("chicago1970", {}, "crates"),
        ("kreights", {}, "kreights"),
        ("kreights", {"kreights_three_mutual_cancel": False}, "crates"),
        ("craits", {}, "crates"),
        ("craits", {"craits_punitive_threes": True}, "punitive"),
        ("craits", {"craits_three_covers_eight": True}, "cover8"),
        (
            "craits",
            {"craits_punitive_threes": True, "craits_three_covers_eight": True},
            "punitive_cover8",
        ),
        ("creights", {}, "punitive"),
    ],
)
def test_each_preset_resolves_its_three_scoring_algorithm(preset, options, three_scoring):
    assert make_ruleset(preset, **options).three_scoring == three_scoring


def test_kreights_three_mutual_cancel_is_on_by_default_only_in_kreights():
    assert make_ruleset("kreights").option("kreights_three_mutual_cancel") is True
    assert make_ruleset("crates").option("kreights_three_mutual_cancel") is False


# A 2 3 4 5 6 7 8 9 10 J Q K Joker (docs/rules.md §1.8)
CRATES_POINTS = (1, 20, 3, 15, 30, 30, 20, 50, 30, 25, 10, 10, 10, 40)


@pytest.mark.parametrize(
    ("preset", "points"),
    [
        ("crates", CRATES_POINTS),
        ("chicago1970", CRATES_POINTS),
        ("kreights", (1, 20, 3, 20, 30, 30, 15, 50, 40, 25, 10, 10, 10, 40)),
        ("craits", CRATES_POINTS),
        ("creights", (1, 20, 3, 15, 30, 30, 25, 50, 30, 25, 10, 10, 10, 40)),
    ],
)
def test_each_preset_resolves_its_point_table(preset, points):
    assert make_ruleset(preset).points == points


@pytest.mark.parametrize(
    ("preset", "raw_total"),
    [
        ("crates", 1016),
        ("chicago1970", 1016),
        ("kreights", 1056),
        ("craits", 1016),
        ("creights", 1036),
    ],
)
def test_raw_total_of_52_cards(preset, raw_total):
    # docs/rules.md §1.8 last row: four of each rank A..K.
    assert 4 * sum(make_ruleset(preset).points[:13]) == raw_total


# --- other resolved fields ------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_specific_rules_are_on_only_in_their_preset(preset):
    rs = make_ruleset(preset)
    assert rs.stars is (preset == "kreights")
    assert rs.nine_starter_any_suit is (preset == "creights")
    assert rs.one_card_per_turn is (preset == "creights")
    assert rs.one_card_last_six is (preset == "chicago1970")
    assert rs.penalty_drawn_at_end is (preset in ("kreights", "creights"))
    assert rs.count_continues_hand is (preset == "creights")
    assert rs.low_card_ties == ("redraw" if preset == "craits" else "suit")


def test_craits_continue_after_count_makes_the_count_continue_the_hand():
    assert make_ruleset("craits", craits_continue_after_count=True).count_continues_hand is True


# --- deal schedules -------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "n"), PRESET_PLAYERS)
def test_tv26_standard_schedule_15_hands_71_cards(preset, n):
    rs = make_ruleset(preset, n)
    assert rs.schedule == STANDARD
    assert rs.num_hands == 15
    assert sum(rs.schedule) == 71
    assert rs.option("deal_schedule") is None


def test_tv26_skill_hands_are_hands_6_to_10():
    assert make_ruleset("crates").schedule[5:10] == (3, 2, 1, 2, 3)


@pytest.mark.parametrize(
    ("n", "schedule", "hands"),
    [
        (3, (7, 6, 5, 4, 3, 2, 1, 1, 1, 2, 3, 4, 5, 6, 7), 15),
        (4, (7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7), 16),
        (5, (7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7), 17),
    ],
)
def test_tv27_kreights_seven_card_format(n, schedule, hands):
    rs = make_ruleset("kreights", n, seven_card_format=True)
    assert rs.schedule == schedule
    assert rs.num_hands == hands


def test_craits_short_game_is_eight_down_to_one():
    for n in (2, 5, 12):
        rs = make_ruleset("craits", n, craits_short_game=True)
        assert rs.schedule == (8, 7, 6, 5, 4, 3, 2, 1)
        assert rs.num_hands == 8


# --- immutability and options round trip ----------------------------------------------------------


def test_ruleset_is_frozen():
    rs = make_ruleset("crates")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.num_players = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.pressure = "flat5"  # type: ignore[misc]


def test_make_ruleset_is_deterministic_and_equal():
    assert make_ruleset("craits", 6, craits_face_cards=True) == make_ruleset(
        "craits", 6, craits_face_cards=True
    )
    assert make_ruleset("craits", 6) != make_ruleset("craits", 7)


@pytest.mark.parametrize("preset", PRESETS)
def test_default_ruleset_has_no_options(preset):
    assert make_ruleset(preset).options() == {}


@pytest.mark.parametrize(
    ("preset", "n", "options"),
    [
        ("crates", 4, {"standig_jokers": True, "pressure_cap_20": True}),
        ("crates", 3, {"queen_draws_two": True, "no_kings_queens": True}),
        ("crates", 4, {"deal_schedule": (5, 4, 3), "first_dealer": 1}),
        ("chicago1970", 5, {"misplay_mode": "reject", "max_decisions_per_hand": 500}),
        ("kreights", 3, {"seven_card_format": True, "kreights_mulligan": (0, 2)}),
        ("kreights", 4, {"kreights_three_mutual_cancel": False}),
        ("kreights", 5, {"kreights_pressure_doubling": True, "kreights_barometer": True}),
        ("craits", 7, {"craits_short_game": True, "craits_three_covers_eight": True}),
        ("creights", 2, {"first_dealer": "low_card"}),
    ],
)
def test_options_with_options_round_trip(preset, n, options):
    rs = make_ruleset(preset, n, **options)
    expected = {k: v for k, v in options.items() if k != "misplay_mode"}  # "reject" is the default
    assert rs.options() == expected
    assert make_ruleset(preset, n, **rs.options()) == rs
    assert rs.with_options() == rs


def test_with_options_returns_a_new_validated_ruleset():
    rs = make_ruleset("crates", 3, standig_jokers=True)
    capped = rs.with_options(pressure_cap_20=True)
    assert capped.pressure == "cap20"
    assert capped.option("standig_jokers") is True
    assert capped.num_players == 3
    assert capped.deck.size == 54
    assert rs.pressure == "double"  # the original is untouched
    assert capped.options() == {"standig_jokers": True, "pressure_cap_20": True}
    assert capped.with_options(pressure_cap_20=False) == rs


def test_with_options_validates():
    rs = make_ruleset("kreights", 3)
    with pytest.raises(ValueError, match="belongs to preset"):
        rs.with_options(standig_jokers=True)
    with pytest.raises(ValueError, match="unknown ruleset option"):
        rs.with_options(nonsense=1)


def test_kreights_mulligan_is_stored_as_a_tuple_of_seats():
    rs = make_ruleset("kreights", 4, kreights_mulligan=[1, 3])
    assert rs.option("kreights_mulligan") == (1, 3)
    with pytest.raises(ValueError, match="kreights_mulligan"):
        make_ruleset("kreights", 4, kreights_mulligan=[4])
    with pytest.raises(ValueError, match="kreights_mulligan"):
        make_ruleset("kreights", 4, kreights_mulligan=2)


def test_describe_is_plain_data_without_the_deck():
    d = make_ruleset("crates").describe()
    assert "deck" not in d
    assert d["preset"] == "crates"
    assert d["schedule"] == STANDARD


# --- crazy_eights and zimbabwe (docs/rules.md §1, TV-20, DV-25) --------------------------------


@pytest.mark.parametrize(("preset", "lo", "hi"), [("crazy_eights", 2, 7), ("zimbabwe", 2, 7)])
def test_eights_family_player_counts(preset, lo, hi):
    for n in range(lo, hi + 1):
        assert make_ruleset(preset, n).num_players == n
    for n in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match=f"{lo} to {hi} players"):
            make_ruleset(preset, n)


@pytest.mark.parametrize(
    ("n", "target"), [(2, 100), (3, 150), (4, 200), (5, 250), (6, 300), (7, 350)]
)
def test_tv20_crazy_eights_target_score(n, target):
    rs = make_ruleset("crazy_eights", n)
    assert rs.target_score == target
    assert rs.game_end == "target"
    assert rs.point_sign == 1  # points are won: the highest score wins
    assert rs.num_hands is None  # hands repeat until the target


@pytest.mark.parametrize(("n", "deal", "size"), [(2, 7, 52), (3, 5, 52), (5, 5, 52), (6, 5, 104)])
def test_crazy_eights_deal_and_decks(n, deal, size):
    rs = make_ruleset("crazy_eights", n)
    assert rs.schedule == (deal,)
    assert rs.deck.size == size
    assert rs.jokers == 0


def test_crazy_eights_resolves_its_points_draws_and_winner_collecting():
    rs = make_ruleset("crazy_eights", 3)
    assert rs.points == (1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10, 0)
    assert rs.three_scoring == "none"
    assert rs.pressure == "none"
    assert rs.empty_stock == "blocked"
    assert rs.draw_rule == "until_play"
    assert rs.hand_scoring == "winner_collects"
    assert len(rs.card_roles) == len(rs.demands) == 14  # A..K, Joker
    assert rs.card_roles[7] == "declare"
    assert set(rs.card_roles) == {"", "declare"}
    assert rs.wild_kinds == (7, 20, 33, 46)  # the four 8s
    assert rs.eight_must_change_suit is False
    assert make_ruleset("crazy_eights", crazy_eights_eight_must_change_suit=True).options() == {
        "crazy_eights_eight_must_change_suit": True
    }


@pytest.mark.parametrize(
    ("n", "options", "size", "jokers", "deal"),
    [
        (4, {}, 54, 2, 5),
        (4, {"zimbabwe_jokers": 0}, 52, 0, 5),
        (3, {"zimbabwe_jokers": 4, "deal_size": 8}, 56, 4, 8),
        (6, {}, 108, 4, 5),  # two packs, each with its Jokers
        (7, {"deal_size": 8}, 108, 4, 8),
    ],
)
def test_zimbabwe_deck_and_deal(n, options, size, jokers, deal):
    rs = make_ruleset("zimbabwe", n, **options)
    assert rs.deck.size == size
    assert rs.jokers == jokers
    assert rs.schedule == (deal,)
    assert rs.options() == options


def test_zimbabwe_resolves_its_jokers_deal_and_elimination():
    rs = make_ruleset("zimbabwe")
    assert (rs.option("zimbabwe_jokers"), rs.option("deal_size")) == (2, 5)
    assert rs.options() == {}
    assert rs.game_end == "last_player"
    assert rs.hand_scoring == "eliminate_highest"
    assert rs.point_sign == -1  # hand totals are a cost (the highest is knocked out)
    assert rs.empty_stock == "reshuffle"
    assert rs.draw_rule == "one_then_pass"
    assert rs.multi_card_plays and rs.in_air and rs.eight_counter_keeps_suit
    assert len(rs.card_roles) == len(rs.demands) == 14  # A..K, Joker
    assert rs.card_roles == (
        "defensive", "offensive", "", "", "", "", "skip", "declare", "", "", "reverse", "",
        "continue", "offensive",
    )  # fmt: skip
    assert rs.demands[1] == 2 and rs.demands[13] == 5
    assert rs.num_hands is None


def test_dv25_zimbabwe_points_ace_of_spades_100():
    rs = make_ruleset("zimbabwe")
    assert rs.points == (11, 25, 3, 4, 5, 6, 14, 40, 9, 10, 10, 10, 10, 50)
    assert rs.kind_points[39] == 100  # A♠
    assert rs.kind_points[0] == rs.kind_points[13] == rs.kind_points[26] == 11
    assert rs.kind_points[52] == 50


@pytest.mark.parametrize("deal_size", [4, 9, 0, "5", True, None])
def test_zimbabwe_deal_size_is_five_to_eight(deal_size):
    with pytest.raises(ValueError, match="deal_size must be an int from 5 to 8"):
        make_ruleset("zimbabwe", deal_size=deal_size)


@pytest.mark.parametrize("jokers", [-1, "2", True])
def test_zimbabwe_jokers_must_be_a_count(jokers):
    with pytest.raises(ValueError, match="zimbabwe_jokers"):
        make_ruleset("zimbabwe", zimbabwe_jokers=jokers)


@pytest.mark.parametrize(
    ("preset", "option"),
    [
        ("crates", "zimbabwe_jokers"),
        ("crazy_eights", "deal_size"),
        ("zimbabwe", "crazy_eights_eight_must_change_suit"),
    ],
)
def test_eights_options_belong_to_their_preset(preset, option):
    with pytest.raises(ValueError, match=f"option {option!r} belongs to preset"):
        make_ruleset(preset, **{option: 6})


def test_max_hands_guard_option():
    assert make_ruleset("crazy_eights").max_hands == 1000
    assert make_ruleset("crazy_eights", max_hands=5).options() == {"max_hands": 5}
    with pytest.raises(ValueError, match="max_hands must be a positive int"):
        make_ruleset("zimbabwe", max_hands=0)


# --- skill_hand_world_series (TV-28) ------------------------------------------------------------


def test_tv28_skill_hand_world_series_ruleset():
    rs = make_ruleset("crates", skill_hand_world_series=True)
    assert rs.num_players == 3  # H1 = 0, H2 = 1, Figgy = 2
    assert rs.schedule == (2, 1, 1, 2)
    assert rs.dealer_seats == (0, 1)
    assert rs.dummy_seat == 2
    assert rs.initial_scores == (0, 0, -50)
    assert (rs.seven_hits, rs.jack_hits_prev, rs.partnerships) == ("next", True, False)
    assert rs.options() == {"skill_hand_world_series": True}
    assert make_ruleset("crates", 3).initial_scores == (0, 0, 0)
    assert make_ruleset("crates", 3).dummy_seat is None


@pytest.mark.parametrize("n", [2, 4, 5])
def test_skill_hand_world_series_is_three_hands(n):
    with pytest.raises(ValueError, match="num_players must be 3"):
        make_ruleset("crates", n, skill_hand_world_series=True)


def test_skill_hand_world_series_figgy_never_deals():
    with pytest.raises(ValueError, match="seat 2 never deals"):
        make_ruleset("crates", skill_hand_world_series=True, first_dealer=2)


def test_a_side_is_the_seat_and_its_partner_in_partnership_crates():
    partners = make_ruleset("crates", 4)
    assert [partners.side_of(s) for s in range(4)] == [(0, 2), (1, 3), (0, 2), (1, 3)]
    assert [make_ruleset("crates", 3).side_of(s) for s in range(3)] == [(0,), (1,), (2,)]
    assert make_ruleset("crazy_eights", 4).side_of(2) == (2,)

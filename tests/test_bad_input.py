"""Bad input to the engine and the environment: a clear ValueError, and nothing changed.

Hypothesis throws values of every type (None, bools, huge and negative ints, NaN, strings that
look true or false, bytes, lists, dicts, numpy scalars, plain objects) at every ruleset option,
every argument of ``new_game``, ``set_position``, ``resample_hidden`` and ``view``, every
constructor argument of ``raw_env``/``env()``, every reset option and every action. Only
``ValueError`` (``IllegalActionError`` is one) may come out, an accepted option holds a value of
its own type, and a refused call leaves the game or the environment exactly as it was. The cases
the hostile trial of the bad-input issue found are tested one by one below.
"""

from __future__ import annotations

import contextlib
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crates_env import NUM_ACTIONS, Decision, crates_v0, make_ruleset, new_game
from crates_env.env import raw_env
from crates_env.rules import (
    GENERAL_OPTIONS,
    OPTION_NAMES,
    OPTIONS,
    PRESETS,
    option_owners,
    player_counts,
)
from crates_env.wrappers import CratesGymEnv

from .scripted import snapshot

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-3, max_value=70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "no", "false", "yes", "2", "AS", "player_0", "crates", "draw"]),
    st.text(max_size=4),
    st.binary(max_size=3),
    st.lists(st.integers(min_value=-2, max_value=60), max_size=4),
    st.lists(st.sampled_from(["AS", "10H", "JK", "XX"]), max_size=3),
    st.dictionaries(st.integers(), st.integers(), max_size=2),
    st.tuples(st.integers(min_value=-2, max_value=9)),
    st.sampled_from([np.int64(3), np.float64(1.0), np.bool_(True), object()]),
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DEFAULTS = {**GENERAL_OPTIONS, **{name: option.off for name, option in OPTIONS.items()}}
ENV_ARGUMENTS = (
    "preset", "num_players", "render_mode", "reward_mode", "reward_scale", "one_card",
    "reward_timing", "illegal", "illegal_reward", "standig_jokers", "deal_schedule",
)  # fmt: skip
ENV_ARGUMENTS = (
    "preset", "num_players", "render_mode", "reward_mode", "reward_scale", "one_card",
    "reward_timing", "illegal", "illegal_reward", "standig_jokers", "deal_schedule",
)  # fmt: skip


def _owner(option: str) -> tuple[str, int]:
    preset = (option_owners(option) or ("kreights",))[0]
    return preset, 3 if option == "skill_hand_world_series" else min(player_counts(preset))


def env_state(env: raw_env) -> tuple:
    """What an agent can read from the environment, and the game behind it."""
    return (
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        {a: dict(i) for a, i in env.infos.items()},
        dict(env.terminations),
        dict(env.truncations),
        snapshot(env.game),
    )


# --- everything, everywhere -----------------------------------------------------------------------


@SETTINGS
@given(option=st.sampled_from(sorted(OPTION_NAMES)), value=ANYTHING, foreign=st.booleans())
def test_any_value_of_any_option_is_taken_as_its_type_or_refused(option, value, foreign):
    preset, n = _owner(option)
    foreign = foreign and option in OPTIONS
    if foreign:  # the option on a preset it does not belong to
        preset = next(p for p in PRESETS if p not in option_owners(option))
        n = min(player_counts(preset))
    try:
        rules = make_ruleset(preset, n, **{option: value})
    except ValueError:
        return
    held, default = rules.option(option), DEFAULTS[option]
    if isinstance(default, bool):
        assert type(held) is bool and held == value
    elif option in ("zimbabwe_jokers", "max_hands", "max_decisions_per_hand"):
        assert type(held) is int and held == value
    if foreign:
        assert held == default or (option == "deal_schedule" and held is None)


@SETTINGS
@given(
    argument=st.sampled_from(["seed", "dealer", "deck", "hand_index", "num_players", "rules"]),
    value=ANYTHING,
)
def test_any_game_argument_builds_a_game_or_raises_value_error(argument, value):
    kwargs = {"rules": "crates", "num_players": 4, argument: value}
    rules, n = kwargs.pop("rules"), kwargs.pop("num_players")
    try:
        g = new_game(rules, n, **kwargs)
    except ValueError:
        return
    assert not g.game_over or g.results  # a real game


@SETTINGS
@given(
    argument=st.sampled_from(["hands", "stock", "discard", "turn", "suit", "direction", "count"]),
    value=ANYTHING,
    family=st.sampled_from(["crates", "zimbabwe"]),
)
def test_a_refused_position_changes_nothing(argument, value, family):
    g = new_game(family, 4, seed=3)
    position = {
        "hands": [["AS"], ["2S", "3C"], ["3S"], ["4S"]],
        "stock": ["5H", "6H"],
        "discard": ["5S"],
        "turn": 1,
    }
    position["demand" if argument == "count" and family == "zimbabwe" else argument] = value
    before = snapshot(g)
    try:
        g.set_position(**position)
    except ValueError:
        assert snapshot(g) == before


@SETTINGS
@given(seat=ANYTHING, rng=st.sampled_from([None, 3, "rng", np.random.default_rng(0)]))
def test_views_and_resamples_take_a_seat_or_refuse(seat, rng):
    g = new_game("crates", 4, seed=2)
    before = snapshot(g)
    for call in (lambda: g.view(seat), lambda: g.resample_hidden(seat, rng)):
        with contextlib.suppress(ValueError):
            call()
    assert snapshot(g) == before


@SETTINGS
@given(
    argument=st.sampled_from(ENV_ARGUMENTS),
    value=ANYTHING,
)
def test_any_environment_argument_builds_an_environment_or_raises_value_error(argument, value):
    try:
        env = crates_v0.env(**{argument: value})
    except ValueError:
        return
    env.reset(seed=0)
    assert env.agents


@SETTINGS
@given(
    argument=st.sampled_from(
        ["learner_seat", "opponents", "partner_is_learner", "illegal_action", "illegal_reward"]
    ),
    value=ANYTHING,
    seed=ANYTHING,
)
def test_any_gymnasium_wrapper_argument_works_or_raises_value_error(argument, value, seed):
    try:
        env = CratesGymEnv(deal_schedule=[2, 1], **{argument: value})
        env.reset(seed=seed)
    except ValueError:
        return
    env.step(int(np.flatnonzero(env.action_masks())[0]))


@SETTINGS
@given(seed=ANYTHING, dealer=ANYTHING, deck=ANYTHING, which=st.sampled_from(["seed", "options"]))
def test_a_refused_reset_leaves_the_environment_as_it_was(seed, dealer, deck, which):
    env = raw_env(deal_schedule=[4, 2])
    env.reset(seed=5)
    env.step(env.game.legal_actions()[0])
    before = env_state(env)
    try:
        if which == "seed":
            env.reset(seed=seed)
        else:
            env.reset(options={"dealer": dealer, "deck": deck})
    except ValueError:
        assert env_state(env) == before
        env.reset()  # the env's own stream of games is where it was
        twin = raw_env(deal_schedule=[4, 2])
        twin.reset(seed=5)
        twin.reset()
        assert env.game.hand(0) == twin.game.hand(0)


@pytest.mark.parametrize("illegal", ["raise", "terminate"])
@pytest.mark.parametrize(
    ("seed", "options"),
    [(1, {"dealer": 9}), (-1, None), ("7", None), (1, {"deck": ["ZZ"]}), (1, "dealer")],
)
def test_a_refused_first_reset_of_the_wrapped_env_leaves_it_unreset(illegal, seed, options):
    """crates_v0.env(...) after a refused first reset says what raw_env says (PettingZoo's
    order check used to count the reset as done, and step ended in an AttributeError)."""
    env = crates_v0.env(illegal=illegal)
    with pytest.raises(ValueError):
        env.reset(seed=seed, options=options)
    for call, what in ((lambda: env.step(0), "step"), (lambda: env.observe("player_0"), "observe")):
        with pytest.raises(ValueError, match=rf"^call reset\(\) before {what}\(\)$"):
            call()
    with pytest.raises(ValueError, match=r"call reset\(\) before state\(\)"):
        env.state()
    env.reset(seed=1)  # a good reset plays on
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


@SETTINGS
@given(action=ANYTHING, at=st.integers(min_value=0, max_value=40))
def test_a_refused_action_changes_nothing_pending_rewards_included(action, at):
    env = raw_env(deal_schedule=[3, 1], reward_mode="relative")
    env.reset(seed=7)
    for _ in range(at):  # into the game, past a hand's end now and then (rewards pending)
        if env.game.game_over:
            break
        env.step(env.game.legal_actions()[-1])
    if env.game.game_over:
        return
    before = env_state(env)
    legal = env.game.legal_actions()
    try:
        env.step(action)
    except ValueError:
        assert env_state(env) == before
        return
    assert action in legal


# Tables whose random play (penalised misplays included) reaches every kind of decision.
EVERY_DECISION = [
    ("crates", 3, {"skill_hand_world_series": True, "deal_schedule": [5, 2]}),
    ("kreights", 4, {"misplay_mode": "penalize", "kreights_penalty_cards": True}),
    ("zimbabwe", 4, {}),
    ("crazy_eights", 3, {"max_hands": 3}),
]


def test_refused_actions_change_nothing_at_every_decision_kind():
    """Through env() (PettingZoo's wrappers): at every decision of random games, actions the
    engine would not accept are refused and the environment is exactly as it was."""
    rng = np.random.default_rng(0)
    seen = set()
    for preset, n, options in EVERY_DECISION:
        env = crates_v0.env(preset=preset, num_players=n, reward_mode="relative", **options)
        for seed in range(3):
            env.reset(seed=seed)
            for agent in env.agent_iter():
                _, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                game = env.unwrapped.game
                seen.add(game.decision)
                accepted = game.acceptable_actions()
                outside = [a for a in range(NUM_ACTIONS) if a not in accepted]
                before = env_state(env.unwrapped)
                for bad in (int(rng.choice(outside)), None, -1, NUM_ACTIONS):
                    with pytest.raises(ValueError, match=agent):
                        env.step(bad)
                assert env_state(env.unwrapped) == before
                env.step(int(rng.choice(accepted)))
    assert seen == set(Decision)


# --- the cases found, one by one ------------------------------------------------------------


def test_an_illegal_step_keeps_the_pending_reward():
    """A hand's reward waits in _cumulative_rewards until the agent's turn: a refused step must
    not wipe it (it used to: last() went from the hand's points to 0)."""
    env = crates_v0.env(deal_schedule=[2, 2], reward_mode="points")
    env.reset(seed=3)
    while True:  # play on until an agent is to act with a hand's reward pending
        agent = env.agent_selection
        reward = env.last()[1]
        if reward != 0 and not env.terminations[agent]:
            break
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"{agent}: illegal action {illegal}"):
        env.step(illegal)
    assert env.last()[1] == reward
    for bad in (None, 63, -1):
        with pytest.raises(ValueError, match="legal: "):  # env() too: no bare AssertionError
            env.step(bad)
    assert env.last()[1] == reward


@pytest.mark.parametrize(("preset", "n", "seed"), [("crates", 5, 12), ("craits", 12, 20)])
def test_a_game_that_ends_at_the_deal_is_terminated_with_its_rewards(preset, n, seed):
    options = {"no_kings_queens": True} if preset == "crates" else {}
    env = crates_v0.env(preset=preset, num_players=n, deal_schedule=[8], **options)
    for _ in range(2):  # a fresh env, then the same env reused after a game
        env.reset(seed=seed)
        assert env.unwrapped.game.game_over
        seen = {}
        for agent in env.agent_iter():
            _, reward, terminated, truncated, info = env.last()
            assert terminated and not truncated and info["hands_ended"] == 1
            seen[agent] = reward
            env.step(None)
        assert set(seen) == set(env.possible_agents) and any(seen.values())
        hand = env.unwrapped.game.results[0]
        assert [-seen[a] for a in env.possible_agents] == hand.team_points


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"standig_jokers": "no"}, "takes True or False, not 'no'"),
        ({"standig_jokers": "false"}, "takes True or False"),
        ({"no_kings_queens": 2}, "takes True or False, not 2"),
        ({"first_dealer": True}, "first_dealer True is not valid"),
        ({"deal_schedule": {1: 2}}, "deal_schedule' takes a list of positive ints"),
        ({"deal_schedule": b"\x01"}, "deal_schedule' takes a list of positive ints"),
        ({"deal_size": 0}, "option 'deal_size' belongs to preset(s) zimbabwe, not 'crates'"),
        ({"kreights_mulligan": None}, "belongs to preset"),
    ],
)
def test_options_take_their_own_type_only(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make_ruleset("crates", 4, **options)


def test_kreights_options_take_their_own_type_only():
    with pytest.raises(ValueError, match="'kreights_mulligan' takes a list of seats, not None"):
        make_ruleset("kreights", 4, kreights_mulligan=None)
    with pytest.raises(ValueError, match="zimbabwe_jokers must be an int from 0 to 8"):
        make_ruleset("zimbabwe", 4, zimbabwe_jokers=10**30)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dealer": "foo"}, "dealer must be a seat that deals"),
        ({"dealer": 1.5}, "dealer must be a seat that deals"),
        ({"dealer": [0]}, "dealer must be a seat that deals"),
        ({"seed": "abc"}, "seed must be an int >= 0"),
        ({"seed": 1.5}, "seed must be an int >= 0"),
        ({"hand_index": 1.5}, "hand_index must be 0..14, not 1.5"),
        ({"hand_index": "1"}, "hand_index must be 0..14, not '1'"),
        ({"hand_index": None}, "hand_index must be 0..14, not None"),
        ({"deck": 5}, "deck must be a list of card codes"),
    ],
)
def test_game_arguments_of_the_wrong_type_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        new_game("crates", 4, **kwargs)


@pytest.mark.parametrize(
    ("family", "setting", "message"),
    [
        ("crates", {"turn": -1}, "turn must be 0..3, not -1"),
        ("crates", {"turn": 4}, "turn must be 0..3, not 4"),
        ("crates", {"count": -2}, "count must be an int >= 0, not -2"),
        ("crates", {"count": "2"}, "count must be an int >= 0, not '2'"),
        ("crates", {"penalty_owed": [9]}, "penalty_owed takes a list of seats 0..3, not [9]"),
        ("zimbabwe", {"demand": -1}, "demand must be an int >= 0, not -1"),
        ("zimbabwe", {"turn": 7}, "turn must be 0..3, not 7"),
    ],
)
def test_bad_positions_are_refused(family, setting, message):
    g = new_game(family, 4, seed=1)
    before = snapshot(g)
    position = {"hands": [["AS"], ["2S"], ["3S"], ["4S"]], "discard": ["5S"], "turn": 0}
    with pytest.raises(ValueError, match=re.escape(message)):
        g.set_position(**{**position, **setting})
    assert snapshot(g) == before


def test_a_penalty_drawn_past_the_stock_ends_a_scripted_hand_cleanly():
    """A scripted position whose player on turn owes a one-card penalty with no cards left to
    draw: the penalty's pressure ends the hand inside set_position (it used to escape)."""
    g = new_game("crates", 4, seed=1, deal_schedule=[1])
    g.set_position(
        hands=[["AS"], ["2S"], ["3S"], ["4S"]],
        stock=["5H"],
        discard=["5S"],
        turn=0,
        penalty_owed=[0],
    )
    assert g.game_over and g.results[0].ended_by == "pressure"


def test_environment_arguments_of_the_wrong_type_raise_value_error():
    with pytest.raises(ValueError, match="reward_scale must be a number, not None"):
        raw_env(reward_scale=None)
    with pytest.raises(ValueError, match="reward_scale must be finite"):
        raw_env(reward_scale=math.inf)
    for scale in (0, -1.0):  # nothing paid, or every reward pointing the wrong way
        with pytest.raises(ValueError, match=f"reward_scale must be > 0, not {float(scale)}"):
            raw_env(reward_scale=scale)
    with pytest.raises(ValueError, match="illegal_reward must be a number"):
        crates_v0.env(illegal="terminate", illegal_reward="-1")


def test_a_failed_first_reset_says_to_reset_and_a_later_one_keeps_the_game():
    env = raw_env()
    with pytest.raises(ValueError, match="appears more often than the deck holds it"):
        env.reset(options={"deck": ["AS", "AS"]})
    with pytest.raises(ValueError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=1)
    game = env.game
    with pytest.raises(ValueError, match="dealer must be a seat"):
        env.reset(options={"dealer": 9})
    assert env.game is game and not game.game_over

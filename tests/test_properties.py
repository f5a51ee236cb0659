"""Property tests of the engine over random legal play (RULES.md §0.3, §1.7, §1.10, §1.15).

Hypothesis draws the game seed (deals and reshuffles), the seed of the ``random.Random`` that picks
every action among ``legal_actions()``, and for short games the deal schedule and first dealer.
After EVERY decision the tests check:

- card conservation: hands + stock + discard + set-aside cards hold every physical card id exactly
  once, so their kinds are the deck's multiset;
- ``hand_sizes`` matches the hand bitmasks;
- while the game runs there is a decision with a non-empty, duplicate-free list of legal actions
  in ``range(NUM_ACTIONS)`` that fits the decision; once it is over nothing is legal and ``apply``
  raises ``IllegalActionError``;
- an illegal action raises ``IllegalActionError`` and leaves the state unchanged.

At the end of a game: it ended within a generous number of decisions without truncation, there is
one result (and one log) per hand of the schedule, the scores are the sums of the hands' team
points, each hand's team points are its card points plus its pressures, and the pressure points
are the values ``pressure_value`` gives to the per-team pressure counts. The same seeds replay to
the same event logs and scores.

Every preset of ``PRESETS`` is played at every player count of ``PLAYER_COUNTS``, plus a few
adjunct combinations.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crates_env import NUM_ACTIONS, Decision, Game, IllegalActionError
from crates_env.actions import ANNOUNCE, DRAW, SUIT
from crates_env.cards import parse_cards
from crates_env.rules import PLAYER_COUNTS, PRESETS, make_ruleset
from crates_env.scoring import pressure_value, score_kinds

# (preset, players, ruleset options)
BASE_CONFIGS = [(preset, n, {}) for preset in PRESETS for n in PLAYER_COUNTS[preset]]
ADJUNCT_CONFIGS = [
    ("crates", 4, {"standig_jokers": True}),
    ("crates", 4, {"queen_draws_two": True, "pressure_cap_20": True}),
    ("crates", 5, {"no_kings_queens": True}),
    ("kreights", 4, {"seven_card_format": True}),
    ("craits", 3, {"craits_face_cards": True}),
    (
        "craits",
        4,
        {
            "craits_continue_after_count": True,
            "craits_idiot_card": True,
            "craits_one_card_on_deal": True,
        },
    ),
    ("craits", 5, {"craits_dealer_follows_direction": True}),
]
CONFIGS = BASE_CONFIGS + ADJUNCT_CONFIGS


def _config_id(config: tuple) -> str:
    preset, n, options = config
    return "-".join([preset, f"{n}p", *options])


CONFIG_IDS = [_config_id(c) for c in CONFIGS]

# Random play needs at most ~2,400 decisions for one hand (12-player craits, 8 cards each); a game
# that takes more than this many per hand of its schedule is considered not to end.
DECISIONS_PER_HAND_LIMIT = 8_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


# --- invariants -----------------------------------------------------------------------------------


@cache
def _sorted_kinds(kinds: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(kinds))


def check_cards(g: Game) -> None:
    """Every physical card id is in exactly one place; the kinds are the deck's multiset."""
    deck = g.deck
    held = g.aside  # hands + aside as one mask
    total = g.aside.bit_count()
    for h in g.hands:
        assert not held & h, "a card is in two hands (or in a hand and set aside)"
        held |= h
        total += h.bit_count()
    seen = held
    for cid in g.stock:
        seen |= 1 << cid
    for cid in g.discard:
        seen |= 1 << cid
    total += len(g.stock) + len(g.discard)
    assert total == deck.size, f"{total} cards in play, the deck has {deck.size}"
    assert seen == deck.full_mask, "a card is missing or duplicated"
    kinds = deck.kinds_in(held)
    kinds += [deck.kinds[i] for i in g.stock]
    kinds += [deck.kinds[i] for i in g.discard]
    assert tuple(sorted(kinds)) == _sorted_kinds(deck.kinds), "the kinds in play are not the deck's"


def check_sizes(g: Game) -> None:
    assert g.hand_sizes == [h.bit_count() for h in g.hands]


def check_decision(g: Game) -> list[int]:
    """The pending decision is well formed; returns the legal actions."""
    assert not g.game_over
    assert g.decision is not None
    assert 0 <= g.to_play < g.n
    legal = g.legal_actions()
    assert legal, f"no legal action for p{g.to_play} ({g.decision!r})"
    assert len(set(legal)) == len(legal), f"duplicate legal actions {legal}"
    assert all(isinstance(a, int) and 0 <= a < NUM_ACTIONS for a in legal), legal
    if g.decision is Decision.PLAY:
        plays = [a for a in legal if a < SUIT]
        assert all(a < SUIT or a in (DRAW, ANNOUNCE) for a in legal), f"play decision: {legal}"
        assert legal != [ANNOUNCE], "announce is the only action"
        hand = g.hands[g.to_play]
        assert all(hand & g.deck.kind_mask[k] for k in plays), (
            f"{plays} not all in {g.hand(g.to_play)}"
        )
        # DRAW is the move exactly when no play is legal.
        assert (DRAW in legal) != bool(plays), legal
    else:
        assert all(SUIT <= a < DRAW for a in legal), f"{g.decision!r} offers {legal}"
    return legal


def snapshot(g: Game) -> tuple:
    return (
        g.decision,
        g.to_play,
        list(g.legal_actions()),
        list(g.hands),
        g.hand_sizes,
        list(g.stock),
        list(g.discard),
        g.suit,
        g.rank,
        g.direction,
        g.count,
        list(g.penalty_owed),
        list(g.scores),
        list(g.pressure_count),
        list(g.pressure_points),
        g.hand_index,
        g.dealer,
        len(g.events),
        len(g.results),
        g.decisions_this_hand,
    )


def check_illegal(g: Game, legal: list[int], rng: random.Random) -> None:
    """An action outside ``legal_actions`` raises and changes nothing."""
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
    candidates = [-1, NUM_ACTIONS, rng.choice(illegal)] if illegal else [-1, NUM_ACTIONS]
    before = snapshot(g)
    for action in candidates:
        with pytest.raises(IllegalActionError):
            g.apply(action)
        assert snapshot(g) == before, f"illegal action {action} changed the state"


def check_game_over(g: Game) -> None:
    assert g.game_over
    assert g.decision is None
    assert g.legal_actions() == []
    for action in (0, DRAW, ANNOUNCE):
        with pytest.raises(IllegalActionError):
            g.apply(action)


def check_results(g: Game, start_hand: int = 0) -> None:
    """Results, scores and pressures of a finished game add up."""
    r = g.rules
    teams = r.num_teams
    assert not g.truncated
    assert len(g.results) == r.num_hands - start_hand
    assert len(g.hand_logs) == len(g.results)
    assert [res.hand_index for res in g.results] == list(range(start_hand, r.num_hands))
    assert [res.deal_size for res in g.results] == list(r.schedule[start_hand:])
    for t in range(teams):
        assert g.scores[t] == sum(res.team_points[t] for res in g.results)
    cumulative = [0] * teams
    for res, log in zip(g.results, g.hand_logs, strict=True):
        assert res.ended_by in ("out", "count", "pressure"), res.ended_by
        assert len(res.card_points) == len(res.cards_left) == g.n
        assert len(res.team_points) == len(res.pressure_points) == len(res.pressures) == teams
        for s in range(g.n):
            expected = score_kinds(parse_cards(res.cards_left[s]), r)
            if r.craits_go_out_minus_10 and not res.cards_left[s]:
                expected -= 10
            assert res.card_points[s] == expected, (s, res.cards_left[s])
        for t in range(teams):
            seats = [s for s in range(g.n) if r.team_of(s) == t]
            assert res.team_points[t] == (
                sum(res.card_points[s] for s in seats) + res.pressure_points[t]
            )
            implied = sum(
                pressure_value(i, r.pressure)
                for i in range(cumulative[t] + 1, cumulative[t] + res.pressures[t] + 1)
            )
            assert res.pressure_points[t] == implied, (t, res.pressures[t], cumulative[t])
            cumulative[t] += res.pressures[t]
        assert sum(res.pressures) == sum(1 for e in log if e.startswith("pressure p"))
        if res.ended_by == "pressure":
            assert any("nothing to reshuffle" in e for e in log)
    assert cumulative == g.pressure_count
    for t in range(teams):
        total = sum(res.pressure_points[t] for res in g.results)
        assert total == sum(
            pressure_value(i, r.pressure) for i in range(1, g.pressure_count[t] + 1)
        )


def play(g: Game, choice_seed: int, *, illegal_every: int = 1, start_hand: int = 0) -> list[int]:
    """Random legal play to the end with every invariant checked; returns the actions taken."""
    rng = random.Random(choice_seed)
    limit = DECISIONS_PER_HAND_LIMIT * (g.rules.num_hands - start_hand)
    actions: list[int] = []
    check_cards(g)
    check_sizes(g)
    while not g.game_over:
        assert len(actions) < limit, f"no end after {limit} decisions"
        legal = check_decision(g)
        if len(actions) % illegal_every == 0:
            check_illegal(g, legal, rng)
        action = rng.choice(legal)
        g.apply(action)
        actions.append(action)
        check_cards(g)
        check_sizes(g)
        assert g.hand_index == start_hand + len(g.results)
        assert len(g.hand_logs) == len(g.results)
        assert not g.truncated
    check_game_over(g)
    check_results(g, start_hand)
    return actions


def max_deal(preset: str, n: int, options: dict) -> int:
    return min(8, (make_ruleset(preset, n, **options).deck.size - 1) // n)


# --- short games: many examples ------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=12, deadline=None)
@given(data=st.data(), seed=SEEDS, choice_seed=SEEDS)
def test_short_games_keep_invariants(config, data, seed, choice_seed):
    preset, n, options = config
    schedule = data.draw(
        st.lists(st.integers(1, max_deal(preset, n, options)), min_size=1, max_size=3),
        label="deal_schedule",
    )
    dealer = data.draw(st.none() | st.integers(0, n - 1), label="dealer")
    g = Game(preset, n, seed=seed, dealer=dealer, deal_schedule=schedule, **options)
    play(g, choice_seed)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, choice_seed=SEEDS, deal=st.integers(1, 8))
def test_games_replay_identically(config, seed, choice_seed, deal):
    preset, n, options = config
    deal = min(deal, max_deal(preset, n, options))
    schedule = [deal, max(1, deal - 1)]
    first = Game(preset, n, seed=seed, deal_schedule=schedule, **options)
    actions = play(first, choice_seed, illegal_every=7)
    again = Game(preset, n, seed=seed, deal_schedule=schedule, **options)
    for action in actions:
        again.apply(action)
    assert again.game_over
    assert again.hand_logs == first.hand_logs
    assert again.scores == first.scores
    assert again.stars == first.stars
    assert again.pressure_count == first.pressure_count
    # the same seeds through random choice again (not a recorded action list)
    third = Game(preset, n, seed=seed, deal_schedule=schedule, **options)
    assert play(third, choice_seed, illegal_every=7) == actions
    assert third.hand_logs == first.hand_logs
    assert third.scores == first.scores


# --- full games: every hand of the preset's schedule --------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_full_games_keep_invariants(config, seed, choice_seed):
    preset, n, options = config
    g = Game(preset, n, seed=seed, **options)
    assert g.rules.num_hands == len(g.rules.schedule)
    play(g, choice_seed, illegal_every=11)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=3, deadline=None)
@given(data=st.data(), seed=SEEDS, choice_seed=SEEDS)
def test_games_started_at_a_later_hand(config, data, seed, choice_seed):
    preset, n, options = config
    num_hands = make_ruleset(preset, n, **options).num_hands
    start = data.draw(st.integers(max(0, num_hands - 3), num_hands - 1), label="hand_index")
    g = Game(preset, n, seed=seed, hand_index=start, **options)
    play(g, choice_seed, start_hand=start)


def test_configs_cover_every_preset_and_player_count():
    covered = Counter((preset, n) for preset, n, _ in BASE_CONFIGS)
    assert set(covered) == {(p, n) for p in PRESETS for n in PLAYER_COUNTS[p]}
    for preset, n, options in CONFIGS:
        make_ruleset(preset, n, **options)  # every configuration is valid

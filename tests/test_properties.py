"""Property tests of the engine over random legal play (docs/rules.md §0.3, §1.7, §1.10, §1.15).

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
points, each hand's team points are its card points plus its pressures (and revokes), and the
pressure points are the values ``pressure_value`` gives to the per-team pressure counts. The same
seeds replay to the same event logs and scores.

The Crazy Eights family has its own end-of-game checks: crazy_eights hands pay the winner (or the
lowest hand of a blocked one) and the game ends on the first hand that reaches the target;
zimbabwe knocks out exactly one player a round until exactly one is left (unless the last players
share the game, E-60). With ``misplay_mode="penalize"`` random play draws from
``acceptable_actions()``, so penalised misplays happen too.

Every preset of ``PRESETS`` is played at every player count of ``player_counts``, plus a few
adjunct combinations.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crates_env import NUM_ACTIONS, Decision, Game, IllegalActionError, new_game
from crates_env.actions import ANNOUNCE, DRAW, PASS, REVERSE_ONCE, REVERSE_PERMANENT, STOP, SUIT
from crates_env.cards import JOKER, parse_cards
from crates_env.rules import PRESETS, make_ruleset, player_counts
from crates_env.scoring import pressure_value, score_kinds

from .scripted import log_texts, snapshot

KREIGHTS_PENALTIES = {"kreights_penalty_cards": True, "kreights_revoke_penalty": True}
# (preset, players, ruleset options)
BASE_CONFIGS = [(preset, n, {}) for preset in PRESETS for n in player_counts(preset)]
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
    ("crates", 3, {"skill_hand_world_series": True}),
    ("kreights", 4, {"misplay_mode": "penalize", **KREIGHTS_PENALTIES}),
    ("kreights", 5, {"misplay_mode": "penalize", "kreights_penalty_cards": True}),
    ("creights", 3, {"misplay_mode": "penalize", "creights_dumbass_cards": True}),
    ("crazy_eights", 3, {"crazy_eights_eight_must_change_suit": True}),
    ("zimbabwe", 4, {"deal_size": 8, "zimbabwe_jokers": 4}),
    ("zimbabwe", 3, {"zimbabwe_jokers": 0}),
]
CONFIGS = BASE_CONFIGS + ADJUNCT_CONFIGS


def _config_id(config: tuple) -> str:
    preset, n, options = config
    return "-".join([preset, f"{n}p", *options])


CONFIG_IDS = [_config_id(c) for c in CONFIGS]

# Random play needs at most ~3,200 decisions for one hand (zimbabwe rounds); a hand that takes
# more than this is considered not to end.
DECISIONS_PER_HAND_LIMIT = 8_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


# --- invariants -----------------------------------------------------------------------------------


@cache
def _sorted_kinds(kinds: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(kinds))


def check_cards(g: Game) -> None:
    """Every physical card id is in exactly one place; the kinds are the deck's multiset."""
    deck, hs = g.deck, g.state.hand
    held = hs.aside  # hands + aside as one mask
    total = hs.aside.bit_count()
    for h in hs.hands:
        assert not held & h, "a card is in two hands (or in a hand and set aside)"
        held |= h
        total += h.bit_count()
    seen = held
    for cid in hs.stock:
        seen |= 1 << cid
    for cid in hs.discard:
        seen |= 1 << cid
    total += len(hs.stock) + len(hs.discard)
    assert total == deck.size, f"{total} cards in play, the deck has {deck.size}"
    assert seen == deck.full_mask, "a card is missing or duplicated"
    kinds = deck.kinds_in(held)
    kinds += [deck.kinds[i] for i in hs.stock]
    kinds += [deck.kinds[i] for i in hs.discard]
    assert tuple(sorted(kinds)) == _sorted_kinds(deck.kinds), "the kinds in play are not the deck's"


def check_sizes(g: Game) -> None:
    assert g.hand_sizes == [h.bit_count() for h in g.state.hand.hands]


def check_decision(g: Game) -> list[int]:
    """The pending decision is well formed; returns the legal actions."""
    assert not g.game_over
    assert g.decision is not None
    assert 0 <= g.to_play < g.n
    assert g.active[g.turn]
    legal = g.legal_actions()
    assert legal, f"no legal action for p{g.to_play} ({g.decision!r})"
    assert len(set(legal)) == len(legal), f"duplicate legal actions {legal}"
    assert all(isinstance(a, int) and 0 <= a < NUM_ACTIONS for a in legal), legal
    plays = [a for a in legal if a < SUIT]
    hand = g.state.hand.hands[g.turn]
    assert all(hand & g.deck.kind_mask[k] for k in plays), f"{plays} not all in {g.hand(g.turn)}"
    if g.rules.dummy_seat is not None:  # SHWS: Figgy's decisions are prev(Figgy)'s
        assert g.to_play != g.rules.dummy_seat
    check_actions_fit(g, legal, plays)
    return legal


def check_actions_fit(g: Game, legal: list[int], plays: list[int]) -> None:
    """Each decision offers the kinds of action it is about."""
    dec, words = g.decision, [a for a in legal if a >= DRAW]
    if dec in (Decision.SUIT, Decision.STARTER_SUIT):
        assert all(SUIT <= a < DRAW for a in legal), f"{dec!r} offers {legal}"
    elif dec is Decision.PENALTY_CARD:
        assert len(plays) > 1 and not words, legal
        assert g.to_play != g.turn
    elif dec is Decision.REVERSE:
        assert legal == [REVERSE_PERMANENT, REVERSE_ONCE]
    elif dec is Decision.MORE:
        assert words == [STOP] and len({k if k == JOKER else k % 13 for k in plays}) <= 1, legal
    elif dec in (Decision.PLAY_OR_PASS, Decision.DEFLECT):
        assert words == [PASS], legal
    elif g.rules.engine == "eights":
        # DRAW unless nothing can be drawn; then who can play must, and PASS is for who cannot
        assert words in ([DRAW], [PASS], []), legal
        assert (words == [PASS]) <= (not plays) and (not words) <= bool(plays), legal
    else:
        assert all(a < SUIT or a in (DRAW, ANNOUNCE) for a in legal), f"play decision: {legal}"
        assert legal != [ANNOUNCE], "announce is the only action"
        # DRAW is the move exactly when no play is legal.
        assert (DRAW in legal) != bool(plays), legal


def check_illegal(g: Game, legal: list[int], rng: random.Random) -> None:
    """An action outside ``acceptable_actions`` raises and changes nothing."""
    accepted = g.acceptable_actions()
    assert accepted[: len(legal)] == legal
    illegal = [a for a in range(NUM_ACTIONS) if a not in accepted]
    candidates = [-1, NUM_ACTIONS, rng.choice(illegal)] if illegal else [-1, NUM_ACTIONS]
    before = snapshot(g)
    for action in candidates:
        with pytest.raises(IllegalActionError):
            g.apply(action)
    assert snapshot(g) == before, f"one of the illegal actions {candidates} changed the state"


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
    hands = len(g.results)
    if r.num_hands is not None:
        assert hands == r.num_hands - start_hand
    assert len(g.hand_logs) == hands
    assert [res.hand_index for res in g.results] == list(range(start_hand, start_hand + hands))
    sizes = [r.schedule[i % len(r.schedule)] for i in range(start_hand, start_hand + hands)]
    assert [res.deal_size for res in g.results] == sizes
    for t in range(teams):
        assert g.scores[t] == r.initial_scores[t] + sum(res.team_points[t] for res in g.results)
    for res in g.results:
        assert len(res.card_points) == len(res.cards_left) == g.n
        assert len(res.team_points) == len(res.pressure_points) == len(res.pressures) == teams
        for s in range(g.n):
            expected = score_kinds(parse_cards(res.cards_left[s]), r)
            if r.option("craits_go_out_minus_10") and not res.cards_left[s]:
                expected -= 10
            assert res.card_points[s] == expected, (s, res.cards_left[s])
    if r.engine == "eights":
        check_eights_results(g)
    else:
        check_crates_results(g)


def check_crates_results(g: Game) -> None:
    r, teams = g.rules, g.rules.num_teams
    cumulative = [0] * teams
    for res, log in zip(g.results, g.hand_logs, strict=True):
        assert res.ended_by in ("out", "count", "pressure"), res.ended_by
        for t in range(teams):
            seats = [s for s in range(g.n) if r.team_of(s) == t]
            assert res.team_points[t] == (
                sum(res.card_points[s] for s in seats)
                + res.pressure_points[t]
                + res.revoke_points[t]
            )
            assert res.revoke_points[t] % 1_000_000_000 == 0
            if not r.revoke_points:
                assert res.revoke_points[t] == 0
            implied = sum(
                pressure_value(i, r.pressure)
                for i in range(cumulative[t] + 1, cumulative[t] + res.pressures[t] + 1)
            )
            assert res.pressure_points[t] == implied, (t, res.pressures[t], cumulative[t])
            cumulative[t] += res.pressures[t]
        charged = [e.seat for e in log if e.kind == "pressure"]
        assert sum(res.pressures) == len(charged)
        assert res.seat_pressures == [charged.count(s) for s in range(g.n)]
        if res.ended_by == "pressure":
            assert any(e.kind == "draw_short" for e in log)
        if r.dummy_seat is not None:  # Figgy never receives a pressure [000:162]
            assert res.pressures[r.dummy_seat] == 0
    assert cumulative == g.pressure_count
    for t in range(teams):
        total = sum(res.pressure_points[t] for res in g.results)
        assert total == sum(
            pressure_value(i, r.pressure) for i in range(1, g.pressure_count[t] + 1)
        )


def check_eights_results(g: Game) -> None:
    """crazy_eights pays the winner until the target; zimbabwe knocks out one player a round."""
    r, n = g.rules, g.n
    assert g.pressure_count == [0] * n
    players = n
    for i, res in enumerate(g.results):
        assert res.pressures == res.pressure_points == [0] * n
        if r.game_end == "target":
            assert res.ended_by in ("out", "blocked"), res.ended_by
            pts, values = res.team_points, res.card_points
            if res.ended_by == "out":
                assert pts[res.went_out] == sum(values)
                assert sum(pts) == sum(values)
            else:
                low = min(values)
                assert pts == [sum(v - low for v in values) if v == low else 0 for v in values]
            reached = max(sum(x.team_points[s] for x in g.results[: i + 1]) for s in range(n))
            assert (reached >= r.target_score) == (i == len(g.results) - 1)
        else:
            assert res.ended_by in ("out", "stalled"), res.ended_by
            assert res.team_points == res.card_points
            players -= len(res.eliminated)
            if res.eliminated:  # the highest hand, after any tie-break draws (E-60)
                assert all(res.card_points[s] == max(res.card_points) for s in res.eliminated)
            else:  # only when everybody left tied with nothing to draw: they share the game
                assert i == len(g.results) - 1
    if r.game_end == "target":
        best = max(g.scores)
        assert g.winners() == [s for s in range(n) if g.scores[s] == best]
    else:
        assert g.winners() == [s for s in range(n) if g.active[s]]
        assert players == len(g.winners())
        assert players == 1 or not g.results[-1].eliminated  # one winner, or a shared game


def play(g: Game, choice_seed: int, *, illegal_every: int = 1, start_hand: int = 0) -> list[int]:
    """Random play to the end with every invariant checked; returns the actions taken. It picks
    among ``acceptable_actions()``: the legal ones, and penalised misplays where there are any."""
    rng = random.Random(choice_seed)
    actions: list[int] = []
    check_cards(g)
    check_sizes(g)
    while not g.game_over:
        assert g.state.hand.decisions < DECISIONS_PER_HAND_LIMIT, "the hand does not end"
        legal = check_decision(g)
        if len(actions) % illegal_every == 0:
            check_illegal(g, legal, rng)
        action = rng.choice(g.acceptable_actions())
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
    seats = make_ruleset(preset, n, **options).dealer_seats
    dealer = data.draw(st.none() | st.sampled_from(seats), label="dealer")
    g = new_game(preset, n, seed=seed, dealer=dealer, deal_schedule=schedule, **options)
    play(g, choice_seed)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, choice_seed=SEEDS, deal=st.integers(1, 8))
def test_games_replay_identically(config, seed, choice_seed, deal):
    preset, n, options = config
    deal = min(deal, max_deal(preset, n, options))
    schedule = [deal, max(1, deal - 1)]
    first = new_game(preset, n, seed=seed, deal_schedule=schedule, **options)
    actions = play(first, choice_seed, illegal_every=7)
    again = new_game(preset, n, seed=seed, deal_schedule=schedule, **options)
    for action in actions:
        again.apply(action)
    assert again.game_over
    assert log_texts(again.hand_logs) == log_texts(first.hand_logs)
    assert again.scores == first.scores
    assert again.stars == first.stars
    assert again.pressure_count == first.pressure_count
    # the same seeds through random choice again (not a recorded action list)
    third = new_game(preset, n, seed=seed, deal_schedule=schedule, **options)
    assert play(third, choice_seed, illegal_every=7) == actions
    assert log_texts(third.hand_logs) == log_texts(first.hand_logs)
    assert third.scores == first.scores


# --- full games: every hand of the preset's schedule --------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_full_games_keep_invariants(config, seed, choice_seed):
    preset, n, options = config
    g = new_game(preset, n, seed=seed, **options)
    assert g.rules.num_hands in (len(g.rules.schedule), None)
    play(g, choice_seed, illegal_every=11)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=3, deadline=None)
@given(data=st.data(), seed=SEEDS, choice_seed=SEEDS)
def test_games_started_at_a_later_hand(config, data, seed, choice_seed):
    preset, n, options = config
    num_hands = make_ruleset(preset, n, **options).num_hands or 3  # open-ended: any hand
    start = data.draw(st.integers(max(0, num_hands - 3), num_hands - 1), label="hand_index")
    g = new_game(preset, n, seed=seed, hand_index=start, **options)
    play(g, choice_seed, start_hand=start)


def test_configs_cover_every_preset_and_player_count():
    covered = Counter((preset, n) for preset, n, _ in BASE_CONFIGS)
    assert set(covered) == {(p, n) for p in PRESETS for n in player_counts(p)}
    for preset, n, options in CONFIGS:
        make_ruleset(preset, n, **options)  # every configuration is valid

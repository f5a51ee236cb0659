"""The engine as a state value: the factory, clone(), resample_hidden(), the public view, events.

Random positions of every preset (and the adjunct combinations of the property tests) are
reached by random legal play from a seed; then:

- ``clone()`` plays on exactly as the original under the same actions (reshuffles and later
  deals included) and shares nothing mutable with it;
- ``resample_hidden(seat, rng)`` keeps everything ``seat`` sees (its view and its observation
  vector are equal), keeps the multiset of hidden cards, leaves the original untouched, and
  depends only on what ``seat`` sees: a position re-dealt behind ``seat``'s back resamples to the
  same cards with the same ``rng``. The hidden cards land uniformly (chi-square);
- the view and the events are data: the observer decodes its own scales, and every event kind
  renders.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from agents import Table
from crates_env import CratesGame, EightsGame, Event, Game, new_game, parse_card
from crates_env.env import raw_env
from crates_env.events import EVENT_KINDS
from crates_env.observation import Observer
from crates_env.rules import PRESETS, player_counts

from .scripted import snapshot
from .test_properties import ADJUNCT_CONFIGS

CONFIGS = [(p, n, {}) for p in PRESETS for n in sorted({min(player_counts(p)), 4})]
CONFIGS += ADJUNCT_CONFIGS
IDS = ["-".join([p, f"{n}p", *o]) for p, n, o in CONFIGS]


def positions(preset: str, n: int, options: dict, count: int, seed: int = 0):
    """``count`` positions of random legal (and penalised) play, each in a game of its own."""
    rnd = random.Random(seed)
    for k in range(count):
        g = new_game(preset, n, seed=seed * 1000 + k, **options)
        for _ in range(rnd.randrange(0, 300)):
            if g.game_over:
                break
            g.apply(rnd.choice(g.acceptable_actions()))
        if not g.game_over:
            yield g


def play_on(g: Game, seed: int) -> tuple:
    """The rest of ``g`` under random play from ``seed``: every event and the final scores."""
    rnd = random.Random(seed)
    while not g.game_over:
        g.apply(rnd.choice(g.acceptable_actions()))
    return g.hand_logs, g.events, g.scores, g.stars, g.truncated


def hidden_cards(g: Game, seat: int) -> Counter:
    """The cards ``seat`` cannot see: the stock and the others' hands, less the cards shown
    face up (the dummy's whole hand, kreights penalty cards)."""
    hidden = Counter(g.stock_cards())
    for s in range(g.n):
        if s != seat and s != g.rules.dummy_seat:
            held = Counter(g.hand(s))
            if isinstance(g, CratesGame):
                held -= Counter(g.penalty_cards(s))
            hidden.update(held)
    return hidden


# --- the factory ----------------------------------------------------------------------------------


def test_the_factory_picks_the_family_engine_and_both_are_siblings():
    assert type(new_game("kreights", 3, seed=1)) is CratesGame
    assert type(new_game("zimbabwe", 4, seed=1)) is EightsGame
    assert type(new_game("crazy_eights", 3, seed=1)) is EightsGame
    assert type(new_game("crates", seed=1)) is CratesGame
    with pytest.raises(TypeError, match="abstract"):  # the shared base is no engine of its own
        Game("crates", seed=1)
    assert not issubclass(EightsGame, CratesGame) and not issubclass(CratesGame, EightsGame)
    assert issubclass(CratesGame, Game) and issubclass(EightsGame, Game)
    with pytest.raises(
        ValueError, match=r"EightsGame plays the eights family.*crates_env\.new_game"
    ):
        EightsGame("crates", 4)
    with pytest.raises(ValueError, match="unknown preset 'uno'"):
        new_game("uno")


def test_the_engine_modules_import_without_a_cycle():
    """Each module of the engine imports only modules before it: no cycle, and nothing of RL."""
    package = Path(__file__).resolve().parent.parent / "crates_env"
    engine = ["cards", "actions", "presets", "rules", "scoring", "events", "state", "view", "game"]
    engine += ["calls", "misplays", "crates", "eights"]
    graph = {}
    for name in engine:
        nodes = list(ast.walk(ast.parse((package / f"{name}.py").read_text())))
        relative = [n for n in nodes if isinstance(n, ast.ImportFrom) and n.level == 1]
        graph[name] = {n.module for n in relative}
        absolute = [a.name for n in nodes if isinstance(n, ast.Import) for a in n.names]
        absolute += [n.module for n in nodes if isinstance(n, ast.ImportFrom) and not n.level]
        assert not {"torch", "pettingzoo", "gymnasium"} & {m.split(".")[0] for m in absolute}
    order = {name: i for i, name in enumerate(engine)}
    for name, imported in graph.items():
        assert imported <= set(engine), (name, imported)
        assert all(order[m] < order[name] for m in imported), (name, imported)


# --- clone ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_clone_plays_on_exactly_as_the_original(config):
    preset, n, options = config
    for k, g in enumerate(positions(preset, n, options, 6, seed=1)):
        twin = g.clone()
        assert type(twin) is type(g)
        assert twin.rules is g.rules and twin.deck is g.deck  # shared, immutable
        assert snapshot(twin) == snapshot(g)
        assert play_on(twin, k) == play_on(g, k)


def test_a_clone_shares_nothing_that_changes():
    g = new_game("kreights", 4, seed=3, misplay_mode="penalize", kreights_penalty_cards=True)
    before = snapshot(g)
    twin = g.clone()
    play_on(twin, 0)
    assert twin.game_over and snapshot(g) == before


# --- resample_hidden ------------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_resample_keeps_everything_the_seat_sees(config):
    preset, n, options = config
    observer = Observer(new_game(preset, n, seed=0, **options).rules)
    for k, g in enumerate(positions(preset, n, options, 6, seed=2)):
        before = snapshot(g)
        for seat in range(g.n):
            other = g.resample_hidden(seat, np.random.default_rng(k))
            assert other.view(seat) == g.view(seat)
            np.testing.assert_array_equal(
                observer.encode(other.view(seat)), observer.encode(g.view(seat))
            )
            assert hidden_cards(other, seat) == hidden_cards(g, seat)
            assert other.hand(seat) == g.hand(seat) and other.discard_cards() == g.discard_cards()
            assert other.hand_sizes == g.hand_sizes and other.legal_actions() == (
                g.legal_actions() if g.to_play == seat else other.legal_actions()
            )
            play_on(other, k)  # the re-dealt game is a game: it plays to its end
        assert snapshot(g) == before, "resampling changed the original"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_resample_depends_only_on_what_the_seat_sees(config):
    """Re-deal a position behind ``seat``'s back: the two cannot be told apart by ``seat``, so
    resampling either with the same generator state gives the same cards and the same game."""
    preset, n, options = config
    for k, g in enumerate(positions(preset, n, options, 4, seed=3)):
        seat = k % g.n
        twin = g.resample_hidden(seat, np.random.default_rng(1000 + k))
        assert twin.view(seat) == g.view(seat)
        a = g.resample_hidden(seat, np.random.default_rng(k))
        b = twin.resample_hidden(seat, np.random.default_rng(k))
        assert [a.hand(s) for s in range(g.n)] == [b.hand(s) for s in range(g.n)]
        assert a.stock_cards() == b.stock_cards()
        assert play_on(a, k) == play_on(b, k)


def test_a_resample_moves_the_hidden_cards():
    g = new_game("crates", 4, seed=5)
    deals = {tuple(g.resample_hidden(0, np.random.default_rng(k)).hand(1)) for k in range(5)}
    assert len(deals) == 5


def test_a_resample_keeps_face_up_cards_where_they_are():
    """Figgy's hand is face up (Skill-hand World Series) and kreights penalty cards are face up
    in their holder's hand: neither is hidden from anybody."""
    g = new_game("crates", 3, seed=2, skill_hand_world_series=True)
    for seat in (0, 1):
        assert g.resample_hidden(seat, np.random.default_rng(1)).hand(2) == g.hand(2)
    g = new_game(
        "kreights", 3, deal_schedule=[5], seed=1, misplay_mode="penalize",
        kreights_penalty_cards=True, dealer=0,
    )  # fmt: skip
    g.set_position(
        hands=[["2C", "3C", "4C"], ["5H", "KD", "QD", "JD"], ["6S", "7S"]],
        stock=["9C", "10C", "JC", "QC"],
        discard=["5C"],
        turn=1,
    )
    g.apply(parse_card("KD"))  # illegal on 5C: a penalty card, face up in p1's hand
    assert g.penalty_cards(1) == ["KD"]
    for _ in range(20):
        other = g.resample_hidden(0, np.random.default_rng(_))
        assert other.penalty_cards(1) == ["KD"] and "KD" in other.hand(1)


def test_hidden_cards_are_spread_uniformly():
    """Where each hidden card lands (another hand, or a depth in the stock) over many resamples:
    chi-square against the share of the hidden places each location holds."""
    g = new_game("crates", 3, seed=11, deal_schedule=[5])
    seat, samples = 0, 3000
    places = {s: g.hand_sizes[s] for s in (1, 2)} | {"stock top": 1, "stock rest": 0}
    places["stock rest"] = len(g.stock_cards()) - 1
    total = sum(places.values())
    rng = np.random.default_rng(0)
    watched = g.hand(1)[0]  # a card seat 0 does not see
    landed = Counter()
    for _ in range(samples):
        other = g.resample_hidden(seat, rng)
        stock = other.stock_cards()
        held = [s for s in (1, 2) if watched in other.hand(s)]
        landed[held[0] if held else "stock top" if stock[0] == watched else "stock rest"] += 1
    observed = [landed[p] for p in places]
    expected = [samples * places[p] / total for p in places]
    assert stats.chisquare(observed, expected).pvalue > 0.001, (observed, expected)


def test_the_stock_is_reshuffled_uniformly_too():
    """The card on top of the re-dealt stock is any of the hidden cards, each as often (two
    decks: a kind with two hidden copies comes up twice as often)."""
    g = new_game("craits", 6, seed=4, deal_schedule=[6])
    seat, samples = 2, 4000
    hidden = hidden_cards(g, seat)
    rng = np.random.default_rng(1)
    tops = Counter(g.resample_hidden(seat, rng).stock_cards()[0] for _ in range(samples))
    assert set(tops) <= set(hidden)
    total = sum(hidden.values())
    observed = [tops[card] for card in hidden]
    expected = [samples * copies / total for copies in hidden.values()]
    assert stats.chisquare(observed, expected).pvalue > 0.001, (observed, expected)


def test_resample_refuses_a_bad_seat_or_generator_and_changes_nothing():
    g = new_game("crates", 4, seed=1)
    before = snapshot(g)
    with pytest.raises(ValueError, match=r"seat must be 0\.\.3, not 4"):
        g.resample_hidden(4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng must be a numpy Generator"):
        g.resample_hidden(0, 7)
    assert snapshot(g) == before


# --- the view and the observation scales --------------------------------------------------------


def test_the_view_is_a_snapshot_of_public_facts():
    g = new_game("crates", 4, seed=7)
    view = g.view(g.to_play)
    assert view.seat == g.to_play and view.hand_kinds() == g.hand_kinds(g.to_play)
    assert view.sizes == tuple(g.hand_sizes) and view.stock_size == len(g.stock_cards())
    g.apply(g.legal_actions()[0])
    assert view != g.view(view.seat)  # the old view did not move with the game
    with pytest.raises(ValueError, match=r"seat must be 0\.\.3"):
        g.view(-1)


def test_agents_decode_the_observation_in_its_own_units():
    env = raw_env(preset="crates", num_players=4, deal_schedule=[7])
    env.reset(seed=3)
    g = env.game
    table = Table.from_env(env)
    rnd = random.Random(0)
    for _ in range(40):
        seat = g.to_play
        obs = env.observe(env.possible_agents[seat])["observation"]
        view = g.view(seat)
        sizes = table.counts(obs, "hand_sizes")
        assert sizes == [view.sizes[(seat + k) % 4] for k in range(4)]
        assert table.counts(obs, "count") == [view.count]
        assert table.counts(obs, "stock_size") == [view.stock_size]
        np.testing.assert_allclose(
            env.observer.decode(obs, "scores"), [view.scores[(seat + k) % 2] for k in range(4)]
        )
        env.step(rnd.choice(g.legal_actions()))
        if g.game_over:
            break


# --- events -------------------------------------------------------------------------------------


def test_every_event_kind_renders_and_carries_its_facts():
    for kind in EVENT_KINDS:  # every kind renders from its fields
        assert str(Event(kind, 1, parse_card("AS"), 1, 2, ((0, 5),), (1, 2)))
    with pytest.raises(KeyError):
        str(Event("no such kind"))
    assert str(Event("play", 1, parse_card("8S"))) == "p1 plays 8S"
    assert str(Event("play", 2, parse_card("2H"), 4)) == "p2 plays 2H, count 4"
    assert str(Event("pressure", 0, None, 10, 2)) == "pressure p0 +10 (p2's draw)"
    assert str(Event("team_scores", other=3, sides=((0, 12), (1, -5)))) == (
        "hand 3 scores: team0 +12, team1 -5"
    )
    assert str(Event("tie_for_highest", value=30, seats=(1, 3))) == "tie for highest (30): p1, p3"


def test_set_position_refuses_another_familys_settings_and_changes_nothing():
    g = new_game("crates", 4, seed=1)
    before = snapshot(g)
    with pytest.raises(ValueError, match="the Crates family takes count and penalty_owed"):
        g.set_position([["AS"], ["2S"], ["3S"], ["4S"]], discard=["5S"], turn=0, demand=2)
    with pytest.raises(ValueError, match="say which suit is current"):
        g.set_position([["AS"], ["2S"], ["3S"], ["4S"]], discard=["8S"], turn=0)
    assert snapshot(g) == before
    z = new_game("zimbabwe", 4, seed=1)
    with pytest.raises(ValueError, match="the Crazy Eights family takes demand"):
        z.set_position([["AS"], ["2S"], ["3S"], ["4S"]], discard=["5S"], turn=0, count=2)


def test_the_observation_of_a_game_past_any_float_clips_its_pressures_and_scores():
    """Exact points are Python ints: a side a thousand doubling pressures down owes more than
    any float holds, and the observation clips its next pressure and score as it clips any
    large value, rather than fail converting them."""
    from crates_env.env import raw_env
    from crates_env.observation import CLIP

    env = raw_env()
    env.reset(seed=1)
    g = env.game
    g.game_state.pressure_count = (1_100, 0)
    g.game_state.scores = (5 * 2**1_100, 0)
    obs = env.observe(env.agent_selection)["observation"]
    layout = env.observation_layout()
    next_pressure, scores = (obs[slice(*layout[k])] for k in ("next_pressure", "scores"))
    team = g.rules.team_of(g.to_play)
    assert next_pressure[0 if team == 0 else 1] == CLIP
    assert CLIP in scores.tolist()

"""Why an agent moved (``Agent.explain``), the table as one seat sees it, and results in words.

The network's probabilities are SB3's own masked distribution and its value SB3's critic (none
from a network written to play alone, as the shipped ones are); a
search's margins are the very margins its next move is chosen from, and explaining changes
nothing of its play; scripted agents say nothing; a replay keeps what each agent weighed. The
seat's table shows its own cards and the backs of the others'. ``game_result`` and
``hand_result`` say who won and by how much on stacked scores of each kind of game.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import (
    Explanation,
    GreedyAgent,
    HeuristicAgent,
    PolicyAgent,
    RandomAgent,
    SearchAgent,
    Table,
    make_agent,
)
from agents.search import Verdict
from crates_env import Decision, new_game
from crates_env.render import layout, table_snapshot
from crates_env.render.layout import Card
from crates_env.render.table import HandRow, game_result, hand_result
from train.cli import main
from train.evaluation import EvalConfig
from train.evaluation.replays import replay_game

from .scripted import stacked
from .test_search import _env_at

ROOT = Path(__file__).resolve().parent.parent


def test_the_networks_probabilities_are_sb3s_masked_distribution_and_its_value_the_critics():
    env, obs, mask = _env_at(3)
    shipped = make_agent("shipped", Table.from_env(env))
    said = shipped.explain(obs, mask, game=env.game)
    legal = np.flatnonzero(mask)
    assert said.moves == tuple(legal) and said.margins is None
    policy = shipped.policy
    with torch.no_grad():
        tensor = torch.as_tensor(obs[None, :].astype(np.float32))
        probs = policy.get_distribution(tensor, action_masks=mask[None, :]).distribution.probs
    np.testing.assert_allclose(said.probabilities, probs[0, legal].numpy(), rtol=1e-5)
    assert sum(said.probabilities) == pytest.approx(1)
    assert said.moves[int(np.argmax(said.probabilities))] == shipped.act(obs, mask)
    # the shipped network is written to play alone: no critic, so no value to tell
    assert said.value is None and not shipped.network.checkpoint.critic
    assert set(said.as_dict()) == {"moves", "probabilities"}
    with_critic = PolicyAgent(ROOT / "checkpoints" / "crates_4p_round2.zip", table=shipped.table)
    with torch.no_grad():
        value = float(with_critic.policy.predict_values(tensor)[0, 0])
    told = with_critic.explain(obs, mask)
    assert told.value == pytest.approx(value) != 0
    assert set(told.as_dict()) == {"moves", "probabilities", "value"}


def test_scripted_agents_say_nothing_but_their_move():
    env, obs, mask = _env_at(3)
    table = Table.from_env(env)
    for agent in (RandomAgent(0), GreedyAgent(table), HeuristicAgent(table, 0)):
        assert agent.explain(obs, mask, game=env.game, search=True) is None


def test_a_search_explains_with_the_margins_its_move_is_chosen_from_and_plays_on_unchanged():
    env, obs, mask = _env_at(5, stock_at_most=6)
    table = Table.from_env(env)
    legal = np.flatnonzero(mask)
    explaining, twin, playing = (SearchAgent(table, samples=4, seed=3) for _ in range(3))
    said = explaining.explain(obs, mask, game=env.game, search=True)
    margins = twin.move_margins(env, legal)  # the first margins of a twin: the same re-deals
    np.testing.assert_allclose(said.margins, Verdict.of(margins, legal, None).values)
    se = margins.std(axis=1, ddof=1) / np.sqrt(4)
    np.testing.assert_allclose(said.margin_se, se)
    assert said.probabilities is None  # over HeuristicAgent, nothing more
    assert explaining.act(obs, mask, env.game) == playing.act(obs, mask, env.game)
    assert explaining.rng.bit_generator.state == playing.rng.bit_generator.state


def test_a_search_explains_its_margins_only_where_it_searches_and_only_on_request():
    env, obs, mask = _env_at(5, stock_at_most=6)
    table = Table.from_env(env)
    stock = env.game.view(env.game.to_play).stock_size
    over_shipped = SearchAgent(table, samples=2, base="shipped")
    said = over_shipped.explain(obs, mask, game=env.game)  # no search: the base network's view
    assert said.probabilities is not None and said.margins is None
    not_here = SearchAgent(table, samples=2, stock_max=stock - 1)
    assert not_here.explain(obs, mask, game=env.game, search=True) == Explanation(
        tuple(int(a) for a in np.flatnonzero(mask))
    )
    with pytest.raises(ValueError, match="SearchAgent searches in the game"):
        over_shipped.explain(obs, mask, search=True)


def test_a_replay_keeps_what_each_agent_weighed():
    short = {"deal_schedule": [2, 1]}
    config = EvalConfig(agents=("shipped", "heuristic"), deals=1, options=short)
    replay, _ = replay_game(config)
    assert len(replay.explanations) == len(replay.steps) and replay.explanations[-1] is None
    for step, said in zip(replay.steps[:-1], replay.explanations, strict=False):
        if step.seats[step.to_play].name == "heuristic":
            assert said is None
        else:
            assert step.move in said["moves"] and "margins" not in said
            assert sum(said["probabilities"]) == pytest.approx(1)
    search = EvalConfig(agents=("search:samples=2,stock_max=99", "random"), deals=1, options=short)
    replay, _ = replay_game(search, search=True)
    searched = [e for e in replay.explanations if e and "margins" in e]
    assert searched and all(len(e["margins"]) == len(e["moves"]) > 1 for e in searched)


def test_crates_replay_explain_puts_the_search_margins_on_the_page(tmp_path):
    out = tmp_path / "game.html"
    agents = ["--agents", "search:samples=2,stock_max=99", "random"]
    assert (
        main(["replay", *agents, "--rule", "deal_schedule=[2,1]", "--explain", "--out", str(out)])
        == 0
    )
    raw = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', out.read_text()
    )
    panels = [p for p in json.loads(raw.group(1).replace("<\\/", "</"))["explain"] if p]
    searched = [p for p in panels if "margins" in p]
    assert searched and all(p["who"].startswith(("p0 · search", "p2 · search")) for p in searched)
    assert all(p["move"] in p["moves"] for p in searched)


# --- the table as one seat sees it -------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_the_backs_of_the_others():
    g = new_game("crates", 4, seed=2)
    for seat in range(4):
        snap = table_snapshot(g, seat=seat)
        for s, shown in enumerate(snap.seats):
            if s == seat:  # as a spectator sees it, in the same order
                assert shown.cards == table_snapshot(g).seats[s].cards
            else:
                assert shown.cards == (None,) * len(g.hand_kinds(s))
        drawn = [shape for shape in layout(snap).items if isinstance(shape, Card)]
        assert not any(card.highlight for card in drawn)  # no move: no card raised, no back


def test_the_dealer_names_a_turned_wilds_suit_before_seeing_the_hand():
    g = stacked("crates", 4, [["KD"], ["QD"], ["JD"], ["TD"]], "8D", dealer=1)
    assert (g.decision, g.to_play) == (Decision.STARTER_SUIT, 1)
    assert table_snapshot(g, seat=1).seats[1].cards == (None,)
    assert table_snapshot(g, seat=0).seats[0].cards == (parse("KD"),)


def test_the_dummys_hand_is_face_up_for_every_seat():
    g = new_game("crates", 3, seed=1, skill_hand_world_series=True)
    dummy = g.rules.dummy_seat
    for seat in set(range(3)) - {dummy}:
        cards = table_snapshot(g, seat=seat).seats[dummy].cards
        assert None not in cards and sorted(cards) == sorted(g.hand_kinds(dummy))


def parse(code: str) -> int:
    from crates_env import parse_card

    return parse_card(code)


# --- results in words ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def crates_end():
    g = new_game("crates", 4, seed=0, deal_schedule=[1])
    while not g.game_over:
        g.apply(g.legal_actions()[0])
    return table_snapshot(g)


def test_who_won_a_partnership_game_and_by_how_much(crates_end):
    end = replace(crates_end, scores=(1350, 1210), winners=(1,))
    assert game_result(end) == "p1&p3 win by 140 points (p0&p2 1,350, p1&p3 1,210)"
    tie = replace(crates_end, scores=(70, 70), winners=(0, 1))
    assert game_result(tie) == "a tie: p0&p2 70, p1&p3 70"
    with pytest.raises(ValueError, match="not over"):
        game_result(replace(crates_end, game_over=False))


def test_who_won_each_kind_of_game(crates_end):
    three = replace(crates_end, sides=((0,), (1,), (2,)), partnerships=False)
    low = replace(three, scores=(40, 65, 90), winners=(0,))
    assert game_result(low) == "p0 wins by 25 points (p0 40, p1 65, p2 90)"
    high = replace(three, scores=(40, 65, 90), winners=(2,), point_sign=1)
    assert game_result(high) == "p2 wins by 25 points (p0 40, p1 65, p2 90)"
    stars = replace(three, scores=(40, 40, 90), winners=(1,))
    assert game_result(stars) == "p1 wins on stars (p0 40, p1 40, p2 90)"
    shared = replace(three, scores=(40, 40, 90), winners=(0, 1))
    assert game_result(shared) == "p0 and p1 tie for the win (p0 40, p1 40, p2 90)"
    last = replace(three, last_player=True, winners=(2,), hands=(None,) * 4)
    assert game_result(last) == "p2 wins: the last player left after 4 hands"
    guard = replace(low, truncated=True)
    assert game_result(guard) == (
        "p0 wins by 25 points (p0 40, p1 65, p2 90); the turn guard stopped the game"
    )


def test_who_won_a_hand_and_by_how_much(crates_end):
    row = HandRow(3, 5, (12, 40), "out", 1, ())
    assert hand_result(crates_end, row) == (
        "hand 3 to p0&p2 by 28 points (p0&p2 +12, p1&p3 +40); p1 went out"
    )
    tied = HandRow(4, 5, (30, 30), "pressure", None, ())
    assert (
        hand_result(crates_end, tied)
        == "hand 4 tied between p0&p2 and p1&p3 (p0&p2 +30, p1&p3 +30)"
    )
    three = replace(crates_end, sides=((0,), (1,), (2,)), partnerships=False, last_player=True)
    knocked = HandRow(2, 5, (5, 30, 0), "out", 2, (1,))
    assert (
        hand_result(three, knocked) == "hand 2 (p0 +5, p1 +30, p2 +0); p2 went out; p1 knocked out"
    )

"""Pictures of the table: the snapshot model on stacked deals, the events each step holds, the
layout's words for each preset, the environment's rgb_array frames (shape and content) and the
replay page's data."""

from __future__ import annotations

import json
import random
import re
from itertools import chain

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crates_env import Decision, crates_v0, new_game, parse_card
from crates_env.cards import SUIT_SYMBOLS, pretty
from crates_env.env import play_seats
from crates_env.render import Recorder, frame, layout, page_html, table_snapshot
from crates_env.render.layout import (
    HEADER_H,
    MIDDLE_X,
    PANEL,
    TO_PLAY,
    Text,
    row_height,
    scene_size,
)
from crates_env.render.page import _edits
from crates_env.render.table import EventCursor
from crates_env.state import HAND_ENDINGS

from .aec import ONE_CARD_DEAL, ONE_CARD_OPTIONS, STARTER_HANDS, act
from .scripted import deal_order


def texts_of(snapshot) -> list[str]:
    return [s.text for s in layout(snapshot).items if isinstance(s, Text)]


def kinds(codes: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in codes.split())


# --- the model -----------------------------------------------------------------------------------


def test_snapshot_of_a_stacked_deal_and_its_end():
    """Crates, one 1-card hand dealt by p2: p3 goes out with Q♣ on K♣; team 0 keeps J♦ + A♦
    (11), team 1 keeps 5♥ (30)."""
    g = new_game("crates", 4, seed=0, deal_schedule=[1], **ONE_CARD_OPTIONS)
    cursor = EventCursor(g, from_start=True)
    names = ["ann", "bob", "cat", "dan"]
    snap = table_snapshot(g, names, move=parse_card("QC"), events=cursor.take(g))
    assert [s.cards for s in snap.seats] == [kinds("JD"), kinds("5H"), kinds("AD"), kinds("QC")]
    assert [s.name for s in snap.seats] == names
    assert snap.sides == ((0, 2), (1, 3)) and snap.partnerships
    assert [s.side for s in snap.seats] == [0, 1, 0, 1]
    assert (snap.top, snap.suit, snap.suit_named) == (parse_card("KC"), 0, False)
    assert (snap.to_play, snap.turn, snap.decision) == (3, 3, Decision.PLAY)
    assert (snap.stock_size, snap.discard_size, snap.direction, snap.count) == (47, 1, 1, 0)
    assert (snap.hand_number, snap.num_hands, snap.dealer, snap.deal_size) == (1, 1, 2, 1)
    assert [e.kind for e in snap.events] == ["deal", "turn_starter"]
    assert not snap.game_over and snap.hands == () and snap.scores == (0, 0)

    g.apply(parse_card("QC"))
    end = table_snapshot(g, names, events=cursor.take(g))
    assert [e.kind for e in end.events] == ["play", "go_out", "team_scores"]
    assert end.game_over and end.winners == (0,) and end.scores == (11, 30)
    (row,) = end.hands
    assert (row.number, row.deal_size, row.points, row.ended_by, row.went_out) == (
        1, 1, (11, 30), "out", 3,
    )  # fmt: skip
    assert (end.hand_number, end.to_play, end.decision) == (1, None, None)


def test_hands_are_shown_sorted_by_suit_colours_alternating():
    g = new_game("zimbabwe", 2, seed=0, zimbabwe_jokers=2)
    g.set_position(
        hands=[["2C", "KH", "JK", "AS", "9D", "4H", "AH"], ["5C"]], discard=["6S"], turn=0
    )
    cards = table_snapshot(g).seats[0].cards
    assert cards == kinds("AS AH 4H KH 2C 9D JK")


def test_a_called_suit_is_shown_as_named():
    g = new_game("crates", 2, seed=0, deal_schedule=[3])
    g.set_position(hands=[["2C", "4D"], ["5H"]], discard=["3S", "8H"], turn=0, suit="C")
    snap = table_snapshot(g)
    assert (snap.top, snap.suit, snap.suit_named) == (parse_card("8H"), 0, True)
    assert "suit named" in texts_of(snap)


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(["crates", "kreights", "creights", "crazy_eights", "zimbabwe"]),
    seed=st.integers(0, 2**16),
)
def test_every_event_of_a_game_belongs_to_exactly_one_step(preset, seed):
    """The steps' events, in order, are the game's whole log; one step a decision, plus the
    end, and each step's move is the action that was applied."""
    # random play can wander for thousands of turns: the guards stop it (their events too)
    short = {"max_hands": 3, "max_decisions_per_hand": 300}
    if preset not in ("crazy_eights", "zimbabwe"):
        short["deal_schedule"] = [3, 1]
    g = new_game(preset, 3, seed=seed, **short)
    rng = random.Random(seed)
    recorder = Recorder(["a", "b", "c"])
    moves = []
    while not g.game_over:
        action = rng.choice(g.legal_actions())
        recorder.record(g, action)
        moves.append(action)
        g.apply(action)
    replay = recorder.finish("t")
    assert len(replay.steps) == len(moves) + 1
    assert [s.move for s in replay.steps] == [*moves, None]
    logged = list(chain.from_iterable(g.hand_logs))
    assert list(chain.from_iterable(s.events for s in replay.steps)) == logged
    assert replay.steps[-1].game_over and replay.steps[-1].scores == tuple(g.scores)


@pytest.mark.parametrize(("preset", "n"), [("crates", 4), ("zimbabwe", 3)])
def test_a_replays_hands_are_the_hands_the_environment_reports(preset, n):
    """A replay recorded while the environment plays (as evaluation records one) shows the
    hands of ``raw_env.hand_summaries``, the records the infos' numbers stand for: the same
    sizes, endings, who went out and points per seat."""
    short = {"max_hands": 3} if preset == "zimbabwe" else {"deal_schedule": [2, 1]}
    env = crates_v0.raw_env(preset=preset, num_players=n, **short)
    env.reset(seed=11)
    recorder = Recorder(env.possible_agents)
    rng = random.Random(11)

    def choose(seat: int, obs: dict) -> int:
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        recorder.record(env.game, action)
        return action

    play_seats(env, choose)
    rows = recorder.finish("t").steps[-1].hands
    summaries = env.hand_summaries
    assert len(rows) == len(summaries) > 0
    for row, hand in zip(rows, summaries, strict=True):
        assert (row.number - 1, row.deal_size) == (hand["hand_index"], hand["deal_size"])
        assert (row.ended_by, row.went_out) == (hand["ended_by"], hand["went_out"])
        assert row.ended_by in HAND_ENDINGS[1:]
        sides = [env.rules.team_of(s) for s in range(n)]
        assert [row.points[side] for side in sides] == hand["points"]


# --- each preset's own table ---------------------------------------------------------------------


def test_zimbabwe_in_air_and_knocked_out():
    g = new_game("zimbabwe", 4, seed=0)
    g.set_position(
        hands=[["5D", "9C"], [], ["KH"], ["4S"]], stock=["3S", "4D"], discard=["6C"], turn=0
    )
    snap = table_snapshot(g)
    assert [s.in_air for s in snap.seats] == [False, True, False, False]
    assert "in air" in texts_of(snap)

    rng = random.Random(1)
    g = new_game("zimbabwe", 3, seed=4)
    while not g.results:
        g.apply(rng.choice(g.legal_actions()))
    (out,) = g.results[0].eliminated
    snap = table_snapshot(g)
    assert [s.active for s in snap.seats] == [s != out for s in range(3)]
    words = texts_of(snap)
    assert "knocked out" in words and f"{g.results[0].team_points[out]}×" in words
    assert any("the last player left wins" in t for t in words)


def test_crazy_eights_says_the_winner_collects_and_the_highest_score_wins():
    snap = table_snapshot(new_game("crazy_eights", 4, seed=0))
    assert snap.winner_collects and snap.point_sign == 1 and snap.target_score == 200
    words = texts_of(snap)
    assert "who goes out collects the hand" in words
    assert any("first to 200; the highest score wins" in t for t in words)


def test_crates_shows_the_partnerships():
    words = texts_of(table_snapshot(new_game("crates", 4, seed=0)))
    assert "crates · 4 players · partners p0&p2 v p1&p3" in words
    assert words.count("p0&p2") == 1 and words.count("p1&p3") == 1  # the scores' columns
    assert "p0&p2 · score 0" in words and "p1&p3 · score 0" in words


def test_the_scores_table_shows_the_latest_hands_and_the_totals():
    rng = random.Random(0)
    g = new_game("crates", 4, seed=2)
    while not g.game_over:
        g.apply(rng.choice(g.legal_actions()))
    snap = table_snapshot(g)
    totals = {s.role: s.text for s in layout(snap).items if isinstance(s, Text) and s.role}
    assert totals["total-0"] == str(g.scores[0]) and totals["total-1"] == str(g.scores[1])
    assert totals["status"] == "game over"
    assert len(snap.hands) == 15


# --- frames --------------------------------------------------------------------------------------


def heart_or_club_deal(starter: str) -> dict:
    return {
        "deck": deal_order([["JD"], ["5H"], ["AD"], ["QC"]], dealer=2, starter=starter),
        "dealer": 2,
    }


def red_pixels(image: np.ndarray) -> int:
    r, g, b = (image[..., i].astype(int) for i in range(3))
    return int(((r > 150) & (g < 90) & (b < 90)).sum())


def test_rgb_array_frames_show_the_table():
    env = crates_v0.env(deal_schedule=[1], render_mode="rgb_array")
    env.reset(seed=0, options=heart_or_club_deal("KH"))
    first = env.render()
    width, height = scene_size(4, 2)
    assert first.shape == (height, width, 3) and first.dtype == np.uint8
    # the discard top, K♥, is red; on the same deal with K♣ turned, nothing there is
    discard = (slice(HEADER_H + 22, HEADER_H + 110), slice(MIDDLE_X + 20, MIDDLE_X + 84))
    assert red_pixels(first[discard]) > 150
    env.reset(seed=0, options=heart_or_club_deal("KC"))
    club = env.render()
    assert red_pixels(club[discard]) == 0
    # p3 is to play: its row is marked, p0's is not
    rh = row_height(4)
    below_the_words = HEADER_H + 8 + rh - 20

    def row_colour(seat: int) -> tuple[int, ...]:
        return tuple(club[below_the_words + seat * rh, 120])

    assert row_colour(3) == tuple(int(TO_PLAY[i : i + 2], 16) for i in (1, 3, 5))
    assert row_colour(0) == tuple(int(PANEL[i : i + 2], 16) for i in (1, 3, 5))
    act(env, "play QC")
    over = env.render()
    assert over.shape == club.shape and (over != club).any()
    # p1's hand: 5♥ still there at the end, a red card in its row
    row1 = (slice(HEADER_H + 8 + rh, HEADER_H + 8 + 2 * rh), slice(200, 740))
    assert red_pixels(over[row1]) > 150


def test_render_modes_and_their_errors():
    assert crates_v0.raw_env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    env = crates_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="reset"):
        env.render()
    with pytest.raises(ValueError, match="None, ansi, human, rgb_array"):
        crates_v0.env(render_mode="video")


@pytest.mark.parametrize(("preset", "n"), [("kreights", 3), ("craits", 12)])
def test_a_frame_has_the_size_of_its_table(preset, n):
    """Every frame of a game has one size (a video's frames must), set by the table."""
    g = new_game(preset, n, seed=5)
    width, height = scene_size(n, n)
    assert frame(table_snapshot(g)).shape == (height, width, 3)
    g.apply(g.legal_actions()[0])
    assert frame(table_snapshot(g)).shape == (height, width, 3)


# --- the page ------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=12), st.lists(st.integers(0, 6), max_size=12))
def test_the_page_edits_turn_one_step_into_the_next(before, after):
    ids = list(before)
    for at, removed, added in _edits(before, after):
        ids[at : at + removed] = added
    assert ids == after


def page_steps(html: str) -> tuple[list[str], list[list[int]]]:
    """The page's data as its script reads it: the fragments and each step's list."""
    raw = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    data = json.loads(raw.group(1).replace("<\\/", "</"))
    steps, ids = [], []
    for edits in data["steps"]:
        ids = list(ids)
        for at, removed, added in edits:
            ids[at : at + removed] = added
        steps.append(ids)
    return data["fragments"], steps


def test_the_page_is_self_contained_and_ends_on_the_final_scores():
    g = new_game("crates", 4, seed=1, deal_schedule=[2, 1])
    rng = random.Random(1)
    recorder = Recorder(["a</script>", "b", "c", "d"])
    while not g.game_over:
        action = rng.choice(g.legal_actions())
        recorder.record(g, action)
        g.apply(action)
    replay = recorder.finish("a game & more", ["p0 a"])
    html = page_html(replay)
    assert "http" not in html and " src=" not in html and '<link rel="stylesheet"' not in html
    assert html.count("</script>") == 2  # a name cannot end the data early
    fragments, steps = page_steps(html)
    assert len(steps) == len(replay.steps)
    last = "".join(fragments[i] for i in steps[-1])
    for side, score in enumerate(g.scores):
        assert f'data-role="total-{side}">{score}</text>' in last
    assert "a game &amp; more" in html and "a&lt;/script&gt;" in "".join(fragments)


def test_the_docs_video_example_writes_an_animation(tmp_path, monkeypatch):
    from pathlib import Path

    from PIL import Image

    docs = (Path(__file__).resolve().parent.parent / "docs" / "env.md").read_text()
    (code,) = [c for c in re.findall(r"```python\n(.*?)```", docs, re.S) if "game.gif" in c]
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "docs/env.md", "exec"), scope)
    with Image.open(tmp_path / "game.gif") as gif:
        assert len(scope["frames"]) == 19
        assert 5 < gif.n_frames <= 19  # Pillow merges repeated frames
        assert gif.size == scope["frames"][0].shape[1::-1]


# --- the AEC environment's render modes -------------------------------------------------------


def test_render_ansi_shows_top_card_and_scores():
    deck = ONE_CARD_DEAL
    env = crates_v0.env(deal_schedule=[1, 8], render_mode="ansi")
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    text = env.render()
    assert isinstance(text, str)
    assert "K♣" in text
    assert "suit ♣" in text
    act(env, "play QC")
    text = env.render()
    top = env.unwrapped.public_state()["top_card"]
    assert pretty(parse_card(top)) in text
    assert any(symbol in text for symbol in SUIT_SYMBOLS)
    for seat, score in enumerate([11, 30, 11, 30]):
        assert re.search(rf"p{seat} \(team {seat % 2}\)\s+\d+\s+{score}\s+0", text), text


def test_render_ansi_eight_of_hearts():
    env = crates_v0.env(deal_schedule=[2], render_mode="ansi")
    deck = deal_order(STARTER_HANDS, dealer=0, starter="8H")
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    text = env.render()
    assert "8♥" in text
    assert "name the starter's suit" in text


def test_render_human_prints_the_table_where_no_window_opens(capsys):
    env = crates_v0.env(deal_schedule=[1], render_mode="human")
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    assert "K♣" in capsys.readouterr().out  # reset renders
    assert env.render() is None
    out = capsys.readouterr().out
    assert "K♣" in out and "p3 to play" in out
    act(env, "play QC")
    out = capsys.readouterr().out
    assert "Q♣" in out and "game over" in out


def test_render_without_mode_returns_none():
    env = crates_v0.env(deal_schedule=[1])
    env.reset(seed=0)
    assert env.render() is None

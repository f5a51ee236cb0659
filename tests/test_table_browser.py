"""The served table (``crates serve``) in a real browser: headless Chromium driven by playwright,
against a server of the app on a thread (``train.cli.serve.web_server``), the agents' moves
shown without a pause.

A whole hand of 4-player crates played by clicks at seat 0 against HeuristicAgent; a reload in
the middle with the game intact; an illegal click and a stale move (from a second tab of the
same game) refused with the game unchanged; two tabs playing two games at once; the explain
toggle's probabilities summing to 1 over the legal moves; a finished game opened as its replay
page; a full table's refusal said on the page. The ``browser`` fixture (tests/conftest.py) skips
without Chromium, and fails instead under ``CRATES_BROWSER_TESTS=required`` (CI).
"""

from __future__ import annotations

import pytest

from crates_env.actions import action_name, parse_action
from train.cli.seated import ServeConfig, Tables

pytest.importorskip("starlette", reason="crates serve needs the web extra: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="crates serve needs the web extra: pip install '.[web]'")

from .pages import watched_page
from .served import serving

HEURISTIC = {1: "heuristic", 2: "heuristic", 3: "heuristic"}
READY = 'body[data-busy="0"]'


@pytest.fixture(scope="module")
def crates():
    tables = Tables(ServeConfig("crates", 4, 0, HEURISTIC, pace=0))
    with serving(tables) as url:
        yield url, tables


def open_table(browser, url: str):
    """A tab at ``url``, once its state is shown; what it loads from elsewhere, and its
    errors, are kept in ``page.problems``."""
    origin = url.split("/game/")[0].rstrip("/")
    page = watched_page(browser, 1300, 1000, own=(origin, "data:"))
    page.goto(url)
    page.wait_for_selector(READY)
    return page


def decision(page) -> int:
    return int(page.get_attribute("body", "data-decision"))


def click_a_legal_move(page) -> None:
    """The first legal card, or else the first other move; then wait for the table."""
    before = decision(page)
    legal = page.locator(".card.legal")
    (legal if legal.count() else page.locator(".move")).first.click()
    page.wait_for_selector(READY)
    assert decision(page) > before


def seen(page) -> dict:
    """What the tab shows of its game."""
    return {
        "url": page.url,
        "decision": decision(page),
        "status": page.inner_text("#status"),
        "table": page.inner_html("#layer"),
        "hand": page.eval_on_selector_all(".card", "cs => cs.map(c => c.outerHTML)"),
        "hands": page.inner_text("#hands"),
    }


def test_a_whole_hand_by_clicks_with_a_reload_in_the_middle(browser, crates):
    url, tables = crates
    page = open_table(browser, url + "/")
    game = tables.get(page.url.rsplit("/", 1)[1])
    assert page.url.endswith(f"/game/{game.id}")
    assert page.inner_text("#status").startswith("your move")
    clicks = 0
    while not page.locator("#hands li").count():
        click_a_legal_move(page)
        clicks += 1
        if clicks == 4:  # a reload in the middle: the same game, the same table
            before = seen(page)
            page.reload()
            page.wait_for_selector(READY)
            assert seen(page) == before
        assert clicks < 300
    (words,) = page.locator("#hands li").all_inner_texts()
    snap_row = game.state()["hands"][0]
    assert words == snap_row and words.startswith(("hand 1 to p0&p2 by", "hand 1 to p1&p3 by"))
    assert clicks >= 4 and game.answered and len(game.answered) == clicks
    assert page.problems == []
    page.close()


def test_an_illegal_click_and_a_stale_move_are_refused_and_change_nothing(browser, crates):
    url, tables = crates
    page = open_table(browser, url + "/")
    for _ in range(200):  # on to a decision with a card that may not be played
        if page.locator(".card.illegal").count() and page.locator(".card.legal").count():
            break
        click_a_legal_move(page)
    before = seen(page)
    # a mouse click on the dimmed card (force: playwright itself holds back from a control
    # marked aria-disabled, which a person's click is not)
    page.locator(".card.illegal").first.click(force=True)
    page.wait_for_selector(READY)
    assert "is not a legal move now; legal: play" in page.inner_text("#message")
    assert seen(page) == before
    # a second tab of the same game moves on; the first tab's move is then stale
    other = open_table(browser, page.url)
    assert seen(other) == before
    played = action_name(int(other.locator(".card.legal").first.get_attribute("data-action")))
    click_a_legal_move(other)
    moved = seen(other)
    page.locator(".card.legal").first.click()
    page.wait_for_selector(READY)
    refused = f"was answered ({played}); the game is at decision {moved['decision']}"
    assert page.inner_text("#message").startswith("a move made already: decision")
    assert refused in page.inner_text("#message")
    assert seen(page) == moved  # the first tab now shows the game as it is
    assert tables.get(page.url.rsplit("/", 1)[1]).decision == moved["decision"]
    failed = "Failed to load resource: the server responded with a status of"
    assert page.problems == [f"{failed} 422 (Unprocessable Entity)", f"{failed} 409 (Conflict)"]
    assert other.problems == []
    page.close()
    other.close()


def test_two_tabs_play_two_games_at_once(browser, crates):
    url, tables = crates
    tabs = [open_table(browser, url + "/") for _ in range(2)]
    assert tabs[0].url != tabs[1].url
    games = [tables.get(tab.url.rsplit("/", 1)[1]) for tab in tabs]
    for _ in range(3):
        for tab, game in zip(tabs, games, strict=True):
            click_a_legal_move(tab)
            assert decision(tab) == game.decision
    assert [len(game.answered) for game in games] == [3, 3]
    for tab in tabs:
        tab.close()


def test_the_explain_toggle_shows_the_networks_probabilities_of_the_legal_moves(browser, crates):
    url, _ = crates
    page = open_table(browser, url + "/")
    assert page.locator("#explain").is_hidden()
    for _ in range(3):
        page.check("#why")
        rows = page.locator("#explain tr[data-probability]")
        shown = rows.evaluate_all("rs => rs.map(r => [r.dataset.move, +r.dataset.probability])")
        buttons = page.locator(".card.legal, .move")
        legal = buttons.evaluate_all("bs => bs.map(b => b.dataset.action)")
        assert {parse_action(move) for move, _ in shown} == {int(a) for a in legal}
        assert sum(p for _, p in shown) == pytest.approx(1, abs=1e-3)
        assert page.inner_text("#explain").startswith("the shipped network, at your seat")
        click_a_legal_move(page)
    page.uncheck("#why")
    assert page.locator("#explain").is_hidden()
    page.close()


def test_a_finished_game_opens_as_a_replay_page(browser):
    config = ServeConfig("crates", 4, 0, HEURISTIC, options={"deal_schedule": [2]}, pace=0)
    with serving(Tables(config)) as url:
        page = open_table(browser, url + "/")
        while page.locator("#replay").is_hidden():
            click_a_legal_move(page)
        result = page.inner_text("#result")
        assert page.inner_text("#status") == f"game over: {result}"
        page.click("#replay")
        page.wait_for_selector("#where")
        assert page.url.endswith("/replay")
        page.keyboard.press("End")
        steps = page.inner_text("#where").split(" / ")[1]
        assert page.inner_text("#where") == f"step {steps} / {steps}"
        page.keyboard.press("Home")
        page.keyboard.press("w")  # why: at the person's steps, the shipped network's view
        for _ in range(int(steps)):
            if page.inner_text("#explain").startswith("p0 · you"):
                break
            said = page.inner_text("#explain")
            assert said.startswith(("p1 · heuristic", "p2 · ", "p3 · "))
            assert "its move is all it shows (a scripted agent, or a person)" in said
            page.keyboard.press("ArrowRight")
        assert page.locator("#explain tr[data-probability]").count() >= 1
        assert page.locator("#explain tr.chosen").count() == 1  # the move the person made
        assert page.problems == []
        page.close()


def test_a_full_table_says_so_on_the_page(browser):
    """A table whose games are all being played: a new tab gets no game, and its page says why
    and when to try again (a 429, not the 5xx of a server in trouble)."""
    config = ServeConfig("crates", 2, 0, {1: "random"}, options={"deal_schedule": [2]}, pace=0)
    tables = Tables(config, limit=2)
    playing = [tables.new(), tables.new()]
    with serving(tables) as url:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector(f"#message:not(:empty), {READY}")  # a word, or a game shown
        assert page.inner_text("#message") == (
            "the table is full: its 2 games are all being played (a game gives way once no one "
            "has opened it for 10 minutes); try again in 10 minutes"
        )
        assert page.url == url + "/" and page.locator(".card").count() == 0
        # in view at once and not dimmed: no empty table above it, nothing left waiting
        box = page.locator("#message").bounding_box()
        assert box["y"] + box["height"] <= page.viewport_size["height"]
        assert page.get_attribute("body", "data-busy") == "0"
        assert [tables.get(game.id) for game in playing] == playing
        page.close()

"""``crates serve`` without a browser: Starlette's TestClient against the app.

Every malformed, oversized, illegal, stale or duplicated request gets a 4xx with a message and
leaves every game as it was; nothing a seat may not see reaches the page; a finished game opens
as a replay page with what each agent weighed; the web library loads only for ``crates serve``.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

from crates_env.render import layout, table_snapshot
from crates_env.render.layout import HEADER_H, LEFT_W, row_height
from crates_env.render.svg import fragment
from train.cli.commands import build_parser
from train.cli.seated import MAX_GAMES, Refused, ServeConfig, Tables, parse_move

from .test_cli_errors import fails
from .waiting import crates_command

pytest.importorskip("starlette", reason="crates serve needs the web extra: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="crates serve needs the web extra: pip install '.[web]'")

from starlette.testclient import TestClient

from train.cli.serve import MAX_BODY, build_app, listen

HEURISTIC = {1: "heuristic", 2: "heuristic", 3: "heuristic"}
SHORT = {"deal_schedule": [2, 1]}


def client(tables: Tables) -> TestClient:
    return TestClient(build_app(tables), base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def tables():
    return Tables(ServeConfig("crates", 4, 0, HEURISTIC, options=SHORT, pace=0))


def first_legal(state: dict) -> int:
    cards = [c["action"] for c in state["hand"] if c["legal"]]
    return (cards or [m["action"] for m in state["moves"]])[0]


def play_to_the_end(http: TestClient, state: dict) -> dict:
    while not state["over"]:
        move = {"decision": state["decision"], "action": first_legal(state)}
        answer = http.post(f"/api/games/{state['game']}/move", json=move)
        assert answer.status_code == 200, answer.text
        state = answer.json()
    return state


def test_bad_requests_get_a_4xx_and_leave_the_games_as_they_were(tables):
    http = client(tables)
    first, other = http.post("/api/games").json(), http.post("/api/games").json()
    game = first["game"]
    path = f"/api/games/{game}/move"
    decision, legal = first["decision"], first_legal(first)
    illegal = [c["action"] for c in first["hand"] if not c["legal"]] or [57]
    posts = {
        "not JSON": (400, {"content": b"decision=0&action=3", "headers": _json}),
        "broken JSON": (400, {"content": b'{"decision": 0, "action":', "headers": _json}),
        "not UTF-8": (400, {"content": b'{"decision": \xff}', "headers": _json}),
        "deeply nested": (400, {"content": b"[" * 1000, "headers": _json}),
        "a list": (400, {"json": [decision, legal]}),
        "a key too many": (400, {"json": {"decision": decision, "action": legal, "seat": 1}}),
        "a key missing": (400, {"json": {"action": legal}}),
        "a string": (400, {"json": {"decision": str(decision), "action": legal}}),
        "a bool": (400, {"json": {"decision": decision, "action": True}}),
        "a float": (400, {"json": {"decision": decision, "action": float(legal)}}),
        "no such action": (400, {"json": {"decision": decision, "action": 63}}),
        "a negative decision": (400, {"json": {"decision": -1, "action": legal}}),
        "too large": (413, {"json": {"decision": decision, "action": legal, "x": "y" * MAX_BODY}}),
        "too large, said so": (413, {"content": b"{}",
                                     "headers": {**_json, "content-length": "99999"}}),
        "too large, streamed": (413, {"content": _chunks(MAX_BODY + 1), "headers": _json}),
        "not said as JSON": (415, {"content": json.dumps({"decision": decision, "action": legal}),
                                   "headers": {"content-type": "text/plain"}}),
        "illegal": (422, {"json": {"decision": decision, "action": illegal[0]}}),
        "not come yet": (409, {"json": {"decision": decision + 5, "action": legal}}),
    }  # fmt: skip
    for case, (status, request) in posts.items():
        answer = http.post(path, **request)
        assert answer.status_code == status, (case, answer.text)
        assert answer.json()["error"], case
        assert http.get(f"/api/games/{game}").json() == first, case
    assert http.post(f"/api/games/{'x' * 40}/move", json={}).status_code == 404
    assert http.post("/api/games/no%2Fsuch/move", json={}).status_code == 404
    assert http.get("/api/games/nosuchgame").status_code == 404
    assert http.get(path).status_code == 405  # a move is posted
    assert http.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert http.post("/api/games", content=b"x" * (MAX_BODY + 1)).status_code == 413
    assert http.get(f"/api/games/{other['game']}").json() == other  # the other game untouched
    # the move itself, then the same move again: a duplicate, refused
    done = http.post(path, json={"decision": decision, "action": legal})
    assert done.status_code == 200 and done.json()["decision"] > decision
    again = http.post(path, json={"decision": decision, "action": legal})
    assert again.status_code == 409
    assert again.json()["error"].startswith(f"a move made already: decision {decision} was")
    # a decision an agent made since: stale
    agents = next(s["decision"] for s in done.json()["steps"] if not s["said"].startswith("p0 "))
    stale = http.post(path, json={"decision": agents, "action": legal})
    assert stale.status_code == 409
    assert stale.json()["error"].startswith(f"a stale move: decision {agents} was another seat's")
    assert http.get(f"/api/games/{game}").json() == done.json()


_json = {"content-type": "application/json"}


def _chunks(size: int):
    """A body sent in pieces without a Content-Length (chunked)."""
    for _ in range(size // 100 + 1):
        yield b" " * 100


def test_parse_move_names_what_is_wrong():
    assert parse_move({"decision": 3, "action": 57}) == (3, 57)
    with pytest.raises(Refused, match=r"action must be 0\.\.62, not 63") as no:
        parse_move({"decision": 3, "action": 63})
    assert no.value.status == 400
    with pytest.raises(Refused, match=r"decision must be a whole number >= 0, not '3'"):
        parse_move({"decision": "3", "action": 1})


def test_the_page_never_gets_a_card_its_seat_cannot_see(tables):
    """At every decision of a whole game the table drawn for the page shows face up the seat's
    own hand and the discard top, the others' cards as backs; so does every step between."""
    http = client(tables)
    state = http.post("/api/games").json()
    game = tables.get(state["game"]).env.game
    everything = "".join(fragment(shape) for shape in layout(table_snapshot(game)).items)
    assert _faces_in_rows(everything) == {0, 1, 2, 3}  # the check sees a card face up
    while True:
        view = game.view(0)
        mine = {c["kind"] for c in state["hand"]}
        assert sorted(mine) == sorted(set(view.hand_kinds()))
        assert _faces(state["table"]) <= mine | {view.top}
        backs = len(re.findall(r'href="#back"', state["table"]))
        assert backs == sum(view.sizes[1:]) + (view.stock_size > 0)
        for step in [*state["steps"], state]:  # between, too: no face up in another's row
            assert _faces_in_rows(step["table"]) <= {0}
        if state["over"]:
            break
        move = {"decision": state["decision"], "action": first_legal(state)}
        state = http.post(f"/api/games/{state['game']}/move", json=move).json()
    assert re.fullmatch(r"game over: p\d&p\d win by [\d,]+ points \(p0&p2 [\d,-]+, p1&p3 [\d,-]+\)",
                        state["status"])  # fmt: skip
    assert state["result"] == state["status"].removeprefix("game over: ")
    assert len(state["hands"]) == 2 and state["hands"][0].startswith("hand 1 ")


def _faces(svg: str) -> set[int]:
    return {int(k) for k in re.findall(r'href="#k(\d+)"', svg)}


def _faces_in_rows(svg: str) -> set[int]:
    """The seats whose rows (on the left of the table drawn) show a card face up."""
    rows = set()
    for x, y in re.findall(r'href="#k\d+" x="([\d.]+)" y="([\d.]+)"', svg):
        if float(x) < LEFT_W:
            rows.add(int((float(y) + 8 - HEADER_H - 8) // row_height(4)))  # a raised card: +8
    return rows


def test_a_finished_game_opens_as_a_replay_page_with_what_the_agents_weighed():
    tables = Tables(ServeConfig("crates", 4, 2, {0: "shipped", 1: "heuristic", 3: "shipped"},
                                options={"deal_schedule": [3]}, pace=0))  # fmt: skip
    http = client(tables)
    state = http.post("/api/games").json()
    replay = f"/game/{state['game']}/replay"
    assert http.get(replay).status_code == 409  # not over yet
    assert state["explain"]["who"] == "the shipped network, at your seat"
    assert sum(state["explain"]["probabilities"]) == pytest.approx(1, abs=1e-3)
    state = play_to_the_end(http, state)
    page = http.get(replay)
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    raw = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page.text)
    panels = [p for p in json.loads(raw.group(1).replace("<\\/", "</"))["explain"] if p]
    by_seat = {p["who"].split(" · ")[0]: p for p in panels}
    assert set(by_seat) == {"p0", "p1", "p2", "p3"}
    for seat in ("p0", "p2", "p3"):  # the networks, and the adviser at the person's seat
        assert any("probabilities" in p for p in panels if p["who"].startswith(seat))
    assert "moves" not in by_seat["p1"] and by_seat["p1"]["who"] == "p1 · heuristic"


def test_a_new_game_beyond_the_limit_drops_the_least_recently_used():
    tables = Tables(ServeConfig("crates", 2, 0, {1: "random"}, options=SHORT, pace=0), limit=2)
    a, b = tables.new(), tables.new()
    tables.get(a.id)  # a was seen last
    tables.new()
    assert tables.get(a.id) is a
    with pytest.raises(Refused, match="keeps its 2 latest games") as no:
        tables.get(b.id)
    assert no.value.status == 404 and MAX_GAMES == 100


def test_the_steps_shown_are_the_persons_move_then_the_agents_replies():
    """Seat 1 against greedy at 2-player crates: after the person's move, the steps are that
    move then each agent move up to the person's next decision, numbered in order."""
    tables = Tables(ServeConfig("crates", 2, 1, {0: "greedy"}, options=SHORT, pace=0))
    game = tables.new()
    state = game.state()
    assert [s["decision"] for s in state["steps"]] == list(range(state["decision"]))
    assert all(s["said"].startswith("p0 (greedy): ") for s in state["steps"])
    before = state["decision"]
    game.move(before, first_legal(state))
    after = game.state()
    assert after["steps"][0]["decision"] == before and after["steps"][0]["said"].startswith(
        "p1 (you): "
    )
    assert [s["decision"] for s in after["steps"]] == list(range(before, after["decision"]))


def test_the_web_library_loads_only_for_crates_serve():
    code = (
        "import train.cli, train.cli.commands, train.cli.seated, sys; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_crates_serve_refuses_bad_settings_in_one_line(capsys):
    assert "--seat must be 0..3, not 4" in fails(["serve", "--seat", "4"], capsys)
    assert "unknown agent 'nobody'" in fails(["serve", "--opponents", "nobody"], capsys)
    assert "one opponent for all seats or one for each of 3" in fails(
        ["serve", "--opponents", "heuristic", "greedy"], capsys
    )
    assert "--pace takes 0 to 60 seconds, not -1.0" in fails(["serve", "--pace", "-1"], capsys)
    taken = listen("127.0.0.1", 0)
    port = taken.getsockname()[1]
    argv = ["serve", "--opponents", "random", "--port", str(port)]
    assert f"cannot listen on 127.0.0.1:{port}" in fails(argv, capsys)
    taken.close()


def test_crates_serve_listens_on_this_machine_until_ctrl_c():
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"
    argv = ["serve", "--opponents", "random", "--port", "0", "--rule", "deal_schedule=[1]"]
    server = crates_command(argv, stdout=subprocess.PIPE, text=True)  # Ctrl-C as at a terminal
    try:
        said = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", said).group(0)
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b'id="hand"' in page.read()
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130  # stopped by Ctrl-C, as every command says

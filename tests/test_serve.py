"""``crates serve`` without a browser: Starlette's TestClient against the app, and a real uvicorn
server on a free port of this machine where the behaviour lives in the server.

Every malformed, oversized, illegal, stale or duplicated request gets a 4xx with a message and
leaves every game as it was; nothing a seat may not see reaches the page; a finished game opens
as a replay page with what each agent weighed; the web library loads only for ``crates serve``.
Under hostile clients no one takes the table from the others: half-open and slow requests are
cut off and lock no one out, one address gets its share of the connections, of the requests
being answered and of the games, a full table says so with a 429, a client gone mid-body is one
line of the log, and pages answer only to the names of the host they listen on.
"""

from __future__ import annotations

import http.client
import json
import re
import select
import signal
import socket
import subprocess
import sys
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from crates_env.render import layout, table_snapshot
from crates_env.render.layout import HEADER_H, LEFT_W, row_height
from crates_env.render.svg import fragment
from train.cli.commands import build_parser
from train.cli.seated import (
    CLIENT_GAMES,
    IDLE_SECONDS,
    MAX_GAMES,
    Refused,
    ServeConfig,
    Tables,
    parse_move,
)

from .test_cli_errors import fails
from .waiting import crates_command, wait_for

pytest.importorskip("starlette", reason="crates serve needs the web extra: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="crates serve needs the web extra: pip install '.[web]'")

from starlette.testclient import TestClient

from train.cli.serve import MAX_BODY, Limits, build_app, host_names, listen, web_server

from .served import serving

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


def test_a_full_table_refuses_a_new_game_until_one_is_left():
    """Two games, both in play: a third is refused (429, saying when to try again) until one
    has not been asked for in IDLE_SECONDS; then the one left gives way, the other stays."""
    now = [0.0]
    tables = Tables(_two_players(), limit=2, clock=lambda: now[0])
    left, played = tables.new("10.0.0.1"), tables.new("10.0.0.2")
    now[0] = IDLE_SECONDS - 90
    tables.get(played.id)  # its player moves
    with pytest.raises(Refused) as no:
        tables.new("10.0.0.3")
    assert (no.value.status, no.value.retry_after) == (429, 90)
    assert str(no.value) == (
        "the table is full: its 2 games are all being played (a game gives way once no one has "
        "opened it for 10 minutes); try again in 2 minutes"
    )
    now[0] = IDLE_SECONDS
    new = tables.new("10.0.0.3")
    assert tables.get(played.id) is played and tables.get(new.id) is new
    with pytest.raises(
        Refused, match=r"no game '\S+' here: it ended with the server, or gave way"
    ) as no:
        tables.get(left.id)
    assert no.value.status == 404 and (MAX_GAMES, CLIENT_GAMES) == (100, 25)


def test_one_address_holds_its_share_of_the_games():
    """An address at its share: its new game drops its own least recently used one, even on a
    full table of games in play, and never another address's."""
    tables = Tables(_two_players(), limit=3, per_client=2)
    first, second = tables.new("10.0.0.1"), tables.new("10.0.0.1")
    other = tables.new("10.0.0.2")
    tables.get(first.id)  # seen last: the second is the address's least recently used
    third = tables.new("10.0.0.1")
    assert [tables.get(g.id) for g in (first, third, other)] == [first, third, other]
    with pytest.raises(Refused, match="gave way to newer games"):
        tables.get(second.id)


def _two_players() -> ServeConfig:
    return ServeConfig("crates", 2, 0, {1: "random"}, options=SHORT, pace=0)


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


# ---------------------------------------------------------------------- under hostile clients


def test_half_open_requests_lock_no_one_out():
    """64 connections whose request head never ends (issue 55: every other player got a 503
    while they were held), and an address that opens more than its share: a player's request
    is answered at once, and that address's connections beyond its share are closed unanswered."""
    share = Limits().client_connections
    with serving(Tables(_two_players()), limits=Limits(request_seconds=60)) as url:
        port = _port(url)
        held = [_half_open(port) for _ in range(64)]
        greedy = [_half_open(port, _source("127.0.0.2")) for _ in range(share + 8)]
        with urllib.request.urlopen(url + "/", timeout=5) as page:
            assert page.status == 200 and b'id="hand"' in page.read()
        wait_for(lambda: sum(map(_closed, greedy)) == 8, 10, "8 connections closed")
        assert not any(map(_closed, held))
        for connection in held + greedy:
            connection.close()


def test_a_request_that_does_not_arrive_whole_in_time_is_cut_off(capfd):
    """Half a second to send a whole request: a connection that sends nothing, one whose head
    stops halfway and one whose body does are closed, the last two with one line of the log
    each, no traceback; a whole request is answered meanwhile."""
    with serving(Tables(_two_players()), limits=Limits(request_seconds=0.5)) as url:
        port = _port(url)
        silent = socket.create_connection(("127.0.0.1", port))
        head = _half_open(port)
        body = _half_body(port)
        with urllib.request.urlopen(url + "/", timeout=5) as page:
            assert page.status == 200
        wait_for(lambda: all(map(_closed, (silent, head, body))), 10, "the three closed")
    said = _log_lines([], capfd, silent, head, body)
    assert said[silent] == []
    assert said[head] == [f"127.0.0.1:{_local_port(head)}: no whole request within 0.5 s; "
                          "connection closed"]  # fmt: skip
    assert said[body] == [f'127.0.0.1:{_local_port(body)} - "POST /api/games": the connection '
                          "closed before the request body arrived in full"]  # fmt: skip


def test_a_client_gone_mid_body_is_one_line_of_the_log(capfd):
    """Issue 55: a client that left halfway through its body left a ClientDisconnect traceback
    in the log."""
    log = []
    with serving(Tables(_two_players())) as url:
        gone = _half_body(_port(url))
        gone.shutdown(socket.SHUT_RDWR)
        wait_for(lambda: _log_lines(log, capfd, gone)[gone], 10, "the line about it")
    assert _log_lines(log, capfd, gone)[gone] == [
        f'127.0.0.1:{_local_port(gone)} - "POST /api/games": the connection closed before the '
        "request body arrived in full"
    ]
    gone.close()


def test_one_address_has_its_share_of_the_requests_answered_at_once():
    """A game's agents busy (its lock held): the requests waiting for it take up their address's
    share, more from that address get a 429 at once, another address is answered; the share's
    requests are answered once the game is free."""
    tables = Tables(_two_players())
    game = tables.new()
    share = Limits().client_requests
    with serving(tables) as url, ThreadPoolExecutor(share + 4) as pool:
        port = _port(url)
        with game.lock:
            asked = [
                pool.submit(_ask, port, "GET", f"/api/games/{game.id}") for _ in range(share + 4)
            ]
            wait_for(lambda: sum(f.done() for f in asked) == 4, 10, "four answered at once")
            assert _ask(port, "GET", "/", _source("127.0.0.2"))[0] == 200
        answers = [f.result() for f in asked]
    assert Counter(status for status, _ in answers) == {200: share, 429: 4}
    assert {body["error"] for status, body in answers if status == 429} == {
        f"too many requests at once from 127.0.0.1: {share} at most; try again"
    }


def test_two_hundred_new_games_at_once_get_a_game_or_hear_the_table_is_full():
    """200 people starting a game at once, 10 from each of 20 addresses (issue 55: 159 of them
    got a 503): 100 get a game, the table's all, and the other 100 a 429 saying it is full."""
    tables = Tables(_two_players())
    sources = [_source(f"127.0.0.{k}") for k in range(1, 21)]
    with serving(tables) as url, ThreadPoolExecutor(200) as pool:
        port = _port(url)
        answers = list(pool.map(lambda k: _ask(port, "POST", "/api/games", sources[k % 20]),
                                range(200)))  # fmt: skip
    assert Counter(status for status, _ in answers) == {201: 100, 429: 100}
    assert {body["error"] for status, body in answers if status == 429} == {
        "the table is full: its 100 games are all being played (a game gives way once no one "
        "has opened it for 10 minutes); try again in 10 minutes"
    }
    games = [body["game"] for status, body in answers if status == 201]
    assert [tables.get(game).id for game in games] == games


def test_pages_answer_only_to_the_names_of_the_host_they_listen_on(tables):
    """docs/play.md: another site's name pointed at this machine (DNS rebinding) gets a 400, on
    ::1 as on 127.0.0.1 (issue 55: there any name was answered) and on an address given; on
    every address (0.0.0.0) any name."""
    assert host_names("::1") == ("[::1]", "localhost", "127.0.0.1")
    assert host_names("127.0.0.1") == ("127.0.0.1", "localhost", "[::1]")
    assert host_names("192.168.1.20") == ("192.168.1.20",)
    assert host_names("Table.Example") == ("table.example",)
    assert host_names("0.0.0.0") == host_names("::") == ("*",)
    cases = {
        "::1": (["[::1]:8000", "localhost:8000", "127.0.0.1"],
                ["attacker.example", "attacker.example:8000", "[::2]:8000", "192.168.1.20"]),
        "192.168.1.20": (["192.168.1.20:8000"], ["localhost:8000", "attacker.example"]),
        "0.0.0.0": (["attacker.example:8000", "192.168.1.20"], []),
    }  # fmt: skip
    for host, (answered, refused) in cases.items():
        http = TestClient(web_server(tables, host).config.app)
        for name in answered:
            assert http.get("/", headers={"host": name}).status_code == 200, (host, name)
        for name in refused:
            answer = http.get("/", headers={"host": name})
            assert (answer.status_code, answer.text) == (400, "Invalid host header"), (host, name)


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _source(address: str) -> str:
    """``address``, one of this machine's loopback addresses (Linux answers on all of 127/8)
    to send from as another client would; the test skips where the machine cannot."""
    try:
        with socket.socket() as probe:
            probe.bind((address, 0))
    except OSError:
        pytest.skip(f"this machine cannot send from {address}")
    return address


def _half_open(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection whose request head never ends."""
    connection = socket.create_connection(("127.0.0.1", port), 10, (source, 0))
    connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return connection


def _half_body(port: int) -> socket.socket:
    """A connection whose request body stops after its first byte of 100."""
    connection = socket.create_connection(("127.0.0.1", port), 10)
    connection.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    return connection


def _closed(connection: socket.socket) -> bool:
    """Whether the server has closed ``connection`` (without a word: these never get one)."""
    if not select.select([connection], [], [], 0)[0]:
        return False
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True


def _local_port(connection: socket.socket) -> int:
    return connection.getsockname()[1]


def _log_lines(log: list[str], capfd, *connections: socket.socket) -> dict:
    """The server's log so far, gathered into ``log``, with no traceback in it: the lines
    about each connection."""
    log += capfd.readouterr().err.splitlines()
    assert not any(line.startswith("Traceback") for line in log), log
    lines = [line.removeprefix("WARNING:").strip() for line in log]
    return {c: [line for line in lines if f":{_local_port(c)}" in line] for c in connections}


def _ask(port: int, method: str, path: str, source: str = "127.0.0.1") -> tuple[int, dict | str]:
    """One request on a connection of its own from ``source``: its status and its answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, 60, (source, 0))
    try:
        connection.request(method, path)
        answer = connection.getresponse()
        text = answer.read().decode()
        is_json = answer.getheader("content-type") == "application/json"
        return answer.status, json.loads(text) if is_json else text
    finally:
        connection.close()

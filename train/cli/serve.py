"""``crates serve``: the table in a browser, carried over HTTP by Starlette and uvicorn (the
optional extra ``[web]``, imported only by this command).

Routes: ``GET /`` a page that starts a game of its own (each tab one game), ``GET /game/{id}``
the game's page (a reload keeps the game: it lives here, under its id), ``GET
/game/{id}/replay`` the finished game as a replay page; the page's script speaks JSON to ``POST
/api/games`` (a new game), ``GET /api/games/{id}`` (its state) and ``POST
/api/games/{id}/move`` (``{"decision": N, "action": A}``).

Safe by default: it listens on 127.0.0.1 unless told another host; the agents are fixed when it
starts; a request body is at most ``MAX_BODY`` bytes of JSON, read no further; a refused move
is a 4xx with ``{"error": message}`` and changes nothing (``seated.Refused``); pages answer only
to the names of the host they were asked for (no DNS rebinding from another site) and may load
nothing from elsewhere (Content-Security-Policy).
"""

from __future__ import annotations

import functools
import json
import re
import socket
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .seated import Refused, SeatedGame, Tables, parse_move
from .table_page import missing_page, table_page

MAX_BODY = 1024  # bytes: a move is a few dozen
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # seated.SeatedGame.id's alphabet
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")  # this machine only
# the names a page of this machine is asked for by (TrustedHostMiddleware reads a Host header's
# name before its first colon, so it cannot tell an IPv6 address: on ::1, any name)
LOCAL_NAMES = ("127.0.0.1", "localhost")
_PAGE_HEADERS = {
    # everything the page needs is inline; it may talk to this server only
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Handler = Callable[[Request], Awaitable[Response]]


def refusing(handler: Handler) -> Handler:
    """``handler`` with every ``Refused`` answered as its status and ``{"error": message}``."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except Refused as no:
            return JSONResponse({"error": str(no)}, status_code=no.status)

    return answer


async def read_json(request: Request) -> Any:
    """The request's JSON body, read no further than ``MAX_BODY`` bytes (an empty body is
    None); Refused for another content type (415), a larger body (413) or one that is not JSON
    (400)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"a request body is at most {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"a request body is at most {MAX_BODY} bytes")
    if not body:
        return None
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, "send JSON, with Content-Type: application/json")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise Refused(400, "the body is not JSON") from None


def build_app(tables: Tables, hosts: tuple[str, ...] = LOCAL_NAMES) -> Starlette:
    """The web app of ``tables``, answering to the host names ``hosts`` (``("*",)``: any)."""

    async def home(request: Request) -> Response:
        return HTMLResponse(table_page(tables, None), headers=_PAGE_HEADERS)

    async def game_page(request: Request) -> Response:
        try:
            game = tables.get(_game_id(request))
        except Refused as no:
            return HTMLResponse(missing_page(str(no)), no.status, headers=_PAGE_HEADERS)
        return HTMLResponse(table_page(tables, game.id), headers=_PAGE_HEADERS)

    async def replay(request: Request) -> Response:
        html = await _run(tables, request, SeatedGame.replay_page)
        return HTMLResponse(html, headers=_PAGE_HEADERS)

    async def new_game(request: Request) -> Response:
        await read_json(request)  # bounded, and otherwise unused: a game takes no settings
        game = await run_in_threadpool(tables.new)
        state = await _run(tables, request, SeatedGame.state, game.id)
        return JSONResponse(state, status_code=201)

    async def state(request: Request) -> Response:
        return JSONResponse(await _run(tables, request, SeatedGame.state))

    async def move(request: Request) -> Response:
        tables.get(_game_id(request))  # an unknown game first: 404 whatever the body
        decision, action = parse_move(await read_json(request))

        def play(game: SeatedGame) -> dict[str, Any]:
            game.move(decision, action)
            return game.state()

        return JSONResponse(await _run(tables, request, play))

    routes = [
        Route("/", refusing(home)),
        Route("/game/{game}", refusing(game_page)),
        Route("/game/{game}/replay", refusing(replay)),
        Route("/api/games", refusing(new_game), methods=["POST"]),
        Route("/api/games/{game}", refusing(state)),
        Route("/api/games/{game}/move", refusing(move), methods=["POST"]),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))]
    return Starlette(routes=routes, middleware=middleware)


def _game_id(request: Request) -> str:
    game_id = request.path_params["game"]
    if not GAME_ID.fullmatch(game_id):
        raise Refused(404, f"no game {game_id[:40]!r} here: a game's id is its page's address")
    return game_id


async def _run(tables: Tables, request: Request, work, game_id: str | None = None) -> Any:
    """``work(game)`` off the event loop, with the game to itself (agents think there)."""
    return await run_in_threadpool(tables.run, game_id or _game_id(request), work)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (port 0: any free port); ValueError if it cannot."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        listener = socket.socket(family, kind, proto)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(128)  # connections queue from now on, until the server takes them
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    return listener


def web_server(tables: Tables, host: str) -> uvicorn.Server:
    """uvicorn's server of ``tables``' app, answering to ``host``'s names (any name when it
    listens beyond this machine); run it with ``.run(sockets=[listen(host, port)])``."""
    hosts = LOCAL_NAMES if host in LOCAL_NAMES else ("*",)
    config = uvicorn.Config(
        build_app(tables, hosts), log_level="warning", limit_concurrency=64, timeout_keep_alive=5
    )
    return uvicorn.Server(config)


def serve(
    tables: Tables,
    host: str = "127.0.0.1",
    port: int = 8000,
    open_browser: bool = False,
    say: Callable[[str], None] | None = None,
) -> None:
    """Serve ``tables`` on ``host:port`` until Ctrl-C; ValueError if it cannot listen there."""
    say = say or functools.partial(print, flush=True)  # at once, even into a pipe
    listener = listen(host, port)
    bound = listener.getsockname()[1]
    url = f"http://{f'[{host}]' if ':' in host else host}:{bound}/"
    if host not in LOCAL_HOSTS:
        say(f"listening on {host}: anyone who reaches {host}:{bound} can start and play games")
    say(f"the table is at {url} (each tab its own game; Ctrl-C stops the server)")
    if open_browser:
        webbrowser.open(url)
    web_server(tables, host).run(sockets=[listener])

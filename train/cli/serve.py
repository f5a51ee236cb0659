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
to the names of the host the server listens on (``host_names``: no DNS rebinding from another
site) and may load nothing from elsewhere (Content-Security-Policy).

No client can take the table from the others (``Limits``): a request must arrive whole, head
and body, soon after its connection opens or its previous answer, or the connection is closed
(``GuardedH11Protocol``: uvicorn has no such timeout of its own); one address holds a share of
the connections and of the requests being answered (``ClientShare``), and of the games
(``seated.Tables``); a client that leaves mid-body is one line of the log, not a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import logging
import re
import socket
import webbrowser
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .seated import Refused, SeatedGame, Tables, parse_move
from .table_page import missing_page, table_page

MAX_BODY = 1024  # bytes: a move is a few dozen
# bytes of a request's line and headers kept while they arrive (h11's own default, said here):
# a browser sends along every cookie other servers of this machine set for localhost
MAX_HEAD = 16 * 1024
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # seated.SeatedGame.id's alphabet
# the names this machine calls itself by, as a Host header writes them
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_log = logging.getLogger("uvicorn.error")  # uvicorn's server log, where its own warnings go
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


@dataclass(frozen=True)
class Limits:
    """What the server gives its clients before it closes or refuses (docs/play.md)."""

    # a whole request, head and body, from its connection's opening or the previous answer
    request_seconds: float = 10.0
    connections: int = 512  # open at once, all addresses: a request beyond gets uvicorn's 503
    client_connections: int = 128  # open at once from one address: beyond, closed unanswered
    client_requests: int = 16  # being answered at once for one address: beyond, 429


def refusing(handler: Handler) -> Handler:
    """``handler`` with every ``Refused`` answered as its status and ``{"error": message}``
    (and when to ask again, if it says)."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except Refused as no:
            later = {} if no.retry_after is None else {"Retry-After": str(no.retry_after)}
            return JSONResponse({"error": str(no)}, status_code=no.status, headers=later)

    return answer


async def read_json(request: Request) -> Any:
    """The request's JSON body, read no further than ``MAX_BODY`` bytes (an empty body is
    None); Refused for another content type (415), a larger body (413) or one that is not JSON
    (400)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"a request body is at most {MAX_BODY} bytes")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise Refused(413, f"a request body is at most {MAX_BODY} bytes")
    except ClientDisconnect:  # the client left, or was cut off by its deadline: one line
        _log.warning(
            '%s - "%s %s": the connection closed before the request body arrived in full',
            _address(request.client),
            request.method,
            request.url.path,
        )
        raise Refused(400, "the request body did not arrive in full") from None
    if not body:
        return None
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, "send JSON, with Content-Type: application/json")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise Refused(400, "the body is not JSON") from None


def build_app(
    tables: Tables, hosts: tuple[str, ...] = LOOPBACK_NAMES, limits: Limits = Limits()
) -> Starlette:
    """The web app of ``tables``, answering to the host names ``hosts`` (``("*",)``: any),
    ``limits.client_requests`` requests of one address at a time."""

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
        client = request.client.host if request.client else ""

        def start() -> dict[str, Any]:
            game = tables.new(client)
            with game.lock:  # this game, not whatever its id finds: it may give way at once
                return game.state()

        return JSONResponse(await run_in_threadpool(start), status_code=201)

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
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts), www_redirect=False),
        Middleware(ClientShare, limit=limits.client_requests),
    ]
    return Starlette(routes=routes, middleware=middleware)


class ClientShare:
    """ASGI middleware: at most ``limit`` requests of one address being answered at once; one
    beyond gets a 429 at once, so that one client cannot queue the agents' work of everyone."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit
        self.busy: Counter[str] = Counter()  # requests being answered, by address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        who = scope["client"][0] if scope.get("client") else ""
        if self.busy[who] >= self.limit:
            error = f"too many requests at once from {who}: {self.limit} at most; try again"
            refused = JSONResponse({"error": error}, 429, headers={"Retry-After": "1"})
            return await refused(scope, receive, send)
        self.busy[who] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.busy[who] -= 1
            if not self.busy[who]:
                del self.busy[who]


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


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only: localhost or a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name
        return host.lower() == "localhost"


def host_names(host: str) -> tuple[str, ...]:
    """The names, as a Host header writes them, that pages served on ``host`` answer to (a
    request naming another gets a 400: no DNS rebinding): ``host`` itself, and this machine's
    names for itself on a loopback host; any name (``("*",)``) on every address (0.0.0.0, ::)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name
        name = host.lower()
    else:
        if address.is_unspecified:
            return ("*",)
        name = f"[{address.compressed}]" if address.version == 6 else address.compressed
    return tuple(dict.fromkeys((name, *LOOPBACK_NAMES))) if is_loopback(host) else (name,)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the limits it lacks (uvicorn's issue #157): a request must
    arrive whole within ``limits.request_seconds`` of the connection opening or of the previous
    answer, or the connection is closed; an address that holds ``limits.client_connections``
    connections has its next one closed at once."""

    def __init__(self, *args: Any, limits: Limits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        held = sum(1 for other in self.connections if other.client and other.client[0] == host)
        if host is not None and held > self.limits.client_connections:
            transport.close()  # before a byte is read: it holds nothing of the others'
            return
        self._restart()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):  # the request is whole
            self._stop()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._restart()  # the next request's time, from this answer
            if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):  # pipelined, whole
                self._stop()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _restart(self) -> None:
        self._stop()
        self._deadline = self.loop.call_later(self.limits.request_seconds, self._expired)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        partial = self.conn.their_state is h11.SEND_BODY or bool(self.conn.trailing_data[0])
        # the app, reading the body, is told the client left and says so itself
        read = self.cycle is not None and not self.cycle.response_started
        if partial and not read:
            _log.warning(
                "%s: no whole request within %g s; connection closed",
                _address(self.client),
                self.limits.request_seconds,
            )
        self.transport.close()


def _address(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "a client"


def web_server(tables: Tables, host: str, limits: Limits = Limits()) -> uvicorn.Server:
    """uvicorn's server of ``tables``' app, answering to ``host``'s names (``host_names``)
    within ``limits``; run it with ``.run(sockets=[listen(host, port)])``."""
    config = uvicorn.Config(
        build_app(tables, host_names(host), limits),
        http=functools.partial(GuardedH11Protocol, limits=limits),
        ws="none",  # the app speaks no WebSocket
        proxy_headers=False,  # reached directly: an address is the peer's, not what it says
        h11_max_incomplete_event_size=MAX_HEAD,
        limit_concurrency=limits.connections,
        timeout_keep_alive=5,
        log_level="warning",
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
    if not is_loopback(host):
        names = host_names(host)
        answered = "any name" if names == ("*",) else "the name " + " or ".join(names)
        say(
            f"listening on {host}: anyone who reaches {host}:{bound} can start and play games "
            f"(pages answer to {answered})"
        )
    say(f"the table is at {url} (each tab its own game; Ctrl-C stops the server)")
    if open_browser:
        webbrowser.open(url)
    web_server(tables, host).run(sockets=[listener])

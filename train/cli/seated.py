"""A person at the table against agents, one game per browser tab (``crates serve``): what the
person's seat may see, the moves it may make, the agents' moves since its last, and the game as a
replay page once it is over. No web library here: ``train.cli.serve`` carries it over HTTP.

What reaches the page is built from ``Game.view(seat)`` alone (``table_snapshot(seat=...)``):
the person's own hand, the backs and counts of the others, everything public. A move is checked
here, every refusal a :class:`Refused` with the HTTP status it calls for, and a refused move
leaves the game exactly as it was. The agents are named when the server starts (``ServeConfig``)
and every game seats fresh ones of those names: nothing a request says is ever imported.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agents import Agent, Table, make_agent
from agents.shipped import SHIPPED
from crates_env.actions import (
    ANNOUNCE,
    DRAW,
    NUM_ACTIONS,
    PASS,
    PLAY,
    REVERSE_ONCE,
    REVERSE_PERMANENT,
    STOP,
    SUIT,
    action_name,
)
from crates_env.cards import SUIT_SYMBOLS, pretty
from crates_env.env import raw_env
from crates_env.render import Recorder, layout, page_html
from crates_env.render.layout import scene_size
from crates_env.render.page import explain_panel
from crates_env.render.svg import fragment
from crates_env.render.table import (
    DECISION_WORDS,
    EventCursor,
    TableSnapshot,
    game_result,
    hand_result,
    table_snapshot,
)
from train.cli.play import seat_agents
from train.evaluation.games import seed_of
from train.evaluation.replays import seat_names

MAX_GAMES = 100  # games kept in memory at once
CLIENT_GAMES = 25  # of them one address's: its new game beyond them drops its least recently used
IDLE_SECONDS = 600  # a game no one has asked for this long gives way to a new one on a full table
_SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
# what the buttons of the moves that are not a card of the hand say
_MOVE_WORDS = {
    DRAW: "draw",
    ANNOUNCE: 'announce "one card"',
    PASS: "pass",
    REVERSE_PERMANENT: "reverse for good",
    REVERSE_ONCE: "reverse once",
    STOP: "stop",
}


class Refused(ValueError):
    """A request the table turns down, the game unchanged: ``status`` is its HTTP status (400
    malformed, 404 no such game, 409 stale, duplicated or too late, 422 illegal, 429 the table
    full), ``retry_after`` the seconds until asking again may do (None: it will not)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


@dataclass(frozen=True)
class ServeConfig:
    """What the server plays, fixed when it starts: the table, the person's seat, the agent of
    every other seat by name (``play.seat_specs``), the first game's seed, the pause between the
    agents' moves on the page (seconds) and whether SearchAgent explains its moves with its
    margins (a search at each decision it searches, for the replay page)."""

    preset: str
    num_players: int
    seat: int
    specs: Mapping[int, str]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    pace: float = 0.8
    search: bool = False

    def env(self) -> raw_env:
        return raw_env(preset=self.preset, num_players=self.num_players, **self.options)


def adviser(table: Table) -> Agent | None:
    """The network that says, at the person's decisions, what it would play: the shipped one
    where it reads the table's observations, else none."""
    try:
        return make_agent(SHIPPED, table)
    except ValueError:  # another table's observations
        return None


def parse_move(body: Any) -> tuple[int, int]:
    """``{"decision": 12, "action": 17}`` -> (12, 17); Refused (400) naming the problem for
    anything else."""
    if not isinstance(body, dict) or set(body) != {"decision", "action"}:
        raise Refused(400, 'a move is a JSON object {"decision": N, "action": A} and nothing else')
    decision, action = body["decision"], body["action"]
    for name, value, top in (("decision", decision, None), ("action", action, NUM_ACTIONS)):
        if type(value) is not int or value < 0 or (top is not None and value >= top):
            bound = f"0..{top - 1}" if top else "a whole number >= 0"
            raise Refused(400, f"{name} must be {bound}, not {value!r}")
    return decision, action


class SeatedGame:
    """One game of ``config`` (the ``number``-th the server deals), the person at
    ``config.seat``: the agents move as soon as it is their turn; ``state()`` is what the page
    shows; ``move()`` the person's move."""

    def __init__(self, config: ServeConfig, number: int, adviser: Agent | None) -> None:
        self.config, self.seat, self.adviser = config, config.seat, adviser
        self.id = secrets.token_urlsafe(9)
        self.lock = threading.Lock()  # one request at a time changes or reads the game
        self.env = config.env()
        self.agents = seat_agents(Table.from_env(self.env), dict(config.specs), game=number)
        specs = [config.specs.get(s, "you") for s in range(config.num_players)]
        self.names = seat_names(specs)
        self.recorder = Recorder(self.names)
        self.env.reset(seed=seed_of(config.seed, number))
        self.decision = 0  # decisions made in the game, the person's and the agents'
        self.answered: dict[int, int] = {}  # the person's decisions and their moves
        self._cursor = EventCursor(self.env.game, from_start=True)
        self._since: list = []  # events since the person's last move (the deal's at first)
        self._steps: list[dict[str, Any]] = []  # the moves since, each with the table after it
        self._advice: tuple[int, Mapping[str, Any] | None] | None = None
        self._replay: str | None = None
        self._play_agents()

    # ------------------------------------------------------------------ what the page shows
    def state(self) -> dict[str, Any]:
        """The table as the person's seat sees it, as plain data for the page."""
        g = self.env.game
        snap = self._snapshot(self._since)
        yours = snap.to_play == self.seat
        legal = g.legal_actions() if yours else []
        held = [k for k in snap.seats[self.seat].cards if k is not None]
        return {
            "game": self.id,
            "decision": self.decision,
            "seat": self.seat,
            "over": snap.game_over,
            "yours": yours,
            "status": self._status(snap),
            "table": _svg(snap),
            "hand": [_card(k, legal) for k in snap.seats[self.seat].cards],
            "moves": [_move(a) for a in legal if a >= SUIT or a - PLAY not in held],
            "steps": self._steps,
            "hands": [hand_result(snap, row) for row in snap.hands],
            "result": game_result(snap) if snap.game_over else None,
            "explain": self._advise() if yours else None,
            "adviser": self.adviser is not None,
            "pace": self.config.pace,
        }

    def replay_page(self) -> str:
        """The finished game as a replay page (every hand face up, what each agent weighed)."""
        if self._replay is None:
            raise Refused(409, "the game is not over: its replay opens once it is")
        return self._replay

    # ------------------------------------------------------------------ the person's move
    def move(self, decision: int, action: int) -> None:
        """The person's ``action`` at decision ``decision``, then the agents' moves up to the
        person's next decision; Refused, the game unchanged, for a move already made, a stale
        one, one after the game, or an illegal one."""
        g = self.env.game
        if decision in self.answered:
            made = action_name(self.answered[decision])
            raise Refused(
                409,
                f"a move made already: decision {decision} was answered ({made}); the game is "
                f"at decision {self.decision}",
            )
        if g.game_over:
            raise Refused(409, "the game is over: open its replay or start a new game")
        if decision != self.decision:
            when = "has not come yet" if decision > self.decision else "was another seat's"
            raise Refused(
                409,
                f"a stale move: decision {decision} {when}; the game is at decision "
                f"{self.decision}, as the table shows now",
            )
        legal = g.legal_actions()
        if action not in legal:
            raise Refused(
                422,
                f"{action_name(action)} is not a legal move now; legal: "
                + ", ".join(action_name(a) for a in legal),
            )
        advice = self._explained()
        self._since, self._steps = [], []
        self._apply(action, advice, "you")
        self.answered[decision] = action
        self._play_agents()

    # ------------------------------------------------------------------ playing
    def _play_agents(self) -> None:
        g, env = self.env.game, self.env
        while not g.game_over and g.to_play != self.seat:
            agent = self.agents[g.to_play]
            seen = env.observe(env.agent_selection)
            observation, mask = seen["observation"], seen["action_mask"]
            # asked before it acts, so that a search explains with the re-deals it plays on
            said = agent.explain(observation, mask, game=g, search=self.config.search)
            action = agent.act(observation, mask, g)
            self._apply(action, said and said.as_dict(), self.names[g.to_play])
        if g.game_over and self._replay is None:
            self._replay = page_html(self.recorder.finish(*self._about()))

    def _apply(self, action: int, explanation: Mapping[str, Any] | None, who: str) -> None:
        g = self.env.game
        mover = g.to_play
        self.recorder.record(g, action, explanation)
        self.env.step(action)
        events = self._cursor.take(g)
        self._since.extend(events)
        self._steps.append(
            {
                "decision": self.decision,
                "said": f"p{mover} ({who}): {action_name(action)}",
                "table": _svg(self._snapshot(events)),
            }
        )
        self.decision += 1

    def _explained(self) -> Mapping[str, Any] | None:
        """What the adviser weighs at the person's decision, worked out once a decision."""
        if self._advice is None or self._advice[0] != self.decision:
            said = None
            if self.adviser is not None:
                seen = self.env.observe(self.env.agent_selection)
                said = self.adviser.explain(
                    seen["observation"], seen["action_mask"], game=self.env.game
                )
            self._advice = (self.decision, said and said.as_dict())
        return self._advice[1]

    def _advise(self) -> dict[str, Any] | None:
        """The explain panel of the person's decision (the adviser's view), if there is one."""
        explanation = self._explained()
        if explanation is None:
            return None
        who = f"the {SHIPPED} network, at your seat"
        return explain_panel(self._snapshot(()), explanation, who)

    # ------------------------------------------------------------------ words
    def _snapshot(self, events) -> TableSnapshot:
        return table_snapshot(self.env.game, self.names, events=events, seat=self.seat)

    def _status(self, snap: TableSnapshot) -> str:
        if snap.game_over:
            return "game over: " + game_result(snap)
        asked = DECISION_WORDS[snap.decision]
        if snap.to_play != self.seat:  # only while an agent thinks
            return f"p{snap.to_play} ({self.names[snap.to_play]}) {asked}"
        figgy = f" (p{snap.turn}'s hand)" if snap.turn != snap.to_play else ""
        return f"your move{figgy}: {asked}"

    def _about(self) -> tuple[str, list[str]]:
        c = self.config
        seats = ", ".join(f"p{s} {name}" for s, name in enumerate(self.names))
        title = f"{c.preset}, {c.num_players} players: you at p{self.seat}"
        return title, [f"seats: {seats}", f"played at crates serve, game {self.id}"]


def _svg(snap: TableSnapshot) -> str:
    """The table drawn (``crates_env.render``'s layout), as the SVG elements of one layer."""
    return "".join(fragment(shape) for shape in layout(snap).items)


def _card(kind: int | None, legal: list[int]) -> dict[str, Any]:
    """A card of the person's hand: its kind (None face down), the move that plays it and
    whether that is legal now."""
    if kind is None:
        return {"kind": None, "name": "a card face down", "action": None, "legal": False}
    action = PLAY + kind
    return {"kind": kind, "name": pretty(kind), "action": action, "legal": action in legal}


def _move(action: int) -> dict[str, Any]:
    """A move that is not a card of the hand: a suit to name, draw, pass, announce, ..."""
    if action < SUIT:  # a card of another hand: the dummy's, played by its controller
        words = f"play {pretty(action - PLAY)}"
    elif action < DRAW:
        suit = action - SUIT
        words = f"name {SUIT_SYMBOLS[suit]} {_SUIT_WORDS[suit]}"
    else:
        words = _MOVE_WORDS[action]
    return {"action": action, "name": action_name(action), "words": words}


G = TypeVar("G")


@dataclass
class _Kept:
    """A game the server keeps: who started it (their address) and when it was last asked for."""

    game: SeatedGame
    client: str
    used: float


class Tables:
    """The games being played, by id: a new game on request, at most ``limit`` kept, of them at
    most ``per_client`` started from one address. A new game beyond its address's share drops
    that address's least recently used game; one beyond ``limit`` drops the least recently used
    game if no one has asked for it for ``IDLE_SECONDS``, and is otherwise refused (429, the
    table is full): a game being played is never taken from its player by someone else's."""

    def __init__(
        self,
        config: ServeConfig,
        limit: int = MAX_GAMES,
        per_client: int = CLIENT_GAMES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config, self.limit, self.per_client, self.clock = config, limit, per_client, clock
        table = Table.from_env(config.env())
        seat_agents(table, dict(config.specs))  # every name checked before the first game
        self.adviser = adviser(table)
        self.size = scene_size(config.num_players, table.rules.num_teams)  # the drawn table's
        self._games: OrderedDict[str, _Kept] = OrderedDict()  # least recently used first
        self._dealt = 0
        self._lock = threading.Lock()

    def new(self, client: str = "") -> SeatedGame:
        """A new game started from address ``client``; Refused (429) when the table is full."""
        with self._lock:
            self._make_room(client, evict=False)  # a full table refuses before dealing
            number = self._dealt
            self._dealt += 1
        game = SeatedGame(self.config, number, self.adviser)  # the agents' first moves: unlocked
        with self._lock:
            self._make_room(client, evict=True)  # other games may have come meanwhile
            self._games[game.id] = _Kept(game, client, self.clock())
        return game

    def get(self, game_id: str) -> SeatedGame:
        with self._lock:
            kept = self._games.get(game_id)
            if kept is None:
                raise Refused(
                    404,
                    f"no game {game_id!r} here: it ended with the server, or gave way to newer "
                    "games; start a new one",
                )
            self._games.move_to_end(game_id)
            kept.used = self.clock()
            return kept.game

    def run(self, game_id: str, work: Callable[[SeatedGame], G]) -> G:
        """``work(game)`` with the game to itself (its lock held)."""
        game = self.get(game_id)
        with game.lock:
            return work(game)

    def _make_room(self, client: str, evict: bool) -> None:
        """Room for one more game of ``client``'s, the game that gives way dropped if ``evict``;
        Refused (429) if none may."""
        own = [kept for kept in self._games.values() if kept.client == client]
        if len(own) >= self.per_client:
            gives_way = own[0]
        elif len(self._games) >= self.limit:
            gives_way = next(iter(self._games.values()))
            left = self.clock() - gives_way.used
            if left < IDLE_SECONDS:
                wait = math.ceil(IDLE_SECONDS - left)
                minutes = math.ceil(wait / 60)
                raise Refused(
                    429,
                    f"the table is full: its {self.limit} games are all being played (a game "
                    f"gives way once no one has opened it for {IDLE_SECONDS // 60} minutes); "
                    f"try again in {minutes} minute{'s' if minutes > 1 else ''}",
                    retry_after=wait,
                )
        else:
            return
        if evict:
            del self._games[gives_way.game.id]

"""The one layout of the table: a :class:`TableSnapshot` as a :class:`Scene` of simple shapes.

A scene is a list of rectangles, circles, polygons, texts and cards in pixel coordinates (y
down), drawn in order. Both outputs draw the same scene: ``svg.py`` writes it as SVG for the
replay page, ``raster.py`` paints it with matplotlib for the environment's frames. Neither knows
where anything goes; only this module does.

The table: one row per seat on the left (the agent's name, side, score, what it is asked and
its cards face up, the move it makes outlined), the middle (discard top, stock, direction, the
suit to follow, the count or a demand, the step's events in words) and on the right the scores
hand by hand.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ..actions import DRAW, NUM_KINDS, action_name
from ..cards import JOKER, RANKS, RED_SUITS, SUITS, rank_of, suit_of
from .table import DECISION_WORDS, TableSnapshot, game_result, side_label

# ---------------------------------------------------------------------- shapes


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str | None = None
    width: float = 1.0  # of the stroke
    radius: float = 0.0


@dataclass(frozen=True, slots=True)
class Circle:
    x: float
    y: float
    r: float
    fill: str


@dataclass(frozen=True, slots=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: str


@dataclass(frozen=True, slots=True)
class Text:
    x: float
    y: float  # the baseline
    text: str
    size: float = 12.0  # pixels
    fill: str = "#1d1d1b"
    anchor: str = "start"  # start | middle | end
    bold: bool = False
    role: str = ""  # a name a reader of the page can find it by (e.g. "total-0")


@dataclass(frozen=True, slots=True)
class Card:
    """A card face (``kind``) or, with ``kind=None``, a card's back; ``w`` by ``w * 1.4``."""

    x: float
    y: float
    w: float
    kind: int | None
    highlight: bool = False  # the card the step's move plays: outlined


Shape = Rect | Circle | Polygon | Text | Card


@dataclass(frozen=True, slots=True)
class Scene:
    width: int
    height: int
    items: tuple[Shape, ...]


# ---------------------------------------------------------------------- colours and sizes
FELT = "#1f5e3b"
PANEL = "#f6f3ea"
PANEL_OUT = "#d9d4c5"  # knocked out
TO_PLAY = "#fff1b8"
GOLD = "#e0a100"
MOVE = "#e8590c"
INK = "#1d1d1b"
MUTED = "#6b6b63"
RED = "#c0392b"
BLACK = "#1d1d1b"
JOKER_INK = "#7d3c98"
CARD_BACK = "#2b4c9b"
CARD_EDGE = "#8a8a80"
SIDE_COLOURS = ("#2f6db5", "#b5472f", "#3d8f4f", "#8f6d1f", "#6d3d8f", "#1f8f8a")

CARD_FACE_W, CARD_FACE_H = 50, 70  # a card face's own coordinates (``card_face``)
CARD_RATIO = CARD_FACE_H / CARD_FACE_W

HEADER_H = 40
MIN_HEIGHT = 600
LEFT_W = 740  # the seats
MIDDLE_X, MIDDLE_W = 750, 250
RIGHT_X = 1010
LINE = 15  # a line of small text


def row_height(num_players: int) -> int:
    """Seat rows share the height of a 600-pixel table, between 72 and 130 pixels each."""
    return max(72, min(130, (MIN_HEIGHT - HEADER_H - 16) // num_players))


def scene_size(num_players: int, num_sides: int) -> tuple[int, int]:
    """Width and height of the table: fixed for a game, so its frames make a video."""
    right_w = max(240, 80 + 40 * num_sides)
    height = max(MIN_HEIGHT, HEADER_H + 16 + num_players * row_height(num_players))
    return RIGHT_X + right_w + 10, height


def suit_colour(kind: int) -> str:
    if kind == JOKER:
        return JOKER_INK
    return RED if suit_of(kind) in RED_SUITS else BLACK


# ---------------------------------------------------------------------- suits and cards
def suit_shape(suit: int, x: float, y: float, size: float) -> list[Shape]:
    """The suit's pip in the square (``x``, ``y``, ``size``): circles and polygons, so it looks
    the same whatever fonts the page or the frame finds."""
    colour = RED if suit in RED_SUITS else BLACK

    def p(u: float, v: float) -> tuple[float, float]:
        return (round(x + u * size, 2), round(y + v * size, 2))

    def c(u: float, v: float, r: float) -> Circle:
        return Circle(round(x + u * size, 2), round(y + v * size, 2), round(r * size, 2), colour)

    if SUITS[suit] == "D":
        return [Polygon((p(0.5, 0), p(0.92, 0.5), p(0.5, 1), p(0.08, 0.5)), colour)]
    if SUITS[suit] == "H":
        return [
            c(0.28, 0.32, 0.25),
            c(0.72, 0.32, 0.25),
            Polygon((p(0.04, 0.42), p(0.96, 0.42), p(0.5, 0.98)), colour),
        ]
    if SUITS[suit] == "S":
        return [
            c(0.28, 0.6, 0.24),
            c(0.72, 0.6, 0.24),
            Polygon((p(0.05, 0.52), p(0.95, 0.52), p(0.5, 0.0)), colour),
            Polygon((p(0.5, 0.6), p(0.68, 1.0), p(0.32, 1.0)), colour),
        ]
    return [  # clubs
        c(0.5, 0.27, 0.22),
        c(0.26, 0.6, 0.22),
        c(0.74, 0.6, 0.22),
        Polygon((p(0.5, 0.5), p(0.66, 1.0), p(0.34, 1.0)), colour),
    ]


def _star(x: float, y: float, r: float, colour: str) -> Polygon:
    """A five-pointed star, a point at the top."""
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = i * math.pi / 5
        points.append((x + radius * math.sin(angle), y - radius * math.cos(angle)))
    return Polygon(tuple(points), colour)


def card_face(kind: int | None, highlight: bool = False) -> list[Shape]:
    """A card in its own 50 x 70 box: the rank and a small pip in the corner (what shows when
    cards overlap), a large pip in the middle; a Joker's star; a back's pattern. Highlighted, a
    thick outline in the move's colour."""
    outline = [Rect(1.5, 1.5, CARD_FACE_W - 3, CARD_FACE_H - 3, "none", MOVE, 3, 4)]
    if kind is None:
        return [
            Rect(0, 0, CARD_FACE_W, CARD_FACE_H, CARD_BACK, "#ffffff", 1, 4),
            Rect(5, 5, CARD_FACE_W - 10, CARD_FACE_H - 10, CARD_BACK, "#9fb3e0", 1.5, 3),
        ]
    face = [Rect(0, 0, CARD_FACE_W, CARD_FACE_H, "#ffffff", CARD_EDGE, 1, 4)]
    colour = suit_colour(kind)
    if kind == JOKER:
        face += [Text(4, 15, "JK", 12, colour, bold=True), _star(25, 42, 17, colour)]
    else:
        rank = RANKS[rank_of(kind)]
        face += [
            Text(3, 15, rank, 13 if len(rank) == 1 else 11.5, colour, bold=True),
            *suit_shape(suit_of(kind), 4, 19, 9),
            *suit_shape(suit_of(kind), 14, 28, 24),
        ]
    return face + outline if highlight else face


# every face a scene may show: the back, then each kind plain and highlighted
CARD_FACES = ((None, False), *((k, h) for h in (False, True) for k in range(NUM_KINDS)))

# ---------------------------------------------------------------------- the table


def layout(snap: TableSnapshot) -> Scene:
    """The scene of one step."""
    width, height = scene_size(snap.num_players, len(snap.sides))
    items: list[Shape] = [Rect(0, 0, width, height, FELT)]
    items += _header(snap, width)
    rh = row_height(snap.num_players)
    for seat in snap.seats:
        items += _seat_row(snap, seat.seat, HEADER_H + 8 + seat.seat * rh, rh)
    items += _middle(snap, height)
    items += _scores(snap, width - RIGHT_X - 10, height)
    return Scene(width, height, tuple(items))


def _header(snap: TableSnapshot, width: int) -> list[Shape]:
    hands = f"/{snap.num_hands}" if snap.num_hands else ""
    order = "highest" if snap.point_sign > 0 else "lowest"
    if snap.last_player:
        goal = "the last player left wins"
    elif snap.target_score:
        goal = f"first to {snap.target_score}; the {order} score wins"
    else:
        goal = f"the {order} score wins"
    teams = (
        " · partners " + " v ".join(side_label(snap, t) for t in range(len(snap.sides)))
        if snap.partnerships
        else ""
    )
    return [
        Text(14, 26, f"{snap.preset} · {snap.num_players} players{teams}", 17, "#fff", bold=True),
        Text(
            width - 14,
            26,
            f"hand {snap.hand_number}{hands} · {snap.deal_size} dealt · dealer p{snap.dealer}"
            f" · {goal}",
            13,
            "#e8efe9",
            anchor="end",
        ),
    ]


def _fit(text: str, width: float, size: float) -> str:
    """``text`` cut to about ``width`` pixels at ``size`` (an estimate: no font is measured)."""
    chars = max(1, int(width / (0.6 * size)))
    return text if len(text) <= chars else text[: chars - 1] + "…"


def wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines of about ``width`` pixels at ``size``."""
    chars = max(8, int(width / (0.58 * size)))
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > chars:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _seat_row(snap: TableSnapshot, s: int, y: float, rh: int) -> list[Shape]:
    seat = snap.seats[s]
    acting = snap.to_play == s
    fill = PANEL if seat.active else PANEL_OUT
    row = [
        Rect(
            10,
            y,
            LEFT_W - 10,
            rh - 6,
            TO_PLAY if acting else fill,
            GOLD if acting else None,
            3 if acting else 1,
            6,
        ),
    ]
    if snap.partnerships:  # a stripe in the side's colour
        row.append(Rect(10, y, 6, rh - 6, SIDE_COLOURS[seat.side % len(SIDE_COLOURS)], radius=2))
    x = 24
    side = f"{side_label(snap, seat.side)} · " if snap.partnerships else ""
    row += [
        Text(x, y + 19, _fit(f"p{s} · {seat.name}", 170, 13), 13, INK, bold=True),
        Text(x, y + 19 + LINE, f"{side}score {seat.score}", 11.5, INK),
    ]
    facts = [f"pressures {seat.pressures}"] if seat.pressures else []
    if seat.stars:
        facts.append(f"stars {seat.stars}")
    facts.append(f"{len(seat.cards)} cards")
    row.append(Text(x, y + 19 + 2 * LINE, " · ".join(facts), 11, MUTED))
    status = _status(snap, s)
    if status:
        row.append(Text(x, y + 19 + 3 * LINE, _fit(status, 170, 11.5), 11.5, MOVE, bold=True))
    if seat.active:
        row += _hand(snap, s, y, rh)
    return row


def _status(snap: TableSnapshot, s: int) -> str:
    """What the row says under the name: the move, what the seat is asked, or its state."""
    seat = snap.seats[s]
    if not seat.active:
        return "knocked out"
    if snap.to_play == s and snap.decision is not None:
        if snap.move is not None:
            return "→ " + action_name(snap.move)
        return DECISION_WORDS[snap.decision]
    words = []
    if seat.dummy:
        words.append("dummy")
    if seat.in_air:
        words.append("in air")
    if seat.penalty_owed:
        words.append("owes a penalty")
    if snap.game_over and seat.side in snap.winners:
        words.append("winner")
    return ", ".join(words)


def _hand(snap: TableSnapshot, s: int, y: float, rh: int) -> list[Shape]:
    cards = snap.seats[s].cards
    if not cards:
        return []
    h = rh - 26
    w = round(h / CARD_RATIO, 1)
    left, right = 200, LEFT_W - 8
    step = w + 4 if len(cards) == 1 else min(w + 4, (right - left - w) / (len(cards) - 1))
    moved = _moved_card(snap, s)
    out: list[Shape] = []
    lifted: list[Shape] = []  # the moved card, raised and drawn over its neighbours
    top = y + 12
    for i, kind in enumerate(cards):
        x = round(left + i * step, 1)
        if moved is not None and kind == moved and not lifted:  # one copy moves
            lifted.append(Card(x, top - 8, w, kind, highlight=True))
        else:
            out.append(Card(x, top, w, kind))
    return out + lifted


def _moved_card(snap: TableSnapshot, s: int) -> int | None:
    """The card the step's move plays from seat ``s``'s hand, if it plays one."""
    if snap.move is None or snap.move >= NUM_KINDS or snap.turn != s:
        return None
    return snap.move


def _middle(snap: TableSnapshot, height: int) -> list[Shape]:
    x, w = MIDDLE_X, MIDDLE_W
    out: list[Shape] = [Rect(x, HEADER_H + 8, w, height - HEADER_H - 18, PANEL, radius=6)]
    cw = 64
    y = HEADER_H + 22
    if snap.top is not None:
        out.append(Card(x + 20, y, cw, snap.top))
    out.append(Text(x + 20 + cw / 2, y + cw * CARD_RATIO + 16, "discard", 11, MUTED, "middle"))
    out.append(
        Text(x + 20 + cw / 2, y + cw * CARD_RATIO + 29, str(snap.discard_size), 11, MUTED, "middle")
    )
    if snap.stock_size:
        out.append(Card(x + 110, y + 6, cw * 0.8, None))
    sx = x + 110 + cw * 0.4
    out.append(Text(sx, y + cw * CARD_RATIO + 16, "stock", 11, MUTED, "middle"))
    out.append(Text(sx, y + cw * CARD_RATIO + 29, str(snap.stock_size), 11, MUTED, "middle"))
    # what is owed or demanded
    ty = y + cw * CARD_RATIO + 52
    lines: list[tuple[str, str]] = [
        ("clockwise ↻" if snap.direction == 1 else "counter-clockwise ↺", INK)
    ]
    if snap.count:
        lines.append((f"count {snap.count}", MOVE))
    if snap.demand:
        lines.append((f"demand: take {snap.demand}", MOVE))
    if snap.free_play:
        lines.append(("any card may be played", INK))
    owed = [f"p{seat.seat}" for seat in snap.seats if seat.penalty_owed]
    if owed:
        lines.append((f"penalty owed: {', '.join(owed)}", MOVE))
    for text, colour in lines:
        out.append(Text(x + 14, ty, text, 12.5, colour, bold=colour == MOVE))
        ty += LINE + 2
    if snap.suit is not None:
        words = "suit named" if snap.suit_named else "suit"
        out.append(
            Text(x + 14, ty, words, 12.5, MOVE if snap.suit_named else INK, bold=snap.suit_named)
        )
        out += suit_shape(snap.suit, x + 14 + (80 if snap.suit_named else 34), ty - 12, 14)
        ty += LINE + 2
    ty += 6
    decision = _decision(snap, x + 14, ty)
    below = ty + max(2, len(decision)) * LINE + 8  # the events, under two lines or the result
    return out + decision + _events(snap, x + 14, below, w - 28, height)


def _decision(snap: TableSnapshot, x: float, y: float) -> list[Shape]:
    if snap.game_over:
        words = "game stopped by a guard" if snap.truncated else "game over"
        result = wrap(game_result(snap), MIDDLE_W - 28, 11.5)
        return [
            Text(x, y, words, 14, MOVE, bold=True, role="status"),
            *(
                Text(x, y + (i + 1) * LINE + 2, line, 11.5, INK, bold=True, role="result")
                for i, line in enumerate(result)
            ),
        ]
    asked = DECISION_WORDS[snap.decision]
    figgy = f" (p{snap.turn}'s hand)" if snap.turn != snap.to_play else ""
    out = [Text(x, y, f"p{snap.to_play} {asked}{figgy}", 12.5, INK, bold=True, role="status")]
    if snap.move is not None:
        words = "draws" if snap.move == DRAW else action_name(snap.move)
        out.append(Text(x, y + LINE + 2, f"→ {words}", 13, MOVE, bold=True, role="move"))
    return out


def _events(snap: TableSnapshot, x: float, y: float, w: float, height: int) -> list[Shape]:
    """The step's events in words (``str(event)``, written in crates_env.events), as many lines
    as fit."""
    out: list[Shape] = [Text(x, y, "events", 11, MUTED, bold=True)]
    lines = [line for e in snap.events for line in wrap(str(e), w, 11)]
    room = int((height - 20 - y) // (LINE - 1))
    if len(lines) > room:
        lines = [*lines[: room - 1], f"… {len(lines) - room + 1} more lines"]
    for i, line in enumerate(lines):
        out.append(Text(x, y + (i + 1) * (LINE - 1), line, 11, INK, role="event"))
    return out


def _scores(snap: TableSnapshot, w: float, height: int) -> list[Shape]:
    """The scores hand by hand: a row per finished hand (its deal size and each side's points),
    the latest rows that fit, and the totals."""
    x = RIGHT_X
    out: list[Shape] = [Rect(x, HEADER_H + 8, w, height - HEADER_H - 18, PANEL, radius=6)]
    sides = len(snap.sides)
    col = (w - 80) / sides
    y = HEADER_H + 28
    out.append(Text(x + 10, y, "scores, hand by hand", 12, INK, bold=True))
    if snap.winner_collects:
        y += LINE
        out.append(Text(x + 10, y, "who goes out collects the hand", 10.5, MUTED))
    y += LINE + 4

    def cell(i: int) -> float:
        return x + 80 + (i + 0.5) * col

    out.append(Text(x + 10, y, "hand", 10.5, MUTED))
    out.append(Text(x + 56, y, "dealt", 10.5, MUTED, "middle"))
    for t in range(sides):
        colour = SIDE_COLOURS[t % len(SIDE_COLOURS)] if snap.partnerships else MUTED
        out.append(
            Text(
                cell(t),
                y,
                _fit(side_label(snap, t), col, 10.5),
                10.5,
                colour,
                "middle",
                bold=snap.partnerships,
            )
        )
    rows = snap.hands
    room = int((height - y - 3 * LINE - 20) // LINE)
    if len(rows) > room:
        y += LINE
        out.append(Text(x + 10, y, f"… hands 1-{rows[-room].number - 1}", 10.5, MUTED))
        rows = rows[-room + 1 :]
    out_before = {s for row in snap.hands[: len(snap.hands) - len(rows)] for s in row.eliminated}
    for row in rows:
        y += LINE
        out.append(Text(x + 10, y, str(row.number), 10.5, INK))
        out.append(Text(x + 56, y, str(row.deal_size), 10.5, MUTED, "middle"))
        for t in range(sides):  # eliminations happen only without partnerships: t is the seat
            if t in out_before:
                out.append(Text(cell(t), y, "–", 10.5, MUTED, "middle"))
            elif t in row.eliminated:
                out.append(Text(cell(t), y, f"{row.points[t]}×", 10.5, MOVE, "middle", True))
            else:
                out.append(Text(cell(t), y, str(row.points[t]), 10.5, INK, "middle"))
        out_before.update(row.eliminated)
    y += 8
    out.append(Rect(x + 8, y, w - 16, 1, MUTED))
    y += LINE
    out.append(Text(x + 10, y, "total", 11, INK, bold=True))
    for t in range(sides):
        won = snap.game_over and t in snap.winners
        out.append(
            Text(
                cell(t),
                y,
                str(snap.scores[t]),
                11.5,
                MOVE if won else INK,
                "middle",
                bold=True,
                role=f"total-{t}",
            )
        )
    if snap.last_player:
        out.append(Text(x + 10, y + LINE + 4, "× knocked out: the highest hand", 10.5, MUTED))
    return out


def faces_of(scenes: Iterable[Scene]) -> list[tuple[int | None, bool]]:
    """The card faces (kind, highlighted) the scenes show, each once; the back is kind None."""
    seen = {
        (item.kind, item.highlight)
        for scene in scenes
        for item in scene.items
        if isinstance(item, Card)
    }
    return [face for face in CARD_FACES if face in seen]

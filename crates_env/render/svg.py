"""A :class:`~crates_env.render.layout.Scene` as SVG text (the replay page draws with it).

Each shape is one element (``fragment``); a card is a ``<use>`` of its face, defined once as a
``<symbol>`` (``card_symbols``), so a page holds each card's drawing once however often it shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from .layout import (
    CARD_FACE_H,
    CARD_FACE_W,
    CARD_RATIO,
    Card,
    Circle,
    Polygon,
    Rect,
    Shape,
    card_face,
)
from .layout import Text as TextShape

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_ANCHORS = {"start": "", "middle": ' text-anchor="middle"', "end": ' text-anchor="end"'}


def _n(value: float) -> str:
    """A coordinate, short: ``12`` rather than ``12.0``."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def card_id(kind: int | None, highlight: bool = False) -> str:
    """The symbol of a face: ``k12``, ``k12h`` highlighted, ``back``."""
    return "back" if kind is None else f"k{kind}{'h' if highlight else ''}"


def fragment(shape: Shape) -> str:
    """One shape as an SVG element."""
    if isinstance(shape, Card):
        face = card_id(shape.kind, shape.highlight)
        return (
            f'<use href="#{face}" x="{_n(shape.x)}" y="{_n(shape.y)}" '
            f'width="{_n(shape.w)}" height="{_n(shape.w * CARD_RATIO)}"/>'
        )
    if isinstance(shape, TextShape):
        weight = ' font-weight="bold"' if shape.bold else ""
        role = f' data-role="{escape(shape.role)}"' if shape.role else ""
        return (
            f'<text x="{_n(shape.x)}" y="{_n(shape.y)}" font-size="{_n(shape.size)}" '
            f'fill="{shape.fill}"{_ANCHORS[shape.anchor]}{weight}{role}>{escape(shape.text)}</text>'
        )
    if isinstance(shape, Rect):
        stroke = (
            f' stroke="{shape.stroke}" stroke-width="{_n(shape.width)}"' if shape.stroke else ""
        )
        radius = f' rx="{_n(shape.radius)}"' if shape.radius else ""
        return (
            f'<rect x="{_n(shape.x)}" y="{_n(shape.y)}" width="{_n(shape.w)}" '
            f'height="{_n(shape.h)}" fill="{shape.fill}"{stroke}{radius}/>'
        )
    if isinstance(shape, Circle):
        centre = f'cx="{_n(shape.x)}" cy="{_n(shape.y)}"'
        return f'<circle {centre} r="{_n(shape.r)}" fill="{shape.fill}"/>'
    if isinstance(shape, Polygon):
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        return f'<polygon points="{points}" fill="{shape.fill}"/>'
    raise TypeError(f"not a shape: {shape!r}")


def card_symbols(faces: Iterable[tuple[int | None, bool]]) -> str:
    """The ``<symbol>`` of each card face (kind, highlighted) the scenes use."""
    return "".join(
        f'<symbol id="{card_id(k, h)}" viewBox="0 0 {CARD_FACE_W} {CARD_FACE_H}">'
        + "".join(fragment(s) for s in card_face(k, h))
        + "</symbol>"
        for k, h in faces
    )

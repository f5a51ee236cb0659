"""A :class:`~crates_env.render.layout.Scene` painted into an RGB array by matplotlib's Agg
renderer (no figure, no window): the environment's ``rgb_array`` frames.

One pixel per scene unit, and the renderer at 72 dots per inch so a font's points are the
scene's pixels. Shapes are painted in the scene's order. Texts and card faces come back from
step to step (names, scores, the same cards), so each is rasterised once and then placed as an
image; a card face is its shapes (``layout.card_face``, the same the page's card symbols hold)
painted at the card's size.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.colors import to_rgba
from matplotlib.font_manager import FontProperties
from matplotlib.patches import BoxStyle
from matplotlib.path import Path
from matplotlib.transforms import Affine2D

from .layout import (
    CARD_FACE_W,
    CARD_RATIO,
    Card,
    Circle,
    Polygon,
    Rect,
    Scene,
    Shape,
    Text,
    card_face,
)

FONT = "DejaVu Sans"  # matplotlib's own font: the same frames on every machine
_MEASURE = RendererAgg(1, 1, 72)


def paint(scene: Scene) -> np.ndarray:
    """The scene as a ``height x width x 3`` uint8 array."""
    return _render(scene.items, scene.width, scene.height, 1.0)[:, :, :3].copy()


def _render(shapes, width: int, height: int, k: float) -> np.ndarray:
    """``shapes`` with coordinates and sizes times ``k`` on a transparent ``height x width``
    canvas, as RGBA."""
    renderer = RendererAgg(width, height, 72)
    flip = Affine2D().scale(k, -k).translate(0, height)  # scene units (y down) to the canvas's
    gc = renderer.new_gc()
    for shape in shapes:
        _draw(renderer, gc, flip, height, shape, k)
    return np.asarray(renderer.buffer_rgba()).copy()


def _draw(renderer, gc, flip: Affine2D, height: int, shape: Shape, k: float) -> None:
    if isinstance(shape, Card):
        image = _face(shape.kind, shape.highlight, round(k * shape.w))
        x, top = round(k * shape.x), round(k * shape.y)
        renderer.draw_image(gc, x, height - top - image.shape[0], image[::-1])
    elif isinstance(shape, Text):
        image, left, ascent = _text(shape.text, round(k * shape.size, 2), shape.fill, shape.bold)
        width = image.shape[1] - 2
        x = k * shape.x - {"start": 0, "middle": width / 2, "end": width}[shape.anchor] - left
        top = k * shape.y - ascent
        renderer.draw_image(gc, round(x), height - round(top) - image.shape[0], image[::-1])
    elif isinstance(shape, Rect):
        path = BoxStyle.Round(pad=0, rounding_size=shape.radius)(
            shape.x, shape.y, shape.w, shape.h, 1.0
        )
        gc.set_linewidth(k * shape.width if shape.stroke else 0)
        gc.set_foreground(shape.stroke or "none")
        fill = None if shape.fill == "none" else to_rgba(shape.fill)
        renderer.draw_path(gc, path, flip, fill)
    elif isinstance(shape, Circle | Polygon):
        if isinstance(shape, Circle):
            path = Path.circle((shape.x, shape.y), shape.r)
        else:
            path = Path([*shape.points, shape.points[0]], closed=True)  # the last one closes it
        gc.set_linewidth(0)
        renderer.draw_path(gc, path, flip, to_rgba(shape.fill))
    else:
        raise TypeError(f"not a shape: {shape!r}")


@lru_cache(maxsize=512)
def _face(kind: int | None, highlight: bool, width: int) -> np.ndarray:
    """A card face ``width`` pixels wide (RGBA, top row first)."""
    height = round(width * CARD_RATIO)
    return _render(card_face(kind, highlight), width, height, width / CARD_FACE_W)


@lru_cache(maxsize=8192)
def _text(text: str, size: float, colour: str, bold: bool) -> tuple[np.ndarray, int, float]:
    """One line of text as an RGBA image (top row first) with a pixel of margin, the margin,
    and how far the image's top lies above the baseline."""
    prop = FontProperties(family=FONT, size=size, weight="bold" if bold else "normal")
    w, h, descent = _MEASURE.get_text_width_height_descent(text, prop, ismath=False)
    width, height = math.ceil(w) + 2, math.ceil(h) + 2
    renderer = RendererAgg(width, height, 72)
    gc = renderer.new_gc()
    gc.set_foreground(colour)
    baseline = 1 + descent  # from the bottom; a renderer that counts from the top flips it
    renderer.draw_text(gc, 1, height - baseline if renderer.flipy() else baseline, text, prop, 0)
    image = np.asarray(renderer.buffer_rgba()).copy()
    return image, 1, height - 1 - descent

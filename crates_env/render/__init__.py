"""Pictures of the table: one model of a step (``table``), one layout (``layout``), drawn as
SVG for the replay page (``svg``, ``page``) and as RGB frames for the environment (``raster``).

``import crates_env.render`` needs no matplotlib; ``frame`` imports it when first called.
"""

from __future__ import annotations

import numpy as np

from .layout import Scene, layout
from .page import page_html, write_page
from .replay import Recorder, Replay
from .table import EventCursor, TableSnapshot, table_snapshot


def frame(snapshot: TableSnapshot) -> np.ndarray:
    """The table as an RGB array (``height x width x 3``, uint8)."""
    from .raster import paint

    return paint(layout(snapshot))


__all__ = [
    "EventCursor",
    "Recorder",
    "Replay",
    "Scene",
    "TableSnapshot",
    "frame",
    "layout",
    "page_html",
    "table_snapshot",
    "write_page",
]

"""``render_mode="human"``: the environment's frames shown in a matplotlib window."""

from __future__ import annotations

import numpy as np

# matplotlib's backends that draw to files or memory only: no window to show a frame in
_NO_WINDOW = {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"}


class Window:
    """One window, its picture replaced at each frame and held ``1 / fps`` seconds."""

    def __init__(self, fps: float) -> None:
        self.pause = 1 / fps
        self._figure = None
        self._image = None

    def show(self, frame: np.ndarray) -> bool:
        """Show ``frame``; False where matplotlib has no window to open (a headless machine)."""
        import matplotlib
        import matplotlib.pyplot as plt

        if matplotlib.get_backend().lower() in _NO_WINDOW:
            return False
        if self._figure is None or not plt.fignum_exists(self._figure.number):
            height, width = frame.shape[:2]
            self._figure = plt.figure("Crates", figsize=(width / 100, height / 100), dpi=100)
            axes = self._figure.add_axes((0, 0, 1, 1))
            axes.set_axis_off()
            self._image = axes.imshow(frame)
            plt.show(block=False)
        else:
            self._image.set_data(frame)
        plt.pause(self.pause)
        return True

    def close(self) -> None:
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None

"""The explorer's figure: A | A' and one colour bar, one persistent Figure updated by blitting.

A new sentence rebuilds the axes (same Figure) and lets constrained layout place them once; a
click only gives existing artists new data and text and redraws them over the cached background
(matplotlib's blitting: ``copy_from_bbox``, ``restore_region``, ``draw_artist``). Each picture is
sent as a PNG (Pillow) for an ``ipywidgets.Image``.
"""

from __future__ import annotations

import io
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from ..plotting import MAX_ANNOTATED, STYLE, attention_heatmap, text_colours

TITLES = ("A: original order", "A': shuffled", "Pᵀ A' P: A' put back")


def png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as a PNG, at zlib's fastest level (one is sent per click)."""
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).save(buffer, "png", compress_level=1)
    return buffer.getvalue()


def scale_label(vmax: float) -> str:
    return f"attention weight α_ij\nscale 0 to {vmax:.2f}\n(the largest, rounded up)"


class ExplorerFigure:
    """A (left) and A2 (right) on one colour scale: 0 to the largest weight of both, rounded up."""

    def __init__(self, size: tuple[float, float] = (10.0, 5.0), dpi: int = 100):
        self.figure = Figure(figsize=size, dpi=dpi)
        FigureCanvasAgg(self.figure)
        self.axes, self.colorbar, self.heading = (), None, None
        self._labels, self._vmax, self._background = None, None, None

    def update(self, A, labels, A2, labels2, titles, heading: str) -> bytes:
        """Show A (rows and columns ``labels``) and A2 (``labels2``); returns the PNG."""
        if tuple(labels) != self._labels:  # another sentence, or the same words in another order
            self._rebuild(list(labels), list(labels2), titles)
        vmax = math.ceil(max(A.max(), A2.max()) * 20) / 20  # a round scale: it seldom changes
        if vmax != self._vmax:
            self._capture(vmax)
        self.figure.canvas.restore_region(self._background)
        for ax, M, words, title in zip(self.axes, (A, A2), (labels, labels2), titles, strict=True):
            ax.images[0].set_data(M)
            ax.set_xticks(ax.get_xticks(), words)
            ax.set_yticks(ax.get_yticks(), words)
            for text, value, colour in zip(ax.texts, M.ravel(), text_colours(M, 0.0, vmax).ravel(),
                                           strict=False):  # no values when n > MAX_ANNOTATED
                text.set_text(f"{value:.2f}")
                text.set_color(colour)
            ax.title.set_text(title)  # set_title would forget where the layout put it
        self.heading.set_text(heading)
        for artist in self._dynamic():
            self.figure.draw_artist(artist)
        return png(self.figure.canvas)

    def _dynamic(self) -> list:
        """What a click can change: images, values, titles, the right panel's words, the heading;
        and the frames, which sit on top of the images."""
        left, right = self.axes
        words = [*right.get_xticklabels(), *right.get_yticklabels()]
        artists = [*left.images, *right.images, *left.spines.values(), *right.spines.values()]
        return [*artists, *left.texts, *right.texts, *words, left.title, right.title, self.heading]

    def _rebuild(self, labels, labels2, titles) -> None:
        """New axes for a new sentence, placed once by constrained layout for these words."""
        figure, n = self.figure, len(labels)
        figure.clear()
        figure.set_layout_engine("constrained")
        with plt.style.context(STYLE):
            self.axes = figure.subplots(1, 2)
            for ax, words, title in zip(self.axes, (labels, labels2), titles, strict=True):
                attention_heatmap(np.zeros((n, n)), words, ax, values=n <= MAX_ANNOTATED)
                ax.tick_params(axis="x", labelrotation=90 if n > 5 else 0)
                ax.set_title(title)
            self.colorbar = figure.colorbar(self.axes[1].images[0], ax=self.axes, shrink=0.9,
                                            label=scale_label(1.0), format="%.2f")
            self.heading = figure.suptitle(" ")
        figure.get_layout_engine().execute(figure)
        figure.set_layout_engine("none")  # later draws keep these positions
        self._labels, self._vmax = tuple(labels), None

    def _capture(self, vmax: float) -> None:
        """The colour scale 0..vmax on both panels and the colour bar; then the background: the
        figure without what a click changes, cached for blitting."""
        for ax in self.axes:
            ax.images[0].set_clim(0.0, vmax)
        self.colorbar.set_label(scale_label(vmax))
        texts = [artist for artist in self._dynamic() if isinstance(artist, Text)]
        others = [artist for artist in self._dynamic() if not isinstance(artist, Text)]
        for artist in texts:  # transparent, not invisible: axis labels still make room for them
            artist.set_alpha(0.0)
        for artist in others:
            artist.set_visible(False)
        self.figure.canvas.draw()
        self._background = self.figure.canvas.copy_from_bbox(self.figure.bbox)
        for artist in texts:
            artist.set_alpha(None)
        for artist in others:
            artist.set_visible(True)
        self._vmax = vmax

    def close(self) -> None:
        """Let go of the background and of pyplot's hold on the figure, if it has one."""
        plt.close(self.figure)
        self.axes, self.colorbar, self.heading = (), None, None
        self._labels, self._vmax, self._background = None, None, None

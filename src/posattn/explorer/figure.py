"""The explorer's figure: A | A' and one colour bar, one persistent Figure updated by blitting
(``copy_from_bbox``, ``restore_region``, ``draw_artist``) and sent as a PNG (Pillow).
"""

import io
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from PIL import Image

from ..plotting import MAX_ANNOTATED, STYLE, attention_heatmap, text_colours

TITLES = ("A: original order", "A': shuffled", "Pᵀ A' P: A' put back")
SCALE = "attention weight α_ij\nscale 0 to {:.2f}\n(the largest, rounded up)"  # the colour bar


def png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as a PNG, at zlib's fastest level (one is sent per click)."""
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).save(buffer, "png", compress_level=1)
    return buffer.getvalue()


class ExplorerFigure:
    """A (left) and A2 (right) on one colour scale: 0 to the largest weight of both, rounded up."""

    def __init__(self):
        self.figure = Figure(figsize=(10.0, 5.0), dpi=100)
        FigureCanvasAgg(self.figure)
        self._labels = None  # no axes yet: the first update builds them

    def update(self, A, labels, A2, labels2, titles, heading: str) -> bytes:
        """Show A (rows and columns ``labels``) and A2 (``labels2``); returns the PNG."""
        if tuple(labels) != self._labels:  # another sentence, or the same words in another order
            self._rebuild(list(labels), titles)
        vmax = math.ceil(max(A.max(), A2.max()) * 20) / 20  # a round scale: it seldom changes
        if vmax != self._vmax:
            self._capture(vmax)
        self.figure.canvas.restore_region(self._background)
        for ax, M, words, title in zip(self.axes, (A, A2), (labels, labels2), titles, strict=True):
            ax.set_xticks(ax.get_xticks(), words)
            ax.set_yticks(ax.get_yticks(), words)
            ax.images[0].set_data(M)
            for text, value, colour in zip(ax.texts, M.ravel(), text_colours(M, 0.0, vmax).ravel(),
                                           strict=False):  # no values when n > MAX_ANNOTATED
                text.set_text(f"{value:.2f}")
                text.set_color(colour)
            ax.title.set_text(title)  # set_title would forget where the layout put it
            for artist in self._artists(ax):
                self.figure.draw_artist(artist)
        self.heading.set_text(heading)
        self.figure.draw_artist(self.heading)
        return png(self.figure.canvas)

    def _artists(self, ax) -> list:
        """What a click can change in a panel: image, frame, values, title; on the right, words."""
        words = [*ax.get_xticklabels(), *ax.get_yticklabels()] if ax is self.axes[1] else []
        return [*ax.images, *ax.spines.values(), *ax.texts, ax.title, *words]

    def _rebuild(self, labels, titles) -> None:
        """New axes for a new sentence, placed once by constrained layout for these words."""
        figure, n = self.figure, len(labels)
        figure.clear()
        with plt.style.context(STYLE):
            self.axes = figure.subplots(1, 2)
            for ax, title in zip(self.axes, titles, strict=True):  # update() gives each its words
                attention_heatmap(np.zeros((n, n)), labels, ax, title=title,
                                  values=n <= MAX_ANNOTATED)
                ax.tick_params(axis="x", labelrotation=90 if n > 5 else 0)
            self.colorbar = figure.colorbar(self.axes[1].images[0], ax=self.axes, shrink=0.9,
                                            label=SCALE.format(1.0), format="%.2f")
            self.heading = figure.suptitle(" ")
        ConstrainedLayoutEngine().execute(figure)  # once: later draws keep these positions
        self._labels, self._vmax = tuple(labels), None

    def _capture(self, vmax: float) -> None:
        """The colour scale 0..vmax on both panels and the colour bar; then the background: the
        figure without what a click changes, cached for blitting."""
        for ax in self.axes:
            ax.images[0].set_clim(0.0, vmax)
        self.colorbar.set_label(SCALE.format(vmax))
        dynamic = [*self._artists(self.axes[0]), *self._artists(self.axes[1]), self.heading]
        for artist in dynamic:  # transparent, not invisible: axis labels still make room for them
            artist.set_alpha(0.0)
        self.figure.canvas.draw()
        self._background = self.figure.canvas.copy_from_bbox(self.figure.bbox)
        for artist in dynamic:
            artist.set_alpha(None)
        self._vmax = vmax

    def close(self) -> None:
        """Let go of the axes and the cached background (the explorer object may live on)."""
        self.axes, self.colorbar, self.heading, self._background = (), None, None, None

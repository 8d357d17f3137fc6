"""The explorer's figure: two attention heatmaps and one colour bar, updated in place.

One persistent Figure. A new sentence length or new words rebuild the axes'
contents (same Figure); a new order or scheme only changes data and text of
existing artists and redraws just those over a cached background (blitting),
which is what makes a click fast. Rendered to PNG bytes for an ``ipywidgets.Image``.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from .plotting import ATTENTION_CMAP, _text_colour, attention_heatmap

TITLES = ("A (original order)", "A' (shuffled)", "Pᵀ A' P (A' put back in the original order)")


def png_bytes(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as PNG; fast zlib level, the pixels are what matters."""
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).convert("RGB").save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


class ExplorerFigure:
    """A | A' side by side on a fixed 0..1 viridis scale; ``update`` returns the new PNG."""

    def __init__(self, size: tuple[float, float] = (10.0, 4.6), dpi: int = 100):
        self.figure = Figure(figsize=size, dpi=dpi)
        FigureCanvasAgg(self.figure)
        self.axes = self.figure.subplots(1, 2)
        self.images: list = []
        self._labels: tuple = ()
        self._background = None

    def update(self, A: np.ndarray, tokens, A2: np.ndarray, tokens2, title2: str = TITLES[1]) -> bytes:
        """Show A (rows and columns labelled ``tokens``) and A2 (labelled ``tokens2``)."""
        if self._labels != tuple(sorted(tokens)):  # new words or a new length: the layout must change
            self._rebuild(A, tokens, A2, tokens2, title2)
        else:
            for ax, M, labels in zip(self.axes, (A, A2), (tokens, tokens2), strict=True):
                self._refresh(ax, M, labels)
            self.axes[1].title.set_text(title2)
            self._blit()
        return png_bytes(self.figure.canvas)

    def _refresh(self, ax, M: np.ndarray, labels) -> None:
        """New data and words on the existing artists of one panel."""
        ax.images[0].set_data(M)
        ax.set_xticklabels(labels)
        ax.set_yticklabels(labels)
        for text, value in zip(ax.texts, M.ravel(), strict=False):  # row-major as annotate wrote them; none when n > 8
            text.set_text(f"{value:.2f}")
            text.set_color(_text_colour(value, 0.0, 1.0, ATTENTION_CMAP))

    def _dynamic(self) -> list:
        """The artists a click changes: images, cell values, tick labels, the titles."""
        parts = []
        for ax in self.axes:
            parts += [*ax.images, *ax.texts, ax.title, *ax.get_xticklabels(), *ax.get_yticklabels()]
        return parts

    def _rebuild(self, A, tokens, A2, tokens2, title2: str) -> None:
        """New length or new words: fresh axes contents, a fresh layout, a fresh background."""
        figure = self.figure
        figure.clear()  # the same Figure, new axes: nothing of the old layout lingers
        figure.set_layout_engine("constrained")
        self.axes = figure.subplots(1, 2)
        for ax, M, labels, title in zip(self.axes, (A, A2), (tokens, tokens2), (TITLES[0], title2), strict=True):
            attention_heatmap(M, labels, ax, title=title)
            ax.tick_params(axis="x", labelrotation=90 if len(labels) > 5 else 0)
        self.images = [ax.images[0] for ax in self.axes]
        figure.colorbar(self.images[1], ax=self.axes, shrink=0.8, label="attention weight α_ij")
        figure.draw_without_rendering()  # constrained layout places everything once, labels visible
        for ax in self.axes:
            self._freeze(ax)
        figure.set_layout_engine("none")  # later draws keep these positions
        self._labels = tuple(sorted(tokens))
        self._background = None
        self._blit()

    @staticmethod
    def _freeze(ax) -> None:
        """Pin the title and axis labels where the layout put them, clear of the tick labels."""
        ax.set_title(ax.get_title(), y=ax.title.get_position()[1])
        to_axes = ax.transAxes.inverted()
        ax.xaxis.set_label_coords(0.5, to_axes.transform(ax.xaxis.label.get_position())[1])
        ax.yaxis.set_label_coords(to_axes.transform(ax.yaxis.label.get_position())[0], 0.5)

    def _blit(self) -> None:
        """Redraw only the changing artists over the cached rest of the figure."""
        canvas, dynamic = self.figure.canvas, self._dynamic()
        if self._background is None:
            for artist in dynamic:
                artist.set_visible(False)
            canvas.draw()
            self._background = canvas.copy_from_bbox(self.figure.bbox)
            for artist in dynamic:
                artist.set_visible(True)
        canvas.restore_region(self._background)
        for artist in dynamic:
            self.figure.draw_artist(artist)

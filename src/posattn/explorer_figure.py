"""The explorer's figure: two attention heatmaps and one colour bar, updated in place.

One persistent Figure. A new sentence length or new words rebuild the axes'
contents (same Figure); a new order or scheme only changes data and text of
existing artists and redraws just those over a cached background (blitting),
which is what makes a click fast. Rendered to PNG bytes for an ``ipywidgets.Image``.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .plotting import WEIGHT_TICKS, attention_heatmap, text_colours, title_above

TITLES = ("A (original order)", "A' (shuffled)", "Pᵀ A' P (A' put back in the original order)")


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as an 8-bit RGB PNG, written directly: rows unfiltered, zlib at its fastest level.

    One is sent per click. For a picture of flat colours this takes about half the time of PIL's encoder
    (which tries a filter per row) for a file some 15 % larger; any PNG reader decodes the same pixels.
    """
    rgb = np.asarray(canvas.buffer_rgba())[..., :3]
    height, width, _ = rgb.shape
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # each row: its filter type (0, none), its pixels
    rows[:, 1:].reshape(height, width, 3)[...] = rgb  # one copy, straight into the rows
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # bit depth 8, colour type 2 (RGB), no interlace
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 1)) + _chunk(b"IEND", b"")


class ExplorerFigure:
    """A | A' side by side on a fixed 0..1 viridis scale; ``update`` returns the new PNG."""

    def __init__(self, size: tuple[float, float] = (10.0, 4.6), dpi: int = 100):
        self.figure = Figure(figsize=size, dpi=dpi)
        FigureCanvasAgg(self.figure)
        self.axes = ()  # made by the first update, for its sentence
        self._labels: tuple = ()
        self._shown_A = None  # (A, its title) as drawn into the second background
        self._bare = self._with_A = None  # backgrounds: without anything a click changes; plus the A panel

    def update(self, A: np.ndarray, tokens, A2: np.ndarray, tokens2, titles: tuple[str, str] = TITLES[:2]) -> bytes:
        """Show A (rows and columns labelled ``tokens``) and A2 (labelled ``tokens2``); returns the PNG."""
        if self._labels != tuple(sorted(tokens)):  # new words or a new length: the layout must change
            self._rebuild(A, tokens, A2, tokens2, titles)
        canvas, (A_panel, shuffled_panel) = self.figure.canvas, self.axes
        if self._shown_A is None or not (np.array_equal(A, self._shown_A[0]) and titles[0] == self._shown_A[1]):
            self._refresh(A_panel, A, None)  # a new scheme changes A too
            A_panel.title.set_text(titles[0])
            self._blit(self._bare, self._dynamic(A_panel))
            self._with_A, self._shown_A = canvas.copy_from_bbox(self.figure.bbox), (A.copy(), titles[0])
        self._refresh(shuffled_panel, A2, tokens2)
        shuffled_panel.title.set_text(titles[1])
        self._blit(self._with_A, self._dynamic(shuffled_panel))
        return png_bytes(canvas)

    @staticmethod
    def _refresh(ax, M: np.ndarray, labels) -> None:
        """New data (and words, unless None) on the existing artists of one panel."""
        ax.images[0].set_data(M)
        if labels is not None:
            ax.set_xticklabels(labels)
            ax.set_yticklabels(labels)
        for text, value, colour in zip(ax.texts, M.ravel(), text_colours(M).ravel(), strict=False):  # none when n > 8
            text.set_text(f"{value:.2f}")
            text.set_color(colour)

    @staticmethod
    def _dynamic(ax) -> list:
        """What a click can change in a panel: the image, the values, the title, and on A' the words.
        A's words change only with the sentence, which rebuilds the figure."""
        words = [*ax.get_xticklabels(), *ax.get_yticklabels()] if ax.get_subplotspec().colspan.start else []
        return [*ax.images, *ax.texts, ax.title, *words]

    def _rebuild(self, A, tokens, A2, tokens2, titles: tuple[str, str]) -> None:
        """New length or new words: fresh axes contents, a fresh layout, a fresh background."""
        figure = self.figure
        figure.clear()  # the same Figure, new axes: nothing of the old layout lingers
        figure.set_layout_engine("constrained")
        self.axes = figure.subplots(1, 2)
        for ax, M, labels, title in zip(self.axes, (A, A2), (tokens, tokens2), titles, strict=True):
            attention_heatmap(M, labels, ax)
            ax.tick_params(axis="x", labelrotation=90 if len(labels) > 5 else 0)
            title_above(ax, title)  # after the rotation, so it clears the turned words
        figure.colorbar(self.axes[1].images[0], ax=self.axes, shrink=0.8, label="attention weight α_ij",
                        ticks=WEIGHT_TICKS)
        renderer = figure.canvas.get_renderer()
        figure.get_layout_engine().execute(figure)  # constrained layout places the axes once, without drawing
        for ax in self.axes:
            ax.get_tightbbox(renderer)  # puts the axis labels clear of the tick labels, where they now are
            self._freeze(ax)
        figure.set_layout_engine("none")  # later draws keep these positions
        dynamic = self._dynamic(self.axes[0]) + self._dynamic(self.axes[1])
        for artist in dynamic:
            artist.set_visible(False)
        figure.canvas.draw()
        self._bare = figure.canvas.copy_from_bbox(figure.bbox)
        for artist in dynamic:
            artist.set_visible(True)
        self._labels, self._shown_A = tuple(sorted(tokens)), None

    @staticmethod
    def _freeze(ax) -> None:
        """Pin the axis labels where the layout put them, clear of the tick labels (the title is pinned already)."""
        to_axes = ax.transAxes.inverted()
        ax.xaxis.set_label_coords(0.5, to_axes.transform(ax.xaxis.label.get_position())[1])
        ax.yaxis.set_label_coords(to_axes.transform(ax.yaxis.label.get_position())[0], 0.5)

    def _blit(self, background, artists: list) -> None:
        """Redraw only ``artists`` over a cached background (blitting)."""
        self.figure.canvas.restore_region(background)
        for artist in artists:
            self.figure.draw_artist(artist)

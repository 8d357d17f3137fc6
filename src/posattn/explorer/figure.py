"""The explorer's figure: A | A' and one colour bar, one persistent Figure updated by blitting
(``copy_from_bbox``, ``restore_region``, ``draw_artist``) and sent as a PNG (``png``: zlib).

A click redraws only what it changed (a shuffle leaves A, the titles and the heading alone),
each part over its own strip of the cached background. The values and the words are
``StampedText``: matplotlib draws each distinct text once, and later clicks put that image down.
Words are drawn in the series' font, or, for characters it lacks, in an installed font that has
them (matplotlib's font manager); a word that no font can draw is refused before anything is
drawn."""

import functools
import math
import struct
import zlib

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform

from ..plotting import MAX_ANNOTATED, STYLE, attention_heatmap, text_colours

TITLES = ("A: original order", "A': shuffled", "Pᵀ A' P: A' put back")
SCALE = "attention weight α_ij\nscale 0 to {:.2f}\n(the largest, rounded up)"  # the colour bar
SIZES = ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize", "ytick.labelsize",
         "figure.titlesize")
LAST_RESORT = "Last Resort"  # a font that draws every character as a box: no use here
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas as an RGB PNG (the figure is opaque), one per click: rows without a filter, packed
    by zlib at its fastest level. Pillow's encoder (at any of its levels) picks a filter for each
    row first, which here costs more than the whole packing; this writes the same pixels in about
    a third of its time (``benchmarks/bench_explorer.py`` prints both)."""
    rgba = np.asarray(canvas.buffer_rgba())
    height, width = rgba.shape[:2]
    rows = np.zeros((height, 1 + 3 * width), np.uint8)  # each row: filter 0 ("none"), then RGB
    pixels = rows[:, 1:].reshape(height, width, 3)
    for channel in range(3):  # channel by channel: numpy's fast path for this copy
        pixels[..., channel] = rgba[..., channel]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    return b"".join([PNG_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(rows, 1)), _chunk(b"IEND", b"")])


def _chunk(kind: bytes, data: bytes) -> bytes:
    """A PNG chunk: its length, type, data and the CRC of type and data (PNG spec, section 5.3)."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


class StampedText(Text):
    """A Text that Agg draws from a cached image of itself: matplotlib draws each distinct text
    (string, colour, font, alignment) once, into a transparent scratch canvas, and every later
    draw puts that image down with ``draw_image``, its anchor on the nearest whole pixel. At a
    whole-pixel anchor the pixels are the Text's own; elsewhere they are the Text's moved by
    less than half a pixel. A drawing this does not cover (another renderer, rotation, alpha,
    a clip, a box, math, several lines) is the Text's own ``draw``."""

    def draw(self, renderer) -> None:
        if not self._stampable(renderer):
            return super().draw(renderer)
        if not self.get_visible() or not self.get_text() or self.get_alpha() == 0.0:
            return  # transparent: nothing to put down (the layout still measures it)
        stamp, (left, bottom) = _image_of(
            self.get_text(), to_rgba(self.get_color()), self.get_fontproperties().copy(),
            self.get_horizontalalignment(), self.get_verticalalignment(),
            self.get_figure().dpi, tuple(mpl.rcParams[key] for key in STAMP_SETTINGS))
        x, y = self.get_transform().transform(self.get_unitless_position())
        gc = renderer.new_gc()
        renderer.draw_image(gc, round(x) + left, round(y) + bottom, stamp)
        gc.restore()
        self.stale = False

    def _stampable(self, renderer) -> bool:
        text = self.get_text()
        return (isinstance(renderer, RendererAgg) and self.get_rotation() % 360 == 0
                and self.get_alpha() in (None, 0.0) and not self.get_usetex()
                and "\n" not in text and "$" not in text and self.get_bbox_patch() is None
                and not self.get_path_effects() and not self.get_wrap()
                and not (self.get_clip_on() and (self.get_clip_box() or self.get_clip_path())))


STAMP_SETTINGS = ("text.antialiased", "text.hinting", "text.hinting_factor")  # drawn as they say


@functools.lru_cache(maxsize=1024)  # images of 3–8 KB (a value, a word): a few MB at most
def _image_of(text: str, colour, font, ha: str, va: str, dpi: float, settings):
    """The image of one text (rows bottom up, as Agg's ``draw_image`` reads them) and where its
    bottom left corner sits from the text's anchor, in whole pixels: drawn by matplotlib, its
    anchor on a whole pixel in the middle of a transparent canvas that leaves the ink a margin.
    ``settings``: the STAMP_SETTINGS in force, which the drawing reads from rcParams; they are
    arguments only so that an image is cached per setting."""
    # the text reaches at most its width and its height from the anchor, and its ink overhangs
    # them by less than an em: a canvas of twice each, plus two ems, leaves the ink a margin
    width, height, _ = RendererAgg(1, 1, dpi).get_text_width_height_descent(text, font,
                                                                            ismath=False)
    em = font.get_size_in_points() * dpi / 72
    width, height = 2 * math.ceil(width + 2 * em), 2 * math.ceil(height + 2 * em)
    label = Text(width // 2, height // 2, text, color=colour, fontproperties=font, ha=ha, va=va,
                 transform=IdentityTransform())
    label.set_figure(Figure(dpi=dpi))  # where a Text reads the dpi from (never drawn)
    renderer = RendererAgg(width, height, dpi)  # transparent
    label.draw(renderer)  # under the settings the caller read: they are part of the key
    pixels = np.asarray(renderer.buffer_rgba())
    rows = np.flatnonzero(pixels[..., 3].any(axis=1))
    cols = np.flatnonzero(pixels[..., 3].any(axis=0))
    if rows.size == 0:  # no ink (only spaces): nothing to put down
        return np.zeros((1, 1, 4), np.uint8), (0, 0)
    top, bottom, left, right = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    image = pixels[top:bottom, left:right][::-1].copy()
    return image, (left - width // 2, height - bottom - height // 2)


@functools.cache
def _codepoints(path: str) -> frozenset:
    """The characters a font file has glyphs for."""
    return frozenset(FT2Font(path).get_charmap())


@functools.cache
def _series_font() -> tuple[tuple[str, ...], str]:
    """The series style's font families, and the file of the font they resolve to."""
    with plt.style.context(STYLE):
        families = tuple(mpl.rcParams["font.family"])
        return families, font_manager.findfont(font_manager.FontProperties(family=families))


@functools.cache
def _resolved(family: str) -> str:
    """The font file matplotlib draws the explorer's words from for a family name (no default in
    its place: a family that does not resolve has nothing to draw)."""
    with plt.style.context(STYLE):
        try:
            return font_manager.findfont(font_manager.FontProperties(family=family),
                                         fallback_to_default=False)
        except ValueError:
            return ""


def fonts_for(words) -> list[str]:
    """The font families that draw every character of words: the series' own, and, if it lacks
    some, the first installed font that has them all; a ValueError naming them if none has.

    >>> fonts_for(["dog", "bites", "man′"])
    ['sans-serif']
    """
    families, own = _series_font()
    families = list(families)
    missing = sorted({c for c in "".join(words) if ord(c) not in _codepoints(own)})
    if not missing:
        return families
    needed = {ord(c) for c in missing}
    for name in dict.fromkeys(font.name for font in font_manager.fontManager.ttflist
                              if needed <= _codepoints(font.fname)):
        # the file the words are drawn from: the name's regular face, which may lack what its
        # bold face has (DejaVu Serif Bold has math-bold letters, DejaVu Serif has not)
        drawn_from = _resolved(name)
        if not name.startswith(LAST_RESORT) and drawn_from and needed <= _codepoints(drawn_from):
            return [*families, name]
    shown = ", ".join(map(repr, missing[:10])) + (", …" if len(missing) > 10 else "")
    raise ValueError(f"sentence must use characters that a font on this computer can draw; got "
                     f"{shown}, which no installed font has. Install a font that has them (for "
                     "Chinese, Japanese or Korean: Noto Sans CJK), or type another sentence.")


def _stamp(texts) -> None:
    """Texts that matplotlib made (a heatmap's values, an axis's tick labels), which it offers no
    way to make as another class: each becomes a StampedText in place, the same object with the
    same properties. (A tick matplotlib adds later is a plain Text, drawn as before.)"""
    for text in texts:
        text.__class__ = StampedText


class ExplorerFigure:
    """A (left) and A2 (right) on one colour scale: 0 to the largest weight of both, rounded up."""

    def __init__(self):
        self.figure = Figure(figsize=(10.0, 5.0), dpi=100)
        FigureCanvasAgg(self.figure)
        self._labels = None  # no axes yet: the first update builds them
        self._short = False  # values without their leading zero (narrow cells: _fit_values)

    def update(self, A, labels, A2, labels2, titles, heading: str) -> bytes:
        """Show A (rows and columns ``labels``) and A2 (``labels2``); returns the PNG."""
        if self.figure is None:
            raise ValueError("the explorer's figure is closed; make a new ShuffleExplorer.")
        if tuple(labels) != self._labels:  # another sentence, or the same words in another order
            self._rebuild(list(labels), titles)
        vmax = math.ceil(max(A.max(), A2.max()) * 20) / 20  # a round scale: it seldom changes
        if vmax != self._vmax:
            self._capture(vmax)
        for i, (M, words) in enumerate(zip((A, A2), (labels, labels2), strict=True)):
            if self._shown[i] != (M.tobytes(), tuple(words)):
                self._redraw_panel(i, M, words, vmax)
        if self._shown[2] != (heading, *titles):  # a shuffle keeps them: no text drawn again
            self._restore(self._strips[2])
            self.heading.set_text(heading)
            for ax, title in zip(self.axes, titles, strict=True):
                ax.title.set_text(title)  # set_title would forget where the layout put it
            for artist in self._band():
                self.figure.draw_artist(artist)
            self._shown[2] = (heading, *titles)
        return png(self.figure.canvas)

    def _redraw_panel(self, i: int, M, words, vmax: float) -> None:
        """Panel i over its strip of the background: image, frame, values; on the right, words."""
        ax = self.axes[i]
        self._restore(self._strips[i])
        ax.set_xticks(ax.get_xticks(), words)
        ax.set_yticks(ax.get_yticks(), words)
        ax.images[0].set_data(M)
        for text, value, colour in zip(ax.texts, M.ravel(), text_colours(M, 0.0, vmax).ravel(),
                                       strict=False):  # no values when n > MAX_ANNOTATED
            text.set_text(self._value(value))
            text.set_color(colour)
        for artist in self._artists(ax):
            self.figure.draw_artist(artist)
        self._shown[i] = (M.tobytes(), tuple(words))

    def _restore(self, strip: Bbox) -> None:
        """The background's pixels in strip, in place. (strip is in display coordinates, y up;
        the saved region counts rows down from the top, and xy is where its own corner goes.)"""
        x0, y0, x1, y1 = strip.extents
        box = (x0, self.figure.bbox.height - y1, x1, self.figure.bbox.height - y0)
        self.figure.canvas.restore_region(self._background, bbox=box,
                                          xy=self._background.get_extents()[:2])

    def _artists(self, ax) -> list:
        """What a click can change in a panel: image, frame, values; on the right, words."""
        words = [*ax.get_xticklabels(), *ax.get_yticklabels()] if ax is self.axes[1] else []
        return [*ax.images, *ax.spines.values(), *ax.texts, *words]

    def _band(self) -> list:
        """What a click can change above the panels: the heading and the panels' titles."""
        return [self.heading, *(ax.title for ax in self.axes)]

    def _rebuild(self, labels, titles) -> None:
        """New axes for a new sentence, placed once by constrained layout for these words."""
        figure, n = self.figure, len(labels)
        families = fonts_for(labels)  # before anything is cleared: a refusal changes nothing
        figure.clear()
        # many words make narrow panels: their text then at 15 pt, the series' 18 pt less a sixth
        smaller = {key: 15 for key in SIZES} if n > 5 else {}
        with plt.style.context(STYLE), mpl.rc_context({"font.family": families, **smaller}):
            self.axes = figure.subplots(1, 2)
            for ax, title in zip(self.axes, titles, strict=True):  # update() gives each its words
                attention_heatmap(np.zeros((n, n)), labels, ax, title=title,
                                  values=n <= MAX_ANNOTATED)
                ax.tick_params(axis="x", labelrotation=90 if n > 5 else 0)
                _stamp([*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels()])
            self.colorbar = figure.colorbar(self.axes[1].images[0], ax=self.axes, shrink=0.9,
                                            format="%.2f")
            self.colorbar.set_label(SCALE.format(1.0), size="small")  # fits beside 12 long words
            self.heading = figure.suptitle(" ")
        # once: later draws keep these positions. wspace: room between the panels, as an axis
        # label centred on a narrow equal-aspect panel reaches past its own column
        ConstrainedLayoutEngine(wspace=0.05).execute(figure)
        self._fit_values(n)
        self._labels, self._vmax = tuple(labels), None

    def _value(self, value: float) -> str:
        """A cell's value as _fit_values chose to write it: "0.33", or ".33" in narrow cells."""
        text = f"{value:.2f}"
        return text.removeprefix("0") if self._short else text

    def _fit_values(self, n: int) -> None:
        """Each cell's value inside its cell with a fifth of the cell to spare (five words' values
        touched: "0.330.040.11"): without the leading zero when "0.00" does not fit, and in a
        smaller font when ".00" does not fit either."""
        renderer, self._short = self.figure.canvas.get_renderer(), False
        for ax in self.axes:
            if not ax.texts:
                return
            room, probe = 0.8 * ax.bbox.width / n, ax.texts[0]
            probe.set_text("0.00")
            if probe.get_window_extent(renderer).width > room:
                self._short = True
            probe.set_text(self._value(0.0))
            width = probe.get_window_extent(renderer).width
            for text in ax.texts:
                text.set_fontsize(probe.get_fontsize() * min(1.0, room / width))

    def _capture(self, vmax: float) -> None:
        """The colour scale 0..vmax on both panels and the colour bar; then the background: the
        figure without what a click changes, cached for blitting, and the strip of it that
        each changing part (left panel, right panel, heading) is drawn over."""
        for ax in self.axes:
            ax.images[0].set_clim(0.0, vmax)
        self.colorbar.set_label(SCALE.format(vmax), size="small")
        dynamic = [*self._artists(self.axes[0]), *self._artists(self.axes[1]), *self._band()]
        for artist in dynamic:  # transparent, not invisible: axis labels still make room for them
            artist.set_alpha(0.0)
        canvas = self.figure.canvas
        canvas.draw()
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        for artist in dynamic:
            artist.set_alpha(None)
        self._strips = self._strips_of(canvas.get_renderer())
        self._shown, self._vmax = [None, None, None], vmax  # nothing dynamic drawn yet

    def _strips_of(self, renderer) -> list[Bbox]:
        """Left panel, right panel, and the band above them (titles and heading): strips that
        split the figure between the panels (the right one's words are on its left) and end
        below the titles."""
        width, height = self.figure.bbox.width, self.figure.bbox.height
        left, right = self.axes
        words = [t.get_window_extent(renderer) for t in right.get_yticklabels()]
        split = (left.bbox.x1 + min([right.bbox.x0, *(box.x0 for box in words)])) / 2
        top = min(ax.title.get_window_extent(renderer).y0 for ax in self.axes) - 1
        return [Bbox([[0, 0], [split, top]]),
                Bbox([[split, 0], [self.colorbar.ax.bbox.x0 - 1, top]]),
                Bbox([[0, top], [width, height]])]

    def close(self) -> None:
        """Let go of the figure, its canvas and renderer, and the cached background."""
        self.figure, self.axes, self.colorbar, self.heading = None, (), None, None
        self._background = None

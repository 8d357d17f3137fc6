"""Figures for the series (matplotlib, imported only when this module is).

One colour map for attention weights everywhere: ``viridis`` (perceptually
uniform, colour-blind safe, readable in grey), on a fixed 0..1 scale, with the
tokens on both axes and the value written in each cell when n ≤ 8.

Every public function checks its arguments once, at the door (``_checks`` and the
``_check_*`` helpers here, in the same template: ``<argument> must be …; got ….``),
then draws with the private functions, which check nothing.
"""

import itertools
from collections.abc import Iterable, Mapping, Sized

import numpy as np

from ._extras import needs_extra

try:
    import matplotlib as mpl
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes
    from matplotlib.cbook import is_math_text
    from matplotlib.colors import Colormap, is_color_like
    from matplotlib.ticker import PercentFormatter
except ModuleNotFoundError as missing:  # `pip install .` brings numpy only
    raise needs_extra("plot", "posattn.plotting", missing) from None

from ._checks import (
    as_matrix,
    bounded_list,
    check_finite,
    check_format,
    check_number,
    check_perm,
    check_size,
    length,
    real_array,
    shown,
    shown_int,
)
from ._checks import shorten as _shorten
from .permutations import _permutation_matrix

ATTENTION_CMAP = "viridis"  # weights 0..1
SIGNED_CMAP = "RdBu_r"  # signed values (embeddings, outputs): colour-blind safe diverging map
MAX_ANNOTATED = 8
STYLE = "posattn.series"  # the series' matplotlib style: plt.style.use(STYLE)
WEIGHT_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)  # colour-bar ticks: few, so they read when projected
# Okabe–Ito: colour-blind safe
TOKEN_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00")

# ---- checks: the door for figures ----------------------------------------------------------


def _got(value) -> str:
    return f"{type(value).__name__} {shown(value, 60)}"


MAX_DRAWN = 1e100  # the largest value a figure draws: matplotlib's transforms overflow near 1e300
MAX_CELLS = 400  # the most cells a heatmap writes its values in (values=True): 20 × 20
MAX_TICKS = 1000  # the most rows or columns a heatmap labels, one tick each
MAX_LENGTH_LABELS = 8  # the most row lengths accuracy_bands labels; more, and every k-th
MAX_TEXT = 200  # the most characters of one title or label: matplotlib lays text out glyph by glyph
MAX_LABELS_TEXT = 10_000  # the most characters of one list of labels (1,000 ticks of 10)


def _check_ax(ax, name: str = "ax"):
    """A matplotlib Axes with x and y, or None (the function makes a new figure)."""
    if ax is None or (isinstance(ax, Axes) and ax.name == "rectilinear"):
        return ax
    if isinstance(ax, Axes):
        raise TypeError(f"{name} must be a plain 2-D matplotlib Axes; got a {ax.name!r} Axes. "
                        "Make one with plt.subplots() (no projection=).")
    hint = " (an array of Axes: pick one, e.g. axes[0])" if isinstance(ax, np.ndarray) else ""
    raise TypeError(f"{name} must be a matplotlib Axes, or None for a new figure; got "
                    f"{_got(ax)}{hint}. Pass one of the axes of plt.subplots().")


def _check_typeset(name: str, text: str) -> str:
    """A text of at most MAX_TEXT characters whose $…$ parts matplotlib can typeset (mathtext),
    checked now, not when drawn; matplotlib's own rule says which texts hold math."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"{name} must be at most {MAX_TEXT} characters, to be drawn in seconds "
                         f"and read; got {shown(text, 40)}. Shorten it.")
    if is_math_text(text):  # an even number of unescaped $: the text is typeset as math
        from matplotlib.mathtext import MathTextParser
        try:
            MathTextParser("path").parse(text)
        except ValueError as error:
            first = str(error).strip().splitlines()[-1]
            raise ValueError(f"{name} must be text matplotlib can typeset; got {shown(text, 60)}, "
                             f"whose math it cannot read ({first:.80}). Fix the $…$ part, or "
                             "write a literal dollar as \\$.") from None
    return text


def _check_text(name: str, value, optional: bool = True):
    """A string (or None, if ``optional``): a title, a label."""
    if isinstance(value, str):
        return _check_typeset(name, value)
    if optional and value is None:
        return value
    raise TypeError(f"{name} must be a string{' or None' if optional else ''}; got {_got(value)}.")


def _check_drawable(name: str, array: np.ndarray, fix: str = "Scale it down.") -> np.ndarray:
    """Values a figure can place: finite and at most MAX_DRAWN in size."""
    check_finite(name, array, fix)
    if array.size and float(np.abs(array).max()) > MAX_DRAWN:
        raise ValueError(f"{name} must be at most {MAX_DRAWN:g} in size to be drawn; got "
                         f"{float(np.abs(array).max()):.3g}. {fix}")
    return array


def _check_label(name: str, label) -> str:
    """A label as text: a string, or what str() makes of a number (never of 10**5000, which
    Python refuses to write), typeset-checked."""
    try:
        text = label if isinstance(label, str) else str(label)
    except ValueError:  # an int of more than 4,300 digits
        raise ValueError(f"{name} must be text or a number short enough to write; got "
                         f"{_got(label)}. Use a shorter label.") from None
    return _check_typeset(name, text)


def _check_total(name: str, labels: list[str]) -> list[str]:
    """Labels of at most MAX_LABELS_TEXT characters in all: each is laid out when drawn."""
    total = sum(map(len, labels))
    if total > MAX_LABELS_TEXT:
        raise ValueError(f"{name} must have at most {MAX_LABELS_TEXT:,} characters in all, to be "
                         f"drawn in seconds; got {total:,} in {len(labels):,} labels. Use shorter "
                         "labels, or fewer.")
    return labels


def _check_labels(name: str, labels, n: int, per: str = "row") -> list[str]:
    """One label per row (or column) as strings; None: 0, 1, …, n − 1."""
    if labels is None:
        return [str(i) for i in range(n)]
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise TypeError(f"{name} must be a list of labels, one per {per}, {n} in all; got "
                        f"{_got(labels)}. Split a sentence first: sentence.split().")
    count = length(labels) if isinstance(labels, Sized) else None
    items = list(itertools.islice(labels, n + 1))  # an endless iterator is read to n + 1 only
    if len(items) != n or count not in (None, n):
        count = shown_int(count) if count is not None else \
            f"more than {n}" if len(items) > n else f"{len(items)}"
        raise ValueError(f"{name} must have one label per {per}, {n} in all; got {count}: "
                         f"{_shorten(items)}.")
    return _check_total(name, [_check_label(f"{name}[{i}]", t) for i, t in enumerate(items)])


def _check_keys(name: str, mapping: Mapping) -> Mapping:
    """The labels of a dict's entries (its keys), drawn as tick or legend labels."""
    _check_total(f"the keys of {name}", [_check_label(f"{name} key {shown(key, 40)}", key)
                                         for key in mapping])
    return mapping


def _check_cmap(cmap):
    """A Colormap, or the name of one that matplotlib knows."""
    if isinstance(cmap, Colormap) or (isinstance(cmap, str) and cmap in mpl.colormaps):
        return cmap
    kind = ValueError if isinstance(cmap, str) else TypeError
    raise kind(f"cmap must be the name of a matplotlib colour map, such as 'viridis' or 'Greys'; "
               f"got {shown(cmap, 60)}. matplotlib.colormaps lists the names.")


def _check_fmt(fmt) -> str:
    """A format string that writes one float, such as "{:.2f}" (the values are floats: "{:.0f}"
    writes whole ones)."""
    return check_format("fmt", fmt, "{:.2f}")


def _check_switch(name: str, value):
    """True, False or None (None: the function decides)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return value
    raise TypeError(f"{name} must be True, False or None (None: write them when n ≤ "
                    f"{MAX_ANNOTATED}); got {_got(value)}.")


def _check_scale(vmin, vmax, bound: float) -> tuple[float, float]:
    """A colour scale vmin < vmax; a missing end takes its side of ±bound."""
    vmin = -bound if vmin is None else check_number("vmin", vmin)
    vmax = bound if vmax is None else check_number("vmax", vmax)
    if not vmin < vmax:
        raise ValueError(f"vmax must be greater than vmin ({vmin:g}); got {vmax:g}. "
                         "Give a colour scale with vmin < vmax.")
    return vmin, vmax


def _check_dict(name: str, value, what: str, example: str) -> Mapping:
    """A non-empty dict (any Mapping)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict {what}, such as {example}; got {_got(value)}.")
    if not value:
        raise ValueError(f"{name} must be a non-empty dict {what}, such as {example}; got an "
                         "empty one.")
    return value


def _check_accuracies(name: str, value) -> np.ndarray:
    """One accuracy or a list of them (one per seed), each a fraction from 0 to 1."""
    array = real_array(name, value)
    if array.ndim > 1 or array.size == 0:
        raise ValueError(f"{name} must be one number or a non-empty list of them, one per seed; "
                         f"got shape {array.shape}.")
    check_finite(name, array, "An accuracy is a fraction from 0 to 1.")
    outside = array[(array < 0) | (array > 1)]
    if outside.size:
        raise ValueError(f"{name} must hold accuracies from 0 to 1; got {float(outside[0])!r}. "
                         "Give fractions: 0.95 for 95%.")
    return np.atleast_1d(array)


def _check_bars(results, bars) -> list[list[np.ndarray]]:
    """Per bar, per scheme: the accuracies to draw (each bar's key must be in every result)."""
    _check_keys("bars", _check_dict("bars", bars, "from a legend label to a result key",
                                    "{'test': 'test_accuracy'}"))
    if not 1 <= len(bars) <= 3:
        raise ValueError(f"bars must map 1 to 3 legend labels to result keys; got {len(bars)}. "
                         "Draw the others in a second chart.")
    _check_keys("results", _check_dict("results", results, "from a scheme's label to its "
                                       "result dict", "{'rope': {'test_accuracy': [1.0, 0.97]}}"))
    for label, result in results.items():
        if not isinstance(result, Mapping):
            raise TypeError(f"results[{label!r}] must be a dict of results (key -> accuracy); "
                            f"got {_got(result)}.")
        missing = [key for key in bars.values() if key not in result]
        if missing:
            raise ValueError(f"results[{label!r}] must have the key {missing[0]!r}, named in "
                             f"bars; got the keys {_shorten(result)}.")
    return [[_check_accuracies(f"results[{label!r}][{key!r}]", result[key])
             for label, result in results.items()] for key in bars.values()]


def _check_reference(reference) -> tuple[float, str]:
    """(value, label): an accuracy from 0 to 1 and the legend's words for the line."""
    if isinstance(reference, (str, bytes)) or not isinstance(reference, (tuple, list)) \
            or len(reference) != 2:
        raise TypeError(f"reference must be a pair (value, label), such as (0.5, '50%: chance'); "
                        f"got {_got(reference)}.")
    value = check_number("reference[0]", reference[0])
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"reference[0] must be an accuracy from 0 to 1; got {value!r}. Give a "
                         "fraction: 0.5 for 50%.")
    return value, _check_text("reference[1]", reference[1], optional=False)


def _check_curves(curves, steps, dashed) -> tuple[dict, np.ndarray | None, set]:
    """Loss curves (seeds, points) per label, > 0 for the log scale; steps (points,); dashed."""
    _check_keys("curves", _check_dict("curves", curves, "from a label to its loss curves "
                                      "(seeds, points)", "{'rope': [[2.5, 0.1], [2.4, 0.2]]}"))
    runs = {}
    for label, values in curves.items():
        name = f"curves[{label!r}]"
        array = np.atleast_2d(real_array(name, values))
        if array.ndim > 2 or array.size == 0:
            raise ValueError(f"{name} must be a non-empty list of loss curves, (seeds, points); "
                             f"got shape {np.shape(values)}.")
        _check_drawable(name, array, "Plot the losses of a run that did not diverge.")
        if (array <= 0).any():
            raise ValueError(f"{name} must hold losses above 0 for the log scale; got "
                             f"{float(array[array <= 0][0])!r}. A log scale cannot show 0 or "
                             "below.")
        runs[label] = array
    if steps is not None:
        steps = _check_drawable("steps", real_array("steps", steps), "Give the step numbers.")
        for label, array in runs.items():
            if steps.shape != (array.shape[1],):
                raise ValueError(f"steps must have one entry per point of curves[{label!r}] "
                                 f"({array.shape[1]}); got shape {steps.shape}.")
    return runs, steps, _check_dashed(dashed, runs)


def _check_dashed(dashed, runs) -> set:
    """Labels of runs to draw dashed."""
    if isinstance(dashed, (str, bytes)) or not isinstance(dashed, Iterable):
        raise TypeError(f"dashed must be a list of labels of curves, such as ('none',); got "
                        f"{_got(dashed)}.")
    dashed = bounded_list("dashed", dashed, MAX_TICKS, "the curves' labels")
    unknown = [label for label in dashed if label not in list(runs)]
    if unknown:
        raise ValueError(f"dashed must list labels of curves ({_shorten(runs)}); got "
                         f"{shown(unknown[0], 60)}.")
    return set(dashed)


def _check_bands(curves, lengths, dashed) -> tuple[dict, np.ndarray, set]:
    """Accuracy curves (seeds, len(lengths)) per label, each in [0, 1]; lengths; dashed."""
    _check_keys("curves", _check_dict("curves", curves, "from a label to its accuracies "
                                      "(seeds, lengths)", "{'rope': [[1.0, 0.6], [0.9, 0.5]]}"))
    lengths = _check_drawable("lengths", real_array("lengths", lengths), "Give the row lengths.")
    if lengths.ndim != 1 or lengths.size == 0:
        raise ValueError(f"lengths must be a non-empty list of row lengths; got shape "
                         f"{lengths.shape}.")
    runs = {}
    for label, values in curves.items():
        name = f"curves[{label!r}]"
        array = np.atleast_2d(real_array(name, values))
        if array.ndim > 2 or array.shape[1] != lengths.size:
            raise ValueError(f"{name} must hold one accuracy per length ({lengths.size}) for "
                             f"each seed, (seeds, {lengths.size}); got shape {np.shape(values)}.")
        runs[label] = np.stack([_check_accuracies(name, row) for row in array])
    return runs, lengths, _check_dashed(dashed, runs)


def _check_heatmap_ax(ax):
    """The Axes of a heatmap: it must hold an image already."""
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be the matplotlib Axes of a heatmap; got {_got(ax)}. Draw the "
                        "heatmap on ax first (plotting.heatmap(M, ax)), then call cell_grid(ax).")
    if not ax.images:
        raise ValueError("ax must hold a heatmap (an image); got an Axes with no image. Draw one "
                         "first (plotting.heatmap(M, ax)), then call cell_grid(ax).")
    return ax


def _is_colour(colour) -> bool:
    """A colour name or code, or a short sequence of numbers (matplotlib 3.7 asks an iterator
    for its length and raises; it is no colour)."""
    if not isinstance(colour, (str, tuple, list, np.ndarray)):
        return False
    try:
        return bool(is_color_like(colour))
    except (TypeError, ValueError):
        return False


def _check_colour(name: str, colour):
    if not _is_colour(colour):
        raise ValueError(f"{name} must be a matplotlib colour, such as '0.6' (a grey) or 'black'; "
                         f"got {shown(colour, 60)}.")
    return colour


# ---- drawing: no checks -------------------------------------------------------------------


def _axes(ax, figsize):
    return ax if ax is not None else plt.subplots(figsize=figsize, layout="constrained")[1]


def _text_colours(M, vmin, vmax, cmap) -> np.ndarray:
    """Black on light cells, white on dark ones (by the luma of each cell's colour)."""
    rgba = plt.get_cmap(cmap)((M - vmin) / (vmax - vmin or 1.0))  # (n, m, 4)
    return np.where(rgba[..., :3] @ [0.299, 0.587, 0.114] > 0.5, "black", "white")  # luma > 0.5


def _heatmap(M, ax, rows, cols, title, cmap, vmin, vmax, values, fmt):
    """M as an image, rows and columns labelled (columns on top), values written if asked."""
    ax = _axes(ax, (4, 3.5))
    image = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_yticks(range(M.shape[0]), rows)
    ax.set_xticks(range(M.shape[1]), cols)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_title(title or "")
    if values if values is not None else max(M.shape) <= MAX_ANNOTATED:
        colours = _text_colours(M, vmin, vmax, cmap)
        for (i, j), value in np.ndenumerate(M):
            # the style's body size, so cell values read as well as the labels do; in_layout=False:
            # values sit inside the axes, so layout engines need not measure them
            ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize="medium",
                    color=colours[i, j], in_layout=False)
    return image


def _attention_heatmap(A, rows, cols, ax, title, values):
    """A on the fixed 0..1 scale, queries down the side and keys along the top."""
    image = _heatmap(A, ax, rows, cols, title, ATTENTION_CMAP, 0.0, 1.0, values, "{:.2f}")
    image.axes.set(ylabel="query i (attends)", xlabel="key j (attended to)")
    image.axes.xaxis.set_label_position("top")
    return image


def _weighted_sum(V, alpha, order, labels, ax, title):
    """The terms α_j v_j as arrows tip to tail in ``order``, ending at y = Σ_j α_j v_j (a star)."""
    tip = np.zeros(2)
    for j in order:  # term α_j v_j starts where the previous term ended
        colour = TOKEN_COLOURS[j % len(TOKEN_COLOURS)]
        arrow = {"arrowstyle": "-|>", "color": colour, "lw": 2.5, "shrinkA": 0, "shrinkB": 0}
        ax.annotate("", tip + alpha[j] * V[j], tip, arrowprops=arrow)
        ax.scatter(*V[j], s=70, color=colour, edgecolor="black", zorder=3)
        # centred above its dot: a label beside a dot at the edge ran into the axes' frame
        ax.annotate(f"{labels[j]}  α={alpha[j]:.2f}", V[j], xytext=(0, 9),
                    textcoords="offset points", ha="center")
        tip = tip + alpha[j] * V[j]
    ax.plot(*tip, marker="*", markersize=18, color="black", linestyle="none",
            label="y = Σ α_j v_j")
    ax.annotate("y", tip, xytext=(9, -16), textcoords="offset points", fontweight="bold")
    ax.plot(0.0, 0.0, marker="o", markersize=4, color="0.4")
    # equal units on both axes, the limits widened to fill the axes: a wide figure, which a
    # slide can show large (a square one is held to the slide's height)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set(title=title or "", xlabel="entry 1 of a value", ylabel="entry 2 of a value")
    ax.margins(0.25)  # room for the labels above the dots
    ax.grid(alpha=0.3)
    return ax


def _bands(ax, runs, x, dashed, marker=None) -> None:
    """Per label: the mean over seeds (a line) and the band from the lowest to the highest seed
    at each point (shaded); runs maps a label to (seeds, points). A curve equal to one drawn
    before it would hide under it: it is drawn thinner, with crosses, its legend naming the twin."""
    drawn = {}
    for label, curve in runs.items():  # curve: (seeds, points)
        at = np.arange(curve.shape[1]) if x is None else x
        twin = next((k for k, c in drawn.items() if np.array_equal(c, curve)), None)
        style = {} if twin is None else {"marker": "x", "markersize": 9, "linewidth": 1,
                                         "zorder": 3, "label": f"{label} (= {twin})"}
        [line] = ax.plot(at, curve.mean(axis=0), **{"label": label, "marker": marker,
                                                    "linestyle": "--" if label in dashed else "-",
                                                    **style})
        drawn.setdefault(label, curve)
        ax.fill_between(at, curve.min(axis=0), curve.max(axis=0), color=line.get_color(),
                        alpha=0.2, linewidth=0)


# ---- public functions: check once, then draw ----------------------------------------------


def text_colours(M, vmin: float = 0.0, vmax: float = 1.0, cmap: str = ATTENTION_CMAP) -> np.ndarray:
    """Black on light cells, white on dark ones (by the luma of each cell's colour)."""
    M = check_finite("M", real_array("M", M), "Give finite values.")
    if M.ndim == 0:
        raise ValueError(f"M must be an array of cell values, at least 1-D, such as [[0.2, 0.9]]; "
                         f"got the single number {M.item()!r}. Wrap it: [{M.item()!r}].")
    vmin, vmax = check_number("vmin", vmin), check_number("vmax", vmax)
    return _text_colours(M, vmin, vmax, _check_cmap(cmap))


def heatmap(M, ax=None, *, row_labels=None, col_labels=None, title=None, cmap=SIGNED_CMAP,
            vmin=None, vmax=None, values=None, fmt="{:.2f}"):
    """Draw a matrix as an image with labelled rows and columns; returns the AxesImage.

    Column labels sit on top, like a matrix's. Without ``vmin`` and ``vmax`` the scale is
    symmetric, ±max|M|; a missing one of the two takes its side of that. M must hold numbers:
    a boolean mask needs ``mask.astype(float)``.
    """
    M = _check_cells("M", as_matrix("M", M), values)
    rows = _check_labels("row_labels", row_labels, M.shape[0])
    cols = _check_labels("col_labels", col_labels, M.shape[1], "column")
    vmin, vmax = _check_scale(vmin, vmax, float(np.abs(M).max()) or 1.0)
    return _heatmap(M, _check_ax(ax), rows, cols, _check_text("title", title), _check_cmap(cmap),
                    vmin, vmax, _check_switch("values", values), _check_fmt(fmt))


def _check_cells(name: str, M: np.ndarray, values) -> np.ndarray:
    """A matrix a heatmap can label (at most MAX_TICKS rows and columns) and, with values=True,
    write in (at most MAX_CELLS cells): drawing more takes minutes and reads as nothing."""
    if max(M.shape) > MAX_TICKS:
        raise ValueError(f"{name} must have at most {MAX_TICKS:,} rows and columns for a labelled "
                         f"heatmap; got shape {M.shape}. Show a slice, e.g. {name}[:50, :50], or "
                         "use plt.imshow.")
    if values is True and M.size > MAX_CELLS:
        raise ValueError(f"values must be False or None for a matrix of more than {MAX_CELLS} "
                         f"cells (the numbers would not read); got values=True for shape "
                         f"{M.shape}.")
    return _check_drawable(name, M)


def attention_heatmap(A, tokens=None, ax=None, *, title=None, values=None):
    """Attention weights A on a 0..1 scale, rows queries i and columns keys j; returns the image."""
    A = _check_cells("A", as_matrix("A", A), values)
    rows = _check_labels("tokens", tokens, A.shape[0], "query (row of A)")
    cols = _check_labels("tokens", tokens, A.shape[1], "key (column of A)")
    return _attention_heatmap(A, rows, cols, _check_ax(ax), _check_text("title", title),
                              _check_switch("values", values))


def attention_pair(A, tokens, A2, tokens2, *, titles=("A (original order)", "A' (shuffled)")):
    """Two attention heatmaps side by side with one shared 0..1 colour bar; returns the Figure."""
    panels = []
    for a, words, name, words_name in ((A, tokens, "A", "tokens"), (A2, tokens2, "A2", "tokens2")):
        a = as_matrix(name, a)
        panels.append((a, _check_labels(words_name, words, a.shape[0], f"query (row of {name})"),
                       _check_labels(words_name, words, a.shape[1], f"key (column of {name})")))
    if isinstance(titles, (str, bytes)) or not isinstance(titles, (tuple, list)) \
            or len(titles) != 2:
        raise TypeError(f"titles must be a pair of strings, one per panel; got {_got(titles)}.")
    titles = [_check_text(f"titles[{k}]", t, optional=False) for k, t in enumerate(titles)]
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
    images = [_attention_heatmap(*panel, ax, title, None)
              for panel, ax, title in zip(panels, axes, titles, strict=True)]
    fig.colorbar(images[1], ax=axes, shrink=0.8, label="attention weight α_ij", ticks=WEIGHT_TICKS)
    return fig


def permutation_heatmap(perm, tokens=None, ax=None):
    """The permutation matrix P (P[i, perm[i]] = 1) as black-and-white squares."""
    perm = check_perm(perm)
    check_size("perm", f"{perm.size:,} entries", perm.size ** 2, "P (n, n)",
               "Draw a shorter permutation.")
    labels = _check_labels("tokens", tokens, len(perm), "position")
    rows = [labels[p] for p in perm]
    return _heatmap(_permutation_matrix(perm), _check_ax(ax), rows, labels,
                    "P: row i takes token perm[i]", "Greys", 0.0, 1.0, None, "{:.0f}")


def weighted_sum(V, weights, tokens=None, ax=None, *, order=None, title=None):
    """y = Σ_j α_j v_j in the plane: values v_j (V: (n, 2)) as dots, terms α_j v_j as arrows
    added in ``order`` (default 0, 1, …; any order ends at the same y), y a star; returns the Axes.
    """
    V = as_matrix("V", V, ("n", 2), " to be drawn in the plane (pick two columns: V[:, :2])")
    n = V.shape[0]
    alpha = as_matrix("weights", weights, (n,), " (one entry per row of V)")
    order = check_perm(range(n) if order is None else order, n, "order")
    with np.errstate(all="ignore"):  # the partial sums tip to tail, each a point of the figure
        tips = np.cumsum(alpha[order, None] * V[order], axis=0)
    _check_drawable("V", V, "Scale V down.")
    _check_drawable("weights × V", tips, "Scale V or the weights down.")
    labels = _check_labels("tokens", tokens, n, "row of V")
    ax = _axes(_check_ax(ax), (8, 5))
    return _weighted_sum(V, alpha, order, labels, ax, _check_text("title", title))


def cell_grid(ax, colour: str = "0.6") -> None:
    """Thin lines between a heatmap's cells: neighbouring cells of one colour can be told apart."""
    rows, cols = _check_heatmap_ax(ax).images[-1].get_array().shape[:2]
    _check_colour("colour", colour)
    ax.set_xticks(np.arange(cols + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(rows + 1) - 0.5, minor=True)
    ax.grid(which="minor", color=colour, linewidth=0.8)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)


def accuracy_bars(results, bars, *, reference, ylabel="accuracy", title=None, ax=None):
    """Grouped bars of accuracies per scheme, on a 0-100 % axis, with a dotted reference line.

    ``results`` maps a scheme's label to its result dict; ``bars`` maps a bar's legend label to the
    key it shows (1 to 3 bars per scheme); ``reference`` is ``(value, label)``, e.g. the 50 % bound.
    A key may hold one number or a list of them, one per seed: then the bar is their mean and
    each seed is a dot on the bar, spread across its width so that equal values stay visible.
    Accuracies are fractions from 0 to 1.
    """
    per_bar = _check_bars(results, bars)
    line, line_label = _check_reference(reference)
    ylabel, title = _check_text("ylabel", ylabel, optional=False), _check_text("title", title)
    ax = _axes(_check_ax(ax), (8, 3.4))
    x, width = np.arange(len(results)), 0.8 / len(bars)
    dots = {"s": 9, "color": "black", "zorder": 3, "linewidths": 0}
    for k, (label, values) in enumerate(zip(bars, per_bar, strict=True)):
        offset = (k - (len(bars) - 1) / 2) * width
        ax.bar(x + offset, [v.mean() for v in values], width, label=label)
        if any(len(v) > 1 for v in values):  # one dot per seed, side by side within the bar
            xs = [x_i + offset + np.linspace(-0.3, 0.3, len(v)) * width
                  for x_i, v in zip(x, values, strict=True)]
            ax.scatter(np.concatenate(xs), np.concatenate(values), **dots,
                       label="one seed" if k == 0 else None)
    ax.axhline(line, color="black", linestyle=":", label=line_label)
    # at 45° and anchored at their ends, the schemes' names stay apart at the series' 18 pt
    ax.set_xticks(x, [str(label) for label in results], rotation=45, ha="right",
                  rotation_mode="anchor")
    ax.set(xlabel="scheme", ylabel=ylabel, ylim=(0, 1.05), title=title)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def loss_bands(curves, steps=None, *, dashed=(), title=None, ax=None):
    """Training losses over seeds: per label, the mean over seeds as a line and, shaded around
    it, a band from the lowest to the highest seed at each step; returns the Axes.

    ``curves`` maps a label to its runs, one loss curve per seed, (seeds, points); ``steps``
    (points,) is the training step of each point, by default 0, 1, …; labels in ``dashed`` get
    dashed lines. Log scale: a loss near 0 and one near 1 both stay readable.
    """
    runs, steps, dashed = _check_curves(curves, steps, dashed)
    title = _check_text("title", title)
    ax = _axes(_check_ax(ax), (8, 3.6))
    _bands(ax, runs, steps, dashed)
    ax.set(xlabel="training step", ylabel="training loss (log scale)", yscale="log",
           title=title or "")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def accuracy_bands(curves, lengths, *, reference, dashed=(), title=None, ax=None,
                   xlabel="words in a test row"):
    """Accuracy against row length over seeds: per label, the mean over seeds as a line and a
    band from the lowest to the highest seed; a dotted reference line; returns the Axes.

    ``curves`` maps a label to one row of accuracies per seed, (seeds, len(lengths)), each a
    fraction from 0 to 1; ``lengths`` are the row lengths tested (or another setting the
    accuracies are measured against, named by ``xlabel``, such as training steps);
    ``reference`` is ``(value, label)``, e.g. what no positions reach; labels in ``dashed`` get
    dashed lines.
    """
    runs, lengths, dashed = _check_bands(curves, lengths, dashed)
    line, line_label = _check_reference(reference)
    title = _check_text("title", title)
    xlabel = _check_text("xlabel", xlabel, optional=False)
    ax = _axes(_check_ax(ax), (8, 3.6))
    _bands(ax, runs, lengths, dashed, marker="o")
    ax.axhline(line, color="black", linestyle=":", label=line_label)
    ax.set(xlabel=xlabel, ylabel="accuracy", ylim=(0, 1.05), title=title or "")
    every = -(-len(lengths) // MAX_LENGTH_LABELS)  # a label on every length, or every 2nd, …
    ax.set_xticks(lengths[::every])
    ax.set_xticks(lengths, minor=True)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax

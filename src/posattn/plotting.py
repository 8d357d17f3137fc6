"""Figures for the series (matplotlib, imported only when this module is).

One colour map for attention weights everywhere: ``viridis`` (perceptually
uniform, colour-blind safe, readable in grey), on a fixed 0..1 scale, with the
tokens on both axes and the value written in each cell when n ≤ 8.
"""

from __future__ import annotations

import sys

import matplotlib.pyplot as plt
import numpy as np

from ._checks import as_matrix, check_perm
from .permutations import permutation_matrix

ATTENTION_CMAP = "viridis"  # weights 0..1
SIGNED_CMAP = "RdBu_r"  # signed values (embeddings, outputs): colour-blind safe diverging map
MAX_ANNOTATED = 8
WEIGHT_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)  # colour-bar ticks for weights: few, so they read when projected


def _labels(name: str, labels, n: int) -> list[str]:
    labels = [str(t) for t in labels] if labels is not None else [str(i) for i in range(n)]
    if len(labels) != n:
        raise ValueError(f"{name} must have one label per row ({n}); got {len(labels)}: {labels}.")
    return labels


def text_colours(M: np.ndarray, vmin: float = 0.0, vmax: float = 1.0, cmap: str = ATTENTION_CMAP) -> np.ndarray:
    """Black on light cells, white on dark ones (by the luma of each cell's colour), for a whole matrix."""
    r, g, b = np.moveaxis(plt.get_cmap(cmap)((np.asarray(M) - vmin) / (vmax - vmin or 1.0))[..., :3], -1, 0)
    return np.where(0.299 * r + 0.587 * g + 0.114 * b > 0.5, "black", "white")


def annotate(ax, M: np.ndarray, vmin: float, vmax: float, cmap: str, fmt: str = "{:.2f}") -> list:
    """Write each value in its cell, in black or white for contrast; returns the Text artists."""
    colours = text_colours(M, vmin, vmax, cmap)
    return [
        # in_layout=False: values sit inside the axes, so layout engines need not measure them (a faster draw)
        ax.text(j, i, fmt.format(M[i, j]), ha="center", va="center", fontsize=11, color=colours[i, j], in_layout=False)
        for i in range(M.shape[0]) for j in range(M.shape[1])
    ]


def title_above(ax, title: str) -> None:
    """Set ``title`` clear of whatever sits on top of the axes (tick labels, an x label), measured once.

    Matplotlib puts an automatic title in the same place, but re-measures every tick label to do so at each
    layout pass and each draw: about a quarter of the time a heatmap takes to draw. Here the gap is measured
    now and kept in points, so it holds whatever size the layout gives the axes. Call it once the top of the
    axes is final (labels, rotation); a later plain ``ax.set_title`` is not lifted.
    """
    canvas = ax.figure.canvas
    above = ax.xaxis.get_tightbbox(canvas.get_renderer()) if hasattr(canvas, "get_renderer") else None
    if above is None:  # a canvas that cannot measure, or nothing on top: matplotlib's own placement
        ax.set_title(title)
        return
    lift = max(0.0, above.ymax - ax.bbox.ymax) * 72 / ax.figure.dpi  # pixels above the axes, in points
    ax.set_title(title, y=1.0, pad=plt.rcParams["axes.titlepad"] + lift)


def heatmap(M, ax=None, *, row_labels=None, col_labels=None, title=None, cmap=SIGNED_CMAP,
            vmin=None, vmax=None, values=None, fmt="{:.2f}"):
    """Draw a matrix as an image with labelled rows and columns; returns the AxesImage.

    Column labels sit on top, like a matrix's; ``title`` goes above them (placed once by ``title_above``:
    to turn or restyle the top labels afterwards, call ``title_above`` again).
    """
    M = as_matrix("M", M)
    ax = ax if ax is not None else plt.subplots(figsize=(4, 3.5), layout="constrained")[1]
    if vmin is None or vmax is None:
        bound = float(np.abs(M).max()) or 1.0
        vmin, vmax = (-bound, bound) if vmin is None and vmax is None else (vmin or 0.0, vmax or bound)
    image = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_yticks(range(M.shape[0]), _labels("row_labels", row_labels, M.shape[0]))
    ax.set_xticks(range(M.shape[1]), _labels("col_labels", col_labels, M.shape[1]))
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    if title:
        title_above(ax, title)
    if values if values is not None else max(M.shape) <= MAX_ANNOTATED:
        annotate(ax, M, vmin, vmax, cmap, fmt)
    return image


def attention_heatmap(A, tokens=None, ax=None, *, title=None, values=None):
    """Attention weights A (rows: the attending token i; columns: the attended token j), 0..1.

    Returns the AxesImage; rows are queries, columns are keys.
    """
    A = as_matrix("A", A)
    image = heatmap(A, ax, row_labels=tokens, col_labels=tokens, cmap=ATTENTION_CMAP, vmin=0.0, vmax=1.0,
                    values=values)
    image.axes.set_ylabel("query i (attends)")
    image.axes.set_xlabel("key j (attended to)")
    image.axes.xaxis.set_label_position("top")
    if title:
        title_above(image.axes, title)  # above the x label too
    return image


def attention_pair(A, tokens, A2, tokens2, *, titles=("A (original order)", "A' (shuffled)")):
    """Two attention heatmaps side by side with one shared 0..1 colour bar; returns the Figure."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
    attention_heatmap(A, tokens, axes[0], title=titles[0])
    image = attention_heatmap(A2, tokens2, axes[1], title=titles[1])
    fig.colorbar(image, ax=axes, shrink=0.8, label="attention weight α_ij", ticks=WEIGHT_TICKS)
    return fig


def permutation_heatmap(perm, tokens=None, ax=None):
    """The permutation matrix P (P[i, perm[i]] = 1) as black-and-white squares."""
    P = permutation_matrix(perm)
    labels = list(tokens) if tokens is not None else [str(i) for i in range(len(P))]
    rows = [labels[p] for p in np.asarray(perm)]
    return heatmap(P, ax, row_labels=rows, col_labels=labels, title="P: row i takes token perm[i]", cmap="Greys",
                   vmin=0.0, vmax=1.0, fmt="{:.0f}")


def series_style() -> None:
    """Figure defaults for the series: fonts and sizes that read when projected.

    Called explicitly by each notebook's setup cell (never at import). Every figure is laid out by
    constrained layout, so in a notebook it is shown as laid out, not re-cropped: the inline backend's
    ``bbox_inches="tight"`` would measure every text of the figure a second time before each picture.
    """
    plt.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 100, "font.size": 12, "axes.titlesize": 13,
        "axes.labelsize": 12, "xtick.labelsize": 12, "ytick.labelsize": 12, "figure.figsize": (6, 4),
        "figure.constrained_layout.use": True,
    })
    if "ipykernel" in sys.modules:  # in a notebook: the inline backend's own setting (it updates its formatter)
        from IPython import get_ipython
        from matplotlib_inline.config import InlineBackend

        config = InlineBackend.instance(parent=get_ipython())
        config.print_figure_kwargs = {**config.print_figure_kwargs, "bbox_inches": None}


TOKEN_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00")  # Okabe–Ito: colour-blind safe


def weighted_sum(V, weights, tokens=None, ax=None, *, order=None, title=None):
    """y = Σ_j α_j v_j in the plane: each value v_j a dot, the terms α_j v_j arrows laid tip to tail, y a star.

    ``order`` is the order in which the terms are added (default 0, 1, …); any order ends at the same y.
    V has shape (n, 2); returns the Axes.
    """
    V, alpha = as_matrix("V", V), as_matrix("weights", weights, ndim=1)
    n = V.shape[0]
    if V.shape[1] != 2:
        raise ValueError(f"V must have 2 columns to be drawn in the plane; got shape {V.shape}. Pick two, e.g. V[:, :2].")
    if alpha.size != n:
        raise ValueError(f"weights must have one entry per row of V ({n}); got {alpha.size}.")
    order, labels = check_perm(range(n) if order is None else order, n, "order"), _labels("tokens", tokens, n)
    ax = ax if ax is not None else plt.subplots(figsize=(5, 5), layout="constrained")[1]
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
    ax.plot(*tip, marker="*", markersize=18, color="black", linestyle="none", label="y = Σ α_j v_j")
    ax.annotate("y", tip, xytext=(9, -16), textcoords="offset points", fontweight="bold")
    ax.plot(0.0, 0.0, marker="o", markersize=4, color="0.4")
    ax.set(aspect="equal", title=title or "", xlabel="entry 1 of a value",
           ylabel="entry 2 of a value")
    ax.margins(0.25)  # room for the labels above the dots
    ax.grid(alpha=0.3)
    return ax


def error_scatter(sizes, errors, *, threshold=1e-12, floor=1e-18, ax=None):
    """One marker per trial: its error (log scale) against the sequence length n; returns the Axes.

    ``errors`` maps a label to one error per entry of ``sizes``; exact zeros are drawn at ``floor``
    (a log axis has no 0), and a dashed line marks ``threshold``.
    """
    sizes = as_matrix("sizes", sizes, ndim=1)
    ax = ax if ax is not None else plt.subplots(figsize=(7, 4), layout="constrained")[1]
    if not 1 <= len(errors) <= 3:
        raise ValueError(f"errors must map 1 to 3 labels to arrays of errors; got {len(errors)} labels.")
    for (label, values), colour, marker in zip(errors.items(), ("#0072B2", "#D55E00", "#009E73"), "o^s", strict=False):
        values = np.abs(np.asarray(values, dtype=np.float64))
        if values.shape != sizes.shape:
            raise ValueError(f"errors[{label!r}] must have one value per size ({sizes.size}); got shape {values.shape}.")
        ax.scatter(sizes, np.maximum(values, floor), s=20, color=colour, marker=marker, alpha=0.7, label=label)
    ax.axhline(threshold, color="black", linestyle="--", linewidth=1, label=f"threshold {threshold:g}")
    ax.axhline(floor, color="0.5", linestyle=":", linewidth=1, label="exactly 0 (drawn here)")
    ax.set(yscale="log", ylim=(floor / 10, None), xlabel="sequence length n", ylabel="largest difference")
    ax.legend(loc="center right", fontsize=10)
    return ax


def cell_grid(ax, colour: str = "0.6") -> None:
    """Thin lines between a heatmap's cells, so neighbouring cells of one colour can be told apart."""
    rows, cols = ax.images[-1].get_array().shape
    ax.set_xticks(np.arange(cols + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(rows + 1) - 0.5, minor=True)
    ax.grid(which="minor", color=colour, linewidth=0.8)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)

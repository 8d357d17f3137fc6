"""Figures for the series (matplotlib, imported only when this module is).

One colour map for attention weights everywhere: ``viridis`` (perceptually
uniform, colour-blind safe, readable in grey), on a fixed 0..1 scale, with the
tokens on both axes and the value written in each cell when n ≤ 8.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import PercentFormatter

from ._checks import as_matrix, check_perm
from .permutations import permutation_matrix

ATTENTION_CMAP = "viridis"  # weights 0..1
SIGNED_CMAP = "RdBu_r"  # signed values (embeddings, outputs): colour-blind safe diverging map
MAX_ANNOTATED = 8
STYLE = "posattn.series"  # the series' matplotlib style: plt.style.use(STYLE)
WEIGHT_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)  # colour-bar ticks: few, so they read when projected


def _labels(name: str, labels, n: int) -> list[str]:
    labels = [str(t) for t in labels] if labels is not None else [str(i) for i in range(n)]
    if len(labels) != n:
        raise ValueError(f"{name} must have one label per row ({n}); got {len(labels)}: {labels}.")
    return labels


def text_colours(M, vmin: float = 0.0, vmax: float = 1.0, cmap: str = ATTENTION_CMAP) -> np.ndarray:
    """Black on light cells, white on dark ones (by the luma of each cell's colour)."""
    rgba = plt.get_cmap(cmap)((np.asarray(M) - vmin) / (vmax - vmin or 1.0))  # (n, m, 4)
    return np.where(rgba[..., :3] @ [0.299, 0.587, 0.114] > 0.5, "black", "white")  # luma > 0.5


def heatmap(M, ax=None, *, row_labels=None, col_labels=None, title=None, cmap=SIGNED_CMAP,
            vmin=None, vmax=None, values=None, fmt="{:.2f}"):
    """Draw a matrix as an image with labelled rows and columns; returns the AxesImage.

    Column labels sit on top, like a matrix's. Without ``vmin`` and ``vmax`` the scale is
    symmetric, ±max|M|; a missing one of the two takes its side of that.
    """
    M = as_matrix("M", M)
    rows = _labels("row_labels", row_labels, M.shape[0])
    cols = _labels("col_labels", col_labels, M.shape[1])
    bound = float(np.abs(M).max()) or 1.0
    vmin, vmax = (-bound if vmin is None else vmin), (bound if vmax is None else vmax)
    if not vmin < vmax:
        raise ValueError(f"vmax must be greater than vmin ({vmin:g}); got {vmax:g}. "
                         "Give a colour scale with vmin < vmax.")
    ax = ax if ax is not None else plt.subplots(figsize=(4, 3.5), layout="constrained")[1]
    image = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_yticks(range(M.shape[0]), rows)
    ax.set_xticks(range(M.shape[1]), cols)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_title(title or "")
    if values if values is not None else max(M.shape) <= MAX_ANNOTATED:
        colours = text_colours(M, vmin, vmax, cmap)
        for (i, j), value in np.ndenumerate(M):
            # in_layout=False: values sit inside the axes, so layout engines need not measure them
            ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize=11,
                    color=colours[i, j], in_layout=False)
    return image


def attention_heatmap(A, tokens=None, ax=None, *, title=None, values=None):
    """Attention weights A on a 0..1 scale, rows queries i and columns keys j; returns the image."""
    A = as_matrix("A", A)
    image = heatmap(A, ax, row_labels=tokens, col_labels=tokens, title=title, cmap=ATTENTION_CMAP,
                    vmin=0.0, vmax=1.0, values=values)
    image.axes.set(ylabel="query i (attends)", xlabel="key j (attended to)")
    image.axes.xaxis.set_label_position("top")
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
    labels = _labels("tokens", tokens, len(P))
    rows = [labels[p] for p in np.asarray(perm)]
    return heatmap(P, ax, row_labels=rows, col_labels=labels, title="P: row i takes token perm[i]",
                   cmap="Greys", vmin=0.0, vmax=1.0, fmt="{:.0f}")


# Okabe–Ito: colour-blind safe
TOKEN_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00")


def weighted_sum(V, weights, tokens=None, ax=None, *, order=None, title=None):
    """y = Σ_j α_j v_j in the plane: values v_j (V: (n, 2)) as dots, terms α_j v_j as arrows
    added in ``order`` (default 0, 1, …; any order ends at the same y), y a star; returns the Axes.
    """
    V = as_matrix("V", V, ("n", 2), " to be drawn in the plane (pick two columns: V[:, :2])")
    n = V.shape[0]
    alpha = as_matrix("weights", weights, (n,), " (one entry per row of V)")
    order = check_perm(range(n) if order is None else order, n, "order")
    labels = _labels("tokens", tokens, n)
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
    ax.plot(*tip, marker="*", markersize=18, color="black", linestyle="none",
            label="y = Σ α_j v_j")
    ax.annotate("y", tip, xytext=(9, -16), textcoords="offset points", fontweight="bold")
    ax.plot(0.0, 0.0, marker="o", markersize=4, color="0.4")
    ax.set(aspect="equal", title=title or "", xlabel="entry 1 of a value",
           ylabel="entry 2 of a value")
    ax.margins(0.25)  # room for the labels above the dots
    ax.grid(alpha=0.3)
    return ax


def cell_grid(ax, colour: str = "0.6") -> None:
    """Thin lines between a heatmap's cells: neighbouring cells of one colour can be told apart."""
    rows, cols = ax.images[-1].get_array().shape
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
    """
    if not 1 <= len(bars) <= 3:
        raise ValueError(f"bars must map 1 to 3 legend labels to result keys; got {len(bars)}. "
                         "Draw the others in a second chart.")
    ax = ax if ax is not None else plt.subplots(figsize=(8, 3.4), layout="constrained")[1]
    x, width = np.arange(len(results)), 0.8 / len(bars)
    dots = {"s": 9, "color": "black", "zorder": 3, "linewidths": 0}
    for k, (label, key) in enumerate(bars.items()):
        offset = (k - (len(bars) - 1) / 2) * width
        values = [np.atleast_1d(np.asarray(r[key], dtype=float)) for r in results.values()]
        ax.bar(x + offset, [v.mean() for v in values], width, label=label)
        if any(len(v) > 1 for v in values):  # one dot per seed, side by side within the bar
            xs = [x_i + offset + np.linspace(-0.3, 0.3, len(v)) * width
                  for x_i, v in zip(x, values, strict=True)]
            ax.scatter(np.concatenate(xs), np.concatenate(values), **dots,
                       label="one seed" if k == 0 else None)
    ax.axhline(reference[0], color="black", linestyle=":", label=reference[1])
    ax.set_xticks(x, list(results), rotation=30, ha="right")
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
    ax = ax if ax is not None else plt.subplots(figsize=(8, 3.6), layout="constrained")[1]
    for label, runs in curves.items():
        runs = np.atleast_2d(np.asarray(runs, dtype=float))  # (seeds, points)
        x = np.arange(runs.shape[1]) if steps is None else np.asarray(steps)
        [line] = ax.plot(x, runs.mean(axis=0), label=label,
                         linestyle="--" if label in dashed else "-")
        ax.fill_between(x, runs.min(axis=0), runs.max(axis=0), color=line.get_color(),
                        alpha=0.2, linewidth=0)
    ax.set(xlabel="training step", ylabel="training loss (log scale)", yscale="log",
           title=title or "")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax

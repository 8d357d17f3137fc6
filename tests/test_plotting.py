"""The series' heatmaps, tested by state: image data, colour scale, tick labels, written values."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import posattn as pa
from posattn import plotting


def ticks(axis) -> list[str]:
    return [t.get_text() for t in axis.get_ticklabels()]


def test_attention_heatmap_shows_A_on_a_fixed_scale_with_tokens(dog_bites_man):
    X, W, tokens = dog_bites_man
    _, A = pa.self_attention(X, *W)
    image = plotting.attention_heatmap(A, tokens)
    np.testing.assert_array_equal(image.get_array(), A)
    assert image.get_clim() == (0.0, 1.0)
    assert image.get_cmap().name == plotting.ATTENTION_CMAP
    assert ticks(image.axes.xaxis) == ticks(image.axes.yaxis) == tokens
    assert [t.get_text() for t in image.axes.texts] == [f"{a:.2f}" for a in A.ravel()]
    plt.close("all")


def test_values_are_written_only_for_short_sentences():
    A = pa.softmax(np.random.default_rng(0).standard_normal((9, 9)))
    assert len(plotting.attention_heatmap(A).axes.texts) == 0
    assert len(plotting.attention_heatmap(A[:8, :8] / A[:8, :8].sum(1, keepdims=True)).axes.texts) == 64
    plt.close("all")


def test_cell_text_stays_readable_on_dark_and_light_cells():
    image = plotting.attention_heatmap(np.array([[0.0, 1.0], [1.0, 0.0]]))
    colours = [t.get_color() for t in image.axes.texts]
    assert colours == ["white", "black", "black", "white"]  # viridis: dark purple at 0, yellow at 1
    plt.close("all")


def test_attention_pair_shares_one_colour_bar(dog_bites_man):
    X, W, tokens = dog_bites_man
    _, A = pa.self_attention(X, *W)
    perm = [2, 1, 0]
    fig = plotting.attention_pair(A, tokens, A[perm][:, perm], [tokens[i] for i in perm])
    left, right, bar = fig.axes
    np.testing.assert_array_equal(right.images[0].get_array(), A[perm][:, perm])
    assert ticks(right.xaxis) == ["man", "bites", "dog"]
    assert bar.get_ylabel().startswith("attention weight")
    plt.close(fig)


def test_permutation_heatmap_draws_P():
    image = plotting.permutation_heatmap([2, 0, 1], ["dog", "bites", "man"])
    np.testing.assert_array_equal(image.get_array(), pa.permutation_matrix([2, 0, 1]))
    assert ticks(image.axes.yaxis) == ["man", "dog", "bites"]
    plt.close("all")


def test_labels_must_match_the_matrix():
    with pytest.raises(ValueError, match=r"row_labels must have one label per row \(3\); got 2: \['a', 'b'\]"):
        plotting.attention_heatmap(np.eye(3), ["a", "b"])
    plt.close("all")


def placed_as_matplotlib_would(make) -> tuple[float, float]:
    """The title's lowest pixel with title_above, and with matplotlib's automatic placement, same figure."""
    lows = []
    for pinned in (True, False):
        fig, ax = plt.subplots(figsize=(5, 4), layout="constrained")
        make(ax)
        if pinned:
            plotting.title_above(ax, "a title, with descenders: jgy")
        else:
            ax.set_title("a title, with descenders: jgy")
        fig.canvas.draw()
        lows.append(ax.title.get_window_extent().y0)
        plt.close(fig)
    return lows[0], lows[1]


@pytest.mark.parametrize("make", [
    lambda ax: plotting.heatmap(np.eye(3), ax, row_labels=list("abc"), col_labels=["dog", "bites", "man"]),
    lambda ax: plotting.attention_heatmap(np.eye(3), ["dog", "bites", "man"], ax),  # plus an x label on top
    lambda ax: (plotting.heatmap(np.eye(4), ax, col_labels=["antidisestablishment", "b", "c", "d"]),
                ax.tick_params(axis="x", labelrotation=90)),  # tall, turned words
    lambda ax: ax.plot([0, 1]),  # nothing on top: the plain default height
])
def test_title_above_sits_where_matplotlib_would_put_it(make):
    pinned, automatic = placed_as_matplotlib_would(make)
    assert pinned == pytest.approx(automatic, abs=1.0)  # pixels


def test_title_above_clears_the_top_labels_at_any_size():
    fig, axes = plt.subplots(1, 3, figsize=(12, 4), layout="constrained")
    for ax in axes:
        plotting.attention_heatmap(np.eye(3), ["dog", "bites", "man"], ax, title="A")
    for size in [(12, 4), (6, 2.5), (16, 7)]:  # the gap is kept in points, not in axes fractions
        fig.set_size_inches(size)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in axes:
            assert ax.title.get_window_extent(renderer).y0 >= ax.xaxis.get_tightbbox(renderer).y1
    plt.close(fig)


def test_title_above_without_a_canvas_that_measures_falls_back_to_matplotlib():
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.figure import Figure

    fig = Figure()
    FigureCanvasBase(fig)  # no renderer to measure with
    ax = fig.subplots()
    plotting.title_above(ax, "A")
    assert ax.get_title() == "A"


@pytest.mark.filterwarnings("ignore:InlineBackend._print_figure_kwargs_changed is deprecated:DeprecationWarning")
def test_series_style_shows_notebook_figures_as_laid_out(monkeypatch):
    import sys

    import matplotlib
    from matplotlib_inline.config import InlineBackend

    config = InlineBackend.instance()
    monkeypatch.setattr(config, "print_figure_kwargs", {"bbox_inches": "tight"})
    monkeypatch.setitem(sys.modules, "ipykernel", sys.modules.get("ipykernel") or object())  # as in a notebook
    with matplotlib.rc_context():
        plotting.series_style()
        assert matplotlib.rcParams["figure.constrained_layout.use"] is True
        assert matplotlib.rcParams["font.size"] == 12
    assert config.print_figure_kwargs["bbox_inches"] is None  # no second, cropping pass over every text

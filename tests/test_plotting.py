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
    A8 = A[:8, :8] / A[:8, :8].sum(1, keepdims=True)
    assert len(plotting.attention_heatmap(A8).axes.texts) == 64
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
    message = r"tokens must have one label per query \(row of A\), 3 in all; got 2: \['a', 'b'\]"
    with pytest.raises(ValueError, match=message):
        plotting.attention_heatmap(np.eye(3), ["a", "b"])
    message = r"col_labels must have one label per column, 2 in all; got 3"
    with pytest.raises(ValueError, match=message):
        plotting.heatmap(np.eye(3)[:, :2], col_labels=["a", "b", "c"])
    plt.close("all")


def test_heatmap_keeps_the_scale_it_is_given_even_zero():
    image = plotting.heatmap(-np.eye(3), vmax=0.0)
    assert image.get_clim() == (-1.0, 0.0)
    assert plotting.heatmap(np.eye(3), vmin=0.5).get_clim() == (0.5, 1.0)
    plt.close("all")


def test_heatmap_refuses_an_empty_scale():
    with pytest.raises(ValueError, match=r"vmax must be greater than vmin \(0\); got 0\. Give"):
        plotting.heatmap(np.eye(3), vmin=0.0, vmax=0.0)
    plt.close("all")


def test_heatmap_title_sits_above_the_top_labels():
    image = plotting.attention_heatmap(np.eye(3), ["dog", "bites", "man"], title="A")
    image.figure.canvas.draw()
    ax = image.axes
    assert ax.get_title() == "A"
    assert ax.title.get_window_extent().y0 >= ax.xaxis.get_tightbbox().y1  # above words and label
    plt.close("all")


@pytest.mark.parametrize("tokens", [["dog"], ["dog", "bites", "man", "extra"]])
def test_permutation_heatmap_needs_one_token_per_position(tokens):
    message = rf"tokens must have one label per position, 3 in all; got {len(tokens)}"
    with pytest.raises(ValueError, match=message):
        plotting.permutation_heatmap([2, 0, 1], tokens)
    plt.close("all")


def test_the_series_style_ships_with_the_package_and_sets_the_series_rc():
    import matplotlib

    with matplotlib.rc_context():
        matplotlib.rcParams["font.size"] = 7.0
        plt.style.use(plotting.STYLE)
        assert matplotlib.rcParams["font.size"] == 18
        assert matplotlib.rcParams["figure.constrained_layout.use"] is True


def test_loss_bands_draw_the_mean_over_seeds_and_a_band_from_lowest_to_highest():
    curves = {"rope": [[2.0, 1.0, 0.1], [3.0, 0.5, 0.3]], "none": [[2.0, 1.5, 1.2]] * 2}
    ax = plotting.loss_bands(curves, [0, 5, 10], dashed=("none",), title="T")
    rope, none = ax.get_lines()
    assert rope.get_xdata().tolist() == [0, 5, 10]
    assert rope.get_ydata().tolist() == pytest.approx([2.5, 0.75, 0.2])
    assert (rope.get_linestyle(), none.get_linestyle()) == ("-", "--")
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.1) and band.max() == pytest.approx(3.0)
    assert ax.get_yscale() == "log" and ax.get_title() == "T"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["rope", "none"]
    assert ax.get_xlabel() == "training step" and "loss" in ax.get_ylabel()
    plt.close(ax.figure)


def test_accuracy_bands_draw_the_mean_over_seeds_a_band_and_the_reference_against_length():
    curves = {"rope": [[1.0, 0.5], [0.8, 0.1]], "none": [[0.2, 0.2], [0.3, 0.1]]}
    ax = plotting.accuracy_bands(curves, [8, 32], reference=(1 / 12, "guessing"),
                                 dashed=("none",))
    rope, none, guess = ax.get_lines()
    assert rope.get_xdata().tolist() == [8, 32]
    assert rope.get_ydata().tolist() == pytest.approx([0.9, 0.3])
    assert (rope.get_linestyle(), none.get_linestyle(), guess.get_linestyle()) == ("-", "--", ":")
    assert list(guess.get_ydata()) == pytest.approx([1 / 12] * 2)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.1) and band.max() == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["rope", "none", "guessing"]
    assert ax.get_ylim() == (0, 1.05) and [t for t in ax.get_xticks()] == [8, 32]
    plt.close(ax.figure)


@pytest.mark.parametrize(("curves", "lengths", "message"), [
    ({"a": [[0.5, 0.5, 0.5]]}, [8, 16], r"curves\['a'\] must hold one accuracy per length \(2\)"),
    ({"a": [[0.5, 1.5]]}, [8, 16], r"curves\['a'\] must hold accuracies from 0 to 1; got 1.5"),
    ({"a": [[0.5]]}, [], "lengths must be a non-empty list of row lengths"),
    ([[0.5]], [8], "curves must be a dict"),
])
def test_accuracy_bands_refuse_what_they_cannot_draw(curves, lengths, message):
    with pytest.raises((TypeError, ValueError), match=message):
        plotting.accuracy_bands(curves, lengths, reference=(0.1, "guessing"))


def test_loss_bands_count_steps_from_zero_by_default():
    ax = plotting.loss_bands({"x": [[1.0, 0.5, 0.2, 0.1]]})
    assert ax.get_lines()[0].get_xdata().tolist() == [0, 1, 2, 3]
    plt.close(ax.figure)


def test_cell_values_follow_the_series_style_and_read_at_18_px_or_more_on_screen():
    import matplotlib

    with plt.style.context(plotting.STYLE):
        image = plotting.heatmap(np.eye(2))
        sizes = {t.get_fontsize() for t in image.axes.texts}
        assert sizes == {matplotlib.rcParams["font.size"]}  # the style's body size
        assert min(sizes) * image.figure.dpi / 72 >= 18  # points at the stored dpi, in pixels
    with matplotlib.rc_context({"font.size": 10.0}):
        assert plotting.heatmap(np.eye(2)).axes.texts[0].get_fontsize() == 10.0  # no fixed size
    plt.close("all")


def test_accuracy_bands_label_at_most_eight_lengths_so_the_labels_stay_apart():
    lengths = list(range(16))
    ax = plotting.accuracy_bands({"causal": [[0.5] * 16]}, lengths, reference=(0.1, "guessing"))
    assert list(ax.get_xticks()) == list(range(0, 16, 2))  # every 2nd length labelled
    assert set(ax.get_xticks()) | set(ax.get_xticks(minor=True)) == set(lengths)  # a tick on each
    plt.close("all")


def test_accuracy_bars_turn_the_scheme_names_45_degrees_from_their_ends():
    results = {name: {"test": 0.5} for name in ("none", "sinusoidal", "alibi_symmetric")}
    ax = plotting.accuracy_bars(results, {"test": "test"}, reference=(0.5, "bound"))
    labels = ax.get_xticklabels()
    assert {(t.get_rotation(), t.get_rotation_mode(), t.get_ha()) for t in labels} == {
        (45.0, "anchor", "right")}
    plt.close("all")


def test_weighted_sum_draws_a_wide_figure_with_equal_units():
    """A slide shows a figure at most 520 px tall: a square one would be 520 px wide."""
    ax = plotting.weighted_sum([[4.0, 1.0], [1.0, 3.0], [3.0, 4.0]], [0.6, 0.3, 0.1])
    width, height = ax.figure.get_size_inches()
    assert width / height >= 1.5
    assert ax.get_aspect() == 1.0 and ax.get_adjustable() == "datalim"
    plt.close("all")


def test_a_curve_equal_to_one_drawn_before_it_stays_visible_and_names_its_twin():
    """alibi and its symmetric variant tie on notebook 09's second task: the second curve would
    hide under the first; it is drawn with crosses, thinner, on top, and the legend says so."""
    same = [[0.75, 0.5], [0.8, 0.4]]
    curves = {"alibi": same, "alibi_symmetric": [row[:] for row in same], "rope": [[0.7, 0.5]]}
    ax = plotting.accuracy_bands(curves, [8, 32], reference=(0.1, "guessing"))
    alibi, twin, rope, _ = ax.get_lines()
    assert [t.get_text() for t in ax.get_legend().get_texts()][:3] == [
        "alibi", "alibi_symmetric (= alibi)", "rope"]
    assert (alibi.get_marker(), twin.get_marker(), rope.get_marker()) == ("o", "x", "o")
    assert twin.get_zorder() > alibi.get_zorder() and twin.get_linewidth() < alibi.get_linewidth()
    assert twin.get_ydata().tolist() == alibi.get_ydata().tolist()
    plt.close(ax.figure)


def test_accuracy_bands_name_what_the_accuracy_is_measured_against():
    ax = plotting.accuracy_bands({"learned": [[0.8, 0.3]]}, [100, 800],
                                 reference=(0.1, "guessing"), xlabel="training steps")
    assert ax.get_xlabel() == "training steps" and list(ax.get_xticks()) == [100, 800]
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="xlabel must be a string; got int 3"):
        plotting.accuracy_bands({"learned": [[0.8]]}, [100], reference=(0.1, "g"), xlabel=3)


def test_a_single_dollar_is_plain_text_as_matplotlib_draws_it():
    """matplotlib typesets math only between an even number of unescaped $ (is_math_text): the
    door refused "costs $5" that matplotlib draws as it is."""
    image = plotting.heatmap(np.eye(2), title="costs $5")
    image.axes.figure.canvas.draw()
    assert image.axes.get_title() == "costs $5"
    plt.close(image.axes.figure)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: plotting.loss_bands({"$\\frac$": [[1.0, 0.5]]}),
     r"curves key '\$\\\\frac\$' must be text matplotlib can typeset; got '\$\\\\frac\$'"),
    (lambda: plotting.accuracy_bars({"a": {"t": 0.5}}, {"$x^$": "t"}, reference=(0.5, "r")),
     r"bars key '\$x\^\$' must be text matplotlib can typeset"),
    (lambda: plotting.heatmap(np.eye(2), title="a" * 10**5),
     r"title must be at most 200 characters, to be drawn in seconds and read; got 'a+'… "
     r"\(100,000 characters\)"),
    (lambda: plotting.heatmap(np.zeros((1000, 2)), row_labels=["a" * 100] * 1000),
     "row_labels must have at most 10,000 characters in all, to be drawn in seconds; got "
     "100,000 in 1,000 labels"),
    (lambda: plotting.text_colours(3), r"M must be an array of cell values, at least 1-D"),
])
def test_labels_are_checked_at_the_door_not_when_drawn(call, message):
    with pytest.raises(ValueError, match=message):
        call()
    plt.close("all")

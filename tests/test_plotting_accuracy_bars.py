"""plotting.accuracy_bars: a bar per scheme and key at its accuracy, and a reference line."""

import matplotlib.pyplot as plt
import pytest

from posattn import plotting

RESULTS = {"none": {"test": 0.25, "mirrored": 0.5}, "rope": {"test": 1.0, "mirrored": 0.75}}


def test_bars_show_each_schemes_accuracies_with_the_reference_line_and_labels():
    ax = plotting.accuracy_bars(RESULTS, {"all": "test", "mirrored pairs": "mirrored"},
                                reference=(0.5, "50%: the bound"), ylabel="held-out", title="T")
    heights = [[bar.get_height() for bar in c] for c in ax.containers]
    assert heights == [[0.25, 1.0], [0.5, 0.75]]
    centres = [bar.get_x() + bar.get_width() / 2 for c in ax.containers for bar in c]
    assert centres == pytest.approx([-0.2, 0.8, 0.2, 1.2])
    [line] = ax.get_lines()
    assert list(line.get_ydata()) == [0.5, 0.5] and line.get_label() == "50%: the bound"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none", "rope"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "50%: the bound", "all", "mirrored pairs"]
    assert (ax.get_ylabel(), ax.get_title(), ax.get_ylim()) == ("held-out", "T", (0, 1.05))
    assert ax.yaxis.get_major_formatter()(0.5, 0) == "50%"
    plt.close(ax.figure)


def test_without_a_title_the_axes_has_none():
    ax = plotting.accuracy_bars(RESULTS, {"all": "test"}, reference=(0.5, "x"))
    assert ax.get_title() == "" and [len(c) for c in ax.containers] == [2]
    plt.close(ax.figure)


def test_bars_refuses_more_than_three_bars_per_scheme():
    keys = {str(k): "test" for k in range(4)}
    with pytest.raises(ValueError, match="bars must map 1 to 3 legend labels .*; got 4. Draw"):
        plotting.accuracy_bars(RESULTS, keys, reference=(0.5, "x"))


def test_results_over_seeds_draw_the_mean_as_the_bar_and_each_seed_as_a_dot():
    seeds = {"none": {"test": [0.2, 0.4, 0.3]}, "rope": {"test": [1.0, 1.0, 0.97]}}
    ax = plotting.accuracy_bars(seeds, {"all": "test"}, reference=(0.5, "50%"))
    assert [bar.get_height() for bar in ax.containers[0]] == pytest.approx([0.3, 0.99])
    [dots] = ax.collections
    xy = dots.get_offsets()
    assert xy[:, 1].tolist() == [0.2, 0.4, 0.3, 1.0, 1.0, 0.97]  # every seed, in order
    assert len(set(xy[:, 0].round(6))) == 6  # side by side: equal values stay visible
    assert all(abs(x - round(x)) < 0.8 / 2 for x in xy[:, 0])  # each on its own bar
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["one seed", "50%", "all"]
    plt.close(ax.figure)


def test_one_number_per_scheme_draws_no_dots():
    ax = plotting.accuracy_bars(RESULTS, {"all": "test", "m": "mirrored"}, reference=(0.5, "x"))
    assert len(ax.collections) == 0
    plt.close(ax.figure)

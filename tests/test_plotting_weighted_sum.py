"""plotting.weighted_sum, tested by state: where the star lands, arrows, labels, errors."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from posattn import plotting

V = np.array([[4.0, 1.0], [1.0, 3.0], [3.0, 4.0]])
alpha = np.array([0.6, 0.3, 0.1])


def _star(ax) -> np.ndarray:
    (line,) = [line for line in ax.get_lines() if line.get_marker() == "*"]
    return np.array([line.get_xdata()[0], line.get_ydata()[0]])


def _arrows(ax) -> list:
    return [t for t in ax.texts if t.arrow_patch is not None]


@pytest.mark.parametrize("order", [None, [2, 0, 1], [1, 2, 0]])
def test_the_star_is_the_weighted_sum_whatever_the_order_of_the_terms(order):
    ax = plotting.weighted_sum(V, alpha, ["dog", "bites", "man"], order=order)
    np.testing.assert_allclose(_star(ax), alpha @ V, atol=1e-12)
    assert len(_arrows(ax)) == 3
    plt.close(ax.figure)


def test_arrows_follow_the_order_tip_to_tail_and_labels_show_weights():
    ax = plotting.weighted_sum(V, alpha, ["dog", "bites", "man"], order=[2, 0, 1])
    first = _arrows(ax)[0]
    np.testing.assert_allclose(first.xy, alpha[2] * V[2])  # the first term added is man's
    labels = [t.get_text() for t in ax.texts if t.arrow_patch is None]
    assert labels == ["man  α=0.10", "dog  α=0.60", "bites  α=0.30", "y"]
    plt.close(ax.figure)


@pytest.mark.parametrize(
    ("V_", "weights", "order", "match"),
    [
        (np.ones((3, 4)), alpha, None,
         r"V must have shape \(n, 2\) to be drawn in the plane .*; got shape \(3, 4\)"),
        (V, [0.5, 0.5], None,
         r"weights must have shape \(3,\) \(one entry per row of V\); got shape \(2,\)"),
        (V, alpha, [0, 0, 1], r"order must be a permutation of range\(3\)"),
    ],
)
def test_bad_inputs_are_explained(V_, weights, order, match):
    with pytest.raises(ValueError, match=match):
        plotting.weighted_sum(V_, weights, order=order)


def test_labels_stay_inside_the_axes_and_both_axes_are_labelled():
    ax = plotting.weighted_sum(V, alpha, ["dog", "bites", "man"])
    ax.figure.canvas.draw()
    frame = ax.get_window_extent()
    for text in ax.texts:
        box = text.get_window_extent()
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1, text.get_text()
    assert ax.get_xlabel() and ax.get_ylabel()
    plt.close(ax.figure)

"""plotting.error_scatter: tested by state (points, scale, lines), not pixels."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from posattn import plotting


def test_error_scatter_draws_one_point_per_trial_on_a_log_axis():
    errors = {"equivariance": [0.0, 1e-16, 2e-16], "invariance": [0.5, 1.0, 2.0]}
    ax = plotting.error_scatter([10, 20, 30], errors)
    points = [collection.get_offsets() for collection in ax.collections]
    assert [len(p) for p in points] == [3, 3]
    assert ax.get_yscale() == "log"
    assert points[0][0, 1] == pytest.approx(1e-18)  # an exact zero is drawn at the floor
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend[:2] == ["equivariance", "invariance"]
    plt.close(ax.figure)


def test_error_scatter_rejects_errors_of_the_wrong_length():
    message = r"errors\['eq'\] must have one value per size \(3\); got shape \(2,\)"
    with pytest.raises(ValueError, match=message):
        plotting.error_scatter(np.arange(3), {"eq": [0.0, 1.0]})
    plt.close("all")


def test_error_scatter_rejects_too_many_labels():
    with pytest.raises(ValueError, match="errors must map 1 to 3 labels"):
        plotting.error_scatter([1], {})
    plt.close("all")

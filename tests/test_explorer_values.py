"""The explorer's heatmap values fit their cells (issue 43 §3: with five words they touched,
"0.330.040.110.330.19", as a room calls out a sentence): for 2 to MAX_ANNOTATED words, each value
lies inside its own cell with room between neighbours, in a font of at least 12 pt."""

import numpy as np
import pytest

from posattn.explorer.figure import ExplorerFigure
from posattn.plotting import MAX_ANNOTATED

WORDS = "the dog bites the man in a park".split()


@pytest.mark.parametrize("n", range(2, MAX_ANNOTATED + 1))
def test_each_value_sits_inside_its_cell_with_room_to_spare(n):
    rng = np.random.default_rng(n)
    A = rng.dirichlet(np.ones(n), size=n)  # rows sum to 1, values like 0.33 and 0.04
    figure = ExplorerFigure()
    figure.update(A, WORDS[:n], A[::-1], WORDS[:n][::-1], ("A", "A'"), "a heading")
    renderer = figure.figure.canvas.get_renderer()
    for ax in figure.axes:
        cell = ax.bbox.width / n
        boxes = [text.get_window_extent(renderer) for text in ax.texts]
        assert len(boxes) == n * n
        lefts = [ax.bbox.x0 + (k % n) * cell for k in range(n * n)]
        outside = [k for k, (box, left) in enumerate(zip(boxes, lefts, strict=True))
                   if box.x0 < left + 0.05 * cell or box.x1 > left + 0.95 * cell]
        assert outside == [], f"{n} words: values past their cell's edge: {outside}"
        assert min(text.get_fontsize() for text in ax.texts) >= 12
    assert {len(text.get_text()) for text in figure.axes[0].texts} <= {3, 4}
    figure.close()

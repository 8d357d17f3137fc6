"""plotting.cell_grid: a line on every border between two cells of a heatmap, none through them."""

import matplotlib.pyplot as plt
import numpy as np

from posattn import plotting


def test_cell_grid_puts_a_line_on_every_cell_border_and_none_through_cells():
    fig, ax = plt.subplots()
    plotting.heatmap(np.zeros((3, 5)), ax, values=False)
    plotting.cell_grid(ax)
    assert ax.get_xticks(minor=True).tolist() == [-0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
    assert ax.get_yticks(minor=True).tolist() == [-0.5, 0.5, 1.5, 2.5]
    fig.canvas.draw()
    for axis in (ax.xaxis, ax.yaxis):
        assert all(tick.gridline.get_visible() for tick in axis.get_minor_ticks())
        assert not any(tick.gridline.get_visible() for tick in axis.get_major_ticks())
    plt.close(fig)

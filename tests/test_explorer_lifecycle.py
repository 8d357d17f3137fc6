"""Closing the explorer releases its figure and widgets: making it again and again stays flat."""

import gc
import resource
import sys

import matplotlib.pyplot as plt
import pytest
from ipywidgets.widgets.widget import _instances
from matplotlib.figure import Figure

from posattn.explorer import ShuffleExplorer


def live_figures() -> int:
    return sum(isinstance(obj, Figure) for obj in gc.get_objects())


def make(close: bool = True) -> ShuffleExplorer:
    explorer = ShuffleExplorer("dog bit dog", seed=0)
    explorer.shuffle_button.click()
    if close:
        explorer.close()
    return explorer


def peak_rss() -> int:
    """The process's largest resident set so far, in bytes."""
    unit = 1 if sys.platform == "darwin" else 1024  # macOS counts bytes, Linux KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit


def test_re_created_explorers_leave_figures_widgets_and_memory_flat():
    make()  # first use fills font and layout caches
    gc.collect()
    before, peak = (plt.get_fignums(), len(_instances), live_figures()), peak_rss()
    for _ in range(8):
        make()
        gc.collect()  # what stays after a collection is what a leak would keep
    assert (plt.get_fignums(), len(_instances), live_figures()) == before
    assert peak_rss() - peak < 20 * 2**20  # a leak keeps ~7 MiB per explorer: 56 MiB for eight


def test_an_explorer_left_open_stays_registered_the_control():
    gc.collect()
    widgets_before, figures_before = len(_instances), live_figures()
    explorer = make(close=False)
    gc.collect()
    assert len(_instances) - widgets_before >= 10 and live_figures() == figures_before + 1
    explorer.close()
    del explorer
    gc.collect()
    assert len(_instances) == widgets_before and live_figures() == figures_before


def test_close_twice_is_harmless_and_a_closed_explorer_has_no_widgets_left():
    explorer = make()
    explorer.close()
    parts = [explorer, *explorer.children, explorer.order, explorer.scheme, explorer.image]
    assert all(part.comm is None for part in parts)
    assert all(part.layout.comm is None for part in parts)


@pytest.fixture(autouse=True)
def _no_leftovers():
    yield
    gc.collect()


class FakeKernel:
    """What ipykernel tells about the request it is running: the cell's id and the run's id."""

    def __init__(self):
        self.parent = {}

    def get_parent(self):
        return self.parent


def test_re_running_a_cell_closes_the_explorers_its_last_run_made(monkeypatch):
    import IPython

    from posattn.explorer import widget

    kernel = FakeKernel()
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Shell", (), {"kernel": kernel})())
    monkeypatch.setattr(widget, "_MADE_BY_CELL", {})
    gc.collect()
    before = len(_instances)
    probe = make(close=False)  # outside any cell: nothing closes it but close()
    per_explorer = len(_instances) - before
    probe.close()
    for run in range(5):  # the same cell run five times, two explorers per run
        kernel.parent = {"header": {"msg_id": f"run-{run}"}, "metadata": {"cellId": "cell-a"}}
        first, second = make(close=False), make(close=False)
        assert first.comm is not None and second.comm is not None  # one run keeps both
    kernel.parent = {"header": {"msg_id": "run-b"}, "metadata": {"cellId": "cell-b"}}
    other = make(close=False)  # another cell does not close cell a's explorers
    assert first.comm is not None and second.comm is not None
    assert len(_instances) - before == 3 * per_explorer
    for explorer in (first, second, other):
        explorer.close()
    assert len(_instances) == before

"""The "dog bites man" explorer (notebook 06) in Jupyter Notebook 7, run and clicked through Notebook 7's own UI.

The server is Notebook 7 of this environment (sys.executable -m jupyter notebook), started like the JupyterLab one:
127.0.0.1, a free port, a random token, a temporary copy of notebooks/, private settings and kernelspec; it is
stopped whatever happens (jlab.serving). Notebook 7 is built from JupyterLab's components, so its Run menu and
notebook model are the ones jlab.py already drives.
"""

from __future__ import annotations

import re

import pytest

from .jlab import EXPLORER, PLACEHOLDERS, figure_changed, open_notebook, order_value, pi_text, run_all, screenshot_path, serving

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture then skips (or fails, in CI) and says how to install it
    expect = None

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def notebook7(browser, tmp_path_factory):
    """A Notebook 7 server over a temporary copy of notebooks/: yields {"url", "token", "root", "home"}."""
    with serving("notebook", tmp_path_factory) as server:
        yield server


def test_explorer_runs_and_shuffles_in_notebook7(page, notebook7):
    if not EXPLORER.exists():
        pytest.skip(f"{EXPLORER.name} is not written yet")
    open_notebook(page, notebook7, EXPLORER.name, route="notebooks")
    assert page.locator("#main-panel .jp-NotebookPanel").count() == 1, "not Notebook 7's single-document page"
    state = run_all(page)  # Run ▸ Run All Cells, from Notebook 7's menu bar
    assert state["errors"] == [], f"{EXPLORER.name} raised in Notebook 7: {state['errors']}"
    assert state["unrun"] == 0, f"{state['unrun']} code cells did not run"
    assert page.get_by_text(PLACEHOLDERS).count() == 0, "a widget did not render"
    tracebacks = page.locator(".jp-OutputArea-output", has_text=re.compile(r"Traceback \(most recent call last\)"))
    assert tracebacks.count() == 0, f"traceback in the page: {tracebacks.first.inner_text()[:500]}"

    box = page.locator(".widget-vbox", has=page.locator(".pp-shuffle")).first
    box.scroll_into_view_if_needed()
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    expect(figure).to_be_visible()
    before_png, before_status, before_order = figure.screenshot(), status.inner_text(), order_value(box)
    box.locator("button.pp-shuffle").click()
    expect(status).not_to_have_text(before_status)
    new_order = order_value(box)
    assert new_order != before_order
    assert pi_text(new_order) in status.inner_text()
    assert figure_changed(page, figure, before_png), "Shuffle did not change the A | A' picture in Notebook 7"
    box.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_path("06_notebook7_after_shuffle.png"))

"""Live slides: a notebook presented with RISE (jupyterlab-rise) inside JupyterLab, offline.

Alt+R (command RISE:preview) opens the notebook as a reveal.js deck in a panel beside it, on the same kernel.
The deck must be ready, have the same top-level slides as the static deck, typeset its math, and load nothing
from a network (the environment's settings pick RISE's "white" theme, whose fonts are local).

The explorer of notebook 06 is live in the deck: its widgets are drawn and Shuffle works. That holds because
requirements.txt keeps jupyterlab_widgets below 3.0.11: from 3.0.11 the widget manager needs @jupyterlab/console,
which RISE's own page (jupyterlab-rise 0.43) does not share, and every widget falls back to its text repr
(jupyterlab-contrib/rise#126). The second test fails the day that pin is lifted too early.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect

from .jlab import NOTEBOOKS, ROOT, expected_slides, open_notebook, pi_text, screenshot_path

pytestmark = pytest.mark.browser
NOTEBOOK = NOTEBOOKS / "03_softmax_and_projections.ipynb"
LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:", "about:")


@pytest.fixture
def rise_white(lab):
    """RISE's theme as the Makefile's set-up ships it (tools/lab-overrides.json), in the server's user settings."""
    rise = json.loads((ROOT / "tools" / "lab-overrides.json").read_text())["jupyterlab-rise:plugin"]
    settings = lab["home"] / "settings" / "jupyterlab-rise" / "plugin.jupyterlab-settings"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(rise))


def test_rise_presents_a_notebook_offline(page, lab, rise_white):
    notebook = NOTEBOOK if NOTEBOOK.exists() else min(NOTEBOOKS.glob("*.ipynb"), default=None)
    if notebook is None:
        pytest.skip("no notebooks yet")
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    open_notebook(page, lab, notebook.name)
    page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
    page.wait_for_function("() => [...document.querySelectorAll('iframe')].some(f => f.src.includes('/rise/'))")
    deck = page.frame_locator("iframe[src*='/rise/']")
    deck.locator(".reveal.ready").wait_for(state="attached", timeout=60_000)
    deck.locator("mjx-container").first.wait_for(state="attached", timeout=30_000)  # math is typeset
    assert deck.locator(".reveal .slides > section").count() == expected_slides(nbformat.read(notebook, as_version=4))
    page.wait_for_timeout(1000)
    page.screenshot(path=screenshot_path(f"{notebook.stem}_rise.png"))
    assert [url for url in requests if not url.startswith(LOCAL)] == [], "RISE must load nothing from a network"


def open_rise_at(page, first_line: str):
    """Make the cell starting with ``first_line`` the active one (RISE opens at its slide), open RISE, wait for the
    deck; returns the deck's frame locator."""
    page.evaluate("""line => { const nb = window.jupyterapp.shell.currentWidget.content;
        nb.activeCellIndex = nb.widgets.findIndex(c => c.model.sharedModel.getSource().startsWith(line)); }""",
                  first_line)
    page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
    page.wait_for_function("() => [...document.querySelectorAll('iframe')].some(f => f.src.includes('/rise/'))")
    deck = page.frame_locator("iframe[src*='/rise/']")
    deck.locator(".reveal.ready").wait_for(state="attached", timeout=60_000)
    return deck


def test_the_explorer_is_live_in_the_rise_deck(explorer, lab, rise_white):
    page, _ = explorer  # notebook 06, run from JupyterLab's Run menu: the kernel holds the explorer
    deck = open_rise_at(page, "explorer = ShuffleExplorer(")
    status = deck.locator(".pp-status").first
    expect(status).to_contain_text("π = (0, 1, 2)", timeout=30_000)  # drawn as widgets, not as the text repr
    expect(deck.locator(".pp-shuffle").first).to_be_visible()
    page.screenshot(path=screenshot_path("06_rise_explorer_before.png"))
    deck.locator(".pp-shuffle").first.click()
    expect(status).not_to_contain_text("π = (0, 1, 2)", timeout=30_000)
    order = deck.locator(".pp-order select, .pp-order input").first.input_value().split("·")[0]
    assert pi_text(" ".join(order.split())) in status.inner_text()  # the kernel answered, in the deck
    deck.locator("img.pp-figure").first.scroll_into_view_if_needed()  # the slide scrolls (RISE "scroll": true)
    page.screenshot(path=screenshot_path("06_rise_explorer_after.png"))

"""Live slides: a notebook presented with RISE (jupyterlab-rise) inside JupyterLab, offline.

Alt+R (command RISE:preview) opens the notebook as a reveal.js deck in a panel beside it, on the same kernel.
The deck must be ready, have the same top-level slides as the static deck, typeset its math, and load nothing
from a network (the environment's settings pick RISE's "white" theme, whose fonts are local).

Known limit, upstream: jupyterlab-rise 0.43 shows ipywidgets 8 widgets as their text repr
(jupyterlab-contrib/rise#126), so the explorer is not live inside the RISE deck; `make present` (Voilà, tested in
test_live_slides.py) is the live deck in which it responds.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from .jlab import NOTEBOOKS, ROOT, expected_slides, open_notebook, screenshot_path

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

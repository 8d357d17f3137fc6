"""Every notebook, run from JupyterLab's own Run menu in a real browser: no errors, every widget rendered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .jlab import NOTEBOOKS, PLACEHOLDERS, open_notebook, run_all, screenshot_notebook

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_cleanly_in_jupyterlab(page, lab, notebook: Path):
    open_notebook(page, lab, notebook.name)
    state = run_all(page)
    screenshot_notebook(page, f"{notebook.stem}.png")
    assert state["errors"] == [], f"{notebook.name} raised in JupyterLab: {state['errors']}"
    assert state["unrun"] == 0, f"{notebook.name}: {state['unrun']} code cells did not run"
    assert page.get_by_text(PLACEHOLDERS).count() == 0, "a widget did not render"
    tracebacks = page.locator(".jp-OutputArea-output", has_text=re.compile(r"Traceback \(most recent call last\)"))
    assert tracebacks.count() == 0, f"traceback in the page: {tracebacks.first.inner_text()[:500]}"

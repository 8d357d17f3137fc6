"""Every notebook, run from JupyterLab's own Run menu in a real browser: no errors, every widget
rendered."""

from pathlib import Path

import pytest

from .jlab import NOTEBOOKS, assert_ran_cleanly, open_notebook, run_all, screenshot_notebook

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_cleanly_in_jupyterlab(page, lab, notebook: Path):
    open_notebook(page, lab, notebook.name)
    state = run_all(page)
    screenshot_notebook(page, f"{notebook.stem}.png")
    assert_ran_cleanly(page, state, f"{notebook.name} in JupyterLab")

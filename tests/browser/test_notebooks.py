"""Every notebook, run from JupyterLab's own Run menu in a real browser: no errors, every widget
rendered, and each presenter note folded for students still folded. Notebook 05 is the session's
one run of it (conftest.explorer_run), which the explorer tests then click in."""

from pathlib import Path

import pytest

from tools.run.lab_driver import EXPLORER, NOTEBOOKS, open_notebook, run_all

from .jlab import assert_folded_notes_stay_folded, assert_ran_cleanly, screenshot_notebook


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_cleanly_in_jupyterlab(request, notebook: Path):
    if notebook == EXPLORER:
        page, state = request.getfixturevalue("explorer_run")
    else:
        page = request.getfixturevalue("page")
        open_notebook(page, request.getfixturevalue("lab"), notebook.name)
        state = run_all(page)
        screenshot_notebook(page, f"{notebook.stem}.png")
    assert_ran_cleanly(page, state, f"{notebook.name} in JupyterLab")
    assert_folded_notes_stay_folded(page, notebook)

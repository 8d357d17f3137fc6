"""The "dog bites man" explorer (notebook 05) in Jupyter Notebook 7, run and clicked through
Notebook 7's own UI. Notebook 7 runs 05's cells up to the one that makes the explorer (the
whole notebook already runs in JupyterLab, on the same kernel code): a third full run of it
would check nothing more.

The server is Notebook 7 of this environment (sys.executable -m jupyter notebook), started like the
JupyterLab one: 127.0.0.1, a free port, a random token, a temporary copy of notebooks/, private
settings and kernelspec; it is stopped whatever happens (tools.run.lab_driver.serving). Notebook
7 is built from JupyterLab's components, so its Run menu and notebook model are the ones
tools/run/lab_driver.py already drives.
"""

import nbformat
import pytest

from tools.run.lab_driver import EXPLORER, open_notebook, run_all, serving

from .jlab import assert_ran_cleanly, expect, figure_changed, order_value, pi_text, screenshot_path

FIRST_CELLS = "05_up_to_the_explorer.ipynb"


def up_to_the_explorer(folder) -> None:
    """Notebook 05's cells up to the one that makes the explorer, as folder/FIRST_CELLS."""
    nb = nbformat.read(EXPLORER, as_version=4)
    last = next(i for i, c in enumerate(nb.cells) if "ShuffleExplorer(" in c.source
                and c.cell_type == "code" and "import" not in c.source)
    nb.cells = nb.cells[:last + 1]
    nbformat.write(nb, folder / FIRST_CELLS)


@pytest.fixture(scope="module")
def notebook7(browser, tmp_path_factory):
    """A Notebook 7 server over a temporary copy of notebooks/: yields {"url", "token", "root",
    "home"}."""
    with serving("notebook", tmp_path_factory) as server:
        yield server


def test_explorer_runs_and_shuffles_in_notebook7(page, notebook7):
    if not EXPLORER.exists():
        pytest.skip(f"{EXPLORER.name} is not written yet")
    up_to_the_explorer(notebook7["root"])
    open_notebook(page, notebook7, FIRST_CELLS, route="notebooks")
    assert page.locator("#main-panel .jp-NotebookPanel").count() == 1, (
        "not Notebook 7's single-document page"
    )
    state = run_all(page)  # Run ▸ Run All Cells, from Notebook 7's menu bar
    assert_ran_cleanly(page, state, f"{EXPLORER.name} in Notebook 7")

    box = page.locator(".widget-vbox", has=page.locator(".pp-shuffle")).first
    box.scroll_into_view_if_needed()
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    expect(figure).to_be_visible()
    before_png, before_status, before_order = (
        figure.screenshot(),
        status.inner_text(),
        order_value(box),
    )
    box.locator("button.pp-shuffle").click()
    expect(status).not_to_have_text(before_status)
    new_order = order_value(box)
    assert new_order != before_order
    assert pi_text(new_order) in status.inner_text()
    assert figure_changed(page, figure, before_png), (
        "Shuffle did not change the A | A' picture in Notebook 7"
    )
    box.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_path("06_notebook7_after_shuffle.png"))

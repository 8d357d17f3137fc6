"""Live slides: a notebook presented with RISE (jupyterlab-rise) inside JupyterLab, offline.

Alt+R (command RISE:preview) opens the notebook as a reveal.js deck in a panel beside it, on the
same kernel. The deck must be ready, have the same top-level slides as the static deck, typeset its
math, and load nothing from a network (the environment's settings pick RISE's "white" theme, whose
fonts are local).

The explorer of notebook 05 is live in the deck: its widgets are drawn and Shuffle works. That holds
because requirements-rise.txt keeps jupyterlab_widgets below 3.0.11: from 3.0.11 the widget manager
needs @jupyterlab/console, which RISE's own page (jupyterlab-rise 0.43) does not share, and every
widget falls back to its text repr (jupyterlab-contrib/rise#126). The second test fails the day that
pin is lifted too early.

Alt+R writes nothing: jupyterlab-rise's preview saves the notebook before it opens the deck (a
page of its own that reads the notebook from the server), which wrote a committed notebook once a
cell had run. The series' extension tools/serve/labextensions/posattn-rise, which the Makefile
installs in .venv-rise, skips that save and has the deck read the notebook from JupyterLab's
memory; a save on purpose (Ctrl+S) still writes.

RISE is opt-in, in an environment of its own: `make test-rise` runs this file there (and requires
RISE: POSATTN_RISE=1); in the series' own environment, which has no RISE, it is skipped.
"""

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest

from tools.run.lab_driver import NOTEBOOKS, ROOT, open_notebook, run_all

from .jlab import (
    LOCAL_SERVER,
    expect,
    expected_slides,
    order_value,
    pi_text,
    save_with_ctrl_s,
    screenshot_path,
)

pytestmark = pytest.mark.browser
if importlib.util.find_spec("jupyterlab_rise") is None:
    if os.environ.get("POSATTN_RISE"):
        raise RuntimeError("POSATTN_RISE is set, but jupyterlab-rise is not installed here: run "
                           "`make test-rise`, which uses .venv-rise.")
    pytest.skip("RISE is opt-in and not in this environment: `make test-rise` tests it in "
                ".venv-rise", allow_module_level=True)
NOTEBOOK = NOTEBOOKS / "03_softmax_and_projections.ipynb"


@pytest.fixture
def rise_white(lab):
    """RISE's theme as the Makefile's set-up ships it (tools/serve/lab-overrides.json), in the
    server's user settings."""
    overrides = ROOT / "tools" / "serve" / "lab-overrides.json"
    rise = json.loads(overrides.read_text())["jupyterlab-rise:plugin"]
    settings = lab["home"] / "settings" / "jupyterlab-rise" / "plugin.jupyterlab-settings"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(rise))


def open_rise(page, at: str | None = None):
    """Open RISE on the notebook in the page and wait for the deck; returns the deck's frame
    locator. RISE opens at the active cell's slide: with ``at``, the cell whose source starts with
    it is made the active one first."""
    if at is not None:
        page.evaluate(
            """line => { const nb = window.jupyterapp.shell.currentWidget.content;
            nb.activeCellIndex = nb.widgets.findIndex(
                c => c.model.sharedModel.getSource().startsWith(line)); }""",
            at,
        )
    page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
    page.wait_for_function(
        "() => [...document.querySelectorAll('iframe')].some(f => f.src.includes('/rise/'))"
    )
    deck = page.frame_locator("iframe[src*='/rise/']")
    deck.locator(".reveal.ready").wait_for(state="attached", timeout=60_000)
    return deck


def test_rise_presents_a_notebook_offline(page, lab, rise_white):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    open_notebook(page, lab, NOTEBOOK.name)
    deck = open_rise(page)
    deck.locator("mjx-container").first.wait_for(
        state="attached", timeout=30_000
    )  # math is typeset
    assert deck.locator(".reveal .slides > section").count() == expected_slides(
        nbformat.read(NOTEBOOK, as_version=4)
    )
    page.wait_for_timeout(1000)
    page.screenshot(path=screenshot_path(f"{NOTEBOOK.stem}_rise.png"))
    assert [url for url in requests if not url.startswith(LOCAL_SERVER)] == [], (
        "RISE must load nothing from a network"
    )


def test_the_explorer_is_live_in_the_rise_deck(explorer, lab, rise_white):
    page, _ = explorer  # notebook 05, run from JupyterLab's Run menu: the kernel holds the explorer
    deck = open_rise(page, at="explorer = ShuffleExplorer(")
    status = deck.locator(".pp-status").first
    expect(status).to_contain_text("π = (", timeout=30_000)  # widgets, not the text repr
    expect(deck.locator(".pp-shuffle").first).to_be_visible()
    page.screenshot(path=screenshot_path("06_rise_explorer_before.png"))
    before = status.inner_text()  # whatever the notebook's later cells left on screen
    deck.locator(".pp-shuffle").first.click()
    expect(status).not_to_have_text(before, timeout=30_000)
    assert pi_text(order_value(deck)) in status.inner_text()  # the kernel answered, in the deck
    deck.locator(
        "img.pp-figure"
    ).first.scroll_into_view_if_needed()  # the slide scrolls (RISE "scroll": true)
    page.screenshot(path=screenshot_path("06_rise_explorer_after.png"))


def test_presenting_with_rise_writes_nothing_the_presenter_did_not_save(page, lab, rise_white):
    # autosave is off in RISE's environment too (tools/serve/lab-overrides.json): the deck opened
    # on a notebook as committed leaves it as it was (RISE's save is skipped: not even the same
    # bytes are written), and running it then writes nothing.
    settings = lab["home"] / "settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosaveInterval": 2}))
    notebook = lab["root"] / NOTEBOOK.name

    def written() -> tuple[bytes, int]:  # a save of a notebook run afresh may write the same bytes
        return notebook.read_bytes(), notebook.stat().st_mtime_ns

    before = written()
    open_notebook(page, lab, NOTEBOOK.name)
    open_rise(page)
    page.wait_for_timeout(3000)
    assert written() == before, "opening RISE's deck wrote the notebook"
    state = run_all(page)
    assert state["errors"] == [] and state["unrun"] == 0
    page.wait_for_timeout(8000)  # four autosave intervals
    assert written() == before, "running the presented notebook wrote it"


EXTENSION = ROOT / "tools" / "serve" / "labextensions" / "posattn-rise"
ENTRY = Path("static", "remoteEntry.js")
COUNT = "() => window.jupyterapp.shell.currentWidget.content.activeCell.model.executionCount"
RAN_TWICE = """() => { const nb = window.jupyterapp.shell.currentWidget;
  return nb.context.model.dirty && nb.content.activeCell.model.executionCount >= 2; }"""


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_alt_r_after_running_a_cell_leaves_the_notebook_as_committed(page, lab, rise_white):
    installed = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / EXTENSION.name
    if digest(installed / ENTRY) != digest(EXTENSION / ENTRY):
        pytest.fail(f"{EXTENSION.relative_to(ROOT)} is not what this environment has installed: "
                    "run `make test-rise`", pytrace=False)
    notebook = lab["root"] / NOTEBOOK.name
    before = digest(notebook)
    open_notebook(page, lab, NOTEBOOK.name)
    code = page.locator(".jp-NotebookPanel .jp-CodeCell").first
    code.locator(".jp-InputArea-prompt").click()  # the cell selected, the notebook in command mode
    for _ in range(2):  # twice: its execution count, 2 or more, is not the committed 1
        page.keyboard.press("Control+Enter")
        page.wait_for_timeout(500)
    page.wait_for_function(RAN_TWICE, timeout=30_000)
    ran = page.evaluate(COUNT)
    page.keyboard.press("Alt+r")  # RISE's "Render as Reveal Slideshow", by its key
    deck = page.frame_locator("iframe[src*='/rise/']")
    deck.locator(".reveal.ready").wait_for(state="attached", timeout=60_000)
    page.wait_for_timeout(2000)  # a save, had there been one, has landed
    assert digest(notebook) == before, "Alt+R wrote the notebook"
    # the deck shows the notebook as it is in JupyterLab, not as it is on disk ([1])
    expect(deck.locator(".jp-CodeCell .jp-InputPrompt").first).to_have_text(f"[{ran}]:")

    # a deliberate save still writes: Ctrl+S in the notebook, which holds the cell's new output
    save_with_ctrl_s(page, notebook)
    saved = json.loads(notebook.read_bytes())["cells"]
    assert next(c for c in saved if c["cell_type"] == "code")["execution_count"] == ran

"""Helpers for the browser tests: a private JupyterLab server, and driving a notebook through its
UI."""

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tools import servers

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture then skips (or fails, in CI) and says how to install it
    expect = None

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
# Quiet, reproducible JupyterLab: no news or update checks, every cell in the DOM (no windowing).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "scrollPastEnd": False,
    },
}
OPTIONS = {  # beyond tools.servers' own: quiet, and the app object exposed for NOTEBOOK_STATE
    "lab": [
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ],
    "notebook": ["--JupyterNotebookApp.expose_app_in_browser=True"],
}


def browser_required() -> bool:
    """In CI (or with POSATTN_REQUIRE_BROWSER=1) a missing browser fails the run instead of
    skipping."""
    return bool(os.environ.get("CI")) or os.environ.get("POSATTN_REQUIRE_BROWSER") == "1"


def private_jupyter_env(home: Path) -> dict[str, str]:
    """Environment variables that keep the server's config, settings and kernels inside home."""
    env = dict(os.environ)
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
    ]:
        env[var] = str(home / sub)
        (home / sub).mkdir(parents=True, exist_ok=True)
    for name, value in LAB_SETTINGS.items():
        (home / "settings" / name).parent.mkdir(parents=True, exist_ok=True)
        (home / "settings" / name).write_text(json.dumps(value))
    kernel = home / "data" / "kernels" / "python3" / "kernel.json"  # this environment's Python
    kernel.parent.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel.write_text(
        json.dumps({"argv": argv, "display_name": "Python 3 (ipykernel)", "language": "python"})
    )
    env.pop("MPLBACKEND", None)  # kernels pick their usual inline backend
    return env


@contextmanager
def serving(app: str, tmp_path_factory) -> Iterator[dict]:
    """A private server (`lab` or `notebook`) over a temporary copy of notebooks/, stopped whatever
    happens: yields {"url", "token", "root", "home"}."""
    home = tmp_path_factory.mktemp(f"jupyter-{app}-home")
    root = tmp_path_factory.mktemp(f"{app}-root") / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    server = servers.start(
        app,
        *OPTIONS[app],
        f"--ServerApp.root_dir={root}",
        env=private_jupyter_env(home),
        log=home / f"jupyter-{app}.log",
    )
    try:
        yield {"url": server.url, "token": server.token, "root": root, "home": home}
    finally:
        servers.stop(server.process)


# The open notebook, read from JupyterLab's own model (the server runs with expose_app_in_browser).
NOTEBOOK_STATE = """() => {
  const panel = window.jupyterapp?.shell.currentWidget;
  if (!panel || !panel.content || !panel.context || !panel.context.isReady) return null;
  const cells = panel.content.widgets.filter(w => w.model.type === 'code');
  return {
    cells: panel.content.widgets.length,
    modelCells: panel.content.model.cells.length,
    kernel: panel.sessionContext.session?.kernel?.status ?? 'none',
    unrun: cells.filter(w => w.model.executionCount === null).length,
    errors: cells.flatMap(w => w.model.outputs.toJSON()).filter(o => o.output_type === 'error')
                 .map(o => `${o.ename}: ${o.evalue}`),
  };
}"""
READY = (
    f"() => {{ const s = ({NOTEBOOK_STATE})(); "
    "return s && s.cells === s.modelCells && s.kernel === 'idle'; }"
)
FINISHED = (
    f"() => {{ const s = ({NOTEBOOK_STATE})(); "
    "return s && s.kernel === 'idle' && (s.unrun === 0 || s.errors.length > 0); }"
)
PLACEHOLDERS = re.compile("Loading widget|Error displaying widget")


def open_notebook(page, lab: dict, name: str, route: str = "lab/tree") -> None:
    """Open NAME in JupyterLab (route "notebooks" for Notebook 7) and wait until its cells are in
    the page and its kernel is idle."""
    page.goto(f"{lab['url']}/{route}/{name}?token={lab['token']}&reset")
    page.wait_for_function(READY, timeout=90_000, polling=250)


LOCAL_SERVER = (
    "http://127.0.0.1:",
    "ws://127.0.0.1:",
    "data:",
    "blob:",
    "about:",
)  # a deck served from here


def assert_ran_cleanly(page, state: dict, where: str) -> None:
    """After run_all: no error, every code cell run, every widget drawn, no traceback in the
    page."""
    assert state["errors"] == [], f"{where} raised: {state['errors']}"
    assert state["unrun"] == 0, f"{where}: {state['unrun']} code cells did not run"
    assert page.get_by_text(PLACEHOLDERS).count() == 0, "a widget did not render"
    tracebacks = page.locator(
        ".jp-OutputArea-output", has_text=re.compile(r"Traceback \(most recent call last\)")
    )
    assert tracebacks.count() == 0, f"traceback in the page: {tracebacks.first.inner_text()[:500]}"


def run_all(page, timeout_s: float = 300) -> dict:
    """Clear the outputs, then Run ▸ Run All Cells from the menu (JupyterLab's, or Notebook 7's: the
    same one); wait for idle; return the state."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator("li[data-command='runmenu:run-all']").click()
    page.wait_for_function(FINISHED, timeout=timeout_s * 1000, polling=250)
    page.get_by_text(PLACEHOLDERS).first.wait_for(state="detached", timeout=20_000)
    return page.evaluate(NOTEBOOK_STATE)


SCROLLER = ".jp-NotebookPanel .jp-WindowedPanel-outer"


def screenshot_path(name: str) -> Path:
    (SCREENSHOTS / name).parent.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / name


def screenshot_notebook(page, name: str) -> Path:
    """Save the whole notebook as one picture: hide the file browser, grow the viewport to the
    notebook's height."""
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    height = page.evaluate(f"() => document.querySelector('{SCROLLER}').scrollHeight")
    page.set_viewport_size({"width": 1280, "height": max(900, min(height + 150, 16_000))})
    page.evaluate(f"() => document.querySelector('{SCROLLER}').scrollTo(0, 0)")
    page.wait_for_timeout(500)
    path = screenshot_path(name)
    page.screenshot(path=path)
    return path


def expected_slides(nb) -> int:
    """Top-level slides nbconvert makes: one per "slide" cell, and the first shown cell always
    starts one."""
    kinds = [cell.metadata.get("slideshow", {}).get("slide_type", "-") for cell in nb.cells]
    first_shown = next(kind for kind in kinds if kind not in {"skip", "notes"})
    return kinds.count("slide") + (first_shown != "slide")


# The "dog bites man" explorer notebook, whatever its number (test_explorer.py, test_keyboard.py)
EXPLORER = min(
    NOTEBOOKS.glob("*_dog_bites_man_explorer.ipynb"),
    default=NOTEBOOKS / "NN_dog_bites_man_explorer.ipynb",
)


def pi_text(order: str) -> str:
    """The order control's value "2 0 1" as the status line writes π: "(2, 0, 1)"."""
    return str(tuple(int(i) for i in order.split()))


def figure_changed(page, figure, before: bytes) -> bool:
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=figure.element_handle()
    )
    return figure.screenshot() != before


def order_value(box) -> str:
    """π as the order control shows it ("2 0 1"): a list ("2 0 1 · man dog bites") up to 4 words, a
    text field beyond."""
    return " ".join(
        box.locator(".pp-order select, .pp-order input").first.input_value().split("·")[0].split()
    )



def folded_notes(path: Path) -> list[tuple[int, str]]:
    """(cell index, the first line it folds, as rendered) of each presenter note that folds a
    part away from students in a ``<details>`` block (issue 40 §4)."""
    found = []
    for i, cell in enumerate(json.loads(path.read_text("utf-8"))["cells"]):
        text = "\n".join(line.lstrip("> ") for line in "".join(cell["source"]).splitlines())
        inside = re.search(r"<details>.*?</summary>\s*(.+?)\n", text, re.S)
        if cell["metadata"].get("slideshow", {}).get("slide_type") == "notes" and inside:
            found.append((i, inside[1].replace("**", "")))
    return found


def assert_folded_notes_stay_folded(page, path: Path) -> None:
    """After the notebook ran, each folded part of a note is still folded: none of its text
    shows until the student opens it (then it shows: the check can see it)."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    for index, line in folded_notes(path):
        shown = page.get_by_text(line).filter(visible=True)
        assert shown.count() == 0, f"{path.name} cell {index}: a folded note shows {line!r}"
        cells.nth(index).locator("details > summary").click()
        shown.first.wait_for(timeout=10_000)

"""A private JupyterLab server over a copy of notebooks/, and headless Chromium opening and running
a notebook in it: what the browser tests (tests/browser/) and the benchmarks (benchmarks/) share."""

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tools.serve import servers

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CHROMIUM_ARGS = [  # headless, offline, nothing of its own fetched
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
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
OPTIONS = {  # beyond tools.serve.servers' own: quiet, and the app object exposed for NOTEBOOK_STATE
    "lab": [
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ],
    "notebook": ["--JupyterNotebookApp.expose_app_in_browser=True"],
}


def chromium() -> Path:
    """The browser to drive: $POSATTN_CHROMIUM, else Debian's /usr/bin/chromium."""
    return Path(os.environ.get("POSATTN_CHROMIUM", "/usr/bin/chromium"))


def chromium_missing() -> str | None:
    """Why the browser cannot be driven here (no Chromium at chromium(), or no playwright), or
    None."""
    path = chromium()
    if not (path.is_file() and os.access(path, os.X_OK)):
        return f"no Chromium at {path}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed (run `make setup`)"
    return None


def launch_chromium(playwright):
    """Headless Chromium (chromium(), CHROMIUM_ARGS) from a running sync_playwright(), for the
    scripts outside pytest (the benchmarks, the hall's screenshots); SystemExit with one line if
    it cannot run here."""
    missing = chromium_missing()
    if missing:
        raise SystemExit(f"{missing}: install it (`sudo apt-get install chromium`), or set "
                         "POSATTN_CHROMIUM=/path/to/chromium")
    return playwright.chromium.launch(executable_path=str(chromium()), args=CHROMIUM_ARGS)


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


def run_all(page, timeout_s: float = 300) -> dict:
    """Clear the outputs, then Run ▸ Run All Cells from the menu (JupyterLab's, or Notebook 7's: the
    same one); wait for idle; return the state."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator("li[data-command='runmenu:run-all']").click()
    page.wait_for_function(FINISHED, timeout=timeout_s * 1000, polling=250)
    page.get_by_text(PLACEHOLDERS).first.wait_for(state="detached", timeout=20_000)
    return page.evaluate(NOTEBOOK_STATE)


# The "dog bites man" explorer notebook, whatever its number (test_explorer.py, test_keyboard.py)
EXPLORER = min(
    NOTEBOOKS.glob("*_dog_bites_man_explorer.ipynb"),
    default=NOTEBOOKS / "NN_dog_bites_man_explorer.ipynb",
)


def descendants(pid: int) -> list[int]:
    """pid and every process below it (a server, its kernels), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found

"""Reading the series never rewrites it: under `make lab`'s settings
(tools/serve/lab-overrides.json, which `make setup` installs as the environment's overrides.json)
JupyterLab does not autosave, so opening the explorer, running it and leaving it open changes no
file, while Ctrl+S still saves.

The autosave interval is cut to 2 s (a user setting, as a person may have one) to keep the test
short; the control turns autosave on in the same page and sees the notebook written within a few
intervals, so the wait is long enough for a save to land."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools.run.lab_driver import (
    EXPLORER,
    OPTIONS,
    ROOT,
    open_notebook,
    private_jupyter_env,
    run_all,
)
from tools.serve import servers

from .jlab import save_with_ctrl_s

INTERVAL = 2  # seconds between autosaves (JupyterLab's default: 120)
DIRTY = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below root: its bytes, and when it was written (a save of a notebook run
    afresh may write the very bytes it had)."""
    return {str(path.relative_to(root)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


def unignored(names) -> list[str]:
    """The names git status would show as new files in the repository (not in .gitignore)."""
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT,
                             input="\n".join(names), capture_output=True, text=True).stdout
    return sorted(set(names) - set(ignored.split("\n")))


@pytest.fixture
def lab_as_make_lab(browser, tmp_path):
    """JupyterLab as `make lab` serves it (the repository's notebooks/ and solutions/ at its root,
    this environment's overrides.json), over a copy: {"url", "token", "root"}."""
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
    overrides = (ROOT / "tools" / "serve" / "lab-overrides.json").read_text()
    if not (installed / "overrides.json").is_file() or \
            json.loads((installed / "overrides.json").read_text()) != json.loads(overrides):
        pytest.fail("the environment's overrides.json is not tools/serve/lab-overrides.json: run "
                    "`make setup`", pytrace=False)
    root = tmp_path / "repository"
    for folder in ("notebooks", "solutions"):
        shutil.copytree(ROOT / folder, root / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    env = private_jupyter_env(tmp_path / "home")
    user = tmp_path / "home" / "settings" / "@jupyterlab" / "docmanager-extension"
    user.mkdir(parents=True)
    (user / "plugin.jupyterlab-settings").write_text(json.dumps({"autosaveInterval": INTERVAL}))
    server = servers.start("lab", *OPTIONS["lab"], f"--ServerApp.root_dir={root}", env=env,
                           log=tmp_path / "home" / "lab.log")
    try:
        yield {"url": server.url, "token": server.token, "root": root}
    finally:
        servers.stop(server.process)


def test_running_the_explorer_and_leaving_it_open_changes_no_file(lab_as_make_lab, page):
    root = lab_as_make_lab["root"]
    before = files(root)
    open_notebook(page, lab_as_make_lab, f"notebooks/{EXPLORER.name}")
    state = run_all(page)
    assert state["errors"] == [], state["errors"]
    assert page.evaluate(DIRTY)  # new outputs and execution counts: something an autosave saves
    time.sleep(4 * INTERVAL)
    after = files(root)
    assert [name for name in before if after[name] != before[name]] == []
    assert unignored(set(after) - set(before)) == []  # JupyterLab's checkpoint: git ignores it
    assert page.evaluate(DIRTY)  # still unsaved, as the page says

    # the control: with autosave on, the same page writes the notebook within a few intervals
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:toggle-autosave')")
    notebook = root / "notebooks" / EXPLORER.name
    deadline = time.monotonic() + 10 * INTERVAL
    while notebook.read_bytes() == before[f"notebooks/{EXPLORER.name}"][0]:
        if time.monotonic() > deadline:  # a wait that ends, not a limit on the work
            pytest.fail("autosave on, yet the notebook was not written")
        time.sleep(0.5)


def test_ctrl_s_still_saves_and_the_solutions_open_from_the_lab(lab_as_make_lab, page):
    root = lab_as_make_lab["root"]
    solution = "solutions/nb04_solutions.py"
    page.goto(f"{lab_as_make_lab['url']}/lab/tree/{solution}?token={lab_as_make_lab['token']}"
              "&reset")
    page.locator(".jp-FileEditor .cm-content", has_text="def ").first.wait_for(timeout=60_000)
    open_notebook(page, lab_as_make_lab, "notebooks/00_start_here.ipynb")
    notebook = root / "notebooks" / "00_start_here.ipynb"
    before = notebook.read_bytes()
    save_with_ctrl_s(page, notebook)
    assert json.loads(notebook.read_bytes())["cells"] == json.loads(before)["cells"]

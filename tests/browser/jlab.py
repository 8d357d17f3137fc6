"""Helpers for the browser tests: the checks and pictures they share. The server and the browser
they drive come from tools/run/lab_driver.py (the benchmarks use it too)."""

import json
import os
import re
import time
from pathlib import Path

from tools.run.lab_driver import PLACEHOLDERS, ROOT

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture then skips (or fails, in CI) and says how to install it
    expect = None

SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def browser_required() -> bool:
    """In CI (or with POSATTN_REQUIRE_BROWSER=1) a missing browser fails the run instead of
    skipping."""
    return bool(os.environ.get("CI")) or os.environ.get("POSATTN_REQUIRE_BROWSER") == "1"


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


def save_with_ctrl_s(page, notebook: Path) -> None:
    """Ctrl+S in the open notebook (its first cell clicked), as a person saves on purpose; waits
    until the file on disk is written, or fails the test after 30 s."""
    import pytest

    written = notebook.stat().st_mtime_ns
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while notebook.stat().st_mtime_ns == written:
        if time.monotonic() > deadline:  # a wait that ends, not a limit on the work
            pytest.fail("Ctrl+S did not save")
        time.sleep(0.5)

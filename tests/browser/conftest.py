"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, and a private JupyterLab
server.

The server runs from this environment (sys.executable -m jupyter lab) on 127.0.0.1, a free port and
a random token, over a temporary copy of notebooks/ (the committed notebooks are never rewritten),
with its own settings, kernelspec and workspace folders, and it is stopped whatever happens
(tools.run.lab_driver.serving; test_notebook7.py starts a Notebook 7 server the same way).
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.run.lab_driver import (
    CHROMIUM_ARGS,
    EXPLORER,
    chromium,
    chromium_missing,
    open_notebook,
    run_all,
    serving,
)

from .jlab import browser_required, screenshot_notebook

HOW_TO_ENABLE = (
    "to run them: `sudo apt-get install chromium`, or set POSATTN_CHROMIUM=/path/to/chromium"
)
SKIPPED: list[str] = []  # why the browser tests were skipped, said once at the end of the run
# How long an expect(...) waits for its condition (Playwright's own default is 5 s). A wait, not a
# speed test: `make test` runs three pytest processes and Chromium on two cores, and a kernel's
# answer to a click can take seconds there (issue 37). A condition that never holds still fails.
EXPECT_SECONDS = 30

try:
    from playwright.sync_api import expect
except ImportError:  # chromium_path() says so, once a browser test runs
    pass
else:
    expect.set_options(timeout=EXPECT_SECONDS * 1000)


def pytest_terminal_summary(terminalreporter) -> None:
    if SKIPPED:
        terminalreporter.write_line(SKIPPED[0], yellow=True)


def chromium_path() -> Path:
    """The browser to drive: $POSATTN_CHROMIUM, else Debian's /usr/bin/chromium; skip (or fail in
    CI) without it."""
    missing = chromium_missing()
    if missing and browser_required():
        pytest.fail(
            f"browser tests are required in CI, but {missing}; {HOW_TO_ENABLE}", pytrace=False
        )
    if missing:
        SKIPPED.append(f"browser tests skipped: {missing}; {HOW_TO_ENABLE}")
        pytest.skip(SKIPPED[-1])
    return chromium()


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium shared by all browser tests."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    """A fresh 1280×900 page; closed after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="session")
def lab(browser, tmp_path_factory) -> Iterator[dict]:
    """A JupyterLab server over a temporary copy of notebooks/: yields {"url", "token", "root",
    "home"}."""
    with serving("lab", tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="session")
def explorer_run(browser, lab):
    """Notebook 05 run once from JupyterLab's Run menu, for the whole session (test_notebooks.py
    checks this run; the explorer tests click in it): yields (page, state after the run)."""
    if not EXPLORER.exists():
        pytest.skip(f"{EXPLORER.name} is not written yet")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        open_notebook(page, lab, EXPLORER.name)
        state = run_all(page)
        screenshot_notebook(page, f"{EXPLORER.stem}.png")  # as it ran, before any click
        page.set_viewport_size({"width": 1280, "height": 900})
        yield page, state
    finally:
        context.close()


@pytest.fixture
def explorer(explorer_run):
    """The page of the session's run of notebook 05 and the (first) explorer in it."""
    page, state = explorer_run
    assert state["errors"] == [], state["errors"]
    box = page.locator(".widget-vbox", has=page.locator(".pp-shuffle")).first
    box.scroll_into_view_if_needed()
    return page, box

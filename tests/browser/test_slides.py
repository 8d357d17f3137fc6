"""The static classroom decks (tools/build_slides.py): built here, opened from disk in headless Chromium, offline.

Each deck must be ready, have one top-level slide per "slide" cell, typeset its math, and load nothing that is
not a local file: no failed request, and no request to any network address.
"""

from __future__ import annotations

import importlib.util
import re
import urllib.error
from pathlib import Path

import nbformat
import pytest

from .jlab import NOTEBOOKS, ROOT, browser_required, expected_slides, screenshot_path

pytestmark = pytest.mark.browser
LOCAL = ("file://", "data:", "blob:", "about:")
SHOW_FRAGMENTS = ".reveal .slides section .fragment { opacity: 1 !important; visibility: inherit !important; }"


def load_builder():
    spec = importlib.util.spec_from_file_location("build_slides", ROOT / "tools" / "build_slides.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def decks(tmp_path_factory) -> Path:
    """Every deck, built into a temporary folder (the registry is needed once, then build/npm-cache/ serves)."""
    out = tmp_path_factory.mktemp("slides")
    try:
        load_builder().build(sorted(NOTEBOOKS.glob("*.ipynb")), out)
    except urllib.error.URLError as error:
        if browser_required():
            raise
        pytest.skip(f"slides need the npm registry once to fetch reveal.js and MathJax: {error}")
    return out


def has_math(nb) -> bool:
    shown = [c.source for c in nb.cells if c.cell_type == "markdown"
             and c.metadata.get("slideshow", {}).get("slide_type") not in {"skip"}]
    return any(re.search(r"\$[^$]+\$", source) for source in shown)


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_deck_opens_offline_with_every_slide_and_typeset_math(browser, decks, notebook: Path):
    nb = nbformat.read(notebook, as_version=4)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    requests, failed, errors = [], [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))  # e.g. a widget view
    try:
        page.goto((decks / f"{notebook.stem}.slides.html").as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        if has_math(nb):
            page.wait_for_function("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
                                   " && document.querySelector('.MathJax_CHTML')", timeout=30_000)
            assert page.locator(".mjx-merror, .MathJax_Error").count() == 0, "MathJax could not typeset some math"
        slides = page.locator(".reveal .slides > section")
        assert slides.count() == expected_slides(nb)
        assert page.locator(".reveal aside.notes").count() == sum(
            c.metadata.get("slideshow", {}).get("slide_type") == "notes" for c in nb.cells)
        screenshot_slides(page, notebook.stem, slides.count())
    finally:
        context.close()
    assert failed == [], f"requests failed: {failed}"
    assert [url for url in requests if not url.startswith(LOCAL)] == [], "the deck must load nothing from a network"
    assert errors == [], f"errors in the page or its console: {errors}"


def screenshot_slides(page, stem: str, count: int) -> None:
    """One picture per top-level slide (fragments shown), for a person to judge readability at 1280×720."""
    page.add_style_tag(content=SHOW_FRAGMENTS)
    for index in range(count):
        page.evaluate(f"() => {{ location.hash = '#/{index}'; }}")
        page.wait_for_timeout(250)  # layout and MathJax re-render of the new slide
        page.screenshot(path=screenshot_path(f"slides/{stem}_{index:02d}.png"))

"""The static classroom decks (tools/build_slides.py): built here, opened from disk in headless
Chromium, offline.

Each deck must be ready, have one top-level slide per "slide" cell, typeset its math, load nothing
that is not a local file (no failed request, no request to a network address), and fit a 1280×720
screen. Authors place a slide's vertical sub-slides; a slide taller than the screen scrolls. So
this test measures every slide and refuses one of several cells that is taller than the screen (a
"subslide" break belongs in it). Only a slide of ONE cell taller than a screen by itself (a long
code cell with its output, the explorer widget; a "*Figure:*" description stays with its figure
and is not counted) may scroll: at most MAX_ONE_CELL_OVERFULL per deck, listed in the output.
"""

import re
from pathlib import Path

import nbformat
import pytest

from tools.build_slides import AssetsUnavailable, build

from .jlab import NOTEBOOKS, browser_required, expected_slides, screenshot_path

pytestmark = pytest.mark.browser
LOCAL = ("file://", "data:", "blob:", "about:")
SHOW_FRAGMENTS = (".reveal .slides section .fragment "
                  "{ opacity: 1 !important; visibility: inherit !important; }")
MAX_ONE_CELL_OVERFULL = 2
TOLERANCE = 8  # px a slide's content may pass the slide's height (sub-pixel rounding, a descender)
LEAF_SLIDES = """() => [...document.querySelectorAll('.reveal .slides > section')]
  .flatMap((top, h) => { const inner = [...top.querySelectorAll(':scope > section')];
    return inner.length ? inner.map((_, v) => `${h}/${v}`) : [`${h}`]; })"""
# [content height, slide height, cells, the first cell's first words] of the slide on screen;
# a figure's "Figure:" description belongs to the figure and is not counted as a cell.
PRESENT_SIZE = """() => {
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const cells = [...slide.querySelectorAll('.jp-Cell')].filter(cell => !cell.closest('aside')
      && !cell.innerText.trim().startsWith('Figure'));
  return [slide.scrollHeight, parseFloat(document.querySelector('.reveal .slides').style.height),
          cells.length, (cells[0]?.innerText ?? '').trim().split('\\n')[0].slice(0, 50)]; }"""
# On "slidechanged" the deck re-typesets the new slide's math (MathJax.Hub.Rerender, outside the
# Hub queue): until it is done the formulas are missing or 2 px high and the slide measures short.
MATH_DONE = """() => { if (!window.MathJax || !MathJax.Hub) return true;
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const outside = selector => [...slide.querySelectorAll(selector)]
      .filter(element => !element.closest('aside'));
  const shown = outside('.MathJax_CHTML');
  return MathJax.Hub.queue.pending === 0 && shown.every(math => math.offsetHeight > 2)
    && shown.length === outside('script[type^="math/tex"]').length; }"""
MATH_TYPESET = ("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
                " && document.querySelector('.MathJax_CHTML')")


@pytest.fixture(scope="session")
def decks(tmp_path_factory) -> Path:
    """Every deck, built into a temporary folder (the registry is needed on a first build only)."""
    out = tmp_path_factory.mktemp("slides")
    try:
        build(sorted(NOTEBOOKS.glob("*.ipynb")), out)
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
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
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        page.goto((decks / f"{notebook.stem}.slides.html").as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        if has_math(nb):
            page.wait_for_function(MATH_TYPESET, timeout=30_000)
            assert page.locator(".mjx-merror, .MathJax_Error").count() == 0, "MathJax failed"
        slides = page.locator(".reveal .slides > section")
        assert slides.count() == expected_slides(nb)
        assert page.locator(".reveal aside.notes").count() == sum(
            c.metadata.get("slideshow", {}).get("slide_type") == "notes" for c in nb.cells)
        overfull = fit_and_screenshot(page, notebook.stem)
    finally:
        context.close()
    assert failed == [], f"requests failed: {failed}"
    assert [url for url in requests if not url.startswith(LOCAL)] == [], "a request left the disk"
    assert errors == [], f"errors in the page or its console: {errors}"
    if overfull:
        print(f"{notebook.stem}: slides taller than 1280×720: {overfull}")
    several = [slide for slide in overfull if ", 1 cell," not in slide]
    assert several == [], ("slides of several cells must fit 1280×720: put a subslide break "
                           f"in the notebook: {several}")
    assert len(overfull) <= MAX_ONE_CELL_OVERFULL, f"too many one-cell tall slides: {overfull}"


def fit_and_screenshot(page, stem: str) -> list[str]:
    """Visit every slide (vertical sub-slides too), picture it (fragments shown) for a person to
    judge at 1280×720, and return the slides taller than the screen, as
    "h/v: content > slide px, N cells, from 'first words of the first cell'"."""
    page.add_style_tag(content=SHOW_FRAGMENTS)
    overfull = []
    for slide in page.evaluate(LEAF_SLIDES):
        page.evaluate(f"() => {{ location.hash = '#/{slide}'; }}")
        page.wait_for_timeout(150)  # layout of the new slide
        page.wait_for_function(MATH_DONE, timeout=20_000)
        content, height, cells, first = page.evaluate(PRESENT_SIZE)
        if content > height + TOLERANCE:
            overfull.append(f"{slide}: {content} > {height:.0f} px, {cells} cell"
                            f"{'s' * (cells != 1)}, from {first!r}")
        page.screenshot(path=screenshot_path(f"slides/{stem}_{slide.replace('/', '_')}.png"))
    return overfull

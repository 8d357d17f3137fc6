"""The static book (tools/build_book.py) in headless Chromium, offline.

The book is built into a temporary folder, at a sub-path (course/position-problem/) as a static
host would serve it, and every page is opened from file://: nothing may be requested from outside
the book's folder, the console stays free of errors, every image loads and has alt text, every
formula is typeset by the local MathJax and no raw TeX is left in the prose. At 375 px no text
runs off the screen; at 1280 px the theme's three columns show. The same pages then come from
`python -m http.server` on 127.0.0.1 with every request inside the sub-path and answered. The
explorer page shows a still picture of a shuffle, no dead controls and how to make it live; the
search field finds "equivariant" and lists notebook 01. Screenshots: artifacts/screenshots/book/.
"""

import functools
import http.server
import threading
from pathlib import Path

import pytest

from tools import build_book
from tools.build_slides import AssetsUnavailable

from .jlab import NOTEBOOKS, browser_required, screenshot_path

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications"),
]
SUB_PATH = "course/position-problem"
SERIES = sorted(path.stem for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
PAGES = ["index", *SERIES, *(["glossary"] if (NOTEBOOKS / "glossary.md").is_file() else []),
         "search", "genindex"]
EXPLORER = next((name for name in SERIES if "explorer" in name), None)
PHONE, DESKTOP = {"width": 375, "height": 812}, {"width": 1280, "height": 900}
MATH_DONE = ("() => window.MathJax && MathJax.isReady && MathJax.Hub.queue.pending === 0"
             " && !MathJax.Hub.queue.running")
WIDGETS_DRAWN = """() => document.querySelectorAll(
  'script[type="application/vnd.jupyter.widget-view+json"]').length
  <= document.querySelectorAll('.cell_output .jupyter-widgets.widget-container').length"""
IMAGES = """() => [...document.images].map(img => ({src: img.getAttribute('src').slice(0, 80),
  loaded: img.complete && img.naturalWidth > 0, alt: (img.getAttribute('alt') || '').trim()}))"""
# TeX left in the prose once MathJax is done (code, stored outputs and MathJax's own copy aside)
RAW_TEX = r"""() => { const main = document.querySelector('main').cloneNode(true);
  main.querySelectorAll('pre, code, script, style, .MathJax_CHTML, .MathJax_Preview, '
    + '.MJX_Assistive_MathML, .MJXc-display').forEach(el => el.remove());
  return main.textContent.match(/\\\(|\\\)|\\\[|\\\]|\$[^$\s][^$]*\$|\\[a-zA-Z]{2,}/g) || []; }"""
# Text that runs past the right edge of the screen, unless a box that scrolls sideways holds it
OFF_SCREEN = """() => { const width = document.documentElement.clientWidth;
  const held = el => { for (let e = el.parentElement; e; e = e.parentElement) {
    const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll') return true; }
    return false; };
  const off = [...document.querySelectorAll('main :is(p, li, h1, h2, h3, td, th, summary, dt, '
      + 'code, img, table, .MathJax_CHTML, .jupyter-widgets)')]
    .filter(el => el.getClientRects().length && el.getBoundingClientRect().right > width + 1
            && !held(el)).map(el => el.tagName + ': ' + el.textContent.trim().slice(0, 60));
  return {page: document.documentElement.scrollWidth, width, off}; }"""
THEME_COLUMNS = """() => ['.bd-sidebar-primary', 'main .bd-article-container',
  '.bd-sidebar-secondary'].map(sel => document.querySelector(sel))
  .map(el => el ? Math.round(el.getBoundingClientRect().width) : 0)"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A static host's folder with the book at SUB_PATH (built here, from the committed
    notebooks)."""
    root = tmp_path_factory.mktemp("site")
    try:
        build_book.build(root / SUB_PATH)
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    return root


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no line a request
        pass


@pytest.fixture(scope="module")
def served(site):
    """`python -m http.server` over the site's folder on 127.0.0.1: yields the book's URL."""
    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{SUB_PATH}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def watched(browser, viewport=DESKTOP):
    """A new page, and the lists its requests, failures and console errors go to."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    seen = {"requests": [], "failed": [], "errors": []}
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.on("requestfailed", lambda r: seen["failed"].append(f"{r.url}: {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and seen["failed"].append(f"{r.url}: {r.status}"))
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
    return context, page, seen


def settle(page) -> None:
    """Wait until the page's widgets are drawn, its images loaded, its formulas typeset and
    their fonts loaded."""
    page.wait_for_load_state("load")
    page.wait_for_function(WIDGETS_DRAWN, timeout=30_000)
    page.wait_for_function("() => [...document.images].every(img => img.complete)",
                           timeout=30_000)
    if page.locator("main .math").count():
        page.wait_for_function(MATH_DONE, timeout=30_000)
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=30_000)
    page.wait_for_load_state("networkidle")  # MathJax fetches its fonts as it needs them


def outside(requests: list[str], base: str) -> list[str]:
    return [url for url in requests if not url.startswith((base, "data:", "blob:", "about:"))]


@pytest.mark.parametrize("name", PAGES)
def test_page_reads_offline_on_a_desk_and_on_a_phone(browser, site, name):
    book = site / SUB_PATH
    context, page, seen = watched(browser)
    try:
        page.goto((book / f"{name}.html").as_uri())
        settle(page)
        images, math = page.evaluate(IMAGES), page.locator("main .math").count()
        typeset = page.locator("main .MathJax_CHTML").count()
        broken = page.locator(".MathJax_Error, .mjx-merror").count()
        raw, columns = page.evaluate(RAW_TEX), page.evaluate(THEME_COLUMNS)
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(300)  # the theme's narrow layout
        phone = page.evaluate(OFF_SCREEN)
    finally:
        context.close()
    assert outside(seen["requests"], book.as_uri() + "/") == [], "a request left the book"
    assert seen["failed"] == [], f"requests failed: {seen['failed']}"
    assert seen["errors"] == [], f"errors in the page or its console: {seen['errors']}"
    assert [img for img in images if not img["loaded"] or not img["alt"]] == [], images
    assert (typeset, broken) == (math, 0), f"{math} formulas, {typeset} typeset, {broken} failed"
    assert raw == [], f"TeX left in the prose: {raw}"
    assert phone["off"] == [] and phone["page"] <= phone["width"], f"at 375 px: {phone}"
    assert columns[0] >= 200 and columns[1] >= 600, f"not the theme's layout at 1280 px: {columns}"


def test_every_page_is_served_from_a_sub_path_with_nothing_outside_it(browser, served):
    context, page, seen = watched(browser)
    try:
        for name in PAGES:
            page.goto(f"{served}{name}.html")
            settle(page)
    finally:
        context.close()
    assert outside(seen["requests"], served) == [], "a request left the book's sub-path"
    assert seen["failed"] == [], f"requests failed or were refused: {seen['failed']}"
    assert seen["errors"] == [], f"errors in a page or its console: {seen['errors']}"


@pytest.mark.skipif(EXPLORER is None, reason="no explorer notebook")
def test_the_explorer_page_shows_a_still_shuffle_and_no_dead_controls(browser, site):
    context, page, seen = watched(browser)
    try:
        page.goto((site / SUB_PATH / f"{EXPLORER}.html").as_uri())
        settle(page)
        still = page.locator("main img[alt^='the explorer opens on one shuffle']")
        alt = still.first.get_attribute("alt") if still.count() else ""
        size = (still.first.evaluate("img => [img.naturalWidth, img.naturalHeight]")
                if still.count() else [0, 0])
        controls = page.locator("main .cell_output :is(button, input, select, textarea, "
                                ".jupyter-widgets, .widget-vbox)").count()
        renderer = page.locator("script[src*='html-manager']").count()
        hint = page.locator("main p", has_text="to shuffle it yourself")
        hint_text = hint.first.inner_text() if hint.count() else ""
        if still.count():
            still.first.evaluate("el => scrollBy(0, el.getBoundingClientRect().top - 60)")
        page.screenshot(path=screenshot_path(f"book/{EXPLORER}.png"))
    finally:
        context.close()
    assert "man bites dog" in alt and min(size) > 0, f"no still picture of the shuffle: {alt!r}"
    assert controls == 0, f"{controls} controls or widget views that cannot run"
    assert renderer == 0, "the page loads the widget renderer, and nothing on it needs it"
    assert "make lab" in hint_text, hint_text


def test_search_finds_equivariant_and_lists_notebook_01(browser, site):
    first = next(name for name in SERIES if name.startswith("01_"))
    context, page, seen = watched(browser)
    try:
        page.goto((site / SUB_PATH / f"{SERIES[-1]}.html").as_uri())
        settle(page)
        page.locator(".bd-sidebar-primary .search-button-field").first.click()
        field = page.locator("#pst-search-dialog input[name=q]")
        field.fill("equivariant")
        field.press("Enter")
        page.wait_for_url("**/search.html?q=equivariant*")
        page.locator("#search-results .search-summary").wait_for(timeout=20_000)
        found = page.locator("#search-results ul.search li a").evaluate_all(
            "links => links.map(a => a.getAttribute('href').split('?')[0])")
        page.screenshot(path=screenshot_path("book/search.png"))
    finally:
        context.close()
    assert f"{first}.html" in found, found
    assert seen["errors"] == [], seen["errors"]


@pytest.mark.parametrize("name, viewport", [("index", DESKTOP), (SERIES[1], PHONE)],
                         ids=["landing-1280", "notebook-375"])
def test_screenshots_of_the_landing_page_and_a_notebook_on_a_phone(browser, site, name,
                                                                     viewport):
    context, page, _ = watched(browser, viewport)
    try:
        page.goto((site / SUB_PATH / f"{name}.html").as_uri())
        settle(page)
        width = "phone" if viewport is PHONE else "desk"
        page.screenshot(path=screenshot_path(f"book/{name}-{width}.png"))
    finally:
        context.close()

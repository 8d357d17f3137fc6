"""The static book (tools/publish/build_book.py) in headless Chromium, offline.

The book is built into a temporary folder, at a sub-path (course/position-problem/) as a static
host would serve it, and every page is opened from file://: nothing may be requested from outside
the book's folder, the console stays free of errors, every image loads and has alt text, every
formula is typeset by the local MathJax and no raw TeX is left in the prose. At 375 px no text
runs off the screen; at 1280 px the theme's three columns show. The same pages then come from
`python -m http.server` on 127.0.0.1 with every request inside the sub-path and answered. The
explorer page shows a still picture of a shuffle, no dead controls and how to make it live; the
search field finds "equivariant", lists notebook 01 and shows a snippet with the word, from disk
and from a server.

The book on a desk (1280 px) and on a phone (390 × 844): no block of a page scrolls sideways on
a desk, and on a phone only printed tables and formulas that cannot fit, at most three a page,
each reachable by the keyboard; tables an output prints keep their numbers apart; a figure opens
full size with a tap; exercises say what their checker will say; page 09's sections and figures
read "9.N" and "Figure 9.N". Page weight: at most 1 MB of scripts and styles on a page beyond the
ones every page shares (and those under 1 MB), measured from what the browser loads.
Screenshots: artifacts/screenshots/book/.
"""

from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from tests.launchers import serving
from tools.publish import build_book
from tools.publish.build_slides import AssetsUnavailable
from tools.run.lab_driver import NOTEBOOKS

from .jlab import browser_required, screenshot_path

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications"),
]
SUB_PATH = "course/position-problem"
SERIES = sorted(path.stem for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LABS = sorted(path.stem for path in (NOTEBOOKS / build_book.LAB).glob("*.ipynb"))  # opt-in
PAGES = ["index", *SERIES, *LABS,
         *(["glossary"] if (NOTEBOOKS / "glossary.md").is_file() else []), "search", "genindex"]
EXPLORER = next((name for name in SERIES if "explorer" in name), None)
PHONE, DESKTOP = {"width": 375, "height": 812}, {"width": 1280, "height": 900}
PHONE_390 = {"width": 390, "height": 844}
BUDGET, SHARED_BUDGET = 1_000_000, 1_000_000  # bytes of scripts and styles: a page's own, shared
MOST_SCROLLING_ON_A_PHONE = 3  # blocks a page, each a printed table or a formula too wide to fit
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
# Blocks of the article that scroll sideways (their content wider than their box) or cut their
# content off, with what they are: a printed table, a formula, or something else
SIDEWAYS = """() => [...document.querySelectorAll('article.bd-article *')]
  .filter(el => el.getClientRects().length && el.scrollWidth > el.clientWidth + 2
               && !el.closest('.MJX_Assistive_MathML'))  // MathJax's copy for screen readers
  .map(el => ({el, overflow: getComputedStyle(el).overflowX}))
  .filter(({overflow}) => overflow !== 'visible')
  .map(({el, overflow}) => ({
    what: el.closest('.book-printed-table') ? 'printed table'
      : el.closest('.math, .MathJax_CHTML') ? 'formula'
      : el.classList.contains('book-wide-figure') ? 'figure' : el.tagName + '.' + el.className,
    cut: overflow === 'hidden' || overflow === 'clip',
    reached: el.tabIndex >= 0 || !!el.querySelector('[tabindex="0"]'),
    named: el.closest('.book-printed-table') || el.classList.contains('book-wide-figure')
      ? !!el.getAttribute('aria-label') : true,
    text: el.textContent.trim().slice(0, 50), width: [el.scrollWidth, el.clientWidth]}))"""
# The words of an output table's adjacent cells: the room between them, in px
CELL_GAPS = """() => [...document.querySelectorAll('div.cell_output table tr')].flatMap(row => {
  const texts = [...row.children].map(cell => { const r = document.createRange();
    r.selectNodeContents(cell); return r.getBoundingClientRect(); });
  return texts.slice(1).map((box, i) => box.left - texts[i].right); })"""
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


@pytest.fixture(scope="module")
def served(site):
    """`python -m http.server` over the site's folder on 127.0.0.1: yields the book's URL."""
    with serving(site) as url:
        yield f"{url}{SUB_PATH}/"


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


@contextmanager
def opened(browser, url: str, viewport=DESKTOP):
    """A new page (see watched) at url, settled: yields it and its lists; closed after the block."""
    context, page, seen = watched(browser, viewport)
    try:
        page.goto(url)
        settle(page)
        yield page, seen
    finally:
        context.close()


def on_disk(site: Path, name: str) -> str:
    """The file:// address of the book's page `name` in the site's folder."""
    return (site / SUB_PATH / f"{name}.html").as_uri()


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
    fitted(page, 0)


def fitted(page, after: int) -> None:
    """Wait until book.js has fitted the page's tables and formulas more than `after` times and
    nothing is pending (a wait on the page's own word, not a pause: issue 37)."""
    page.wait_for_function("after => document.documentElement.dataset.bookFit === 'done' && "
                           "Number(document.documentElement.dataset.bookFits) > after",
                           arg=after, timeout=30_000)


def fits(page) -> int:
    """How many times book.js has fitted the page so far."""
    return int(page.evaluate("() => document.documentElement.dataset.bookFits || 0"))


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
        before = fits(page)
        page.set_viewport_size(PHONE)
        fitted(page, before)  # refitted at the phone's width (the theme's layout is CSS)
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
    with opened(browser, on_disk(site, EXPLORER)) as (page, seen):
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
    assert "man bites dog" in alt and min(size) > 0, f"no still picture of the shuffle: {alt!r}"
    assert controls == 0, f"{controls} controls or widget views that cannot run"
    assert renderer == 0, "the page loads the widget renderer, and nothing on it needs it"
    assert "make lab" in hint_text, hint_text


@pytest.mark.parametrize("where", ["disk", "server"])
def test_search_finds_equivariant_lists_notebook_01_and_shows_a_snippet(browser, site, served,
                                                                        where):
    base = (site / SUB_PATH).as_uri() + "/" if where == "disk" else served
    with opened(browser, f"{base}{SERIES[-1]}.html") as (page, seen):
        page.locator(".bd-sidebar-primary .search-button-field").first.click()
        field = page.locator("#pst-search-dialog input[name=q]")
        field.fill("equivariant")
        field.press("Enter")
        page.wait_for_url("**/search.html?q=equivariant*")
        page.locator("#search-results .search-summary").wait_for(timeout=20_000)
        found = page.locator("#search-results ul.search li a").evaluate_all(
            "links => links.map(a => a.getAttribute('href').split('?')[0])")
        page.locator("#search-results ul.search li p.context").first.wait_for(timeout=20_000)
        snippets = page.locator("#search-results ul.search li p.context").all_inner_texts()
        if where == "disk":
            page.screenshot(path=screenshot_path("book/search.png"))
    assert f"{first('01_')}.html" in found, found
    assert len(snippets) == len(found), f"{len(found)} results, {len(snippets)} snippets"
    assert all("equivari" in text.lower() for text in snippets), snippets  # the word's stem
    assert any("equivariant" in text.lower() for text in snippets), snippets
    assert seen["errors"] == [] and seen["failed"] == [], seen


@pytest.mark.parametrize("name, viewport", [("index", DESKTOP), (SERIES[1], PHONE)],
                         ids=["landing-1280", "notebook-375"])
def test_screenshots_of_the_landing_page_and_a_notebook_on_a_phone(browser, site, name,
                                                                     viewport):
    with opened(browser, on_disk(site, name), viewport) as (page, _):
        width = "phone" if viewport is PHONE else "desk"
        page.screenshot(path=screenshot_path(f"book/{name}-{width}.png"))


def first(name_start: str) -> str:
    return next(name for name in SERIES if name.startswith(name_start))


def weights(browser, base: str) -> dict[str, dict[str, int]]:
    """Each page's scripts and stylesheets as the browser loads them: {page: {url: bytes}}, one
    fresh context a page (nothing comes from an earlier page's cache)."""
    found = {}
    for name in PAGES:
        context, page, seen = watched(browser)
        loaded = {}

        def keep(response, loaded=loaded):
            if response.request.resource_type in {"script", "stylesheet"} and response.ok:
                loaded[response.url.split("?")[0]] = len(response.body())

        page.on("response", keep)
        try:
            page.goto(f"{base}{name}.html")
            settle(page)
        finally:
            context.close()
        assert seen["failed"] == [] and seen["errors"] == [], (name, seen)
        found[name] = loaded
    return found


def test_no_page_loads_more_than_1_mb_of_scripts_and_styles_beyond_the_shared_ones(browser,
                                                                                  served):
    found = weights(browser, served)
    shared = set.intersection(*(set(loaded) for loaded in found.values()))
    sizes = {url: size for loaded in found.values() for url, size in loaded.items()}
    own = {name: sum(size for url, size in loaded.items() if url not in shared)
           for name, loaded in found.items()}
    common = sum(sizes[url] for url in shared)
    assert not [url for url in sizes if "fontawesome" in url or "embed-amd" in url], sizes
    assert common <= SHARED_BUDGET, f"every page loads {common / 1e6:.2f} MB of scripts and styles"
    assert {name: kb for name, kb in own.items() if kb > BUDGET} == {}, own


@pytest.mark.parametrize("name", [n for n in PAGES if n not in {"search", "genindex"}])
def test_nothing_scrolls_sideways_on_a_desk_and_little_on_a_phone(browser, site, name):
    """At 1280 px no block scrolls or is cut; at 390 px only a printed table (fitted down to
    10.5 px), a formula (drawn down to 70 %) still too wide, or a figure (its text kept at 12 px)
    scrolls, in a box the keyboard reaches, a printed table's and a figure's labelled; nothing
    is cut off. Each width is a fresh load (MathJax
    breaks long formulas for the width it first draws them at)."""
    found = {}
    for width, viewport in [("desk", DESKTOP), ("phone", PHONE_390)]:
        with opened(browser, on_disk(site, name), viewport) as (page, _):
            found[width] = page.evaluate(SIDEWAYS)  # opened(): once book.js has fitted it
    desk, phone = found["desk"], found["phone"]
    assert desk == [], f"at 1280 px: {desk}"
    assert [block for block in phone if block["cut"]] == [], f"cut off at 390 px: {phone}"
    assert [b for b in phone if b["what"] not in {"printed table", "formula", "figure"}] == [], \
        phone
    assert [b for b in phone if not (b["reached"] and b["named"])] == [], phone
    blocks = [b for b in phone if b["what"] != "figure"]  # a figure scrolls to stay readable
    assert len(blocks) <= MOST_SCROLLING_ON_A_PHONE, f"{len(blocks)} scroll at 390 px: {blocks}"


EXPLORER_TABLE = ("<div style='display:flex;gap:2em'><table class='pp-table'><caption>Y, original "
                  "order</caption><tr><th>dog</th><td>-0.94</td><td>1.19</td><td>-0.05</td>"
                  "<td>1.44</td></tr><tr><th>bites</th><td>-1.04</td><td>1.28</td><td>0.01</td>"
                  "<td>1.48</td></tr></table></div>")
DATAFRAME = ('<table border="1" class="dataframe"><thead><tr style="text-align: right;"><th></th>'
             "<th>train</th><th>test</th></tr></thead><tbody><tr><th>none</th><td>0.52</td>"
             "<td>0.35</td></tr><tr><th>rope</th><td>1.00</td><td>0.97</td></tr></tbody></table>")


@pytest.fixture(scope="module")
def tables_book(tmp_path_factory) -> Path:
    """A book of one notebook whose outputs are HTML tables (the explorer's, a DataFrame's)."""
    root = tmp_path_factory.mktemp("tables")
    (root / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Tables\n\n## Printed as HTML"),
        nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
            "display_data", {"text/html": html, "text/plain": "table"})
            for html in (EXPLORER_TABLE, DATAFRAME)])])
    nbformat.write(nb, root / "notebooks" / "01_tables.ipynb")
    try:
        build_book.build(root / "book", root / "notebooks")
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    return root / "book"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE_390], ids=["1280", "390"])
def test_an_output_tables_numbers_stay_apart(browser, tables_book, viewport):
    with opened(browser, (tables_book / "01_tables.html").as_uri(), viewport) as (page, seen):
        gaps = page.evaluate(CELL_GAPS)
        padding = page.locator("div.cell_output table td").first.evaluate(
            "td => [getComputedStyle(td).paddingLeft, getComputedStyle(td).borderLeftWidth]")
        row = page.locator("div.cell_output table.pp-table tr").first.inner_text()
    assert len(gaps) >= 8 and min(gaps) >= 8, f"room between the cells' words (px): {gaps}"
    assert all(float(value[:-2]) > 0 for value in padding), padding
    assert row.split() == ["dog", "-0.94", "1.19", "-0.05", "1.44"], row
    assert seen["errors"] == [], seen["errors"]


def test_a_figure_opens_full_size_with_a_tap(browser, site):
    context = browser.new_context(viewport=PHONE_390, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(on_disk(site, first("09_")))
        settle(page)
        figure = page.locator("main figure a.book-figure-link img").first
        alt, shown = figure.get_attribute("alt"), figure.evaluate("img => img.clientWidth")
        figure.scroll_into_view_if_needed()
        figure.tap()
        page.wait_for_url("**/_images/*.png")
        natural = page.evaluate("() => document.images[0].naturalWidth")
    finally:
        context.close()
    assert alt and natural > 0, (alt, natural)
    assert natural >= shown, f"the full-size picture ({natural} px) is no larger ({shown} px)"


def test_exercises_say_what_their_checker_will_say(browser, site):
    with opened(browser, on_disk(site, first("01_"))) as (page, _):
        said = page.locator("div.cell.tag_exercise div.cell_output").all_inner_texts()
    assert said, "no exercise on page 01"
    for text in said:
        assert "Run this cell in JupyterLab (make lab)" in text and "Right" in text, text
        assert "❌" not in text and "Not yet:" not in text, f"a verdict on the template: {text}"


def test_page_09_numbers_its_sections_and_figures(browser, site):
    with opened(browser, on_disk(site, first("09_"))) as (page, _):
        sections = page.locator("article.bd-article h2").all_inner_texts()
        captions = page.locator("article.bd-article figure figcaption").all_inner_texts()
        if captions:
            page.locator("#figure-9-3").evaluate(
                "el => scrollBy(0, el.getBoundingClientRect().top - 20)")
            page.screenshot(path=screenshot_path("book/09-figure-9-3-desk.png"))
    numbered = [h for h in sections if h[:1].isdigit()]
    assert numbered and [h.split(" · ")[0] for h in numbered] == [
        f"9.{n}" for n in range(1, len(numbered) + 1)], sections
    assert len(captions) >= 3 and [c.split(":")[0] for c in captions] == [
        f"Figure 9.{n}" for n in range(1, len(captions) + 1)], captions


# Each output figure's smallest text on screen: its drawn width over its stored width, times the
# stored figure's smallest text (the series' style, as tools/publish/book/extension.py reads it)
FIGURE_TEXT = """stored => [...document.querySelectorAll('div.cell_output img')]
  .filter(img => img.naturalWidth).map(img => Math.round(
    img.getBoundingClientRect().width / img.naturalWidth * stored * 10) / 10)"""


def test_figure_text_reads_on_a_phone(browser, site):
    """Issue 43 §4: at 390 px the figures' text was 6.5–10.5 px. The series' 18 pt reaches 12 px
    or more: a figure too wide for that scrolls sideways in its own box."""
    from tools.publish.book.extension import figure_text_px

    name = first("09_")  # the page with the most figures
    with opened(browser, on_disk(site, name), PHONE_390) as (page, _):
        sizes = page.evaluate(FIGURE_TEXT, figure_text_px())
        page.locator("div.book-wide-figure").first.scroll_into_view_if_needed()
        page.screenshot(path=screenshot_path("book/09-figure-on-a-phone.png"))
    assert len(sizes) >= 3, sizes
    assert min(sizes) >= 12, f"figure text at 390 px: {sizes}"

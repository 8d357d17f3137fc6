"""WCAG 2.1 AA, as a university's web content must be: axe-core over every deck and book page.

axe-core is one of the decks' npm packages (tools/publish/slide_assets/package.json; the builds
install it with the others, so the tests need no network); it is injected into each page, never
shipped in one. A page passes with no violation of impact "serious" or "critical" under the tags
wcag2a, wcag2aa, wcag21a and wcag21aa.

A deck is checked twice: in reveal.js's print view (`?print-pdf`), where every slide and fragment
is on the page (axe skips what is hidden, and the presenting view hides all slides but one), and
as a person opens it (1280×720): its title slide with what only the presenting view draws
(controls, slide number, progress bar). No box on a slide scrolls (a title 1 px taller than its
box scrolled, out of the keyboard's reach: issue 43). Every image
of a deck has alt text. A book page is checked at a desk's width and at a phone's, where wide
outputs scroll in their own box (a box that scrolls must take the keyboard's focus).
"""

from pathlib import Path

import pytest

from tools.publish import build_book, build_slides
from tools.publish.build_slides import AssetsUnavailable, build, deck_notebooks
from tools.run.lab_driver import NOTEBOOKS

from .deck_measure import MATH_DONE
from .jlab import browser_required
from .test_book import DESKTOP, PAGES, PHONE, fits, fitted, settle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications"),
]
AXE = build_slides.NPM_DIR / "node_modules" / "axe-core" / "axe.min.js"
TAGS = {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
# what a narrow screen changes: which boxes scroll (the colours are the desk's)
NARROW = {"type": "rule", "values": ["scrollable-region-focusable"]}
SEVERE = """async ([context, runOnly]) => (await axe.run(context, {runOnly,
    resultTypes: ['violations']})).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => `${v.id} (${v.nodes.length}): ` + v.nodes.slice(0, 3)
    .map(n => n.target.join(' ').slice(-80) + ' ' + n.failureSummary.slice(0, 160)).join(' | '))"""
# pydata-sphinx-theme makes a box that scrolls focusable (tabindex 0) 300 ms after a resize
THEME_TAB_STOPS = """() => [...document.querySelectorAll('pre, .cell_output > .output')]
  .every(el => el.tabIndex === 0 || (el.scrollWidth <= el.clientWidth
                                     && el.scrollHeight <= el.clientHeight))"""
NO_ALT = """() => [...document.images].filter(img => !(img.getAttribute('alt') || '').trim())
  .map(img => img.getAttribute('src').slice(0, 60))"""


def built(make, out: Path) -> Path:
    """out, made by make(out); skipped (failed in CI) when the npm packages cannot be fetched."""
    try:
        make(out)
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    assert AXE.is_file(), (f"{AXE} is missing: axe-core belongs in "
                           "tools/publish/slide_assets/package.json")
    return out


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> Path:
    return built(lambda out: build(deck_notebooks(NOTEBOOKS), out),
                 tmp_path_factory.mktemp("slides"))


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return built(build_book.build, tmp_path_factory.mktemp("book"))


def severe(page, context: object = None, run_only: dict = TAGS) -> list[str]:
    """The serious and critical WCAG 2.1 AA violations in context (an axe context: the whole
    page by default), one line per rule."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(SEVERE, [context or "html", run_only])


def narrowed(page, before: int) -> None:
    """Wait for book.js to refit the page at its new width (it had fitted it `before` times), and
    give the theme's resize handler its time: a wait on what the page does, however busy the
    machine (issue 37); if the handler never runs, axe says what scrolls."""
    from playwright.sync_api import TimeoutError as Timeout

    fitted(page, before)
    try:
        page.wait_for_function(THEME_TAB_STOPS, timeout=30_000)
    except Timeout:
        pass


@pytest.mark.parametrize("notebook", deck_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_every_slide_of_a_deck_meets_wcag_2_1_aa(browser, decks, notebook: Path):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page, deck = context.new_page(), (decks / f"{notebook.stem}.slides.html").as_uri()
    try:
        page.goto(f"{deck}?print-pdf")  # every slide on the page, one after another
        page.wait_for_selector(".reveal.ready .pdf-page", timeout=30_000)
        every_slide, no_alt = severe(page), page.evaluate(NO_ALT)
        page.goto(deck)  # as a person opens it: its title slide, and what surrounds the slides
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        page.wait_for_function(MATH_DONE, timeout=30_000)
        presenting = severe(page)
    finally:
        context.close()
    assert every_slide == [], f"on the slides: {every_slide}"
    assert presenting == [], f"in the presenting view: {presenting}"
    assert no_alt == [], f"images without alt text: {no_alt}"


@pytest.mark.parametrize("name", PAGES)
def test_every_book_page_meets_wcag_2_1_aa_on_a_desk_and_a_phone(browser, book, name):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        page.goto((book / f"{name}.html").as_uri())
        settle(page)
        desk = severe(page)
        before = fits(page)
        page.set_viewport_size(PHONE)
        narrowed(page, before)
        phone = severe(page, run_only=NARROW)
    finally:
        context.close()
    assert desk == [], f"at {DESKTOP['width']} px: {desk}"
    assert phone == [], f"at {PHONE['width']} px: {phone}"


@pytest.mark.parametrize("name", ["index", "glossary"])
def test_the_decks_index_and_glossary_meet_wcag_2_1_aa(browser, decks, name):
    """The pages beside the decks (tools/publish/deck_pages.py): the list of decks, and the
    glossary the decks link to, its symbols typeset offline, nothing in the console."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page, errors = context.new_page(), []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto((decks / f"{name}.html").as_uri())
        if name == "glossary":
            page.wait_for_function("() => window.MathJax && MathJax.Hub"
                                   " && MathJax.Hub.queue.pending === 0"
                                   " && document.querySelector('.MathJax_CHTML')",
                                   timeout=30_000)
        links = page.locator("main a[href]").count()
        found = severe(page)
    finally:
        context.close()
    assert links >= (11 if name == "index" else 1), f"{links} links"
    assert errors == [], errors
    assert found == [], found

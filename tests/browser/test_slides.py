"""The static classroom decks (tools/publish/build_slides.py): built here, opened from disk in
headless Chromium, offline, and read as a lecture hall would (1280×720).

Each deck must be ready, have one top-level slide per "slide" cell (and its closing slide),
typeset its math and load nothing that is not a local file. Every size is measured ON SCREEN,
after the scale reveal.js fits the slide with (0.96 at 1280×720). Every slide must fit the
screen, with no allowance, in both directions; no text under 24 px (prose, headings, tables,
captions, code, printed output, widget labels); at most 6 lines of code and at most 6 lines of
printed monospace output as the screen shows them (a wrapped line counts as the lines it takes);
headings in sentence case (not upper-cased by the theme); no slide that is a heading and nothing
else (but the deck's title slide); figures at least 700 px wide, their own text at least 22 px
(estimated from src/posattn/series.mplstyle and the figure's on-screen width). Per deck: body text
(prose paragraphs and list items) at least 28 px on at least 90 % of the slides, headings at most
70 characters on at least 90 %, at most 70 words of prose on at least 90 %, a heading on at least
80 %, presenter notes on at least a quarter. The explorer's deck shows a still picture of its saved
shuffle and no dead controls. tests/browser/deck_measure.py does the measuring; run it as a module
to see a deck's report (`--summary` for the counts over all decks). Screenshots:
artifacts/screenshots/slides/NN_name/.
"""

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tools.publish.build_slides import AssetsUnavailable, build
from tools.publish.deck import deck_of
from tools.run.lab_driver import NOTEBOOKS

from .deck_measure import deck_problems, measure_deck, problems
from .jlab import SCREENSHOTS, browser_required, expected_slides

pytestmark = pytest.mark.browser
LOCAL = ("file://", "data:", "blob:", "about:")
MATH_TYPESET = ("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
                " && document.querySelector('.MathJax_CHTML')")
# Symbols outside the fonts Debian's Chromium has without an emoji font (they draw as empty boxes)
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")


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
def test_deck_reads_from_the_back_of_a_hall(browser, decks, notebook: Path):
    deck = deck_of(notebook)
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
        if has_math(deck):
            page.wait_for_function(MATH_TYPESET, timeout=30_000)
            assert page.locator(".mjx-merror, .MathJax_Error").count() == 0, "MathJax failed"
        assert page.locator(".reveal .slides > section").count() == expected_slides(deck)
        assert page.locator(".reveal .slide-number").count() == 1, "no slide numbers"
        text = page.locator(".reveal .slides").inner_text()
        slides = measure_deck(page, SCREENSHOTS / "slides" / notebook.stem)
    finally:
        context.close()
    assert failed == [], f"requests failed: {failed}"
    assert [url for url in requests if not url.startswith(LOCAL)] == [], "a request left the disk"
    assert errors == [], f"errors in the page or its console: {errors}"
    assert sorted(set(EMOJI.findall(text))) == [], "symbols that draw as empty boxes"
    assert all(abs(m["scale"] - 0.96) < 0.01 for m in slides.values()), "not reveal's 0.96"
    bad = {slide: found for slide, m in slides.items() if (found := problems(m))}
    assert bad == {}, f"slides that do not read in a hall: {bad}"
    assert deck_problems(slides) == [], deck_problems(slides)


EXPLORER = next((p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if "explorer" in p.stem), None)
NATURAL_SIZE = "img => img.decode().then(() => [img.naturalWidth, img.naturalHeight])"


@pytest.mark.skipif(EXPLORER is None, reason="no explorer notebook")
def test_the_explorer_deck_shows_a_still_shuffle_and_no_dead_controls(browser, decks):
    """No kernel runs in a static deck: the saved shuffle as a picture, one line on how to make
    it live, and no controls that do nothing (no widget views, no widget renderer)."""
    deck = decks / f"{EXPLORER.stem}.slides.html"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        still = page.locator(".reveal .slides img[alt^='the explorer opens on one shuffle']")
        alt = still.first.get_attribute("alt") if still.count() else ""
        size = still.first.evaluate(NATURAL_SIZE) if still.count() else [0, 0]
        controls = page.locator(".reveal .slides :is(button, input, select, textarea, "
                                ".jupyter-widgets, .widget-vbox)").count()
        hint = page.locator(".reveal .slides p", has_text="to shuffle it yourself")
        hint_text = hint.first.text_content() if hint.count() else ""
    finally:
        context.close()
    assert "man bites dog" in alt and min(size) > 0, f"no still picture of the shuffle: {alt!r}"
    assert controls == 0, f"{controls} controls or widget views that cannot run"
    assert "html-manager" not in deck.read_text(encoding="utf-8"), "the widget renderer loads"
    assert "make lab" in hint_text, hint_text


class Links(HTMLParser):
    """A page's link addresses and element ids."""

    def __init__(self, text: str):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def broken_links(folder: Path) -> dict[str, list[str]]:
    """{page: its links that lead nowhere} over every page in folder: a link must name a file of
    the folder (and, with a #, an element of that page), or an element of its own page."""
    pages = {path.name: Links(path.read_text(encoding="utf-8")) for path in folder.glob("*.html")}
    broken = {}
    for name, links in pages.items():
        for href in links.hrefs:
            parts = urlsplit(href)
            target = unquote(parts.path) or name
            fragment = unquote(parts.fragment)
            page = pages.get(target)
            leads = (not parts.scheme and not parts.netloc and (folder / target).is_file()
                     and (not fragment or fragment.startswith("/")
                          or (page is not None and fragment in page.ids)))
            if not leads:
                broken.setdefault(name, []).append(href)
    return broken


def test_every_link_of_every_deck_opens_a_built_file(decks):
    """The navigation in a deck ("← 00", "Contents", "02 … →", the glossary) leads to the decks
    and pages beside it, and the index lists every deck (issue 43 §3)."""
    built = sorted(path.name for path in decks.glob("*.slides.html"))
    index = Links((decks / "index.html").read_text(encoding="utf-8"))
    hrefs = [href for path in decks.glob("*.slides.html")
             for href in Links(path.read_text(encoding="utf-8")).hrefs]
    assert len(built) == len(sorted(NOTEBOOKS.glob("*.ipynb")))
    assert sorted(set(index.hrefs) & set(built)) == built, "the index misses a deck"
    assert sum(not href.startswith("#") for href in hrefs) >= len(built), "no navigation links"
    assert broken_links(decks) == {}


def test_a_link_check_finds_a_link_to_a_notebook(tmp_path):
    """The check above can fail: a deck that still links a notebook, or a missing anchor."""
    (tmp_path / "a.slides.html").write_text('<a href="00_start_here.ipynb">← 00</a>'
                                            '<a href="#nowhere">x</a><a href="#/2">slide</a>')
    assert broken_links(tmp_path) == {"a.slides.html": ["00_start_here.ipynb", "#nowhere"]}

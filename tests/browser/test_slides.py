"""The static classroom decks (tools/publish/build_slides.py): built here, opened from disk in
headless Chromium, offline, and read as a lecture hall would: on a 16:9 projector (1280×720) and on
a 4:3 one (1024×768, where the slide is 1024×768: tools/publish/slides_template/series-size.js).

Each deck must be ready, have one top-level slide per "slide" cell (and its closing slide), typeset
its math and load nothing that is not a local file. Every size is measured ON SCREEN, after the
scale reveal.js fits the slide with (0.96 at 1280×720). Every slide must fit the screen, with no
allowance, in both directions; no text under 24 px (prose, headings, tables, captions, code,
printed output, widget labels); at most 6 lines of code and at most 6 lines of printed monospace
output as the screen shows them (a wrapped line counts as the lines it takes); headings in sentence
case (not upper-cased by the theme); no formula whose rendered box is cut or leaves the slide
(MathJax's box can while the slide's own width stays 1280); no slide that is a heading and nothing
else (but the deck's title slide); figures at least 700 px wide, their own text at least 22 px
(estimated from src/posattn/series.mplstyle and the figure's on-screen width). Per deck: body text
(prose paragraphs and list items) at least 28 px on at least 90 % of the slides, headings at most
70 characters on at least 90 %, at most 70 words on at least 90 % (every word that shows: prose,
headings, tables, captions, code, printouts; a formula counts one), a figure on at least two
slides, a heading on at least 80 %, presenter notes on at least a quarter. The explorer's deck
shows a still picture of its saved shuffle and no dead controls. The slide number covers none of
the control arrows. Every link of every deck opens a built file. tests/browser/deck_measure.py does
the measuring; run it as a module to see a deck's report (`--summary` for the counts over all
decks). Screenshots: artifacts/screenshots/slides/NN_name/.
"""

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tools.publish.build_slides import AssetsUnavailable, build, deck_notebooks
from tools.publish.deck import deck_of
from tools.run.lab_driver import NOTEBOOKS

from .deck_measure import SCREENS, deck_problems, measure_deck, on_screen, problems
from .jlab import SCREENSHOTS, browser_required, expected_slides

pytestmark = pytest.mark.browser
DECKS = deck_notebooks(NOTEBOOKS)  # the series, then the opt-in labs (notebooks/labs/)
LOCAL = ("file://", "data:", "blob:", "about:")
MATH_TYPESET = ("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
                " && document.querySelector('.MathJax_CHTML')")
# Symbols outside the fonts Debian's Chromium has without an emoji font (they draw as empty boxes)
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")


@pytest.fixture(scope="session")
def decks(tmp_path_factory) -> Path:
    """Every deck, the labs' too, built into a temporary folder (the registry is needed on a
    first build only)."""
    out = tmp_path_factory.mktemp("slides")
    try:
        build(DECKS, out)
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    return out


def has_math(nb) -> bool:
    shown = [c.source for c in nb.cells if c.cell_type == "markdown"
             and c.metadata.get("slideshow", {}).get("slide_type") not in {"skip"}]
    return any(re.search(r"\$[^$]+\$", source) for source in shown)


@pytest.mark.parametrize("notebook", DECKS, ids=lambda p: p.stem)
def test_deck_reads_from_the_back_of_a_hall(browser, decks, notebook: Path):
    """On a 16:9 projector (1280×720) and a 4:3 one (1024×768), every slide measured."""
    deck = deck_of(notebook)
    context = browser.new_context(viewport=SCREENS["1280×720"])
    page = context.new_page()
    requests, failed, errors = [], [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    measured = {}
    try:
        page.goto((decks / f"{notebook.stem}.slides.html").as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        if has_math(deck):
            page.wait_for_function(MATH_TYPESET, timeout=30_000)
            assert page.locator(".mjx-merror, .MathJax_Error").count() == 0, "MathJax failed"
        assert page.locator(".reveal .slides > section").count() == expected_slides(deck)
        assert page.locator(".reveal .slide-number").count() == 1, "no slide numbers"
        text = page.locator(".reveal .slides").inner_text()
        for screen in SCREENS:
            on_screen(page, screen)
            shots = SCREENSHOTS / "slides" / notebook.stem if screen == "1280×720" else None
            measured[screen] = measure_deck(page, shots)
    finally:
        context.close()
    assert failed == [], f"requests failed: {failed}"
    assert [url for url in requests if not url.startswith(LOCAL)] == [], "a request left the disk"
    assert errors == [], f"errors in the page or its console: {errors}"
    assert sorted(set(EMOJI.findall(text))) == [], "symbols that draw as empty boxes"
    for screen, slides in measured.items():
        assert all(abs(m["scale"] - 0.96) < 0.01 for m in slides.values()), f"{screen}: scale"
        bad = {slide: problems(m) for slide, m in slides.items() if problems(m)}
        assert bad == {}, f"at {screen}, slides that do not read in a hall: {bad}"
        assert deck_problems(slides) == [], f"at {screen}: {deck_problems(slides)}"


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
            fragment = parts.fragment  # an element's id as written, or %-decoded (as browsers)
            page = pages.get(target)
            leads = (not parts.scheme and not parts.netloc and (folder / target).is_file()
                     and (not fragment or fragment.startswith("/") or (page is not None and {
                         fragment, unquote(fragment)} & page.ids)))
            if not leads:
                broken.setdefault(name, []).append(href)
    return broken


def test_every_link_of_every_deck_opens_a_built_file(decks):
    """The navigation in a deck ("← 00", "Contents", "02 … →", the glossary; a lab's "← 11" one
    folder up) leads to the decks and pages beside it, and the index lists every deck, the
    labs apart with the command each needs (issue 43 §3, issue 42)."""
    built = sorted(path.name for path in decks.glob("*.slides.html"))
    index_text = (decks / "index.html").read_text(encoding="utf-8")
    index = Links(index_text)
    hrefs = [href for path in decks.glob("*.slides.html")
             for href in Links(path.read_text(encoding="utf-8")).hrefs]
    assert built == sorted(f"{path.stem}.slides.html" for path in DECKS)
    assert sorted(set(index.hrefs) & set(built)) == built, "the index misses a deck"
    labs = [path.stem for path in DECKS if path.parent.name == "labs"]
    assert labs, "no lab's deck"
    listed = index_text[index_text.index("<h2>Opt-in labs</h2>"):]
    for lab in labs:
        assert f'href="{lab}.slides.html"' in listed, f"{lab} is not listed apart as a lab"
        lab_links = Links((decks / f"{lab}.slides.html").read_text(encoding="utf-8")).hrefs
        assert "00_start_here.slides.html" in lab_links, f"{lab}: no Contents link"
    assert "make torch" in listed
    assert sum(not href.startswith("#") for href in hrefs) >= len(built), "no navigation links"
    assert broken_links(decks) == {}


def test_a_link_check_finds_a_link_to_a_notebook(tmp_path):
    """The check above can fail: a deck that still links a notebook, or a missing anchor."""
    (tmp_path / "a.slides.html").write_text('<a href="00_start_here.ipynb">← 00</a>'
                                            '<a href="#nowhere">x</a><a href="#/2">slide</a>')
    assert broken_links(tmp_path) == {"a.slides.html": ["00_start_here.ipynb", "#nowhere"]}


def test_the_measure_finds_a_formula_cut_at_the_edge_and_counts_every_word(browser, tmp_path):
    """The slide test can fail on what issue 43 saw: a display formula wider than the slide (the
    slide's own scroll width stays 1280 while MathJax's box is cut), and the words in a table,
    which a prose-only count missed."""
    import nbformat

    # a row MathJax cannot break (it breaks a long sum onto lines by itself)
    wide = r"\begin{pmatrix}" + " & ".join(f"x_{{{i}}}" for i in range(60)) + r"\end{pmatrix}"
    slide = {"slideshow": {"slide_type": "slide"}}
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A deck", metadata=slide),
        nbformat.v4.new_markdown_cell(f"## Too wide\n\n$$Y = {wide}$$", metadata=slide),
        nbformat.v4.new_markdown_cell("## Many words\n\n| a | b |\n|---|---|\n"
                                      + "".join(f"| w{i} | v{i} |\n" for i in range(25)),
                                      metadata=slide)])
    path = tmp_path / "99_probe.ipynb"
    nbformat.write(notebook, path)
    try:
        [deck] = build([path], tmp_path / "out")
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    page = browser.new_page(viewport=SCREENS["1280×720"])
    try:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        page.wait_for_function(MATH_TYPESET, timeout=30_000)
        slides = measure_deck(page)
    finally:
        page.close()
    assert slides["1/0"]["formulas"] != [], "a formula cut at the slide's edge went unseen"
    assert any("formula" in flag for flag in problems(slides["1/0"]))
    assert slides["2/0"]["words"] == 2 + 2 + 50, slides["2/0"]["words"]  # heading and table


def test_a_slide_finding_names_what_is_wrong():
    """problems() names each finding on a slide and finds none on a slide that reads."""
    fine = {"small": {}, "where": {}, "box": [1280, 720], "height": 720, "width": 1280, "code": 0,
            "output": 0, "headings": [], "headingOnly": False, "figures": [], "covered": 0,
            "formulas": []}
    assert problems(fine) == []
    assert problems({**fine, "code": 9, "covered": 0.68}) == [
        "9 lines of code", "the slide number covers 68% of a control arrow"]
    assert problems({**fine, "height": 797}) == ["overflows (1280×797 > 1280×720)"]

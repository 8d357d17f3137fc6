"""Handouts (`make handouts`, tools/publish/handouts.py): a deck printed to PDF by headless Chromium
from reveal.js's print view, offline. One page per slide (no blank last page: issue 43 §4), pages
of the slide's 16:9 shape, and each page's slide number at least 24 px, as on screen. One deck,
the shortest (about 10 s)."""

import re
from pathlib import Path

import pytest

from tools.publish import handouts as handouts_module
from tools.publish.build_slides import AssetsUnavailable
from tools.publish.handouts import handouts, print_deck
from tools.run.lab_driver import NOTEBOOKS

from .jlab import browser_required

pytestmark = pytest.mark.browser
PAGE = re.compile(rb"/Type\s*/Page\b(?!s)")
MEDIA_BOX = re.compile(rb"/MediaBox\s*\[\s*([-0-9. ]+)\]")
LEAVES = """() => [...document.querySelectorAll('.reveal .slides > section')]
  .reduce((n, top) => n + Math.max(1, top.querySelectorAll(':scope > section').length), 0)"""
NUMBERS = """() => [...document.querySelectorAll('.pdf-page .slide-number-pdf')]
  .map(n => [n.innerText.trim(), parseFloat(getComputedStyle(n).fontSize)])"""


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> tuple[Path, Path]:
    """The shortest deck, built and printed: (its deck, its PDF)."""
    notebook = min(sorted(NOTEBOOKS.glob("*.ipynb")), key=lambda path: path.stat().st_size)
    out = tmp_path_factory.mktemp("handouts")
    try:
        [pdf] = handouts([notebook], out / "pdf", out / "slides")
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    return out / "slides" / f"{notebook.stem}.slides.html", pdf


def test_a_handout_has_one_16_9_page_per_slide_and_readable_numbers(browser, printed):
    deck, pdf = printed
    data = pdf.read_bytes()
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        slides = page.evaluate(LEAVES)
        page.goto(f"{deck.as_uri()}?print-pdf")
        page.wait_for_selector(".reveal.ready .pdf-page", timeout=30_000)
        page.wait_for_function(f"() => document.querySelectorAll('.pdf-page .slide-number-pdf')"
                               f".length >= {slides}", timeout=30_000)  # laid out, numbered
        numbers = page.evaluate(NUMBERS)
    finally:
        context.close()
    assert data.startswith(b"%PDF")
    assert len(PAGE.findall(data)) == slides, f"{len(PAGE.findall(data))} pages, {slides} slides"
    boxes = {tuple(float(x) for x in box.split()) for box in MEDIA_BOX.findall(data)}
    assert boxes and all(abs((x1 - x0) / (y1 - y0) - 16 / 9) < 0.02 for x0, y0, x1, y1 in boxes)
    assert [text.split("/")[0] for text, _ in numbers] == [str(i) for i in range(1, slides + 1)]
    assert min(size for _, size in numbers) >= 24, numbers


def test_a_browser_that_cannot_start_is_named_with_how_to_install_one(tmp_path):
    deck = tmp_path / "00_start_here.slides.html"
    deck.write_text("<!doctype html><title>a deck</title>", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"^Chromium must start to print 00_start_here\.slides"
                       r"\.html; got .+\. Install it \(`sudo apt-get install chromium`\)"):
        print_deck(deck, tmp_path / "out.pdf", tmp_path / "no-such-chromium")
    assert not (tmp_path / "out.pdf").exists()


def test_a_print_view_that_never_gets_ready_is_named_not_the_browser(browser, tmp_path,
                                                                     monkeypatch):
    """A page that never lays out a print view (here: no reveal.js at all) times out: the message
    says so and does not send the reader to install a browser they have."""
    deck = tmp_path / "00_start_here.slides.html"
    deck.write_text("<!doctype html><title>a deck</title><p>no reveal.js</p>", encoding="utf-8")
    monkeypatch.setattr(handouts_module, "WAIT_MS", 1_000)
    with pytest.raises(RuntimeError) as refused:
        print_deck(deck, tmp_path / "out.pdf")
    said = str(refused.value)
    assert said.startswith("Chromium must print 00_start_here.slides.html once its print view is "
                           "laid out; got ") and "Timeout 1000ms exceeded" in said, said
    assert "make slides" in said and "Install" not in said, said
    assert not (tmp_path / "out.pdf").exists()

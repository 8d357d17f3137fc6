"""The speaker view (key S) of a static deck: math in the presenter notes shows once, typeset.

reveal.js's notes plugin opens a window of its own and puts the current slide's notes in as HTML.
The deck is built here, opened from disk (offline) in headless Chromium at the slide of notebook 01
whose notes hold the most formulas; S opens the speaker view. Every formula of those notes must be
typeset there by MathJax, each exactly once (a formula the deck had typeset used to arrive with its
screen-reader copy showing beside it: "P𝑃", "XX"), and no TeX may be left raw. The deck itself
leaves its notes to the speaker view (no typeset math in its asides).
"""

import re
from pathlib import Path

import pytest

from tests.test_deck_notes import slides
from tools.publish.build_slides import AssetsUnavailable, build
from tools.publish.deck import deck_of
from tools.run.lab_driver import NOTEBOOKS

from .jlab import browser_required, screenshot_path

pytestmark = pytest.mark.browser
NOTEBOOK = NOTEBOOKS / "01_invariance_vs_equivariance.ipynb"
FORMULA = re.compile(r"\$\$.+?\$\$|(?<!\\)\$[^$\n]+?(?<!\\)\$", re.S)  # $$…$$ or $…$, not \$
TYPESET = ("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
           " && document.querySelector('.speaker-controls-notes .value .mjx-chtml')")
# What the notes show: per typeset formula, the text of its visible parts and of MathJax's drawing
# alone (a part clipped to a pixel or two, as MathJax hides its screen-reader copy, is not shown),
# the font of its glyphs, and its size; and the notes' whole visible text.
SHOWN = """() => {
  const notes = document.querySelector('.speaker-controls-notes .value');
  const hidden = el => { for (; el && el !== notes; el = el.parentElement) {
      const box = el.getBoundingClientRect(), style = getComputedStyle(el);
      if (box.width <= 2 || box.height <= 2 || style.display === 'none'
          || style.visibility === 'hidden' || el.tagName === 'SCRIPT') return true; }
    return false; };
  const shown = root => { const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let text = ''; for (let node; (node = walk.nextNode());) {
      if (!hidden(node.parentElement)) text += node.textContent; }
    return text.replace(/\\s+/g, ''); };
  const formulas = [...notes.querySelectorAll('.mjx-chtml')].map(el => {
    const drawing = el.querySelector('.mjx-math'), glyph = el.querySelector('.mjx-char');
    const box = el.getBoundingClientRect();
    return {shown: shown(el), drawn: drawing ? shown(drawing) : '', size: [box.width, box.height],
            font: glyph ? getComputedStyle(glyph).fontFamily : ''}; });
  return {formulas, text: shown(notes), scripts: notes.querySelectorAll(
    'script[type^="math/tex"]').length, mathml: [...notes.querySelectorAll('math')].filter(
    el => !hidden(el)).length}; }"""


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    """Notebook 01's deck, built into a temporary folder."""
    out = tmp_path_factory.mktemp("speaker")
    try:
        (built,) = build([NOTEBOOK], out)
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    return built


def slide_with_math(notebook: Path = NOTEBOOK, name: str = "notebook 01") -> tuple[str, int]:
    """The reveal.js address ("h/v", from 0) of the slide of notebook's deck whose notes hold the
    most formulas, and their number (also tests/browser/test_live_slides.py's)."""
    counts = {s["slide"]: len(FORMULA.findall("\n\n".join(source for source, _ in s["notes"])))
              for s in slides(deck_of(notebook))}
    slide = max(counts, key=counts.get)
    assert counts[slide] > 0, f"no presenter notes of {name} hold math"
    h, v = (int(n) - 1 for n in slide.split("/"))
    return f"{h}/{v}", counts[slide]


def test_math_in_the_notes_shows_once_typeset_in_the_speaker_view(browser, deck):
    where, formulas = slide_with_math()
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    errors = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    try:
        page = context.new_page()
        page.goto(f"{deck.as_uri()}#/{where}")
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        page.wait_for_function("() => window.MathJax && MathJax.Hub"
                               " && MathJax.Hub.queue.pending === 0", timeout=30_000)
        typeset_in_deck = page.locator("aside.notes .mjx-chtml").count()
        with context.expect_page(timeout=30_000) as opened:
            page.keyboard.press("s")
        speaker = opened.value
        speaker.wait_for_selector(".speaker-controls-notes:not(.hidden) .value", timeout=30_000)
        try:
            speaker.wait_for_function(TYPESET, timeout=30_000)
        except Exception:  # noqa: BLE001 - said by the assertions below, with what it shows
            pass
        shown = speaker.evaluate(SHOWN)
        speaker.screenshot(path=screenshot_path("slides/speaker_view_01.png"))
    finally:
        context.close()
    assert errors == [], errors
    found = shown["formulas"]
    assert len(found) == formulas == shown["scripts"], (
        f"{formulas} formulas in the notes; {len(found)} typeset in the speaker view: {shown}")
    doubled = [f for f in found if f["shown"] != f["drawn"] or not f["drawn"]]
    assert doubled == [], f"formulas shown twice, or not drawn: {doubled}"
    assert shown["mathml"] == 0, "MathML shown beside the typeset formulas"
    assert [f["font"] for f in found if "MJXc-TeX" not in f["font"]] == [], "not MathJax's fonts"
    assert all(w > 2 and h > 2 for w, h in (f["size"] for f in found)), found
    assert "$" not in shown["text"], f"TeX left raw in the notes: {shown['text'][:300]}"
    assert typeset_in_deck == 0, "the deck typesets its notes (the speaker view copies them)"

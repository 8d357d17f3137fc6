"""Measure every slide of a static deck as a lecture hall sees it (1280×720): what overflows,
the smallest text, the code lines and prose words on screen, the heading, figure widths, the notes.

Used by tests/browser/test_slides.py; authors run it to see which slides to fix:

    .venv/bin/python -m tests.browser.deck_measure [NOTEBOOK ...]    # builds into build/slides/
"""

import sys
from pathlib import Path

TEXT_PX, CODE_PX, FIGURE_TEXT_PX = 24, 22, 18
MAX_CODE_LINES, MAX_WORDS, MIN_FIGURE_PX = 6, 70, 700


def figure_font_px() -> float:
    """The smallest text of a series figure in pixels of its stored PNG: the smallest font size
    in src/posattn/series.mplstyle at its dpi (plotting's cell values use the body size). A figure
    shown at scale s draws it at s × this on screen."""
    import matplotlib

    style = matplotlib.rc_params_from_file(STYLE, use_default_template=False)
    sizes = [style[key] for key in style if key.endswith("size") and "figsize" not in key]
    return min(float(size) for size in sizes) * float(style["savefig.dpi"]) / 72


STYLE = Path(__file__).resolve().parents[2] / "src" / "posattn" / "series.mplstyle"
FIGURE_FONT_NATIVE_PX = figure_font_px()

LEAF_SLIDES = """() => [...document.querySelectorAll('.reveal .slides > section')]
  .flatMap((top, h) => { const inner = [...top.querySelectorAll(':scope > section')];
    return inner.length ? inner.map((_, v) => `${h}/${v}`) : [`${h}`]; })"""

# The slide on screen, measured in the deck's own 1280×720 coordinates (offset sizes ignore the
# scale reveal.js applies to fit the window).
MEASURE = """() => {
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const shown = el => !el.closest('aside') && el.getClientRects().length > 0
      && getComputedStyle(el).visibility !== 'hidden';
  const words = el => { const copy = el.cloneNode(true);
      copy.querySelectorAll('.MathJax_Preview, .MathJax_CHTML, .MathJax, script, table')
          .forEach(m => m.replaceWith(' x '));
      return copy.textContent.split(/\\s+/).filter(w => /\\w/.test(w)).length; };
  let smallText = 99, smallCode = 99, where = '', whereCode = '';
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !shown(el) || el.closest('.MathJax_CHTML, .MathJax_Preview,'
        + ' script, style, .slide-number')) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (el.closest('pre, code')) { if (px < smallCode) { smallCode = px;
        whereCode = node.textContent.trim().slice(0, 30); } }
    else if (px < smallText) { smallText = px; where = node.textContent.trim().slice(0, 30); }
  }
  const code = [...slide.querySelectorAll('.jp-InputArea pre')].filter(shown)
      .reduce((n, pre) => n + pre.innerText.trim().split('\\n').length, 0);
  const prose = [...slide.querySelectorAll(
      '.jp-MarkdownCell .jp-RenderedMarkdown > p, .jp-MarkdownCell .jp-RenderedMarkdown > ul > li,'
      + ' .jp-MarkdownCell .jp-RenderedMarkdown > ol > li,'
      + ' .jp-MarkdownCell .jp-RenderedMarkdown > blockquote')].filter(shown)
      .reduce((n, el) => n + words(el), 0);
  const heading = [...slide.querySelectorAll('h1, h2, h3')].some(shown);
  const figures = [...slide.querySelectorAll('.jp-RenderedImage img, img.widget-image')]
      .filter(shown).map(img => [img.offsetWidth, img.naturalWidth]);
  const notes = [...slide.querySelectorAll('aside.notes')]
      .some(a => a.textContent.trim().length > 0);
  const first = (slide.innerText || '').trim().split('\\n')[0].slice(0, 50);
  return {height: slide.scrollHeight, width: slide.scrollWidth, box: [slide.clientWidth,
          slide.clientHeight], smallText, where, smallCode, whereCode, code, prose, heading,
          figures, notes, first};
}"""
MATH_DONE = """() => { if (!window.MathJax || !MathJax.Hub) return true;
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const outside = selector => [...slide.querySelectorAll(selector)]
      .filter(element => !element.closest('aside'));
  const shown = outside('.MathJax_CHTML');
  return MathJax.Hub.queue.pending === 0 && shown.every(math => math.offsetHeight > 2)
    && shown.length === outside('script[type^="math/tex"]').length; }"""
SHOW_FRAGMENTS = (".reveal .slides section .fragment "
                  "{ opacity: 1 !important; visibility: inherit !important; }")


def measure_deck(page, screenshots: Path | None = None) -> dict[str, dict]:
    """{"h/v": measurements} for every slide of the deck open in page (fragments shown)."""
    page.add_style_tag(content=SHOW_FRAGMENTS)
    slides = {}
    for slide in page.evaluate(LEAF_SLIDES):
        page.evaluate(f"() => {{ location.hash = '#/{slide}'; }}")
        page.wait_for_timeout(150)  # layout of the new slide
        page.wait_for_function(MATH_DONE, timeout=20_000)
        slides[slide] = page.evaluate(MEASURE)
        if screenshots is not None:
            screenshots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=screenshots / f"{slide.replace('/', '_')}.png")
    return slides


def problems(m: dict) -> list[str]:
    """What keeps one slide from reading in a hall; [] when it does."""
    found = []
    width, height = m["box"]
    if m["height"] > height or m["width"] > width:
        found.append(f"overflows ({m['width']}×{m['height']} > {width}×{height})")
    if m["smallText"] < TEXT_PX:
        found.append(f"text {m['smallText']:.0f} px ({m['where']!r})")
    if m["smallCode"] < CODE_PX:
        found.append(f"code {m['smallCode']:.0f} px ({m['whereCode']!r})")
    if m["code"] > MAX_CODE_LINES:
        found.append(f"{m['code']} lines of code")
    for shown, natural in m["figures"]:
        if shown < MIN_FIGURE_PX:
            found.append(f"a figure {shown} px wide")
        elif natural and shown / natural * FIGURE_FONT_NATIVE_PX < FIGURE_TEXT_PX:
            found.append(f"figure text {shown / natural * FIGURE_FONT_NATIVE_PX:.0f} px")
    return found


def report(name: str, slides: dict[str, dict]) -> str:
    lines = [f"{name}: {len(slides)} slides, {sum(m['notes'] for m in slides.values())} with "
             f"notes, {sum(m['heading'] for m in slides.values())} with a heading, "
             f"{sum(m['prose'] > MAX_WORDS for m in slides.values())} over {MAX_WORDS} words"]
    for slide, m in slides.items():
        flags = problems(m) + [f"{m['prose']} words"] * (m["prose"] > MAX_WORDS)
        flags += ["no heading"] * (not m["heading"])
        if flags:
            lines.append(f"  {slide:>5} {m['first']!r:.40}: " + "; ".join(flags))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    from tools.build_slides import ROOT, build

    from .conftest import CHROMIUM_ARGS, chromium_path

    notebooks = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    decks = build(notebooks, ROOT / "build" / "slides")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_path()),
                                             args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for deck in decks:
            page.goto(deck.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            stem = deck.name.removesuffix(".slides.html")
            print(report(stem, measure_deck(page, ROOT / "artifacts" / "screenshots" / "slides"
                                            / stem)), flush=True)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])

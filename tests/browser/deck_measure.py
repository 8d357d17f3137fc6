"""Measure every slide of a static deck as a lecture hall sees it (1280×720), in pixels ON
SCREEN: reveal.js scales the 1280×720 slide to fit the window (0.96 at a 1280×720 window), and
every size here is a CSS size times that scale (the slides' on-screen width over their layout
width; Reveal.getScale() where reveal.js is a global).

Per slide: what overflows; the smallest text by kind (prose and headings, tables and figure
captions, code and printed output, widget labels); the smallest body text (prose paragraphs and
list items); the lines of code shown, and the lines of printed monospace output shown (the
`.jp-OutputArea pre` blocks' rendered height over their line height, so a wrapped line counts as
the lines it takes on screen); the headings, their length in characters and whether the theme
upper-cases them (computed text-transform); whether the slide is a heading and nothing else;
each figure's width on screen (the picture, not its box: object-fit draws a tall one
narrower), and the smallest text inside it, estimated from src/posattn/series.mplstyle (its
smallest font size at its dpi, times the figure's on-screen width over its stored width: this
trusts that the stored figure was drawn with today's style, so re-run a notebook after a change
to the style); the presenter notes. The deck's title slide may be a heading and nothing else.

Used by tests/browser/test_slides.py; authors run it to see which slides to fix:

    .venv/bin/python -m tests.browser.deck_measure [NOTEBOOK ...]    # builds into build/slides/
    .venv/bin/python -m tests.browser.deck_measure --summary [NOTEBOOK ...]   # counts, all decks
"""

import sys
from pathlib import Path

# the screens a deck is measured on: a 16:9 projector, and a 4:3 one (where the slide is 1024×768:
# tools/publish/slides_template/series-size.js)
SCREENS = {"1280×720": {"width": 1280, "height": 720}, "1024×768": {"width": 1024, "height": 768}}
# True once reveal.js has laid the slide out for the window's size (it does on a resize)
LAID_OUT = """() => { if (!window.Reveal || !window.seriesSlideSize) return true;
  const want = seriesSlideSize(1280, 720), got = Reveal.getConfig();
  return got.width === want.width && got.height === want.height; }"""
# the targets, in pixels on screen
TEXT_PX, BODY_PX, FIGURE_TEXT_PX, MIN_FIGURE_PX = 24, 28, 22, 700
MAX_CODE_LINES, MAX_OUTPUT_LINES, MAX_WORDS, MAX_HEADING_CHARS = 6, 6, 70, 70
MIN_FIGURES = 2  # slides with a figure, per deck
KINDS = {"text": "text", "table": "table or caption", "code": "code or printed output",
         "widget": "widget label"}


def figure_font_px() -> float:
    """The smallest text of a series figure in pixels of its stored PNG: the smallest font size
    in src/posattn/series.mplstyle at its dpi (plotting's cell values use the body size). A figure
    shown at s times its stored width draws it at s × this on screen."""
    import matplotlib

    style = matplotlib.rc_params_from_file(STYLE, use_default_template=False)
    sizes = [style[key] for key in style if key.endswith("size") and "figsize" not in key]
    return min(float(size) for size in sizes) * float(style["savefig.dpi"]) / 72


STYLE = Path(__file__).resolve().parents[2] / "src" / "posattn" / "series.mplstyle"
FIGURE_FONT_NATIVE_PX = figure_font_px()

LEAF_SLIDES = """() => [...document.querySelectorAll('.reveal .slides > section')]
  .flatMap((top, h) => { const inner = [...top.querySelectorAll(':scope > section')];
    return inner.length ? inner.map((_, v) => `${h}/${v}`) : [`${h}`]; })"""
# True once reveal.js shows slide "h" or "h/v": it moves on the hashchange event, which a busy
# machine can deliver well after a fixed pause (issue 37), and then the old slide is measured.
PRESENT = """slide => { const [h, v] = slide.split('/').map(Number);
  const top = document.querySelectorAll('.reveal .slides > section')[h];
  if (!top || !top.classList.contains('present')) return false;
  const inner = top.querySelectorAll(':scope > section');
  return v === undefined ? inner.length === 0
    : !!inner[v] && inner[v].classList.contains('present');
}"""

# The slide on screen. Layout sizes (offset sizes, computed font sizes) are in the deck's own
# 1280×720 coordinates; times `scale` they are the pixels the screen shows.
MEASURE = """() => {
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const slides = document.querySelector('.reveal .slides');
  const scale = (window.Reveal && Reveal.getScale && Reveal.getScale())
      || slides.getBoundingClientRect().width / slides.offsetWidth;
  const onScreen = px => Math.round(px * scale * 100) / 100;  // to 0.01 px
  const shown = el => !el.closest('aside') && el.getClientRects().length > 0
      && getComputedStyle(el).visibility !== 'hidden';
  const kindOf = el => el.closest('pre, code') ? 'code'
      : el.closest('.widget-label, .widget-html-content, .jupyter-widgets, .widget-button')
        ? 'widget'
      : el.closest('table, figcaption, .celltag_figure-takeaway, .celltag_still-picture')
        ? 'table' : 'text';
  const small = {}, where = {};
  let other = false;  // anything shown besides headings
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !shown(el) || el.closest('script, style, .slide-number'))
      continue;
    if (!el.closest('h1, h2, h3, h4, h5, h6')) other = true;
    if (el.closest('.MathJax_CHTML, .MathJax_Preview')) continue;
    const px = onScreen(parseFloat(getComputedStyle(el).fontSize)), kind = kindOf(el);
    if (!(kind in small) || px < small[kind]) {
      small[kind] = px; where[kind] = node.textContent.trim().slice(0, 30); }
  }
  other = other || [...slide.querySelectorAll('img, svg, canvas, video, iframe, input, button,'
      + ' select, .MathJax_CHTML')].some(el => shown(el)
      && !el.closest('h1, h2, h3, h4, h5, h6'));
  const paragraphs = '.jp-MarkdownCell .jp-RenderedMarkdown > p,'
      + ' .jp-MarkdownCell .jp-RenderedMarkdown > ul > li,'
      + ' .jp-MarkdownCell .jp-RenderedMarkdown > ol > li';  // prose paragraphs and list items
  const body = [...slide.querySelectorAll(paragraphs)].filter(shown)
      .filter(el => !el.closest('.celltag_figure-takeaway, .celltag_still-picture'))
      .filter(el => el.textContent.trim());
  const bodyPx = body.length
      ? onScreen(Math.min(...body.map(el => parseFloat(getComputedStyle(el).fontSize))))
      : null;
  // lines as the screen shows them: a block's height over its line height (a wrapped line
  // counts as the lines it takes)
  const lines = selector => [...slide.querySelectorAll(selector)].filter(shown)
      .reduce((n, pre) => { const style = getComputedStyle(pre);
        const line = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
        const inner = pre.clientHeight - parseFloat(style.paddingTop)
            - parseFloat(style.paddingBottom);
        return n + Math.round(inner / line); }, 0);
  const code = lines('.jp-InputArea pre'), output = lines('.jp-OutputArea pre');
  // code and printouts that may break a word anywhere (JupyterLab's break-all: "sam/e")
  const midWord = [...slide.querySelectorAll('.jp-InputArea pre, .jp-OutputArea pre')]
      .filter(shown).filter(pre => getComputedStyle(pre).wordBreak === 'break-all').length;
  // how much of each control arrow shown (the ↓ of a slide with sub-slides) the slide number
  // covers, as a share of the arrow's box
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
      * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const number = document.querySelector('.reveal .slide-number');
  const arrows = [...document.querySelectorAll('.reveal .controls button.enabled')]
      .filter(el => el.getClientRects().length > 0).map(el => el.getBoundingClientRect());
  const covered = !number || !number.getClientRects().length ? 0 : Math.max(0, ...arrows
      .map(r => overlap(r, number.getBoundingClientRect()) / (r.width * r.height || 1)));
  const headings = [...slide.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter(shown)
      .map(h => { const copy = h.cloneNode(true);
        copy.querySelectorAll('.MathJax_Preview, .MathJax_CHTML, .MathJax, .jp-InternalAnchorLink,'
            + ' .anchor-link').forEach(m => m.remove());
        return [copy.textContent.replace(/\\s+/g, ' ').trim(),
                getComputedStyle(h).textTransform]; });
  // the deck's title slide (its first, with the notebook's h1) may be its title and subtitle
  const top = document.querySelector('.reveal .slides > section');
  const title = slide === (top.querySelector(':scope > section') || top)
      && [...slide.querySelectorAll('h1')].some(shown);
  // the picture's width inside its box: object-fit contain draws a tall picture narrower
  const drawn = img => getComputedStyle(img).objectFit !== 'contain' || !img.naturalHeight
      ? img.offsetWidth
      : Math.min(img.offsetWidth, img.offsetHeight * img.naturalWidth / img.naturalHeight);
  const figures = [...slide.querySelectorAll('.jp-RenderedImage img, img.widget-image')]
      .filter(shown).map(img => [drawn(img) * scale, img.naturalWidth]);
  const notes = [...slide.querySelectorAll('aside.notes')]
      .some(a => a.textContent.trim().length > 0);
  const first = (slide.innerText || '').trim().split('\\n')[0].slice(0, 50);
  // every word the room sees: prose, headings, tables, captions, code and printouts (a formula
  // counts as one word; notes and the slide number are not on the slide)
  const everything = (() => { let n = 0;
      const texts = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
      for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        const el = node.parentElement;
        if (!shown(el) || el.closest('script, style, .slide-number, .MathJax_Preview,'
            + ' .MathJax_CHTML, .MathJax')) continue;
        n += node.textContent.split(/\\s+/).filter(w => /\\w/.test(w)).length; }
      return n + [...slide.querySelectorAll('.MathJax_CHTML')].filter(shown).length; })();
  // formulas whose rendered box leaves the slide, or is cut by a box that scrolls or clips
  const frame = slide.getBoundingClientRect();
  const clipped = el => { for (let box = el.parentElement; box && box !== slide;
      box = box.parentElement) { const style = getComputedStyle(box);
    if (/(hidden|auto|scroll|clip)/.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1)
      return true; } return false; };
  const formulas = [...slide.querySelectorAll('.MathJax_CHTML')].filter(shown)
      .filter(el => { const math = el.querySelector('.mjx-math') || el;
        const r = math.getBoundingClientRect();
        return r.left < frame.left - 1 || r.right > frame.right + 1 || clipped(el); })
      .map(el => (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 30));
  return {height: slide.scrollHeight, width: slide.scrollWidth, box: [slide.clientWidth,
          slide.clientHeight], scale, small, where, bodyPx, code, output,
          heading: headings.length > 0, headings, headingOnly: headings.length > 0 && !other
            && !title,
          figures, notes, first, covered: Math.round(covered * 100) / 100, midWord,
          words: everything, formulas};
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


def on_screen(page, screen: str) -> None:
    """The deck open in page shown on SCREENS[screen], laid out for it."""
    page.set_viewport_size(SCREENS[screen])
    page.wait_for_function(LAID_OUT, timeout=30_000, polling=50)


def measure_deck(page, screenshots: Path | None = None) -> dict[str, dict]:
    """{"h/v": measurements} for every slide of the deck open in page (fragments shown)."""
    page.add_style_tag(content=SHOW_FRAGMENTS)
    page.wait_for_function(LAID_OUT, timeout=30_000, polling=50)
    slides = {}
    for slide in page.evaluate(LEAF_SLIDES):
        page.evaluate(f"() => {{ location.hash = '#/{slide}'; }}")
        page.wait_for_function(PRESENT, arg=slide, timeout=30_000, polling=50)
        page.wait_for_function(MATH_DONE, timeout=30_000)
        slides[slide] = page.evaluate(MEASURE)
        if screenshots is not None:
            screenshots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=screenshots / f"{slide.replace('/', '_')}.png")
    return slides


def figure_text_px(shown: float, natural: int) -> float:
    """The smallest text inside a figure, on screen: the stored figure's smallest text times the
    figure's on-screen width over its stored width."""
    return shown / natural * FIGURE_FONT_NATIVE_PX if natural else FIGURE_FONT_NATIVE_PX


def overflows(m: dict) -> bool:
    width, height = m["box"]
    return m["height"] > height or m["width"] > width


def long_heading(m: dict) -> int:
    """The length of the slide's longest heading in characters (0 without one)."""
    return max((len(text) for text, _ in m["headings"]), default=0)


def problems(m: dict) -> list[str]:
    """What keeps one slide from reading in a hall; [] when it does. (Body text and heading
    length are held on most slides of a deck, not every one: see deck_problems.)"""
    found = []
    width, height = m["box"]
    if overflows(m):
        found.append(f"overflows ({m['width']}×{m['height']} > {width}×{height})")
    for kind, px in m["small"].items():
        if px < TEXT_PX:
            found.append(f"{KINDS[kind]} {px:.1f} px ({m['where'][kind]!r})")
    if m["code"] > MAX_CODE_LINES:
        found.append(f"{m['code']} lines of code")
    if m["output"] > MAX_OUTPUT_LINES:
        found.append(f"{m['output']} lines of printed output")
    if m["formulas"]:
        found.append(f"{len(m['formulas'])} formula boxes cut or outside the slide "
                     f"({m['formulas'][0]!r})")
    if m.get("midWord"):
        found.append(f"{m['midWord']} code or printout blocks that break words anywhere")
    if m.get("covered"):
        found.append(f"the slide number covers {m['covered']:.0%} of a control arrow")
    upper = [text for text, transform in m["headings"] if transform != "none"]
    if upper:
        found.append(f"heading in capitals ({upper[0][:30]!r})")
    if m["headingOnly"]:
        found.append("a heading and nothing else")
    for shown, natural in m["figures"]:
        if shown < MIN_FIGURE_PX:
            found.append(f"a figure {shown:.0f} px wide")
        if figure_text_px(shown, natural) < FIGURE_TEXT_PX:
            found.append(f"figure text {figure_text_px(shown, natural):.1f} px")
    return found


def deck_problems(slides: dict[str, dict]) -> list[str]:
    """What keeps a deck from reading in a hall, over its slides; [] when it does."""
    found, n = [], len(slides)
    small = [s for s, m in slides.items() if m["bodyPx"] is not None and m["bodyPx"] < BODY_PX]
    if len(small) > 0.1 * n:
        found.append(f"{len(small)} of {n} slides have body text under {BODY_PX} px: {small}")
    long = [s for s, m in slides.items() if long_heading(m) > MAX_HEADING_CHARS]
    if len(long) > 0.1 * n:
        found.append(f"{len(long)} of {n} slides have a heading over {MAX_HEADING_CHARS} "
                     f"characters: {long}")
    wordy = [s for s, m in slides.items() if m["words"] > MAX_WORDS]
    if len(wordy) > 0.1 * n:
        found.append(f"{len(wordy)} of {n} slides have over {MAX_WORDS} words: {wordy}")
    bare = [s for s, m in slides.items() if not m["heading"]]
    if len(bare) > 0.2 * n:
        found.append(f"{len(bare)} of {n} slides have no heading: {bare}")
    pictured = sum(len(m["figures"]) > 0 for m in slides.values())
    if pictured < MIN_FIGURES:
        found.append(f"figures on {pictured} slides (at least {MIN_FIGURES} per deck)")
    noted = sum(m["notes"] for m in slides.values())
    if noted < n / 4:
        found.append(f"presenter notes on {noted} of {n} slides (at least a quarter)")
    return found


def report(name: str, slides: dict[str, dict]) -> str:
    lines = [f"{name}: {len(slides)} slides, {sum(m['notes'] for m in slides.values())} with "
             f"notes, {sum(m['heading'] for m in slides.values())} with a heading, "
             f"{sum(m['words'] > MAX_WORDS for m in slides.values())} over {MAX_WORDS} words, "
             f"{sum(len(m['figures']) > 0 for m in slides.values())} with a figure"]
    for slide, m in slides.items():
        flags = problems(m) + [f"{m['words']} words"] * (m["words"] > MAX_WORDS)
        flags += ["no heading"] * (not m["heading"])
        if m["bodyPx"] is not None and m["bodyPx"] < BODY_PX:
            flags.append(f"body text {m['bodyPx']:.1f} px")
        if long_heading(m) > MAX_HEADING_CHARS:
            flags.append(f"heading of {long_heading(m)} characters")
        if flags:
            lines.append(f"  {slide:>5} {m['first']!r:.40}: " + "; ".join(flags))
    lines += [f"  deck: {found}" for found in deck_problems(slides)]
    return "\n".join(lines)


def summary(decks: dict[str, dict[str, dict]]) -> str:
    """The counts over all decks that the targets are about (issue 31's before and after)."""
    every = [(f"{stem[:2]} {slide}", m) for stem, slides in decks.items()
             for slide, m in slides.items()]

    def where(test) -> list[str]:
        return [name for name, m in every if test(m)]

    def smallest(kind: str) -> str:
        sizes = [m["small"][kind] for _, m in every if kind in m["small"]]
        return f"{min(sizes):.1f} px" if sizes else "none"

    under = {kind: where(lambda m, k=kind: m["small"].get(k, 99) < TEXT_PX) for kind in KINDS}
    figures = [(name, shown, natural) for name, m in every for shown, natural in m["figures"]]
    bodied = where(lambda m: m["bodyPx"] is not None)
    tiny = where(lambda m: min(m["small"].values(), default=99) < TEXT_PX)
    lines = [
        f"{len(decks)} decks, {len(every)} slides (sizes on screen, reveal.js scale "
        f"{min(m['scale'] for _, m in every):.3f})",
        f"slides with text under {TEXT_PX} px: {len(tiny)}"
        + "".join(f"; {KINDS[k]} {len(v)} (smallest {smallest(k)})" for k, v in under.items()),
        f"slides with body text at {BODY_PX} px or more: "
        f"{len(where(lambda m: m['bodyPx'] is not None and m['bodyPx'] >= BODY_PX))} of "
        f"{len(bodied)} with body text (smallest "
        f"{min((m['bodyPx'] for _, m in every if m['bodyPx'] is not None), default=0):.1f} px)",
        f"headings over {MAX_HEADING_CHARS} characters: "
        f"{len(where(lambda m: long_heading(m) > MAX_HEADING_CHARS))}; headings in capitals: "
        f"{len(where(lambda m: any(t != 'none' for _, t in m['headings'])))}",
        f"slides with printed output: {len(where(lambda m: m['output'] > 0))}; 5 lines or "
        f"more: {len(where(lambda m: m['output'] >= 5))}; over {MAX_OUTPUT_LINES}: "
        f"{where(lambda m: m['output'] > MAX_OUTPUT_LINES)}",
        f"slides with over {MAX_CODE_LINES} lines of code: "
        f"{where(lambda m: m['code'] > MAX_CODE_LINES)}",
        f"slides that are a heading and nothing else: {where(lambda m: m['headingOnly'])}",
        f"slides that overflow: {where(overflows)}",
        f"slides with formulas cut or outside the slide: {where(lambda m: m['formulas'])}",
        f"slides over {MAX_WORDS} words, counting all that shows: "
        f"{len(where(lambda m: m['words'] > MAX_WORDS))} of {len(every)} "
        f"({where(lambda m: m['words'] > MAX_WORDS)})",
        "slides with a figure, per deck: " + ", ".join(
            f"{stem[:2]} {sum(len(m['figures']) > 0 for m in slides.values())}"
            for stem, slides in decks.items()),
        f"figures: {len(figures)} on {len(where(lambda m: m['figures']))} slides; narrowest "
        f"{min((s for _, s, _ in figures), default=0):.0f} px; smallest text inside "
        f"{min((figure_text_px(s, n) for _, s, n in figures), default=0):.1f} px",
    ]
    narrow = [f"{name} ({s:.0f} px)" for name, s, _ in figures if s < MIN_FIGURE_PX]
    faint = [f"{name} ({figure_text_px(s, n):.1f} px)" for name, s, n in figures
             if figure_text_px(s, n) < FIGURE_TEXT_PX]
    lines += [f"  figures under {MIN_FIGURE_PX} px wide: {narrow}",
              f"  figures with text under {FIGURE_TEXT_PX} px: {faint}"]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    from tools.publish.build_slides import ROOT, build, deck_notebooks
    from tools.run.lab_driver import launch_chromium

    counts = "--summary" in argv
    notebooks = [Path(a) for a in argv if a != "--summary"] or deck_notebooks()
    decks = build(notebooks, ROOT / "build" / "slides")
    measured = {screen: {} for screen in SCREENS}
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport=SCREENS["1280×720"])
        for deck in decks:
            page.goto(deck.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            stem = deck.name.removesuffix(".slides.html")
            for screen in SCREENS:
                on_screen(page, screen)
                shots = ROOT / "artifacts" / "screenshots" / "slides" / stem
                measured[screen][stem] = measure_deck(page, shots if screen == "1280×720"
                                                      else None)
                print(f"at {screen}: " + report(stem, measured[screen][stem]), flush=True)
            on_screen(page, "1280×720")
        browser.close()
    if counts:
        for screen in SCREENS:
            print(f"at {screen}:\n" + summary(measured[screen]))


if __name__ == "__main__":
    main(sys.argv[1:])

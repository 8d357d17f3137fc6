"""Handouts: `make handouts` -> build/handouts/NN_name.pdf, one page per slide.

Each deck is built as `make slides` builds it (build/slides/), then printed from reveal.js's print
view (`?print-pdf`: every slide on its own page, fragments shown, the slide number at its foot)
by headless Chromium (through Playwright, once the print view is laid out and typeset), from
disk, with no network. The pages have the slide's
16:9 shape. Chromium is $POSATTN_CHROMIUM, else /usr/bin/chromium.

    python -m tools.publish.handouts [NOTEBOOK ...]     # default: every deck (the labs too)
"""

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.publish.build_slides import ROOT, AssetsUnavailable, build, deck_notebooks
from tools.publish.deck import NotebookError
from tools.run.lab_driver import CHROMIUM_ARGS, chromium

HANDOUTS = ROOT / "build" / "handouts"
# the print view is printed once reveal.js has laid every slide out on its page (its "pdf-ready"
# event) and MathJax has typeset them: waited for, not timed, so a busy machine prints it whole
READY = ("() => window.__pdfReady === true"
         " && (!window.MathJax || !MathJax.Hub || MathJax.Hub.queue.pending === 0)")
LISTEN = "document.addEventListener('pdf-ready', () => { window.__pdfReady = true; });"
WAIT_MS = 120_000


def print_deck(deck: Path, pdf: Path, browser: Path | None = None) -> Path:
    """deck's print view as pdf, by headless Chromium; a one-line RuntimeError if it fails."""
    pdf.parent.mkdir(parents=True, exist_ok=True)
    pdf.unlink(missing_ok=True)
    # in a thread of its own: Playwright's sync API refuses a thread that runs an asyncio loop
    # (a test's browser fixture does)
    with ThreadPoolExecutor(1) as pool:
        started, why = pool.submit(_print, deck, pdf, browser or chromium()).result()
    if not started:
        raise RuntimeError(f"Chromium must start to print {deck.name}; got {why}. Install it "
                           "(`sudo apt-get install chromium`) or set POSATTN_CHROMIUM.")
    if why or not pdf.is_file():
        raise RuntimeError(f"Chromium must print {deck.name} once its print view is laid out; got "
                           f"{why or 'no PDF'}. Build the deck again (`make slides`), and on a "
                           "busy machine try again when it is quieter.")
    return pdf


def _print(deck: Path, pdf: Path, browser: Path) -> tuple[bool, str]:
    """Print deck's print view to pdf: whether Chromium started, and "" when done, else what went
    wrong, in one line."""
    from playwright.sync_api import Error, sync_playwright

    started = False
    try:
        with sync_playwright() as playwright:
            chrome = playwright.chromium.launch(executable_path=str(browser), args=CHROMIUM_ARGS)
            started = True
            try:
                page = chrome.new_page(viewport={"width": 1280, "height": 720})
                page.add_init_script(LISTEN)
                page.goto(f"{deck.resolve().as_uri()}?print-pdf")
                page.wait_for_function(READY, timeout=WAIT_MS, polling=100)
                page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
            finally:
                chrome.close()
    except Error as error:
        return started, " ".join(str(error).split())[:200]
    return started, ""


def handouts(notebooks: list[Path], out: Path = HANDOUTS, slides: Path | None = None) -> list[Path]:
    """The decks of notebooks (built into slides, default build/slides/) printed into out."""
    decks = build(notebooks, slides or ROOT / "build" / "slides")
    return [print_deck(deck, out / deck.name.replace(".slides.html", ".pdf")) for deck in decks]


def main(argv: list[str]) -> None:
    notebooks = [Path(a) for a in argv] or deck_notebooks()
    try:
        pdfs = handouts(notebooks)
    except (AssetsUnavailable, NotebookError, RuntimeError) as error:
        sys.exit(str(error))
    print("".join(f"  {pdf.relative_to(ROOT)}\n" for pdf in pdfs), end="")
    print(f"{len(pdfs)} handouts, one page per slide.")


if __name__ == "__main__":
    main(sys.argv[1:])

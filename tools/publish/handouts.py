"""Handouts: `make handouts` -> build/handouts/NN_name.pdf, one page per slide.

Each deck is built as `make slides` builds it (build/slides/), then printed from reveal.js's print
view (`?print-pdf`: every slide on its own page, fragments shown, the slide number at its foot)
by headless Chromium's `--print-to-pdf`, from disk, with no network. The pages have the slide's
16:9 shape. Chromium is $POSATTN_CHROMIUM, else /usr/bin/chromium.

    python -m tools.publish.handouts [NOTEBOOK ...]     # default: every deck (the labs too)
"""

import subprocess
import sys
from pathlib import Path

from tools.publish.build_slides import ROOT, AssetsUnavailable, build, deck_notebooks
from tools.publish.deck import NotebookError
from tools.run.lab_driver import CHROMIUM_ARGS, chromium

HANDOUTS = ROOT / "build" / "handouts"
# time the page gets, once loaded, to lay out and typeset every slide (Chromium's virtual time:
# what runs in it is not slowed by a busy machine)
SETTLE_MS = 30_000


def print_deck(deck: Path, pdf: Path, browser: Path | None = None) -> Path:
    """deck's print view as pdf, by headless Chromium; a one-line RuntimeError if it fails."""
    pdf.parent.mkdir(parents=True, exist_ok=True)
    pdf.unlink(missing_ok=True)
    command = [str(browser or chromium()), *CHROMIUM_ARGS, "--no-pdf-header-footer",
               f"--virtual-time-budget={SETTLE_MS}", f"--print-to-pdf={pdf}",
               f"{deck.resolve().as_uri()}?print-pdf"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"Chromium must print {deck.name}; got {error}. Install it "
                           "(`sudo apt-get install chromium`) or set POSATTN_CHROMIUM.") from None
    if done.returncode or not pdf.is_file():
        why = " ".join(done.stderr.split())[-200:]
        raise RuntimeError(f"Chromium must print {deck.name}; it exited {done.returncode}: {why}")
    return pdf


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

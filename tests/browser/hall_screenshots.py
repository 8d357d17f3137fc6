"""The screenshots a reviewer looks at first, committed under artifacts/hall/: nine slides as a
16:9 projector (1280×720) and a 4:3 one (1024×768) show them, and three book pages, one on a phone
(390×844).

They are made from the committed notebooks (decks into build/slides/, the book into build/book/)
by headless Chromium, and are re-made by hand after a change to how the series looks:

    .venv/bin/python -m tests.browser.hall_screenshots

The test run writes its own, every slide and page, into artifacts/screenshots/ (not committed).
"""

import shutil
import sys
import tempfile
from pathlib import Path

from tools.publish.build_slides import ROOT

OUT = ROOT / "artifacts" / "hall"
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
# (deck, slide as reveal.js numbers it h/v, what it shows)
SLIDES = [
    ("01_invariance_vs_equivariance", "3/2", "a figure: P moves whole rows and changes none"),
    ("03_softmax_and_projections", "3/1", "a result drawn, not printed: a row's top weight"),
    ("04_where_could_position_enter", "2/0", "the proof, laid out to fit"),
    ("04_where_could_position_enter", "2/1", "a headline result as a styled table"),
    ("04_where_could_position_enter", "4/0", "the summary chain"),
    ("05_dog_bites_man_explorer", "1", "the explorer as a still picture of a shuffle"),
    ("05_dog_bites_man_explorer", "4", "every scheme's gap measured, the blind one marked"),
    ("08_putting_position_back", "6/1", "ALiBi's bias matrix, typeset"),
    ("09_who_bites_whom", "4/0", "240 trained models, the number that matters marked"),
]
# (page, viewport, name)
PAGES = [
    ("05_dog_bites_man_explorer", DESK, "desk"),
    ("09_who_bites_whom", DESK, "desk"),
    ("09_who_bites_whom", PHONE, "phone"),
]


def main(argv: list[str]) -> None:
    from tools.publish import build_book
    from tools.publish.build_slides import build

    notebooks = ROOT / "notebooks"
    decks = {deck for deck, _, _ in SLIDES}
    build([notebooks / f"{deck}.ipynb" for deck in sorted(decks)], ROOT / "build" / "slides")
    book = ROOT / "build" / "book"
    build_book.build(book)
    with tempfile.TemporaryDirectory() as made:  # the committed ones stay until all are made
        shoot(Path(made), book)
        OUT.mkdir(parents=True, exist_ok=True)
        for old in OUT.glob("*.png"):
            old.unlink()
        for new in sorted(Path(made).glob("*.png")):
            shutil.move(new, OUT / new.name)
    print(f"into {OUT.relative_to(ROOT)}/")


def shoot(out: Path, book: Path) -> None:
    """Every slide of SLIDES at each screen size, and every page of PAGES, into out."""
    from playwright.sync_api import sync_playwright

    from tools.run.lab_driver import launch_chromium

    from .deck_measure import LAID_OUT, MATH_DONE, SCREENS, SHOW_FRAGMENTS

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for (deck, slide, what), screen in [(s, screen) for s in SLIDES for screen in SCREENS]:
            page = browser.new_page(viewport=SCREENS[screen])
            page.goto(f"{(ROOT / 'build' / 'slides' / f'{deck}.slides.html').as_uri()}#/{slide}")
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            page.wait_for_function(LAID_OUT, timeout=30_000)
            page.add_style_tag(content=SHOW_FRAGMENTS)
            page.wait_for_function(MATH_DONE, timeout=30_000)
            page.wait_for_timeout(300)
            width = SCREENS[screen]["width"]
            path = out / f"slide-{deck[:2]}-{slide.replace('/', '_')}-{width}.png"
            page.screenshot(path=path)
            print(f"  {path.name}: {what} ({screen})")
            page.close()
        for name, viewport, where in PAGES:
            page = browser.new_page(viewport=viewport)
            page.goto((book / f"{name}.html").as_uri())
            page.wait_for_load_state("load")
            page.wait_for_timeout(1500)  # MathJax
            if where == "phone":  # the first figure, as a thumb scrolls to it
                page.locator("main img").first.scroll_into_view_if_needed()
                page.evaluate("() => window.scrollBy(0, -200)")
            path = out / f"book-{name[:2]}-{where}.png"
            page.screenshot(path=path)
            print(f"  {path.name}")
            page.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])

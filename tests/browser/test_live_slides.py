"""Live slides with Voilà (`make present`, tools/serve/servers.py): the explorer as a deck on a
kernel.

The server is started as `make present` starts it (tools.serve.servers.present), with private
Jupyter folders, and stopped whatever happens. In headless Chromium the deck must be ready, have one
top-level slide per "slide" cell, show the slide number ("1/16": this one of all, as the static
decks do) legibly (axe-core: no serious or critical WCAG 2.1 AA violation outside the slides, the
number's contrast among them), show the explorer on its slide, answer a click on Shuffle with a new
status line (the kernel is live), and load nothing from a network: no failed request, no request to
another address, and log no error while it is presented to its last slide (issue 43: MathJax 2's
Hub, which Voilà's MathJax 3 lacks, on every slide change). In its speaker view (S), each formula of
the notes shows once.
"""

import importlib.util
import re
import time

import pytest

from tests.launchers import kernels
from tests.test_deck_notes import slides as slides_of_deck
from tools.publish.build_slides import AssetsUnavailable
from tools.publish.deck import deck_of
from tools.run.lab_driver import EXPLORER, private_jupyter_env
from tools.serve import servers

from .jlab import (
    LOCAL_SERVER,
    browser_required,
    expected_slides,
    order_value,
    pi_text,
    screenshot_path,
)
from .test_accessibility import severe
from .test_explorer import CUT
from .test_speaker_view import slide_with_math

pytestmark = pytest.mark.browser
PRESENT = "section.present:not(.stack)"  # the slide on screen, not the column of sub-slides
# How far the slide on screen passes its box, and which explorer parts (controls, both heatmaps,
# the status line) lie outside the 1280×720 window.
FITS = """selector => { const slide = document.querySelector(selector);
  const parts = [...slide.querySelectorAll('.pp-shuffle, .pp-status, .widget-image, .widget-text')];
  return {overflow: [Math.max(0, slide.scrollWidth - slide.clientWidth),
                     Math.max(0, slide.scrollHeight - slide.clientHeight)],
          outside: parts.map(el => [el.className, el.getBoundingClientRect()])
            .filter(([_, r]) => r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5
                    || r.right > innerWidth + 0.5).map(([name, r]) => `${name}: ${r.bottom}`)}; }"""
STATUS_CHANGED = (
    f"before => document.querySelector('{PRESENT} .pp-status').innerText !== before"
)


@pytest.fixture(scope="module")
def deck(browser, tmp_path_factory):
    """Voilà serving the explorer notebook as slides (servers.present), for this module's tests:
    yields the deck's URL."""
    if importlib.util.find_spec("voila") is None:
        (pytest.fail if browser_required() else pytest.skip)("Voilà is not installed (make setup)")
    if not EXPLORER.exists():
        pytest.skip(f"{EXPLORER.name} is not written yet")
    home = tmp_path_factory.mktemp("voila-home")
    try:
        server = servers.present(EXPLORER, env=private_jupyter_env(home), log=home / "voila.log")
    except AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    SERVED["pid"] = server.process.pid
    try:
        yield f"{server.url}/?token={server.token}"
    finally:
        servers.stop(server.process)


SERVED: dict[str, int] = {}  # the deck's server process, for the kernel count


def kernels_settle(wanted, timeout: float = 90) -> list[int]:
    """The deck's kernels once wanted(their number) holds (polled; a busy machine gets room)."""
    deadline, found = time.monotonic() + timeout, kernels(SERVED["pid"])
    while not wanted(len(found)) and time.monotonic() < deadline:
        time.sleep(0.5)
        found = kernels(SERVED["pid"])
    return found


def test_explorer_is_live_in_the_voila_deck(page, deck):
    requests, failed, errors = [], [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error"
            and "Failed to load resource" not in message.text and errors.append(message.text))
    page.on("request", lambda request: requests.append(request.url))
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    page.on(
        "response",
        lambda response: (
            response.status >= 400 and failed.append(f"{response.url}: {response.status}")
        ),
    )
    page.on(
        "console",
        lambda msg: (
            "Failed to load resource" in msg.text
            and failed.append(f"{msg.location['url']}: {msg.text}")
        ),
    )
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(deck, timeout=120_000)
    page.locator(".reveal.ready").wait_for(state="attached", timeout=120_000)
    slides = expected_slides(deck_of(EXPLORER))
    assert page.locator(".reveal .slides > section").count() == slides
    number = page.locator(".reveal .slide-number")
    number.wait_for(state="visible", timeout=10_000)
    shown, total = "".join(number.inner_text().split()), len(slides_of_deck(deck_of(EXPLORER)))
    assert re.fullmatch(rf"1/{total}", shown), f"slide number {shown!r}, not 1/{total}"
    around_the_slides = severe(page, {"exclude": [[".reveal .slides"]]})
    assert around_the_slides == [], f"outside the slides: {around_the_slides}"
    page.locator(".pp-shuffle").first.wait_for(
        state="attached", timeout=60_000
    )  # the widgets are drawn
    for _ in range(page.locator(".reveal section").count() * 4):  # N, as a teacher moves on
        if page.locator(f"{PRESENT} .pp-shuffle").count():  # (through sub-slides, fragments)
            break
        page.keyboard.press("n")
    shuffle = page.locator(f"{PRESENT} .pp-shuffle")
    shuffle.wait_for(state="visible", timeout=10_000)
    before = page.locator(f"{PRESENT} .pp-status").inner_text()
    shuffle.click()
    page.wait_for_function(
        STATUS_CHANGED, arg=before, timeout=30_000
    )  # the kernel answered the click
    shown = pi_text(order_value(page.locator(PRESENT)))  # the order the control now shows
    assert shown != "(0, 1, 2)" and shown in page.locator(f"{PRESENT} .pp-status").inner_text()
    page.wait_for_function(  # the new picture drawn (a wait on the page, not a pause)
        "sel => [...document.querySelectorAll(sel + ' img')].every(i => i.complete)",
        arg=PRESENT, timeout=30_000)
    page.screenshot(path=screenshot_path("06_live_slides_after_shuffle.png"))
    cut = page.locator(PRESENT).evaluate(CUT)
    assert cut == [], f"the un-shuffle checkbox's label is cut: {cut}"
    fit = page.evaluate(FITS, PRESENT)
    assert fit["overflow"] == [0, 0], f"the explorer slide scrolls: {fit}"
    assert fit["outside"] == [], f"parts of the explorer off the 1280×720 slide: {fit}"
    for _ in range(page.locator(".reveal section").count() * 4):  # on to the last slide
        if page.evaluate("() => document.querySelector('.reveal .slides > section:last-child')"
                         ".classList.contains('present')"):
            break
        page.keyboard.press("n")
    assert errors == [], f"errors in the page or its console while presenting: {errors}"
    assert failed == [], "every request of the deck must succeed"
    assert [url for url in requests if not url.startswith(LOCAL_SERVER)] == [], (
        "the deck must load nothing from a network"
    )


# Per formula in the speaker view's notes: whether MathJax 3's drawing shows (its glyphs are CSS
# content, which needs MathJax's styles) and whether its MathML copy shows (a box over 2 px: with
# the styles it is clipped away). One of the two, never both, never neither.
FORMULAS_SHOWN = """() => {
  const notes = document.querySelector('.speaker-controls-notes .value');
  const boxed = el => { const r = el.getBoundingClientRect(); return r.width > 2 && r.height > 2; };
  const drawn = math => [...math.querySelectorAll('*')].some(el => boxed(el) && (
      !['none', 'normal', ''].includes(getComputedStyle(el, '::before').content)
      || [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())));
  return {text: notes.innerText, formulas: [...notes.querySelectorAll('mjx-container')].map(c => {
    const math = c.querySelector('mjx-math'), mml = c.querySelector('mjx-assistive-mml');
    return {tex: c.getAttribute('aria-label') || c.textContent, drawn: !!math && drawn(math),
            mathml: !!mml && boxed(mml)}; })}; }"""


def test_math_in_the_live_decks_notes_shows_once_in_the_speaker_view(page, deck):
    where, formulas = slide_with_math(EXPLORER, "the explorer's deck")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{deck}#/{where}", timeout=120_000)
    page.locator(".reveal.ready").wait_for(state="attached", timeout=120_000)
    page.locator("aside.notes mjx-container").first.wait_for(state="attached", timeout=60_000)
    with page.context.expect_page(timeout=30_000) as opened:
        page.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_selector(".speaker-controls-notes:not(.hidden) .value mjx-container",
                              state="attached", timeout=30_000)
    shown = speaker.evaluate(FORMULAS_SHOWN)
    speaker.screenshot(path=screenshot_path("06_live_speaker_view.png"))
    assert len(shown["formulas"]) == formulas, shown
    twice_or_never = [f for f in shown["formulas"] if f["drawn"] == f["mathml"]]
    assert twice_or_never == [], f"formulas shown twice or not at all: {twice_or_never}"
    assert "$" not in shown["text"], f"TeX left raw: {shown['text'][:300]}"


def test_a_deck_opened_reloaded_three_times_and_closed_leaves_no_kernel(browser, deck):
    """Issue 39: in Chromium, opening the deck, reloading it three times and closing it left 4
    kernels (about 115 MiB each). A reloaded page's kernel goes, and a closed page's."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        for load in range(4):  # the first load, then three reloads
            page.goto(deck, timeout=120_000) if load == 0 else page.reload(timeout=120_000)
            page.locator(".pp-shuffle").first.wait_for(state="attached", timeout=120_000)
        held = kernels_settle(lambda n: n <= 1)
        assert len(held) == 1, f"{len(held)} kernels for one open page after three reloads"
    finally:
        context.close()
    left = kernels_settle(lambda n: n == 0)
    assert left == [], f"{len(left)} kernels stay after the deck's page was closed"

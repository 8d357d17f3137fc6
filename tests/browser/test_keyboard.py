"""The "dog bites man" explorer from the keyboard alone, in JupyterLab: Tab reaches every control
in display order, Enter presses Shuffle, and a sentence confirmed with Enter redraws the explorer.
"""

import pytest

from .jlab import expect, figure_changed, order_value, pi_text, screenshot_path

pytestmark = pytest.mark.browser
# in display order
CONTROLS = ["pp-sentence", "pp-scheme", "pp-order", "pp-shuffle", "pp-reset", "pp-unshuffle"]
FOCUSED = ("names => { const e = document.activeElement; "
           "return names.find(n => e && e.closest('.' + n)) ?? null; }")


def focused_control(page) -> str | None:
    """The pp-… control that holds the keyboard focus, or None."""
    return page.evaluate(FOCUSED, CONTROLS)


def tab_through(page, box, limit: int = 20) -> list[str | None]:
    """Focus the sentence box, press Tab until focus leaves the explorer; the controls visited."""
    box.locator(".pp-sentence input").focus()
    visited = [focused_control(page)]
    for _ in range(limit):
        page.keyboard.press("Tab")
        visited.append(focused_control(page))
        if visited[-1] is None:
            break
    return visited


def test_tab_reaches_every_control_in_display_order(explorer):
    page, box = explorer
    visited = tab_through(page, box)
    reached = [name for i, name in enumerate(visited)
               if name and (i == 0 or visited[i - 1] != name)]
    assert reached == CONTROLS, f"Tab visited {visited}; expected each of {CONTROLS} in that order"


def test_enter_on_shuffle_and_a_typed_sentence(explorer):
    page, box = explorer
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    box.locator(".pp-sentence input").focus()
    for _ in range(len(CONTROLS)):  # Tab to Shuffle
        page.keyboard.press("Tab")
        if focused_control(page) == "pp-shuffle":
            break
    assert focused_control(page) == "pp-shuffle", "Tab from the sentence box does not reach Shuffle"
    before_png, before_status = figure.screenshot(), status.inner_text()
    before_order = order_value(box)
    page.keyboard.press("Enter")
    expect(status).not_to_have_text(before_status)
    assert order_value(box) != before_order
    assert pi_text(order_value(box)) in status.inner_text()
    assert figure_changed(page, figure, before_png), "Enter on Shuffle did not change the picture"

    before_png, before_status = figure.screenshot(), status.inner_text()
    sentence = box.locator(".pp-sentence input")
    sentence.focus()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("the cat chased mice")
    page.keyboard.press("Enter")
    expect(status).to_contain_text("π = (0, 1, 2, 3) is the original order ('the cat chased mice')")
    assert figure_changed(page, figure, before_png), "a typed sentence did not redraw the picture"
    assert focused_control(page) == "pp-sentence", "Enter in the sentence box moved the focus away"
    box.screenshot(path=screenshot_path("explorer_keyboard_sentence.png"))

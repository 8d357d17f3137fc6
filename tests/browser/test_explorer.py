"""The "dog bites man" explorer (its notebook, found by name) used with mouse and keyboard.

Selectors are the CSS classes posattn.explorer gives its controls: pp-sentence, pp-scheme,
pp-order, pp-shuffle, pp-status, pp-figure (the Image widget holding the A | A' figure).
"""

import pytest

from .jlab import expect, figure_changed, order_value, pi_text, screenshot_path

pytestmark = pytest.mark.browser


def test_shuffle_changes_the_picture_and_the_status_names_the_order(explorer):
    page, box = explorer
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    expect(figure).to_be_visible()
    before_png, before_status = figure.screenshot(), status.inner_text()
    before_order = order_value(box)
    box.screenshot(path=screenshot_path("explorer_before_shuffle.png"))

    box.locator("button.pp-shuffle").click()
    expect(status).not_to_have_text(before_status)
    new_order = order_value(box)
    assert new_order != before_order
    assert pi_text(new_order) in status.inner_text()
    assert figure_changed(page, figure, before_png), "Shuffle did not change the A | A' picture"
    box.screenshot(path=screenshot_path("explorer_after_shuffle.png"))


def test_a_bad_sentence_shows_a_message_and_keeps_the_picture(explorer):
    page, box = explorer
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    before_png, before_status = figure.screenshot(), status.inner_text()
    sentence = box.locator(".pp-sentence input")
    sentence.fill("dog @ man")
    sentence.press("Enter")
    expect(status).not_to_have_text(before_status)
    message = status.inner_text()
    assert "@" in message and "must" in message, message
    assert figure.screenshot() == before_png, "a refused sentence must leave the last picture"
    box.screenshot(path=screenshot_path("explorer_bad_sentence.png"))


def test_switching_the_scheme_redraws_and_is_named(explorer):
    page, box = explorer
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    scheme = box.locator(".pp-scheme select")
    shown = status.inner_text()
    box.locator("button.pp-shuffle").click()  # a reordering, so positions make a difference
    expect(status).not_to_have_text(shown)  # the kernel's answer, not a fixed pause (issue 37)
    expect(status).to_contain_text("π =")
    figure_changed(page, figure, b"")  # the new picture is drawn
    before_png, before_status = figure.screenshot(), status.inner_text()
    values = scheme.locator("option").evaluate_all("options => options.map(o => o.value)")
    other = next(v for v in values if v not in (scheme.input_value(), "none"))
    scheme.select_option(other)
    expect(status).not_to_have_text(before_status)
    assert f"'{other}'" in status.inner_text()
    assert figure_changed(page, figure, before_png), f"switching to {other!r} did not redraw"
    box.screenshot(path=screenshot_path(f"explorer_scheme_{other}.png"))


# The words of the un-shuffle checkbox that a box of it clips (its right edge past the box of an
# element that hides its overflow: an ellipsis, or cut)
CUT = """root => { const widget = root.querySelector('.pp-unshuffle');
  if (!widget) return ['no un-shuffle checkbox'];
  const cut = [], walker = document.createTreeWalker(widget, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange(); range.selectNodeContents(node);
    const right = range.getBoundingClientRect().right;
    for (let el = node.parentElement; el && widget.parentElement !== el; el = el.parentElement)
      if (getComputedStyle(el).overflowX !== 'visible'
          && right > el.getBoundingClientRect().right + 1) cut.push(node.textContent.trim());
  }
  return cut; }"""


def test_the_unshuffle_label_shows_whole(explorer):
    """Issue 43 §3: a fixed-width checkbox cut its label ("un-shuffle view: show Pᵀ…")."""
    page, box = explorer
    label = box.locator(".pp-unshuffle")
    expect(label).to_be_visible()
    assert "Pᵀ A' P" in label.inner_text()
    assert box.evaluate(CUT) == []

"""The "dog bites man" explorer (notebook 06) used with a mouse and keyboard in JupyterLab.

Selectors are the CSS classes posattn.widgets gives its controls: pp-sentence, pp-scheme, pp-order, pp-shuffle,
pp-status, pp-figure (the Image widget holding the A | A' figure).
"""

from __future__ import annotations

import pytest

from .jlab import expect, figure_changed, order_value, pi_text, screenshot_path

pytestmark = pytest.mark.browser


def test_shuffle_changes_the_picture_and_the_status_names_the_order(explorer):
    page, box = explorer
    figure, status = box.locator("img.pp-figure"), box.locator(".pp-status")
    expect(figure).to_be_visible()
    before_png, before_status, before_order = figure.screenshot(), status.inner_text(), order_value(box)
    box.screenshot(path=screenshot_path("06_explorer_before_shuffle.png"))

    box.locator("button.pp-shuffle").click()
    expect(status).not_to_have_text(before_status)
    new_order = order_value(box)
    assert new_order != before_order
    assert pi_text(new_order) in status.inner_text()
    listed = box.locator(".pp-order select option:checked")
    if listed.count():  # "2 0 1 · man dog bites": the status also names the reordered words
        words = " ".join(listed.inner_text().split("·", 1)[1].split())  # the list pads with no-break spaces
        assert f"'{words}'" in status.inner_text()
    assert figure_changed(page, figure, before_png), "Shuffle did not change the A | A' picture"
    box.screenshot(path=screenshot_path("06_explorer_after_shuffle.png"))


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
    assert figure.screenshot() == before_png, "a refused sentence must leave the last good picture on screen"
    box.screenshot(path=screenshot_path("06_explorer_bad_sentence.png"))


def test_switching_the_scheme_redraws_and_is_named(explorer):
    page, box = explorer
    figure, status, scheme = box.locator("img.pp-figure"), box.locator(".pp-status"), box.locator(".pp-scheme select")
    box.locator("button.pp-shuffle").click()  # a reordering, so positions make a difference
    expect(status).to_contain_text("π =")
    page.wait_for_timeout(300)
    before_png, before_status = figure.screenshot(), status.inner_text()
    other = next(v for v in scheme.locator("option").evaluate_all("os => os.map(o => o.value)") if v != scheme.input_value())
    scheme.select_option(other)
    expect(status).not_to_have_text(before_status)
    assert f"'{other}'" in status.inner_text()
    assert figure_changed(page, figure, before_png), f"switching to {other!r} did not redraw the figure"
    box.screenshot(path=screenshot_path(f"06_explorer_scheme_{other}.png"))

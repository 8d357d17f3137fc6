"""The "dog bites man" explorer, tested headless by its state: image arrays, tick labels, status."""

import base64
import itertools
import re

import numpy as np
import pytest

import posattn as pa
from posattn.explorer import ShuffleExplorer, model

LONG = "the quick brown fox jumps over"  # 6 words: the order is typed, not listed


def attention(words, scheme=None):
    """A of a sentence, straight from the package's attention (the explorer's oracle)."""
    X, W = pa.embed(list(words)), pa.default_projections()
    return pa.attention_with_positions(X, *W, scheme=scheme)[1]


def shown(explorer, panel=1):
    """What one panel shows: the image array and its row and column labels."""
    ax = explorer.figure.axes[panel]
    return (np.asarray(ax.images[0].get_array()), [t.get_text() for t in ax.get_yticklabels()],
            [t.get_text() for t in ax.get_xticklabels()])


def snapshot(explorer):
    """Everything a refused input must leave alone."""
    return (explorer.perm.tolist(), explorer.tokens, explorer.view.scheme,
            bytes(explorer.image.value), shown(explorer, 0)[1], shown(explorer)[1])


@pytest.fixture
def explorer():
    explorer = ShuffleExplorer("dog bites man", seed=0)
    yield explorer
    explorer.close()


def test_explorer_starts_in_the_original_order(explorer):
    image, rows, cols = shown(explorer)
    assert explorer.perm.tolist() == [0, 1, 2]
    np.testing.assert_allclose(image, attention(["dog", "bites", "man"]), atol=1e-12)
    assert rows == cols == ["dog", "bites", "man"]
    assert "π = (0, 1, 2) is the original order" in explorer.status.value


@pytest.mark.parametrize(("sentence", "scheme"), [
    ("dog bites man", None), ("dog bites man", "rope"), ("the dog bit the", None)])
def test_every_typed_order_shows_its_own_words_and_attention(explorer, sentence, scheme):
    """Issue 10: the labels are always the words the picture was computed from, in order."""
    explorer.scheme.value = scheme
    for words in dict.fromkeys(itertools.permutations(sentence.split())):
        explorer.text.value = " ".join(words)
        for perm in (list(range(len(words))), list(range(len(words)))[::-1]):
            explorer.order.value = model.format_order(perm)
            marked = model.labels(words)
            A_left, rows, cols = shown(explorer, 0)
            A_right, rows2, cols2 = shown(explorer, 1)
            assert rows == cols == marked
            assert rows2 == cols2 == [marked[i] for i in perm]
            np.testing.assert_allclose(A_left, attention(words, scheme), atol=1e-12)
            np.testing.assert_allclose(A_right, attention([words[i] for i in perm], scheme),
                                       atol=1e-12)


def test_swapping_two_copies_of_a_word_says_the_picture_cannot_change(explorer):
    explorer.text.value = "the dog bit the man"
    before = shown(explorer)[0].copy()
    explorer.order.value = "3 1 2 0 4"
    image, rows, _ = shown(explorer)
    np.testing.assert_array_equal(image, before)
    assert rows == ["the′", "dog", "bit", "the", "man"]
    assert "attention cannot even tell that anything moved" in explorer.status.value


def test_shuffled_heatmap_is_P_A_P_transpose_and_the_status_says_so(explorer):
    explorer.shuffle_button.click()
    perm = explorer.perm
    P, A = pa.permutation_matrix(perm), attention(["dog", "bites", "man"])
    assert perm.tolist() != [0, 1, 2]
    np.testing.assert_allclose(shown(explorer)[0], P @ A @ P.T, atol=1e-12)
    assert explorer.status.value.startswith(f"A' = P A Pᵀ for π = {tuple(perm.tolist())}")
    assert "largest difference below 1e-12" in explorer.status.value


def test_cells_show_the_values_of_A_shuffled(explorer):
    explorer.order.value = "2 1 0"
    texts = [t.get_text() for t in explorer.figure.axes[1].texts]
    assert texts == [f"{v:.2f}" for v in shown(explorer)[0].ravel()]


def test_short_sentence_lists_every_order_and_long_takes_a_typed_one(explorer):
    assert len(explorer.order.options) == 6
    explorer.order.value = explorer.order.options[4]  # picked: "2 0 1 · man dog bites"
    assert shown(explorer)[1] == ["man", "dog", "bites"] and explorer.order.value == "2 0 1"
    explorer.text.value = LONG
    assert explorer.order.options == ()
    explorer.order.value = "5 4 3 2 1 0"
    assert shown(explorer)[1] == LONG.split()[::-1]


def test_the_png_sent_holds_the_pixels_of_a_full_redraw(explorer):
    import io

    from PIL import Image

    def toggle(control):
        return lambda: setattr(control, "value", not control.value)

    for sentence in ["dog bites man", "the quick brown fox jumps over a lazy dog near my house",
                     "the dog bit the man"]:
        explorer.text.value = sentence
        explorer.scheme.value = "rope"
        for change in (explorer.shuffle_button.click, explorer.shuffle_button.click,
                       toggle(explorer.unshuffle), explorer.shuffle_button.click,
                       lambda: setattr(explorer.scheme, "value", "none"),
                       explorer.reset_button.click, toggle(explorer.unshuffle),
                       lambda: setattr(explorer.scheme, "value", "alibi")):
            change()  # a click redraws only what changed, over strips of the cached background
            sent = np.asarray(Image.open(io.BytesIO(bytes(explorer.image.value))))
            explorer.figure.canvas.draw()  # everything drawn again, nothing blitted
            full = np.asarray(explorer.figure.canvas.buffer_rgba())
            assert sent.shape == (*full.shape[:2], 3) and (full[..., 3] == 255).all()  # opaque
            np.testing.assert_array_equal(sent, full[..., :3])


@pytest.mark.parametrize("shape", [(1, 1), (37, 53), (240, 320)])
def test_png_writes_every_pixel_of_any_picture_as_a_valid_png(shape):
    """Noise in all three channels (every byte value, no runs to pack), odd and tiny sizes: a
    decoder that checks each chunk's CRC reads back exactly the canvas's pixels."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    from posattn.explorer.figure import png

    height, width = shape
    figure = Figure(figsize=(width / 100, height / 100), dpi=100)
    figure.figimage(np.random.default_rng(0).integers(0, 256, (height, width, 3), np.uint8))
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    data = png(canvas)
    Image.open(io.BytesIO(data)).verify()  # signature, chunk order, every CRC
    with Image.open(io.BytesIO(data)) as picture:
        assert picture.format == "PNG" and picture.mode == "RGB" and picture.size == (width, height)
        np.testing.assert_array_equal(np.asarray(picture),
                                      np.asarray(canvas.buffer_rgba())[..., :3])


def test_a_shuffle_redraws_only_the_shuffled_panel(explorer, monkeypatch):
    drawn, draw = [], explorer.figure.draw_artist
    monkeypatch.setattr(explorer.figure, "draw_artist", lambda a: (drawn.append(a), draw(a)))
    plot = explorer._plot
    left, right = (set(plot._artists(ax)) for ax in plot.axes)
    titles = [ax.title for ax in plot.axes]
    explorer.shuffle_button.click()
    assert drawn and set(drawn) <= right  # A, the titles and the heading stay as they were
    assert not set(drawn) & {plot.heading, *titles}
    drawn.clear()
    explorer.scheme.value = "rope"  # a new A, a new A' and a new heading
    assert left <= set(drawn) and right <= set(drawn) and plot.heading in drawn
    drawn.clear()
    explorer.unshuffle.value = True  # the right panel's title changes: the titles are drawn
    assert set(titles) <= set(drawn)


def test_both_panels_share_one_scale_up_to_the_largest_weight(explorer):
    explorer.text.value = "the quick brown fox jumps over a lazy dog near my house"
    explorer.scheme.value = "rope"
    explorer.shuffle_button.click()
    left, right, bar = explorer.figure.axes
    largest = max(explorer.view.A.max(), explorer.view.A_shuffled.max())
    low, vmax = left.images[0].get_clim()
    assert right.images[0].get_clim() == (low, vmax) == (0.0, vmax)
    assert largest <= vmax < largest + 0.05 and vmax < 0.6  # 0..1 would waste half the colours
    assert bar.get_ylim() == pytest.approx((0.0, vmax))
    assert f"scale 0 to {vmax:.2f}" in bar.get_ylabel()


@pytest.mark.parametrize("sentence", ["dog bites man", "the dog bit the man",
                                      " ".join(["internationalize", "a"] * 6)])
def test_labels_never_overlap_the_other_panel_or_leave_the_picture(explorer, sentence):
    explorer.text.value = sentence
    explorer.shuffle_button.click()
    explorer.unshuffle.value = True
    figure = explorer.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    left, right, bar = (ax.get_tightbbox(renderer) for ax in figure.axes)
    assert left.x1 <= right.x0 and right.x1 <= bar.x0
    for box in (left, right, bar):
        assert 0 <= box.x0 and box.x1 <= figure.bbox.x1 and 0 <= box.y0 and box.y1 <= figure.bbox.y1


def test_reset_returns_to_the_identity(explorer):
    explorer.shuffle_button.click()
    explorer.reset_button.click()
    assert explorer.perm.tolist() == [0, 1, 2] and explorer.order.value == "0 1 2"
    np.testing.assert_allclose(shown(explorer)[0], attention(["dog", "bites", "man"]), atol=1e-12)


def test_seeded_shuffles_replay_and_never_repeat_the_order_on_screen():
    def clicks(seed):
        explorer, orders = ShuffleExplorer(LONG, seed=seed), []
        for _ in range(6):
            explorer.shuffle_button.click()
            orders.append(explorer.perm.tolist())
        explorer.close()
        return orders

    three = clicks(3)
    assert three == clicks(3) != clicks(4)
    assert all(a != b for a, b in zip(three, three[1:], strict=False))


def test_scheme_control_offers_no_positions_and_every_scheme(explorer):
    assert explorer.scheme.options == ("none", *pa.SCHEMES) and explorer.view.scheme is None


def test_a_blanked_scheme_control_means_no_positions_and_shows_it(explorer):
    explorer.scheme.value = "rope"
    explorer.scheme.value = None  # ipywidgets' "nothing selected"
    assert explorer.scheme.value == "none" and explorer.view.scheme is None
    np.testing.assert_allclose(shown(explorer, 0)[0], attention(["dog", "bites", "man"]))


@pytest.mark.parametrize("scheme", model.NAMES)
def test_positions_break_the_reordering_and_the_status_measures_it(explorer, scheme):
    explorer.order.value = "1 0 2"  # not the reversal: symmetric ALiBi cannot see that one
    explorer.scheme.value = scheme
    A = attention(["dog", "bites", "man"], scheme)
    A_shuffled = attention(["bites", "dog", "man"], scheme)
    P = pa.permutation_matrix([1, 0, 2])
    np.testing.assert_allclose(shown(explorer, 0)[0], A, atol=1e-12)
    np.testing.assert_allclose(shown(explorer)[0], A_shuffled, atol=1e-12)
    error = float(re.search(r"largest difference ([0-9.e-]+)", explorer.status.value).group(1))
    assert explorer.status.value.startswith("A' is not P A Pᵀ for π = (1, 0, 2)")
    assert error == pytest.approx(np.abs(A_shuffled - P @ A @ P.T).max(), rel=1e-2) and error > 1e-3


def test_unshuffle_view_puts_A_shuffled_back(explorer):
    explorer.order.value = "1 2 0"
    explorer.unshuffle.value = True
    image, rows, _ = shown(explorer)
    np.testing.assert_allclose(image, attention(["dog", "bites", "man"]), atol=1e-12)
    assert rows == ["dog", "bites", "man"] and "put back" in explorer.figure.axes[1].get_title()
    explorer.unshuffle.value = False
    assert shown(explorer)[1] == ["bites", "man", "dog"]


BAD_INPUTS = [  # (control, value, the start of the message)
    ("text", "", "sentence must hold at least 2 words to have an order; got an empty box"),
    ("text", "dog", "sentence must hold at least 2 words to have an order"),
    ("text", " ".join(f"w{i}" for i in range(13)), "sentence must hold at most 12 words"),
    ("text", "dog bites man ☃", "sentence must hold words and ordinary punctuation"),
    ("text", "dog " + "a" * 5000, "sentence must use words of at most 16 letters"),
    ("order", "99999999999999999999 0 1 2 3 4", r"order must be a permutation of range\(6\); "
                                                r"got \[99999999999999999999, 0, 1, 2, 3, 4\] "
                                                r"\(missing: 5; out of range: 9+\)"),
    ("order", "² 0 1 3 4 5", "order must be whole numbers separated by spaces"),
    ("order", "0 0 1 2 3 4", r"order must be a permutation of range\(6\); got \[0, 0, 1, 2, 3, 4\] "
                             r"\(repeated: 0; missing: 5\)"),
    ("order", "0 1 2", r"order must be a permutation of range\(6\); got \[0, 1, 2\] \(missing: 3"),
    ("order", "a b c", "order must be whole numbers"),
]


@pytest.mark.parametrize(("control", "value", "message"), BAD_INPUTS)
def test_bad_input_shows_a_message_and_keeps_the_last_good_state(explorer, control, value, message):
    explorer.text.value = "the quick brown fox jumps over"
    explorer.scheme.value = "rope"
    explorer.order.value = "1 0 2 3 4 5"
    before = snapshot(explorer)
    getattr(explorer, control).value = value
    assert re.match("⚠ " + message, explorer.status.value), explorer.status.value
    assert "Still showing 'the quick brown fox jumps over' with π = (1, 0, 2" in \
        explorer.status.value
    assert snapshot(explorer) == before
    explorer.order.value = "5 4 3 2 1 0"  # and the next good input is shown as usual
    assert not explorer.status.value.startswith("⚠") and shown(explorer)[1] == LONG.split()[::-1]


@pytest.mark.parametrize(("arguments", "kind", "message"), [
    ((None,), TypeError, "sentence must be a string; got NoneType None"),
    (("dog",), ValueError, "sentence must hold at least 2 words"),
    (("dog bites man", "x"), TypeError, "seed must be an integer; got str 'x'"),
    (("dog bites man", -1), ValueError, "seed must be at least 0; got -1"),
    (("dog bites man", 1.5), TypeError, "seed must be an integer; got float"),
    (("dog bites man", True), TypeError, "seed must be an integer; got bool"),
])
def test_constructor_refuses_bad_arguments_with_the_message_template(arguments, kind, message):
    with pytest.raises(kind, match=message):
        ShuffleExplorer(*arguments)


@pytest.mark.parametrize("order", [[2, 1, 0], "2 1 0", np.array([2, 1, 0])])
def test_an_explorer_made_with_an_order_starts_shuffled(order):
    explorer = ShuffleExplorer("dog bites man", order=order)
    try:
        assert explorer.perm.tolist() == [2, 1, 0] and explorer.order.value == "2 1 0"
        assert shown(explorer)[1] == ["man", "bites", "dog"]
        assert explorer.status.value.startswith("A' = P A Pᵀ for π = (2, 1, 0)")
    finally:
        explorer.close()


@pytest.mark.parametrize(("order", "kind", "message"), [
    ([0, 0, 1], ValueError, re.escape("order must be a permutation of range(3); got [0, 0, 1]")),
    ([0, 1], ValueError, re.escape("order must be a permutation of range(3); got [0, 1]")),
    ("2 x 0", ValueError, "order must be whole numbers separated by spaces; got '2 x 0'"),
    ([0.5, 1, 2], TypeError, "order must"),
])
def test_constructor_refuses_a_bad_order_naming_it(order, kind, message):
    with pytest.raises(kind, match=message):
        ShuffleExplorer("dog bites man", order=order)


def test_its_display_holds_the_live_view_and_a_still_picture_of_the_figure(explorer):
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.model_id
    assert base64.b64decode(bundle["image/png"]) == explorer.image.value  # the picture on screen
    explorer.shuffle()
    assert base64.b64decode(explorer._repr_mimebundle_()["image/png"]) == explorer.image.value


def test_outputs_table_shows_Y_and_the_same_rows_moved(explorer):
    explorer.order.value = "2 1 0"
    Y = pa.self_attention(pa.embed(["dog", "bites", "man"]), *pa.default_projections())[0]
    row_of_man = "".join(f"<td>{v:.2f}</td>" for v in Y[2])
    assert explorer.outputs.value.count(row_of_man) == 2  # Y's row for "man" is Y''s first row
    html = explorer.outputs.value
    assert html.index("<th>dog</th>") < html.index("<th>man</th>") < html.rindex("<th>dog</th>")


def test_caption_describes_the_figure_in_words(explorer):
    explorer.order.value = "2 0 1"
    explorer.scheme.value = "rope"
    assert explorer.caption.value == (
        "Figure (positions: 'rope'), left: A: original order, rows and columns dog, bites, man. "
        "Right: A': shuffled, rows and columns man, dog, bites.")


@pytest.mark.parametrize(("control", "value"), [
    ("text", "dog"), ("text", "狗 咬 人"), ("text", " ".join(["w"] * 13)), ("order", "0 0 1"),
    ("order", "a b c")])
def test_a_refused_input_puts_the_boxes_back_to_what_the_picture_shows(explorer, control, value):
    explorer.text.value = "The dog bit the MAN!"
    explorer.order.value = "4 1 2 3 0"
    getattr(explorer, control).value = value
    assert explorer.status.value.startswith("⚠")
    assert explorer.text.value == "The dog bit the MAN!"  # as typed, when it was applied
    assert explorer.order.value == "4 1 2 3 0" and explorer.tokens == model.parse_sentence(
        explorer.text.value)
    explorer.shuffle_button.click()  # shuffles the sentence in the box and on screen
    assert shown(explorer)[1] == [model.labels(explorer.tokens)[i] for i in explorer.perm]
    assert sorted(shown(explorer)[1]) == sorted(["the", "dog", "bit", "the′", "man"])


def test_a_sentence_no_installed_font_can_draw_is_refused_before_drawing(explorer):
    before = snapshot(explorer)
    explorer.text.value = "狗 咬 人"  # no CJK font here: the labels would be empty boxes
    assert explorer.status.value.startswith("⚠ sentence must use characters that a font on this "
                                            "computer can draw; got '人', '咬', '狗'")
    assert snapshot(explorer) == before
    with pytest.raises(ValueError, match="no installed font has"):
        ShuffleExplorer("狗 咬 人")


def test_a_letter_the_series_font_lacks_is_drawn_with_a_font_that_has_it(explorer):
    from posattn.explorer.figure import fonts_for

    letter = "ᴕ"  # LATIN LETTER SMALL CAPITAL OU: not in DejaVu Sans, in DejaVu Serif
    families = fonts_for([letter])
    if len(families) == 1:
        pytest.skip("the series' font draws it on this computer")
    explorer.text.value = f"{letter}x bites man"
    assert not explorer.status.value.startswith("⚠")
    label = explorer.figure.axes[1].get_yticklabels()[0]
    assert label.get_text() == f"{letter}x" and label.get_fontfamily() == families


def test_a_closed_explorer_lets_go_of_its_figure_and_says_so_when_used():
    explorer = ShuffleExplorer("dog bites man", seed=0)
    explorer.close()
    assert explorer.figure is None and explorer._plot.figure is None
    assert bytes(explorer.image.value) == b"" and explorer._plot._background is None
    for use in (explorer.shuffle, lambda: setattr(explorer.order, "value", "2 1 0")):
        with pytest.raises(ValueError, match="the explorer must be open to change; got one that "
                                             "was closed"):
            use()


def _drawn_from(families) -> set[int]:
    """Every character the font files behind ``families`` have: what a label in them can draw."""
    import matplotlib.pyplot as plt
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    from posattn.plotting import STYLE
    with plt.style.context(STYLE):
        files = {font_manager.findfont(font_manager.FontProperties(family=[family]))
                 for family in families}
    return set().union(*(FT2Font(path).get_charmap() for path in files))


def test_math_bold_letters_are_drawn_from_a_font_file_that_has_them_or_refused(monkeypatch):
    """"𝐝𝐨𝐠 𝐦𝐚𝐧": a bold face may have math-bold letters that its family's regular face, the one
    a label is drawn from, has not (DejaVu Serif Bold and DejaVu Serif). With that bold face
    first in the font list, the explorer took the family and drew missing-glyph boxes."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    sentence = "𝐝𝐨𝐠 𝐦𝐚𝐧"
    needed = {ord(c) for c in sentence if not c.isspace()}
    fonts = font_manager.fontManager.ttflist
    misleading = [font for font in fonts if needed <= set(FT2Font(font.fname).get_charmap())
                  and not needed <= _drawn_from([font.name])]
    if not misleading:
        pytest.skip("no font here has the letters in a face its family does not draw from")
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        misleading + [font for font in fonts if font not in misleading])
    try:
        explorer = ShuffleExplorer(sentence)
    except ValueError as error:  # no font draws them: refused, naming them
        assert "sentence must use characters that a font on this computer can draw" in str(error)
        return
    for label in explorer.figure.axes[0].get_yticklabels():
        missing = {c for c in label.get_text() if ord(c) not in
                   _drawn_from(label.get_fontfamily())}
        assert not missing, (label.get_text(), label.get_fontfamily(), missing)
    explorer.close()

"""The "dog bites man" explorer, tested headless by its state: image arrays, tick labels, status text."""

import re

import ipywidgets as widgets
import numpy as np
import pytest

import posattn as pa
from posattn import explorer_state as state
from posattn.widgets import ShuffleExplorer

LONG = "the quick brown fox jumps over"  # 6 words: the order is typed, not listed


def attention(tokens, scheme=None):
    X = pa.embed(list(tokens))  # (n, d)
    return pa.attention_with_positions(X, *pa.default_projections(), scheme=scheme)[1]


def shown(explorer, panel=1):
    """What one panel of the figure shows: the image array and its row and column labels."""
    ax = explorer.figure.axes[panel]
    return (np.asarray(ax.images[0].get_array()), [t.get_text() for t in ax.get_yticklabels()],
            [t.get_text() for t in ax.get_xticklabels()])


def snapshot(explorer):
    return explorer.perm.tolist(), explorer.tokens, shown(explorer, 0)[0].copy(), shown(explorer, 1)[0].copy(), shown(explorer)[1]


@pytest.fixture
def explorer():
    return ShuffleExplorer("dog bites man", seed=0)


def test_explorer_starts_in_the_original_order(explorer):
    A = attention(["dog", "bites", "man"])
    image, rows, cols = shown(explorer)
    assert explorer.perm.tolist() == [0, 1, 2]
    np.testing.assert_allclose(image, A, atol=1e-12)
    assert rows == cols == ["dog", "bites", "man"]
    assert "π = (0, 1, 2) is the original order" in explorer.status.value


def test_shuffled_heatmap_is_P_A_P_transpose(explorer):
    explorer.shuffle_button.click()
    perm = explorer.perm
    assert sorted(perm.tolist()) == [0, 1, 2] and perm.tolist() != [0, 1, 2]
    P = pa.permutation_matrix(perm)
    A = pa.self_attention(pa.embed(["dog", "bites", "man"]), *pa.default_projections())[1]
    np.testing.assert_allclose(shown(explorer, 0)[0], A, atol=1e-12)
    np.testing.assert_allclose(shown(explorer)[0], P @ A @ P.T, atol=1e-12)


def test_tick_labels_are_the_permuted_tokens(explorer):
    explorer.shuffle_button.click()
    words = [["dog", "bites", "man"][i] for i in explorer.perm]
    _, rows, cols = shown(explorer)
    assert rows == cols == words
    assert shown(explorer, 0)[1] == ["dog", "bites", "man"]


def test_status_states_the_permutation_and_the_error(explorer):
    explorer.shuffle_button.click()
    pi = "(" + ", ".join(map(str, explorer.perm)) + ")"
    assert explorer.status.value.startswith(f"A' = P A Pᵀ for π = {pi}")
    assert "largest difference below 1e-12" in explorer.status.value


def test_cells_show_the_values_of_A_shuffled(explorer):
    explorer.order.value = "2 1 0"
    image = shown(explorer)[0]
    texts = [t.get_text() for t in explorer.figure.axes[1].texts]
    assert texts == [f"{v:.2f}" for v in image.ravel()]


def test_short_sentence_lists_every_order(explorer):
    assert isinstance(explorer.order, widgets.Dropdown)
    assert [value for _, value in explorer.order.options] == ["0 1 2", "0 2 1", "1 0 2", "1 2 0", "2 0 1", "2 1 0"]
    explorer.order.value = "2 0 1"
    assert explorer.perm.tolist() == [2, 0, 1]
    assert shown(explorer)[1] == ["man", "dog", "bites"]


def test_long_sentence_takes_a_typed_order(explorer):
    explorer.text.value = LONG
    assert isinstance(explorer.order, widgets.Text) and explorer.order in explorer.children[1].children
    explorer.order.value = "5 4 3 2 1 0"
    assert explorer.perm.tolist() == [5, 4, 3, 2, 1, 0]
    assert shown(explorer)[1] == LONG.split()[::-1]
    assert explorer.status.value.startswith("A' = P A Pᵀ for π = (5, 4, 3, 2, 1, 0)")


def test_shuffle_updates_the_same_figure_in_place(explorer):
    figure, image = explorer.figure, explorer.figure.axes[1].images[0]
    before = bytes(explorer.image.value)
    explorer.shuffle_button.click()
    assert explorer.figure is figure and explorer.figure.axes[1].images[0] is image
    assert bytes(explorer.image.value) != before and bytes(explorer.image.value).startswith(b"\x89PNG")
    explorer.text.value = LONG  # a new length rebuilds the axes, in the same Figure
    assert explorer.figure is figure and shown(explorer)[0].shape == (6, 6)
    assert explorer.figure.axes[1].texts  # values written for n ≤ 8


def test_twelve_words_fit_and_drop_the_cell_values(explorer):
    explorer.text.value = " ".join(f"w{i}" for i in range(state.MAX_WORDS))
    explorer.shuffle_button.click()
    assert shown(explorer)[0].shape == (12, 12) and len(explorer.figure.axes[1].texts) == 0


@pytest.mark.parametrize("sentence", ["dog bites man", "the quick brown fox jumps over a lazy dog near my house"])
def test_titles_clear_the_words_on_top_short_or_turned(explorer, sentence):
    explorer.text.value = sentence  # more than five words turn the column words upright
    explorer.shuffle_button.click()
    renderer = explorer.figure.canvas.get_renderer()
    for ax in explorer.figure.axes[:2]:
        assert ax.title.get_window_extent(renderer).y0 >= ax.xaxis.get_tightbbox(renderer).y1
        assert ax.title.get_window_extent(renderer).y1 <= explorer.figure.bbox.y1  # and stay on the picture


def test_the_png_sent_holds_exactly_the_pixels_of_the_figure(explorer):
    import io

    from PIL import Image

    for sentence in ["dog bites man", "the quick brown fox jumps over a lazy dog near my house"]:
        explorer.text.value = sentence
        explorer.shuffle_button.click()
        decoded = np.asarray(Image.open(io.BytesIO(bytes(explorer.image.value))))
        canvas = np.asarray(explorer.figure.canvas.buffer_rgba())
        assert decoded.shape == canvas.shape[:2] + (3,)
        np.testing.assert_array_equal(decoded, canvas[..., :3])


def test_reset_returns_to_the_identity(explorer):
    explorer.shuffle_button.click()
    explorer.reset_button.click()
    assert explorer.perm.tolist() == [0, 1, 2]
    np.testing.assert_allclose(shown(explorer)[0], attention(["dog", "bites", "man"]), atol=1e-12)
    assert explorer.order.value == "0 1 2"


def test_seeded_shuffles_replay():
    def clicks(seed):
        explorer = ShuffleExplorer(LONG, seed=seed)
        orders = []
        for _ in range(4):
            explorer.shuffle_button.click()
            orders.append(explorer.perm.tolist())
        return orders

    assert clicks(3) == clicks(3)
    assert clicks(3) != clicks(4)


def test_shuffle_never_repeats_the_order_on_screen(explorer):
    for _ in range(10):
        before = explorer.perm.tolist()
        explorer.shuffle_button.click()
        assert explorer.perm.tolist() != before


def test_scheme_control_offers_every_scheme(explorer):
    assert tuple(explorer.scheme.options) == ("none", *pa.SCHEMES) and explorer.scheme.value == "none"


@pytest.mark.parametrize("scheme", list(pa.SCHEMES))
def test_positions_break_the_reordering_and_the_status_measures_it(explorer, scheme):
    explorer.order.value = "1 0 2"  # not the reversal: ALiBi's −m·|i − j| is symmetric, reversal keeps it
    explorer.scheme.value = scheme
    words = ["dog", "bites", "man"]
    A, A_shuffled = attention(words, scheme), attention(["bites", "dog", "man"], scheme)
    P = pa.permutation_matrix([1, 0, 2])
    np.testing.assert_allclose(shown(explorer, 0)[0], A, atol=1e-12)
    np.testing.assert_allclose(shown(explorer)[0], A_shuffled, atol=1e-12)
    error = float(re.search(r"largest difference ([0-9.e-]+)", explorer.status.value).group(1))
    assert explorer.status.value.startswith("A' is not P A Pᵀ for π = (1, 0, 2)")
    assert error > 1e-3 and error == pytest.approx(np.abs(A_shuffled - P @ A @ P.T).max(), rel=1e-2)


def test_unshuffle_view_puts_A_shuffled_back(explorer):
    explorer.order.value = "1 2 0"
    explorer.unshuffle.value = True
    image, rows, _ = shown(explorer)
    np.testing.assert_allclose(image, attention(["dog", "bites", "man"]), atol=1e-12)
    assert rows == ["dog", "bites", "man"] and "put back" in explorer.figure.axes[1].get_title()
    explorer.unshuffle.value = False
    assert shown(explorer)[1] == ["bites", "man", "dog"]


BAD_SENTENCES = [
    ("", "at least 2 words; got an empty box"),
    ("   ", "at least 2 words; got an empty box"),
    ("dog", "at least 2 words to have an order; got 1 word: 'dog'"),
    ("?! ...", "got only punctuation"),
    (" ".join(f"w{i}" for i in range(13)), "at most 12 words .* got 13"),
    ("dog bites man ☃", "characters it cannot read: '☃'"),
    ("dog bites dog", "got 'dog' more than once.*cannot be told apart"),
]


@pytest.mark.parametrize(("sentence", "message"), BAD_SENTENCES)
def test_bad_sentence_shows_a_message_and_keeps_the_last_good_state(explorer, sentence, message):
    explorer.order.value = "2 0 1"
    before = snapshot(explorer)
    explorer.text.value = sentence
    assert re.search(message, explorer.status.value)
    assert explorer.status.value.startswith("⚠ sentence must")
    assert "Still showing 'dog bites man' with π = (2, 0, 1)" in explorer.status.value
    after = snapshot(explorer)
    assert after[:2] == before[:2] and after[4] == before[4]
    np.testing.assert_array_equal(after[2], before[2])
    np.testing.assert_array_equal(after[3], before[3])


@pytest.mark.parametrize(("order", "message"), [
    ("0 0 1 2 3 4", r"repeated: 0; missing: 5"),
    ("0 1 2", r"permutation of range\(6\); got \[0, 1, 2\] \(missing: 3, 4, 5\)"),
    ("5 4 3 2 1 9", r"out of range: 9"),
    ("a b c", r"order must be whole numbers"),
])
def test_bad_order_shows_a_message_and_keeps_the_last_good_state(explorer, order, message):
    explorer.text.value = LONG
    explorer.order.value = "1 0 2 3 4 5"
    before = snapshot(explorer)
    explorer.order.value = order
    assert re.search(message, explorer.status.value) and explorer.status.value.startswith("⚠ order must")
    after = snapshot(explorer)
    assert after[:2] == before[:2] and after[4] == before[4]
    np.testing.assert_array_equal(after[3], before[3])


def test_a_good_input_after_a_bad_one_clears_the_message(explorer):
    explorer.text.value = "dog"
    explorer.text.value = "man bites dog"
    assert explorer.tokens == ["man", "bites", "dog"] and not explorer.status.value.startswith("⚠")


def test_constructor_refuses_a_bad_sentence():
    with pytest.raises(ValueError, match="sentence must hold at least 2 words"):
        ShuffleExplorer("dog")


def test_controls_carry_css_classes_for_browser_tests(explorer):
    for control, name in ((explorer.text, "pp-sentence"), (explorer.shuffle_button, "pp-shuffle"),
                          (explorer.reset_button, "pp-reset"), (explorer.order, "pp-order"),
                          (explorer.scheme, "pp-scheme"), (explorer.status, "pp-status"), (explorer.image, "pp-figure")):
        assert name in control._dom_classes


def test_repr_is_deterministic_text(explorer):
    assert repr(explorer) == "ShuffleExplorer(tokens=['dog', 'bites', 'man'], perm=[0, 1, 2], scheme='none')"


def test_outputs_table_shows_Y_and_the_same_rows_moved(explorer):
    explorer.order.value = "2 1 0"
    html = explorer.outputs.value
    Y = pa.self_attention(pa.embed(["dog", "bites", "man"]), *pa.default_projections())[0]
    first_row = "".join(f"<td>{v:.2f}</td>" for v in Y[2])
    assert html.count(first_row) == 2  # Y's row for "man" is Y''s first row
    assert html.index("<th>dog</th>") < html.index("<th>man</th>") < html.rindex("<th>dog</th>")


@pytest.mark.parametrize(("text", "message"), [
    ("", "order must be whole numbers separated by spaces, like 2 1 0; got ''"),
    ("1 1 0", r"order must be a permutation of range\(3\); got \[1, 1, 0\] \(repeated: 1; missing: 2\)\. Type each"),
    ("0 1 -2", "order must be whole numbers"),
])
def test_parse_order_messages(text, message):
    with pytest.raises(ValueError, match=message):
        state.parse_order(text, 3)


def test_parse_order_accepts_commas_and_brackets():
    assert state.parse_order("[1, 2, 0]", 3).tolist() == [1, 2, 0]


@pytest.mark.parametrize(("sentence", "message"), BAD_SENTENCES)
def test_parse_sentence_messages(sentence, message):
    with pytest.raises(ValueError, match=message):
        state.parse_sentence(sentence)


def test_status_line_rounds_a_measured_error():
    view = state.compute_view(["dog", "bites", "man"], [1, 0, 2], "alibi")
    assert f"largest difference {view.error:.3g}" in state.status_line(view) and view.error > 1e-3


def test_order_options_list_every_order_once():
    options = state.order_options(["a", "b", "c", "d"])
    assert len({value for _, value in options}) == 24 and options[0] == ("0 1 2 3 · a b c d", "0 1 2 3")


def test_status_says_when_a_scheme_cannot_see_the_reordering():
    view = state.compute_view(["dog", "bites", "man"], [2, 1, 0], "alibi_symmetric")  # keeps |i − j|
    assert view.error < state.TOLERANCE
    assert state.status_line(view).endswith("The 'alibi_symmetric' positions cannot see this reordering.")


def test_caption_describes_the_figure_in_words(explorer):
    explorer.order.value = "2 0 1"
    explorer.scheme.value = "rope"
    assert explorer.caption.value == ("Figure, left: A (original order, 'rope' positions), rows and columns dog, bites, man. "
                                      "Right: A' (shuffled, 'rope' positions), rows and columns man, dog, bites.")
    assert explorer.figure.axes[0].get_title() == "A (original order, 'rope' positions)"

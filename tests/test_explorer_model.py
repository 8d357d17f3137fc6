"""The explorer's rules without widgets: reading the inputs, the labels, the status line."""

import numpy as np
import pytest

from posattn.explorer import model

TOO_MANY = " ".join(f"w{i}" for i in range(13))
BAD_SENTENCES = [
    ("", ValueError, "at least 2 words to have an order; got an empty box"),
    ("   ", ValueError, "at least 2 words to have an order; got an empty box"),
    ("dog", ValueError, "at least 2 words to have an order; got 1 word: 'dog'"),
    ("?! ...", ValueError, "got only punctuation"),
    (TOO_MANY, ValueError, "at most 12 words .* got 13"),
    ("dog bites man ☃", ValueError, "characters it cannot read: '☃'"),
    ("dog " + "a" * 5000, ValueError,
     r"words of at most 16 letters; got 'a{16}'… \(5000 letters\)"),
    (None, TypeError, "sentence must be a string; got NoneType None"),
    (["dog", "man"], TypeError, "sentence must be a string; got list"),
]


@pytest.mark.parametrize(("sentence", "kind", "message"), BAD_SENTENCES)
def test_parse_sentence_messages(sentence, kind, message):
    with pytest.raises(kind, match=message):
        model.parse_sentence(sentence)


def test_repeated_words_are_tokens_and_their_labels_tell_the_copies_apart():
    tokens = model.parse_sentence("The dog bit the man, the end")
    assert tokens == ["the", "dog", "bit", "the", "man", "the", "end"]
    assert model.labels(tokens) == ["the", "dog", "bit", "the′", "man", "the″", "end"]
    assert len(set(model.labels(["a"] * 12))) == 12


@pytest.mark.parametrize(("text", "message"), [
    ("", r"order must be whole numbers separated by spaces; got ''\. Type each of 0 … 2 once"),
    ("1 1 0", r"order must be a permutation of range\(3\); got \[1, 1, 0\] \(repeated: 1; "
              r"missing: 2\)\. Type each"),
    ("0 1", r"order must be a permutation of range\(3\); got \[0, 1\] \(missing: 2\)\. Type each"),
    ("0 1 -2", "order must be whole numbers"),
    ("99999999999999999999 0 1", r"order must be a permutation of range\(3\); got "
                                 r"\[99999999999999999999, 0, 1\] \(missing: 2; out of range: "
                                 r"99999999999999999999\)"),
    ("9" * 5000 + " 0 1", r"order must use the positions 0 … 2; got a number of 5000 digits "
                          r"\(999999999999…\)\. Type each"),  # int() refuses over 4,300 digits
    ("² 0 1", "order must be whole numbers separated by spaces; got '² 0 1'"),
    ("٢ 0 1", "order must be whole numbers"),  # an Arabic-Indic two: a digit to Python, not to us
    ("0 1 2 " * 1000, r"order must be a permutation of range\(3\); got \[0, 1, 2, .*\(3000 "
                      r"entries\)\] \(repeated: 0, 1, 2\)\. Type each of 0 … 2 once, like "
                      r"2 1 0\.$"),
])
def test_parse_order_messages(text, message):
    with pytest.raises(ValueError, match=message):
        model.parse_order(text, 3)


def test_parse_order_accepts_commas_and_brackets():
    assert model.parse_order("[1, 2, 0]", 3).tolist() == [1, 2, 0]


def test_order_options_list_every_order_once_with_labels():
    options = model.order_options(["a", "b", "a", "d"])
    assert len(set(options)) == 24 and options[0] == "0 1 2 3 · a b a′ d"
    assert options[-1] == "3 2 1 0 · d a′ b a"
    assert model.parse_order(options[-1], 4).tolist() == [3, 2, 1, 0]  # a picked order reads back
    assert model.order_options(list("abcde")) == ()  # 120 orders: typed, not listed


def test_compute_view_refuses_an_unknown_scheme():
    with pytest.raises(ValueError, match="scheme must be one of .*; got 'none'"):
        model.compute_view(["dog", "man"], [1, 0], "none")


def test_status_line_rounds_a_measured_error():
    view = model.compute_view(["dog", "bites", "man"], [1, 0, 2], "rope")
    assert view.error > 1e-3 and f"largest difference {view.error:.3g}" in model.status_line(view)


def test_status_says_when_a_scheme_cannot_see_the_reordering():
    scheme = "alibi_symmetric"
    view = model.compute_view(["dog", "bites", "man"], [2, 1, 0], scheme)  # keeps every |i − j|
    assert view.error < model.TOLERANCE
    assert model.status_line(view).endswith(f"The {scheme!r} positions cannot see this order.")


@pytest.mark.parametrize("scheme", [None, *model.NAMES])
def test_swapping_copies_of_a_word_cannot_change_the_picture(scheme):
    view = model.compute_view(["the", "dog", "bit", "the", "man"], [3, 1, 2, 0, 4], scheme)
    np.testing.assert_array_equal(view.A_shuffled, view.A)  # X' = X: the very same numbers
    assert view.shuffled_labels == ["the′", "dog", "bit", "the", "man"]
    assert "only swaps copies of the same word" in model.status_line(view)
    assert "attention cannot even tell that anything moved" in model.status_line(view)


def test_error_line_names_what_stays_on_screen():
    view = model.compute_view(["dog", "dog"], [1, 0])
    line = model.error_line(ValueError("order must be …."), view)
    assert line == "⚠ order must be …. Still showing 'dog dog′' with π = (1, 0)."


def test_the_model_needs_numpy_only():
    import subprocess
    import sys

    code = ("import sys, posattn.explorer.model; "
            "print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("text", ["a" * 1_000_000, "?" * 1_000_000, "dog" + " !" * 500_000])
def test_a_huge_one_word_or_punctuation_input_is_cut_in_the_message(text):
    with pytest.raises(ValueError) as refused:
        model.parse_sentence(text)
    message = str(refused.value)
    assert "at least 2 words" in message and len(message) < 300, message[:300]
    assert "characters)" in message or "got 1 word: 'dog'" in message


def test_error_line_cuts_a_long_reason():
    view = model.compute_view(["dog", "man"], [1, 0])
    line = model.error_line(ValueError("x" * 10_000), view)
    assert len(line) < 500 and line.endswith("Still showing 'dog man' with π = (1, 0).")


def test_parse_order_of_a_huge_number_or_a_long_text_shows_a_bounded_rendering():
    """str(10**5000) raises Python's 4,300-digit error: it was the message."""
    with pytest.raises(ValueError, match="order must be whole numbers separated by spaces; got "
                                         "'an integer of about 5,001 digits'"):
        model.parse_order(10**5000, 3)
    with pytest.raises(ValueError, match=r"got 'x+'… \(1,000,000 characters\)"):
        model.parse_order("x" * 10**6, 3)

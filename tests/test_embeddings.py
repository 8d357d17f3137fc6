import os
import subprocess
import sys

import numpy as np
import pytest

import posattn as pa


def test_tokenize_lowercases_and_drops_punctuation():
    assert pa.tokenize("Dog bites man!") == ["dog", "bites", "man"]
    assert pa.tokenize("  the dog's (old) bone, well-known.  ") == [
        "the", "dog's", "old", "bone", "well-known"]


@pytest.mark.parametrize(("sentence", "tokens"), [
    ("İstanbul İzmir", ["i\u0307stanbul", "i\u0307zmir"]),  # case-folded, the dot kept in the word
    ("cafe\u0301 au lait", ["caf\u00e9", "au", "lait"]),  # a pasted, decomposed é is composed
    ("Straße STRASSE", ["strasse", "strasse"]),  # full case folding: one word
    ("dog_bites man", ["dog_bites", "man"]),  # an underscore joins, like a hyphen
    ("'dog' -- _man_", ["dog", "man"]),  # joiners that join nothing are punctuation
    ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # vowel signs are marks: the words stay whole
])
def test_tokenize_keeps_letters_whole_and_follows_its_rule_for_a_word(sentence, tokens):
    assert pa.tokenize(sentence) == tokens


def test_tokenize_refuses_unknown_characters_and_shows_invisible_ones_escaped():
    with pytest.raises(ValueError, match="sentence must hold words and ordinary punctuation; "
                                         "got characters it cannot read: '#', '@'"):
        pa.tokenize("dog @ man #1")
    with pytest.raises(ValueError, match=r"cannot read: '\\u200b'\. Use letters") as error:
        pa.tokenize("dog\u200bbites man")
    assert "\u200b" not in str(error.value)  # never the raw invisible character


def test_tokenize_needs_a_string():
    with pytest.raises(TypeError, match="sentence must be a string; got list"):
        pa.tokenize(["dog"])


def test_same_word_same_row_and_different_words_differ():
    X = pa.embed(["dog", "bites", "dog"])
    np.testing.assert_array_equal(X[0], X[2])
    assert np.abs(X[0] - X[1]).max() > 0.1
    assert X.dtype == np.float64 and X.shape == (3, 8)


def test_embeddings_are_the_same_in_a_fresh_process():
    """Not Python's salted hash(): another interpreter gives the same numbers."""
    code = "import posattn; print(repr(posattn.embed(['dog', 'man']).sum()))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in (1, 2)}
    assert runs == {repr(pa.embed(["dog", "man"]).sum()) + "\n"}


def test_embedding_of_dog_is_pinned():
    """The numbers every notebook shows: a change here changes the whole series."""
    dog = [0.2374020764095757, -2.047410835521646, -0.8713901427797153, 0.8375853008602453,
           0.8307690772852393, 0.5959100203332228, 0.7604129665100955, 1.7431385302708278]
    np.testing.assert_array_equal(pa.embed(["dog"])[0], dog)
    np.testing.assert_array_equal(pa.embed(["dog"], d=4)[0], dog[:4])  # a prefix of the same draw


def test_seed_changes_the_embeddings():
    assert np.abs(pa.embed(["dog"], seed=0) - pa.embed(["dog"], seed=1)).max() > 0.1


def test_embed_refuses_bad_tokens():
    with pytest.raises(TypeError, match="tokens must be a list of words; got the string 'dog man'"):
        pa.embed("dog man")
    with pytest.raises(ValueError, match="tokens must hold at least one word; got an empty list"):
        pa.embed([])
    with pytest.raises(TypeError, match="tokens must be non-empty strings; got 3"):
        pa.embed(["dog", 3])
    with pytest.raises(ValueError, match="d must be at least 1; got 0"):
        pa.embed(["dog"], d=0)


def test_default_projections_have_the_documented_shapes_and_scale():
    W_Q, W_K, W_V = pa.default_projections(64, 16, 8, seed=3)
    assert W_Q.shape == W_K.shape == (64, 16) and W_V.shape == (64, 8)
    assert 0.8 < W_Q.std() * np.sqrt(64) < 1.2
    np.testing.assert_array_equal(pa.default_projections(64, 16, 8, seed=3)[0], W_Q)


def test_default_projections_refuse_bad_sizes():
    with pytest.raises(TypeError, match="d_k must be an integer; got str '4'"):
        pa.default_projections(8, "4", 4)


def test_import_posattn_loads_nothing_it_does_not_need_yet():
    # numpy.random (~13 ms; numpy 2 loads it lazily) and hashlib load on first use
    heavy = "('matplotlib', 'ipywidgets', 'numpy.random', 'hashlib')"
    code = ("import sys, numpy; loaded = set(sys.modules); import posattn; "
            f"print(sorted(m for m in {heavy} if m in sys.modules and m not in loaded))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"

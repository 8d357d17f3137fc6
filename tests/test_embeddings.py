import os
import subprocess
import sys

import numpy as np
import pytest

import posattn as pa


def test_tokenize_lowercases_and_drops_punctuation():
    assert pa.tokenize("Dog bites man!") == ["dog", "bites", "man"]
    assert pa.tokenize("  the dog's (old) bone, well-known.  ") == ["the", "dog's", "old", "bone", "well-known"]


def test_tokenize_refuses_unknown_characters():
    with pytest.raises(ValueError, match="sentence must hold words and ordinary punctuation; got characters it cannot read: # @"):
        pa.tokenize("dog @ man #1")


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
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2)}
    assert runs == {repr(pa.embed(["dog", "man"]).sum()) + "\n"}


def test_embedding_of_dog_is_pinned():
    """The numbers every notebook shows: a change here changes the whole series."""
    np.testing.assert_allclose(pa.embed(["dog"], d=4)[0], _pinned_dog(), atol=1e-12)


def _pinned_dog():
    import hashlib

    seed = int.from_bytes(hashlib.sha256(b"0\x00dog").digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(4)


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


def test_import_posattn_does_not_import_matplotlib_or_ipywidgets():
    code = "import sys, posattn; print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

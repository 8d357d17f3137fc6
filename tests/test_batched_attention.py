"""A leading batch axis: (B, n, d) attends to each of the B sequences exactly as (n, d) would."""

import autograd.numpy as anp
import numpy as np
import pytest
from autograd import grad
from hypothesis import given, settings
from hypothesis import strategies as st

import posattn as pa
from posattn import schemes

SCHEMES_AND_NONE = [None, *schemes.REGISTRY]  # every registered scheme


@st.composite
def batches(draw):
    """A batch X (B, n, d) of equal-length sequences and weights with an even d_k (for RoPE)."""
    B, n, d, half_d_k, d_v = (draw(st.integers(1, 5)) for _ in range(5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.standard_normal((B, n, d)), pa.default_projections(d, 2 * half_d_k, d_v, seed=1)


@settings(max_examples=30, deadline=None)
@given(batches(), st.sampled_from(SCHEMES_AND_NONE))
def test_a_batch_gives_exactly_each_sequences_own_result(case, scheme):
    X, W = case
    Y, A = pa.attention_with_positions(X, *W, scheme)
    for b, X_b in enumerate(X):
        Y_b, A_b = pa.attention_with_positions(X_b, *W, scheme)
        np.testing.assert_allclose(Y[b], Y_b, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(A[b], A_b, rtol=1e-12, atol=1e-12)


def test_a_batch_of_two_different_sequences_gives_two_different_results():
    """Negative control: the rows of a batch are not mixed, nor all given the first one's result."""
    X = np.random.default_rng(0).standard_normal((2, 3, 4))
    Y, _ = pa.self_attention(X, *pa.default_projections(4, 2, 2))
    assert np.abs(Y[0] - Y[1]).max() > 1e-3


@pytest.mark.parametrize("scheme", SCHEMES_AND_NONE)
def test_autograd_through_a_batch_matches_finite_differences(scheme):
    rng = np.random.default_rng(3)
    X, (W_Q, W_K, W_V) = rng.standard_normal((3, 4, 6)), pa.default_projections(6, 4, 3, seed=2)

    def loss(W_Q):
        Y, _ = pa.attention_with_positions(X, W_Q, W_K, W_V, scheme)
        return anp.sum(anp.sin(Y))

    analytic, h = grad(loss)(W_Q), 1e-6
    numeric = np.zeros_like(W_Q)
    for index in np.ndindex(*W_Q.shape):
        step = np.zeros_like(W_Q)
        step[index] = h
        numeric[index] = (loss(W_Q + step) - loss(W_Q - step)) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)


def test_rope_turns_every_sequence_of_a_batch_alike():
    Z = np.random.default_rng(4).standard_normal((3, 5, 4))
    np.testing.assert_array_equal(pa.rope(Z), np.stack([pa.rope(z) for z in Z]))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda W: pa.self_attention(np.ones((2, 2, 3, 8)), *W),
         r"X must be 2-D, shape \(n, d\) with one row per token, or 3-D, shape \(B, n, d\) for B "
         r"sequences of equal length; got 4-D array of shape \(2, 2, 3, 8\)\."),
        (lambda W: pa.attention_with_positions(np.ones((2, 2, 3, 8)), *W, "rope"),
         r"X must be 2-D, .* or 3-D, shape \(B, n, d\) .*; got 4-D array"),
        (lambda W: pa.scaled_dot_product_attention(np.ones((2, 3, 4)), np.ones((3, 4)),
                                                   np.ones((3, 4))),
         r"K must have shape \(2, m, 4\) to match Q of shape \(2, 3, 4\); got shape \(3, 4\)\."),
        (lambda W: pa.scaled_dot_product_attention(np.ones((2, 3, 4)), np.ones((2, 3, 4)),
                                                   np.ones((5, 3, 4))),
         r"V must have shape \(2, 3, d_v\) to match K of shape \(2, 3, 4\) .*; got shape \(5, "),
        (lambda W: pa.rope(np.ones((1, 2, 3, 4))), r"Z must be 2-D, .* got 4-D array"),
    ],
)
def test_a_batch_of_the_wrong_shape_gets_the_series_message(call, message):
    W = pa.default_projections(8, 4, 4)
    with pytest.raises(ValueError, match=message):
        call(W)

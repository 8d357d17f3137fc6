import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posattn as pa
from posattn.testing import assert_equivariant, assert_shift_equivariant

BROKEN = "f must be (permutation|shift)-equivariant"  # the assertion's failure


@st.composite
def sequences(draw, min_n=4, max_n=12):
    n, d = draw(st.integers(min_n, max_n)), draw(st.integers(1, 6))
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1))).standard_normal((n, d))


def test_rnn_matches_the_recurrence_written_out():
    X = np.array([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]])
    W_x, W_h = np.array([[0.3, -0.2], [0.1, 0.4]]), np.array([[0.5, 0.1], [-0.3, 0.2]])
    h0 = np.tanh(X[0] @ W_x)
    h1 = np.tanh(X[1] @ W_x + h0 @ W_h)
    h2 = np.tanh(X[2] @ W_x + h1 @ W_h)
    np.testing.assert_allclose(pa.rnn(X, W_x, W_h), [h0, h1, h2])


@given(sequences())
def test_rnn_state_depends_on_earlier_tokens_only(X):
    W_x, W_h = pa.rnn_weights(X.shape[1])
    H = pa.rnn(X, W_x, W_h)
    changed = X.copy()
    changed[-1] += 1.0
    np.testing.assert_array_equal(pa.rnn(changed, W_x, W_h)[:-1], H[:-1])
    changed = X.copy()
    changed[0] += 1.0
    assert (np.abs(pa.rnn(changed, W_x, W_h) - H).max(axis=1) > 0).all()


@given(sequences())
def test_rnn_is_not_permutation_equivariant(X):
    weights = pa.rnn_weights(X.shape[1])
    f = lambda X: pa.rnn(X, *weights)  # noqa: E731
    with pytest.raises(AssertionError, match=BROKEN):  # by more than rounding: atol=1e-6
        assert_equivariant(f, X, [np.arange(X.shape[0])[::-1]], atol=1e-6)


def test_conv1d_is_the_window_sum():
    X = np.arange(8.0).reshape(4, 2)
    W = pa.conv_kernel(3, 2, 1, seed=3)
    expected = [sum(X[t + o - 1] @ W[o] for o in range(3) if 0 <= t + o - 1 < 4) for t in range(4)]
    np.testing.assert_allclose(pa.conv1d(X, W), expected)


@given(sequences(min_n=5))
def test_conv1d_is_shift_equivariant_inside_but_not_permutation_equivariant(X):
    W = pa.conv_kernel(3, X.shape[1])
    f = lambda X: pa.conv1d(X, W)  # noqa: E731
    assert_shift_equivariant(f, X)
    with pytest.raises(AssertionError, match=BROKEN):  # at the edges the zero padding shows
        assert_shift_equivariant(f, X, margin=0, atol=1e-6)
    with pytest.raises(AssertionError, match=BROKEN):
        assert_equivariant(f, X, [np.arange(X.shape[0])[::-1]], atol=1e-6)


def test_symmetries_table_of_the_series():
    X = np.random.default_rng(1).standard_normal((8, 8))
    perms = [np.random.default_rng(s).permutation(8) for s in range(10)]
    W = pa.default_projections()
    attention = pa.symmetries(lambda X: pa.self_attention(X, *W)[0], X, perms)
    cumsum = pa.symmetries(lambda X: np.cumsum(X, axis=0), X, perms)
    pooled = pa.symmetries(lambda X: X.mean(axis=0), X, perms)
    keys = ("invariant", "permutation-equivariant")
    assert attention == dict(zip(keys, (False, True), strict=True))
    assert cumsum == dict(zip(keys, (False, False), strict=True))
    assert pooled == {"invariant": True, "permutation-equivariant": None}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pa.rnn(np.ones((3, 2)), np.ones((3, 4)), np.ones((4, 4))),
         r"W_x must have shape \(2, d_h\) to match X's 2 features; got shape \(3, 4\)"),
        (lambda: pa.rnn(np.ones((3, 2)), np.ones((2, 4)), np.ones((4, 3))),
         r"W_h must have shape \(4, 4\), square to match W_x's 4 hidden units"),
        (lambda: pa.conv1d(np.ones((3, 2)), np.ones((2, 2, 1))), r"kernel must have an odd width"),
        (lambda: pa.conv1d(np.ones((3, 2)), np.ones((3, 5, 1))),
         r"kernel must have shape \(width, 2, d_out\)"),
        (lambda: pa.shift_error(lambda X: X, np.ones((3, 1))), r"X must have more than 3 rows"),
    ],
)
def test_bad_input_gets_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_influence_shows_the_chain_the_window_and_the_all_to_all():
    X = np.random.default_rng(2).standard_normal((6, 8))
    W_x, W_h = pa.rnn_weights()
    W = pa.default_projections()
    i, j = np.indices((6, 6))
    np.testing.assert_array_equal(pa.influence(lambda X: pa.rnn(X, W_x, W_h), X), j <= i)
    window = pa.influence(lambda X: pa.conv1d(X, pa.conv_kernel()), X)
    np.testing.assert_array_equal(window, np.abs(i - j) <= 1)
    assert pa.influence(lambda X: pa.self_attention(X, *W)[0], X).all()

"""posattn.testing: one assertion per symmetry, a tolerance per dtype, a message that names the
order (or shift), the worst row and the error against the tolerance (issue 41 §2)."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posattn as pa
from posattn.testing import (
    TOLERANCES,
    assert_equivariant,
    assert_invariant,
    assert_shift_equivariant,
)

W = pa.default_projections()
X8 = np.random.default_rng(0).standard_normal((8, 8))  # 8 tokens: 8! orders, so 20 are sampled


def attention(X):
    return pa.self_attention(X, *W)


def with_positions(X):  # sinusoidal positions added: no longer equivariant
    return pa.self_attention(X + pa.sinusoidal_positions(*X.shape), *W)


def attention32(X):
    """Self-attention computed in float32 throughout (a learner's float32 code, say)."""
    Q, K, V = (X @ w.astype(np.float32) for w in W)  # (n, d) @ (d, d_k) -> (n, d_k)
    S = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))  # (n, n)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    return (A / A.sum(axis=1, keepdims=True)) @ V  # (n, d_v), float32


def failure(call) -> str:
    with pytest.raises(AssertionError) as caught:
        call()
    return str(caught.value)


def named_perm(message: str) -> np.ndarray:
    return np.array(eval(re.search(r"perm = (\[[^\]]*\])", message)[1]))  # noqa: S307


# ---- it passes where the symmetry holds ----------------------------------------------------

@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_self_attention_passes_and_the_largest_difference_is_returned(n, seed):
    X = np.random.default_rng(seed).standard_normal((n, 8))
    error = assert_equivariant(attention, X)
    assert 0.0 <= error <= TOLERANCES["float64"] * max(1.0, np.abs(attention(X)[0]).max())
    assert assert_invariant(lambda X: attention(X)[0].mean(axis=0), X) <= 1e-12 * 10


def test_float32_code_passes_under_the_float32_tolerance_and_fails_under_float64s():
    X = (10 * np.random.default_rng(0).standard_normal((32, 8))).astype(np.float32)
    error = assert_equivariant(attention32, X)
    assert 0 < error <= TOLERANCES["float32"] * np.abs(attention32(X)).max()  # a few ulps
    message = failure(lambda: assert_equivariant(lambda X: attention32(X).astype(np.float64), X))
    assert "float64 output: 1e-12 × max(1, max |f(X)|" in message


def test_whole_number_outputs_must_agree_exactly():
    assert assert_equivariant(lambda X: np.argsort(np.argsort(X, axis=1), axis=1), X8) == 0
    message = failure(lambda: assert_equivariant(lambda X: np.argsort(X, axis=0), X8))
    assert "above the tolerance 0 (int64 output: exact)" in message


def test_conv1d_passes_inside_and_pooling_passes_invariance():
    f = lambda X: pa.conv1d(X, pa.conv_kernel(3, 8))  # noqa: E731
    assert assert_shift_equivariant(f, X8) == 0.0
    assert assert_invariant(lambda X: np.sort(X, axis=0), X8) == 0.0


# ---- it fails where it breaks, naming the order, the row and the error -----------------------

def test_positions_added_fail_naming_the_worst_order_and_row():
    message = failure(lambda: assert_equivariant(with_positions, X8))
    perm = named_perm(message)
    row = int(re.search(r"row (\d+) of f\(X\[perm\]\)", message)[1])
    error = float(re.search(r"by ([\d.e+-]+), above the tolerance", message)[1])
    gaps = np.abs(with_positions(X8[perm])[0] - with_positions(X8)[0][perm]).max(axis=1)
    assert row == int(np.argmax(gaps)) and error == pytest.approx(gaps.max(), rel=1e-2)
    drawn = np.random.default_rng(0)  # rng=0: the orders tried, drawn one after another
    worst_of_all = max(pa.equivariance_error(with_positions, X8, drawn.permutation(8))
                       for _ in range(20))
    assert error == pytest.approx(worst_of_all, rel=1e-2)  # the worst of the 20 orders drawn
    assert re.search(r"f must be permutation-equivariant; 20 of the 20 orders tried break it\. "
                     r"The worst is perm = \[.*\] \(order \d+ drawn with rng=0\): row \d+ of "
                     r"f\(X\[perm\]\) differs from row \d+ of f\(X\)\[perm\] \(row \d+ of f\(X\)\)"
                     r" by [\d.]+, above the tolerance [\d.e-]+ \(float64 output", message)


def test_a_short_x_is_tried_in_every_order():
    """Only one transposition of 3 tokens breaks it: all 6 orders find it, whatever the seed."""
    X = np.array([[0.0], [1.0], [2.0]])
    f = lambda X: X * (1 + (X[1] == 0.0))  # noqa: E731 - doubles every row when token 0 is 2nd
    message = failure(lambda: assert_equivariant(f, X, rng=123))
    assert "2 of the 6 orders tried break it" in message and "(order " in message
    assert "of all 6)" in message


def test_given_perms_are_named_by_their_index():
    perms = [[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0]]
    message = failure(lambda: assert_equivariant(with_positions, X8, perms))
    assert "1 of the 2 orders tried breaks it" in message
    assert "perm = [7, 6, 5, 4, 3, 2, 1, 0] (perms[1])" in message


def test_a_matrix_of_tokens_by_tokens_is_reordered_along_both_axes():
    """A(PX) = P A Pᵀ: A is reordered along rows and columns; with positions it is not."""
    X = X8[:5]
    assert assert_equivariant(lambda X: attention(X)[1], X, axes=(0, 1)) <= 1e-12
    with pytest.raises(AssertionError, match=r"differs from row \d+ of f\(X\)\[perm\]"):
        assert_equivariant(lambda X: attention(X)[1], X)  # rows alone: the columns stay put
    message = failure(lambda: assert_equivariant(lambda X: with_positions(X)[1], X, axes=(0, 1)))
    assert "permutation-equivariant along the axes (0, 1); 20 of the 20 orders" in message
    perm = named_perm(message)
    (i, j), (p_i, p_j) = (tuple(map(int, found.split(", "))) for found in re.search(
        r"entry \((\d+, \d+)\) of f\(X\[perm\]\) differs from entry \((\d+, \d+)\) of f\(X\)",
        message).groups())
    assert (p_i, p_j) == (perm[i], perm[j])
    gap = np.abs(with_positions(X[perm])[1] - with_positions(X)[1][perm][:, perm])
    assert (i, j) == np.unravel_index(np.argmax(gap), gap.shape)


def test_self_attention_is_not_invariant_and_a_vector_names_its_entry():
    message = failure(lambda: assert_invariant(attention, X8))
    assert re.search(r"f must be permutation-invariant; \d+ of the 20 orders tried break it.*"
                     r"row \d+ of f\(X\[perm\]\) differs from row \d+ of f\(X\) by", message)
    first_row = failure(lambda: assert_invariant(lambda X: attention(X)[0][0], X8))
    assert re.search(r"entry \d+ of f\(X\[perm\]\) differs from entry \d+ of f\(X\)", first_row)


def test_the_edges_of_a_convolution_fail_naming_the_shift_and_row():
    f = lambda X: pa.conv1d(X, pa.conv_kernel(3, 8))  # noqa: E731
    message = failure(lambda: assert_shift_equivariant(f, X8, margin=0))
    assert "f must be shift-equivariant inside (margin = 0); 7 of the 7 shifts tried" in message
    k, t, t_k = map(int, re.search(r"the shift k = (\d+): row (\d+) of f\(X shifted by \d+\) "
                                   r"differs from row (\d+) of f\(X\)", message).groups())
    assert t - k == t_k and t in (k, 7)  # a row at an edge: row k wrapped round, or the last


def test_a_given_atol_replaces_the_dtypes_tolerance():
    error = pa.equivariance_error(with_positions, X8[:3], [2, 1, 0])
    assert assert_equivariant(with_positions, X8[:3], [[2, 1, 0]], atol=error) == error
    message = failure(lambda: assert_equivariant(with_positions, X8[:3], [[2, 1, 0]],
                                                 atol=error / 2))
    assert f"above the tolerance {error / 2:.3g} (atol = {error / 2:.3g})" in message


# ---- deterministic given a seed ------------------------------------------------------------

def test_the_orders_tried_depend_on_the_seed_only():
    first, again = (failure(lambda: assert_equivariant(with_positions, X8, rng=7))
                    for _ in range(2))
    other = failure(lambda: assert_equivariant(with_positions, X8, rng=8))
    assert first == again and named_perm(first).tolist() != named_perm(other).tolist()
    cumsum = lambda X: np.cumsum(X, axis=0)  # noqa: E731
    shifted = [failure(lambda s=s: assert_shift_equivariant(cumsum, np.ones((40, 1)), rng=s))
               for s in (1, 1, 2)]
    assert shifted[0] == shifted[1] != shifted[2]  # 37 shifts: 20 sampled


# ---- clear errors at the door --------------------------------------------------------------

@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: assert_equivariant("f", X8), TypeError, r"f must be a function of X; got str 'f'"),
    (lambda: assert_equivariant(lambda X, Y: X, X8), TypeError,
     r"f must be a function of one argument, X"),
    (lambda: assert_invariant(attention, np.ones(8)), ValueError, r"X must be 2-D"),
    (lambda: assert_equivariant(attention, [[1.0, np.nan]]), ValueError,
     r"X must hold only finite numbers"),
    (lambda: assert_equivariant(attention, X8, iter([[1, 0]])), TypeError,
     r"perms must be a list of permutations of range\(8\); got list_iterator"),
    (lambda: assert_equivariant(attention, X8, [[1, 0, 0, 3, 4, 5, 6, 7]]), ValueError,
     r"perms\[0\] must be a permutation of range\(8\); got .*repeated: 0; missing: 2"),
    (lambda: assert_equivariant(attention, X8, axes=0), TypeError,
     r"axes must be a tuple of the output's token axes, such as \(0,\) for rows .*; got int 0"),
    (lambda: assert_equivariant(attention, X8, axes=(0.0,)), TypeError, r"axes must be a tuple"),
    (lambda: assert_equivariant(lambda X: X @ X.T, X8, axes=(0, 2)), ValueError,
     r"axes must name distinct axes of f\(X\), each of length n = 8 .*; got \(0, 2\) for f\(X\)"
     r" of shape \(8, 8\)"),
    (lambda: assert_equivariant(lambda X: X @ X.T, X8, axes=(1, -1)), ValueError,
     r"axes must name distinct axes"),
    (lambda: assert_equivariant(lambda X: X[:, :3], X8, axes=(1,)), ValueError,
     r"axes must name distinct axes of f\(X\), each of length n = 8"),
    (lambda: assert_equivariant(attention, X8, samples=0), ValueError,
     r"samples must be at least 1; got 0"),
    (lambda: assert_invariant(attention, X8, samples=10**6), ValueError,
     r"samples must be at most 1,000; got 1,000,000"),
    (lambda: assert_equivariant(attention, X8, rng="seed"), TypeError,
     r"rng must be a numpy Generator or an integer seed; got str 'seed'"),
    (lambda: assert_equivariant(attention, X8, atol=-1.0), ValueError,
     r"atol must be at least 0; got -1.0"),
    (lambda: assert_invariant(attention, X8, atol="small"), TypeError,
     r"atol must be a real number; got str 'small'"),
    (lambda: assert_equivariant(lambda X: X.sum(axis=0), X8[:, :3]), ValueError,
     r"f must return one row per token \(8\) to be compared row by row; got shape \(3,\)"),
    (lambda: assert_invariant(lambda X: X[: 1 + int(X[0, 0] == X8[0, 0])], X8), ValueError,
     r"f must return the same shape whatever the order of X's rows"),
    (lambda: assert_shift_equivariant(attention, X8[:3]), ValueError,
     r"X must have more than 3 rows to leave an interior to compare \(margin = 1\); got 3"),
    (lambda: assert_shift_equivariant(attention, X8, [0]), ValueError,
     r"shifts\[0\] must be at least 1; got 0"),
    (lambda: assert_shift_equivariant(attention, X8, [6]), ValueError,
     r"shifts\[0\] must be at most 5; got 6"),
    (lambda: assert_shift_equivariant(attention, X8, 2), TypeError,
     r"shifts must be a list of integers from 1 to 5; got int 2"),
    (lambda: assert_shift_equivariant(attention, X8, margin=-1), ValueError,
     r"margin must be at least 0; got -1"),
    (lambda: assert_equivariant(lambda X: X[::-1] * 1.5e308, [[1.0], [-1.0], [0.5]]), ValueError,
     r"f's outputs must be small enough for f\(X\) − f\(X'\) to stay within float64"),
])
def test_bad_input_gets_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_f_gets_a_copy_of_x_in_its_own_float_dtype():
    seen = []
    X = X8.astype(np.float32)
    assert_equivariant(lambda Z: (seen.append(Z.dtype), Z.__imul__(2))[1], X, samples=2)
    assert set(seen) == {np.dtype(np.float32)} and (X == X8.astype(np.float32)).all()

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posattn as pa
from posattn.testing import assert_equivariant, assert_invariant


@st.composite
def attention_inputs(draw, max_n=64):
    """Random X, W_Q, W_K, W_V and a random order of the n tokens."""
    n = draw(st.integers(1, max_n))
    d, d_k, d_v = (draw(st.integers(1, 12)) for _ in range(3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d))
    weights = pa.default_projections(d, d_k, d_v, seed=int(rng.integers(1000)))
    return X, weights, rng.permutation(n)


# ---- softmax ---------------------------------------------------------------

def test_softmax_rows_are_positive_and_sum_to_one():
    A = pa.softmax([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    assert (A > 0).all()
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    np.testing.assert_allclose(A[1], 1 / 3)


def test_softmax_of_huge_logits_does_not_overflow():
    A = pa.softmax([1e300, -1e300, 1e300])
    np.testing.assert_array_equal(A, [0.5, 0.0, 0.5])


def test_softmax_gives_masked_entries_exactly_zero():
    A = pa.softmax([[0.0, -np.inf, np.log(3.0)]])
    np.testing.assert_allclose(A, [[0.25, 0.0, 0.75]])
    assert A[0, 1] == 0.0


def test_softmax_along_axis_zero_normalises_columns():
    A = pa.softmax([[1.0, 5.0], [3.0, 5.0]], axis=0)
    np.testing.assert_allclose(A.sum(axis=0), 1.0)
    np.testing.assert_allclose(A[:, 1], 0.5)


def test_softmax_does_not_change_its_input():
    S = np.array([1.0, 2.0])
    pa.softmax(S)
    np.testing.assert_array_equal(S, [1.0, 2.0])


@given(st.lists(st.floats(-50, 50), min_size=1, max_size=30), st.floats(-1e3, 1e3))
def test_softmax_sums_to_one_and_ignores_a_constant_shift(scores, c):
    S = np.array(scores)
    A = pa.softmax(S)
    assert abs(A.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(pa.softmax(S + c), A, atol=1e-12)


def test_softmax_refuses_a_fully_masked_row():
    with pytest.raises(ValueError, match=r"S must leave at least one finite score.*"
                                         r"got the row at \[1\] entirely -inf"):
        pa.softmax([[0.0, 1.0], [-np.inf, -np.inf]])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_refuses_nan_and_plus_inf(bad):
    with pytest.raises(ValueError, match="S must hold finite scores or -inf"):
        pa.softmax([0.0, bad])


def test_softmax_refuses_empty_and_text():
    with pytest.raises(ValueError, match=r"S must be a non-empty array of scores with at least one "
                                         r"axis; got shape \(0,\)"):
        pa.softmax([])
    with pytest.raises(TypeError, match="S must be an array of numbers; got str"):
        pa.softmax("scores")


# ---- attention -------------------------------------------------------------

def test_scaled_dot_product_attention_matches_the_formula_by_hand():
    Q = np.array([[1.0, 1.0]])
    K = np.array([[2.0, 0.0], [0.0, 0.0]])
    V = np.array([[10.0], [20.0]])
    Y, A = pa.scaled_dot_product_attention(Q, K, V)
    w = np.exp(2 / np.sqrt(2)) / (np.exp(2 / np.sqrt(2)) + 1)  # softmax([2/√2, 0])
    np.testing.assert_allclose(A, [[w, 1 - w]])
    np.testing.assert_allclose(Y, [[10 * w + 20 * (1 - w)]])


def test_mask_false_gets_zero_weight_and_rows_still_sum_to_one(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    mask = np.tril(np.ones((3, 3), dtype=bool))
    Y, A = pa.self_attention(X, W_Q, W_K, W_V, mask=mask)
    assert (A[~mask] == 0).all()
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    assert A[0, 0] == 1.0  # the first token can only see itself


def test_a_bias_shifts_each_score_before_the_softmax(dog_bites_man):
    """A bias of 0 except +log 2 on one score doubles that weight's odds against each other key."""
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    _, A = pa.self_attention(X, W_Q, W_K, W_V)
    B = np.zeros((3, 3))
    B[0, 2] = np.log(2.0)
    Y_b, A_b = pa.self_attention(X, W_Q, W_K, W_V, bias=B)
    np.testing.assert_allclose(A_b[0, 2] / A_b[0, 0], 2 * A[0, 2] / A[0, 0])
    np.testing.assert_allclose(A_b[1:], A[1:])  # the other queries' rows are untouched
    np.testing.assert_allclose(Y_b, A_b @ (X @ W_V))


def test_a_bias_must_be_n_by_n(dog_bites_man):
    X, W, _ = dog_bites_man
    with pytest.raises(ValueError, match=r"bias must have shape \(3, 3\).*got shape \(3,\)"):
        pa.self_attention(X, *W, bias=np.zeros(3))


# "dog bites man" with the default projections, worked out once and written down
A_DOG_BITES_MAN = [[0.521082, 0.271249, 0.207669], [0.605016, 0.169062, 0.225922],
                   [0.382533, 0.313372, 0.304096]]
Y_DOG_BITES_MAN = [[-0.936058, 1.188629, -0.053999, 1.442655],
                   [-1.037548, 1.283846, 0.007884, 1.482878],
                   [-0.72619, 0.927407, 0.112712, 1.39463]]


def test_self_attention_of_dog_bites_man_has_the_values_worked_out_once(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    Y, A = pa.self_attention(X, W_Q, W_K, W_V)
    np.testing.assert_allclose(A, A_DOG_BITES_MAN, rtol=0, atol=1e-6)
    np.testing.assert_allclose(Y, Y_DOG_BITES_MAN, rtol=0, atol=1e-6)
    Y2, A2 = pa.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V)
    np.testing.assert_allclose(A2, A_DOG_BITES_MAN, rtol=0, atol=1e-6)


def test_outputs_are_float64(dog_bites_man):
    X, W, _ = dog_bites_man
    Y, A = pa.self_attention(X.astype(np.float32), *W)
    assert Y.dtype == A.dtype == np.float64


@given(attention_inputs(max_n=24))
def test_loop_agrees_with_vectorised_self_attention(case):
    """Oracle test: the literal loop over the formula against the vectorised code."""
    X, W, _ = case
    Y, A = pa.self_attention(X, *W)
    Y_loop, A_loop = pa.attention_loop(X, *W)
    np.testing.assert_allclose(A_loop, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Y_loop, Y, rtol=0, atol=1e-12)


# ---- the symmetry ------------------------------------------------------------

@given(attention_inputs())
def test_self_attention_is_permutation_equivariant(case):
    X, W, perm = case
    assert_equivariant(lambda X: pa.self_attention(X, *W), X, [perm])


@given(attention_inputs())
def test_attention_matrix_is_conjugated_by_P(case):
    X, W, perm = case
    assert_equivariant(lambda X: pa.self_attention(X, *W)[1], X, [perm], axes=(0, 1))
    A, P = pa.self_attention(X, *W)[1], pa.permutation_matrix(perm)
    np.testing.assert_array_equal(P @ A @ P.T, A[perm][:, perm])  # what axes=(0, 1) compares


@given(attention_inputs())
def test_mean_pooled_self_attention_is_permutation_invariant(case):
    X, W, perm = case
    pooled = lambda X: pa.self_attention(X, *W)[0].mean(axis=0)  # noqa: E731
    assert_invariant(pooled, X, [perm])


def test_self_attention_is_not_permutation_invariant(dog_bites_man):
    """Negative control: equivariant is not invariant: the rows do move."""
    X, W, _ = dog_bites_man
    with pytest.raises(AssertionError, match=r"permutation-invariant; 1 of the 1 order tried "
                                             r"breaks it\. .* by 0\.\d+, above"):
        assert_invariant(lambda X: pa.self_attention(X, *W), X, [[2, 1, 0]])


# ---- bad input -----------------------------------------------------------------

def test_x_must_be_two_dimensional(dog_bites_man):
    _, W, _ = dog_bites_man
    with pytest.raises(ValueError, match=r"X must be 2-D, shape \(n, d\) with one row per token, "
                                         r"or 3-D.*; got 1-D array of shape \(8,\)"):
        pa.self_attention(np.ones(8), *W)


def test_w_q_rows_must_match_x_features(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    with pytest.raises(ValueError, match=r"W_Q must have shape \(8, d_k\) to match X's 8 features; "
                                         r"got shape \(4, 4\)"):
        pa.self_attention(X, W_Q[:4], W_K, W_V)


def test_w_k_columns_must_match_w_q(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    with pytest.raises(ValueError, match=r"W_K must have shape \(8, 4\), the shape of W_Q .*; "
                                         r"got shape \(8, 3\)"):
        pa.self_attention(X, W_Q, W_K[:, :3], W_V)


def test_q_and_k_must_share_d_k():
    with pytest.raises(ValueError, match=r"K must have shape \(m, 2\) to match Q of shape "
                                         r"\(2, 2\); got shape \(2, 3\)"):
        pa.scaled_dot_product_attention(np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 1)))


def test_v_needs_one_row_per_key():
    with pytest.raises(ValueError, match=r"V must have shape \(4, d_v\) to match K of shape "
                                         r"\(4, 2\) \(a value per key\); got shape \(3, 1\)"):
        pa.scaled_dot_product_attention(np.ones((2, 2)), np.ones((4, 2)), np.ones((3, 1)))


def test_empty_sequence_is_refused(dog_bites_man):
    _, W, _ = dog_bites_man
    with pytest.raises(ValueError, match=r"X must not be empty; got shape \(0, 8\)"):
        pa.self_attention(np.zeros((0, 8)), *W)


@pytest.mark.parametrize("where", ["X", "W_V"])
def test_nan_or_inf_in_inputs_is_refused(dog_bites_man, where):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    args = {"X": X.copy(), "W_Q": W_Q, "W_K": W_K, "W_V": W_V.copy()}
    args[where][1, 2] = np.nan if where == "X" else np.inf
    with pytest.raises(ValueError, match=rf"{where} must hold only finite numbers; "
                                         r"got (nan|inf) at index \(1, 2\)"):
        pa.self_attention(**args)


def test_text_instead_of_an_array_is_a_type_error(dog_bites_man):
    _, W, _ = dog_bites_man
    with pytest.raises(TypeError, match="X must be an array of numbers; got str 'dog bites man'"):
        pa.self_attention("dog bites man", *W)


def test_mask_must_be_boolean(dog_bites_man):
    X, W, _ = dog_bites_man
    with pytest.raises(TypeError, match="mask must be a boolean array .True = may attend.; "
                                        "got dtype float64"):
        pa.self_attention(X, *W, mask=np.ones((3, 3)))


def test_mask_must_have_shape_n_by_n(dog_bites_man):
    X, W, _ = dog_bites_man
    with pytest.raises(ValueError, match=r"mask must have shape \(3, 3\).*got \(2, 3\)"):
        pa.self_attention(X, *W, mask=np.ones((2, 3), dtype=bool))


def test_mask_must_leave_every_query_a_key(dog_bites_man):
    X, W, _ = dog_bites_man
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError, match="mask must let every query attend to at least one key; "
                                         "got row 1 all False"):
        pa.self_attention(X, *W, mask=mask)


def test_attention_loop_validates_like_self_attention(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    with pytest.raises(ValueError, match=r"W_V must have shape \(8, d_v\)"):
        pa.attention_loop(X, W_Q, W_K, W_V[:5])


def test_scores_that_overflow_are_refused_naming_the_callers_arguments(dog_bites_man):
    X, W, _ = dog_bites_man
    message = (r"X, W_Q, W_K and W_V must be small enough for self-attention to stay within "
               r"float64 \(about ±1.8e308\); got an overflow\. Scale them down\.")
    with pytest.raises(ValueError, match=message):
        pa.self_attention(X * 1e200, *W)
    with pytest.raises(ValueError, match=message):
        pa.self_attention(np.full((3, 8), 1e308), np.ones((8, 4)), *W[1:])
    with pytest.raises(ValueError, match=message):
        pa.attention_loop(X * 1e200, *W)
    with pytest.raises(ValueError, match=r"^Q, K, V must be small enough for A = softmax"):
        pa.scaled_dot_product_attention(X * 1e200, X * 1e200, X)


def test_complex_input_is_refused_not_cut_to_its_real_part(dog_bites_man):
    X, W, _ = dog_bites_man
    with pytest.raises(TypeError, match=r"X must hold real numbers; got complex values such as "
                                        r"\(0.23.*\+0j\)\. Take \.real"):
        pa.self_attention(X.astype(complex), *W)
    with pytest.raises(TypeError, match=r"S must hold real numbers; got complex"):
        pa.softmax([1j, 0.0])


def test_softmax_axis_must_exist():
    with pytest.raises(ValueError, match=r"axis must be an integer from -2 to 1 for S of shape "
                                         r"\(1, 2\); got 2"):
        pa.softmax([[0.0, 1.0]], axis=2)


# ---- cross-attention: queries from X, keys and values from Z -------------------------------

@st.composite
def cross_inputs(draw):
    """X (n, d) and Z (m, d_z) of different sizes, weights to match, and an order of each."""
    n, m, d, d_z, d_k, d_v = (draw(st.integers(1, 9)) for _ in range(6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X, Z = rng.standard_normal((n, d)), rng.standard_normal((m, d_z))
    W = (rng.standard_normal((d, d_k)), rng.standard_normal((d_z, d_k)),
         rng.standard_normal((d_z, d_v)))
    return X, Z, W, rng.permutation(n), rng.permutation(m)


@given(cross_inputs())
def test_cross_attention_is_equivariant_in_the_queries(inputs):
    X, Z, W, perm, _ = inputs
    assert_equivariant(lambda X: pa.cross_attention(X, Z, *W)[0], X, [perm])


@given(cross_inputs())
def test_cross_attention_is_invariant_under_a_joint_reordering_of_keys_and_values(inputs):
    X, Z, W, _, perm_z = inputs
    assert_invariant(lambda Z: pa.cross_attention(X, Z, *W)[0], Z, [perm_z])
    A, A_reordered = pa.cross_attention(X, Z, *W)[1], pa.cross_attention(X, Z[perm_z], *W)[1]
    np.testing.assert_allclose(A_reordered, A[:, perm_z], atol=1e-12)  # the columns move along


def test_reordering_the_keys_without_the_values_changes_cross_attention(rng):
    """The negative control: the invariance needs keys and values moved together."""
    X, Z = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    W_Q, W_K, W_V = pa.default_projections(4, 4, 4, seed=1)
    Q, K, V = X @ W_Q, Z @ W_K, Z @ W_V
    perm = np.array([4, 3, 2, 1, 0])
    Y = pa.scaled_dot_product_attention(Q, K, V)[0]
    assert np.abs(pa.scaled_dot_product_attention(Q, K[perm], V)[0] - Y).max() > 0.01
    np.testing.assert_allclose(pa.scaled_dot_product_attention(Q, K[perm], V[perm])[0], Y,
                               atol=1e-12)


def test_cross_attention_of_a_sequence_on_itself_is_self_attention(rng):
    X = rng.standard_normal((4, 8))
    W_Q, W_K, W_V = pa.default_projections()
    mask = pa.causal_mask(4)
    for got, want in zip(pa.cross_attention(X, X, W_Q, W_K, W_V, mask),
                         pa.self_attention(X, W_Q, W_K, W_V, mask), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-15)


def test_cross_attention_against_the_literal_sums(rng):
    """Oracle: α_ij = exp(q_i·k_j/√d_k) / Σ_l exp(q_i·k_l/√d_k), y_i = Σ_j α_ij v_j, by hand."""
    X, Z = rng.standard_normal((2, 3)), rng.standard_normal((4, 5))
    W_Q, W_K, W_V = (rng.standard_normal(shape) for shape in [(3, 2), (5, 2), (5, 6)])
    Y, A = pa.cross_attention(X, Z, W_Q, W_K, W_V)
    for i in range(2):
        s = [float(X[i] @ W_Q @ (Z[j] @ W_K)) / np.sqrt(2) for j in range(4)]
        alpha = [np.exp(v) / sum(np.exp(u) for u in s) for v in s]
        np.testing.assert_allclose(A[i], alpha, atol=1e-12)
        np.testing.assert_allclose(Y[i], sum(a * Z[j] @ W_V for j, a in enumerate(alpha)),
                                   atol=1e-12)


@pytest.mark.parametrize(("arguments", "message"), [
    (dict(W_K=np.ones((4, 2))), r"W_K must have shape \(5, 2\) to match Z's 5 features and "
                                r"W_Q's d_k = 2 \(q·k needs equal lengths\); got shape \(4, 2\)"),
    (dict(W_K=np.ones((5, 3))), r"W_K must have shape \(5, 2\) .*; got shape \(5, 3\)"),
    (dict(W_V=np.ones((3, 2))), r"W_V must have shape \(5, d_v\) to match Z's 5 features; got "
                                r"shape \(3, 2\)"),
    (dict(W_Q=np.ones((5, 2))), r"W_Q must have shape \(3, d_k\) to match X's 3 features"),
    (dict(mask=np.ones((3, 3), bool)), r"mask must have shape \(3, 5\), one row per query and "
                                       r"one column per key; got \(3, 3\)"),
    (dict(Z=np.ones(5)), r"Z must"),
])
def test_cross_attention_names_the_argument_that_does_not_fit(arguments, message):
    given_ = {"X": np.ones((3, 3)), "Z": np.ones((5, 5)), "W_Q": np.ones((3, 2)),
              "W_K": np.ones((5, 2)), "W_V": np.ones((5, 4)), **arguments}
    with pytest.raises((ValueError, TypeError), match=message):
        pa.cross_attention(**given_)

import itertools
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posattn as pa
from posattn import schemes
from posattn.testing import assert_equivariant

SCHEMES = list(pa.SCHEMES)


@st.composite
def sequences(draw, min_n=2, max_n=10):
    """Random X (n, d) with default projections of even d_k, so that every scheme applies."""
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(2, 12))
    d_k = 2 * draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    weights = pa.default_projections(d, d_k, draw(st.integers(1, 6)), seed=int(rng.integers(1000)))
    return rng.standard_normal((n, d)), weights


def _orders(n):
    """Every order of up to 5 tokens, else every rotation."""
    return list(pa.all_permutations(n)) if n <= 5 else [np.roll(np.arange(n), s)
                                                        for s in range(1, n)]


def _with(weights, scheme):
    return lambda X: pa.attention_with_positions(X, *weights, scheme=scheme)


def _largest_error(X, weights, scheme):
    return max(pa.equivariance_error(_with(weights, scheme), X, p) for p in _orders(len(X)))


# ---- the registry ------------------------------------------------------------------

def test_schemes_come_in_a_stable_order_with_no_none_entry():
    assert SCHEMES == ["sinusoidal", "learned", "rope", "alibi", "alibi_symmetric", "causal",
                       "relative"]


# A of "dog bites man" under each scheme, default projections: worked out once, written down
A_BY_SCHEME = {
    "sinusoidal": [[0.135399, 0.315285, 0.549315], [0.232195, 0.231137, 0.536668],
                   [0.201089, 0.357354, 0.441556]],
    "learned": [[0.665631, 0.283991, 0.050377], [0.894258, 0.045674, 0.060068],
                [0.199001, 0.511425, 0.289574]],
    "rope": [[0.601266, 0.251352, 0.147383], [0.585819, 0.196445, 0.217736],
             [0.396777, 0.316819, 0.286403]],
    "alibi": [[1.0, 0.0, 0.0], [0.684599, 0.315401, 0.0], [0.221654, 0.299373, 0.478973]],
    "alibi_symmetric": [[0.683834, 0.215907, 0.100259], [0.545219, 0.251188, 0.203593],
                        [0.221654, 0.299373, 0.478973]],
    "causal": [[1.0, 0.0, 0.0], [0.781595, 0.218405, 0.0], [0.382533, 0.313372, 0.304096]],
    "relative": [[0.607301, 0.04607, 0.346629], [0.286826, 0.596926, 0.116248],
                 [0.498316, 0.060978, 0.440706]],
}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme_returns_q_k_v_mask_bias_and_states_its_equation(scheme, dog_bites_man):
    X, weights, _ = dog_bites_man
    f = pa.SCHEMES[scheme]
    Q, K, V, mask, bias = f(X, *weights)
    assert Q.shape == K.shape == V.shape == (3, 4)
    assert mask is None or mask.shape == (3, 3) and mask.dtype == bool
    assert bias is None or bias.shape == (3, 3)
    assert any(symbol in f.__doc__ for symbol in ("=", "−")), "the docstring holds the equation"
    A = pa.attention_with_positions(X, *weights, scheme)[1]
    np.testing.assert_allclose(A, A_BY_SCHEME[scheme], rtol=0, atol=1e-6)


# ---- the headline: every scheme breaks equivariance -------------------------------

@given(sequences())
def test_no_scheme_is_exactly_self_attention(inputs):
    X, weights = inputs
    pairs = zip(pa.attention_with_positions(X, *weights), pa.self_attention(X, *weights),
                strict=True)
    for got, expected in pairs:
        np.testing.assert_array_equal(got, expected)


@given(sequences(), st.sampled_from(SCHEMES))
def test_every_position_scheme_breaks_permutation_equivariance(inputs, scheme):
    X, weights = inputs
    if scheme == "alibi_symmetric" and X.shape[0] == 2:
        X = np.vstack([X, X[:1] + 1.0])  # with n = 2, |i − j| cannot tell a swap (a mirror) apart
    with pytest.raises(AssertionError, match="f must be permutation-equivariant"):
        assert_equivariant(_with(weights, scheme), X, _orders(len(X)), atol=1e-6)  # not rounding


@given(sequences(max_n=6))
def test_no_scheme_means_equivariance_up_to_rounding(inputs):
    X, weights = inputs
    assert_equivariant(_with(weights, None), X, _orders(len(X)))


@given(sequences(min_n=2, max_n=8))
def test_symmetric_alibi_cannot_tell_a_sentence_from_its_mirror_image(inputs):
    # |i − j| is unchanged by reversing the order, so reversal stays a symmetry of that variant
    X, weights = inputs
    mirror = [np.arange(X.shape[0])[::-1]]
    assert_equivariant(_with(weights, "alibi_symmetric"), X, mirror)
    with pytest.raises(AssertionError, match="f must be permutation-equivariant"):
        assert_equivariant(_with(weights, "alibi"), X, mirror)


def test_position_errors_on_dog_bites_man_are_large(dog_bites_man):
    X, weights, _ = dog_bites_man
    for scheme in SCHEMES:
        assert _largest_error(X, weights, scheme) > 0.1, scheme


# ---- sinusoidal ------------------------------------------------------------------

def test_sinusoidal_interleaved_matches_the_paper_formula():
    n, d = 7, 6
    E = pa.sinusoidal_positions(n, d)
    for p, i in itertools.product(range(n), range(d // 2)):
        assert E[p, 2 * i] == pytest.approx(np.sin(p / 10000 ** (2 * i / d)), abs=1e-15)
        assert E[p, 2 * i + 1] == pytest.approx(np.cos(p / 10000 ** (2 * i / d)), abs=1e-15)


@pytest.mark.parametrize("d", [1, 5, 8])
def test_split_layout_is_a_column_reordering_of_interleaved(d):
    E, split = pa.sinusoidal_positions(9, d), pa.sinusoidal_positions(9, d, layout="split")
    order = list(range(0, d, 2)) + list(range(1, d, 2))
    np.testing.assert_array_equal(split, E[:, order])


@given(st.integers(1, 30), st.sampled_from([2, 4, 8, 16]))
def test_sinusoidal_shift_by_k_is_one_fixed_linear_map(k, d):
    E = pa.sinusoidal_positions(60 + k, d)
    M_k = pa.sinusoidal_shift(k, d)
    np.testing.assert_allclose(E[:60] @ M_k, E[k:], atol=1e-10)
    np.testing.assert_allclose(M_k @ M_k.T, np.eye(d), atol=1e-12)  # a rotation: lengths are kept
    M_k1 = pa.sinusoidal_shift(k + 1, d)
    np.testing.assert_allclose(M_k @ pa.sinusoidal_shift(1, d), M_k1, atol=1e-12)


# ---- learned ---------------------------------------------------------------------

def test_learned_table_is_fixed_and_shared_by_prefixes():
    np.testing.assert_array_equal(pa.learned_positions(5, 8), pa.learned_positions(64, 8)[:5])
    assert not np.allclose(pa.learned_positions(5, 8), pa.learned_positions(5, 8, seed=1))


# ---- RoPE ------------------------------------------------------------------------

@given(sequences(), st.floats(-50, 50))
def test_rope_scores_ignore_a_common_shift_of_positions(inputs, k):
    X, (W_Q, W_K, _) = inputs
    Q, K = X @ W_Q, X @ W_K
    p = np.arange(X.shape[0], dtype=float)
    S = pa.rope(Q, p) @ pa.rope(K, p).T
    np.testing.assert_allclose(pa.rope(Q, p + k) @ pa.rope(K, p + k).T, S, atol=1e-9)


def test_rope_score_depends_on_the_offset_only(rng):
    q, k = rng.standard_normal((1, 6)), rng.standard_normal((1, 6))
    score = lambda i, j: float((pa.rope(q, [i]) @ pa.rope(k, [j]).T)[0, 0])  # noqa: E731
    assert score(5, 2) == pytest.approx(score(13, 10), abs=1e-12)
    assert score(5, 2) != pytest.approx(score(2, 5), abs=1e-3)  # the sign of the offset matters


def test_rope_keeps_lengths_and_position_zero():
    Z = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.linalg.norm(pa.rope(Z), axis=1), np.linalg.norm(Z, axis=1))
    np.testing.assert_array_equal(pa.rope(Z)[0], Z[0])


# ---- ALiBi and the causal mask -------------------------------------------------

@given(st.integers(1, 20), st.floats(0.01, 4.0))
def test_alibi_bias_depends_only_on_distance(n, m):
    B = pa.alibi_bias(n, m)
    i, j = np.indices((n, n))
    np.testing.assert_allclose(B, -m * np.abs(i - j))
    np.testing.assert_array_equal(B, B.T)
    np.testing.assert_array_equal(B[:-1, :-1], B[1:, 1:])  # same along every diagonal


@given(sequences(min_n=1))
def test_causal_mask_makes_A_lower_triangular_with_rows_summing_to_one(inputs):
    X, weights = inputs
    _, A = pa.attention_with_positions(X, *weights, scheme="causal")
    np.testing.assert_array_equal(np.triu(A, 1), 0.0)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-12)


def test_alibi_is_the_papers_causal_form_by_hand(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    S = (X @ W_Q) @ (X @ W_K).T / 2.0  # √d_k = 2
    i, j = np.indices((3, 3))
    S = np.where(j <= i, S - 0.25 * (i - j), -np.inf)  # −m·(i − j) on keys j ≤ i, m = 0.25
    expected = np.exp(S - S.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    _, A = pa.attention_with_positions(X, W_Q, W_K, W_V, "alibi", slope=0.25)
    np.testing.assert_allclose(A, expected, atol=1e-15)
    assert A[0, 0] == 1.0  # the causal mask: the first token sees only itself


def test_learned_scheme_takes_a_trained_table(dog_bites_man):
    X, weights, _ = dog_bites_man
    table = np.zeros((5, 8))
    table[1] = 3.0  # only position 1 carries a vector
    Y, A = pa.attention_with_positions(X, *weights, "learned", table=table)
    Y_by_hand, A_by_hand = pa.self_attention(X + table[:3], *weights)
    np.testing.assert_array_equal(A, A_by_hand)
    np.testing.assert_array_equal(Y, Y_by_hand)
    with pytest.raises(ValueError, match=r"table must have shape \(max_len, 8\) to match X's 8 "
                                         r"features"):
        pa.attention_with_positions(X, *weights, "learned", table=np.zeros((5, 4)))
    with pytest.raises(ValueError, match=r"n must be at most max_len = 2"):
        pa.attention_with_positions(X, *weights, "learned", table=np.zeros((2, 8)))


def test_options_must_belong_to_the_scheme(dog_bites_man):
    X, weights, _ = dog_bites_man
    with pytest.raises(TypeError, match=r"options for scheme 'rope' must be among \(\); got slope"):
        pa.attention_with_positions(X, *weights, "rope", slope=1.0)
    with pytest.raises(TypeError, match=r"options for scheme None must be among \(\); got table"):
        pa.attention_with_positions(X, *weights, table=np.zeros((3, 8)))


def test_attention_bias_is_added_to_the_scores():
    Y, A = pa.scaled_dot_product_attention([[0.0]], [[0.0], [0.0]], [[1.0], [3.0]],
                                           bias=[[np.log(3.0), 0.0]])
    np.testing.assert_allclose(A, [[0.75, 0.25]])
    np.testing.assert_allclose(Y, [[1.5]])


# ---- messages ----------------------------------------------------------------------

def test_unknown_scheme_lists_the_valid_ones(dog_bites_man):
    X, weights, _ = dog_bites_man
    assert list(schemes.REGISTRY)[:7] == SCHEMES  # the series' seven first, then any others
    named = ", ".join(map(repr, schemes.REGISTRY))  # every registered scheme, in its order
    expected = re.escape(f"scheme must be one of {named}, or None for no positions; got ")
    for wrong in ("sine", "none"):
        with pytest.raises(ValueError, match=expected + repr(wrong)):
            pa.attention_with_positions(X, *weights, scheme=wrong)


def test_sentence_longer_than_the_learned_table_is_refused():
    with pytest.raises(ValueError, match=r"n must be at most max_len = 64.*got n = 65"):
        pa.learned_positions(65, 8)
    with pytest.raises(ValueError, match=r"n must be at most max_len = 64"):
        pa.attention_with_positions(np.ones((65, 8)), *pa.default_projections(), "learned")


def test_rope_refuses_odd_d_k():
    with pytest.raises(ValueError, match=r"even number of columns \(d_k\).*got d_k = 3"):
        pa.rope(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"got d_k = 3"):
        pa.attention_with_positions(np.ones((2, 8)), *pa.default_projections(8, 3, 4), "rope")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: pa.sinusoidal_positions(3, 4, layout="halves"), ValueError,
         r"layout must be one of 'interleaved', 'split'"),
        (lambda: pa.sinusoidal_shift(1, 5), ValueError, r"d must be even for the shift matrix"),
        (lambda: pa.alibi_bias(3, slope=-1.0), ValueError,
         r"slope must be a finite number above 0.0; got -1.0"),
        (lambda: pa.rope(np.ones((2, 4)), positions=[0.0]), ValueError,
         r"positions must have shape \(2,\), one entry per row of Z; got shape \(1,\)"),
        (lambda: pa.frequencies(4, base=1.0), ValueError,
         r"base must be a finite number above 1.0; got 1.0"),
        (lambda: pa.causal_mask(0), ValueError, r"n must be at least 1"),
        (lambda: pa.sinusoidal_shift(np.nan, 4), ValueError, r"k must be a finite number; got nan"),
        (lambda: pa.sinusoidal_shift(1j, 4), TypeError, r"k must be a real number; got complex 1j"),
        (lambda: pa.alibi_bias(3, slope=True), TypeError, r"slope must be a real number; got bool"),
        (lambda: pa.alibi_bias(3, slope=1e308), ValueError,
         r"slope must be small enough for B = −m·\|i − j\| with n = 3 to stay within float64 "
         r"\(about ±1.8e308\); got an overflow\. Scale it down\."),
        (lambda: pa.frequencies(4, base=10**400), ValueError,
         r"base must be a finite number above"),
        (lambda: pa.rope(np.ones((2, 4)), positions=[0.0, np.inf]), ValueError,
         r"positions must hold only finite numbers; got inf at index \(1,\)"),
        (lambda: pa.scaled_dot_product_attention([[1.0]], [[1.0]], [[1.0]], bias=[[0.0, 0.0]]),
         ValueError, r"bias must have shape \(1, 1\)"),
        (lambda: pa.attention_with_positions(np.ones((2, 8)), *pa.default_projections(), 3),
         ValueError, r"scheme must be one of .*got 3"),
    ],
)
def test_bad_input_gets_a_clear_message(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---- relative positions: a bias per offset, clipped at k --------------------------------------

@given(st.integers(1, 12), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_relative_bias_depends_on_the_offset_only_and_is_constant_beyond_the_clip(n, k, seed):
    table = np.random.default_rng(seed).normal(size=2 * k + 1)
    B = pa.relative_bias(n, table, k)
    assert B.shape == (n, n)
    for i, j in itertools.product(range(n), repeat=2):
        assert B[i, j] == table[min(max(j - i, -k), k) + k]  # the equation, entry by entry
        if i + 1 < n and j + 1 < n:
            assert B[i + 1, j + 1] == B[i, j]  # a function of j − i alone
        if j - i >= k:
            assert B[i, j] == table[-1]  # every offset of k or more: the end entry
        if j - i <= -k:
            assert B[i, j] == table[0]


def test_relative_bias_with_clip_zero_is_one_number_and_sees_no_order(dog_bites_man):
    X, weights, _ = dog_bites_man
    assert (pa.relative_bias(4, [0.7], 0) == 0.7).all()
    f = lambda X: pa.attention_with_positions(X, *weights, "relative", table=[0.7])[0]  # noqa: E731
    assert_equivariant(f, X)  # 3 tokens: every one of the 6 orders


def test_relative_scheme_adds_its_bias_to_the_scores(dog_bites_man):
    X, (W_Q, W_K, W_V), _ = dog_bites_man
    table = np.array([-1.0, 0.5, 0.0, 2.0, 0.25])
    Y, A = pa.attention_with_positions(X, W_Q, W_K, W_V, "relative", table=table)
    by_hand = pa.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V,
                                              bias=pa.relative_bias(3, table, 2))
    np.testing.assert_array_equal(A, by_hand[1])
    np.testing.assert_array_equal(Y, by_hand[0])
    default = pa.attention_with_positions(X, W_Q, W_K, W_V, "relative")[1]
    explicit = pa.attention_with_positions(X, W_Q, W_K, W_V, "relative", max_distance=4)[1]
    np.testing.assert_array_equal(default, explicit)  # RELATIVE_CLIP is the default k


def test_relative_scheme_cannot_see_two_words_swap_beyond_the_clip():
    """The blind spot: a query k or more before both swapped words keeps its row of Y."""
    rng = np.random.default_rng(5)
    X, table = rng.normal(size=(9, 6)), rng.normal(size=5)  # k = 2
    weights = pa.default_projections(6, 4, 4)
    swapped = X[[0, 1, 2, 3, 4, 5, 8, 7, 6]]  # words 6 and 8 trade places
    Y, Y_swapped = (pa.attention_with_positions(x, *weights, "relative", table=table)[0]
                    for x in (X, swapped))
    change = np.abs(Y_swapped - Y).max(axis=1)
    assert (change[:5] < 1e-12).all()  # queries 0-4: offsets of +2 or more to both
    assert change[5] > 1e-3 and change[7] > 1e-3  # within the clip, or between the two


def test_sinusoids_at_any_positions_are_the_table_at_whole_ones():
    from posattn.positions import _sinusoids

    np.testing.assert_array_equal(_sinusoids(np.arange(7), 6), pa.sinusoidal_positions(7, 6))
    p = np.array([[0.0, 2.0], [5.0, 1.0]])  # (2, 2): positions per row, as a remedy gives
    E = _sinusoids(p, 6)
    assert E.shape == (2, 2, 6)
    np.testing.assert_allclose(E[1, 0], pa.sinusoidal_positions(6, 6)[5], atol=1e-15)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: pa.relative_bias(3, [0.0, 1.0], 1), ValueError,
         r"table must hold 2k \+ 1 = 3 biases for max_distance k = 1, one per offset −k … k; "
         r"got 2"),
        (lambda: pa.relative_bias(3, [0.0, 1.0, 2.0], -1), ValueError,
         "max_distance must be at least 0; got -1"),
        (lambda: pa.relative_bias(3, [[0.0, 1.0, 2.0]], 1), ValueError,
         r"table must have shape \(2k \+ 1,\), one bias per offset −k … k; got shape \(1, 3\)"),
        (lambda: pa.relative_bias(3, ["a", "b", "c"], 1), TypeError,
         "table must be an array of numbers"),
        (lambda: pa.relative_bias(3, [0.0, np.nan, 1.0], 1), ValueError,
         "table must hold only finite numbers"),
        (lambda: pa.relative_bias(3, [0.0, 1.0, 2.0], 1.5), TypeError,
         "max_distance must be an integer; got float"),
        (lambda: pa.attention_with_positions(np.ones((3, 8)), *pa.default_projections(),
                                             "relative", table=[0.0, 1.0]), ValueError,
         r"table must hold an odd number 2k \+ 1 of biases, for the offsets −k … k; got 2"),
        (lambda: pa.attention_with_positions(np.ones((3, 8)), *pa.default_projections(),
                                             "relative", max_distance=10**9), ValueError,
         "max_distance must be small enough for the table b"),
        (lambda: pa.attention_with_positions(np.ones((3, 8)), *pa.default_projections(),
                                             "relative", slope=1.0), TypeError,
         r"options for scheme 'relative' must be among \(table, max_distance\); got slope"),
    ],
)
def test_relative_positions_refuse_bad_input_clearly(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---- the padding mask ------------------------------------------------------------------------

@pytest.mark.parametrize("padded_to", [4, 5, 9])
def test_a_padded_sequence_gives_each_real_row_what_the_sequence_alone_gives(padded_to, rng):
    X = rng.standard_normal((4, 8))
    padded = np.vstack([X, rng.standard_normal((padded_to - 4, 8))])  # any rows as padding
    W = pa.default_projections()
    Y = pa.self_attention(padded, *W, mask=pa.padding_mask(4, padded_to))[0]
    np.testing.assert_allclose(Y[:4], pa.self_attention(X, *W)[0], atol=1e-14)


def test_without_the_padding_mask_the_padding_reaches_the_real_rows(rng):
    """The negative control: unmasked, the rows added as padding change the real rows."""
    X = rng.standard_normal((4, 8))
    padded = np.vstack([X, np.zeros((3, 8))])
    W = pa.default_projections()
    assert np.abs(pa.self_attention(padded, *W)[0][:4] - pa.self_attention(X, *W)[0]).max() > 0.01


def test_the_padding_mask_is_unchanged_by_reordering_the_real_tokens_only():
    M = pa.padding_mask(3, 5)
    inside, across = np.array([2, 0, 1, 3, 4]), np.array([0, 3, 2, 1, 4])
    assert np.array_equal(M[inside][:, inside], M)
    assert not np.array_equal(M[across][:, across], M)  # a padding row moved among the words
    assert M.all(axis=1).sum() == 0 and M[:, :3].all() and not M[:, 3:].any()


@pytest.mark.parametrize(("length", "n", "error", "message"), [
    (6, 5, ValueError, r"length must be at most 5; got 6"),
    (0, 5, ValueError, r"length must be at least 1; got 0"),
    (2.0, 5, TypeError, r"length must be an integer; got float 2\.0"),
    (2, 0, ValueError, r"n must be at least 1; got 0"),
])
def test_padding_mask_names_a_length_that_does_not_fit(length, n, error, message):
    with pytest.raises(error, match=message):
        pa.padding_mask(length, n)

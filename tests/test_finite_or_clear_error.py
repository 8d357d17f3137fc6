"""Every public math function returns finite numbers or raises ValueError/TypeError (the template).

Whatever comes in (huge, tiny, NaN, inf, complex, text, dates, objects, huge sizes, mismatched
shapes, things that are not functions), the answer is either finite, right numbers, or a
ValueError/TypeError whose message reads "<argument> must …; got …" — never NaN, never inf,
never a RuntimeWarning, never a raw library exception, never a long wait.
"""

import re
import time
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import posattn as pa
from posattn import schemes

TEMPLATE = re.compile(r"^\S.* must .+; got .+", re.DOTALL)
EXTREMES = [0.0, 1.0, -1.0, 1e-300, 1e150, 1e200, -1e200, 1e300, 1.7e308, -1.7e308,
            np.nan, np.inf, -np.inf]
numbers = st.one_of(st.sampled_from(EXTREMES), st.floats(-10, 10), st.floats())
odd_things = st.sampled_from(["dog", None, 1j, [[1j, 2.0]], [[1, 2], [3]], [], [[]], 3.0, True,
                              [["1", "2"]], np.array([["2020-01-01"]], dtype="datetime64[D]"),
                              np.array([[None, 1.0]], dtype=object), np.eye(2, dtype=bool)])


def matrix(rows, cols):
    """A (rows, cols) float array of any numbers, or now and then something that is no matrix."""
    return st.one_of(arrays(np.float64, (rows, cols), elements=numbers),
                     arrays(np.float64, (rows, cols), elements=st.floats(-3, 3)),
                     odd_things)


def vector(size):
    return st.one_of(arrays(np.float64, (size,), elements=numbers), odd_things)


@st.composite
def cases(draw):
    """The arguments of one call: matrices of matching shapes (mostly), a number x, a size k."""
    n, d, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))
    d_k *= 2  # even, so that RoPE applies and two heads split it
    kernel = st.one_of(arrays(np.float64, (3, d, d_k), elements=numbers), odd_things)
    return SimpleNamespace(
        n=n, X=draw(matrix(n, d)), W_Q=draw(matrix(d, d_k)), W_K=draw(matrix(d, d_k)),
        W_V=draw(matrix(d, d_v)), B=draw(matrix(n, n)), W_h=draw(matrix(d_k, d_k)),
        table=draw(matrix(n + draw(st.integers(-1, 2)), d)),
        p=draw(vector(d)), q=draw(vector(d_k)),
        perm=draw(st.one_of(st.permutations(range(n)), odd_things, st.lists(st.one_of(
            st.integers(-3, 2**70), st.booleans(), st.floats(), st.just([0])), max_size=5))),
        kernel=draw(kernel), x=draw(numbers), k=draw(st.integers(-2, 6)))


def finite_or_clear_error(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test too
        try:
            result = call()
        except (ValueError, TypeError) as error:
            assert TEMPLATE.match(str(error)), f"{type(error).__name__}: {error}"
            return None
    values = result.values() if isinstance(result, dict) else result  # symmetries: a dict
    for value in values if isinstance(values, (tuple, type({}.values()))) else (values,):
        assert np.isfinite(np.asarray(value, dtype=np.float64)).all(), result
    return result


def _flipped(X):
    """X's rows in reverse order, when X is an array with rows; otherwise X as it came (the door's
    to refuse)."""
    return X[::-1] if isinstance(X, np.ndarray) and X.ndim else X


def _reversal(c):
    return np.arange(c.n)[::-1]


def _block(c):
    """One block of random weights, every matrix scaled by c.x (1e300 makes it overflow)."""
    try:  # the block's width from X, when X is a table; a ragged X is the block's to refuse
        d = np.shape(c.X)[1] if np.ndim(c.X) == 2 else 2
    except ValueError:
        d = 2
    params = pa.init_encoder_params(d, 1, 3)
    with np.errstate(over="ignore"):  # inf weights are a bad input the block must refuse
        return {k: v * c.x if k.startswith("W") else v for k, v in params.items()}


CALLS = {
    "softmax": lambda c: pa.softmax(c.X),
    "scaled_dot_product_attention": lambda c:
        pa.scaled_dot_product_attention(c.X, c.X, c.X, bias=c.B),
    "self_attention": lambda c: pa.self_attention(c.X, c.W_Q, c.W_K, c.W_V),
    "attention_loop": lambda c: pa.attention_loop(c.X, c.W_Q, c.W_K, c.W_V),
    "rope": lambda c: pa.rope(c.W_Q, positions=c.p),
    "rope, base": lambda c: pa.rope(c.W_Q, base=c.x),
    "sinusoidal_positions": lambda c: pa.sinusoidal_positions(c.k, c.k, base=c.x),
    "sinusoidal_shift": lambda c: pa.sinusoidal_shift(c.x, c.k),
    "frequencies": lambda c: pa.frequencies(c.k, base=c.x),
    "rope, layout": lambda c: pa.rope(c.W_Q, positions=c.p, layout="halves"),
    "alibi_slopes": lambda c: pa.alibi_slopes(c.k),
    "scaled_frequencies": lambda c: pa.scaled_frequencies(2 * c.k, "ntk", c.x),
    "scaled_frequencies, yarn": lambda c: pa.scaled_frequencies(8, "yarn", 4.0, original=c.x),
    "scaled_frequencies, base": lambda c: pa.scaled_frequencies(8, "interpolation", base=c.x),
    "wavelengths": lambda c: pa.wavelengths(c.p),
    "yarn_temperature": lambda c: pa.yarn_temperature(c.x),
    "decay_bound": lambda c: pa.decay_bound(c.p, c.q),
    "learned_positions": lambda c: pa.learned_positions(c.k, c.k, max_len=3),
    "alibi_bias": lambda c: pa.alibi_bias(c.k, slope=c.x),
    "rnn": lambda c: pa.rnn(c.X, c.W_Q, c.W_h),
    "conv1d": lambda c: pa.conv1d(c.X, c.kernel),
    "permutation_matrix": lambda c: pa.permutation_matrix(c.perm),
    "inverse_permutation": lambda c: pa.inverse_permutation(c.perm),
    "random_permutation": lambda c: pa.random_permutation(c.k, rng=c.k),
    "embed": lambda c: pa.embed(["dog", "bites"], d=c.k),
    "default_projections": lambda c: pa.default_projections(c.k, c.k, c.k),
    "causal_mask": lambda c: pa.causal_mask(c.k),
    "padding_mask": lambda c: pa.padding_mask(c.k, c.k),
    "cross_attention": lambda c: pa.cross_attention(c.X, _flipped(c.X), c.W_Q, c.W_K, c.W_V),
    "relative_bias": lambda c: pa.relative_bias(c.k, c.p, c.k),
    "relative_bias, table": lambda c: pa.relative_bias(c.n, c.table, c.k),
    "equivariance_error": lambda c: pa.equivariance_error(lambda X: -X[::-1], c.X, _reversal(c)),
    "invariance_error": lambda c: pa.invariance_error(lambda X: -X[0], c.X, _reversal(c)),
    "shift_error": lambda c: pa.shift_error(lambda X: X * c.x, c.X, k=1, margin=0),
    "influence": lambda c: pa.influence(lambda X: X * 2.0, c.X, nudge=c.x),
    "symmetries": lambda c: pa.symmetries(lambda X: X, c.X, [c.perm], tol=c.x),
    "layer_norm": lambda c: pa.layer_norm(c.X, c.p, c.p),
    "feed_forward": lambda c: pa.feed_forward(c.X, c.W_Q, c.q, c.W_h, c.q),
    "multi_head_attention": lambda c:
        pa.multi_head_attention(c.X, c.W_Q, c.W_K, c.W_K, c.W_h, n_heads=2),
    "encoder_block": lambda c: pa.encoder_block(c.X, _block(c)),
    "encoder": lambda c: pa.encoder(c.X, [_block(c)] * 2),
    "init_encoder_params": lambda c: tuple(pa.init_encoder_params(2 * c.k, c.k, c.k).values())[1:],
}
for _scheme in [None, *schemes.REGISTRY]:  # every registered scheme
    CALLS[f"attention_with_positions[{_scheme}]"] = (
        lambda c, s=_scheme: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, s))
for _scheme in ("alibi", "alibi_symmetric"):
    CALLS[f"attention_with_positions[{_scheme}, slope]"] = (
        lambda c, s=_scheme: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, s, slope=c.x))
CALLS["attention_with_positions[learned, table]"] = (
    lambda c: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, "learned", table=c.table))


@settings(max_examples=400)  # about ten calls of each function
@given(cases(), st.sampled_from(sorted(CALLS)))
def test_every_public_function_returns_finite_numbers_or_raises_a_clear_error(case, name):
    finite_or_clear_error(lambda: CALLS[name](case))


def test_every_public_math_function_is_tried():
    tried = {name.split("[")[0].split(",")[0] for name in CALLS}
    public = {name for name in pa.__all__ if callable(getattr(pa, name))}
    assert public - tried == {"tokenize", "all_permutations", "rnn_weights", "conv_kernel"}


# ---- the inputs that got a wrong answer or a raw error before: each, by hand ----------------

X3 = pa.embed(pa.tokenize("dog bites man"))  # (3, 8)
W = pa.default_projections()
BLOCK = pa.init_encoder_params(8, 2, 16)
HUGE = {k: v * 1e300 if k.startswith("W") else v for k, v in BLOCK.items()}


def _right(expected):
    return lambda result: np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


RIGHT_ANSWERS = [  # (call, a check of its finite, right answer)
    (lambda: pa.layer_norm([[1e200, -1e200]]), _right([[1.0, -1.0]])),
    (lambda: pa.layer_norm([[1e308, 1e308]]), _right([[0.0, 0.0]])),
    (lambda: pa.layer_norm([[1.7e308, -1.7e308, 0.0]]), _right([[1.5**0.5, -(1.5**0.5), 0.0]])),
    (lambda: pa.layer_norm([[3.0, 3.0, 3.0]], beta=[1.0, 2.0, 3.0]), _right([[1.0, 2.0, 3.0]])),
    (lambda: pa.softmax([[0.0, 1.0], [0.0, 1.0]], axis=np.int64(0)), _right([[0.5] * 2] * 2)),
    (lambda: pa.rnn(np.full((2, 8), 1e308), np.full((8, 4), 1e308), np.eye(4)), _right(1.0)),
    (lambda: pa.attention_with_positions(X3, *W, "alibi", slope=1e308)[1], _right(np.eye(3))),
    (lambda: pa.softmax([0.0, -np.inf]), _right([1.0, 0.0])),
    (lambda: pa.self_attention(X3.astype(np.float32), *W)[1],
     _right(pa.self_attention(X3.astype(np.float32).astype(float), *W)[1])),
    (lambda: pa.self_attention(X3.tolist(), *W)[1], _right(pa.self_attention(X3, *W)[1])),
    (lambda: pa.random_permutation(3, rng=np.int64(2)), _right(pa.random_permutation(3, rng=2))),
    (lambda: pa.encoder_block(X3 * 1e100, BLOCK), lambda out: np.isfinite(out).all()),
]


@pytest.mark.parametrize(("call", "check"), RIGHT_ANSWERS)
def test_inputs_that_went_wrong_before_get_finite_right_answers(call, check):
    check(finite_or_clear_error(call))


ARRAY_BAD = [  # (X, the start of the message)
    ([["1", "2"], ["3", "4"]], "X must be an array of numbers; got text"),
    (np.array([["2020-01-01", "2020-01-02"]] * 2, dtype="datetime64[D]"),
     "X must be an array of numbers; got dates"),
    (np.array([[1, 2]] * 2, dtype="timedelta64[s]"), "X must be an array of numbers; got time"),
    (np.array([[None, 1.0], [2.0, 3.0]], dtype=object),
     "X must be an array of numbers; got NoneType None among its entries"),
    (np.array([[b"a", b"b"]] * 2), "X must be an array of numbers; got bytes"),
    (np.eye(2, dtype=bool), r"X must be an array of numbers; got booleans \(dtype bool\)"),
    ([[1, 2**2000], [3, 4]], "X must hold numbers that fit in float64"),
]


@pytest.mark.parametrize(("X", "message"), ARRAY_BAD)
def test_text_dates_objects_and_bools_are_not_numbers(X, message):
    with pytest.raises(TypeError, match=message):
        pa.self_attention(X, np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))


def _far_apart(X):
    """Two finite outputs, ±1.7e308, one for X and one for X reordered: their gap overflows."""
    return X[0] * 0 + (1.7e308 if X[0, 0] == X3[0, 0] else -1.7e308)


OVERFLOWS = [  # (call, the arguments the message must name)
    (lambda: pa.multi_head_attention(X3, *[np.full((8, 8), 1e300)] * 4, n_heads=2),
     "X, W_Q, W_K, W_V and W_O must be small enough for multi-head attention"),
    (lambda: pa.multi_head_attention(X3 * 1e300, *[np.eye(8)] * 4, n_heads=2),
     "X, W_Q, W_K, W_V and W_O must be small enough"),
    (lambda: pa.feed_forward(X3, np.full((8, 4), 1e300), np.zeros(4), np.full((4, 2), 1e300),
                             np.zeros(2)), "X, W_1, b_1, W_2 and b_2 must be small enough for FFN"),
    (lambda: pa.layer_norm(X3, gamma=np.full(8, 1e308), beta=np.full(8, 1e308)),
     "gamma and beta must be small enough"),
    (lambda: pa.encoder_block(X3, HUGE), "X and params must be small enough for the block"),
    (lambda: pa.encoder(X3, [BLOCK, HUGE]), "X and layers must be small enough for the encoder"),
    (lambda: pa.attention_with_positions(X3 * 1e300, *W, "alibi", slope=0.5),
     "X, W_Q, W_K, W_V and slope must be small enough for attention"),
    (lambda: pa.attention_with_positions(np.full((3, 8), 1.7e308), *W, "sinusoidal"),
     "X, W_Q, W_K and W_V must be small enough for attention"),
    (lambda: pa.rope(np.full((3, 2), 1.7e308)), "Z must be small enough"),
    (lambda: pa.conv1d(np.full((3, 8), 1e308), np.full((3, 8, 4), 1e308)),
     "X and kernel must be small enough for the convolution"),
    (lambda: pa.invariance_error(_far_apart, X3, [2, 1, 0]), "f's outputs must be small enough"),
    (lambda: pa.influence(lambda X: X, np.full((2, 1), 1e308), nudge=1e308), "nudge must be small"),
]


@pytest.mark.parametrize(("call", "message"), OVERFLOWS)
def test_overflow_is_caught_in_the_terms_of_the_callers_own_arguments(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message):
            call()


SIZES = [  # (call, the argument the message must name)
    (lambda: pa.causal_mask(10**10), "n"), (lambda: pa.alibi_bias(10**5), "n"),
    (lambda: pa.sinusoidal_positions(10**6, 10**3), "n"),
    (lambda: pa.sinusoidal_shift(1, 10**6), "d"),
    (lambda: pa.learned_positions(3, 8, max_len=10**12), "max_len"),
    (lambda: pa.frequencies(10**12), "d"), (lambda: pa.embed(["dog"], d=10**10), "d"),
    (lambda: pa.random_permutation(10**10), "n"),
    (lambda: pa.permutation_matrix(np.arange(10**5)), "perm"),
    (lambda: pa.self_attention(np.zeros((10**5, 2)), *[np.ones((2, 2))] * 3), "X"),
    (lambda: pa.self_attention(np.zeros((10**4, 1)), *[np.ones((1, 10**5))] * 3), "X"),
    (lambda: pa.attention_with_positions(np.zeros((10**5, 2)), *[np.ones((2, 2))] * 3, "rope"),
     "X"),
    (lambda: pa.scaled_dot_product_attention(np.zeros((10**5, 2)), np.zeros((10**5, 2)),
                                             np.zeros((10**5, 2))), "Q"),
    (lambda: pa.attention_loop(np.zeros((5000, 2)), *[np.ones((2, 2))] * 3), "X"),
    (lambda: pa.init_encoder_params(10**9, 3, 4), "d_model"),
    (lambda: pa.init_encoder_params(10**30, 1, 4), "d_model"),
    (lambda: pa.multi_head_attention(np.zeros((10**4, 4)), *[np.eye(4)] * 4, n_heads=4), "X"),
    (lambda: pa.default_projections(10**5, 10**4, 1), "d"),
    (lambda: pa.rnn_weights(10**5, 10**4), "d_h"),
    (lambda: pa.conv_kernel(10**3, 10**3, 10**3), "width"),
    (lambda: pa.feed_forward(np.zeros((10**5, 1)), np.zeros((1, 10**4)), np.zeros(10**4),
                             np.zeros((10**4, 1)), np.zeros(1)), "X"),
    (lambda: pa.rnn(np.zeros((10**5, 1)), np.zeros((1, 2000)), np.zeros((2000, 2000))), "X"),
]


@pytest.mark.parametrize(("call", "name"), SIZES)
def test_a_huge_size_is_refused_by_name_before_anything_is_allocated(call, name):
    start = time.process_time()  # CPU time: the work done, whatever else the machine runs
    with pytest.raises(ValueError) as error:
        call()
    assert time.process_time() - start < 1.0
    assert str(error.value).startswith(f"{name} must "), error.value
    assert TEMPLATE.match(str(error.value))


def test_a_model_width_with_many_divisors_is_answered_at_once():
    start = time.process_time()
    with pytest.raises(ValueError, match=r"n_heads must divide d_model = 99991\*?"):
        pa.multi_head_attention(np.zeros((1, 1)), *[np.zeros((1, 99991))] * 3,
                                np.zeros((99991, 1)), n_heads=7)
    assert time.process_time() - start < 1.0


RAW_BEFORE = [  # (call, error type, message): each gave a raw library error or a wrong one
    (lambda: pa.self_attention(X3, *W, mask=[[True, False], [True]]), TypeError,
     "mask must be a boolean array .*; got a ragged list"),
    (lambda: pa.influence(3, X3), TypeError, "f must be a function of X; got int 3"),
    (lambda: pa.shift_error(3, X3), TypeError, "f must be a function of X; got int 3"),
    (lambda: pa.equivariance_error("f", X3, [0, 1, 2]), TypeError, "f must be a function of X"),
    (lambda: pa.influence(lambda Z: Z.sum(), X3), ValueError,
     "f must return an array with one row per output position; got a single number"),
    (lambda: pa.influence(lambda Z: Z[: int(Z[0, 0] == X3[0, 0]) + 1], X3), ValueError,
     "f must return the same shape for every input"),
    (lambda: pa.influence(lambda Z: Z, X3, nudge=0), ValueError,
     "nudge must be a finite number, not 0; got 0"),
    (lambda: pa.symmetries(lambda Z: Z, X3, []), ValueError,
     r"perms must hold at least one permutation of range\(3\); got none"),
    (lambda: pa.symmetries(lambda Z: Z, X3, None), TypeError, "perms must be a list of perm"),
    (lambda: pa.symmetries(lambda Z: Z, X3, [[0, 1, 2]], tol="x"), TypeError,
     "tol must be a real number; got str"),
    (lambda: pa.symmetries(3, X3, [[0, 1, 2]]), TypeError, "f must be a function of X"),
    (lambda: pa.symmetries(lambda Z: Z, X3, [[0, 0, 2]]), ValueError,
     r"perms\[0\] must be a permutation of range\(3\)"),
    (lambda: pa.invariance_error(lambda Z: Z[: Z.shape[0] - int(Z[0, 0] != X3[0, 0])], X3,
                                 [2, 1, 0]), ValueError, "f must return the same shape"),
    (lambda: pa.equivariance_error(lambda Z: (), X3, [2, 1, 0]), ValueError,
     r"f\(X\) must not be empty"),
    (lambda: pa.equivariance_error(lambda Z: "Y", X3, [2, 1, 0]), TypeError,
     r"f\(X\) must be an array of numbers; got str 'Y'"),
    (lambda: pa.embed(None), TypeError, "tokens must be a list of words; got NoneType None"),
    (lambda: pa.embed(3), TypeError, "tokens must be a list of words; got int 3"),
    (lambda: pa.random_permutation(3, rng=-1), ValueError, "rng must be at least 0; got -1"),
    (lambda: pa.random_permutation(3, rng=True), TypeError,
     "rng must be a numpy Generator or an integer seed; got bool True"),
    (lambda: pa.random_permutation(3, rng=1.5), TypeError, "rng must be a numpy Generator"),
    (lambda: pa.softmax(3.0), ValueError,
     "S must be a non-empty array of scores with at least one axis; got the single number 3.0"),
    (lambda: pa.softmax([1.0, 2.0], axis=True), ValueError, "axis must be an integer from -1"),
    (lambda: pa.attention_with_positions(X3, *pa.default_projections(8, 3, 4), "rope"),
     ValueError, r"W_Q must have an even number of columns \(d_k\) for RoPE"),
    (lambda: pa.sinusoidal_positions(3, 4, layout=3), ValueError,
     "layout must be one of 'interleaved', 'split'; got 3"),
]


@pytest.mark.parametrize(("call", "kind", "message"), RAW_BEFORE)
def test_bad_arguments_that_got_a_raw_error_now_get_the_template(call, kind, message):
    with pytest.raises(kind, match=message) as error:
        call()
    assert TEMPLATE.match(str(error.value))


# ---- the figures: every argument of every plotting function, through the same door ---------

RESULTS = {"rope": {"test": [1.0, 0.97], "mirrored": 1.0}}
BAR = {"all": "test"}


def _axes_without_image():
    import matplotlib.pyplot as plt

    return plt.subplots()[1]


def _grid_of_axes():
    import matplotlib.pyplot as plt

    return plt.subplots(1, 2)[1]


def _plotting_calls():
    """(call, error type, message) for each bad argument; plotting imports matplotlib."""
    from posattn import plotting as pl

    M = np.eye(3)
    return [
        # accuracy_bars
        (lambda: pl.accuracy_bars(RESULTS, {"all": "nope"}, reference=(0.5, "x")), ValueError,
         r"results\['rope'\] must have the key 'nope', named in bars; got the keys \['test', "),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=0.5), TypeError,
         r"reference must be a pair \(value, label\), such as \(0.5, '50%: chance'\); got float"),
        (lambda: pl.accuracy_bars(RESULTS, ["test"], reference=(0.5, "x")), TypeError,
         "bars must be a dict from a legend label to a result key, such as .*; got list"),
        (lambda: pl.accuracy_bars([RESULTS["rope"]], BAR, reference=(0.5, "x")), TypeError,
         "results must be a dict from a scheme's label to its result dict, .*; got list"),
        (lambda: pl.accuracy_bars({}, BAR, reference=(0.5, "x")), ValueError,
         "results must be a non-empty dict .*; got an empty one"),
        (lambda: pl.accuracy_bars({"rope": 1.0}, BAR, reference=(0.5, "x")), TypeError,
         r"results\['rope'\] must be a dict of results \(key -> accuracy\); got float 1.0"),
        (lambda: pl.accuracy_bars({"rope": {"test": "high"}}, BAR, reference=(0.5, "x")),
         TypeError, r"results\['rope'\]\['test'\] must be an array of numbers; got str 'high'"),
        (lambda: pl.accuracy_bars({"rope": {"test": [1.0, "x"]}}, BAR, reference=(0.5, "x")),
         TypeError, r"results\['rope'\]\['test'\] must be an array of numbers; got text"),
        (lambda: pl.accuracy_bars({"rope": {"test": [1.0, np.nan]}}, BAR, reference=(0.5, "x")),
         ValueError, r"results\['rope'\]\['test'\] must hold only finite numbers; got nan at "
                     r"index \(1,\)"),
        (lambda: pl.accuracy_bars({"rope": {"test": [95, 97]}}, BAR, reference=(0.5, "x")),
         ValueError, r"results\['rope'\]\['test'\] must hold accuracies from 0 to 1; got 95.0\. "
                     "Give fractions: 0.95 for 95%"),
        (lambda: pl.accuracy_bars({"rope": {"test": []}}, BAR, reference=(0.5, "x")),
         ValueError, r"must be one number or a non-empty list of them, one per seed; got shape"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=("high", "x")), TypeError,
         r"reference\[0\] must be a real number; got str 'high'"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(1.5, "x")), ValueError,
         r"reference\[0\] must be an accuracy from 0 to 1; got 1.5"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(0.5, 3)), TypeError,
         r"reference\[1\] must be a string; got int 3"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(0.5, "x"), ax="x"), TypeError,
         "ax must be a matplotlib Axes, or None for a new figure; got str 'x'"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(0.5, "x"), ax=_grid_of_axes()),
         TypeError, r"ax must be a matplotlib Axes, .* \(an array of Axes: pick one, e.g. "
                    r"axes\[0\]\)"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(0.5, "x"), ylabel=3), TypeError,
         "ylabel must be a string; got int 3"),
        (lambda: pl.accuracy_bars(RESULTS, BAR, reference=(0.5, "x"), title=3), TypeError,
         "title must be a string or None; got int 3"),
        # cell_grid
        (lambda: pl.cell_grid(_axes_without_image()), ValueError,
         r"ax must hold a heatmap \(an image\); got an Axes with no image"),
        (lambda: pl.cell_grid(None), TypeError,
         "ax must be the matplotlib Axes of a heatmap; got NoneType None"),
        (lambda: pl.cell_grid(pl.heatmap(M).axes, colour="nope"), ValueError,
         r"colour must be a matplotlib colour, such as '0.6' \(a grey\) or 'black'; got 'nope'"),
        # heatmap
        (lambda: pl.heatmap(M, fmt="{:d}"), ValueError,
         r"fmt must be a format string for one number, such as '\{:.2f\}'; got '\{:d\}' "
         r"\(ValueError: Unknown format code 'd'"),
        (lambda: pl.heatmap(M, fmt=3), ValueError, "fmt must be a format string .*; got 3"),
        (lambda: pl.heatmap(M, cmap="nope"), ValueError,
         "cmap must be the name of a matplotlib colour map, such as 'viridis' or 'Greys'; got "
         "'nope'"),
        (lambda: pl.heatmap(M, cmap=3), TypeError, "cmap must be the name of a matplotlib"),
        (lambda: pl.heatmap(M, vmin="a"), TypeError, "vmin must be a real number; got str 'a'"),
        (lambda: pl.heatmap(M, vmax=np.nan), ValueError, "vmax must be a finite number; got nan"),
        (lambda: pl.heatmap(M, ax="x"), TypeError, "ax must be a matplotlib Axes"),
        (lambda: pl.heatmap(M, row_labels=3), TypeError,
         "row_labels must be a list of labels, one per row, 3 in all; got int 3"),
        (lambda: pl.heatmap(M, col_labels="abc"), TypeError,
         "col_labels must be a list of labels, one per column, 3 in all; got str 'abc'"),
        (lambda: pl.heatmap(M, title=3), TypeError, "title must be a string or None"),
        (lambda: pl.heatmap(M, values="yes"), TypeError,
         "values must be True, False or None .*; got str 'yes'"),
        (lambda: pl.heatmap(M > 0), TypeError,
         r"M must be an array of numbers; got booleans \(dtype bool\)\. Use M.astype\(float\)"),
        (lambda: pl.heatmap(None), TypeError, "M must be an array of numbers; got NoneType"),
        # text_colours
        (lambda: pl.text_colours(None), TypeError, "M must be an array of numbers; got NoneType"),
        (lambda: pl.text_colours(M, cmap="nope"), ValueError, "cmap must be the name of a"),
        (lambda: pl.text_colours(M, vmin="a"), TypeError, "vmin must be a real number"),
        (lambda: pl.text_colours([[np.nan]]), ValueError, "M must hold only finite numbers"),
        # attention_heatmap, attention_pair, permutation_heatmap, weighted_sum
        (lambda: pl.attention_heatmap(M, tokens=3), TypeError,
         r"tokens must be a list of labels, one per query \(row of A\), 3 in all; got int 3"),
        (lambda: pl.attention_heatmap(M, "dog bites man"), TypeError,
         "tokens must be a list of labels.*got str 'dog bites man'. Split a sentence first"),
        (lambda: pl.attention_heatmap(M, ax="x"), TypeError, "ax must be a matplotlib Axes"),
        (lambda: pl.attention_heatmap(M, title=3), TypeError, "title must be a string or None"),
        (lambda: pl.attention_pair(M, list("abc"), M, list("ab")), ValueError,
         r"tokens2 must have one label per query \(row of A2\), 3 in all; got 2"),
        (lambda: pl.attention_pair(M, list("abc"), "M", list("abc")), TypeError,
         "A2 must be an array of numbers; got str"),
        (lambda: pl.attention_pair(M, list("abc"), M, list("abc"), titles="AB"), TypeError,
         "titles must be a pair of strings, one per panel; got str 'AB'"),
        (lambda: pl.permutation_heatmap([2, 0, 1], tokens=3), TypeError,
         "tokens must be a list of labels, one per position, 3 in all; got int 3"),
        (lambda: pl.permutation_heatmap([2, 0, 1], ax="x"), TypeError,
         "ax must be a matplotlib Axes"),
        (lambda: pl.permutation_heatmap([2, 0, 0]), ValueError,
         r"perm must be a permutation of range\(3\)"),
        (lambda: pl.permutation_heatmap(np.arange(10**5)), ValueError,
         "perm must be small enough for P"),
        (lambda: pl.weighted_sum(np.eye(3, 2), [0.5, 0.25, 0.25], tokens=3), TypeError,
         "tokens must be a list of labels, one per row of V, 3 in all; got int 3"),
        (lambda: pl.weighted_sum(np.eye(3, 2), [0.5, 0.25, 0.25], list("ab")), ValueError,
         "tokens must have one label per row of V, 3 in all; got 2"),
        (lambda: pl.weighted_sum(np.eye(3, 2), [0.5, 0.25, 0.25], ax="x"), TypeError,
         "ax must be a matplotlib Axes"),
        (lambda: pl.weighted_sum(np.eye(3, 2), [0.5, 0.25, 0.25], title=3), TypeError,
         "title must be a string or None"),
        # loss_bands
        (lambda: pl.loss_bands([[2.0, 1.0]]), TypeError,
         "curves must be a dict from a label to its loss curves"),
        (lambda: pl.loss_bands({"a": [[2.0, 0.0]]}), ValueError,
         r"curves\['a'\] must hold losses above 0 for the log scale; got 0.0"),
        (lambda: pl.loss_bands({"a": [[2.0, np.inf]]}), ValueError,
         r"curves\['a'\] must hold only finite numbers"),
        (lambda: pl.loss_bands({"a": [[2.0, "x"]]}), TypeError,
         r"curves\['a'\] must be an array of numbers; got text"),
        (lambda: pl.loss_bands({"a": [[2.0, 1.0]]}, steps=[0, 5, 10]), ValueError,
         r"steps must have one entry per point of curves\['a'\] \(2\); got shape \(3,\)"),
        (lambda: pl.loss_bands({"none": [[2.0, 1.0]]}, dashed="none"), TypeError,
         "dashed must be a list of labels of curves, such as \\('none',\\); got str 'none'"),
        (lambda: pl.loss_bands({"a": [[2.0, 1.0]]}, dashed=("b",)), ValueError,
         r"dashed must list labels of curves \(\['a'\]\); got 'b'"),
        (lambda: pl.loss_bands({"a": [[2.0, 1.0]]}, ax="x"), TypeError,
         "ax must be a matplotlib Axes"),
        # accuracy_bands
        (lambda: pl.accuracy_bands({"a": [[0.5]]}, [8], reference=0.1), TypeError,
         "reference must be a pair"),
        (lambda: pl.accuracy_bands({"a": [[0.5, np.nan]]}, [8, 16], reference=(0.1, "g")),
         ValueError, r"curves\['a'\] must hold only finite numbers"),
        (lambda: pl.accuracy_bands({"a": [[0.5]]}, [[8]], reference=(0.1, "g")), ValueError,
         r"lengths must be a non-empty list of row lengths; got shape \(1, 1\)"),
        (lambda: pl.accuracy_bands({"a": [[0.5]]}, [8], reference=(0.1, "g"), dashed=("b",)),
         ValueError, r"dashed must list labels of curves \(\['a'\]\); got 'b'"),
    ]


PLOTTING_BAD = _plotting_calls()


@pytest.mark.parametrize(("call", "kind", "message"), PLOTTING_BAD)
def test_every_bad_plotting_argument_gets_the_template_naming_it(call, kind, message):
    import matplotlib.pyplot as plt

    try:
        with pytest.raises(kind, match=message) as error:
            call()
        assert TEMPLATE.match(str(error.value))
    finally:
        plt.close("all")


def test_every_public_plotting_function_is_tried():
    from posattn import plotting as pl

    public = {name for name, f in vars(pl).items() if callable(f) and not name.startswith("_")
              and getattr(f, "__module__", "") == pl.__name__}
    source = "\n".join(str(case[0].__code__.co_names) for case in PLOTTING_BAD)
    assert {name for name in public if f"'{name}'" not in source} == set()

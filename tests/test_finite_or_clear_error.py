"""Every public math function returns finite numbers or raises ValueError/TypeError (the template).

Whatever comes in (huge, tiny, NaN, inf, complex, text, mismatched shapes), the answer is either
finite numbers, or a ValueError/TypeError whose message reads "<argument> must …; got …" —
never NaN, never inf, never a RuntimeWarning, never a raw library exception.
"""

import re
import warnings
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import posattn as pa

TEMPLATE = re.compile(r"^\S.* must .+; got .+", re.DOTALL)
EXTREMES = [0.0, 1.0, -1.0, 1e-300, 1e150, 1e200, -1e200, 1e300, 1.7e308, -1.7e308,
            np.nan, np.inf, -np.inf]
numbers = st.one_of(st.sampled_from(EXTREMES), st.floats(-10, 10), st.floats())
odd_things = st.sampled_from(["dog", None, 1j, [[1j, 2.0]], [[1, 2], [3]], [], [[]], 3.0, True])


def matrix(rows, cols):
    """A (rows, cols) float array of any numbers, or now and then something that is no matrix."""
    return st.one_of(arrays(np.float64, (rows, cols), elements=numbers),
                     arrays(np.float64, (rows, cols), elements=st.floats(-3, 3)),
                     odd_things)


@st.composite
def cases(draw):
    """The arguments of one call: matrices of matching shapes (mostly), a number x, a size k."""
    n, d, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))
    d_k *= 2  # even, so that RoPE applies
    kernel = st.one_of(arrays(np.float64, (3, d, d_k), elements=numbers), odd_things)
    return SimpleNamespace(
        n=n, X=draw(matrix(n, d)), W_Q=draw(matrix(d, d_k)), W_K=draw(matrix(d, d_k)),
        W_V=draw(matrix(d, d_v)), B=draw(matrix(n, n)), W_h=draw(matrix(d_k, d_k)),
        table=draw(matrix(n + draw(st.integers(-1, 2)), d)),
        p=draw(st.one_of(arrays(np.float64, (d,), elements=numbers), odd_things)),
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
            return
    for value in result if isinstance(result, tuple) else (result,):
        assert np.isfinite(np.asarray(value, dtype=np.float64)).all(), result


def _reversal(c):
    return np.arange(c.n)[::-1]


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
    "learned_positions": lambda c: pa.learned_positions(c.k, c.k, max_len=3),
    "alibi_bias": lambda c: pa.alibi_bias(c.k, slope=c.x),
    "rnn": lambda c: pa.rnn(c.X, c.W_Q, c.W_h),
    "conv1d": lambda c: pa.conv1d(c.X, c.kernel),
    "permute": lambda c: pa.permute(c.X, c.perm),
    "permutation_matrix": lambda c: pa.permutation_matrix(c.perm),
    "inverse_permutation": lambda c: pa.inverse_permutation(c.perm),
    "embed": lambda c: pa.embed(["dog", "bites"], d=c.k),
    "default_projections": lambda c: pa.default_projections(c.k, c.k, c.k),
    "causal_mask": lambda c: pa.causal_mask(c.k),
    "equivariance_error": lambda c: pa.equivariance_error(lambda X: -X[::-1], c.X, _reversal(c)),
    "invariance_error": lambda c: pa.invariance_error(lambda X: -X[0], c.X, _reversal(c)),
}
for _scheme in [None, *pa.SCHEMES]:
    CALLS[f"attention_with_positions[{_scheme}]"] = (
        lambda c, s=_scheme: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, s))
for _scheme in ("alibi", "alibi_symmetric"):
    CALLS[f"attention_with_positions[{_scheme}, slope]"] = (
        lambda c, s=_scheme: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, s, slope=c.x))
CALLS["attention_with_positions[learned, table]"] = (
    lambda c: pa.attention_with_positions(c.X, c.W_Q, c.W_K, c.W_V, "learned", table=c.table))


@settings(max_examples=250)  # about ten calls of each function
@given(cases(), st.sampled_from(sorted(CALLS)))
def test_every_public_function_returns_finite_numbers_or_raises_a_clear_error(case, name):
    finite_or_clear_error(lambda: CALLS[name](case))

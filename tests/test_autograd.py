"""autograd differentiates the package's own attention: gradients agree with finite differences.

The trained model of notebook 09 calls these very functions, so there is one definition of the math.
"""

import numpy as np
import pytest
from autograd import grad

import posattn as pa

SCHEMES = [None, *pa.SCHEMES]


def _directional_check(f, x, rng, eps=1e-6):
    """grad f(x)·u against the central difference (f(x + εu) − f(x − εu)) / 2ε, u random."""
    u = rng.standard_normal(np.shape(x))
    analytic = float(np.sum(grad(f)(x) * u))
    numeric = (f(x + eps * u) - f(x - eps * u)) / (2 * eps)
    assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    return analytic


@pytest.mark.parametrize("scheme", SCHEMES)
def test_gradient_through_attention_with_positions_matches_finite_differences(scheme, rng):
    X = rng.standard_normal((5, 8))
    W = list(pa.default_projections(8, 4, 3, seed=1))
    R_Y, R_A = rng.standard_normal((5, 3)), rng.standard_normal((5, 5))

    def loss(X, W_Q, W_K, W_V):
        Y, A = pa.attention_with_positions(X, W_Q, W_K, W_V, scheme)
        return np.sum(Y * R_Y) + np.sum(A * R_A)  # every entry of Y and A counts

    args = [X, *W]
    for i in range(4):  # with respect to X, W_Q, W_K and W_V in turn
        def along(M, i=i):
            return loss(*args[:i], M, *args[i + 1:])

        assert abs(_directional_check(along, args[i], rng)) > 1e-6  # not a vacuous zero


def test_gradient_reaches_the_options_a_model_trains(rng):
    X = rng.standard_normal((4, 8))
    W = pa.default_projections()

    def by_slope(m):
        return np.sum(pa.attention_with_positions(X, *W, "alibi", slope=m)[0])

    def by_table(table):
        return np.sum(pa.attention_with_positions(X, *W, "learned", table=table)[0] ** 2)

    _directional_check(by_slope, 0.5, rng)
    table = rng.standard_normal((6, 8))
    _directional_check(by_table, table, rng)
    np.testing.assert_array_equal(grad(by_table)(table)[4:], 0.0)  # rows beyond n get no gradient


def test_traced_and_plain_calls_give_the_same_numbers(rng):
    X = rng.standard_normal((6, 8))
    W = pa.default_projections()
    for scheme in SCHEMES:
        captured = {}

        def loss(X, scheme=scheme, captured=captured):
            Y, A = pa.attention_with_positions(X, *W, scheme)
            captured["A"] = A._value  # the traced path's A, out of autograd's box
            return np.sum(Y)

        grad(loss)(X)
        np.testing.assert_allclose(captured["A"], pa.attention_with_positions(X, *W, scheme)[1],
                                   rtol=0, atol=1e-15)

"""autograd differentiates the package's own attention: gradients agree with finite differences.

The trained model of notebook 09 calls these very functions, so there is one definition of the math.
"""

import numpy as np
import pytest
from autograd import grad

import posattn as pa
from posattn import experiments as ex

SCHEMES = [None, *pa.SCHEMES]


def _directional_check(f, x, rng, eps=1e-6, u=None):
    """grad f(x)·u against the central difference (f(x + εu) − f(x − εu)) / 2ε, u random unless
    given."""
    u = rng.standard_normal(np.shape(x)) if u is None else u
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


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_has_its_own_gradient_and_it_matches_finite_differences(axis, rng):
    S = rng.standard_normal((4, 5)) * 3
    S[1, 2] = -np.inf  # a masked entry: weight 0, gradient 0, never NaN
    R = rng.standard_normal((4, 5))

    def loss(S):
        return np.sum(pa.softmax(S, axis=axis) * R)

    u = rng.standard_normal(S.shape)
    u[1, 2] = 0.0  # −inf stays −inf
    g = grad(loss)(S)
    assert np.isfinite(g).all() and g[1, 2] == 0.0
    _directional_check(loss, S, rng, u=u)


def test_the_log_sum_exp_of_huge_logits_has_softmax_for_its_gradient(rng):
    z = np.array([[1000.0, 999.0, -1000.0], [0.0, 0.0, 0.0]])  # exp(1000) overflows
    total = ex._log_sum_exp(z)
    np.testing.assert_allclose(total, [1000 + np.log(1 + np.exp(-1.0)), np.log(3.0)])
    g = grad(lambda z: np.sum(ex._log_sum_exp(z) * np.array([1.0, 2.0])))(z)
    np.testing.assert_allclose(g, [[1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(1.0)), 0.0],
                                   [2 / 3, 2 / 3, 2 / 3]], atol=1e-15)


@pytest.mark.parametrize(("scheme", "readout"), [(None, "rows"), ("causal", "rows"),
                                                 ("rope", "mean"), ("alibi", "last")])
def test_the_training_loss_gradient_matches_finite_differences(scheme, readout, rng):
    vocab, classes, n = 6, 4, 5
    params = {k: np.stack([v, v * 0.9]) for k, v in  # two seeds side by side
              ex._init(np.random.default_rng(1), vocab, classes, n, scheme).items()}
    ids = rng.integers(0, vocab, (2, 3, n))
    labels = rng.integers(0, classes, (2, 3, n - 1) if readout == "rows" else (2, 3))
    for name in ("embed", "W_Q", "W_K", "W_V", "W_out", "b"):
        def loss(M, name=name):
            return ex._total_loss({**params, name: M}, ids, labels, scheme, readout)

        assert abs(_directional_check(loss, params[name], rng)) > 1e-9, name

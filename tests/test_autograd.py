"""Gradients of the package's own attention agree with finite differences, and the trained
models' backward pass, written out in ``experiments``, is autograd's gradient of their forward.

The trained models of notebooks 09 and 10 call the attention kernels tested here.
"""

import numpy as np
import pytest
from autograd import grad

import posattn as pa
from posattn import schemes
from posattn.experiments import backward, model

SCHEMES = [None, *schemes.REGISTRY]  # every registered scheme, the series' and any other


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
def test_softmaxs_gradient_is_0_at_a_masked_entry_and_matches_finite_differences(axis, rng):
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


def test_the_log_sum_exp_of_huge_logits_is_finite_and_has_softmax_for_its_gradient(rng):
    z = np.array([[1000.0, 999.0, -1000.0], [0.0, 0.0, 0.0]])  # exp(1000) overflows
    total = model._log_sum_exp(z)
    np.testing.assert_allclose(total, [1000 + np.log(1 + np.exp(-1.0)), np.log(3.0)])
    g = grad(lambda z: np.sum(model._log_sum_exp(z) * np.array([1.0, 2.0])))(z)
    np.testing.assert_allclose(g, [[1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(1.0)), 0.0],
                                   [2 / 3, 2 / 3, 2 / 3]], atol=1e-15)


# ---- the trained models' backward pass, written out, against autograd and finite differences ---

VOCAB, CLASSES, N = 6, 4, 5
POSITIONS = {"learned": np.array([[[0, 2, 3, 5, 6], [1, 2, 4, 6, 7], [0, 1, 2, 3, 4]]] * 2),
             "sinusoidal": np.array([[[0.0, 2, 3, 5, 6], [1, 2, 4, 6, 7], [0, 1, 2, 3, 4]]] * 2),
             "rope": np.arange(N) * 0.5}  # (S, B, n) for a table or sinusoids; (n,) for RoPE
READS = ("mean", "max", "first", "last", "rows")  # the public READOUTS and the probe's "rows"
CASES = ([(scheme, readout, None, model.D) for scheme in SCHEMES for readout in READS]
         + [(scheme, "mean", positions, model.D) for scheme, positions in POSITIONS.items()]
         + [(scheme, "max", None, 6) for scheme in SCHEMES])  # another width: d = 6


def _two_seeds(scheme, readout, rng, width=model.D):
    """Weights of two seeds side by side (not copies), three rows of N words each, and labels."""
    params = {k: np.stack([v, v * 0.9 + 0.05]) for k, v in
              model._init(np.random.default_rng(1), VOCAB, CLASSES, 8, scheme, width).items()}
    params["b"] = rng.standard_normal(params["b"].shape)  # b starts at 0: make its term count
    ids = rng.integers(0, VOCAB, (2, 3, N))
    labels = rng.integers(0, CLASSES, (2, 3, N - 1) if readout == "rows" else (2, 3))
    return params, ids, labels


@pytest.mark.parametrize(("scheme", "readout", "positions", "width"), CASES,
                         ids=lambda v: "given" if isinstance(v, np.ndarray) else str(v))
def test_the_written_out_backward_pass_matches_finite_differences_for_every_weight(
        scheme, readout, positions, width, rng):
    params, ids, labels = _two_seeds(scheme, readout, rng, width)
    assert params["W_Q"].shape == (2, width, width)
    losses, grads = backward._gradients(params, ids, labels, scheme, readout, positions)
    np.testing.assert_allclose(
        losses, model._losses(params, ids, labels, scheme, readout, positions), rtol=1e-13)
    assert sorted(grads) == sorted(params)  # every weight trains
    for name in params:
        def total(M, name=name):
            weights = {**params, name: M}
            return np.sum(model._losses(weights, ids, labels, scheme, readout, positions))

        for _ in range(3):  # three random directions u: grad·u against the central difference
            u = rng.standard_normal(params[name].shape)
            numeric = (total(params[name] + 1e-6 * u) - total(params[name] - 1e-6 * u)) / 2e-6
            assert np.sum(grads[name] * u) == pytest.approx(numeric, rel=1e-6, abs=1e-9), name
        if readout == "first" and scheme in ("causal", "alibi") and name in ("W_Q", "W_K"):
            # under a causal mask the first row attends to itself alone: its scores move nothing
            np.testing.assert_array_equal(grads[name], 0.0)
        else:
            assert np.abs(grads[name]).max() > 1e-6, name  # not a vacuous zero
    if scheme == "learned":  # rows of the table no word sat at get no gradient
        used = np.arange(N) if positions is None else np.unique(positions)
        np.testing.assert_array_equal(np.delete(grads["table"], used, axis=1), 0.0)


def test_each_seeds_gradient_is_its_own_losss(rng):
    params, ids, labels = _two_seeds("rope", "mean", rng)
    _, both = backward._gradients(params, ids, labels, "rope")
    for s in range(2):
        one = {k: v[s:s + 1] for k, v in params.items()}
        _, alone = backward._gradients(one, ids[s:s + 1], labels[s:s + 1], "rope")
        for name in params:
            np.testing.assert_allclose(both[name][s], alone[name][0], rtol=1e-12, atol=1e-15)

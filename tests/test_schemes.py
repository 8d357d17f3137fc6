"""Every registered scheme, checked the same way: its gradient against finite differences (through
attention, and through a trained model's written-out backward pass), the symmetries it keeps (to
rounding) and breaks (measured), and its door. A scheme added to posattn.schemes needs its row in
ROWS, and then gets every check here."""

from typing import NamedTuple

import numpy as np
import pytest
from autograd import grad

import posattn as pa
from posattn import experiments as ex
from posattn import schemes
from posattn.experiments import backward, model


class Row(NamedTuple):
    offsets_only: bool  # its scores see j − i, not i and j: positions p + c give the same A
    mirror_blind: bool  # reversing the order stays a symmetry
    bad: tuple  # options and d_k its door refuses, the error, and words the message must hold


ROWS = {
    "sinusoidal": Row(False, False, ({"slope": 1.0}, 4, TypeError,
                                     r"options for scheme 'sinusoidal' must be among \(\); got")),
    "learned": Row(False, False, ({"table": np.ones((3, 8))}, 4, ValueError,
                                  r"n must be at most max_len = 3, the number of rows")),
    "rope": Row(True, False, ({}, 3, ValueError, r"W_Q must have an even number of columns")),
    "alibi": Row(True, False, ({"slope": -1.0}, 4, ValueError,
                               r"slope must be a finite number above 0\.0; got -1\.0")),
    "alibi_symmetric": Row(True, True, ({"slope": 0.0}, 4, ValueError,
                                        r"slope must be a finite number above 0\.0; got 0\.0")),
    "causal": Row(True, False, ({"table": 1}, 4, TypeError,
                                r"options for scheme 'causal' must be among \(\); got table")),
    "relative": Row(True, False, ({"table": [1.0, 2.0]}, 4, ValueError,
                                  r"table must hold an odd number 2k \+ 1 of biases")),
    "rope_halves": Row(True, False, ({}, 5, ValueError, r"W_Q must have an even number of col")),
}
NAMES = list(schemes.REGISTRY)


def test_every_registered_scheme_has_its_row():
    assert sorted(ROWS) == sorted(schemes.REGISTRY), "a new scheme needs its row in ROWS"
    assert list(pa.SCHEMES) == [s for s in schemes.REGISTRY if schemes.REGISTRY[s].series]


@pytest.fixture
def X(rng):
    return rng.standard_normal((6, 8))


def _A(name, X, W, p):
    """A at the positions p, through the scheme's own forward pass."""
    _, Q, K, V, mask, bias = schemes.REGISTRY[name].forward(X, *W, p)
    return pa.scaled_dot_product_attention(Q, K, V, mask, bias)[1]


def _trained_gradients(name, rng, readout="rows"):
    """(weight, ∂L/∂weight · u, the central difference along u) for every weight of two seeds'
    trained models, u a random direction: the written-out backward pass against the forward."""
    params = {k: np.stack([v, 0.9 * v + 0.05]) for k, v in
              model._init(np.random.default_rng(1), 6, 4, 8, name, 6).items()}
    params["b"] = rng.standard_normal(params["b"].shape)  # b starts at 0: make its term count
    ids = rng.integers(0, 6, (2, 3, 5))
    labels = rng.integers(0, 4, (2, 3, 4))  # readout "rows": every row but the first is read
    _, grads = backward._gradients(params, ids, labels, name, readout)
    assert sorted(grads) == sorted(params)  # every weight trains, the scheme's table too
    pairs = []
    for key in params:
        def total(M, key=key):
            return np.sum(model._losses({**params, key: M}, ids, labels, name, readout))

        u = rng.standard_normal(params[key].shape)
        numeric = (total(params[key] + 1e-6 * u) - total(params[key] - 1e-6 * u)) / 2e-6
        pairs.append((key, float(np.sum(grads[key] * u)), numeric))
    return pairs


# ---- the gradient ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_its_gradient_through_attention_matches_finite_differences(name, X, rng):
    W = list(pa.default_projections(8, 4, 3, seed=1))
    R = rng.standard_normal((6, 3))
    for i in range(4):  # with respect to X, W_Q, W_K and W_V in turn
        args = [X, *W]

        def loss(M, i=i, args=args):
            return np.sum(pa.attention_with_positions(*args[:i], M, *args[i + 1:], name)[0] * R)

        u = rng.standard_normal(args[i].shape)
        numeric = (loss(args[i] + 1e-6 * u) - loss(args[i] - 1e-6 * u)) / 2e-6
        assert np.sum(grad(loss)(args[i]) * u) == pytest.approx(numeric, rel=1e-6, abs=1e-9)
        assert abs(numeric) > 1e-6  # not a vacuous zero


@pytest.mark.parametrize("name", NAMES)
def test_its_trained_models_backward_pass_matches_finite_differences(name, rng):
    for key, analytic, numeric in _trained_gradients(name, rng):
        assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-9), key
        assert abs(numeric) > 1e-8, key  # not a vacuous zero


# ---- its symmetries: kept to rounding, broken by a measured amount ----------------------------

@pytest.mark.parametrize("name", NAMES)
def test_it_breaks_permutation_equivariance_by_a_measured_amount(name, X):
    W = pa.default_projections(8, 4, 3, seed=1)
    f = lambda X: pa.attention_with_positions(X, *W, name)[0]  # noqa: E731
    swaps = [np.roll(np.arange(6), s) for s in range(1, 6)] + [[1, 0, 2, 3, 4, 5]]
    assert max(pa.equivariance_error(f, X, perm) for perm in swaps) > 1e-3
    assert pa.equivariance_error(lambda X: pa.self_attention(X, *W)[0], X, swaps[0]) < 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_it_sees_offsets_only_when_its_row_says_so(name, X):
    W, p = pa.default_projections(8, 4, 3, seed=1), np.arange(6)
    moved = np.abs(_A(name, X, W, p + 3) - _A(name, X, W, p)).max()  # every position + 3
    assert (moved < 1e-12) if ROWS[name].offsets_only else (moved > 1e-6), moved


@pytest.mark.parametrize("name", NAMES)
def test_it_is_blind_to_reversal_only_when_its_row_says_so(name, X):
    W = pa.default_projections(8, 4, 3, seed=1)
    f = lambda X: pa.attention_with_positions(X, *W, name)[0]  # noqa: E731
    error = pa.equivariance_error(f, X, np.arange(6)[::-1])
    assert (error < 1e-12) if ROWS[name].mirror_blind else (error > 1e-6), error


# ---- its door ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_its_door_refuses_bad_options_with_a_clear_error(name, X):
    options, d_k, error, words = ROWS[name].bad
    W = pa.default_projections(8, d_k, 3)
    with pytest.raises(error, match=words):
        pa.attention_with_positions(X, *W, name, **options)
    allowed = ", ".join(schemes.REGISTRY[name].options)
    with pytest.raises(TypeError, match=rf"options for scheme '{name}' must be among "
                                        rf"\({allowed}\); got width\."):
        pa.attention_with_positions(X, *pa.default_projections(8, 4, 3), name, width=3)


@pytest.mark.parametrize("name", NAMES)
def test_a_trained_model_without_its_table_is_refused(name):
    params = model._init(np.random.default_rng(0), 15, 12, 8, name)  # one seed's weights
    assert ex.attention(params, "dog bites man", name).shape == (3, 3)
    if not schemes.REGISTRY[name].trained:
        assert "table" not in params
        return
    with pytest.raises(ValueError, match=r"params must hold the weights embed, W_Q, W_K, W_V, "
                                         r"table for scheme .*; got no table"):
        ex.attention({k: v for k, v in params.items() if k != "table"}, "dog bites man", name)


@pytest.mark.parametrize("name", NAMES)
def test_it_states_its_equation(name):
    doc = schemes.REGISTRY[name].__doc__
    assert any(symbol in doc.splitlines()[0] for symbol in ("=", "−", "+")), doc


# ---- a new scheme is one object ---------------------------------------------------------------

class Widening(schemes.Scheme):
    """q_i, k_i scaled by 1 + p_i/10: a toy scheme (not in the registry) that changes q and k."""

    name = "widening"

    def turn(self, Z, p):
        return Z * (1.0 + p[:, None] / 10.0)  # (n, 1): row i times 1 + p_i/10


class WideningWithItsBackward(Widening):
    def turn_back(self, dZ, p):
        return dZ * (1.0 + p[:, None] / 10.0)  # a diagonal map is its own transpose


def test_a_new_scheme_is_one_object_in_the_registry(monkeypatch, dog_bites_man, rng):
    monkeypatch.setitem(schemes.REGISTRY, "widening", WideningWithItsBackward())
    X, weights, _ = dog_bites_man
    _, A = pa.attention_with_positions(X, *weights, scheme="widening")
    Q, K, V = (X @ W for W in weights)
    scale = (1.0 + np.arange(3)[:, None] / 10.0)
    np.testing.assert_allclose(A, pa.scaled_dot_product_attention(Q * scale, K * scale, V)[1],
                               atol=1e-15)
    for key, analytic, numeric in _trained_gradients("widening", rng):  # the model trains it
        assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-9), key


def test_a_scheme_without_its_backward_fails_the_gradient_check(monkeypatch, rng):
    monkeypatch.setitem(schemes.REGISTRY, "widening", Widening())  # turn, but no turn_back
    gaps = {key: abs(analytic - numeric) for key, analytic, numeric in
            _trained_gradients("widening", rng)}
    assert gaps["W_Q"] > 1e-4 and gaps["W_K"] > 1e-4  # the check above would fail
    assert gaps["W_V"] < 1e-8  # V is not turned: its gradient stays right


# ---- rope_halves: the paper's turn in the layout of GPT-NeoX and Llama ------------------------

def test_rope_halves_is_llamas_rotate_half(rng):
    """An oracle: Llama's code, q cos(pθ) + rotate_half(q) sin(pθ), θ repeated over both halves."""
    Q = rng.standard_normal((2, 7, 6))  # (B, n, d_k)
    theta = np.arange(7)[:, None] / 10000.0 ** (np.arange(0, 6, 2) / 6)  # (n, d_k/2)
    angle = np.concatenate([theta, theta], axis=-1)  # (n, d_k)
    rotate_half = np.concatenate([-Q[..., 3:], Q[..., :3]], axis=-1)
    expected = Q * np.cos(angle) + rotate_half * np.sin(angle)
    got = schemes.REGISTRY["rope_halves"].turn(Q, np.arange(7))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_rope_halves_is_rope_with_the_columns_of_W_Q_and_W_K_reordered(X):
    W_Q, W_K, W_V = pa.default_projections(8, 6, 3, seed=1)
    evens_then_odds = [0, 2, 4, 1, 3, 5]
    A = pa.attention_with_positions(X, W_Q, W_K, W_V, "rope")[1]
    reordered = pa.attention_with_positions(X, W_Q[:, evens_then_odds], W_K[:, evens_then_odds],
                                            W_V, "rope_halves")[1]
    np.testing.assert_allclose(reordered, A, rtol=0, atol=1e-15)
    as_is = pa.attention_with_positions(X, W_Q, W_K, W_V, "rope_halves")[1]
    assert np.abs(as_is - A).max() > 1e-3  # the same weights in the other layout: another model

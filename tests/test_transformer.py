"""The whole encoder: each piece and any stack of blocks is permutation equivariant (issue 12)."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import posattn as pa
from posattn.testing import assert_equivariant, assert_invariant
from posattn.transformer import (
    encoder,
    encoder_block,
    feed_forward,
    init_encoder_params,
    layer_norm,
    multi_head_attention,
)


def random_params(d_model, n_heads, d_ff, rng):
    """A block with random weights and random LayerNorm γ, β (not just PyTorch's 1 and 0)."""
    params = init_encoder_params(d_model, n_heads, d_ff, seed=int(rng.integers(2**31)))
    for key in ("gamma_1", "beta_1", "gamma_2", "beta_2"):
        params[key] = rng.normal(1.0 if key.startswith("gamma") else 0.0, 0.5, d_model)
    return params


@st.composite
def blocks(draw, min_n=1, min_d_h=1):
    """X, one order of its rows and a random block: n tokens, n_heads heads of d_h columns."""
    n = draw(st.integers(min_n, 9))
    n_heads, d_h = draw(st.integers(1, 4)), draw(st.integers(min_d_h, 4))
    d_ff = draw(st.integers(1, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(0.0, draw(st.sampled_from([0.1, 1.0, 10.0])), (n, n_heads * d_h))
    perm = np.array(draw(st.permutations(range(n))))
    return X, perm, random_params(n_heads * d_h, n_heads, d_ff, rng), rng


# ---- each piece is equivariant ---------------------------------------------------------------

@given(blocks())
def test_multi_head_attention_is_equivariant_and_each_head_is_conjugated_by_P(case):
    X, perm, p, _ = case
    args = (p["W_Q"], p["W_K"], p["W_V"], p["W_O"], p["n_heads"])
    assert_equivariant(lambda X: multi_head_attention(X, *args), X, [perm])  # Y, the first
    A = lambda X: multi_head_attention(X, *args)[1]  # noqa: E731 - (h, n, n)
    assert_equivariant(A, X, [perm], axes=(1, 2))  # P A_h Pᵀ for every head h


@given(blocks())
def test_layer_norm_is_equivariant(case):
    X, perm, p, _ = case
    assert_equivariant(lambda X: layer_norm(X, p["gamma_1"], p["beta_1"]), X, [perm])


@given(blocks())
def test_feed_forward_is_equivariant(case):
    X, perm, p, _ = case
    f = lambda X: feed_forward(X, p["W_1"], p["b_1"], p["W_2"], p["b_2"])  # noqa: E731
    assert_equivariant(f, X, [perm])


@given(blocks())
def test_encoder_block_is_equivariant(case):
    X, perm, p, _ = case
    assert_equivariant(lambda X: encoder_block(X, p), X, [perm])


# ---- depth: composition keeps it; positions at the input break it ----------------------------

@settings(max_examples=40, deadline=None)
@given(blocks(), st.integers(1, 6))
def test_an_encoder_of_any_depth_is_equivariant(case, depth):
    X, perm, p, rng = case
    d, h, d_ff = X.shape[1], p["n_heads"], p["W_1"].shape[1]
    layers = [p] + [random_params(d, h, d_ff, rng) for _ in range(depth - 1)]
    assert_equivariant(lambda X: encoder(X, layers), X, [perm])


@settings(max_examples=25, deadline=None)
@given(blocks(min_n=2, min_d_h=4))
def test_sinusoidal_positions_added_once_at_the_input_break_it_at_every_depth(case):
    X, perm, p, rng = case
    assume((perm != np.arange(perm.size)).any())  # a real reordering
    d, h, d_ff = X.shape[1], p["n_heads"], p["W_1"].shape[1]
    layers = [p] + [random_params(d, h, d_ff, rng) for _ in range(5)]
    E = pa.sinusoidal_positions(*X.shape)
    for depth in range(1, 7):  # broken by more than rounding (atol=1e-6) at every depth
        with pytest.raises(AssertionError, match="f must be permutation-equivariant"):
            assert_equivariant(lambda X, L=depth: encoder(X + E, layers[:L]), X, [perm],
                               atol=1e-6)


@given(blocks())
def test_a_mean_pooled_encoder_is_a_bag_of_words(case):
    X, perm, p, _ = case
    assert_invariant(lambda X: encoder(X, [p, p]).mean(axis=0), X, [perm])


def test_a_causal_mask_breaks_the_encoders_equivariance():
    X, p = np.random.default_rng(1).normal(size=(5, 8)), init_encoder_params(8, 2, 16, seed=1)
    mask = pa.causal_mask(5)
    with pytest.raises(AssertionError, match="f must be permutation-equivariant"):
        assert_equivariant(lambda X: encoder(X, [p, p], mask=mask), X, [[4, 3, 2, 1, 0]],
                           atol=0.01)


# ---- what the pieces compute -----------------------------------------------------------------

def test_each_head_is_single_head_attention_on_its_own_columns():
    rng = np.random.default_rng(2)
    X, (W_Q, W_K, W_V) = rng.normal(size=(4, 5)), rng.normal(size=(3, 5, 6))
    Y, A = multi_head_attention(X, W_Q, W_K, W_V, np.eye(6), n_heads=3)
    for h, cols in enumerate(([0, 1], [2, 3], [4, 5])):
        Y_h, A_h = pa.self_attention(X, W_Q[:, cols], W_K[:, cols], W_V[:, cols])
        np.testing.assert_allclose(A[h], A_h, atol=1e-13)
        np.testing.assert_allclose(Y[:, cols], Y_h, atol=1e-13)  # W_O = I: the concatenation


def test_the_mask_holds_in_every_head():
    rng = np.random.default_rng(5)
    X, W = rng.normal(size=(5, 6)), rng.normal(size=(4, 6, 6))
    _, A = multi_head_attention(X, *W, n_heads=3, mask=pa.causal_mask(5))
    assert A.shape == (3, 5, 5) and (np.triu(A, k=1) == 0).all()  # no weight on a later token
    np.testing.assert_allclose(A.sum(axis=2), 1.0, atol=1e-12)


def test_layer_norm_gives_each_row_mean_zero_and_variance_one_before_gamma_and_beta():
    X = np.array([[1.0, 2.0, 3.0, 10.0], [-5.0, 0.0, 5.0, 0.0]])
    Z = layer_norm(X, eps=1e-12)
    np.testing.assert_allclose(Z.mean(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.var(axis=1), 1.0, atol=1e-9)
    scaled = layer_norm(X, [2.0] * 4, [1.0] * 4, eps=1e-12)
    np.testing.assert_allclose(scaled, 2 * Z + 1, atol=1e-12)


def test_init_encoder_params_gives_the_same_numbers_on_every_machine():
    p = init_encoder_params(4, 2, 8, seed=0)
    np.testing.assert_allclose(p["W_Q"][0], [0.06286511, -0.06605243, 0.32021133, 0.05245006],
                               atol=1e-8)
    np.testing.assert_allclose(p["b_2"], [-0.09234503, 0.03720196, 0.06641444, 0.24627908],
                               atol=1e-8)
    shapes = (p["n_heads"], p["W_1"].shape, p["b_1"].shape, p["W_2"].shape)
    assert shapes == (2, (4, 8), (8,), (8, 4))
    np.testing.assert_array_equal([p["gamma_1"], p["beta_2"]], [np.ones(4), np.zeros(4)])
    assert not np.array_equal(init_encoder_params(4, 2, 8, seed=1)["W_Q"], p["W_Q"])


def loop_block(X, p):
    """The block written one token and one number at a time, from the equations (the oracle)."""
    d, h = len(X[0]), p["n_heads"]
    d_h = d // h
    W = {k: np.asarray(v).tolist() for k, v in p.items() if k != "n_heads"}

    def times(x, M):  # the row vector x times the matrix M
        return [sum(x[k] * M[k][j] for k in range(len(x))) for j in range(len(M[0]))]

    def add(x, y):  # two rows, entry by entry
        return [a + b for a, b in zip(x, y, strict=True)]

    def norm(x, gamma, beta):
        mu = sum(x) / len(x)
        var = sum((v - mu) ** 2 for v in x) / len(x)
        return [g * (v - mu) / math.sqrt(var + 1e-5) + b
                for v, g, b in zip(x, gamma, beta, strict=True)]

    q, k, v = ([times(x, W[name]) for x in X] for name in ("W_Q", "W_K", "W_V"))
    out = []
    for i, x in enumerate(X):
        heads = []
        for c in (range(s, s + d_h) for s in range(0, d, d_h)):
            scores = [sum(q[i][a] * k[j][a] for a in c) / math.sqrt(d_h) for j in range(len(X))]
            e = [math.exp(s - max(scores)) for s in scores]
            heads += [sum(e[j] / sum(e) * v[j][a] for j in range(len(X))) for a in c]
        H = norm(add(x, times(heads, W["W_O"])), W["gamma_1"], W["beta_1"])
        hidden = [max(0.0, a) for a in add(times(H, W["W_1"]), W["b_1"])]
        F = add(times(hidden, W["W_2"]), W["b_2"])
        out.append(norm(add(H, F), W["gamma_2"], W["beta_2"]))
    return np.array(out)


@pytest.mark.parametrize(("d_model", "n_heads", "d_ff", "seed"), [(4, 1, 3, 0), (6, 3, 8, 1),
                                                                 (8, 2, 16, 2)])
def test_encoder_block_matches_the_literal_per_token_loop(d_model, n_heads, d_ff, seed):
    rng = np.random.default_rng(seed)
    X, p = rng.normal(size=(5, d_model)), random_params(d_model, n_heads, d_ff, rng)
    np.testing.assert_allclose(encoder_block(X, p), loop_block(X.tolist(), p), rtol=0, atol=1e-12)


def test_encoder_block_matches_pytorch_transformer_encoder_layer():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    X, p, mask = rng.normal(size=(6, 8)), random_params(8, 2, 16, rng), pa.causal_mask(6)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="relu",
                                             batch_first=True, norm_first=False,
                                             dtype=torch.float64)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    with torch.no_grad():
        attention = layer.self_attn  # in_proj_weight stacks W_Qᵀ, W_Kᵀ, W_Vᵀ; x ↦ x Wᵀ + b
        attention.in_proj_weight.copy_(t(np.concatenate([p["W_Q"], p["W_K"], p["W_V"]], axis=1).T))
        attention.in_proj_bias.zero_()
        attention.out_proj.weight.copy_(t(p["W_O"].T))
        attention.out_proj.bias.zero_()
        for linear, i in ((layer.linear1, 1), (layer.linear2, 2)):
            linear.weight.copy_(t(p[f"W_{i}"].T))
            linear.bias.copy_(t(p[f"b_{i}"]))
        for norm, i in ((layer.norm1, 1), (layer.norm2, 2)):
            norm.weight.copy_(t(p[f"gamma_{i}"]))
            norm.bias.copy_(t(p[f"beta_{i}"]))
        layer.eval()
        for ours, theirs in ((None, None), (mask, t(~mask))):  # torch: True = may NOT attend
            expected = layer(t(X)[None], src_mask=theirs)[0].numpy()
            np.testing.assert_allclose(encoder_block(X, p, mask=ours), expected, atol=1e-10)


def test_the_encoder_and_the_heads_weights_can_be_differentiated_by_autograd():
    autograd = pytest.importorskip("autograd")
    rng = np.random.default_rng(4)
    X, C = rng.normal(size=(3, 4)), rng.normal(size=(2, 3, 3))
    p = init_encoder_params(4, 2, 8, seed=4)
    mha_args = (p["W_Q"], p["W_K"], p["W_V"], p["W_O"], 2)
    losses = {"encoder": lambda X: (encoder(X, [p, p]) * C[0, :, :1]).sum(),
              "A": lambda X: (multi_head_attention(X, *mha_args)[1] * C).sum()}
    for name, loss in losses.items():
        G, step = autograd.grad(loss)(X), 1e-6
        for index in [(0, 0), (1, 2), (2, 3)]:
            E = np.zeros_like(X)
            E[index] = step
            numeric = (loss(X + E) - loss(X - E)) / (2 * step)
            assert G[index] == pytest.approx(numeric, abs=1e-6), (name, index)


# ---- every input is checked with the series' message template ---------------------------------

X3 = np.ones((3, 4)) + np.eye(3, 4)
P = init_encoder_params(4, 2, 8)


def test_n_heads_must_divide_d_model():
    with pytest.raises(ValueError, match=r"n_heads must divide d_model = 4.*got 3. Choose one of"):
        init_encoder_params(4, 3, 8)
    with pytest.raises(ValueError, match=r"n_heads must divide d_model = 6"):
        multi_head_attention(X3, *[np.eye(4, 6)] * 3, np.eye(6), n_heads=4)
    with pytest.raises(ValueError, match=r"params\['n_heads'\] must divide d_model = 4"):
        encoder_block(X3, P | {"n_heads": 3})
    with pytest.raises(TypeError, match=r"n_heads must be an integer; got float 2.0"):
        multi_head_attention(X3, *[np.eye(4)] * 4, n_heads=2.0)


def test_a_missing_or_misshapen_params_key_is_named():
    with pytest.raises(ValueError, match=r"params must have the keys .*; missing W_O, b_2\. Build"):
        encoder_block(X3, {k: v for k, v in P.items() if k not in ("W_O", "b_2")})
    with pytest.raises(ValueError, match=r"params\['b_1'\] must have shape \(8,\).*; got shape"):
        encoder_block(X3, P | {"b_1": np.zeros(4)})
    with pytest.raises(ValueError, match=r"layers\[1\]\['W_O'\] must have shape \(4, 4\)"):
        encoder(X3, [P, P | {"W_O": np.eye(4, 5)}])
    with pytest.raises(ValueError, match=r"params\['W_Q'\] must have shape \(4, 4\) \(d_model = 4"):
        encoder_block(X3, init_encoder_params(8, 2, 8) | {"W_1": P["W_1"]})
    with pytest.raises(TypeError, match=r"params must be a dict of parameters; got list"):
        encoder_block(X3, [P])


def test_the_mask_shape_and_type_are_checked():
    with pytest.raises(ValueError, match=r"mask must have shape \(3, 3\).*; got \(4, 4\)"):
        encoder_block(X3, P, mask=pa.causal_mask(4))
    with pytest.raises(TypeError, match=r"mask must be a boolean array"):
        encoder(X3, [P], mask=np.ones((3, 3)))


def test_layers_must_be_a_non_empty_list():
    with pytest.raises(TypeError, match=r"layers must be a list of parameter dicts.*got dict"):
        encoder(X3, P)
    with pytest.raises(ValueError, match=r"layers must hold at least one parameter dict"):
        encoder(X3, [])


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: layer_norm("X"), TypeError, r"X must be an array of numbers; got str"),
    (lambda: layer_norm(np.ones(4)), ValueError, r"X must have shape \(n, d\); got shape \(4,\)"),
    (lambda: layer_norm([[1.0, np.nan]]), ValueError, r"X must hold only finite numbers"),
    (lambda: layer_norm(np.ones((0, 3))), ValueError, r"X must not be empty; got shape \(0, 3\)"),
    (lambda: layer_norm([[1j, 2.0]]), TypeError, r"X must hold real numbers; got complex"),
    (lambda: layer_norm(X3, gamma=np.ones(3)), ValueError, r"gamma must have shape \(4,\) to"),
    (lambda: layer_norm(X3, beta=[[0.0] * 4]), ValueError, r"beta must have shape \(4,\)"),
    (lambda: layer_norm(X3, eps=0.0), ValueError, r"eps must be a finite number above 0"),
    (lambda: feed_forward(X3, np.ones((3, 8)), np.zeros(8), np.ones((8, 4)), np.zeros(4)),
     ValueError, r"W_1 must have shape \(4, d_ff\) to match X's 4 features; got shape \(3, 8\)"),
    (lambda: feed_forward(X3, np.ones((4, 8)), np.zeros(8), np.ones((7, 4)), np.zeros(4)),
     ValueError, r"W_2 must have shape \(8, d_out\), one row per column of W_1"),
    (lambda: multi_head_attention(X3, *[np.eye(4)] * 2, np.eye(4, 2), np.eye(4), n_heads=1),
     ValueError, r"W_V must have shape \(4, 4\), the shape of W_Q; got shape \(4, 2\)"),
    (lambda: multi_head_attention(X3, *[np.eye(4)] * 3, np.eye(3), n_heads=1),
     ValueError, r"W_O must have shape \(4, d_out\), one row per column"),
    (lambda: encoder_block(np.ones((3, 6)), P), ValueError,
     r"params\[.W_1.\] must have shape \(6, d_ff\); got shape \(4, 8\)"),
    (lambda: init_encoder_params(4, 2, 8, seed=-1), ValueError, r"seed must be at least 0"),
])
def test_every_bad_input_gets_the_series_message(call, error, match):
    with pytest.raises(error, match=match):
        call()

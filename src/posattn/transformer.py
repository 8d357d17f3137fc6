"""A whole Transformer encoder in numpy; every piece is permutation equivariant.

    MHA(X) = concat_h(attention(X W_Q^h, X W_K^h, X W_V^h)) W_O
    H      = LayerNorm(X + MHA(X))                 (post-norm, Vaswani et al. 2017)
    out    = LayerNorm(H + FFN(H)),   FFN(H) = ReLU(H W_1 + b_1) W_2 + b_2

Everything but attention acts on one row at a time, and a row-wise map commutes with any
reordering of the rows; attention is equivariant; so is any composition of the two.
Arrays may be autograd ArrayBoxes: checks look inside, and the math never writes in place.
"""

import math
from collections.abc import Mapping

import numpy as np

from ._checks import as_matrix, check_int, check_number
from .attention import inputs, scaled_dot_product_attention


def _shapes(m: int, f: int) -> dict:
    """The shape of every array of one block (d_model = m, d_ff = f), in the order drawn."""
    return {"W_Q": (m, m), "W_K": (m, m), "W_V": (m, m), "W_O": (m, m), "W_1": (m, f),
            "b_1": (f,), "W_2": (f, m), "b_2": (m,), "gamma_1": (m,), "beta_1": (m,),
            "gamma_2": (m,), "beta_2": (m,)}


KEYS = tuple(_shapes(1, 1))  # the names of one block's arrays


def _heads(n_heads, d_model: int, name: str = "n_heads") -> int:
    h = check_int(name, n_heads)
    if d_model % h:
        divisors = [k for k in range(1, d_model + 1) if d_model % k == 0]
        raise ValueError(f"{name} must divide d_model = {d_model}, so that every head gets "
                         f"d_model / n_heads columns; got {h}. Choose one of {divisors}.")
    return h


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads: int, mask=None):
    """Attention in ``n_heads`` heads side by side, concatenated, then mixed by W_O.

    head h = attention(X W_Q[:, s_h], X W_K[:, s_h], X W_V[:, s_h]), s_h = h·d_h … (h+1)·d_h − 1
    MHA(X) = [head 0 | … | head H−1] W_O,   d_h = d_model / n_heads

    X (n, d); W_Q, W_K, W_V (d, d_model); W_O (d_model, d_out); mask (n, n), shared by the heads.
    Returns Y (n, d_out) and A (n_heads, n, n), each head's weights.

    >>> Y, A = multi_head_attention(np.eye(3, 4), *[np.eye(4)] * 4, n_heads=2)
    >>> Y.shape, A.shape
    ((3, 4), (2, 3, 3))
    """
    X, W_Q, W_K, W_V = inputs(as_matrix("X", X, ("n", "d")), W_Q, W_K, W_V)  # attention's checks
    n, d_model = X.shape[0], W_Q.shape[1]
    as_matrix("W_V", W_V, W_Q.shape, ", the shape of W_Q")  # each head gets d_h values too
    W_O = as_matrix("W_O", W_O, (d_model, "d_out"), f", one row per column of the {d_model} "
                 "concatenated head outputs")
    d_h = d_model // _heads(n_heads, d_model)
    # (n, d) @ (d, d_model) -> (n, d_model) -> (n_heads, n, d_h): head h gets the columns s_h
    Q, K, V = ((X @ W).reshape(n, -1, d_h).swapaxes(0, 1) for W in (W_Q, W_K, W_V))
    Y, A = scaled_dot_product_attention(Q, K, V, mask=mask)  # (n_heads, n, d_h), (n_heads, n, n)
    return Y.swapaxes(0, 1).reshape(n, d_model) @ W_O, A  # [Y_0 | … | Y_H−1] W_O: (n, d_out)


def layer_norm(X, gamma=None, beta=None, eps: float = 1e-5):
    """Normalise each row (token) to mean 0 and variance 1, then scale by γ and shift by β.

    LN(x) = γ ⊙ (x − mean(x)) / √(var(x) + ε) + β   (biased variance, as in PyTorch)

    >>> layer_norm([[1.0, 3.0]]).round(3).tolist()
    [[-1.0, 1.0]]
    """
    X = as_matrix("X", X, ("n", "d"))
    d = X.shape[1]
    gamma = 1.0 if gamma is None else as_matrix("gamma", gamma, (d,), f" to match X's {d} features")
    beta = 0.0 if beta is None else as_matrix("beta", beta, (d,), f" to match X's {d} features")
    eps = check_number("eps", eps, above=0.0)  # PyTorch's default is 1e-5
    mu = X.mean(axis=1, keepdims=True)  # (n, 1): one mean per token
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)  # (n, 1): one variance per token
    return gamma * (X - mu) / np.sqrt(var + eps) + beta  # (n, d)


def feed_forward(X, W_1, b_1, W_2, b_2):
    """The position-wise feed-forward layer: the same two-layer ReLU network on every row.

    FFN(X) = ReLU(X W_1 + b_1) W_2 + b_2

    >>> feed_forward([[1.0], [-1.0]], [[1.0]], [0.0], [[2.0]], [0.5]).tolist()
    [[2.5], [0.5]]
    """
    X = as_matrix("X", X, ("n", "d"))
    W_1 = as_matrix("W_1", W_1, (X.shape[1], "d_ff"), f" to match X's {X.shape[1]} features")
    b_1 = as_matrix("b_1", b_1, (W_1.shape[1],), ", one entry per column of W_1")
    W_2 = as_matrix("W_2", W_2, (W_1.shape[1], "d_out"), ", one row per column of W_1")
    b_2 = as_matrix("b_2", b_2, (W_2.shape[1],), ", one entry per column of W_2")
    H = np.maximum(X @ W_1 + b_1, 0.0)  # (n, d) @ (d, d_ff) -> (n, d_ff), then ReLU
    return H @ W_2 + b_2  # (n, d_ff) @ (d_ff, d_out) -> (n, d_out)


def init_encoder_params(d_model: int, n_heads: int, d_ff: int, seed: int = 0) -> dict:
    """Seeded parameters for one :func:`encoder_block` (the same numbers on every machine).

    Weights are normal with standard deviation 1/√fan_in; biases uniform in ±1/√fan_in,
    as PyTorch's nn.Linear; γ = 1 and β = 0, as PyTorch's nn.LayerNorm.

    >>> sorted(init_encoder_params(8, 2, 16)) == sorted(KEYS + ("n_heads",))
    True
    """
    d, d_ff = check_int("d_model", d_model), check_int("d_ff", d_ff)
    n_heads, rng = _heads(n_heads, d), np.random.default_rng(check_int("seed", seed, 0))
    fan_in = {"b_1": d, "b_2": d_ff}  # a bias's fan-in: the rows of the weight before it
    params = {"n_heads": n_heads}
    for key, shape in _shapes(d, d_ff).items():  # drawn in KEYS order: the same numbers each time
        if key in fan_in:
            params[key] = rng.uniform(-1.0, 1.0, shape) / math.sqrt(fan_in[key])
        elif key.startswith("W"):
            params[key] = rng.normal(0.0, 1.0 / math.sqrt(shape[0]), shape)
        else:
            params[key] = np.full(shape, 1.0 if key.startswith("gamma") else 0.0)
    return params


def _params(name: str, params, d_model: int) -> Mapping:
    """Check every key of one block's parameters against d_model (X's columns)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{name} must be a dict of parameters; got {type(params).__name__}. "
                        "Build one with init_encoder_params(d_model, n_heads, d_ff).")
    missing = [k for k in ("n_heads",) + KEYS if k not in params]
    if missing:
        raise ValueError(f"{name} must have the keys n_heads, {', '.join(KEYS)}; missing "
                         f"{', '.join(missing)}. Build it with init_encoder_params.")
    _heads(params["n_heads"], d_model, f"{name}['n_heads']")
    d_ff = as_matrix(f"{name}['W_1']", params["W_1"], (d_model, "d_ff")).shape[1]
    for key, shape in _shapes(d_model, d_ff).items():
        as_matrix(f"{name}['{key}']", params[key], shape, f" (d_model = {d_model}, X's columns)")
    return params


def _block(X, p: Mapping, mask):
    Z, _ = multi_head_attention(X, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], p["n_heads"], mask)
    H = layer_norm(X + Z, p["gamma_1"], p["beta_1"])  # (n, d_model): residual, then normalise
    F = feed_forward(H, p["W_1"], p["b_1"], p["W_2"], p["b_2"])  # (n, d_model)
    return layer_norm(H + F, p["gamma_2"], p["beta_2"])  # (n, d_model)


def encoder_block(X, params: Mapping, mask=None):
    """One post-norm encoder block (nn.TransformerEncoderLayer with norm_first=False).

    H = LayerNorm(X + MHA(X)),   out = LayerNorm(H + FFN(H))

    >>> encoder_block(np.eye(3, 8), init_encoder_params(8, 2, 16)).shape
    (3, 8)
    """
    X = as_matrix("X", X, ("n", "d_model"))
    return _block(X, _params("params", params, X.shape[1]), mask)


def encoder(X, layers, mask=None):
    """A stack of encoder blocks, one parameter dict per block, applied in turn.

    >>> encoder(np.eye(3, 8), [init_encoder_params(8, 2, 16, seed=s) for s in range(3)]).shape
    (3, 8)
    """
    if not isinstance(layers, (list, tuple)):
        raise TypeError(f"layers must be a list of parameter dicts, one per block; got "
                        f"{type(layers).__name__}. Wrap a single block's dict as [params].")
    if not layers:
        raise ValueError("layers must hold at least one parameter dict; got an empty list.")
    X = as_matrix("X", X, ("n", "d_model"))
    for i, params in enumerate(layers):
        X = _block(X, _params(f"layers[{i}]", params, X.shape[1]), mask)
    return X

"""A whole Transformer encoder in numpy; every piece is permutation equivariant.

    MHA(X) = concat_h(attention(X W_Q^h, X W_K^h, X W_V^h)) W_O
    H      = LayerNorm(X + MHA(X))                 (post-norm, Vaswani et al. 2017)
    out    = LayerNorm(H + FFN(H)),   FFN(H) = ReLU(H W_1 + b_1) W_2 + b_2

Everything but attention acts on one row at a time, and a row-wise map commutes with any
reordering of the rows; attention is equivariant; so is any composition of the two.
The kernels come first; the public functions check their arguments once, then call them.
"""

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._checks import (
    as_matrix,
    check_int,
    check_mask,
    check_number,
    check_size,
    finite_result,
    quiet_overflow,
    raw,
    shorten,
)
from .attention import _attention

# ---- kernels: the equations ----------------------------------------------------------------


def _multi_head(X, W_Q, W_K, W_V, W_O, h: int, mask=None):
    """head_h = attention(X W_Q[:, s_h], X W_K[:, s_h], X W_V[:, s_h]);  [head_0 | …] W_O."""
    n, d_h = X.shape[0], W_Q.shape[1] // h
    # (n, d) @ (d, d_model) -> (n, d_model) -> (h, n, d_h): head h gets the columns s_h
    Q, K, V = ((X @ W).reshape(n, -1, d_h).swapaxes(0, 1) for W in (W_Q, W_K, W_V))
    Y, A = _attention(Q, K, V, mask)  # (h, n, d_h), (h, n, n)
    return Y.swapaxes(0, 1).reshape(n, -1) @ W_O, A  # [Y_0 | … | Y_h−1] W_O: (n, d_out)


def _row_scale(X):
    """A power of 2 per row, c ≥ 1, with max |x / c| < 2: dividing by it is exact and overflows
    nothing. LN(x / c) with ε / c² is LN(x), so c is a constant of the formula, not traced."""
    _, e = np.frexp(np.abs(raw(X)).max(axis=-1, keepdims=True))  # max |x| = m·2^e, ½ ≤ m < 1
    return np.ldexp(1.0, np.maximum(e - 1, 0))  # (n, 1)


def _layer_norm(X, gamma=1.0, beta=0.0, eps: float = 1e-5):
    """LN(x) = γ ⊙ (x − mean(x)) / √(var(x) + ε) + β, row by row (biased variance)."""
    c = _row_scale(X)  # (n, 1): x / c and (x − mean)² stay finite even for x near 1e308
    X = X / c
    mu = X.mean(axis=-1, keepdims=True)  # (n, 1): one mean per token
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)  # (n, 1): one variance per token
    eps = np.maximum(eps / c / c, np.finfo(float).tiny)  # ε / c², kept above 0 for huge rows
    return gamma * (X - mu) / np.sqrt(var + eps) + beta  # (n, d)


def _feed_forward(X, W_1, b_1, W_2, b_2):
    """FFN(X) = ReLU(X W_1 + b_1) W_2 + b_2."""
    H = np.maximum(X @ W_1 + b_1, 0.0)  # (n, d) @ (d, d_ff) -> (n, d_ff), then ReLU
    return H @ W_2 + b_2  # (n, d_ff) @ (d_ff, d_out) -> (n, d_out)


def _block(X, p: Mapping, mask=None):
    """H = LayerNorm(X + MHA(X)),   out = LayerNorm(H + FFN(H))."""
    Z, _ = _multi_head(X, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], p["n_heads"], mask)
    H = _layer_norm(X + Z, p["gamma_1"], p["beta_1"])  # (n, d_model): residual, then normalise
    F = _feed_forward(H, p["W_1"], p["b_1"], p["W_2"], p["b_2"])  # (n, d_model)
    return _layer_norm(H + F, p["gamma_2"], p["beta_2"])  # (n, d_model)


def _shapes(m: int, f: int) -> dict:
    """The shape of every array of one block (d_model = m, d_ff = f), in the order drawn."""
    return {"W_Q": (m, m), "W_K": (m, m), "W_V": (m, m), "W_O": (m, m), "W_1": (m, f),
            "b_1": (f,), "W_2": (f, m), "b_2": (m,), "gamma_1": (m,), "beta_1": (m,),
            "gamma_2": (m,), "beta_2": (m,)}


KEYS = tuple(_shapes(1, 1))  # the names of one block's arrays


def _init_params(d: int, n_heads: int, d_ff: int, seed: int) -> dict:
    """W ~ N(0, 1/fan_in), b ~ U(±1/√fan_in) (PyTorch's nn.Linear), γ = 1, β = 0."""
    rng = np.random.default_rng(seed)
    fan_in = {"b_1": d, "b_2": d_ff}  # a bias's fan-in: the rows of the weight before it
    params: dict[str, Any] = {"n_heads": n_heads}
    for key, shape in _shapes(d, d_ff).items():  # drawn in KEYS order: the same numbers each time
        if key in fan_in:
            params[key] = rng.uniform(-1.0, 1.0, shape) / math.sqrt(fan_in[key])
        elif key.startswith("W"):
            params[key] = rng.normal(0.0, 1.0 / math.sqrt(shape[0]), shape)
        else:
            params[key] = np.full(shape, 1.0 if key.startswith("gamma") else 0.0)
    return params


# ---- the door's own checks for this module -------------------------------------------------


def _check_heads(n_heads, d_model: int, name: str = "n_heads") -> int:
    h = check_int(name, n_heads)
    if d_model % h:
        small = [k for k in range(1, math.isqrt(d_model) + 1) if d_model % k == 0]
        divisors = small + [d_model // k for k in reversed(small) if k * k != d_model]
        raise ValueError(f"{name} must divide d_model = {d_model}, so that every head gets "
                         f"d_model / n_heads columns; got {h}. Choose one of "
                         f"{shorten(divisors, 12)[1:-1]}.")
    return h


def _check_params(name: str, params, d_model: int) -> dict:
    """One block's parameters, every key checked against d_model (X's columns)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{name} must be a dict of parameters; got {type(params).__name__}. "
                        "Build one with init_encoder_params(d_model, n_heads, d_ff).")
    missing = [k for k in ("n_heads",) + KEYS if k not in params]
    if missing:
        raise ValueError(f"{name} must have the keys n_heads, {', '.join(KEYS)}; missing "
                         f"{', '.join(missing)}. Build it with init_encoder_params.")
    checked = {"n_heads": _check_heads(params["n_heads"], d_model, f"{name}['n_heads']")}
    d_ff = np.shape(as_matrix(f"{name}['W_1']", params["W_1"], (d_model, "d_ff")))[1]
    for key, shape in _shapes(d_model, d_ff).items():
        checked[key] = as_matrix(f"{name}['{key}']", params[key], shape,
                                 f" (d_model = {d_model}, X's columns)")
    return checked


def _check_block_size(X, n_heads: int, d_ff: int) -> None:
    n, d_model = np.shape(X)
    check_size("X", f"{n:,} rows", n_heads * n * n, "the heads' weights A (n_heads, n, n)",
               "Use fewer tokens.")
    check_size("X", f"{n:,} rows", n * max(d_model, d_ff), "the hidden layer", "Use fewer tokens.")


def _check_encoder(X, layers, mask, names: list) -> tuple:
    """X (n, d_model), each block's parameters checked against it, and the mask (n, n)."""
    X = as_matrix("X", X, ("n", "d_model"))
    n, d = np.shape(X)
    layers = [_check_params(name, p, d) for name, p in zip(names, layers, strict=True)]
    for p in layers:
        _check_block_size(X, p["n_heads"], np.shape(p["W_1"])[1])
    return X, layers, check_mask(mask, n, n)


# ---- public functions: check once, then call the kernels -----------------------------------


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
    X = as_matrix("X", X, ("n", "d"))
    n, d = np.shape(X)
    W_Q = as_matrix("W_Q", W_Q, (d, "d_model"), f" to match X's {d} features")
    d_model = np.shape(W_Q)[1]
    W_K = as_matrix("W_K", W_K, (d, d_model), ", the shape of W_Q (q·k needs equal lengths)")
    W_V = as_matrix("W_V", W_V, (d, d_model), ", the shape of W_Q")
    W_O = as_matrix("W_O", W_O, (d_model, "d_out"), f", one row per column of the {d_model} "
                    "concatenated head outputs")
    h = _check_heads(n_heads, d_model)
    _check_block_size(X, h, max(d_model, np.shape(W_O)[1]))
    mask = check_mask(mask, n, n)
    with quiet_overflow():
        Y, A = _multi_head(X, W_Q, W_K, W_V, W_O, h, mask)
    return finite_result("X, W_Q, W_K, W_V and W_O", "multi-head attention", Y, A)


def layer_norm(X, gamma=None, beta=None, eps: float = 1e-5):
    """Normalise each row (token) to mean 0 and variance 1, then scale by γ and shift by β.

    LN(x) = γ ⊙ (x − mean(x)) / √(var(x) + ε) + β   (biased variance, as in PyTorch)

    Exact for any finite row: [[1e200, -1e200]] gives [[1, -1]].

    >>> layer_norm([[1.0, 3.0]]).round(3).tolist()
    [[-1.0, 1.0]]
    """
    X = as_matrix("X", X, ("n", "d"))
    d = np.shape(X)[1]
    gamma = 1.0 if gamma is None else as_matrix("gamma", gamma, (d,), f" to match X's {d} features")
    beta = 0.0 if beta is None else as_matrix("beta", beta, (d,), f" to match X's {d} features")
    eps = check_number("eps", eps, above=0.0)  # PyTorch's default is 1e-5
    with quiet_overflow():
        return finite_result("gamma and beta", "γ ⊙ x̂ + β", _layer_norm(X, gamma, beta, eps))


def feed_forward(X, W_1, b_1, W_2, b_2):
    """The position-wise feed-forward layer: the same two-layer ReLU network on every row.

    FFN(X) = ReLU(X W_1 + b_1) W_2 + b_2

    >>> feed_forward([[1.0], [-1.0]], [[1.0]], [0.0], [[2.0]], [0.5]).tolist()
    [[2.5], [0.5]]
    """
    X = as_matrix("X", X, ("n", "d"))
    n, d = np.shape(X)
    W_1 = as_matrix("W_1", W_1, (d, "d_ff"), f" to match X's {d} features")
    d_ff = np.shape(W_1)[1]
    b_1 = as_matrix("b_1", b_1, (d_ff,), ", one entry per column of W_1")
    W_2 = as_matrix("W_2", W_2, (d_ff, "d_out"), ", one row per column of W_1")
    b_2 = as_matrix("b_2", b_2, (np.shape(W_2)[1],), ", one entry per column of W_2")
    check_size("X", f"{n:,} rows", n * max(d_ff, np.shape(W_2)[1]), "the hidden layer",
               "Use fewer tokens.")
    with quiet_overflow():
        return finite_result("X, W_1, b_1, W_2 and b_2", "FFN(X)",
                             _feed_forward(X, W_1, b_1, W_2, b_2))


def init_encoder_params(d_model: int, n_heads: int, d_ff: int, seed: int = 0) -> dict:
    """Seeded parameters for one :func:`encoder_block` (the same numbers on every machine).

    Weights are normal with standard deviation 1/√fan_in; biases uniform in ±1/√fan_in,
    as PyTorch's nn.Linear; γ = 1 and β = 0, as PyTorch's nn.LayerNorm.

    >>> sorted(init_encoder_params(8, 2, 16)) == sorted(KEYS + ("n_heads",))
    True
    """
    d, d_ff = check_int("d_model", d_model), check_int("d_ff", d_ff)
    check_size("d_model", f"d_model = {d} and d_ff = {d_ff}", 4 * d * d + 2 * d * d_ff + d_ff,
               "one block's parameters", "Use a smaller d_model or d_ff.")
    n_heads, seed = _check_heads(n_heads, d), check_int("seed", seed, 0)
    return _init_params(d, n_heads, d_ff, seed)


def encoder_block(X, params: Mapping, mask=None):
    """One post-norm encoder block (nn.TransformerEncoderLayer with norm_first=False).

    H = LayerNorm(X + MHA(X)),   out = LayerNorm(H + FFN(H))

    >>> encoder_block(np.eye(3, 8), init_encoder_params(8, 2, 16)).shape
    (3, 8)
    """
    X, (p,), mask = _check_encoder(X, [params], mask, ["params"])
    with quiet_overflow():
        return finite_result("X and params", "the block", _block(X, p, mask))


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
    X, layers, mask = _check_encoder(X, layers, mask, [f"layers[{i}]" for i in range(len(layers))])
    with quiet_overflow():
        for p in layers:
            X = _block(X, p, mask)
    return finite_result("X and layers", "the encoder", X)

"""Putting position back: five ways to break attention's permutation symmetry.

    sinusoidal, learned   X + E, E[p] an encoding of position p      (added to the input)
    rope                  q_i, k_j turned by angles ∝ i and j          (rotates queries and keys)
    alibi                 S_ij − m·|i − j|                            (biases the scores)
    causal                α_ij = 0 for j > i                          (masks the scores)

:func:`attention_with_positions` runs self-attention under one named scheme.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_int
from .attention import _project, scaled_dot_product_attention
from .rope import frequencies, rope

SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "causal")
LAYOUTS = ("interleaved", "split")


def sinusoidal_positions(n: int, d: int, layout: str = "interleaved", base: float = 10000.0) -> np.ndarray:
    """The original transformer's encodings E, shape (n, d), to be added to X.

    interleaved (the paper's): E[p, 2i] = sin(p ω_i),  E[p, 2i+1] = cos(p ω_i),  ω_i = base^(−2i/d)
    split (common in code):    the same columns, all sines first, then all cosines

    >>> np.round(sinusoidal_positions(2, 4, base=100.0), 3).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.841, 0.54, 0.1, 0.995]]
    """
    n, d = check_int("n", n), check_int("d", d)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(map(repr, LAYOUTS))}; got {layout!r}.")
    theta = np.outer(np.arange(n), frequencies(d, base))  # (n,) outer (⌈d/2⌉,) -> (n, ⌈d/2⌉)
    E = np.stack([np.sin(theta), np.cos(theta)], axis=2).reshape(n, -1)[:, :d]  # sin, cos, sin, cos, …
    if layout == "split":
        E = np.concatenate([E[:, 0::2], E[:, 1::2]], axis=1)  # sin, sin, …, cos, cos, …
    return E


def sinusoidal_shift(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """The fixed (d, d) matrix M_k with E[p + k] = E[p] @ M_k for every p (interleaved layout).

    Block diagonal: one 2×2 rotation [[cos kω_i, −sin kω_i], [sin kω_i, cos kω_i]] per pair.

    >>> E = sinusoidal_positions(5, 4)
    >>> bool(np.allclose(E[:3] @ sinusoidal_shift(2, 4), E[2:]))
    True
    """
    d = check_int("d", d)
    if d % 2:
        raise ValueError(f"d must be even for the shift matrix (a sine needs its cosine partner); got d = {d}.")
    M = np.zeros((d, d))
    for i, w in enumerate(frequencies(d, base)):
        c, s = math.cos(k * w), math.sin(k * w)
        M[2 * i: 2 * i + 2, 2 * i: 2 * i + 2] = [[c, -s], [s, c]]
    return M


def learned_positions(n: int, d: int, max_len: int = 64, seed: int = 0) -> np.ndarray:
    """Rows 0 … n − 1 of a fixed random (max_len, d) table, standing in for a trained one.

    Entries are normal with standard deviation 1/√2, the root-mean-square of the
    sinusoidal values. A table has no row for a position beyond max_len − 1.

    >>> learned_positions(3, 8).shape
    (3, 8)
    """
    n, d = check_int("n", n), check_int("d", d)
    max_len, seed = check_int("max_len", max_len), check_int("seed", seed, minimum=0)
    if n > max_len:
        raise ValueError(f"n must be at most max_len = {max_len}, the number of rows in the learned table; got n = {n}. "
                         "A learned table knows no position it never saw: shorten the sentence or raise max_len.")
    table = np.random.default_rng(seed).normal(0.0, 1.0 / math.sqrt(2.0), (max_len, d))  # (max_len, d)
    return table[:n]


def alibi_bias(n: int, slope: float = 0.5) -> np.ndarray:
    """ALiBi's score bias B[i, j] = −m·|i − j|: the farther apart, the lower the score.

    The default m = 1/2 is the paper's slope for head 1 of 8 (slopes 2^−1, 2^−2, …, 2^−8).

    >>> alibi_bias(3).tolist()
    [[-0.0, -0.5, -1.0], [-0.5, -0.0, -0.5], [-1.0, -0.5, -0.0]]
    """
    n = check_int("n", n)
    if isinstance(slope, bool) or not isinstance(slope, (int, float)) or not 0 < slope < math.inf:
        raise ValueError(f"slope must be a positive number (the paper's head 1 uses 0.5); got {slope!r}.")
    i = np.arange(n)
    return -float(slope) * np.abs(i[:, None] - i[None, :]).astype(np.float64)  # (n, n)


def causal_mask(n: int) -> np.ndarray:
    """The (n, n) boolean mask, True where j ≤ i: token i sees itself and earlier tokens only.

    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    return np.tri(check_int("n", n), dtype=bool)


def attention_with_positions(X, W_Q, W_K, W_V, scheme: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """Self-attention with position put back by one scheme from :data:`SCHEMES`.

    "none" is exactly :func:`self_attention`; see the module docstring for the rest.

    >>> X, (W_Q, W_K, W_V) = np.eye(3, 8), [np.eye(8, 4)] * 3
    >>> [attention_with_positions(X, W_Q, W_K, W_V, s)[1].shape for s in ("none", "rope")]
    [(3, 3), (3, 3)]
    """
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(map(repr, SCHEMES))}; got {scheme!r}.")
    X, W_Q, W_K, W_V = _project(X, W_Q, W_K, W_V)  # checked once, here
    n, d = X.shape
    if scheme in ("sinusoidal", "learned"):
        X = X + (sinusoidal_positions(n, d) if scheme == "sinusoidal" else learned_positions(n, d))  # into the input
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d) @ (d, d_k or d_v) -> (n, d_k), (n, d_k), (n, d_v)
    if scheme == "rope":
        Q, K = rope(Q), rope(K)  # into the queries and keys, by rotation
    return scaled_dot_product_attention(Q, K, V, mask=causal_mask(n) if scheme == "causal" else None,
                                        bias=alibi_bias(n) if scheme == "alibi" else None)

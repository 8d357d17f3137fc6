"""Rotary position embedding (RoPE): rotate q and k by angles that grow with position.

Pairs of coordinates (2i, 2i+1) — interleaved, as in the RoFormer paper — are
turned by the angle pos·ω_i, with the same frequencies ω_i = base^(−2i/d) as the
sinusoidal encoding. Because R(a)ᵀ R(b) = R(b − a), the score between a rotated
query at i and a rotated key at j depends on the offset j − i only.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_matrix, check_int


def frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The angular frequencies ω_i = base^(−2i/d) for i = 0, 1, …, ⌈d/2⌉ − 1.

    One frequency per pair of coordinates: the first pair turns fastest (ω_0 = 1).

    >>> frequencies(4, base=100.0).tolist()
    [1.0, 0.1]
    """
    d = check_int("d", d)
    if not base > 1.0:
        raise ValueError(f"base must be a number above 1 (the paper uses 10000); got {base!r}.")
    i = np.arange((d + 1) // 2)
    return base ** (-2.0 * i / d)  # (⌈d/2⌉,)


def _positions(positions, n: int) -> np.ndarray:
    if positions is None:
        return np.arange(n, dtype=np.float64)
    p = as_matrix("positions", positions, ndim=1)
    if p.size != n:
        raise ValueError(f"positions must have one entry per row of Z ({n}); got {p.size}.")
    return p


def rope(Z, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotate each row z_p of Z (a query or a key) by its position p.

    [z'_2i, z'_2i+1] = [z_2i cos(p ω_i) − z_2i+1 sin(p ω_i),  z_2i sin(p ω_i) + z_2i+1 cos(p ω_i)]

    Parameters
    ----------
    Z : (n, d_k) queries or keys, d_k even.
    positions : optional (n,) positions, default 0, 1, …, n − 1 (any real numbers).

    Returns
    -------
    Z' : (n, d_k), each pair of coordinates turned; lengths are unchanged.

    >>> np.round(rope([[1.0, 0.0], [1.0, 0.0]], positions=[0.0, np.pi / 2]), 12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    Z = as_matrix("Z", Z)
    n, d_k = Z.shape
    if d_k % 2:
        raise ValueError(f"Z must have an even number of columns (d_k) for RoPE, which turns pairs of coordinates; "
                         f"got d_k = {d_k}. Choose an even d_k.")
    theta = np.outer(_positions(positions, n), frequencies(d_k, base))  # (n,) outer (d_k/2,) -> (n, d_k/2)
    cos, sin = np.cos(theta), np.sin(theta)
    even, odd = Z[:, 0::2], Z[:, 1::2]  # (n, d_k/2) each: the pairs (z_2i, z_2i+1)
    out = np.empty_like(Z)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out

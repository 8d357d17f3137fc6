"""Rotary position embedding (RoPE): rotate q and k by angles that grow with position.

Pairs of coordinates (2i, 2i+1) — interleaved, as in the RoFormer paper — are
turned by the angle pos·ω_i, with frequencies ω_i = base^(−2i/d_k) (the sinusoidal
encoding's formula, for the length d_k of a query). Because R(a)ᵀ R(b) = R(b − a),
the score between a rotated query at i and a rotated key at j depends on j − i only.

Code in practice (GPT-NeoX, Llama: their ``rotate_half``) pairs coordinate m with m + d_k/2
instead, the split halves: the same turns on the columns reordered (notebook 11).
"""

import numpy as np

from ._checks import (
    as_matrix,
    check_choice,
    check_even,
    check_int,
    check_number,
    check_size,
    finite_result,
    quiet_overflow,
    raw,
)

# ---- kernels: the equations ----------------------------------------------------------------


def _frequencies(d: int, base: float = 10000.0):
    """ω_i = base^(−2i/d) for i = 0, 1, …, ⌈d/2⌉ − 1: one frequency per pair of coordinates."""
    i = np.arange((d + 1) // 2)
    return base ** (-2.0 * i / d)  # (⌈d/2⌉,)


def _rotate(Z, p, base: float = 10000.0):
    """[z'_2i, z'_2i+1] = R(p ω_i) [z_2i, z_2i+1]: row z_p turned pair by pair by its position p."""
    return _turn(Z, p[:, None] * _frequencies(Z.shape[-1], base))  # θ = p ω: (n, d_k/2)


def _turn(Z, theta):
    """[z'_2i, z'_2i+1] = R(θ_i) [z_2i, z_2i+1]: row z_p turned pair i by its angle θ[p, i]."""
    d_k = Z.shape[-1]
    cos = np.repeat(np.cos(theta), 2, axis=1)  # (n, d_k): cos(p ω_i) for both of pair i
    sin = np.repeat(np.sin(theta), 2, axis=1) * np.tile([-1.0, 1.0], d_k // 2)  # −sin, +sin
    partner = Z[..., np.arange(d_k) ^ 1]  # (..., n, d_k): z_2i+1 in column 2i, z_2i in column 2i+1
    return Z * cos + partner * sin  # z_2i cos − z_2i+1 sin,  z_2i sin + z_2i+1 cos


def _rotate_halves(Z, p, base: float = 10000.0):
    """[z'_m, z'_m+h] = R(p ω_m) [z_m, z_m+h], h = d_k/2: the halves turned pair by pair."""
    return _turn_halves(Z, p[:, None] * _frequencies(Z.shape[-1], base))  # (n, d_k/2)


def _turn_halves(Z, theta):
    """[z'_m, z'_m+h] = R(θ_m) [z_m, z_m+h]: coordinate m paired with m + h, h = d_k/2."""
    h = Z.shape[-1] // 2
    cos = np.tile(np.cos(theta), 2)  # (n, d_k): cos(p ω_m) for z_m and for z_m+h
    sin = np.tile(np.sin(theta), 2) * np.repeat([-1.0, 1.0], h)  # −sin, then +sin
    partner = Z[..., np.roll(np.arange(2 * h), h)]  # z_m+h in column m, z_m in column m + h
    return Z * cos + partner * sin  # z_m cos − z_m+h sin,  z_m sin + z_m+h cos


LAYOUTS = ("interleaved", "halves")  # which coordinates turn together: (2i, 2i+1), (m, m + d_k/2)


# ---- public functions: check once, then call the kernels -----------------------------------


def frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The angular frequencies ω_i = base^(−2i/d) for i = 0, 1, …, ⌈d/2⌉ − 1.

    One frequency per pair of coordinates: the first pair turns fastest (ω_0 = 1).

    >>> frequencies(4, base=100.0).round(12).tolist()  # 100^(-1/2), to numpy's last digit
    [1.0, 0.1]
    """
    d = check_int("d", d)
    check_size("d", d, (d + 1) // 2, "the frequencies")
    base = check_number("base", base, above=1.0)  # the paper uses 10000
    return _frequencies(d, base)


def rope(Z, positions=None, base: float = 10000.0, layout: str = "interleaved") -> np.ndarray:
    """Rotate each row z_p of Z (a query or a key) by its position p.

    [z'_2i, z'_2i+1] = [z_2i cos(p ω_i) − z_2i+1 sin(p ω_i),  z_2i sin(p ω_i) + z_2i+1 cos(p ω_i)]

    ``layout`` "interleaved" (the paper's) turns neighbours (2i, 2i+1); "halves" (Llama's code)
    turns (m, m + d_k/2) by p ω_m, the same angles on the columns reordered.

    Z (..., n, d_k), d_k even; ``positions`` (n,) any real numbers, by default 0, 1, …, n − 1.
    Z' has Z's shape; each pair of coordinates is turned, so lengths are unchanged.

    >>> np.round(rope([[1.0, 0.0], [1.0, 0.0]], positions=[0.0, np.pi / 2]), 12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    Z = as_matrix("Z", Z, batch=True)
    n, d_k = np.shape(Z)[-2:]
    check_even("Z", d_k)
    p = np.arange(n) if positions is None else raw(as_matrix(  # positions are data, never trained
        "positions", positions, (n,), ", one entry per row of Z"))
    base = check_number("base", base, above=1.0)
    check_choice("layout", layout, LAYOUTS)
    with quiet_overflow():
        turned = _rotate_halves(Z, p, base) if layout == "halves" else _rotate(Z, p, base)
    return finite_result("Z", "Z' = R(p ω) Z", turned)

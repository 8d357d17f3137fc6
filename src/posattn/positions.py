"""Putting position back: the encodings, biases and masks that break attention's symmetry.

Sinusoidal and learned positions E, ALiBi's and the relative scheme's score biases B, the
causal mask and the padding mask (which marks where a sequence ends): kernels first (the
equations), then the public functions that check their arguments once. The schemes that put
them into attention, one object each, are in ``schemes``.
"""

import math

import numpy as np

from ._checks import (
    as_matrix,
    check_choice,
    check_int,
    check_number,
    check_size,
    finite_result,
    quiet_overflow,
)
from .rope import _frequencies

LEARNED_ROWS = 64  # rows of the default learned table: positions 0 … 63
RELATIVE_CLIP = 4  # the default clip distance k of "relative": offsets −4 … 4 have their own bias

# ---- kernels: the equations ----------------------------------------------------------------


def _sinusoids(p, d: int, base: float = 10000.0):
    """E_p = [sin(p ω_0), cos(p ω_0), sin(p ω_1), …] for positions p (..., n): any real numbers."""
    theta = p[..., None] * _frequencies(d, base)  # (..., n, 1) * (⌈d/2⌉,) -> (..., n, ⌈d/2⌉)
    E = np.stack([np.sin(theta), np.cos(theta)], axis=-1)  # (..., n, ⌈d/2⌉, 2): sin, cos
    return E.reshape(*np.shape(p), -1)[..., :d]  # (..., n, d)


def _sinusoidal_positions(n: int, d: int, layout: str = "interleaved", base: float = 10000.0):
    """E[p, 2i] = sin(p ω_i), E[p, 2i+1] = cos(p ω_i), ω_i = base^(−2i/d); "split": sines first."""
    E = _sinusoids(np.arange(n), d, base)  # (n, d): positions 0 … n − 1
    if layout == "split":
        E = np.concatenate([E[:, 0::2], E[:, 1::2]], axis=1)  # sin, sin, …, cos, cos, …
    return E  # (n, d)


def _sinusoidal_shift(k: float, d: int, base: float = 10000.0):
    """M_k = diag(R(k ω_0), R(k ω_1), …), R(a) = [[cos a, −sin a], [sin a, cos a]]."""
    M = np.zeros((d, d))
    for i, w in enumerate(_frequencies(d, base)):
        c, s = math.cos(k * w), math.sin(k * w)
        M[2 * i: 2 * i + 2, 2 * i: 2 * i + 2] = [[c, -s], [s, c]]
    return M  # (d, d)


def _learned_table(max_len: int, d: int, seed: int = 0):
    """A fixed random (max_len, d) table, normal with standard deviation 1/√2."""
    return np.random.default_rng(seed).normal(0.0, 1.0 / math.sqrt(2.0), (max_len, d))


def _table_rows(E, p):
    """E_p, row p of a table E (..., max_len, d) at positions p: (n,), or (..., n) per sequence."""
    if np.ndim(p) == 1:  # the same positions for every sequence
        return E[..., p, :]  # (..., n, d)
    return np.take_along_axis(E, p[..., None], axis=-2)  # (..., B, n, d)


def _alibi_bias(n: int, m):
    """B[i, j] = −m·|i − j|."""
    i = np.arange(n)
    return -m * np.abs(i[:, None] - i[None, :]).astype(np.float64)  # (n, n)


def _alibi_slopes(heads: int):
    """m_h = 2^(−8h/H), h = 1 … H, for H a power of two; otherwise those of the power of two
    P < H below it, then every other slope of 2P's, the first H − P (Press et al. 2022)."""
    if heads & (heads - 1) == 0:  # a power of two: a geometric sequence from 2^(−8/H)
        return 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)  # (H,)
    P = 1 << (heads.bit_length() - 1)  # the power of two below H
    return np.concatenate([_alibi_slopes(P), _alibi_slopes(2 * P)[0::2][:heads - P]])


def _relative_table(max_distance: int, seed: int = 0):
    """A fixed random bias per clipped offset −k … k, (2k + 1,): normal, standard deviation 1."""
    return np.random.default_rng([seed, 7]).normal(0.0, 1.0, 2 * max_distance + 1)


def _relative_entries(n: int, max_distance: int):
    """(n, n): the entry clip(j − i, −k, k) + k of b that the score of query i and key j gets."""
    i = np.arange(n)
    return np.clip(i[None, :] - i[:, None], -max_distance, max_distance) + max_distance


def _relative_bias(n: int, table, max_distance: int):
    """B[i, j] = b[clip(j − i, −k, k) + k], k = max_distance: one number per offset, clipped."""
    return table[..., _relative_entries(n, max_distance)]  # (..., 2k + 1) -> (..., n, n)


def _causal_mask(n: int):
    """True where j ≤ i: token i sees itself and earlier tokens only."""
    return np.tri(n, dtype=bool)  # (n, n)


def _padding_mask(length: int, n: int):
    """True where key j is a real token, j < length: every query reads the real tokens only."""
    return np.tile(np.arange(n) < length, (n, 1))  # (n, n): the same row for every query


# ---- public functions: check once, then call the kernels -----------------------------------


def sinusoidal_positions(n: int, d: int, layout: str = "interleaved",
                         base: float = 10000.0) -> np.ndarray:
    """The original transformer's encodings E, shape (n, d), to be added to X.

    interleaved (the paper's): E[p, 2i] = sin(p ω_i),  E[p, 2i+1] = cos(p ω_i),  ω_i = base^(−2i/d)
    split (common in code):    the same columns, all sines first, then all cosines

    >>> np.round(sinusoidal_positions(2, 4, base=100.0), 3).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.841, 0.54, 0.1, 0.995]]
    """
    n, d = check_int("n", n), check_int("d", d)
    check_size("n", f"n = {n} and d = {d}", n * d, "E (n, d)", "Use a smaller n or d.")
    check_choice("layout", layout, ("interleaved", "split"))
    base = check_number("base", base, above=1.0)  # the paper uses 10000
    return _sinusoidal_positions(n, d, layout, base)


def sinusoidal_shift(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """The fixed (d, d) matrix M_k with E[p + k] = E[p] @ M_k for every p (interleaved layout).

    Block diagonal: one 2×2 rotation [[cos kω_i, −sin kω_i], [sin kω_i, cos kω_i]] per pair.

    >>> E = sinusoidal_positions(5, 4)
    >>> bool(np.allclose(E[:3] @ sinusoidal_shift(2, 4), E[2:]))
    True
    """
    k, d = check_number("k", k), check_int("d", d)
    if d % 2:
        raise ValueError(f"d must be even for the shift matrix (a sine needs its cosine partner); "
                         f"got d = {d}.")
    check_size("d", d, d * d, "M_k (d, d)")
    return _sinusoidal_shift(k, d, check_number("base", base, above=1.0))


def _check_length(n: int, max_len: int) -> None:
    if n > max_len:
        raise ValueError(f"n must be at most max_len = {max_len}, the number of rows in the "
                         f"learned table; got n = {n}. A learned table knows no position it never "
                         "saw: shorten the sentence or use a longer table.")


def learned_positions(n: int, d: int, max_len: int = LEARNED_ROWS, seed: int = 0) -> np.ndarray:
    """Rows 0 … n − 1 of a fixed random (max_len, d) table, standing in for a trained one.

    Entries are normal with standard deviation 1/√2, the root-mean-square of the
    sinusoidal values. A table has no row for a position beyond max_len − 1.

    >>> learned_positions(3, 8).shape
    (3, 8)
    """
    n, d = check_int("n", n), check_int("d", d)
    max_len, seed = check_int("max_len", max_len), check_int("seed", seed, minimum=0)
    _check_length(n, max_len)
    check_size("max_len", f"max_len = {max_len} and d = {d}", max_len * d, "the (max_len, d) table",
               "Use a smaller max_len or d.")
    return _learned_table(max_len, d, seed)[:n]


def alibi_bias(n: int, slope: float = 0.5) -> np.ndarray:
    """ALiBi's score bias B[i, j] = −m·|i − j|: the farther apart, the lower the score.

    On keys j ≤ i this is the paper's −m·(i − j). The default m = 1/2 is the paper's
    slope for head 1 of 8 (slopes 2^−1, 2^−2, …, 2^−8).

    >>> alibi_bias(3).tolist()
    [[-0.0, -0.5, -1.0], [-0.5, -0.0, -0.5], [-1.0, -0.5, -0.0]]
    """
    n, m = check_int("n", n), check_number("slope", slope, above=0.0)
    check_size("n", n, n * n, "B (n, n)")
    with quiet_overflow():
        return finite_result("slope", f"B = −m·|i − j| with n = {n}", _alibi_bias(n, m))


def alibi_slopes(heads: int) -> np.ndarray:
    """ALiBi's slope m_h for each of ``heads`` heads (Press et al. 2022), shape (heads,).

    For H heads, H a power of two: 2^(−8/H), 2^(−16/H), …, 2^(−8); otherwise the slopes of the
    largest power of two P below H, then every other slope of 2P heads, the first H − P of them
    (the paper's rule, from its code).

    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> alibi_slopes(3).round(4).tolist()  # 2's slopes, then 4's first
    [0.0625, 0.0039, 0.25]
    """
    heads = check_int("heads", heads)
    check_size("heads", heads, heads, "the slopes (heads,)")
    return _alibi_slopes(heads)


def _check_relative(table, max_distance) -> tuple:
    """A table of 2k + 1 finite numbers and its clip distance k (given, or read off its length)."""
    if max_distance is not None:
        max_distance = check_int("max_distance", max_distance, minimum=0)
        check_size("max_distance", max_distance, 2 * max_distance + 1, "the table b (2k + 1,)")
    if table is None:
        return None, max_distance
    table = as_matrix("table", table, ("2k + 1",), ", one bias per offset −k … k")
    size = np.shape(table)[0]
    if max_distance is None and size % 2 == 0:
        raise ValueError(f"table must hold an odd number 2k + 1 of biases, for the offsets −k … k; "
                         f"got {size}. Add or drop one entry.")
    if max_distance is not None and size != 2 * max_distance + 1:
        raise ValueError(f"table must hold 2k + 1 = {2 * max_distance + 1} biases for "
                         f"max_distance k = {max_distance}, one per offset −k … k; got {size}.")
    return table, (size - 1) // 2 if max_distance is None else max_distance


def relative_bias(n: int, table, max_distance: int) -> np.ndarray:
    """The relative scheme's score bias B[i, j] = b[clip(j − i, −k, k) + k], shape (n, n).

    ``table`` b holds 2k + 1 numbers, for the offsets j − i = −k … k (k = ``max_distance``).
    B depends on j − i only (it is constant along each diagonal), and every offset of +k or
    more gets the end entry b[2k] (−k or less: b[0]): such offsets look alike.

    >>> relative_bias(4, [-1.0, 0.0, 1.0], 1).tolist()
    [[0.0, 1.0, 1.0, 1.0], [-1.0, 0.0, 1.0, 1.0], [-1.0, -1.0, 0.0, 1.0], [-1.0, -1.0, -1.0, 0.0]]
    """
    n = check_int("n", n)
    if max_distance is None or table is None:
        missing = "max_distance" if max_distance is None else "table"
        raise TypeError(f"{missing} must be given: table holds the 2k + 1 biases b and "
                        f"max_distance is k; got {missing}=None.")
    check_size("n", n, n * n, "B (n, n)")
    table, max_distance = _check_relative(table, max_distance)
    return _relative_bias(n, table, max_distance)


def causal_mask(n: int) -> np.ndarray:
    """The (n, n) boolean mask, True where j ≤ i: token i sees itself and earlier tokens only.

    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    n = check_int("n", n)
    check_size("n", n, n * n, "the (n, n) mask")
    return _causal_mask(n)


def padding_mask(length: int, n: int) -> np.ndarray:
    """The (n, n) mask of ``length`` real tokens padded to n rows: True where key j is real.

    M[i, j] = (j < length) for every query i, the padding rows' own queries included: no query
    attends to padding, so a real row's output is what the sequence alone gives (PyTorch's
    ``key_padding_mask`` is its negation, True at the padding).

    >>> padding_mask(2, 3).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [1, 1, 0]]
    """
    n = check_int("n", n)
    length = check_int("length", length, maximum=n)  # at least one real token, at most n
    check_size("n", n, n * n, "the (n, n) mask")
    return _padding_mask(length, n)

"""Solutions to the exercises of notebook 11 (positions in practice). Try them first!"""

import math

import numpy as np


def sinusoids(n, d):
    """Exercise 1: E[p, 2i] = sin(p ω_i), E[p, 2i + 1] = cos(p ω_i), ω_i = 10000^(−2i/d)."""
    p = np.arange(n)[:, None]  # (n, 1): the positions
    omega = 10000.0 ** (-2.0 * np.arange(d // 2) / d)  # (d/2,): one frequency per pair
    E = np.zeros((n, d))
    E[:, 0::2], E[:, 1::2] = np.sin(p * omega), np.cos(p * omega)  # (n, d/2) each
    return E


def rope_by_hand(Z, positions, layout):
    """Exercise 2: turn pair i of each row by p·ω_i; the layout says which coordinates pair."""
    Z, p = np.asarray(Z, dtype=float), np.asarray(positions, dtype=float)
    d_k = Z.shape[1]
    theta = np.outer(p, 10000.0 ** (-2.0 * np.arange(d_k // 2) / d_k))  # (n, d_k/2)
    cos, sin = np.cos(theta), np.sin(theta)
    if layout == "interleaved":  # pairs (2i, 2i + 1)
        first, second = Z[:, 0::2], Z[:, 1::2]
    else:  # "halves": pairs (m, m + d_k/2)
        first, second = Z[:, :d_k // 2], Z[:, d_k // 2:]
    turned_first = first * cos - second * sin
    turned_second = first * sin + second * cos
    out = np.empty_like(Z)
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = turned_first, turned_second
    else:
        out[:, :d_k // 2], out[:, d_k // 2:] = turned_first, turned_second
    return out


def alibi_slopes(heads):
    """Exercise 3: Press et al.'s slopes, for any number of heads."""
    def power_of_two(H):
        return [2.0 ** (-8.0 * h / H) for h in range(1, H + 1)]  # 2^(−8/H), 2^(−16/H), …

    if heads & (heads - 1) == 0:
        return power_of_two(heads)
    P = 2 ** math.floor(math.log2(heads))  # the largest power of two below heads
    return power_of_two(P) + power_of_two(2 * P)[0::2][:heads - P]

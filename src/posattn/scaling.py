"""RoPE for inputs longer than training saw: each method's frequencies, and what they change.

A RoPE model trained on rows of up to L words has seen the angles p ω_i for p < L only. A row
of L' = s·L words turns pair i by angles never seen, most of all in the slow pairs, whose
wavelength λ_i = 2π/ω_i is longer than L. Each method changes the frequencies, not the weights:

- position interpolation (Chen et al. 2023): ω'_i = ω_i / s, every angle squeezed into the seen
  range (and neighbours squeezed closer together);
- NTK-aware (bloc97, 2023; in Peng et al. 2024): the base b becomes b·s^(d/(d−2)), so the fast
  pairs keep their frequency and the slowest is divided by s;
- YaRN (Peng et al. 2024): a ramp per pair on r_i = L/λ_i, the turns pair i makes in L words:
  γ_i = clip((r_i − α)/(β − α), 0, 1), ω'_i = (1 − γ_i) ω_i/s + γ_i ω_i; the paper's α = 1,
  β = 32, and an attention temperature, the scores multiplied by (0.1 ln s + 1)².

Llama 3.1's rope_scaling is the same ramp with α = low_freq_factor and β = high_freq_factor,
and no temperature. :func:`decay_bound` is Su et al.'s bound on a score against the offset.
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

METHODS = ("none", "interpolation", "ntk", "yarn")

# ---- kernels: the equations ----------------------------------------------------------------


def _wavelengths(omega):
    """λ_i = 2π/ω_i: the positions pair i needs for one whole turn."""
    return 2.0 * math.pi / omega


def _ramp(omega, s: float, original: float, alpha: float, beta: float):
    """ω'_i = (1 − γ_i) ω_i/s + γ_i ω_i, γ_i = clip((L/λ_i − α)/(β − α), 0, 1)."""
    gamma = np.clip((original / _wavelengths(omega) - alpha) / (beta - alpha), 0.0, 1.0)
    return (1.0 - gamma) * omega / s + gamma * omega  # (d/2,)


def _scaled(d: int, method: str, s: float, base: float, original: float, alpha: float,
            beta: float):
    """The frequencies ω' of one method for a row s times longer than training's L."""
    if method == "interpolation":
        return _frequencies(d, base) / s  # ω_i / s
    if method == "ntk":
        return _frequencies(d, base * s ** (d / (d - 2)))  # base b·s^(d/(d−2))
    if method == "yarn":
        return _ramp(_frequencies(d, base), s, original, alpha, beta)
    return _frequencies(d, base)  # "none": as trained


def _yarn_gain(s: float) -> float:
    """1/t = (0.1 ln s + 1)²: YaRN multiplies q and k by √(1/t), so the scores by 1/t."""
    return (0.1 * math.log(s) + 1.0) ** 2 if s > 1 else 1.0


def _decay_bound(r, omega):
    """mean over l of |S_l(r)|, S_l(r) = Σ_{m ≤ l} e^{i r ω_m}: Su et al.'s bound on a score
    at offset r, divided by (d/2)·max_l |h_l+1 − h_l|."""
    S = np.cumsum(np.exp(1j * np.outer(r, omega)), axis=1)  # (offsets, d/2): S_l(r)
    return np.abs(S).mean(axis=1)  # (offsets,)


# ---- public functions: check once, then call the kernels -----------------------------------


def scaled_frequencies(d: int, method: str = "none", factor: float = 1.0, base: float = 10000.0,
                       original: float = 8.0, alpha: float = 1.0,
                       beta: float = 32.0) -> np.ndarray:
    """RoPE's frequencies ω'_i (d/2,) under a method for rows ``factor`` = s times longer.

    ``original`` is the training length L (YaRN's ramp reads L/λ_i); ``alpha`` and ``beta`` are
    the ramp's ends (YaRN's paper: 1 and 32; Llama 3.1: low_freq_factor 1, high_freq_factor 4).

    >>> scaled_frequencies(4, "interpolation", 2.0, base=100.0).round(12).tolist()
    [0.5, 0.05]
    """
    d = check_int("d", d, minimum=4)
    check_size("d", d, d // 2, "the frequencies")
    if d % 2:
        raise ValueError(f"d must be even (RoPE turns pairs of coordinates); got {d}.")
    check_choice("method", method, METHODS)
    factor = check_number("factor", factor, above=0.0)
    if factor < 1.0:
        raise ValueError(f"factor must be at least 1 (rows as long as training's, or longer); "
                         f"got {factor}.")
    base = check_number("base", base, above=1.0)
    original = check_number("original", original, above=0.0)
    alpha = check_number("alpha", alpha)
    if check_number("beta", beta) <= alpha:
        raise ValueError(f"beta must be above alpha = {alpha} (the ramp rises from α to β); "
                         f"got {beta}.")
    with quiet_overflow():
        omega = _scaled(d, method, factor, base, original, alpha, beta)
    return finite_result("factor, base, original, alpha and beta", "the frequencies", omega)


def wavelengths(omega) -> np.ndarray:
    """λ_i = 2π/ω_i for each frequency: how many positions pair i takes to turn once.

    >>> wavelengths([1.0, 0.5]).round(3).tolist()
    [6.283, 12.566]
    """
    omega = as_matrix("omega", omega, ("d/2",), ", one frequency per pair")
    if (omega <= 0).any():
        raise ValueError(f"omega must hold positive frequencies; got {omega.min():g} among them.")
    with quiet_overflow():
        return finite_result("omega", "λ = 2π/ω", _wavelengths(omega))


def yarn_temperature(factor: float) -> float:
    """√(1/t) = 0.1 ln s + 1: YaRN's factor on q and on k for rows s times longer (1 for s ≤ 1).

    >>> round(yarn_temperature(8.0), 4)
    1.2079
    """
    return math.sqrt(_yarn_gain(check_number("factor", factor, above=0.0)))  # ln s < 710


def decay_bound(offsets, omega) -> np.ndarray:
    """Su et al.'s long-term decay: mean over l of |Σ_{m ≤ l} e^{i r ω_m}| at each offset r.

    A RoPE score at offset r is at most (d/2)·max_l |h_l+1 − h_l| times this (notebook 10): it
    bounds how large a far score can be, and is d/4 + 1/2 at r = 0.

    >>> decay_bound([0], [1.0, 0.1]).tolist()
    [1.5]
    """
    r = as_matrix("offsets", offsets, ("offsets",), ", one offset j − i each")
    omega = as_matrix("omega", omega, ("d/2",), ", one frequency per pair")
    check_size("offsets", f"{len(r)} offsets and {len(omega)} frequencies", len(r) * len(omega),
               "S (offsets, d/2)")
    with quiet_overflow():
        return finite_result("offsets and omega", "the angles r ω", _decay_bound(r, omega))

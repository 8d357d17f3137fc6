"""Putting position back: one registry of schemes that break attention's permutation symmetry.

``SCHEMES`` maps a name to one small kernel ``f(X, W_Q, W_K, W_V, **options)`` that
returns ``(Q, K, V, mask, bias)`` for attention; its docstring holds its equation. No positions
at all is ``scheme=None``. :func:`attention_with_positions` checks the arguments, then calls
the scheme. Adding a scheme is one function here, decorated with ``@_scheme("name")``, and its
tests (and a check of its options in ``_check_options`` if it takes any).
"""

import inspect
import math
from collections.abc import Callable

import numpy as np

from ._checks import (
    as_matrix,
    check_choice,
    check_even,
    check_int,
    check_number,
    check_projections,
    check_size,
    finite_result,
    quiet_overflow,
    shown,
)
from .attention import _attention, _project
from .rope import _frequencies, _rotate

SCHEMES: dict[str, Callable] = {}  # name -> scheme, in the order they are defined below
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


def _alibi_bias(n: int, m):
    """B[i, j] = −m·|i − j|."""
    i = np.arange(n)
    return -m * np.abs(i[:, None] - i[None, :]).astype(np.float64)  # (n, n)


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


def _scheme(name: str):
    def register(f: Callable) -> Callable:
        SCHEMES[name] = f
        return f
    return register


@_scheme("sinusoidal")
def _sinusoidal(X, W_Q, W_K, W_V):
    """X + E with E[p, 2i] = sin(p ω_i), E[p, 2i+1] = cos(p ω_i): added to the input."""
    n, d = X.shape[-2:]
    return (*_project(X + _sinusoidal_positions(n, d), W_Q, W_K, W_V), None, None)


@_scheme("learned")
def _learned(X, W_Q, W_K, W_V, table=None):
    """X + E with E = rows 0 … n − 1 of a (max_len, d) table: added to the input.

    ``table`` defaults to the fixed random one of :func:`learned_positions`; pass a trained one.
    """
    n, d = X.shape[-2:]
    E = _learned_table(LEARNED_ROWS, d) if table is None else table  # (max_len, d)
    return (*_project(X + E[:n], W_Q, W_K, W_V), None, None)


@_scheme("rope")
def _rope(X, W_Q, W_K, W_V):
    """q_i, k_j turned by the angles i·ω and j·ω (RoPE): the score q_i·k_j sees i − j only."""
    Q, K, V = _project(X, W_Q, W_K, W_V)
    p = np.arange(Q.shape[-2])  # positions 0 … n − 1
    return _rotate(Q, p), _rotate(K, p), V, None, None


@_scheme("alibi")
def _alibi(X, W_Q, W_K, W_V, slope=0.5):
    """S_ij − m·(i − j) on keys j ≤ i, with the causal mask: the paper's ALiBi.

    Press et al. 2022, "Train Short, Test Long": a penalty that grows with the distance
    back to each earlier key, designed so that a model trained on short sequences keeps
    working on longer ones (length extrapolation).
    """
    Q, K, V = _project(X, W_Q, W_K, W_V)
    n = Q.shape[-2]
    return Q, K, V, _causal_mask(n), _alibi_bias(n, slope)  # B = −m·(i − j) where j ≤ i


@_scheme("alibi_symmetric")
def _alibi_symmetric(X, W_Q, W_K, W_V, slope=0.5):
    """S_ij − m·|i − j| on every key, no mask: sees distances, not direction (blind to reversal)."""
    Q, K, V = _project(X, W_Q, W_K, W_V)
    return Q, K, V, None, _alibi_bias(Q.shape[-2], slope)


@_scheme("causal")
def _causal(X, W_Q, W_K, W_V):
    """α_ij = 0 for j > i (S_ij = −inf): token i sees itself and earlier tokens only."""
    Q, K, V = _project(X, W_Q, W_K, W_V)
    return Q, K, V, _causal_mask(Q.shape[-2]), None


@_scheme("relative")
def _relative(X, W_Q, W_K, W_V, table=None, max_distance=None):
    """S_ij + b[clip(j − i, −k, k)]: a learned number per offset j − i, clipped at ±k.

    In the spirit of Shaw et al. 2018 (who learn a vector per clipped offset, on the keys'
    and the values' side) and of T5 (Raffel et al. 2020: a number per bucket of offsets, on
    the scores). ``table`` b holds 2k + 1 numbers, for the offsets −k … k (default: a fixed
    random one, standing in for a trained one); ``max_distance`` is k (default: from the
    table's length, else RELATIVE_CLIP). Every offset of +k or more gets the end entry b[2k],
    every offset of −k or less b[0]: the blind spot. No buckets here: one entry per offset.
    """
    Q, K, V = _project(X, W_Q, W_K, W_V)
    k = max_distance if max_distance is not None else (
        RELATIVE_CLIP if table is None else (np.shape(table)[-1] - 1) // 2)
    b = _relative_table(k) if table is None else table  # (2k + 1,)
    return Q, K, V, None, _relative_bias(Q.shape[-2], b, k)


def _with_positions(X, W_Q, W_K, W_V, scheme=None, **options):
    """Y, A = attention(Q, K, V, mask, B), the scheme making Q, K, V, mask and B (None: none)."""
    if scheme is None:
        return _attention(*_project(X, W_Q, W_K, W_V))  # Q, K, V = X W_Q, X W_K, X W_V
    return _attention(*SCHEMES[scheme](X, W_Q, W_K, W_V, **options))  # Q, K, V, mask, bias


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


def _check_scheme(scheme, options: dict) -> Callable | None:
    """The scheme's function (None for no positions), once its name and options are checked."""
    if scheme is not None and (not isinstance(scheme, str) or scheme not in SCHEMES):
        raise ValueError(f"scheme must be one of {', '.join(map(repr, SCHEMES))}, or None for no "
                         f"positions; got {shown(scheme)}.")
    allowed = [] if scheme is None else list(inspect.signature(SCHEMES[scheme]).parameters)[4:]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"options for scheme {scheme!r} must be among ({', '.join(allowed)}); "
                        f"got {', '.join(unknown)}.")
    return SCHEMES.get(scheme)  # type: ignore[arg-type]  # None: no scheme


def _check_options(scheme, options: dict, n: int, d: int, d_k: int) -> dict:
    """The values of a scheme's options: a slope above 0, a table of d columns and ≥ n rows."""
    checked = dict(options)
    if "slope" in options:
        checked["slope"] = check_number("slope", options["slope"], above=0.0)
    if scheme == "learned":
        table = options.get("table")
        if table is not None:
            checked["table"] = as_matrix("table", table, ("max_len", d), f" to match X's {d} "
                                         "features")
        _check_length(n, LEARNED_ROWS if table is None else np.shape(checked["table"])[0])
    if scheme == "relative":
        table, k = _check_relative(options.get("table"), options.get("max_distance"))
        checked.update({"table": table} if "table" in options else {})
        checked.update({"max_distance": k} if "max_distance" in options else {})
    if scheme == "rope":
        check_even("W_Q", d_k, " (q and k are turned pair by pair)")
    return checked


def attention_with_positions(X, W_Q, W_K, W_V, scheme: str | None = None,
                             **options) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention with position put back by one scheme from :data:`SCHEMES`.

    ``scheme=None`` is exactly :func:`self_attention`; ``options`` go to the scheme
    (``table=`` for "learned", ``slope=`` for the two ALiBi schemes, ``table=`` and
    ``max_distance=`` for "relative"). X is (n, d), or
    (B, n, d) for B sequences of length n: each gets the same positions 0 … n − 1.

    >>> X, (W_Q, W_K, W_V) = np.eye(3, 8), [np.eye(8, 4)] * 3
    >>> [attention_with_positions(X, W_Q, W_K, W_V, s)[1].shape for s in (None, "rope")]
    [(3, 3), (3, 3)]
    """
    _check_scheme(scheme, options)
    X, W_Q, W_K, W_V = check_projections(X, W_Q, W_K, W_V)
    n, d = np.shape(X)[-2:]
    options = _check_options(scheme, options, n, d, np.shape(W_Q)[1])
    with quiet_overflow():
        Y, A = _with_positions(X, W_Q, W_K, W_V, scheme, **options)
    arguments = ", ".join(["X", "W_Q", "W_K", "W_V", *options])
    return finite_result(" and".join(arguments.rsplit(",", 1)), "attention", Y, A)

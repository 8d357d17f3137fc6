"""One assertion per symmetry: is f permutation-equivariant, invariant, shift-equivariant on X?

In the spirit of e3nn's ``assert_equivariant``: each function reorders X's rows (every order of
a short X, else a sample drawn from a seeded generator), compares f's outputs as
``posattn.permutations`` does, and passes when the largest difference is within a tolerance
set by the dtype of f's output (:data:`TOLERANCES`, times the output's size). A failure is an
AssertionError that names the order (or shift), the worst row, and the error against the
tolerance; it returns the largest difference found when f passes.

>>> from posattn.testing import assert_equivariant
>>> assert_equivariant(lambda X: 2 * X, np.eye(3))
0.0
"""

import math
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ._checks import (
    as_matrix,
    check_callable,
    check_int,
    check_number,
    check_rng,
    function_output,
    length,
    quiet_overflow,
    shorten,
)
from .permutations import (
    MAX_PERMS,
    _check_gap,
    _check_per_token,
    _check_perms,
    _every_order,
    _random_order,
    _shift_rows,
)

# The largest difference allowed per unit of output, by the dtype of f's output: rounding in a
# reordered sum is a few ulps, so float64 meets 1e-12 and float32 1e-5 (whole numbers: exactly).
TOLERANCES = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-2}

__all__ = ["TOLERANCES", "assert_equivariant", "assert_invariant", "assert_shift_equivariant"]

# ---- kernels: the comparisons -----------------------------------------------------------------


def _reorder(Y, perm, axes):
    """f(X)[perm] along each token axis: rows for Y (n, …), rows and columns for A (n, n)."""
    for axis in axes:
        Y = np.take(Y, perm, axis=axis)  # P Y along this axis
    return Y


def _worst_entry(expected, after) -> tuple[int, ...]:
    """Where |after − expected| is largest: its index (its row is the first entry)."""
    gap = np.abs(after - expected)  # the same shape as the outputs
    return tuple(int(i) for i in np.unravel_index(np.argmax(gap), gap.shape))


def _orders(n: int, samples: int, rng) -> Iterator[np.ndarray]:
    """``samples`` uniformly random orders of range(n), drawn one at a time from the seeded
    generator (one order in memory at a time)."""
    generator = np.random.default_rng(rng)
    return (_random_order(n, generator) for _ in range(samples))


def _shifts(count: int, samples: int, rng) -> list[int]:
    """Every shift 1 … count when there are at most ``samples``, else ``samples`` of them."""
    if count <= samples:
        return list(range(1, count + 1))
    return sorted(int(k) for k in np.random.default_rng(rng).choice(count, samples,
                                                                     replace=False) + 1)


# ---- the door -----------------------------------------------------------------------------------


def _check_input(f: Callable, X) -> np.ndarray:
    """f a function of X; X a finite (n, d) array, kept in its float dtype (f sees float32 as
    float32), anything else as float64."""
    check_callable("f", f)
    kind = X.dtype if isinstance(X, np.ndarray) and X.dtype.kind == "f" else np.float64
    return as_matrix("X", X).astype(kind, copy=False)


def _check_output(name: str, f: Callable, X) -> tuple[np.ndarray, str]:
    """f(X) as finite float64 numbers (of a tuple, the first), and the dtype f computed in."""
    with quiet_overflow():
        output = f(np.array(X, copy=True))  # a copy: an f that works in place changes nothing
    first = output[0] if isinstance(output, tuple) and output else output
    values = function_output(name, output)
    return values, np.asarray(first).dtype.name


def _check_tolerance(atol, dtype: str, before: np.ndarray) -> tuple[float, str]:
    """The tolerance, and how it was set: ``atol`` as given, else the dtype's share of f(X)."""
    if atol is not None:
        atol = check_number("atol", atol)
        if atol < 0:
            raise ValueError(f"atol must be at least 0; got {atol}. Give the largest difference "
                             "to allow, or None for the dtype's tolerance.")
        return atol, f"atol = {atol:.3g}"
    if not dtype.startswith("float"):
        return 0.0, f"{dtype} output: exact"
    per_unit = TOLERANCES.get(dtype, TOLERANCES["float64"])
    scale = max(1.0, float(np.abs(before).max()))
    return per_unit * scale, f"{dtype} output: {per_unit:g} × max(1, max |f(X)| = {scale:.3g})"


def _check_sampling(samples, rng) -> tuple[int, "np.random.Generator | int | None"]:
    return check_int("samples", samples, maximum=MAX_PERMS), check_rng(rng)


def _check_within(worst: tuple, broken: int, tried: str, tolerance: float, how: str,
                  claim: str) -> float:
    """Pass with the largest difference, or fail naming the worst case against the tolerance.

    ``worst`` is (error, the case, where it shows); ``tried`` says how many cases, such as
    "20 orders"; ``claim`` names the symmetry."""
    error, tried_what, where = worst
    if broken == 0:
        return error
    raise AssertionError(f"f must be {claim}; {broken} of the {tried} tried "
                         f"{'breaks' if broken == 1 else 'break'} it. The worst is "
                         f"{tried_what}: {where} by {error:.3g}, above the tolerance "
                         f"{tolerance:.3g} ({how}).")


def _check_orders(perms, samples, rng, X) -> Iterable[tuple[str, np.ndarray]]:
    """(a name for a message, the order): the given perms, checked, or the sampled ones."""
    samples, rng = _check_sampling(samples, rng)
    if perms is not None:
        return ((f"perm = {shorten(p.tolist(), 24)} (perms[{i}])", p)
                for i, p in enumerate(_check_perms(perms, X)))
    n = X.shape[0]
    every = math.factorial(min(n, 13)) <= samples  # 13! is past any sample size
    source = f"of all {math.factorial(n)}" if every else \
        f"drawn with rng={rng}" if isinstance(rng, int) else "drawn from the given generator"
    return ((f"perm = {shorten(p.tolist(), 24)} (order {i} {source})", p)
            for i, p in enumerate(_every_order(n) if every else _orders(n, samples, rng)))


def _check_axes(axes) -> tuple[int, ...]:
    """The token axes of f's output: a tuple of 1 to 8 distinct integers (checked for f(X)'s
    shape once f has run: _check_token_axes)."""
    if not isinstance(axes, (tuple, list)) or not 1 <= len(axes) <= 8 or any(
            isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer))
            for a in axes):
        raise TypeError(f"axes must be a tuple of the output's token axes, such as (0,) for rows "
                        f"or (0, 1) for an (n, n) matrix; got {type(axes).__name__} "
                        f"{shorten([axes])[1:-1]}.")
    return tuple(int(a) for a in axes)


def _check_token_axes(axes: tuple[int, ...], before: np.ndarray, n: int) -> tuple[int, ...]:
    """Each axis an axis of f(X) with n entries (one per token), none named twice."""
    if axes == (0,):
        _check_per_token(before, n)  # the rows: the message of equivariance_error
        return axes
    inside = [a % before.ndim for a in axes if -before.ndim <= a < before.ndim]
    if len(inside) < len(axes) or len(set(inside)) < len(axes) or any(
            before.shape[a] != n for a in inside):
        raise ValueError(f"axes must name distinct axes of f(X), each of length n = {n} (one "
                         f"entry per token); got {axes} for f(X) of shape {before.shape}.")
    return tuple(inside)


def _check_shifts(shifts, most: int) -> list[int]:
    """A list of 1 to MAX_PERMS shifts, each an integer from 1 to ``most``."""
    if isinstance(shifts, (str, bytes)) or not isinstance(shifts, (list, tuple, range,
                                                                   np.ndarray)):
        raise TypeError(f"shifts must be a list of integers from 1 to {most}; got "
                        f"{type(shifts).__name__} {shorten([shifts])[1:-1]}.")
    if not 1 <= length(shifts) <= MAX_PERMS:
        raise ValueError(f"shifts must hold 1 to {MAX_PERMS:,} shifts (each is one more call of "
                         f"f); got {length(shifts):,}. Give a few, e.g. [1, 2, 3].")
    return [check_int(f"shifts[{i}]", k, maximum=most) for i, k in enumerate(shifts)]


# ---- public functions: check once, then compare ---------------------------------------------


def assert_equivariant(f: Callable, X, perms: Iterable | None = None, *,
                       axes: tuple[int, ...] = (0,), samples: int = 20,
                       rng: "np.random.Generator | int | None" = 0,
                       atol: float | None = None) -> float:
    """Assert f(X[perm]) == f(X)[perm] for every order tried: f is permutation-equivariant.

    Parameters: f, a function of X (n, d) returning one row per token (of a tuple, the first
    element is compared); ``perms`` to try, or None for every order of a short X (n! ≤
    ``samples``), else ``samples`` orders drawn from ``rng`` (a seed or a Generator); ``axes``
    the output's token axes, each reordered by perm: (0,) for rows, (0, 1) for A (n, n), where
    the claim is A(PX) = P A Pᵀ; ``atol`` the largest difference allowed, by default
    TOLERANCES[dtype of f(X)] × max(1, max |f(X)|). Returns the largest difference over the
    orders tried; raises AssertionError naming the worst order and row when it is above the
    tolerance.

    >>> assert_equivariant(lambda X: X - X.mean(axis=0), np.arange(6.0).reshape(3, 2))
    0.0
    >>> assert_equivariant(lambda X: X @ X.T, np.arange(6.0).reshape(3, 2), axes=(0, 1))
    0.0
    """
    X = _check_input(f, X)
    orders, axes = _check_orders(perms, samples, rng, X), _check_axes(axes)
    before, dtype = _check_output("f(X)", f, X)
    axes = _check_token_axes(axes, before, X.shape[0])
    tolerance, how = _check_tolerance(atol, dtype, before)
    worst, broken, tried = (0.0, "", ""), 0, 0
    for name, p in orders:
        after, _ = _check_output("f(X[perm])", f, X[p])
        expected = _reorder(before, p, axes)
        error = _check_gap(expected, after)
        tried, broken = tried + 1, broken + (error > tolerance)
        if error > worst[0]:
            at = _worst_entry(expected, after)
            source = tuple(int(p[i]) if axis in axes else i for axis, i in enumerate(at))
            where = f"row {at[0]} of f(X[perm]) differs from row {at[0]} of f(X)[perm] (row " \
                    f"{source[0]} of f(X))" if axes == (0,) else \
                    f"entry {at} of f(X[perm]) differs from entry {source} of f(X)"
            worst = (error, name, where)
    claim = "permutation-equivariant" + ("" if axes == (0,) else f" along the axes {axes}")
    return _check_within(worst, broken, f"{tried} order{'s' * (tried != 1)}", tolerance, how,
                         claim)


def assert_invariant(f: Callable, X, perms: Iterable | None = None, *, samples: int = 20,
                     rng: "np.random.Generator | int | None" = 0,
                     atol: float | None = None) -> float:
    """Assert f(X[perm]) == f(X) for every order tried: f is permutation-invariant.

    The orders and the tolerance are chosen as in :func:`assert_equivariant`; f may return any
    shape (a pooled vector, a number). Returns max |f(X[perm]) − f(X)| over the orders tried.

    >>> assert_invariant(lambda X: X.mean(axis=0), [[3.0], [7.0], [2.0]])
    0.0
    """
    X = _check_input(f, X)
    orders = _check_orders(perms, samples, rng, X)
    before, dtype = _check_output("f(X)", f, X)
    tolerance, how = _check_tolerance(atol, dtype, before)
    row = "row" if before.ndim > 1 else "entry"
    worst, broken, tried = (0.0, "", ""), 0, 0
    for name, p in orders:
        after, _ = _check_output("f(X[perm])", f, X[p])
        error = _check_gap(before, after)
        tried, broken = tried + 1, broken + (error > tolerance)
        if error > worst[0]:
            i = _worst_entry(before, after)[0] if before.ndim else 0
            where = f"{row} {i} of f(X[perm]) differs from {row} {i} of f(X)" if before.ndim \
                else "f(X[perm]) differs from f(X)"
            worst = (error, name, where)
    return _check_within(worst, broken, f"{tried} order{'s' * (tried != 1)}", tolerance, how,
                         "permutation-invariant")


def assert_shift_equivariant(f: Callable, X, shifts: Iterable | None = None, *, margin: int = 1,
                             samples: int = 20, rng: "np.random.Generator | int | None" = 0,
                             atol: float | None = None) -> float:
    """Assert f(X shifted by k)[t] == f(X)[t − k] inside, for every shift k tried.

    The shift is cyclic (np.roll) and rows t with margin + k ≤ t < n − margin are compared, as
    in ``shift_error``. ``shifts`` to try, or None for every k from 1 to n − 2·margin − 1 (or
    ``samples`` of them, drawn from ``rng``); the tolerance as in :func:`assert_equivariant`.
    Returns the largest difference over the shifts tried.

    >>> assert_shift_equivariant(lambda X: 2 * X, np.arange(6.0)[:, None])
    0.0
    """
    X = _check_input(f, X)
    n, margin = X.shape[0], check_int("margin", margin, minimum=0)
    most = n - 2 * margin - 1  # the largest k that leaves a row inside to compare
    if most < 1:
        raise ValueError(f"X must have more than {2 * margin + 1} rows to leave an interior to "
                         f"compare (margin = {margin}); got {n}.")
    samples, rng = _check_sampling(samples, rng)
    ks = _shifts(most, samples, rng) if shifts is None else _check_shifts(shifts, most)
    before, dtype = _check_output("f(X)", f, X)
    _check_per_token(before, n)
    tolerance, how = _check_tolerance(atol, dtype, before)
    worst, broken = (0.0, "", ""), 0
    for k in ks:
        after, _ = _check_output("f(X shifted)", f, np.roll(X, k, axis=0))
        _check_per_token(after, n, " for X shifted")
        rows = _shift_rows(n, k, margin)
        error = _check_gap(before[rows - k], after[rows])
        broken += error > tolerance
        if error > worst[0]:
            t = int(rows[_worst_entry(before[rows - k], after[rows])[0]])
            worst = (error, f"the shift k = {k}", f"row {t} of f(X shifted by {k}) differs "
                                                  f"from row {t - k} of f(X)")
    return _check_within(worst, broken, f"{len(ks)} shift{'s' * (len(ks) != 1)}", tolerance, how,
                         f"shift-equivariant inside (margin = {margin})")

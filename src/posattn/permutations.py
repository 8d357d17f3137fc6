"""Permutations of token order, and how far a function is from each symmetry.

A permutation π is stored as an index array ``perm``: the reordered sequence is
``X[perm]``, i.e. row i of the new sequence is row perm[i] of the old one.
Its matrix P satisfies ``P @ X == X[perm]``.
"""

import itertools
from collections.abc import Callable, Iterable, Iterator, Sized

import numpy as np

from ._checks import (
    as_matrix,
    check_callable,
    check_int,
    check_number,
    check_perm,
    check_rng,
    check_size,
    finite_result,
    length,
    output_of,
    quiet_overflow,
    shown,
    shown_int,
)

# ---- kernels: the definitions --------------------------------------------------------------


def _permutation_matrix(perm):
    """P[i, perm[i]] = 1, so that P X = X[perm]: row i of P is row perm[i] of the identity."""
    return np.eye(len(perm))[perm]  # (n, n)


def _inverse(perm):
    """π⁻¹ with π⁻¹[π[i]] = i, so that X[perm][inverse] = X."""
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(len(perm))  # O(n): argsort would sort
    return inverse


def _worst(difference) -> float:
    """max |difference|: 0 when the two outputs agree."""
    return float(np.max(np.abs(difference)))


def _random_order(n: int, rng):
    """A uniformly random order of range(n): every one of the n! orders equally likely."""
    return np.random.default_rng(rng).permutation(n)


def _every_order(n: int):
    """All n! orders of range(n), in lexicographic order: the identity first."""
    return (np.array(p) for p in itertools.permutations(range(n)))


def _shift_rows(n: int, k: int, margin: int):
    """The rows t with margin + k ≤ t < n − margin, far enough from both ends to compare."""
    return np.arange(margin + k, n - margin)


# ---- the door's own checks for this module -------------------------------------------------


def _check_call(f: Callable, X, perm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f, X and perm checked; f's outputs f(X) and f(X[perm]) as finite float64 arrays."""
    check_callable("f", f)
    X = as_matrix("X", X)
    perm = check_perm(perm, X.shape[0])
    return output_of("f(X)", f, X), output_of("f(X[perm])", f, X[perm]), perm


def _check_per_token(out, n: int, given: str = "") -> None:
    if out.shape[:1] != (n,):
        raise ValueError(f"f must return one row per token ({n}) to be compared row by "
                         f"row; got shape {out.shape}{given}.")


MAX_PERMS = 1000  # symmetries calls f once per permutation: 20 random ones find a broken symmetry


def _check_perms(perms, X) -> list[np.ndarray]:
    """A list (any sized collection) of 1 to MAX_PERMS permutations of X's rows, whose reordered
    copies X[perm] together fit in MAX_ENTRIES (an iterator is refused: it may never end)."""
    n = X.shape[0]
    if isinstance(perms, (str, bytes)) or not isinstance(perms, Iterable) \
            or not isinstance(perms, Sized):
        lazy = (" (an iterator, which may never end: make a list of a few, e.g. "
                "list(itertools.islice(perms, 20)))") if isinstance(perms, Iterable) else ""
        raise TypeError(f"perms must be a list of permutations of range({n}); got "
                        f"{type(perms).__name__} {shown(perms)}{lazy}.")
    count = length(perms)
    if count > MAX_PERMS:
        raise ValueError(f"perms must hold at most {MAX_PERMS:,} permutations (each is one more "
                         f"call of f); got {shown_int(count)}. 20 random ones find a broken "
                         "symmetry.")
    check_size("perms", f"{count:,} permutations of X of shape {X.shape}", count * X.size,
               "the reordered inputs X[perm], all of them,", "Use fewer permutations or a "
               "smaller X.")
    perms = [check_perm(p, n, f"perms[{i}]") for i, p in enumerate(perms)]
    if not perms:
        raise ValueError(f"perms must hold at least one permutation of range({n}); got "
                         "none. Give a few, e.g. [random_permutation(n, seed) for seed in "
                         "range(5)].")
    return perms


def _check_gap(before, after) -> float:
    """max |after − before|, once the two outputs are known to have one shape."""
    if before.shape != after.shape:
        raise ValueError(f"f must return the same shape whatever the order of X's rows; got "
                         f"{before.shape} for X and {after.shape} for X reordered.")
    with quiet_overflow():
        return finite_result("f's outputs", "f(X) − f(X')", _worst(after - before))


# ---- public functions: check once, then call the kernels -----------------------------------


def permutation_matrix(perm) -> np.ndarray:
    """The (n, n) matrix P with P[i, perm[i]] = 1, so that P @ X == X[perm].

    >>> permutation_matrix([2, 0, 1]).astype(int).tolist()
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    """
    perm = check_perm(perm)
    check_size("perm", f"{perm.size:,} entries", perm.size ** 2, "P (n, n)",
               "Use a shorter perm, or index with X[perm] instead.")
    return _permutation_matrix(perm)


def inverse_permutation(perm) -> np.ndarray:
    """The order that undoes ``perm``: X[perm][inverse] == X (and P⁻¹ = Pᵀ).

    >>> inverse_permutation([2, 0, 1]).tolist()
    [1, 2, 0]
    """
    return _inverse(check_perm(perm))


def random_permutation(n: int, rng: "np.random.Generator | int | None" = None) -> np.ndarray:
    """A uniformly random order of range(n), from a seeded generator (or a seed).

    >>> random_permutation(4, np.random.default_rng(0)).tolist()
    [2, 0, 1, 3]
    """
    n = check_int("n", n)
    check_size("n", n, n, "the permutation")
    return _random_order(n, check_rng(rng))


def all_permutations(n: int) -> Iterator[np.ndarray]:
    """Every order of range(n), the identity first (n! of them: keep n small).

    >>> [p.tolist() for p in all_permutations(2)]
    [[0, 1], [1, 0]]
    """
    n = check_int("n", n)
    if n > 8:
        raise ValueError(f"n must be at most 8 to list every order ({n}! is too many); got {n}. "
                         "Sample with random_permutation.")
    return _every_order(n)


def equivariance_error(f: Callable, X, perm) -> float:
    """How far f is from equivariance at (X, π): max |f(X[perm]) − f(X)[perm]|.

    0 up to rounding for an equivariant f; when f returns a tuple, its first
    element is compared.

    >>> equivariance_error(lambda X: 2 * X, [[1.0], [5.0]], [1, 0])
    0.0
    >>> equivariance_error(lambda X: np.cumsum(X, axis=0), [[1.0], [5.0]], [1, 0])
    5.0
    """
    before, after, perm = _check_call(f, X, perm)
    _check_per_token(before, perm.size)
    return _check_gap(before[perm], after)


def invariance_error(f: Callable, X, perm) -> float:
    """How far f is from invariance at (X, π): max |f(X[perm]) − f(X)|.

    >>> invariance_error(lambda X: X.mean(axis=0), [[3.0], [7.0], [2.0], [5.0]], [3, 2, 1, 0])
    0.0
    """
    before, after, _ = _check_call(f, X, perm)
    return _check_gap(before, after)


def shift_error(f: Callable, X, k: int = 1, margin: int = 1) -> float:
    """How far f is from shift equivariance inside: max_t |f(X shifted by k)[t] − f(X)[t − k]|.

    The shift is cyclic (np.roll); rows t with margin + k ≤ t < n − margin are compared.

    >>> shift_error(lambda X: 2 * X, np.arange(6.0)[:, None])
    0.0
    """
    check_callable("f", f)
    X = as_matrix("X", X)
    k, margin = check_int("k", k), check_int("margin", margin, minimum=0)
    n = X.shape[0]
    if n - margin <= margin + k:
        raise ValueError(f"X must have more than {2 * margin + k} rows to leave an interior to "
                         f"compare; got {n}.")
    before = output_of("f(X)", f, X)
    after = output_of("f(X shifted)", f, np.roll(X, k, axis=0))
    _check_per_token(before, n)
    _check_per_token(after, n, " for X shifted")
    rows = _shift_rows(n, k, margin)
    return _check_gap(before[rows - k], after[rows])


def symmetries(f: Callable, X, perms: Iterable, tol: float = 1e-9) -> dict[str, bool | None]:
    """Measure f's symmetries on X: is it invariant, is it permutation-equivariant?

    Equivariance needs one output row per token; for one pooled vector it is None (does not apply).

    >>> symmetries(lambda X: X.sum(axis=0), np.eye(4), [[1, 0, 2, 3]])
    {'invariant': True, 'permutation-equivariant': None}
    """
    check_callable("f", f)
    X = as_matrix("X", X)
    perms = _check_perms(perms, X)
    tol = check_number("tol", tol, above=0.0)
    before = output_of("f(X)", f, X)
    per_token = before.ndim == 2 and before.shape[0] == X.shape[0]
    invariant, equivariant = True, (True if per_token else None)
    for p in perms:  # one f(X[perm]) at a time: many perms of a large X keep one output, not all
        after = output_of("f(X[perm])", f, X[p])
        invariant = invariant and _check_gap(before, after) < tol
        equivariant = equivariant and _check_gap(before[p], after) < tol
    return {"invariant": invariant, "permutation-equivariant": equivariant}

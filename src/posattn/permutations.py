"""Permutations of token order, and how far a function is from each symmetry.

A permutation π is stored as an index array ``perm``: the reordered sequence is
``X[perm]``, i.e. row i of the new sequence is row perm[i] of the old one.
Its matrix P satisfies ``P @ X == X[perm]``.
"""

import itertools
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ._checks import as_matrix, check_finite, check_int, check_perm, numbers_array, quiet_overflow


def permutation_matrix(perm) -> np.ndarray:
    """The (n, n) matrix P with P[i, perm[i]] = 1, so that P @ X == X[perm].

    >>> permutation_matrix([2, 0, 1]).astype(int).tolist()
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    """
    perm = check_perm(perm)
    return np.eye(perm.size)[perm]  # row i is row perm[i] of the identity


def permute(X, perm) -> np.ndarray:
    """Reorder the rows (tokens) of ``X``: returns X[perm], which equals P X.

    >>> permute([[1.0], [2.0], [3.0]], [2, 0, 1]).ravel().tolist()
    [3.0, 1.0, 2.0]
    """
    X = as_matrix("X", X)
    return X[check_perm(perm, X.shape[0])]


def inverse_permutation(perm) -> np.ndarray:
    """The order that undoes ``perm``: X[perm][inverse] == X (and P⁻¹ = Pᵀ).

    >>> inverse_permutation([2, 0, 1]).tolist()
    [1, 2, 0]
    """
    perm = check_perm(perm)
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size)  # O(n): argsort would sort
    return inverse


def random_permutation(n: int, rng: "np.random.Generator | int | None" = None) -> np.ndarray:
    """A uniformly random order of range(n), from a seeded generator (or a seed).

    >>> random_permutation(4, np.random.default_rng(0)).tolist()
    [2, 0, 1, 3]
    """
    n = check_int("n", n)
    if rng is not None and not isinstance(rng, (np.random.Generator, int, np.integer)):
        raise TypeError(f"rng must be a numpy Generator or an integer seed; "
                        f"got {type(rng).__name__}.")
    return np.random.default_rng(rng).permutation(n)


def all_permutations(n: int) -> Iterator[np.ndarray]:
    """Every order of range(n), the identity first (n! of them: keep n small).

    >>> [p.tolist() for p in all_permutations(2)]
    [[0, 1], [1, 0]]
    """
    n = check_int("n", n)
    if n > 8:
        raise ValueError(f"n must be at most 8 to list every order ({n}! is too many); got {n}. "
                         "Sample with random_permutation.")
    return (np.array(p) for p in itertools.permutations(range(n)))


def _first(output) -> np.ndarray:
    """f's output as finite float64 numbers; functions that return (Y, A) are compared on Y."""
    output = numbers_array("f(X)", output[0] if isinstance(output, tuple) else output)
    return check_finite("f(X)", output, "Make f return finite numbers for this X.")


@quiet_overflow
def _worst(difference: np.ndarray) -> float:
    return float(check_finite("f(X) − f(X')", np.max(np.abs(difference)), "f's outputs overflow."))


def _check_call(f: Callable, X, perm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not callable(f):
        raise TypeError(f"f must be a function of X; got {type(f).__name__} {f!r}.")
    X = as_matrix("X", X)
    perm = check_perm(perm, X.shape[0])
    return _first(f(X)), _first(f(X[perm])), perm


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
    if before.shape[:1] != (perm.size,):
        raise ValueError(f"f must return one row per token ({perm.size}) to be compared row by "
                         f"row; got shape {before.shape}.")
    return _worst(after - before[perm])


def invariance_error(f: Callable, X, perm) -> float:
    """How far f is from invariance at (X, π): max |f(X[perm]) − f(X)|.

    >>> invariance_error(lambda X: X.mean(axis=0), [[3.0], [7.0], [2.0], [5.0]], [3, 2, 1, 0])
    0.0
    """
    before, after, _ = _check_call(f, X, perm)
    return _worst(after - before)


def shift_error(f: Callable, X, k: int = 1, margin: int = 1) -> float:
    """How far f is from shift equivariance inside: max_t |f(X shifted by k)[t] − f(X)[t − k]|.

    The shift is cyclic (np.roll); rows t with margin + k ≤ t < n − margin are compared.

    >>> shift_error(lambda X: 2 * X, np.arange(6.0)[:, None])
    0.0
    """
    X = as_matrix("X", X)
    k, margin = check_int("k", k), check_int("margin", margin, minimum=0)
    n = X.shape[0]
    if n - margin <= margin + k:
        raise ValueError(f"X must have more than {2 * margin + k} rows to leave an interior to "
                         f"compare; got {n}.")
    before, after = _first(f(X)), _first(f(np.roll(X, k, axis=0)))
    rows = np.arange(margin + k, n - margin)
    return _worst(after[rows] - before[rows - k])


def symmetries(f: Callable, X, perms: Iterable, tol: float = 1e-9) -> dict[str, bool | None]:
    """Measure f's symmetries on X: invariant, permutation- and shift-equivariant (inside).

    Equivariance needs one output row per token; for one pooled vector it is None (does not apply).

    >>> symmetries(lambda X: X.sum(axis=0), np.eye(4), [[1, 0, 2, 3]])
    {'invariant': True, 'permutation-equivariant': None, 'shift-equivariant': None}
    """
    X = as_matrix("X", X)
    perms = [np.asarray(p) for p in perms]
    out = _first(f(X))
    per_token = out.ndim == 2 and out.shape[0] == X.shape[0]
    equivariant = max(equivariance_error(f, X, p) for p in perms) < tol if per_token else None
    return {
        "invariant": max(invariance_error(f, X, p) for p in perms) < tol,
        "permutation-equivariant": equivariant,
        "shift-equivariant": shift_error(f, X) < tol if per_token else None,
    }

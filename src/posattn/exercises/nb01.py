"""Checkers for notebook 01 (invariance vs equivariance). Each returns Feedback.

The truth is computed here, from the functions themselves, with
``invariance_error`` and ``equivariance_error`` on seeded random data.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..permutations import equivariance_error, invariance_error, permutation_matrix
from . import Feedback, not_yet, right, unanswered

VERDICTS = ("invariant", "equivariant", "neither")
PERM = [1, 3, 0, 2]  # exercise 2: build the P of this order


def column_max(X):
    """f(X) = the largest entry of each column (one vector for the whole sequence)"""
    return X.max(axis=0)


def centred(X):
    """f(X) = X − mean of the rows (each token minus the average token)"""
    return X - X.mean(axis=0)


def reversed_rows(X):
    """f(X) = the rows of X in reverse order"""
    return X[::-1]


def sorted_columns(X):
    """f(X) = each column of X sorted from small to large"""
    return np.sort(X, axis=0)


def index_weighted(X):
    """f(X) = row i of X multiplied by its position i + 1"""
    return X * np.arange(1, len(X) + 1)[:, None]


FUNCTIONS: dict[str, Callable] = {f.__name__: f for f in (column_max, centred, reversed_rows, sorted_columns, index_weighted)}


def _worst(error: Callable, f: Callable, trials: int = 20) -> float:
    """The largest error over seeded random X (5 tokens, 3 features) and orders; inf if not comparable."""
    rng = np.random.default_rng(1)
    try:
        return max(error(f, rng.standard_normal((5, 3)), rng.permutation(5)) for _ in range(trials))
    except ValueError:  # f does not return one row per token: it cannot be equivariant
        return float("inf")


def verdict(f: Callable) -> str:
    """'invariant', 'equivariant' or 'neither', measured on random data.

    >>> verdict(lambda X: X.sum(axis=0)), verdict(lambda X: 3 * X), verdict(lambda X: X.cumsum(axis=0))
    ('invariant', 'equivariant', 'neither')
    """
    if _worst(invariance_error, f) < 1e-9:
        return "invariant"
    return "equivariant" if _worst(equivariance_error, f) < 1e-9 else "neither"


def check_symmetries(answers) -> Feedback:
    """Exercise 1: ``answers`` maps each name in FUNCTIONS to one of VERDICTS."""
    if not isinstance(answers, dict):
        return not_yet(f"answers should be a dict {{name: verdict}}; got {type(answers).__name__}.")
    missing = [name for name in FUNCTIONS if answers.get(name, ...) is ...]
    if missing:
        return unanswered(..., f"'invariant', 'equivariant' or 'neither' for: {', '.join(missing)}")
    odd = [f"{name}={answers[name]!r}" for name in FUNCTIONS if answers[name] not in VERDICTS]
    if odd:
        return not_yet(f"each answer must be one of {VERDICTS}; got {', '.join(odd)}.")
    wrong = [name for name, f in FUNCTIONS.items() if answers[name] != verdict(f)]
    if wrong:
        return not_yet(f"{len(FUNCTIONS) - len(wrong)} of {len(FUNCTIONS)} right. Look again at: {', '.join(wrong)} "
                       "(try it on a small X and on X[perm]).")
    return right("all five classified. Only the function that uses i as a number, and the reversal, are neither.")


def check_permutation_matrix(P) -> Feedback:
    """Exercise 2: the permutation matrix of PERM, written by hand."""
    if (early := unanswered(P, f"a {len(PERM)}×{len(PERM)} array of 0s and 1s")) is not None:
        return early
    P = np.asarray(P, dtype=np.float64)
    n = len(PERM)
    if P.shape != (n, n):
        return not_yet(f"P should have shape ({n}, {n}), one row and one column per token; got {P.shape}.")
    if not np.isin(P, (0.0, 1.0)).all() or not (P.sum(axis=1) == 1).all() or not (P.sum(axis=0) == 1).all():
        return not_yet("a permutation matrix has exactly one 1 in every row and every column, and 0 elsewhere.")
    target = permutation_matrix(PERM)
    if np.array_equal(P, target.T):
        return not_yet("this is the transpose (the inverse order). Row i must pick token perm[i], so that P @ X == X[perm].")
    if not np.array_equal(P, target):
        return not_yet("P @ X should equal X[perm]: row i of P needs its 1 in column perm[i].")
    return right("P @ X == X[perm]. Its transpose puts the tokens back: P.T @ P is the identity.")


def check_mixing_equivariant(f) -> Feedback:
    """Exercise 3: an equivariant f whose output row i depends on the other rows too."""
    if not callable(f):
        return not_yet(f"my_f should be a function of X; got {type(f).__name__}.")
    X = np.random.default_rng(2).standard_normal((4, 3))
    if (early := unanswered(out := f(X.copy()), "a formula in X that returns an array")) is not None:
        return early
    if (kind := verdict(f)) != "equivariant":
        return not_yet(f"my_f is {kind}: f(X[perm]) should equal f(X)[perm] for every perm.")
    bumped = X.copy()
    bumped[3] += 1.0  # change token 3 only
    if np.allclose(np.asarray(f(bumped))[0], np.asarray(out)[0]):
        return not_yet("row 0 of the output ignores the other tokens (changing token 3 leaves it unchanged). "
                       "Mix the rows, e.g. through a sum over tokens.")
    return right("equivariant and every output row sees the other tokens — exactly the kind of function attention is.")

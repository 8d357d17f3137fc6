"""Checkers for notebook 06 (the "dog bites man" explorer); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..explorer_state import TOLERANCE, compute_view
from ..permutations import random_permutation
from . import Feedback, not_yet, right, unanswered

ALIBI_SENTENCE = ["the", "dog", "bites", "man"]


def check_put_back(put_back) -> Feedback:
    """Exercise 1: put_back(A_shuffled, perm) returns A, the matrix in the original order (Pᵀ A' P).

    >>> check_put_back(...)
    ❌ Not yet: replace the ... with a function put_back(A_shuffled, perm), then run the cell again.
    """
    if (missing := unanswered(put_back, "a function put_back(A_shuffled, perm)")) is not None:
        return missing
    if not callable(put_back):
        return not_yet(f"put_back must be a function of (A_shuffled, perm); got {type(put_back).__name__}.")
    rng = np.random.default_rng(6)
    for n in (3, 5, 8):
        A, perm = rng.random((n, n)), random_permutation(n, rng)
        A_shuffled = A[perm][:, perm]  # A' = P A Pᵀ
        got = put_back(A_shuffled.copy(), perm.copy())
        if got is ... or got is None:
            return not_yet("your function returns nothing yet: replace the ... after `return`.")
        got = np.asarray(got, dtype=np.float64)
        if got.shape != A.shape:
            return not_yet(f"the result must have shape {A.shape}, like A'; got {got.shape}.")
        if np.allclose(got, A_shuffled[perm][:, perm]) and not np.allclose(got, A):
            return not_yet("that moves the rows and columns once more in the shuffled direction; undo π instead.")
        if not np.allclose(got, A, atol=1e-12):
            return not_yet("the result is not A. Rows and columns both moved: undo π on both.")
    return right("Pᵀ A' P = A: the un-shuffle view shows exactly the original heatmap.")


def check_alibi_blind_order(perm) -> Feedback:
    """Exercise 2: an order of "the dog bites man", other than the original, that ALiBi cannot see.

    >>> check_alibi_blind_order(...)
    ❌ Not yet: replace the ... with an order such as [1, 0, 2, 3], then run the cell again.
    """
    if (missing := unanswered(perm, "an order such as [1, 0, 2, 3]")) is not None:
        return missing
    try:
        view = compute_view(ALIBI_SENTENCE, perm, "alibi")
    except (TypeError, ValueError) as error:
        return not_yet(str(error))
    if (view.perm == np.arange(4)).all():
        return not_yet("that is the original order: nothing moved, so no scheme could see it. Move some words.")
    if view.error >= TOLERANCE:
        return not_yet(f"ALiBi sees this order: A' differs from P A Pᵀ by {view.error:.3g}. "
                       "Which orders keep every distance |i − j|?")
    return right("reversing keeps every distance |i − j|, and ALiBi's bias −m·|i − j| only sees distances.")

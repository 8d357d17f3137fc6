"""Checkers for notebook 05 (the "dog bites man" explorer); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..explorer_state import TOLERANCE, compute_view
from ..permutations import random_permutation
from . import Feedback, function_answer, not_yet, returned_nothing, right, unanswered

ALIBI_SENTENCE = ["the", "dog", "bites", "man"]


def check_put_back(put_back) -> Feedback:
    """Exercise 1: put_back(A_shuffled, perm) returns A, the matrix in the original order (Pᵀ A' P).

    >>> check_put_back(...)
    ❌ Not yet: replace the ... with a function put_back(A_shuffled, perm), then run the cell again.
    """
    early = function_answer(put_back, "put_back", "(A_shuffled, perm)", what="a function put_back(A_shuffled, perm)")
    if early is not None:
        return early
    rng = np.random.default_rng(6)
    for n in (3, 5, 8):
        A, perm = rng.random((n, n)), random_permutation(n, rng)
        A_shuffled = A[perm][:, perm]  # A' = P A Pᵀ
        got = put_back(A_shuffled.copy(), perm.copy())
        if (early := returned_nothing(got)) is not None:
            return early
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
        view = compute_view(ALIBI_SENTENCE, perm, "alibi_symmetric")
    except (TypeError, ValueError) as error:
        return not_yet(str(error))
    if (view.perm == np.arange(4)).all():
        return not_yet("that is the original order: nothing moved, so no scheme could see it. Move some words.")
    if view.error >= TOLERANCE:
        return not_yet(f"ALiBi sees this order: A' differs from P A Pᵀ by {view.error:.3g}. "
                       "Which orders keep every distance |i − j|?")
    return right("reversing keeps every distance |i − j|, and ALiBi's bias −m·|i − j| only sees distances.")

"""Checkers for notebook 04 (where could position enter?); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..attention import self_attention
from ..embeddings import default_projections, embed, tokenize
from ..permutations import permutation_matrix
from . import Feedback, not_yet, right, unanswered

PERM = [1, 2, 0]  # the order used in exercise 1: "dog bites man" -> "bites man dog"


def check_shuffled_attention(A_shuffled) -> Feedback:
    """Exercise 1: the attention matrix of "dog bites man" reordered by PERM, from A alone.

    A' = P A Pᵀ,  i.e.  A'[i, j] = A[perm[i], perm[j]]

    >>> check_shuffled_attention(...)
    ❌ Not yet: replace the ... with a 3×3 matrix, then run the cell again.
    """
    if (missing := unanswered(A_shuffled, "a 3×3 matrix")) is not None:
        return missing
    got = np.asarray(A_shuffled, dtype=np.float64)
    A = self_attention(embed(tokenize("dog bites man")), *default_projections())[1]  # (3, 3)
    if got.shape != A.shape:
        return not_yet(f"A_shuffled must have shape {A.shape}, one row and one column per token; got {got.shape}.")
    P = permutation_matrix(PERM)
    if np.allclose(got, P @ A @ P.T, atol=1e-12):
        return right("the rows and the columns both move with the tokens: A' = P A Pᵀ.")
    if np.allclose(got, A, atol=1e-12):
        return not_yet("that is A itself; the tokens moved, so the weights move with them.")
    if np.allclose(got, P @ A, atol=1e-12) or np.allclose(got, A @ P.T, atol=1e-12):
        return not_yet("only one side moved: each token is both a query (a row) and a key (a column).")
    return not_yet("row i of the new matrix belongs to token perm[i]; which column holds its weight for token perm[j]?")


def check_changed_rows(rows) -> Feedback:
    """Exercise 2: which output rows change when tokens 1 and 4 of a 7-token sentence swap?

    >>> check_changed_rows(...)
    ❌ Not yet: replace the ... with a list of row indices, then run the cell again.
    """
    if (missing := unanswered(rows, "a list of row indices")) is not None:
        return missing
    try:
        got = {int(r) for r in rows}
    except (TypeError, ValueError):
        return not_yet(f"rows must be a list of integers such as [0, 6]; got {rows!r}.")
    if got == {1, 4}:
        return right("only the two swapped rows change, and they simply trade places: Y' = P Y.")
    if not got:
        return not_yet("something does change: two tokens moved, so their outputs move too.")
    if got > {1, 4}:
        return not_yet("too many: a token that stayed put sees the same bag of keys and values, so its output is unchanged.")
    return not_yet("think of Y' = P Y: which rows does this P move?")


_WRONG = {
    "a": "W_Q is shared by every position, so a different W_Q changes every token alike; positions still never enter.",
    "b": "a different scale still uses only q_i·k_j, which depends on the two words, not on where they sit.",
    "d": "a sum does not depend on the order of its terms (up to rounding), so nothing about position gets in.",
}


def check_position_entry(choice) -> Feedback:
    """Exercise 3: which change to the score lets α_ij depend on where tokens sit? One letter.

    >>> check_position_entry(...)
    ❌ Not yet: replace the ... with one of "a", "b", "c", "d", then run the cell again.
    """
    if (missing := unanswered(choice, 'one of "a", "b", "c", "d"')) is not None:
        return missing
    letter = str(choice).strip().lower().strip("()")
    if letter == "c":
        return right("a term in i − j uses the indices as numbers: now where tokens sit changes the weights.")
    if letter in _WRONG:
        return not_yet(_WRONG[letter])
    return not_yet(f'choice must be one of "a", "b", "c", "d"; got {choice!r}.')

"""Checkers for notebook 08 (putting position back); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from .._checks import check_perm
from ..embeddings import default_projections, embed, tokenize
from ..permutations import equivariance_error
from ..positions import attention_with_positions, sinusoidal_shift
from ..rope import rope
from . import Feedback, not_yet, right, unanswered


def check_alibi_blind_spot(perm) -> Feedback:
    """Exercise 1: a reordering of "dog bites man", not the identity, that ALiBi alone cannot detect.

    >>> check_alibi_blind_spot(...)
    ❌ Not yet: replace the ... with an order such as [0, 2, 1], then run the cell again.
    """
    if (missing := unanswered(perm, "an order such as [0, 2, 1]")) is not None:
        return missing
    try:
        perm = check_perm(perm, 3)
    except (TypeError, ValueError) as err:
        return not_yet(str(err))
    if (perm == np.arange(3)).all():
        return not_yet("the identity changes nothing for every scheme; find another order.")
    X, weights = embed(tokenize("dog bites man")), default_projections()
    err = equivariance_error(lambda X: attention_with_positions(X, *weights, scheme="alibi_symmetric")[0], X, perm)
    if err < 1e-12:
        return right("reading the sentence backwards keeps every distance |i − j|, so ALiBi's bias cannot see it.")
    return not_yet(f"this order gives an error of {err:.2g}: ALiBi notices it. Which order keeps every |i − j|?")


def check_rope_partner(j) -> Feedback:
    """Exercise 2: j such that score(query at 4, key at j) = score(query at 7, key at 3) under RoPE.

    >>> check_rope_partner(...)
    ❌ Not yet: replace the ... with a position j, then run the cell again.
    """
    if (missing := unanswered(j, "a position j")) is not None:
        return missing
    if isinstance(j, bool) or not isinstance(j, (int, float, np.integer, np.floating)):
        return not_yet(f"j must be a number; got {type(j).__name__} {j!r}.")
    q, k = np.random.default_rng(3).standard_normal((2, 1, 8))

    def score(i, j):
        return float((rope(q, [i]) @ rope(k, [j]).T)[0, 0])

    if abs(score(4, float(j)) - score(7, 3)) < 1e-9:
        return right("only the offset counts: 7 − 3 = 4 − 0.")
    if abs(score(4, 2 * 4 - float(j)) - score(7, 3)) < 1e-9:
        return not_yet("close: the sign of the offset matters. Keep i − j the same, not j − i.")
    return not_yet("RoPE scores depend on i − j only. What is i − j for (7, 3)?")


def check_shift_matrix(M) -> Feedback:
    """Exercise 3: the 2×2 matrix M_1 with E[p + 1] = E[p] @ M_1 for d = 2 (interleaved).

    >>> check_shift_matrix(...)
    ❌ Not yet: replace the ... with a 2×2 matrix, then run the cell again.
    """
    if (missing := unanswered(M, "a 2×2 matrix")) is not None:
        return missing
    try:
        M = np.asarray(M, dtype=np.float64)
    except (TypeError, ValueError):
        return not_yet(f"M must be a 2×2 array of numbers; got {M!r}.")
    if M.shape != (2, 2):
        return not_yet(f"M must have shape (2, 2); got {M.shape}.")
    expected = sinusoidal_shift(1, 2)
    if np.allclose(M, expected, atol=1e-9):
        return right("a rotation by ω_0 = 1 radian: sin(p + 1) and cos(p + 1) are linear in sin p and cos p.")
    if np.allclose(M, expected.T, atol=1e-9):
        return not_yet("that is the transpose: E[p] is a row vector, multiplied from the left (E[p] @ M).")
    return not_yet("expand sin(p + 1) and cos(p + 1) with the angle-addition formulas.")

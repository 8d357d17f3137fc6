"""Checkers for notebook 03 (softmax and projections); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..attention import softmax
from ..embeddings import default_projections, embed
from . import Feedback, function_answer, not_yet, returned_nothing, right, unanswered

_CASES = ([2.0, 1.0, 0.1], [1000.0, 999.0, 998.0], [-1000.0, -1001.0], [5.0], [1e300, -1e300, 0.0])


def check_stable_softmax(f) -> Feedback:
    """Exercise 1: ``f(s)`` is softmax of a 1-D array of scores and survives huge scores.

    softmax(s)_j = exp(s_j - max(s)) / Σ_l exp(s_l - max(s))

    >>> check_stable_softmax(...)
    ❌ Not yet: replace the ... with a function of s, then run the cell again.
    """
    if (early := function_answer(f, "stable_softmax", "s")) is not None:
        return early
    for s in _CASES:
        with np.errstate(all="ignore"):
            got = f(np.array(s))
        if (early := returned_nothing(got)) is not None:
            return early
        got = np.asarray(got, dtype=np.float64)
        if got.shape != (len(s),):
            return not_yet(f"for scores {s} the result must have shape ({len(s)},); got {got.shape}.")
        if not np.isfinite(got).all():
            return not_yet(f"for scores {s} you get inf or nan: exp overflowed or gave 0/0. Shift the scores first.")
        if not np.allclose(got, softmax(s), atol=1e-12):
            return not_yet(f"for scores {s} the weights are not softmax(s): check that they are positive and sum to 1.")
    return right("positive weights that sum to 1, even for scores of ±1e300.")


def check_score_spread(answer) -> Feedback:
    """Exercise 2: the spread (standard deviation) of q·k for d_k = 256, unit-variance entries.

    >>> check_score_spread(...)
    ❌ Not yet: replace the ... with a number, then run the cell again.
    """
    if (missing := unanswered(answer, "a number")) is not None:
        return missing
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return not_yet(f"the answer must be a number; got {type(answer).__name__} {answer!r}.")
    if 15.0 <= value <= 17.0:
        return right("q·k is a sum of d_k terms of variance 1, so its spread grows like √d_k.")
    if 240.0 <= value <= 270.0:
        return not_yet("that is the variance; the question asks for the standard deviation (its square root).")
    return not_yet("q·k is a sum of d_k independent products, each of variance 1. What is the variance of the sum?")


def check_query_of_man(q_man) -> Feedback:
    """Exercise 3: the query of "man" in "man bites dog", with the default W_Q.

    >>> check_query_of_man(...)
    ❌ Not yet: replace the ... with a vector of length 4, then run the cell again.
    """
    if (missing := unanswered(q_man, "a vector of length 4")) is not None:
        return missing
    got = np.asarray(q_man, dtype=np.float64)
    W_Q, W_K, _ = default_projections()
    x_man = embed(["man"])[0]  # (d,)
    if got.shape != (W_Q.shape[1],):
        return not_yet(f"q_man must have shape ({W_Q.shape[1]},), one number per query feature; got {got.shape}.")
    if np.allclose(got, x_man @ W_Q, atol=1e-12):
        return right("the same vector as for 'man' at the end of 'dog bites man': W_Q is shared by every position.")
    if np.allclose(got, x_man @ W_K, atol=1e-12):
        return not_yet("that is the key of 'man' (W_K); the query uses W_Q.")
    return not_yet("take the embedding row of 'man' and multiply it by W_Q from the right: x W_Q.")

"""Checkers for notebook 03 (softmax and projections)."""

import numpy as np

from ..attention import softmax
from ..embeddings import default_projections, embed
from . import NotYet, as_array, call, checker, close

_CASES = ([2.0, 1.0, 0.1], [1000.0, 999.0, 998.0], [-1000.0, -1001.0], [5.0], [1e300, -1e300, 0.0])


@checker("a function of s")
def check_stable_softmax(stable_softmax):
    """Exercise 1: ``stable_softmax(s)`` is softmax of a 1-D array of scores, even huge ones.

    softmax(s)_j = exp(s_j - max(s)) / Σ_l exp(s_l - max(s))
    """
    for s in _CASES:
        with np.errstate(all="ignore"):
            got = call(stable_softmax, np.array(s), name="stable_softmax")
        try:
            got = as_array(got, f"stable_softmax({s})", (len(s),))
        except NotYet as hint:
            if "NaN or inf" in str(hint):
                raise NotYet(f"for scores {s} you get inf or nan: exp overflowed or gave 0/0. "
                             "Shift the scores first.") from None
            raise
        if not close(got, softmax(s)):
            raise NotYet(f"for scores {s} the weights are not softmax(s): they should be positive, "
                         "sum to 1, and keep the differences between scores.")
    return "positive weights that sum to 1, even for scores of ±1e300."


@checker("a number")
def check_score_spread(spread_at_256):
    """Exercise 2: the spread (standard deviation) of q·k for d_k = 256, unit-variance entries."""
    value = float(as_array(spread_at_256, "spread_at_256", ()))
    if 15.0 <= value <= 17.0:
        return "q·k is a sum of d_k terms of variance 1, so its spread grows like √d_k."
    if 240.0 <= value <= 270.0:
        raise NotYet("that is the variance; the question asks for the standard deviation "
                     "(its square root).")
    raise NotYet("q·k is a sum of d_k independent products, each of variance 1. "
                 "What is the variance of the sum, and what is its square root?")


@checker("a vector of length 4")
def check_query_of_man(q_man):
    """Exercise 3: the query of "man" in "man bites dog", with the default W_Q."""
    W_Q, W_K, _ = default_projections()
    q = as_array(q_man, "q_man", W_Q.shape[1:])
    x_man = embed(["man"])[0]  # (d,)
    if close(q, x_man @ W_K):
        raise NotYet("that is the key of 'man' (W_K); the query uses W_Q.")
    if not close(q, x_man @ W_Q):
        raise NotYet("take the embedding row of 'man' (row 0 of X_mbd) and multiply it by W_Q "
                     "from the right: x W_Q.")
    return ("the same vector as for 'man' at the end of 'dog bites man': W_Q is shared by every "
            "position.")

"""Checkers for notebook 02 (the weighted sum y_i = Σ_j α_ij v_j), on the A and V it prints."""

import numpy as np

from ..permutations import inverse_permutation
from . import NotYet, as_array, call, checker, close, read_only

TOKENS = ("dog", "bites", "man")
A = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])  # (n, n), rows sum to 1
V = np.array([[4.0, 1.0], [1.0, 3.0], [3.0, 4.0]])  # (n, d_v): a triangle, so each y has one answer
PERM = np.array([2, 0, 1])  # exercise 2: the tokens reordered


def _weights(answer, name: str, shape: tuple) -> np.ndarray:
    """The answer as attention weights of ``shape`` (≥ 0, each row summing to 1), or NotYet."""
    W = as_array(answer, name, shape)
    sums = W.sum(axis=-1)  # one per row; a vector is one row
    if (W < 0).any() or not np.allclose(sums, 1.0):
        raise NotYet(f"attention weights are ≥ 0 and sum to 1 in each row; {name} sums to "
                     f"{np.round(sums, 3).tolist()}, smallest entry {W.min():.3f}.")
    return W


@checker("the vector y_1 (a list of 2 numbers or an expression)")
def check_y1(y_1):
    """Exercise 1: y_1 = Σ_j α_1j v_j for the A and V above, written out term by term."""
    terms = as_array(y_1, "y_1")
    if terms.shape == V.shape and close(terms.sum(axis=0), (A @ V)[1]):
        raise NotYet("those are the three terms α_1j v_j, one per row: y_1 is one vector, "
                     "their sum.")
    y = as_array(y_1, "y_1", V.shape[1:])
    if close(y, (A @ V)[1]):
        return "y_1 = 0.2·v_0 + 0.5·v_1 + 0.3·v_2 = [2.2, 2.9], the same as (A @ V)[1]."
    if close(y, (A.T @ V)[1]):
        raise NotYet("you used column 1 of A. The weights of y_1 are row 1: α_10, α_11, α_12.")
    for i in (0, 2):
        if close(y, (A @ V)[i]):
            raise NotYet(f"that is y_{i}, the output of '{TOKENS[i]}' (row {i} of A); "
                         "y_1 is the output of 'bites'.")
    if close(y, V.mean(axis=0)):
        raise NotYet("that is the plain mean of the values: every value got the same weight, "
                     "but y_1's weights are those of row 1 of A.")
    raise NotYet("not y_1 yet: each value v_j enters scaled by its own weight from row 1 of A. "
                 "Check the three terms one by one.")


@checker("the weights in the new order (3 numbers)")
def check_reordered_weights(alpha_new):
    """Exercise 2: weights on V[PERM] that give the same y_0 as row 0 of A on V."""
    alpha = _weights(alpha_new, "alpha_new", (len(TOKENS),))
    if close(alpha @ V[PERM], A[0] @ V):
        return ("the same y_0: each weight travelled with its value, so the sum never saw the new "
                "order.")
    if close(alpha, A[0]):
        raise NotYet("these are the old weights in the old order, but the values moved: "
                     "each value must keep its own weight. Which old token is now at position 0?")
    if close(alpha, A[0][inverse_permutation(PERM)]):
        raise NotYet("the weights moved, but the opposite way (the inverse permutation). "
                     "Which old token is now at position 0, and what was its weight?")
    for i in (1, 2):
        if close(alpha, A[i][PERM]):
            raise NotYet(f"these are the weights of '{TOKENS[i]}' (row {i} of A), moved to the "
                         "new order; y_0 is the output of 'dog', row 0.")
    raise NotYet("alpha_new @ V[perm] should equal A[0] @ V. Each value must keep its own "
                 "weight: which old token is now at position 0?")


@checker("a function of n that returns an (n, n) array of weights")
def check_position_weights(position_weights):
    """Exercise 3: weights that depend on positions only, with which a weighted sum sees order."""
    for n in (5, 3):
        W = _weights(call(position_weights, n, name="position_weights"),
                     f"position_weights({n})", (n, n))  # (n, n)
    y, y_swapped = W @ V, W @ V[::-1]  # "dog bites man" and "man bites dog"
    if close(y, y_swapped[::-1]):  # word i sits at n - 1 - i in the swapped sentence
        raise NotYet("each word's output is the same in both orders: these weights cannot tell "
                     "the sentence from its reverse. Let row i favour a position relative to i, "
                     "such as its left neighbour i - 1.")
    return ("a word's output now depends on where it stands: a weighted sum sees order as soon as "
            "its weights depend on position (a convolution when they depend on i − j alone).")


read_only(globals())  # the checkers' own data: an answer cannot write into it

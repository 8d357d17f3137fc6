"""Checkers for notebook 02 (the weighted sum y_i = Σ_j α_ij v_j). Each returns Feedback.

The hand-made A and V below are the ones the notebook's exercises print.
"""

from __future__ import annotations

import numpy as np

from ..permutations import permutation_matrix
from . import Feedback, not_yet, right, unanswered

TOKENS = ["dog", "bites", "man"]
A = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])  # (n, n), rows sum to 1
V = np.array([[4.0, 1.0], [1.0, 3.0], [3.0, 4.0]])  # (n, d_v): a triangle, so weights summing to 1 give one y each
TARGET = 2  # exercise 2: make y land near v_2 ("man")
PERM = [2, 0, 1]  # exercise 3: the tokens reordered


def _vector(answer, name: str, size: int) -> np.ndarray | Feedback:
    """The answer as a float vector of ``size`` entries, or Feedback saying what is off."""
    try:
        vector = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        return not_yet(f"{name} should be a list or array of {size} numbers; got {type(answer).__name__}.")
    if vector.shape != (size,):
        return not_yet(f"{name} should have shape ({size},); got {vector.shape}.")
    return vector


def _weights(answer, name: str) -> np.ndarray | Feedback:
    """Like _vector, and the entries must be attention weights: ≥ 0 and summing to 1."""
    alpha = _vector(answer, name, len(TOKENS))
    if isinstance(alpha, Feedback):
        return alpha
    if (alpha < 0).any() or not np.isclose(alpha.sum(), 1.0):
        return not_yet(f"attention weights are ≥ 0 and sum to 1; {name} sums to {alpha.sum():.3f}, smallest {alpha.min():.3f}.")
    return alpha


def check_y1(y_1) -> Feedback:
    """Exercise 1: y_1 = Σ_j α_1j v_j for the A and V above, written out term by term."""
    if (early := unanswered(y_1, "the vector y_1 (a list of 2 numbers or an expression)")) is not None:
        return early
    y_1 = _vector(y_1, "y_1", V.shape[1])
    if isinstance(y_1, Feedback):
        return y_1
    if np.allclose(y_1, (A.T @ V)[1]):
        return not_yet("you used column 1 of A. The weights of y_1 are row 1: α_10, α_11, α_12.")
    if np.allclose(y_1, (A @ V)[1]):
        return right("y_1 = 0.2·v_0 + 0.5·v_1 + 0.3·v_2 = [2.2, 2.9], the same as (A @ V)[1].")
    return not_yet("y_1 should be α_10·v_0 + α_11·v_1 + α_12·v_2 (row 1 of A, rows of V).")


def check_dominant(alpha) -> Feedback:
    """Exercise 2: weights whose output y lands within 0.1 of v_TARGET."""
    if (early := unanswered(alpha, "3 weights, one per token")) is not None:
        return early
    alpha = _weights(alpha, "alpha")
    if isinstance(alpha, Feedback):
        return alpha
    distance = float(np.linalg.norm(alpha @ V - V[TARGET]))
    if distance >= 0.1:
        return not_yet(f"y = alpha @ V is {distance:.2f} away from v_{TARGET}; it must be within 0.1.")
    return right(f"y is {distance:.3f} from v_{TARGET}: one large weight, the others near zero.")


def check_reordered_weights(alpha_new) -> Feedback:
    """Exercise 3: weights on V[PERM] that give the same y_0 as row 0 of A on V."""
    if (early := unanswered(alpha_new, "the weights in the new order")) is not None:
        return early
    alpha_new = _weights(alpha_new, "alpha_new")
    if isinstance(alpha_new, Feedback):
        return alpha_new
    V_new = permutation_matrix(PERM) @ V  # (n, n) @ (n, d_v): the values in the new order
    if np.allclose(alpha_new @ V_new, A[0] @ V):
        return right("the same y_0: each weight travelled with its value, and the sum did not mind the new order.")
    return not_yet("alpha_new @ V[perm] should equal A[0] @ V. Each value must keep its own weight: "
                   "which old token is now at position 0?")

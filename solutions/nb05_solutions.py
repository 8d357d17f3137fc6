"""Solutions to the exercises of notebook 05 (the "dog bites man" explorer). Try them first!"""

import numpy as np


def put_back(A_shuffled: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Exercise 1: Pᵀ A' P. Row perm[i] of A is row i of A', and the same for columns."""
    inverse = np.argsort(perm)  # the order that undoes perm
    return np.asarray(A_shuffled)[inverse][:, inverse]  # (n, n)


# Exercise 2: the reversal is the only non-trivial order that keeps every distance |i − j|.
alibi_blind_order = [3, 2, 1, 0]

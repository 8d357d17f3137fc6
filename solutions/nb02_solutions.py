"""Solutions to the exercises of notebook 02 (the weighted sum y_i = Σ_j α_ij v_j)."""

import numpy as np

from posattn.exercises.nb02 import A, V

# Exercise 1: y_1 = α_10 v_0 + α_11 v_1 + α_12 v_2, with row 1 of A.
y_1 = A[1, 0] * V[0] + A[1, 1] * V[1] + A[1, 2] * V[2]  # = [2.2, 2.9]

# Exercise 2: V[perm] with perm = [2, 0, 1] holds man, dog, bites; each keeps its weight from A[0].
alpha_new = A[0][[2, 0, 1]]  # = [0.1, 0.6, 0.3]


# Exercise 3: a window of two, like a convolution: half on the token itself, half on its left
# neighbour (the first token, which has none, keeps everything for itself).
def position_weights(n):
    W = 0.5 * np.eye(n) + 0.5 * np.eye(n, k=-1)  # w_ij depends on i - j only, but for row 0
    W[0, 0] = 1.0  # the edge: no left neighbour
    return W

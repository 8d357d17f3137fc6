"""Solutions to the exercises of notebook 02 (the weighted sum y_i = Σ_j α_ij v_j)."""

import numpy as np

from posattn.exercises.nb02 import A, V

# Exercise 1: y_1 = α_10 v_0 + α_11 v_1 + α_12 v_2, with row 1 of A.
y_1 = A[1, 0] * V[0] + A[1, 1] * V[1] + A[1, 2] * V[2]  # = [2.2, 2.9]

# Exercise 2: almost all weight on v_2 ("man"), a little on the others.
alpha = np.array([0.02, 0.02, 0.96])

# Exercise 3: V[perm] with perm = [2, 0, 1] holds man, dog, bites; each keeps its weight from A[0].
alpha_new = A[0][[2, 0, 1]]  # = [0.1, 0.6, 0.3]

"""Solutions to the exercises of notebook 04 (where could position enter?). Try them first!"""

import numpy as np

import posattn as pa

# Exercise 1: A' = P A Pᵀ, i.e. rows and columns both reordered: A[perm][:, perm].
A = pa.self_attention(pa.embed(pa.tokenize("dog bites man")), *pa.default_projections())[1]
perm = np.array([1, 2, 0])
A_shuffled = A[perm][:, perm]  # (3, 3)

# Exercise 2: Y' = P Y, and this P only moves rows 1 and 4.
changed_rows = [1, 4]

# Exercise 3: only (c) uses the indices as numbers.
choice = "c"

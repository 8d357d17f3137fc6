"""Solutions to the exercises of notebook 01 (invariance vs equivariance)."""

import numpy as np

# Exercise 1: which symmetry each function in posattn.exercises.nb01.FUNCTIONS has.
column_max = "invariant"  # a max over tokens forgets their order
centred = "equivariant"  # row i minus the mean: the mean is invariant, so rows just move
reversed_rows = "neither"  # "last" and "first" are positions
sorted_columns = "invariant"  # sorting erases the order it was given (n rows, none a token's)
index_weighted = "neither"  # uses the position i as a number

# Exercise 2: the permutation matrix of perm = [1, 3, 0, 2]; row i has its 1 in column perm[i].
P_hand = np.array([
    [0, 1, 0, 0],
    [0, 0, 0, 1],
    [1, 0, 0, 0],
    [0, 0, 1, 0],
])


# Exercise 3: an equivariant function whose rows see the other tokens.
def my_f(X):
    return X + X.sum(axis=0)  # each token plus the (order-free) sum of all tokens

"""Solutions to the exercises of notebook 08 (putting position back). Try them first!"""

import numpy as np

import posattn as pa
from solutions.nb03_solutions import self_attention  # exercise 4: the function pasted from 03


def alibi_causal(n, m):
    """Exercise 1: −m·(i − j) on the keys j ≤ i, and the causal mask as −inf on the keys j > i."""
    i, j = np.indices((n, n))  # i: the query's position (row), j: the key's (column)
    return np.where(j <= i, -m * (i - j), -np.inf)  # (n, n)


# Exercise 2: i − j = 7 − 3 = 4, so with the query at 4 the key sits at j = 0.
rope_partner = 0

# Exercise 3: sin(p + 1) = sin p cos 1 + cos p sin 1 and cos(p + 1) = cos p cos 1 − sin p sin 1,
# written as the row vector (sin p, cos p) times M_1.
M_1 = np.array([[np.cos(1.0), -np.sin(1.0)], [np.sin(1.0), np.cos(1.0)]])

# Exercise 4: notebook 03's self_attention, pasted, and its symmetry break measured on
# "the dog bites man" in the order perm.
X, W = pa.embed(pa.tokenize("the dog bites man")), pa.default_projections()  # (4, 8), 3 × (8, 4)


def symmetry_break(perm, mask=None, bias=None):
    """max |Y(PX) − P Y(X)|: PX is X[perm], so P Y(X) is Y(X)[perm], the outputs reordered alike."""
    Y, _ = self_attention(X, *W, mask=mask, bias=bias)  # (4, 4)
    Y_perm, _ = self_attention(X[perm], *W, mask=mask, bias=bias)
    return np.abs(Y_perm - Y[perm]).max()

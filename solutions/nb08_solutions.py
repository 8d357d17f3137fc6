"""Solutions to the exercises of notebook 08 (putting position back). Try them first!"""

import numpy as np

# Exercise 1: the mirror image, "man bites dog": |i − j| is the same read backwards.
alibi_blind_spot = [2, 1, 0]

# Exercise 2: i − j = 7 − 3 = 4, so with i = 4 the key sits at j = 0.
rope_partner = 0


def shift_matrix():
    """Exercise 3: sin(p+1) = sin p cos 1 + cos p sin 1 and cos(p+1) = cos p cos 1 − sin p sin 1, as E[p] @ M."""
    c, s = np.cos(1.0), np.sin(1.0)
    return np.array([[c, -s], [s, c]])

"""Solutions to the exercises of notebook 10 (where position hides). Try them first!"""

import numpy as np

# Exercise 1: queries 0-4 are at least k = 2 before both moved words (6 and 9): both offsets
# clip to +k, so both words sit behind the same bias b[2k], before and after the swap (query 4
# too: its offset +2 to word 6 is exactly k, the end entry). Query 5 is only 1 from word 6;
# queries 7 and 8 see one moved word on each side, and b[0] and b[2k] differ.
unchanged = [0, 1, 2, 3, 4]


def relative_bias_by_hand(n, table, max_distance):
    """Exercise 2: B[i, j] = b[clip(j − i, −k, k) + k], one entry at a time."""
    k = max_distance
    B = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            offset = min(max(j - i, -k), k)  # j − i, clipped to −k … k
            B[i, j] = table[offset + k]
    return B

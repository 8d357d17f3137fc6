"""Solutions to the exercises of notebook 05 (seeing it in code). Try them first!"""

import numpy as np


def sentence_vector(Y: np.ndarray) -> np.ndarray:
    """Exercise 1: concatenate the rows in their slot order; the readout, not attention, knows the positions."""
    return np.asarray(Y).ravel()  # (n * d_v,)


# Exercise 2: "double" and "centre" treat every row alike; "cumsum" and "ramp" depend on the slot.
equivariant_names = {"double", "centre"}

# Exercise 3: (a + b) + c keeps the 1.0 (the big numbers cancel first); in a + (b + c) it is rounded away
# inside -1e16 + 1.0, because floats near 1e16 are 2 apart.
triple = (1e16, -1e16, 1.0)

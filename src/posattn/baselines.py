"""Order-aware baselines for contrast: a tiny RNN and a 1-D convolution.

    RNN:          h_t = tanh(x_t W_x + h_{t−1} W_h),  h_{−1} = 0   (a chain: t waits for t − 1)
    convolution:  y_t = Σ_{o=−r}^{r} x_{t+o} W_o,  zero rows outside  (a window of width 2r + 1)
"""

from collections.abc import Callable

import numpy as np

from ._checks import as_matrix, check_finite, check_int, check_number, quiet_overflow
from .attention import TOO_LARGE
from .permutations import _first


def rnn_weights(d: int = 8, d_h: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random W_x (d, d_h) and W_h (d_h, d_h), normal with standard deviation 1/√(rows).

    >>> [W.shape for W in rnn_weights()]
    [(8, 4), (4, 4)]
    """
    d, d_h, seed = check_int("d", d), check_int("d_h", d_h), check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, d**-0.5, (d, d_h)), rng.normal(0.0, d_h**-0.5, (d_h, d_h))


@quiet_overflow
def rnn(X, W_x, W_h) -> np.ndarray:
    """Run a tanh RNN over the rows of X in order; returns every hidden state H, shape (n, d_h).

    h_t = tanh(x_t W_x + h_{t−1} W_h), starting from h_{−1} = 0.

    >>> rnn([[1.0], [0.0]], [[1.0]], [[1.0]]).round(4).ravel().tolist()
    [0.7616, 0.642]
    """
    X = as_matrix("X", X)
    W_x = as_matrix("W_x", W_x, (X.shape[1], "d_h"), f" to match X's {X.shape[1]} features")
    d_h = W_x.shape[1]
    W_h = as_matrix("W_h", W_h, (d_h, d_h), f", square to match W_x's {d_h} hidden units")
    H = np.zeros((X.shape[0] + 1, d_h))  # row t + 1 holds h_t; row 0 is h_{−1} = 0
    for t, x_t in enumerate(X):  # one step at a time: step t needs h_{t−1}
        H[t + 1] = np.tanh(x_t @ W_x + H[t] @ W_h)  # (d,)(d, d_h) + (d_h,)(d_h, d_h) -> (d_h,)
    return check_finite("H", H[1:], TOO_LARGE)


def conv_kernel(width: int = 3, d: int = 8, d_out: int = 4, seed: int = 0) -> np.ndarray:
    """A fixed random kernel W, shape (width, d, d_out): one (d, d_out) matrix W_o per offset.

    >>> conv_kernel().shape
    (3, 8, 4)
    """
    width, d, d_out = check_int("width", width), check_int("d", d), check_int("d_out", d_out)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    return rng.normal(0.0, (width * d) ** -0.5, (width, d, d_out))


@quiet_overflow
def conv1d(X, kernel) -> np.ndarray:
    """Slide the kernel along the sequence ("same" length, zero rows beyond both ends).

    y_t = Σ_{o=−r}^{r} x_{t+o} W_o  with width = 2r + 1, so W_{−r} meets the left neighbour.

    >>> conv1d([[1.0], [2.0], [3.0]], [[[1.0]], [[10.0]], [[100.0]]]).ravel().tolist()
    [210.0, 321.0, 32.0]
    """
    X = as_matrix("X", X)
    d = X.shape[1]
    W = as_matrix("kernel", kernel, ("width", d, "d_out"), f" to match X's {d} features")
    width = W.shape[0]
    if width % 2 == 0:
        raise ValueError(f"kernel must have an odd width (a centre row and r rows each side); "
                         f"got width {width}.")
    n, r = X.shape[0], width // 2
    padded = np.vstack([np.zeros((r, d)), X, np.zeros((r, d))])  # (n + 2r, d)
    Y = sum(padded[o: o + n] @ W[o] for o in range(width))  # Σ_o (n, d) @ (d, d_out) -> (n, d_out)
    return check_finite("Y", Y, TOO_LARGE)


def influence(f: Callable, X, nudge: float = 1.0) -> np.ndarray:
    """Which outputs feel which inputs: M[t, j] is True when changing x_j changes output row t.

    >>> influence(lambda X: np.cumsum(X, axis=0), np.zeros((3, 1))).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    X = as_matrix("X", X)
    nudge = check_number("nudge", nudge)
    before = _first(f(X))
    M = np.zeros((before.shape[0], X.shape[0]), dtype=bool)
    for j in range(X.shape[0]):
        nudged = X.copy()
        nudged[j] += nudge  # move token j only
        M[:, j] = (_first(f(nudged)) != before).reshape(before.shape[0], -1).any(axis=1)
    return M

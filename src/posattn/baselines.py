"""Order-aware baselines for contrast: a tiny RNN and a 1-D convolution.

    RNN:          h_t = tanh(x_t W_x + h_{t−1} W_h),  h_{−1} = 0   (a chain: t waits for t − 1)
    convolution:  y_t = Σ_{o=−r}^{r} x_{t+o} W_o,  zero rows outside  (a window of width 2r + 1)
"""

from collections.abc import Callable

import numpy as np

from ._checks import (
    as_matrix,
    check_callable,
    check_int,
    check_number,
    check_size,
    finite_result,
    output_of,
    quiet_overflow,
)

# ---- kernels: the equations ----------------------------------------------------------------


def _rnn(X, W_x, W_h):
    """h_t = tanh(x_t W_x + h_{t−1} W_h), starting from h_{−1} = 0; H stacks h_0 … h_{n−1}."""
    h, H = np.zeros(W_h.shape[0]), []  # h_{−1} = 0
    for x_t in X:  # one step at a time: step t needs h_{t−1}
        h = np.tanh(x_t @ W_x + h @ W_h)  # (d,)(d, d_h) + (d_h,)(d_h, d_h) -> (d_h,)
        H.append(h)
    return np.stack(H)  # (n, d_h)


def _conv1d(X, W):
    """y_t = Σ_{o=−r}^{r} x_{t+o} W_o, with zero rows beyond both ends ("same" length)."""
    (n, d), width = X.shape, W.shape[0]
    r = width // 2
    padded = np.vstack([np.zeros((r, d)), X, np.zeros((r, d))])  # (n + 2r, d)
    return sum(padded[o: o + n] @ W[o] for o in range(width))  # Σ_o (n, d) @ (d, d_out)


def _changed(before, after):
    """Which output rows t differ at all between two runs of f."""
    return (after != before).reshape(before.shape[0], -1).any(axis=1)


def _rnn_weights(d: int, d_h: int, seed: int):
    """W_x (d, d_h) and W_h (d_h, d_h), normal with standard deviation 1/√(rows), in that order."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, d**-0.5, (d, d_h)), rng.normal(0.0, d_h**-0.5, (d_h, d_h))


def _normal(seed: int, scale: float, shape: tuple):
    """A fixed random array, normal with standard deviation ``scale``."""
    return np.random.default_rng(seed).normal(0.0, scale, shape)


# ---- public functions: check once, then call the kernels -----------------------------------


def rnn_weights(d: int = 8, d_h: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random W_x (d, d_h) and W_h (d_h, d_h), normal with standard deviation 1/√(rows).

    >>> [W.shape for W in rnn_weights()]
    [(8, 4), (4, 4)]
    """
    d, d_h, seed = check_int("d", d), check_int("d_h", d_h), check_int("seed", seed, minimum=0)
    check_size("d_h", f"d = {d} and d_h = {d_h}", (d + d_h) * d_h, "W_x and W_h",
               "Use a smaller d or d_h.")
    return _rnn_weights(d, d_h, seed)


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
    check_size("X", f"{X.shape[0]:,} rows", X.shape[0] * d_h, "H (n, d_h)", "Use fewer tokens.")
    with quiet_overflow():
        return finite_result("X, W_x and W_h", "the RNN", _rnn(X, W_x, W_h))


def conv_kernel(width: int = 3, d: int = 8, d_out: int = 4, seed: int = 0) -> np.ndarray:
    """A fixed random kernel W, shape (width, d, d_out): one (d, d_out) matrix W_o per offset.

    >>> conv_kernel().shape
    (3, 8, 4)
    """
    width, d, d_out = check_int("width", width), check_int("d", d), check_int("d_out", d_out)
    check_size("width", f"width = {width}, d = {d} and d_out = {d_out}", width * d * d_out,
               "W (width, d, d_out)", "Use a smaller width, d or d_out.")
    return _normal(check_int("seed", seed, minimum=0), (width * d) ** -0.5, (width, d, d_out))


def conv1d(X, kernel) -> np.ndarray:
    """Slide the kernel along the sequence ("same" length, zero rows beyond both ends).

    y_t = Σ_{o=−r}^{r} x_{t+o} W_o  with width = 2r + 1, so W_{−r} meets the left neighbour.

    >>> conv1d([[1.0], [2.0], [3.0]], [[[1.0]], [[10.0]], [[100.0]]]).ravel().tolist()
    [210.0, 321.0, 32.0]
    """
    X = as_matrix("X", X)
    d = X.shape[1]
    W = as_matrix("kernel", kernel, ("width", d, "d_out"), f" to match X's {d} features")
    if W.shape[0] % 2 == 0:
        raise ValueError(f"kernel must have an odd width (a centre row and r rows each side); "
                         f"got width {W.shape[0]}.")
    check_size("X", f"{X.shape[0]:,} rows", (X.shape[0] + W.shape[0]) * max(d, W.shape[2]),
               "Y (n, d_out)", "Use fewer tokens.")
    with quiet_overflow():
        return finite_result("X and kernel", "the convolution", _conv1d(X, W))


INFLUENCE_ROWS = 1000  # influence calls f once per token: a thousand calls at most


def influence(f: Callable, X, nudge: float | None = None) -> np.ndarray:
    """Which outputs feel which inputs: M[t, j] is True when changing x_j changes output row t.

    Token j is moved by ``nudge`` in every coordinate; by default by its own size (at least 1),
    so that the move shows next to large values too (1e17 + 1 is 1e17 in float64).

    >>> influence(lambda X: np.cumsum(X, axis=0), np.zeros((3, 1))).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    check_callable("f", f)
    X = as_matrix("X", X)
    if X.shape[0] > INFLUENCE_ROWS:
        raise ValueError(f"X must have at most {INFLUENCE_ROWS:,} rows for influence, which calls "
                         f"f once per row; got {X.shape[0]:,} rows. Use a shorter X.")
    if nudge is not None:
        nudge = check_number("nudge", nudge, nonzero=True)  # 0 would change nothing anywhere
    before = output_of("f(X)", f, X)
    if before.ndim == 0:
        raise ValueError("f must return an array with one row per output position; got a single "
                         "number. Return the rows, e.g. lambda X: X.cumsum(axis=0).")
    check_size("X", f"{X.shape[0]:,} rows", before.shape[0] * X.shape[0],
               "the map M (outputs × tokens)", "Use a shorter X.")
    M = np.zeros((before.shape[0], X.shape[0]), dtype=bool)
    for j in range(X.shape[0]):
        step = max(1.0, float(np.abs(X[j]).max())) if nudge is None else nudge
        nudged = X.copy()
        with quiet_overflow():
            nudged[j] += step  # move token j only
        finite_result("nudge", f"x_{j} + nudge", nudged)
        if (nudged[j] == X[j]).all():
            raise ValueError(f"nudge must move x_{j}; got nudge = {step!r}, which vanishes next to "
                             f"x_{j}'s entries (up to {np.abs(X[j]).max():.3g}) in float64. Leave "
                             "nudge out (it then scales with X), or give a larger one.")
        after = output_of("f(X nudged)", f, nudged)
        if after.shape != before.shape:
            raise ValueError(f"f must return the same shape for every input; got {before.shape} "
                             f"for X and {after.shape} with x_{j} nudged.")
        M[:, j] = _changed(before, after)
    return M

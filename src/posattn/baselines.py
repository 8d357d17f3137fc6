"""Order-aware baselines for contrast: a tiny RNN, a 1-D convolution, and symmetry measurements.

    RNN:          h_t = tanh(x_t W_x + h_{t−1} W_h),  h_{−1} = 0     (a chain: step t waits for step t − 1)
    convolution:  y_t = Σ_{o=−r}^{r} x_{t+o} W_o,    zero rows outside   (a sliding window of width 2r + 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ._checks import as_matrix, check_int, check_rows_match
from .permutations import equivariance_error, invariance_error


def rnn_weights(d: int = 8, d_h: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random W_x (d, d_h) and W_h (d_h, d_h), normal with standard deviation 1/√(rows).

    >>> [W.shape for W in rnn_weights()]
    [(8, 4), (4, 4)]
    """
    d, d_h, seed = check_int("d", d), check_int("d_h", d_h), check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, d**-0.5, (d, d_h)), rng.normal(0.0, d_h**-0.5, (d_h, d_h))


def rnn(X, W_x, W_h) -> np.ndarray:
    """Run a tanh RNN over the rows of X in order; returns every hidden state H, shape (n, d_h).

    h_t = tanh(x_t W_x + h_{t−1} W_h), starting from h_{−1} = 0.

    >>> rnn([[1.0], [0.0]], [[1.0]], [[1.0]]).round(4).ravel().tolist()
    [0.7616, 0.642]
    """
    X, W_x, W_h = as_matrix("X", X), as_matrix("W_x", W_x), as_matrix("W_h", W_h)
    check_rows_match("W_x", W_x, "X", X.shape[1])
    d_h = W_x.shape[1]
    if W_h.shape != (d_h, d_h):
        raise ValueError(f"W_h must be square, ({d_h}, {d_h}), to match W_x's {d_h} hidden units; got shape {W_h.shape}.")
    H = np.zeros((X.shape[0], d_h))
    h = np.zeros(d_h)  # h_{−1} = 0
    for t, x_t in enumerate(X):  # one step at a time: step t needs h_{t−1}
        h = np.tanh(x_t @ W_x + h @ W_h)  # (d,) @ (d, d_h) + (d_h,) @ (d_h, d_h) -> (d_h,)
        H[t] = h
    return H


def conv_kernel(width: int = 3, d: int = 8, d_out: int = 4, seed: int = 0) -> np.ndarray:
    """A fixed random kernel W, shape (width, d, d_out): one (d, d_out) matrix W_o per offset.

    >>> conv_kernel().shape
    (3, 8, 4)
    """
    width, d, d_out = check_int("width", width), check_int("d", d), check_int("d_out", d_out)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    return rng.normal(0.0, (width * d) ** -0.5, (width, d, d_out))


def conv1d(X, kernel) -> np.ndarray:
    """Slide the kernel along the sequence ("same" length, zero rows beyond both ends).

    y_t = Σ_{o=−r}^{r} x_{t+o} W_o  with width = 2r + 1, so W_{−r} meets the left neighbour.

    >>> conv1d([[1.0], [2.0], [3.0]], [[[1.0]], [[10.0]], [[100.0]]]).ravel().tolist()
    [210.0, 321.0, 32.0]
    """
    X = as_matrix("X", X)
    W = as_matrix("kernel", kernel, ndim=3)
    width, d, _ = W.shape
    if width % 2 == 0:
        raise ValueError(f"kernel must have an odd width (a centre row and r rows each side); got width {width}.")
    if d != X.shape[1]:
        raise ValueError(f"kernel must have shape (width, {X.shape[1]}, d_out) to match X's {X.shape[1]} features; "
                         f"got shape {W.shape}.")
    n, r = X.shape[0], width // 2
    padded = np.vstack([np.zeros((r, d)), X, np.zeros((r, d))])  # (n + 2r, d)
    return sum(padded[o: o + n] @ W[o] for o in range(width))  # Σ_o (n, d) @ (d, d_out) -> (n, d_out)


def influence(f: Callable, X, nudge: float = 1.0) -> np.ndarray:
    """Which outputs feel which inputs: M[t, j] is True when changing x_j changes output row t.

    >>> influence(lambda X: np.cumsum(X, axis=0), np.zeros((3, 1))).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    X = as_matrix("X", X)
    before = np.asarray(f(X), dtype=np.float64)
    M = np.zeros((before.shape[0], X.shape[0]), dtype=bool)
    for j in range(X.shape[0]):
        nudged = X.copy()
        nudged[j] += nudge  # move token j only
        M[:, j] = (np.asarray(f(nudged)) != before).reshape(before.shape[0], -1).any(axis=1)
    return M


def shift_error(f: Callable, X, k: int = 1, margin: int = 1) -> float:
    """How far f is from shift equivariance away from the edges: max_t |f(X shifted by k)[t] − f(X)[t − k]|.

    The shift is cyclic (np.roll); rows t with margin + k ≤ t < n − margin are compared.

    >>> shift_error(lambda X: 2 * X, np.arange(6.0)[:, None])
    0.0
    """
    X = as_matrix("X", X)
    k, margin = check_int("k", k), check_int("margin", margin, minimum=0)
    n = X.shape[0]
    if n - margin <= margin + k:
        raise ValueError(f"X must have more than {2 * margin + k} rows to leave an interior to compare; got {n}.")
    before, after = np.asarray(f(X), dtype=np.float64), np.asarray(f(np.roll(X, k, axis=0)), dtype=np.float64)
    rows = np.arange(margin + k, n - margin)
    return float(np.max(np.abs(after[rows] - before[rows - k])))


def symmetries(f: Callable, X, perms: Iterable, tol: float = 1e-9) -> dict[str, bool | None]:
    """Measure f's symmetries on X: invariant, permutation-equivariant, shift-equivariant (away from edges).

    Equivariance needs one output row per token; for a single pooled vector it is None (does not apply).

    >>> symmetries(lambda X: X.sum(axis=0), np.eye(4), [[1, 0, 2, 3]])
    {'invariant': True, 'permutation-equivariant': None, 'shift-equivariant': None}
    """
    X = as_matrix("X", X)
    perms = [np.asarray(p) for p in perms]
    out = np.asarray(f(X))
    per_token = out.ndim == 2 and out.shape[0] == X.shape[0]
    return {
        "invariant": max(invariance_error(f, X, p) for p in perms) < tol,
        "permutation-equivariant": max(equivariance_error(f, X, p) for p in perms) < tol if per_token else None,
        "shift-equivariant": shift_error(f, X) < tol if per_token else None,
    }

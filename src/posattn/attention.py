"""Scaled dot-product self-attention, vectorised and as a literal loop.

    S = Q Kᵀ / √d_k        A = softmax(S) row-wise        Y = A V

Every function here can be differentiated by autograd. Untraced, the n × n scores are
turned into A in place, so the peak memory stays near the one matrix A that is returned;
traced (an input is an autograd ArrayBox), each step builds a new array instead.
X, Q, K and V may carry a leading batch axis, (B, n, d): B sequences of the same length n,
attended to one by one in one call (masks and biases are (n, m) and apply to every sequence).
"""

import math

import numpy as np

from ._checks import as_matrix, check_finite, check_mask, numbers_array, quiet_overflow, raw, traced

TOO_LARGE = "The numbers overflow float64: scale X (or the weights) down."


def _softmax(S, axis: int = -1):
    """softmax along ``axis``, written into S itself unless autograd traces S."""
    # subtract the row max: softmax is shift-invariant, and exp no longer overflows
    S -= S.max(axis=axis, keepdims=True)  # a traced S has no in-place operators: -= builds anew
    S = np.exp(S) if traced(S) else np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


@quiet_overflow
def softmax(S, axis: int = -1) -> np.ndarray:
    """Turn scores into weights that are positive and sum to 1 along ``axis``.

    softmax(s)_j = exp(s_j - max(s)) / Σ_l exp(s_l - max(s))

    S has any shape, ``-inf`` marking a masked entry; A has S's shape and sums to 1 along ``axis``.

    >>> softmax([[0.0, 0.0], [1e300, -1e300]]).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    values = numbers_array("S", raw(S))
    if values.size == 0:
        raise ValueError(f"S must not be empty; got shape {values.shape}.")
    ndim = values.ndim
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"axis must be an integer from {-ndim} to {ndim - 1} "
                         f"for S of shape {values.shape}; got {axis!r}.")
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError("S must hold finite scores or -inf (masked); got NaN or +inf. "
                         "Check the scores upstream.")
    dead = np.isneginf(values).all(axis=axis)
    if dead.any():
        where = np.argwhere(np.atleast_1d(dead))[0].tolist()
        raise ValueError(
            f"S must leave at least one finite score in every softmax row; got the row at {where} "
            "entirely -inf (fully masked), which would give 0/0 = NaN. Let every query attend to "
            "at least one key.")
    return _softmax(S if traced(S) else np.array(values), axis=axis)  # the caller's S stays


def _scores(Q, K, bias, keep):
    """S = Q Kᵀ/√d_k + B, and −inf where ``keep`` is False; in place unless autograd traces it."""
    S = Q @ K.swapaxes(-1, -2)  # (..., n, d_k) @ (..., d_k, m) -> (..., n, m)
    S *= 1.0 / math.sqrt(Q.shape[-1])  # keeps the scores' spread near 1 whatever d_k is
    if bias is not None:
        B = as_matrix("bias", bias, S.shape[-2:], ", one row per query and one column per key")
        S = S + B if traced(S, B) else np.add(S, B, out=S)  # S = Q Kᵀ/√d_k + B
    check_finite("the scores Q Kᵀ/√d_k" + (" + B" if bias is not None else ""), S, TOO_LARGE)
    if keep is None:
        return S
    if traced(S):
        return S + np.where(keep, 0.0, -np.inf)
    S[..., ~keep] = -np.inf  # exp(-inf) = 0: masked keys get weight exactly 0
    return S


@quiet_overflow
def scaled_dot_product_attention(Q, K, V, mask=None, bias=None) -> tuple[np.ndarray, np.ndarray]:
    """Attend every query to every key and mix the values.

    A = softmax(Q Kᵀ / √d_k + B) row-wise,   Y = A V   (B = 0 unless ``bias`` is given)

    Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v) -> Y (..., n, d_v), A (..., n, m), where
    ``...`` is nothing or one batch size B; ``mask`` (n, m) is True where query i may attend to
    key j; ``bias`` (n, m) is an additive score bias B (e.g. ALiBi's −m·|i − j|).

    >>> Y, A = scaled_dot_product_attention([[1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]], [[2.0], [4.0]])
    >>> A.tolist(), Y.tolist()
    ([[0.5, 0.5]], [[3.0]])
    """
    Q = as_matrix("Q", Q, batch=True)
    *batch, n, d_k = Q.shape
    K = as_matrix("K", K, (*batch, "m", d_k), f" to match Q of shape {Q.shape}")
    m = K.shape[-2]
    V = as_matrix("V", V, (*batch, m, "d_v"), f" to match K of shape {K.shape} (a value per key)")
    A = _softmax(_scores(Q, K, bias, None if mask is None else check_mask(mask, n, m)))
    Y = A @ V  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)
    return check_finite("Y = A V", Y, TOO_LARGE), A


def inputs(X, W_Q, W_K, W_V):
    """X and the three weight matrices, checked: W_Q, W_K, W_V need d rows, W_Q and W_K agree."""
    X = as_matrix("X", X, batch=True)
    d = X.shape[-1]
    W_Q = as_matrix("W_Q", W_Q, (d, "d_k"), f" to match X's {d} features")
    W_K = as_matrix("W_K", W_K, W_Q.shape, ", the shape of W_Q (q·k needs equal lengths)")
    W_V = as_matrix("W_V", W_V, (d, "d_v"), f" to match X's {d} features")
    return X, W_Q, W_K, W_V


@quiet_overflow
def project(X, W_Q, W_K, W_V):
    """Q, K, V = X W_Q, X W_K, X W_V, refusing bad inputs and products that overflow."""
    X, W_Q, W_K, W_V = inputs(X, W_Q, W_K, W_V)
    Q = X @ W_Q  # (..., n, d) @ (d, d_k) -> (..., n, d_k)
    K = X @ W_K  # (..., n, d) @ (d, d_k) -> (..., n, d_k)
    V = X @ W_V  # (..., n, d) @ (d, d_v) -> (..., n, d_v)
    for name, M in (("Q = X W_Q", Q), ("K = X W_K", K), ("V = X W_V", V)):
        check_finite(name, M, TOO_LARGE)
    return Q, K, V


def self_attention(X, W_Q, W_K, W_V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention of a sequence on itself: the rows of ``X`` are tokens.

    Q, K, V = X W_Q, X W_K, X W_V  (the same matrices at every position)

    X (..., n, d); W_Q, W_K (d, d_k); W_V (d, d_v); mask (n, n) -> Y (..., n, d_v), A (..., n, n).

    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> Y, A = self_attention(X, [[1.0], [0.0]], [[1.0], [0.0]], [[1.0], [0.0]])
    >>> A.shape, Y.shape
    ((2, 2), (2, 1))
    """
    return scaled_dot_product_attention(*project(X, W_Q, W_K, W_V), mask=mask)


@quiet_overflow
def attention_loop(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention written as the formulas, one index at a time (for teaching).

    α_ij = exp(q_i·k_j/√d_k) / Σ_l exp(q_i·k_l/√d_k),    y_i = Σ_j α_ij v_j

    The indices i, j, l only choose which vector to fetch; no index is ever
    used as a number in the arithmetic. Agrees with :func:`self_attention`.

    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> W = [[0.5], [-0.5]]
    >>> bool(np.allclose(attention_loop(X, W, W, W)[0], self_attention(X, W, W, W)[0], atol=1e-12))
    True
    """
    X, W_Q, W_K, W_V = (raw(M) for M in inputs(as_matrix("X", X), W_Q, W_K, W_V))
    n, d_k = X.shape[0], W_Q.shape[1]
    q = [X[i] @ W_Q for i in range(n)]  # q_i = x_i W_Q, each (d_k,)
    k = [X[j] @ W_K for j in range(n)]  # k_j = x_j W_K, each (d_k,)
    v = [X[j] @ W_V for j in range(n)]  # v_j = x_j W_V, each (d_v,)
    A = np.zeros((n, n))
    Y = np.zeros((n, W_V.shape[1]))
    for i in range(n):
        scores = [float(q[i] @ k[j]) / math.sqrt(d_k) for j in range(n)]
        check_finite(f"the scores q_{i}·k_j/√d_k", np.array(scores), TOO_LARGE)
        top = max(scores)  # shift by the max; softmax does not change
        Z = sum(math.exp(s - top) for s in scores)  # Σ_l exp(q_i·k_l/√d_k)
        for j in range(n):
            A[i, j] = math.exp(scores[j] - top) / Z
            Y[i] += A[i, j] * v[j]  # y_i = Σ_j α_ij v_j
    return check_finite("Y", Y, TOO_LARGE), A

"""Scaled dot-product self-attention, vectorised and as a literal loop; cross-attention.

    S = Q Kᵀ / √d_k + B        A = softmax(S) row-wise        Y = A V

The kernels come first: each is only its equation. The public functions below them check
their arguments once, through ``_checks``, then call the kernels. Everything here can be
differentiated by autograd, and ``_attention_gradient`` is attention's backward pass written
out (the trained models of ``experiments`` use it). X, Q, K and V may carry a leading batch
axis, (B, n, d): B sequences of the same length n, attended to one by one in one call (masks
and biases are (n, m) and apply to every sequence).
"""

import math

import numpy as np

from ._checks import (
    as_matrix,
    check_cross,
    check_mask,
    check_projections,
    check_scores,
    check_size,
    finite_result,
    quiet_overflow,
)

# ---- kernels: the equations ----------------------------------------------------------------


def _softmax(S, axis: int = -1):
    """softmax(s)_j = exp(s_j − max s) / Σ_l exp(s_l − max s), along ``axis``."""
    # subtract the max: softmax is shift-invariant, and exp no longer overflows. Each step
    # rebinds S, so the scores it replaces are freed: two n×n arrays at a time, not three
    S = S - S.max(axis=axis, keepdims=True)
    S = np.exp(S)
    return S / S.sum(axis=axis, keepdims=True)


def _softmax_gradient(A, G, axis: int = -1):
    """∂L/∂S = A ⊙ (G − Σ_l G_l A_l) along ``axis``, for A = softmax(S) and G = ∂L/∂A."""
    return A * (G - (G * A).sum(axis=axis, keepdims=True))


def _scores(Q, K, mask=None, bias=None):
    """S = Q Kᵀ/√d_k + B, with S_ij = −inf where the mask is False."""
    # (..., n, d_k) @ (..., d_k, m) -> (..., n, m), each score divided by √d_k
    S = Q @ K.swapaxes(-1, -2) * (1.0 / math.sqrt(Q.shape[-1]))
    if bias is not None:
        S = S + bias  # (..., n, m) + (n, m): the same B for every sequence
    if mask is not None:
        S = S + np.where(mask, 0.0, -np.inf)  # exp(−inf) = 0: a masked key gets weight 0
    return S


def _attention(Q, K, V, mask=None, bias=None):
    """A = softmax(Q Kᵀ/√d_k + B) row by row; Y = A V."""
    A = _softmax(_scores(Q, K, mask, bias))  # (..., n, m): each row sums to 1
    return A @ V, A  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)


def _attention_gradient(Q, K, V, A, G):
    """∂L/∂Q, ∂L/∂K, ∂L/∂V and ∂L/∂S of Y, A = attention(Q, K, V, mask, B), given G = ∂L/∂Y.

    Y = A V gives ∂L/∂V = Aᵀ G and ∂L/∂A = G Vᵀ; softmax gives ∂L/∂S (B's gradient too:
    B is added to S); S = Q Kᵀ/√d_k gives ∂L/∂Q = ∂L/∂S K/√d_k and ∂L/∂K = ∂L/∂Sᵀ Q/√d_k.
    A masked score has A_ij = 0, so its ∂L/∂S_ij is 0: the mask needs no term of its own.
    """
    dS = _softmax_gradient(A, G @ V.swapaxes(-1, -2))  # (..., n, m)
    scale = 1.0 / math.sqrt(Q.shape[-1])
    return dS @ K * scale, dS.swapaxes(-1, -2) @ Q * scale, A.swapaxes(-1, -2) @ G, dS


def _project(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V = X W_Q, X W_K, X W_V: the same matrices at every position."""
    # (..., n, d) @ (d, d_k) -> (..., n, d_k), twice; (..., n, d) @ (d, d_v) -> (..., n, d_v)
    return X @ W_Q, X @ W_K, X @ W_V


def _cross_project(X, Z, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q = X W_Q from the sequence that asks; K = Z W_K and V = Z W_V from the one it reads."""
    # (n, d) @ (d, d_k) -> (n, d_k); (m, d_z) @ (d_z, d_k) -> (m, d_k); (m, d_z) @ (d_z, d_v)
    return X @ W_Q, Z @ W_K, Z @ W_V


def _attention_loop(X, W_Q, W_K, W_V):
    """α_ij = exp(q_i·k_j/√d_k) / Σ_l exp(q_i·k_l/√d_k),  y_i = Σ_j α_ij v_j, index by index."""
    n, d_k = len(X), W_Q.shape[1]
    q = [X[i] @ W_Q for i in range(n)]  # q_i = x_i W_Q, each (d_k,)
    k = [X[j] @ W_K for j in range(n)]  # k_j = x_j W_K, each (d_k,)
    v = [X[j] @ W_V for j in range(n)]  # v_j = x_j W_V, each (d_v,)
    A = np.zeros((n, n))
    Y = np.zeros((n, W_V.shape[1]))
    for i in range(n):
        scores = [float(q[i] @ k[j]) / math.sqrt(d_k) for j in range(n)]
        top = max(scores)  # shift by the max; softmax does not change
        Z = sum(math.exp(s - top) for s in scores)  # Σ_l exp(q_i·k_l/√d_k)
        for j in range(n):
            A[i, j] = math.exp(scores[j] - top) / Z
            Y[i] += A[i, j] * v[j]  # y_i = Σ_j α_ij v_j
    return Y, A


# ---- public functions: check once, then call the kernels -----------------------------------

LOOP_ROWS = 300  # the literal loop takes n² Python steps: 90,000 at most, about a second


def softmax(S, axis: int = -1) -> np.ndarray:
    """Turn scores into weights that are positive and sum to 1 along ``axis``.

    softmax(s)_j = exp(s_j - max(s)) / Σ_l exp(s_l - max(s))

    S has any shape, ``-inf`` marking a masked entry; A has S's shape and sums to 1 along ``axis``.

    >>> softmax([[0.0, 0.0], [1e300, -1e300]]).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    S, axis = check_scores(S, axis)
    with quiet_overflow():
        return _softmax(S, axis)


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
    *batch, n, d_k = np.shape(Q)
    K = as_matrix("K", K, (*batch, "m", d_k), f" to match Q of shape {np.shape(Q)}")
    m = np.shape(K)[-2]
    V = as_matrix("V", V, (*batch, m, "d_v"),
                  f" to match K of shape {np.shape(K)} (a value per key)")
    check_size("Q", f"{n:,} queries and {m:,} keys", math.prod(batch) * n * m, "the matrix A",
               "Use fewer queries or keys.")
    check_size("V", f"{n:,} queries and d_v = {np.shape(V)[-1]:,}",
               math.prod(batch) * n * np.shape(V)[-1], "Y (n, d_v)", "Use fewer queries or a "
               "narrower V.")
    mask = check_mask(mask, n, m)
    if bias is not None:
        bias = as_matrix("bias", bias, (n, m), ", one row per query and one column per key")
    with quiet_overflow():
        Y, A = _attention(Q, K, V, mask, bias)
    return finite_result("Q, K, V" + ("" if bias is None else " and bias"),
                         "A = softmax(Q Kᵀ/√d_k + B) and Y = A V", Y, A)


def self_attention(X, W_Q, W_K, W_V, mask=None, bias=None) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention of a sequence on itself: the rows of ``X`` are tokens.

    Q, K, V = X W_Q, X W_K, X W_V  (the same matrices at every position), then attention:
    A = softmax(Q Kᵀ / √d_k + B) row-wise, with A_ij = 0 where ``mask`` is False, and Y = A V.

    X (..., n, d); W_Q, W_K (d, d_k); W_V (d, d_v); mask (n, n), True where query i may attend
    to key j; bias (n, n), B, added to the scaled scores -> Y (..., n, d_v), A (..., n, n).

    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> Y, A = self_attention(X, [[1.0], [0.0]], [[1.0], [0.0]], [[1.0], [0.0]])
    >>> A.shape, Y.shape
    ((2, 2), (2, 1))
    """
    X, W_Q, W_K, W_V = check_projections(X, W_Q, W_K, W_V)
    n = np.shape(X)[-2]
    mask = check_mask(mask, n, n)
    if bias is not None:
        bias = as_matrix("bias", bias, (n, n), ", one row per query and one column per key")
    with quiet_overflow():
        Y, A = _attention(*_project(X, W_Q, W_K, W_V), mask, bias)
    return finite_result("X, W_Q, W_K and W_V" if bias is None else "X, W_Q, W_K, W_V and bias",
                         "self-attention", Y, A)


def cross_attention(X, Z, W_Q, W_K, W_V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Attention of one sequence to another: queries from X, keys and values from Z.

    Q = X W_Q,  K = Z W_K,  V = Z W_V,  then A = softmax(Q Kᵀ / √d_k) row-wise and Y = A V

    X (n, d), the sequence that asks (a decoder's rows); Z (m, d_z), the one it reads (an
    encoder's output); W_Q (d, d_k), W_K (d_z, d_k), W_V (d_z, d_v); mask (n, m), True where
    query i may attend to key j -> Y (n, d_v), A (n, m). Reordering X's rows reorders Y's rows;
    reordering Z's rows (its keys and values together) leaves Y as it is.

    >>> Y, A = cross_attention(np.eye(2, 4), np.eye(3, 4), *[np.eye(4)] * 3)
    >>> Y.shape, A.shape
    ((2, 4), (2, 3))
    """
    X, Z, W_Q, W_K, W_V = check_cross(X, Z, W_Q, W_K, W_V)
    mask = check_mask(mask, np.shape(X)[0], np.shape(Z)[0])
    with quiet_overflow():
        Y, A = _attention(*_cross_project(X, Z, W_Q, W_K, W_V), mask)
    return finite_result("X, Z, W_Q, W_K and W_V", "cross-attention", Y, A)


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
    X, W_Q, W_K, W_V = check_projections(X, W_Q, W_K, W_V, batch=False, loop=LOOP_ROWS)
    with quiet_overflow():
        Y, A = _attention_loop(X, W_Q, W_K, W_V)
    return finite_result("X, W_Q, W_K and W_V", "self-attention", Y, A)

"""Solutions to the exercises of notebook 03 (softmax and projections). Try them first!"""

import numpy as np

import posattn as pa


def stable_softmax(s):
    """Exercise 1: shift by the max (softmax(s + c) = softmax(s)), exponentiate, normalise."""
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max())  # the largest term is exp(0) = 1: no overflow, no 0/0
    return e / e.sum()


# Exercise 2: Var(q·k) = d_k = 256, so the standard deviation is √256.
spread_at_256 = 16.0

# Exercise 3: q = x W_Q for "man" (row 0 of "man bites dog"): the same as in "dog bites man".
q_man = pa.embed(pa.tokenize("man bites dog"))[0] @ pa.default_projections()[0]


def self_attention(X, W_Q, W_K, W_V, mask=None, bias=None):
    """Exercise 4: self-attention from scratch, returning (Y, A) like pa.self_attention."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d_k), (n, d_k), (n, d_v)
    S = Q @ K.T / np.sqrt(K.shape[1])  # (n, n): s_ij = q_i·k_j/√d_k
    if bias is not None:
        S = S + bias  # (n, n): added to the scaled scores
    if mask is not None:
        S = np.where(mask, S, -np.inf)  # exp(−∞) = 0: a masked key gets weight 0
    E = np.exp(S - S.max(axis=1, keepdims=True))  # shift each row: no overflow
    A = E / E.sum(axis=1, keepdims=True)  # (n, n): each row sums to 1
    return A @ V, A  # Y (n, d_v), A (n, n)

"""The model: embeddings, one attention head with a positional scheme, a read-out, a linear layer.

    X = token embeddings (S, B, n, d)    Y, A = attention of X with the scheme's positions
    logits = what the read-out takes of Y @ W_out + b      loss = cross-entropy of softmax(logits)

The last column of X is a constant 1: a bias row for W_Q, W_K and W_V, as real layers have.
S seeds run side by side, each with its own weights stacked on the leading axis. The forward
pass is the package's own kernels: attention, and the scheme's object from the registry;
``backward`` holds its gradients.
"""

import math

import numpy as np

from ..attention import _attention
from ..schemes import _scheme_of

D = 12  # the width d of X and of Q, K, V, by default (the public functions take width=)


def _init(rng, vocab: int, classes: int, max_len: int, scheme, d: int = D) -> dict:
    """One seed's small random weights of width d: entries of X and of Q, K, V start of order 1;
    then the scheme's trainable table, if it has one."""
    scale = 1.0 / math.sqrt(d)
    params = {"embed": rng.normal(0.0, 1.0, (vocab, d - 1)),  # (vocab, d − 1); X adds a 1
              "W_out": rng.normal(0.0, scale, (d, classes)), "b": np.zeros(classes)}
    for name in ("W_Q", "W_K", "W_V"):
        params[name] = rng.normal(0.0, scale, (d, d))  # (d, d)
    table = _scheme_of(scheme).init(rng, max_len, d)
    return params if table is None else {**params, "table": table}


def _forward(params: dict, ids, scheme=None, positions=None) -> dict:
    """The forward pass for ids (S, B, n): seed s's sentences through seed s's weights.

    Returns X (the rows attention reads, positions added), Q, K, V, A and Y, (S, B, ·, ·) each,
    and p, the positions the scheme was given. The scheme (the registry's object) changes the
    input, q and k, or the scores, with seed s's own trained table if it has one.
    ``positions`` None: the scheme's own positions 0 … n − 1. Otherwise the positions each
    word is given instead (a remedy): (S, B, n) whole numbers below the table's length for
    a learned table, any real numbers for sinusoids; (n,) real numbers for a turn of q and k.
    """
    S, _, n = ids.shape
    seed = np.arange(S)[:, None, None]  # (S, 1, 1): each seed looks up its own embeddings
    X = np.concatenate([params["embed"][seed, ids], np.ones((*ids.shape, 1))], axis=-1)
    W = [params[k][:, None] for k in ("W_Q", "W_K", "W_V")]  # (S, 1, d, d): one per seed
    p = np.arange(n) if positions is None else positions
    table = {"table": params["table"][:, None]} if "table" in params else {}  # (S, 1, …)
    # (S, B, n, d) @ (S, 1, d, d) -> (S, B, n, d); mask and bias (n, n) or (S, 1, n, n)
    X, Q, K, V, mask, bias = _scheme_of(scheme).forward(X, *W, p, **table)
    Y, A = _attention(Q, K, V, mask, bias)
    return {"X": X, "Q": Q, "K": K, "V": V, "A": A, "Y": Y, "p": p}


def _read(Y, readout: str = "mean"):
    """What the classifier reads of Y (S, B, n, d): the mean of its rows, their maximum feature
    by feature, its first row or its last row (S, B, d); or ("rows") every row but the first,
    the start token's (S, B, n − 1, d). Mean and max are order-free (a reordering of the rows
    changes neither); the first and last rows are slots, and so let position in."""
    if readout == "rows":
        return Y[..., 1:, :]
    if readout == "mean":
        return Y.mean(axis=-2)
    if readout == "max":
        return Y.max(axis=-2)
    return Y[..., 0 if readout == "first" else -1, :]


def _output(params: dict, H):
    """Class scores z = H W_out + b for the rows H (S, N, d) read: (S, N, classes)."""
    return H @ params["W_out"] + params["b"][:, None]


def _logits(params: dict, ids, scheme=None, readout: str = "mean", positions=None):
    """Class scores (S, B, classes) from what the read-out takes of Y (:func:`_read`);
    readout "rows": scores for every row but the first, (S, B, n − 1, classes)."""
    H = _read(_forward(params, ids, scheme, positions)["Y"], readout)
    return _output(params, _by_seed(H)).reshape(*H.shape[:-1], -1)


def _log_sum_exp(z):
    """log Σ_c exp(z_c) over the last axis, as top + log Σ_c exp(z_c − top): no overflow."""
    top = np.max(z, axis=-1, keepdims=True)
    return top[..., 0] + np.log(np.sum(np.exp(z - top), axis=-1))


def _losses(params: dict, ids, labels, scheme, readout: str = "mean", positions=None):
    """Each seed's mean cross-entropy −log softmax(logits)[label], (S,); labels (S, B), or
    (S, B, n − 1) for readout "rows" (one label per row read)."""
    return _cross_entropy(_logits(params, ids, scheme, readout, positions), labels)


def _cross_entropy(z, labels):
    """Each seed's mean of log Σ_c exp(z_c) − z_label over its rows: z (S, …, classes), labels
    (S, …)."""
    picked = np.take_along_axis(z, labels[..., None], axis=-1)[..., 0]  # z[label]
    return (_log_sum_exp(z) - picked).reshape(len(z), -1).mean(axis=1)


def _by_seed(M):
    """(S, ..., k) -> (S, N, k): every row of seed s, one after another."""
    return M.reshape(len(M), -1, M.shape[-1])


def _unstack(params: dict, s: int) -> dict:
    """Seed s's weights out of the stacked ones."""
    return {k: v[s] for k, v in params.items()}

"""The backward pass, written out beside the forward pass of ``model``.

Attention's own backward pass is ``attention._attention_gradient``; tests/test_autograd.py checks
every weight's gradient against finite differences, for every scheme, read-out and remedy.
"""

import numpy as np

from ..attention import _attention_gradient, _softmax
from ..schemes import _one_hot, _scheme_of
from .model import _by_seed, _cross_entropy, _forward, _output, _read


def _gradients(params: dict, ids, labels, scheme, readout: str = "mean", positions=None):
    """The seeds' losses (S,) and the gradient of their sum for every weight: the backward pass.

    Seed s's gradient is its own loss's. Backwards from the loss: the cross-entropy's gradient
    for the logits is softmax(z) − one_hot(label), per row read; the output layer and the
    read-out pass it to Y; attention's own backward pass (``_attention_gradient``) to Q, K, V
    and the scores; the scheme turns q's and k's back (if it turned them); then
    :func:`_input_gradients`, and the scheme's own gradient for its trained table.
    tests/test_autograd.py checks every weight's gradient against finite differences.
    """
    f = _forward(params, ids, scheme, positions)
    H = _by_seed(_read(f["Y"], readout))  # (S, N, d): the rows read, N per seed
    z, y = _output(params, H), labels.reshape(len(H), -1)  # (S, N, classes), (S, N)
    dz = (_softmax(z) - _one_hot(y, z.shape[-1])) / y.shape[1]  # (S, N, classes)
    dH = dz @ params["W_out"].swapaxes(-1, -2)  # (S, N, d)
    dQ, dK, dV, dS = _attention_gradient(f["Q"], f["K"], f["V"], f["A"],
                                         _read_gradient(dH, f["Y"], readout))
    chosen = _scheme_of(scheme)
    dQ, dK = chosen.turn_back(dQ, f["p"]), chosen.turn_back(dK, f["p"])  # ∂L/∂(X W_Q), ∂L/∂(X W_K)
    grads, dX = _input_gradients(params, f, ids, dQ, dK, dV)
    if chosen.trained:  # the scheme's trainable part: E added to X, or b added to S
        grads["table"] = chosen.gradient(dX, dS, f["p"], params["table"][:, None])
    return _cross_entropy(z, y), {"W_out": H.swapaxes(-1, -2) @ dz, "b": dz.sum(axis=1), **grads}


def _read_gradient(dH, Y, readout: str):
    """∂L/∂Y (Y's shape (S, B, n, d)) from ∂L/∂H (S, N, d), H what :func:`_read` read of Y."""
    shape = Y.shape
    S, B, n, d = shape
    if readout == "mean":  # every row of Y gets 1/n of its mean's gradient
        return np.broadcast_to(dH.reshape(S, B, 1, d) / n, shape)
    dY = np.zeros(shape)  # the rows read get theirs, the others none
    if readout == "max":  # each feature's gradient goes to the row where it is largest
        np.put_along_axis(dY, np.argmax(Y, axis=-2)[..., None, :], dH.reshape(S, B, 1, d),
                          axis=-2)
        return dY
    read = {"rows": slice(1, None), "first": 0, "last": -1}[readout]  # rows 1 … n − 1, or one
    dY[..., read, :] = dH.reshape(dY[..., read, :].shape)
    return dY


def _input_gradients(params: dict, f: dict, ids, dQ, dK, dV) -> tuple[dict, np.ndarray]:
    """The gradients of W_Q, W_K, W_V (Q, K, V = X W) and of the embeddings (X = [e, 1] + E),
    and ∂L/∂X, (S, B, n, d): the gradient a table added to X gets."""
    X = f["X"]
    grads, dX = {}, 0.0
    for name, dZ in (("W_Q", dQ), ("W_K", dK), ("W_V", dV)):  # Z = X W
        grads[name] = _by_seed(X).swapaxes(-1, -2) @ _by_seed(dZ)  # Σ over all rows: (S, d, d)
        dX = dX + dZ @ params[name][:, None].swapaxes(-1, -2)  # (S, B, n, d)
    words = _by_seed(_one_hot(ids, len(params["embed"][0])))  # (S, B·n, words)
    grads["embed"] = words.swapaxes(-1, -2) @ _by_seed(dX[..., :-1])  # X's last column is 1
    return grads, dX

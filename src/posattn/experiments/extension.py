"""Longer rows for a trained RoPE model: the same weights, the frequencies each method gives.

The model of ``model`` with the scheme "rope", tested with the frequencies ω' of
``posattn.scaling`` in place of the trained ω (and, for YaRN, its temperature on the scores).
"""

import numpy as np

from ..attention import _attention, _project
from ..rope import _turn
from ..scaling import _scaled, _yarn_gain
from .model import _by_seed, _output, _read


def _scaled_logits(params: dict, ids, readout: str, omega, gain: float = 1.0):
    """Class scores (S, B, classes): q and k turned by p ω' (ω' (d/2,)), the scores times gain."""
    S, _, n = ids.shape
    seed = np.arange(S)[:, None, None]  # (S, 1, 1): each seed looks up its own embeddings
    X = np.concatenate([params["embed"][seed, ids], np.ones((*ids.shape, 1))], axis=-1)
    Q, K, V = _project(X, *(params[k][:, None] for k in ("W_Q", "W_K", "W_V")))  # (S, B, n, d)
    theta = np.arange(n)[:, None] * omega  # (n, 1) * (d/2,) -> (n, d/2): the angles p ω'_i
    Y, _ = _attention(gain * _turn(Q, theta), _turn(K, theta), V)  # q·k times gain
    H = _read(Y, readout)
    return _output(params, _by_seed(H)).reshape(*H.shape[:-1], -1)


def _extended_accuracy(params: dict, ids, labels, readout: str, method: str, train_max_len: int,
                       alpha: float, beta: float) -> list[float]:
    """Each seed's accuracy on rows of n words, the method's frequencies for s = n / L (s ≥ 1)."""
    d, n = params["W_Q"].shape[-1], ids.shape[-1]
    s = max(1.0, n / train_max_len)
    omega = _scaled(d, method, s, 10000.0, train_max_len, alpha, beta)  # (d/2,)
    gain = _yarn_gain(s) if method == "yarn" else 1.0
    logits = _scaled_logits(params, ids, readout, omega, gain)
    return ((np.argmax(logits, axis=-1) == labels).mean(axis=1)).tolist()

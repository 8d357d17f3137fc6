"""Checkers for notebook 07 (RNNs and CNNs are different); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..baselines import conv1d, conv_kernel, influence, rnn, rnn_weights
from ..embeddings import embed, tokenize
from ..permutations import equivariance_error
from . import Feedback, not_yet, right, unanswered

SENTENCE = "the old dog bites the young man"


def _indices(answer, what: str) -> list[int] | Feedback:
    if (missing := unanswered(answer, what)) is not None:
        return missing
    try:
        return sorted({int(i) for i in answer})
    except (TypeError, ValueError):
        return not_yet(f"the answer must be a list of whole numbers (row indices); got {answer!r}.")


def _rows_reached(f, j: int) -> list[int]:
    X = embed(tokenize(SENTENCE))
    return np.flatnonzero(influence(f, X)[:, j]).tolist()


def check_rnn_rows(answer) -> Feedback:
    """Exercise 1: the hidden states h_t that change when word 1 ("old") is replaced.

    >>> check_rnn_rows(...)
    ❌ Not yet: replace the ... with a list of indices t, then run the cell again.
    """
    got = _indices(answer, "a list of indices t")
    if isinstance(got, Feedback):
        return got
    W_x, W_h = rnn_weights()
    expected = _rows_reached(lambda X: rnn(X, W_x, W_h), 1)
    if got == expected:
        return right("word 1 reaches every later state through the chain h_t = tanh(x_t W_x + h_{t−1} W_h), and no earlier one.")
    if 0 in got:
        return not_yet("h_0 is computed before word 1 is read: can it depend on it?")
    return not_yet("h_1 reads word 1 directly; what does h_2 read, and h_3 after it?")


def check_conv_rows(answer) -> Feedback:
    """Exercise 2: the rows of conv1d's output (width 3) that change when word 4 is replaced.

    >>> check_conv_rows(...)
    ❌ Not yet: replace the ... with a list of indices t, then run the cell again.
    """
    got = _indices(answer, "a list of indices t")
    if isinstance(got, Feedback):
        return got
    kernel = conv_kernel()
    expected = _rows_reached(lambda X: conv1d(X, kernel), 4)
    if got == expected:
        return right("a width-3 window at t covers t − 1, t, t + 1, so word 4 lands in three windows only.")
    if got == [4]:
        return not_yet("the window of row t covers its neighbours too: which windows contain word 4?")
    return not_yet("row t sums x_{t−1}, x_t and x_{t+1}: for which t is 4 among them?")


def check_equivariant_kernel(kernel) -> Feedback:
    """Exercise 3: a non-zero (3, 8, 4) kernel that makes conv1d permutation equivariant.

    >>> check_equivariant_kernel(...)
    ❌ Not yet: replace the ... with an array of shape (3, 8, 4), then run the cell again.
    """
    if (missing := unanswered(kernel, "an array of shape (3, 8, 4)")) is not None:
        return missing
    W = np.asarray(kernel, dtype=np.float64)
    if W.shape != (3, 8, 4):
        return not_yet(f"the kernel must have shape (3, 8, 4), one (8, 4) matrix per offset; got {W.shape}.")
    if not W.any():
        return not_yet("an all-zero kernel maps everything to 0, which is trivially equivariant: keep something non-zero.")
    X = np.random.default_rng(7).standard_normal((6, 8))
    perm = np.array([3, 0, 5, 1, 4, 2])
    if equivariance_error(lambda X: conv1d(X, W), X, perm) < 1e-9:
        return right("with only W_0 left, each output sees its own token alone: the same map on every row, like W_V.")
    return not_yet("neighbours still leak into each output: which offsets must carry zeros?")

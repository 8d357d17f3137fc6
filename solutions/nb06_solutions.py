"""Solutions to the exercises of notebook 06, the whole Transformer. Try them first."""

import numpy as np

import posattn as pa


def my_layer_norm(X):
    mu = X.mean(axis=1, keepdims=True)  # (n, 1): each row's own mean
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)  # (n, 1): each row's own variance
    return (X - mu) / np.sqrt(var + 1e-5)  # (n, d)


# e: the window. a (GELU) and b (more heads) keep every piece row-wise or attention; c
# (statistics over the tokens, as BatchNorm takes them: a column's mean and variance do not depend
# on the order of its entries), d (the mask "not yourself") and f (the mean of all rows) look the
# same after any reordering, so they treat every token alike.
breaking_change = "e"

W_in = np.random.default_rng(0).standard_normal((2, 8))  # lifts a point (x, y) to d_model = 8
layers = [pa.init_encoder_params(8, 2, 32, seed=s) for s in range(2)]


def set_vector(points):
    return pa.encoder(points @ W_in, layers).mean(axis=0)  # (m, 2) -> (m, 8) -> (8,)

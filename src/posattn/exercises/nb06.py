"""Checkers for notebook 06 (the whole Transformer)."""

import numpy as np

from .. import equivariance_error, influence, layer_norm
from . import NotYet, as_array, as_choice, call, checker

_RNG_SEED = 6


@checker("a function my_layer_norm(X) that normalises each row of X")
def check_layer_norm(my_layer_norm):
    X = np.random.default_rng(_RNG_SEED).normal(2.0, 3.0, (5, 6))  # (n, d), rows far from 0 mean
    got = as_array(call(my_layer_norm, X.copy(), name="my_layer_norm"), "my_layer_norm(X)",
                   X.shape)
    if np.allclose(got.mean(axis=0), 0.0, atol=1e-6) and not np.allclose(got.mean(axis=1), 0.0):
        raise NotYet("your columns have mean 0, not your rows: take the mean and variance of each "
                     "row (axis=1, keepdims=True), over the token's own features.")
    if not np.allclose(got.mean(axis=1), 0.0, atol=1e-6):
        raise NotYet("each row of the result should have mean 0: subtract the row's mean.")
    if not np.allclose(got, layer_norm(X), rtol=0, atol=1e-6):
        raise NotYet("the rows have mean 0 but the wrong spread: divide by √(variance + 1e-5), "
                     "with the variance of the row itself (the mean of the squared deviations).")
    perm = np.random.default_rng(_RNG_SEED).permutation(X.shape[0])
    error = equivariance_error(my_layer_norm, X, perm)
    shown = "below 1e-12" if error < 1e-12 else f"{error:.1e}"
    return (f"your LayerNorm matches pa.layer_norm, and its equivariance error is {shown}: it "
            "looks at one row at a time, so reordering the rows only reorders its output.")


_WHY_NOT = {
    "a": "GELU, like ReLU, acts on each number by itself: the feed-forward layer stays row-wise. "
         "Measure it with pa.equivariance_error.",
    "b": "more heads are still equivariant heads side by side, concatenated row by row, then "
         "the row-wise W_O.",
    "c": "the mean and variance of a column over the tokens do not depend on the tokens' order "
         "(a mean is invariant), so every row is still transformed in the same way.",
    "d": "the mask 'not yourself' looks the same after any reordering (P M Pᵀ = M): every token "
         "is still treated alike.",
    "f": "the mean of all rows is the same for every order (it is invariant), and adding the same "
         "vector to every row is row-wise.",
}


@checker('the letter of the change that breaks equivariance, e.g. "a"')
def check_breaking_change(breaking_change):
    letter = as_choice(breaking_change, ("a", "b", "c", "d", "e", "f"), "breaking_change")
    if letter in _WHY_NOT:
        raise NotYet(f"not {letter}: {_WHY_NOT[letter]}")
    return ("e. A window decides who meets whom by where they sit: reorder the tokens and "
            "other tokens become neighbours. Like a convolution (notebook 07), it carries order.")


def _vector(set_vector, points, name: str) -> np.ndarray:
    out = as_array(call(set_vector, points.copy(), name="set_vector"), name)
    if out.ndim != 1 or out.size == 0:
        raise NotYet(f"{name} should be one vector (a 1-D array); got shape {out.shape}.")
    return out


@checker("a function set_vector(points) that turns an (m, 2) array of points into one vector")
def check_set_vector(set_vector):
    rng = np.random.default_rng(_RNG_SEED)
    points = rng.uniform(-1.0, 1.0, (5, 2))  # a set of 5 points in the plane
    v = _vector(set_vector, points, "set_vector(points)")
    scale = max(1.0, float(np.abs(v).max()))
    for _ in range(20):
        w = _vector(set_vector, points[rng.permutation(5)], "set_vector(reordered points)")
        if w.shape != v.shape or np.abs(w - v).max() > 1e-9 * scale:
            raise NotYet("the same set listed in another order gave another vector: pool the "
                         "points with an order-free summary (a sum, a mean, a max).")
    if not influence(set_vector, points, 0.1)[:, 0].any():  # does point 0 count, moved by 0.1?
        raise NotYet("moving one point did not change the vector: it should depend on the points.")
    cross, plus = np.array([[-1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, -1.0], [0.0, 1.0]])
    gap = np.abs(_vector(set_vector, cross, "set_vector") - _vector(set_vector, plus, "set_vector"))
    if gap.max() < 1e-6:
        raise NotYet("{(-1, 0), (1, 0)} and {(0, -1), (0, 1)} are different sets with the same "
                     "mean and size: transform each point (φ) before pooling, as Deep Sets does.")
    return ("the same vector for every listing, and a different one for a different set: an "
            "invariant set function, ρ(Σ φ(x_i)) in the Deep Sets form.")

"""Checkers for notebook 06 (the whole Transformer)."""

import numpy as np

from ..attention import cross_attention, scaled_dot_product_attention
from ..baselines import influence
from ..embeddings import default_projections, embed, tokenize
from ..permutations import equivariance_error, inverse_permutation
from ..transformer import layer_norm
from . import NotYet, as_array, as_choice, call, checker, close, read_only

# Where the notebook defines the names an answer may use (a NameError's hint names the cell).
DEFINED_IN = {
    **dict.fromkeys(("X", "perm"), "in section 1's first code cell (`X = pa.embed(…)`, "
                    "`perm = rng.permutation(7)`)"),
    "layers": "in section 2's first code cell (`layers = [pa.init_encoder_params(…) …]`)",
    **dict.fromkeys(("describe", "W_in"), "in the cell of \"An encoder followed by a mean is a "
                    "set function\" (`W_in = …`, `def describe(points)`)"),
}

_RNG_SEED = 6


def _spreads(X: np.ndarray) -> dict:
    """LayerNorm with one usual slip each: what a wrong spread most likely was."""
    centred = X - X.mean(axis=1, keepdims=True)  # (n, d)
    var = (centred ** 2).mean(axis=1, keepdims=True)  # (n, 1): the biased variance
    return {
        "that variance divides by n − 1 (ddof=1); LayerNorm's is the plain mean of the squared "
        "deviations.": centred / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + 1e-5),
        "the 1e-5 is missing under the root: on a row with a small spread it counts.":
            centred / np.sqrt(var),
        "divide by the square root of (variance + 1e-5), not by the variance itself.":
            centred / (var + 1e-5),
    }


@checker("a function my_layer_norm(X) that normalises each row of X")
def check_layer_norm(my_layer_norm):
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(2.0, 3.0, (5, 6))  # (n, d), rows far from 0 mean
    X[4] = 2.0 + 0.1 * rng.standard_normal(6)  # one row with a small spread, where 1e-5 shows
    try:
        got = call(my_layer_norm, X.copy(), name="my_layer_norm")
    except NotYet as hint:
        if "could not be broadcast" in str(hint) and f"({len(X)},)" in str(hint):
            said = str(hint).rstrip().rstrip(".")
            raise NotYet(f"{said}. A statistic of each row, such as X.mean(axis=1), has shape "
                         f"({len(X)},) and cannot meet X of shape {X.shape}: keep its axis "
                         f"(keepdims=True), so that it has shape ({len(X)}, 1).") from None
        raise
    got = as_array(got, "my_layer_norm(X)", X.shape)
    if np.allclose(got.mean(axis=0), 0.0, atol=1e-6) and not np.allclose(got.mean(axis=1), 0.0):
        raise NotYet("your columns have mean 0, not your rows: take the mean and variance of each "
                     "row (axis=1, keepdims=True), over the token's own features.")
    if not np.allclose(got.mean(axis=1), 0.0, atol=1e-5):
        raise NotYet("each row of the result should have mean 0: subtract the row's mean.")
    if not close(got, layer_norm(X), atol=1e-5):  # values of order 1: float32 precision
        slip = next((hint for hint, Z in _spreads(X).items() if close(got, Z, atol=1e-5)),
                    "divide by √(variance + 1e-5), with the variance of the row itself (the mean "
                    "of the squared deviations).")
        raise NotYet(f"the rows have mean 0 but the wrong spread: {slip}")
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


def _shown(points) -> str:
    return "{" + ", ".join(f"({x:g}, {y:g})" for x, y in points) + "}"


# Pairs of different sets, each with what a vector that cannot tell them apart has missed.
_SAME_MEAN = np.array([[[0.0, 0.0], [2.0, 0.0]], [[0.5, 0.0], [1.5, 0.0]]])
_MIRRORED = np.array([[[-1.0, 0.0], [1.0, 0.0]], [[0.0, -1.0], [0.0, 1.0]],
                      [[-0.3, 0.6], [0.3, -0.6]]])
_ON_A_RAY_OFF = np.array([[[-1.0, 1.0], [1.0, 1.0]], [[0.0, 0.5], [0.0, 1.5]]])  # same mean, too
_SAME_COLUMNS = np.array([[[0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]])
_HINTS = {
    "mean": "are different sets with the same mean and size, and gave one vector: it sees only "
            "the mean (pooling the points, or a linear map of them, keeps nothing else). "
            "Transform each point by a non-linear φ before pooling, as Deep Sets does.",
    "ray": "are different sets with the same mean and size, all on one ray from the origin, and "
           "gave one vector: your φ is linear along a ray, φ(t·x) = t·φ(x) for t > 0 (as ReLU "
           "and |x| are), so there it pools like the mean. Use a φ that also bends along a ray.",
    "odd": "are different sets, each a point and its mirror −x, and gave one vector. An odd φ "
           "(φ(−x) = −φ(x), like tanh or sin) makes φ(x) + φ(−x) = 0, so every such set pools "
           "to the same thing: use a φ that does not cancel between x and −x.",
    "columns": "are different sets with the same x values and the same y values, and gave one "
               "vector: it treats each coordinate on its own (sorting or transforming each "
               "column separately) and loses which x goes with which y. Keep each point whole.",
    "other": "are different sets (one is the other turned by 90°), yet gave one vector: a vector "
             "that stays the same when a set is turned cannot tell them apart.",
}


@checker("a function set_vector(points) that turns an (m, 2) array of points into one vector")
def check_set_vector(set_vector):
    rng = np.random.default_rng(_RNG_SEED)
    points = rng.uniform(-1.0, 1.0, (5, 2))  # a set of 5 points in the plane
    v = _vector(set_vector, points, "set_vector(points)")
    for _ in range(20):
        w = _vector(set_vector, points[rng.permutation(5)], "set_vector(reordered points)")
        if not close(w, v, atol=1e-6 * max(1.0, float(np.abs(v).max()))):
            raise NotYet("the same set listed in another order gave another vector: pool the "
                         "points with an order-free summary (a sum, a mean, a max).")
    if not influence(set_vector, points, 0.1)[:, 0].any():  # does point 0 count, moved by 0.1?
        raise NotYet("moving one point by 0.1 did not change the vector, so that point is not seen "
                     "(a max or a min over the points keeps only the extreme ones).")
    for kind, sets in [("mean", _SAME_MEAN), ("odd", _MIRRORED), ("columns", _SAME_COLUMNS),
                       ("other", _MIRRORED[:2])]:
        vectors = [_vector(set_vector, np.array(s), f"set_vector({_shown(s)})") for s in sets]
        if all(close(u, vectors[0], atol=1e-6) for u in vectors[1:]):
            names = [_shown(s) for s in sets]
            if kind == "mean" and not close(*(_vector(set_vector, s, f"set_vector({_shown(s)})")
                                              for s in _ON_A_RAY_OFF), atol=1e-6):
                kind = "ray"  # it tells apart a pair of the same mean that is off a ray
            raise NotYet(f"{', '.join(names[:-1])} and {names[-1]} {_HINTS[kind]}")
    return ("the same vector for every listing, and a different one for each different set tried: "
            "an invariant set function, as ρ(Σ φ(x_i)) in the Deep Sets form is.")



# Exercise 4's inputs, as its cell makes them: a decoder's 5 rows ask, an encoder's 5 rows answer
# (X_dec and Z_enc in the cell).
_PERM_X, _PERM_Z = np.array([4, 2, 0, 1, 3]), np.array([1, 3, 4, 0, 2])


def _cross() -> tuple[np.ndarray, ...]:
    """Y_dec = cross_attention(X_dec, Z_enc, W_Q, W_K, W_V)[0] of the exercise cell, and its
    X_dec and Z_enc."""
    X = embed(tokenize("the dog bites the man"))  # (5, 8): the queries' sequence
    Z = np.random.default_rng(4).standard_normal((5, 8))  # (5, 8): keys and values
    return cross_attention(X, Z, *default_projections())[0], X, Z  # Y (5, 4)



@checker("a (5, 4) array Y_expected: the output of X_dec[perm_x] attending to Z_enc[perm_z]")
def check_reordered_cross_attention(Y_expected):
    """Exercise 4: reorder the queries by perm_x and the keys and values by perm_z: the output
    is Y_dec[perm_x] (equivariant in the queries, invariant under the joint reordering)."""
    Y, X, Z = _cross()
    got = as_array(Y_expected, "Y_expected", Y.shape)
    if close(got, Y[_PERM_X]):
        return ("Y_dec[perm_x]: each output row follows its query, and reordering the keys and "
                "values together changes no row (each query sums the same weighted values, in "
                "another order). Cross-attention is equivariant in the queries and invariant "
                "under a joint reordering of the keys and values.")
    if close(got, Y):
        raise NotYet("that is Y_dec as it was: the keys and values may be reordered at no cost, "
                     "but the queries were reordered too, and each output row follows its query.")
    if close(got, Y[inverse_permutation(_PERM_X)]):
        raise NotYet("that is the inverse order: row i of X_dec[perm_x] is row perm_x[i] of "
                     "X_dec, so row i of the new output is row perm_x[i] of Y_dec.")
    if close(got, Y[_PERM_Z]) or close(got, Y[_PERM_X][_PERM_Z]) or close(got, Y[_PERM_Z][_PERM_X]):
        raise NotYet("perm_z reorders the keys and values, not the output rows: there is one "
                     "output row per query, and the keys' order does not reach them.")
    W_Q, W_K, W_V = default_projections()
    Q, K, V = X[_PERM_X] @ W_Q, Z @ W_K, Z @ W_V  # (5, 4) each: the queries reordered
    for slip in (scaled_dot_product_attention(Q, K[_PERM_Z], V)[0],  # the keys alone moved
                 scaled_dot_product_attention(Q, K, V[_PERM_Z])[0]):  # the values alone
        if close(got, slip):
            raise NotYet("that moves the keys without their values (or the values without their "
                         "keys): each value would be weighed by another key's score. "
                         "Z_enc[perm_z] moves a key and its value together.")
    raise NotYet("not the reordered output. Write it from Y_dec: which row of Y_dec does each "
                 "query of X_dec[perm_x] get, and what does moving the keys and values change?")


read_only(globals())  # the checkers' own data: an answer cannot write into it

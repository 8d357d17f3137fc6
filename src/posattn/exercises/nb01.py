"""Checkers for notebook 01 (invariance vs equivariance)."""

from collections.abc import Callable

import numpy as np

from ..baselines import influence
from ..embeddings import embed, tokenize
from ..permutations import permutation_matrix, symmetries
from . import NotYet, as_array, as_choice, call, checker, read_only

# Where the notebook defines the names an answer may use (a NameError's hint names the cell).
DEFINED_IN = {
    **dict.fromkeys(("X", "perm", "tokens"), "in the cell that turns \"dog bites man\" into "
                    "\"man bites dog\" (`X = pa.embed(tokens)`, `perm = np.array([2, 1, 0])`)"),
    "W": "in the cell of \"Measured: self-attention is equivariant\" (`W = rng.normal(…)`)",
    **dict.fromkeys(("W_Q", "W_K", "W_V"), "in the cell of \"Measured: self-attention is "
                    "equivariant\" (`W_Q, W_K, W_V = pa.default_projections()`)"),
}

VERDICTS = ("invariant", "equivariant", "neither")
PERM = np.array([1, 3, 0, 2])  # exercise 2: build the P of this order


def column_max(X):
    """f(X) = the largest entry of each column (one vector for the whole sequence)"""
    return X.max(axis=0)


def centred(X):
    """f(X) = X − mean of the rows (each token minus the average token)"""
    return X - X.mean(axis=0)


def reversed_rows(X):
    """f(X) = the rows of X in reverse order"""
    return X[::-1]


def sorted_columns(X):
    """f(X) = each column of X sorted from small to large (n rows, none of them a token's)"""
    return np.sort(X, axis=0)


def index_weighted(X):
    """f(X) = row i of X multiplied by its position i + 1"""
    return X * np.arange(1, len(X) + 1)[:, None]


FUNCTIONS: dict[str, Callable] = {
    f.__name__: f for f in (column_max, centred, reversed_rows, sorted_columns, index_weighted)
}


def verdict(f: Callable, d: int = 3) -> str:
    """'invariant', 'equivariant' or 'neither', measured on seeded random X (5, d) and 20 orders.

    A gap counts as zero below 1e-5 of the output's size, so float32 arithmetic is no symmetry
    breaker.

    >>> [verdict(f) for f in (lambda X: X.sum(axis=0), lambda X: 3 * X, lambda X: X.cumsum(axis=0))]
    ['invariant', 'equivariant', 'neither']
    """
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5, d))  # (n, d)
    size = max(1.0, float(np.abs(as_array(_one_array(f(X)), "f(X)")).max()))
    found = symmetries(f, X, [rng.permutation(5) for _ in range(20)], tol=1e-5 * size)
    if found["invariant"]:
        return "invariant"
    return "equivariant" if found["permutation-equivariant"] else "neither"


def _one_array(out):
    """The answer itself, or the first of a tuple (the package's functions return (Y, A))."""
    return out[0] if isinstance(out, tuple) else out


@checker("'invariant', 'equivariant' or 'neither' for each of the five functions")
def check_symmetries(*kinds):
    """Exercise 1: one verdict per function of FUNCTIONS, in order."""
    if len(kinds) != len(FUNCTIONS):
        raise NotYet(f"give one verdict for each of the {len(FUNCTIONS)} functions; "
                     f"got {len(kinds)}.")
    wrong = [name for (name, f), kind in zip(FUNCTIONS.items(), kinds, strict=True)
             if as_choice(kind, VERDICTS, name) != verdict(f)]
    if wrong:
        raise NotYet(f"{len(FUNCTIONS) - len(wrong)} of {len(FUNCTIONS)} right. Look again at: "
                     f"{', '.join(wrong)} (measure them with pa.invariance_error and "
                     "pa.equivariance_error, on more than one order: one order can hide what "
                     "another shows).")
    return ("all five classified. sorted_columns returns n rows and is still invariant: "
            "no row of it belongs to a token.")


@checker(f"a {len(PERM)}×{len(PERM)} array of 0s and 1s")
def check_permutation_matrix(P_hand):
    """Exercise 2: the permutation matrix of PERM, written by hand."""
    P = as_array(P_hand, "P_hand", (len(PERM), len(PERM)))
    if not np.isin(P, (0.0, 1.0)).all() or not np.array_equal(P @ P.T, np.eye(len(PERM))):
        raise NotYet("a permutation matrix has exactly one 1 in every row and every column, "
                     "and 0 elsewhere.")
    target = permutation_matrix(PERM)
    if np.array_equal(P, target.T):
        raise NotYet("this is the transpose (the inverse order). Row i must pick token perm[i], "
                     "so that P_hand @ X == X[perm].")
    if not np.array_equal(P, target):
        raise NotYet("P_hand @ X should equal X[perm]: row i needs its 1 in column perm[i].")
    return "P_hand @ X == X[perm]. Its transpose puts the tokens back: P.T @ P is the identity."


@checker("a function of X that returns one row per token")
def check_mixing_equivariant(my_f):
    """Exercise 3: an equivariant my_f whose output row 0 depends on the other rows too.

    It is tried on inputs of the notebook's width, (n, 8): "dog bites man" and random ones.
    """
    X = embed(tokenize("dog bites man"))  # (3, 8), the X of the notebook
    out = call(my_f, X.copy(), name="my_f")
    if isinstance(out, tuple):
        raise NotYet(f"my_f returns {len(out)} things; return one array with a row per token "
                     "(pa.self_attention returns the pair (Y, A): which one is the output?).")
    out = as_array(out, "my_f(X)")
    if out.ndim != 2 or len(out) != len(X):
        raise NotYet(f"my_f(X) should have one row per token: for X of shape {X.shape} it needs "
                     f"shape ({len(X)}, any number of columns); got {out.shape}.")
    if (kind := verdict(my_f, X.shape[1])) == "invariant":
        if np.allclose(out, out[0], rtol=1e-5, atol=1e-8):
            raise NotYet("every row of my_f(X) is the same vector, so reordering changes nothing: "
                         "my_f is invariant (and, trivially, equivariant), but no output row "
                         "belongs to its token any more. Keep token i in row i as well.")
        raise NotYet("my_f is invariant: reordering X leaves my_f(X) as it was, so its rows do "
                     "not move with their tokens. Equivariant: my_f(X[perm]) == my_f(X)[perm].")
    if kind != "equivariant":
        raise NotYet(f"my_f is {kind}: my_f(X[perm]) should equal my_f(X)[perm] for every perm.")
    if not influence(my_f, X)[0, 1:].any():  # does output row 0 feel tokens 1 … n − 1?
        raise NotYet("row 0 of the output ignores the other tokens (changing one of them leaves "
                     "it unchanged). Mix the rows, for example through a sum over tokens.")
    return ("equivariant, and every output row sees the other tokens: the kind of function "
            "attention is.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

"""The checkers of notebook 01 accept right answers in any form and name the usual mistakes."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb01
from solutions import nb01_solutions as solutions

KINDS = [getattr(solutions, name) for name in nb01.FUNCTIONS]
W = np.random.default_rng(0).normal(size=(8, 8)) / np.sqrt(8)  # the notebook's W, (d, d)
W_Q, W_K, W_V = pa.default_projections()  # (8, 4) each, as in the notebook


def test_verdict_agrees_with_the_definitions_on_known_functions():
    assert nb01.verdict(lambda X: X.mean(axis=0)) == "invariant"
    assert nb01.verdict(np.tanh) == "equivariant"
    assert nb01.verdict(lambda X: np.maximum.accumulate(X, axis=0)) == "neither"
    assert nb01.verdict(lambda X: np.tanh(X @ W), d=8) == "equivariant"


def test_verdict_takes_float32_rounding_for_no_broken_symmetry():
    f = lambda X: (X + X.mean(axis=0)).astype(np.float32)  # noqa: E731 - a one-line answer
    assert nb01.verdict(f) == "equivariant"


@pytest.mark.parametrize("kinds", [
    KINDS,
    [k.capitalize() for k in KINDS],
    [f" ({k}) " for k in KINDS],
    [k.upper() for k in KINDS],
], ids=["as in the solutions", "capitalised", "in parentheses", "upper case"])
def test_right_classifications_pass_in_any_spelling(kinds):
    assert nb01.check_symmetries(*kinds).ok


@pytest.mark.parametrize(("name", "wrong"), [
    ("sorted_columns", "equivariant"),  # n rows, so it looks per-token
    ("reversed_rows", "equivariant"),  # a fixed reordering is not "moves with the input"
    ("centred", "neither"),  # the mean is order-free, so centring is equivariant
    ("column_max", "neither"),
])
def test_a_wrong_classification_is_named(name, wrong):
    kinds = list(KINDS)
    kinds[list(nb01.FUNCTIONS).index(name)] = wrong
    feedback = nb01.check_symmetries(*kinds)
    assert not feedback.ok and name in feedback.message and "4 of 5" in feedback.message


@pytest.mark.parametrize(("kinds", "hint"), [
    (KINDS[:4], "each of the 5 functions"),
    ([*KINDS[:4], "equivalent"], "index_weighted must be one of"),
    ([*KINDS[:4], ...], "replace the ..."),
    ([*KINDS[:4], 1 + 2j], "index_weighted must be one of"),
])
def test_missing_or_unknown_verdicts_get_a_hint(kinds, hint):
    feedback = nb01.check_symmetries(*kinds)
    assert not feedback.ok and hint in feedback.message


def _P_by_loop():
    P = np.zeros((4, 4))
    for i, j in enumerate(nb01.PERM):
        P[i, j] = 1  # row i picks token perm[i]
    return P


@pytest.mark.parametrize("P", [
    solutions.P_hand,
    solutions.P_hand.tolist(),
    solutions.P_hand.astype(np.float32),
    _P_by_loop(),
    np.eye(4)[nb01.PERM],
], ids=["solution", "list", "float32", "loop", "rows of the identity"])
def test_right_P_passes_in_any_form(P):
    assert nb01.check_permutation_matrix(P).ok
    X = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(np.asarray(P) @ X, X[nb01.PERM])


@pytest.mark.parametrize(("P", "hint"), [
    (..., "replace the ..."),
    (np.eye(3), "shape (4, 4)"),
    (np.ones((4, 4)), "exactly one 1"),
    (pa.permutation_matrix(nb01.PERM).T, "transpose"),  # the inverse order
    (pa.permutation_matrix(pa.inverse_permutation(nb01.PERM)), "transpose"),
    (np.eye(4), "column perm[i]"),
    (np.eye(4)[[1, 3, 0, 0]], "exactly one 1"),  # a duplicate: token 0 twice, token 2 never
    (np.eye(4)[[3, 1, 0, 2]], "column perm[i]"),  # two entries of perm swapped
    ("P", "must be an array of numbers"),
    (np.full((4, 4), np.nan), "NaN"),
])
def test_wrong_P_gets_a_specific_hint(P, hint):
    feedback = nb01.check_permutation_matrix(P)
    assert not feedback.ok and hint in feedback.message


def _plus_the_others_by_loop(X):
    return np.array([x + sum(X) for x in X])  # each token plus the sum of all, row by row


@pytest.mark.parametrize("f", [
    solutions.my_f,
    lambda X: np.tanh(X @ W) + X.mean(axis=0),  # issue 18: with the notebook's 8 × 8 W
    lambda X: pa.self_attention(X, W_Q, W_K, W_V)[0],  # issue 18: (n, 4) from (n, 8)
    lambda X: (X + X.mean(axis=0)).astype(np.float32),
    _plus_the_others_by_loop,
    lambda X: (X + X.cumsum(axis=0)[-1]).tolist(),  # the sum, read off a cumulative sum; a list
], ids=["solution", "tanh(XW) + mean", "self-attention", "float32", "loop", "list"])
def test_right_mixing_functions_pass_on_the_notebooks_shapes(f):
    feedback = nb01.check_mixing_equivariant(f)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize(("f", "hint"), [
    (lambda X: ..., "returns nothing yet"),
    (lambda X: np.cumsum(X, axis=0), "neither"),
    (lambda X: X - X[0], "neither"),  # "minus the first token": first is a position
    (lambda X: X + X.sum(axis=0)[::-1] * np.arange(len(X))[:, None], "neither"),
    (lambda X: X.sum(axis=0), "one row per token"),
    (lambda X: np.tile(X.mean(axis=0), (len(X), 1)), "invariant"),  # rows, but not a token's
    (lambda X: 2 * X, "ignores the other tokens"),
    (lambda X: pa.self_attention(X, W_Q, W_K, W_V), "returns 2 things"),  # (Y, A)
    (lambda X: 1 / 0, "ZeroDivisionError"),
    (lambda X: "X", "must be an array of numbers"),
    ("X + 1", "must be a function"),
])
def test_non_mixing_or_non_equivariant_functions_get_a_hint(f, hint):
    feedback = nb01.check_mixing_equivariant(f)
    assert not feedback.ok and hint in feedback.message


# Issue 29: side effects and true hints

def test_a_mixing_function_written_in_place_is_told_it_changes_its_input():
    def f(X):
        X += X.mean(axis=0)
        return X

    feedback = nb01.check_mixing_equivariant(f)
    assert not feedback.ok and "changes its input X in place" in feedback.message
    assert "neither" not in feedback.message  # the old, false verdict


def test_every_row_the_mean_row_is_told_the_truth():
    feedback = nb01.check_mixing_equivariant(lambda X: np.tile(X.mean(0), (len(X), 1)))
    assert not feedback.ok and "every row of my_f(X) is the same vector" in feedback.message
    assert "should equal my_f(X)[perm]" not in feedback.message  # which it does


def test_the_suggested_experiment_can_tell_reversed_rows_is_not_equivariant():
    """01 ex1 suggests pa.equivariance_error(…, X, [1, 2, 0]): there reversed_rows shows."""
    X = pa.embed(pa.tokenize("dog bites man"))
    assert pa.equivariance_error(nb01.FUNCTIONS["reversed_rows"], X, [1, 2, 0]) > 0.1
    assert pa.equivariance_error(nb01.FUNCTIONS["reversed_rows"], X, [2, 1, 0]) == 0.0
    cell = next(c for c in _cells() if "### Exercise 1: classify" in c)
    assert "[1, 2, 0]" in cell and "several orders" in cell


def _cells():
    import json
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "notebooks" / \
        "01_invariance_vs_equivariance.ipynb"
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]

"""The checkers of notebook 01 accept the solutions and answer wrong ones with a hint."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb01
from solutions import nb01_solutions as solutions

KINDS = [getattr(solutions, name) for name in nb01.FUNCTIONS]


def test_verdict_agrees_with_the_definitions_on_known_functions():
    assert nb01.verdict(lambda X: X.mean(axis=0)) == "invariant"
    assert nb01.verdict(np.tanh) == "equivariant"
    assert nb01.verdict(lambda X: np.maximum.accumulate(X, axis=0)) == "neither"


def test_solution_classifications_pass_and_a_single_wrong_one_is_named():
    assert nb01.check_symmetries(*KINDS).ok
    wrong = list(KINDS)
    wrong[2] = "equivariant"  # reversed_rows
    feedback = nb01.check_symmetries(*wrong)
    assert not feedback.ok and "reversed_rows" in feedback.message and "4 of 5" in feedback.message


@pytest.mark.parametrize(("kinds", "hint"), [
    (KINDS[:4], "each of the 5 functions"),
    ([*KINDS[:4], "equivalent"], "index_weighted must be one of"),
    ([*KINDS[:4], ...], "replace the ..."),
    ([*KINDS[:4], 1 + 2j], "index_weighted must be one of"),
])
def test_missing_or_unknown_verdicts_get_a_hint(kinds, hint):
    feedback = nb01.check_symmetries(*kinds)
    assert not feedback.ok and hint in feedback.message


def test_solution_P_passes_and_reorders_like_indexing():
    assert nb01.check_permutation_matrix(solutions.P_hand).ok
    X = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(solutions.P_hand @ X, X[nb01.PERM])


@pytest.mark.parametrize(("P", "hint"), [
    (..., "replace the ..."),
    (np.eye(3), "shape (4, 4)"),
    (np.ones((4, 4)), "exactly one 1"),
    (pa.permutation_matrix(nb01.PERM).T, "transpose"),
    (np.eye(4), "column perm[i]"),
    ("P", "must be an array of numbers"),
    (np.full((4, 4), np.nan), "NaN"),
])
def test_wrong_P_gets_a_specific_hint(P, hint):
    feedback = nb01.check_permutation_matrix(P)
    assert not feedback.ok and hint in feedback.message


def test_solution_mixing_function_passes():
    assert nb01.check_mixing_equivariant(solutions.my_f).ok


@pytest.mark.parametrize(("f", "hint"), [
    (lambda X: ..., "returns nothing yet"),
    (lambda X: np.cumsum(X, axis=0), "neither"),
    (lambda X: X + X.sum(axis=0)[::-1] * np.arange(len(X))[:, None], "neither"),
    (lambda X: X.sum(axis=0), "shape of X"),
    (lambda X: 2 * X, "ignores the other tokens"),
    (lambda X: 1 / 0, "ZeroDivisionError"),
    (lambda X: "X", "must be an array of numbers"),
    ("X + 1", "must be a function"),
])
def test_non_mixing_or_non_equivariant_functions_get_a_hint(f, hint):
    feedback = nb01.check_mixing_equivariant(f)
    assert not feedback.ok and hint in feedback.message

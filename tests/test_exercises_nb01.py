"""The checkers of notebook 01 accept the solutions and reject wrong or missing answers."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb01
from solutions import nb01_solutions as solutions


def test_verdict_agrees_with_the_definitions_on_known_functions():
    assert nb01.verdict(lambda X: X.mean(axis=0)) == "invariant"
    assert nb01.verdict(lambda X: np.tanh(X)) == "equivariant"
    assert nb01.verdict(lambda X: np.maximum.accumulate(X, axis=0)) == "neither"


def test_solution_classifications_pass_and_a_single_wrong_one_is_named():
    assert nb01.check_symmetries(solutions.ANSWERS).ok
    wrong = dict(solutions.ANSWERS, reversed_rows="equivariant")
    feedback = nb01.check_symmetries(wrong)
    assert not feedback.ok and "reversed_rows" in feedback.message and "4 of 5" in feedback.message


@pytest.mark.parametrize("answers", [{name: ... for name in nb01.FUNCTIONS}, {}, "invariant"])
def test_placeholder_or_malformed_classifications_are_not_yet(answers):
    assert repr(nb01.check_symmetries(answers)).startswith("❌ Not yet")


def test_unknown_verdict_word_is_rejected():
    feedback = nb01.check_symmetries(dict(solutions.ANSWERS, centred="equivalent"))
    assert not feedback.ok and "centred='equivalent'" in feedback.message


def test_solution_P_passes_and_reorders_like_indexing():
    assert nb01.check_permutation_matrix(solutions.P).ok
    X = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(solutions.P @ X, X[nb01.PERM])


@pytest.mark.parametrize(
    ("P", "hint"),
    [
        (..., "replace the ..."),
        (np.eye(3), "shape (4, 4)"),
        (np.ones((4, 4)), "exactly one 1"),
        (pa.permutation_matrix(nb01.PERM).T, "transpose"),
        (np.eye(4), "column perm[i]"),
    ],
)
def test_wrong_P_gets_a_specific_hint(P, hint):
    feedback = nb01.check_permutation_matrix(P)
    assert not feedback.ok and hint in feedback.message


def test_solution_mixing_function_passes():
    assert nb01.check_mixing_equivariant(solutions.my_f).ok


@pytest.mark.parametrize(
    ("f", "hint"),
    [
        (lambda X: ..., "replace the ..."),
        (lambda X: np.cumsum(X, axis=0), "neither"),
        (lambda X: X.sum(axis=0), "invariant"),
        (lambda X: 2 * X, "ignores the other tokens"),
        ("X + 1", "function of X"),
    ],
)
def test_non_mixing_or_non_equivariant_functions_are_not_yet(f, hint):
    feedback = nb01.check_mixing_equivariant(f)
    assert not feedback.ok and hint in feedback.message

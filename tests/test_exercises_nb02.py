"""The checkers of notebook 02 accept the solutions and answer wrong ones with a hint."""

import numpy as np
import pytest

from posattn.exercises import nb02
from solutions import nb02_solutions as solutions


def test_exercise_data_are_attention_weights_and_a_triangle_of_values():
    assert (nb02.A >= 0).all() and np.allclose(nb02.A.sum(axis=1), 1.0)
    # values not on one line: weights that sum to 1 are fixed by y, so exercise 2 has one answer
    assert abs(np.linalg.det(np.column_stack([nb02.V, np.ones(3)]))) > 0.1


def test_solution_y1_passes_and_equals_row_1_of_AV():
    assert nb02.check_y1(solutions.y_1).ok
    np.testing.assert_allclose(solutions.y_1, (nb02.A @ nb02.V)[1])


@pytest.mark.parametrize(("y_1", "hint"), [
    (..., "replace the ..."),
    ([1.0, 2.0, 3.0], "shape (2,)"),
    ("abc", "must be an array of numbers"),
    ([np.nan, 1.0], "NaN"),
    ((nb02.A.T @ nb02.V)[1], "column 1"),
    ((nb02.A @ nb02.V)[0], "row 1 of A"),
])
def test_wrong_y1_gets_a_specific_hint(y_1, hint):
    feedback = nb02.check_y1(y_1)
    assert not feedback.ok and hint in feedback.message


def test_solution_reordered_weights_pass_and_give_the_same_y0():
    assert nb02.check_reordered_weights(solutions.alpha_new).ok
    np.testing.assert_allclose(solutions.alpha_new @ nb02.V[nb02.PERM], nb02.A[0] @ nb02.V)


@pytest.mark.parametrize(("alpha_new", "hint"), [
    (nb02.A[0], "keep its own weight"),  # not moved
    (nb02.A[0][[1, 2, 0]], "keep its own weight"),  # moved the wrong way
    ([0.0, 0.0, 1.5], "sum to 1"),
    ([-0.1, 0.1, 1.0], "≥ 0"),
    ([0.5, 0.5], "shape (3,)"),
])
def test_unmoved_or_wrongly_moved_weights_get_a_hint(alpha_new, hint):
    feedback = nb02.check_reordered_weights(alpha_new)
    assert not feedback.ok and hint in feedback.message


def test_solution_position_weights_pass_and_see_the_order():
    assert nb02.check_position_weights(solutions.position_weights).ok
    W = solutions.position_weights(3)
    assert not np.allclose((W @ nb02.V)[0], (W @ nb02.V[::-1])[2])  # dog's output moved


@pytest.mark.parametrize(("f", "hint"), [
    (np.eye, "same in both orders"),  # each token keeps its own value
    (lambda n: np.full((n, n), 1 / n), "same in both orders"),  # everyone gets the mean
    (lambda n: np.ones((n, n)), "sum to 1"),
    (lambda n: np.eye(3), "shape (5, 5)"),
    (lambda n: -np.eye(n), "≥ 0"),
    (lambda n: ..., "returns nothing yet"),
    (lambda n: n / 0, "ZeroDivisionError"),
    ("np.eye(n)", "must be a function"),
])
def test_position_blind_or_malformed_weights_get_a_hint(f, hint):
    feedback = nb02.check_position_weights(f)
    assert not feedback.ok and hint in feedback.message

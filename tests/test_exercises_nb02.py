"""The checkers of notebook 02 accept the solutions and reject wrong or missing answers."""

import numpy as np
import pytest

from posattn.exercises import nb02
from solutions import nb02_solutions as solutions


def test_exercise_data_are_attention_weights_and_a_triangle_of_values():
    assert (nb02.A >= 0).all() and np.allclose(nb02.A.sum(axis=1), 1.0)
    # values not on one line: weights that sum to 1 are fixed by y, so exercise 3 has exactly one answer
    assert abs(np.linalg.det(np.column_stack([nb02.V, np.ones(3)]))) > 0.1


def test_solution_y1_passes_and_equals_row_1_of_AV():
    assert nb02.check_y1(solutions.y_1).ok
    np.testing.assert_allclose(solutions.y_1, (nb02.A @ nb02.V)[1])


@pytest.mark.parametrize(
    ("y_1", "hint"),
    [
        (..., "replace the ..."),
        ([1.0, 2.0, 3.0], "shape (2,)"),
        ("abc", "list or array"),
        ((nb02.A.T @ nb02.V)[1], "column 1"),
        ((nb02.A @ nb02.V)[0], "row 1 of A"),
    ],
)
def test_wrong_y1_gets_a_specific_hint(y_1, hint):
    feedback = nb02.check_y1(y_1)
    assert not feedback.ok and hint in feedback.message


def test_solution_dominant_weights_pass():
    assert nb02.check_dominant(solutions.alpha).ok


@pytest.mark.parametrize(
    ("alpha", "hint"),
    [
        (..., "replace the ..."),
        ([0.0, 0.0, 1.5], "sum to 1"),
        ([-0.1, 0.1, 1.0], "≥ 0"),
        ([1 / 3, 1 / 3, 1 / 3], "within 0.1"),
        ([0.96, 0.02, 0.02], "within 0.1"),  # dominant, but on the wrong token
    ],
)
def test_weights_far_from_the_target_value_are_not_yet(alpha, hint):
    feedback = nb02.check_dominant(alpha)
    assert not feedback.ok and hint in feedback.message


def test_solution_reordered_weights_pass_and_give_the_same_y0():
    assert nb02.check_reordered_weights(solutions.alpha_new).ok
    np.testing.assert_allclose(solutions.alpha_new @ nb02.V[nb02.PERM], nb02.A[0] @ nb02.V)


@pytest.mark.parametrize("alpha_new", [..., nb02.A[0], nb02.A[0][[1, 2, 0]]])
def test_unmoved_or_wrongly_moved_weights_are_not_yet(alpha_new):
    assert repr(nb02.check_reordered_weights(alpha_new)).startswith("❌ Not yet")

"""The checkers of notebook 02 accept right answers in any form and name the usual mistakes."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb02
from solutions import nb02_solutions as solutions

A, V, PERM = nb02.A, nb02.V, nb02.PERM
A32, V32 = A.astype(np.float32), V.astype(np.float32)


def test_exercise_data_are_attention_weights_and_a_triangle_of_values():
    assert (A >= 0).all() and np.allclose(A.sum(axis=1), 1.0)
    # values not on one line: weights that sum to 1 are fixed by y, so exercise 2 has one answer
    assert abs(np.linalg.det(np.column_stack([V, np.ones(3)]))) > 0.1


def _y1_by_loop():
    y = np.zeros(2)
    for j in range(3):
        y += A[1, j] * V[j]  # α_1j v_j, one term at a time
    return y


@pytest.mark.parametrize("y_1", [
    solutions.y_1,
    [2.2, 2.9],
    (A @ V)[1],
    A32[1, 0] * V32[0] + A32[1, 1] * V32[1] + A32[1, 2] * V32[2],  # issue 18: float32
    (A32 @ V32)[1],
    _y1_by_loop(),
    V.T @ A[1],
], ids=["solution", "list", "matrix product", "float32 terms", "float32 product", "loop",
        "Vᵀ α_1"])
def test_right_y1_passes_in_any_form(y_1):
    feedback = nb02.check_y1(y_1)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize(("y_1", "hint"), [
    (..., "replace the ..."),
    ([1.0, 2.0, 3.0], "shape (2,)"),
    ("abc", "must be an array of numbers"),
    ([np.nan, 1.0], "NaN"),
    ((A.T @ V)[1], "column 1"),  # the transpose of A
    ((A @ V)[0], "that is y_0"),  # the wrong row
    ((A @ V)[2], "that is y_2"),
    (V.mean(axis=0), "plain mean"),  # weights forgotten
    (A[1] @ V[::-1], "not y_1 yet"),  # values in the wrong order
])
def test_wrong_y1_gets_a_specific_hint(y_1, hint):
    feedback = nb02.check_y1(y_1)
    assert not feedback.ok and hint in feedback.message


def test_the_hint_for_y1_does_not_give_the_answer_away():
    message = nb02.check_y1(A[1] @ V[::-1]).message
    assert "2.2" not in message and "α_10·v_0" not in message


@pytest.mark.parametrize("alpha_new", [
    solutions.alpha_new,
    [0.1, 0.6, 0.3],
    A[0][PERM],
    A32[0][PERM],  # issue 18: float32
    np.array([0.1, 0.6, 0.3], dtype=np.float32),
    pa.permutation_matrix(PERM) @ A[0],
], ids=["solution", "list", "indexed", "float32 indexed", "float32 list", "P α"])
def test_right_reordered_weights_pass_in_any_form(alpha_new):
    feedback = nb02.check_reordered_weights(alpha_new)
    assert feedback.ok, feedback.message
    np.testing.assert_allclose(np.asarray(alpha_new) @ V[PERM], A[0] @ V, rtol=1e-6)


@pytest.mark.parametrize(("alpha_new", "hint"), [
    (A[0], "old weights in the old order"),  # not moved
    (A[0][pa.inverse_permutation(PERM)], "inverse permutation"),  # moved the wrong way
    (A[1][PERM], "weights of 'bites'"),  # another token's row
    (A[2][PERM], "weights of 'man'"),
    (A[:, 0] / A[:, 0].sum(), "keep its own weight"),  # a column, renormalised
    ([0.0, 0.0, 1.5], "sum to 1"),
    ([-0.1, 0.1, 1.0], "≥ 0"),
    ([0.5, 0.5], "shape (3,)"),
])
def test_unmoved_or_wrongly_moved_weights_get_a_hint(alpha_new, hint):
    feedback = nb02.check_reordered_weights(alpha_new)
    assert not feedback.ok and hint in feedback.message


def _left_neighbour_by_loop(n):
    W = np.zeros((n, n))
    for i in range(n):
        W[i, max(i - 1, 0)] = 1.0  # the left neighbour's value (the first token keeps its own)
    return W


@pytest.mark.parametrize("f", [
    solutions.position_weights,
    lambda n: np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None],  # the cumulative mean
    lambda n: (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]).astype(np.float32),
    _left_neighbour_by_loop,
    lambda n: np.eye(n)[[0] * n].tolist(),  # everyone reads the first word, as a list
], ids=["solution", "cumulative mean", "float32", "loop", "first word, as a list"])
def test_right_position_weights_pass_in_any_form(f):
    feedback = nb02.check_position_weights(f)
    assert feedback.ok, feedback.message


def test_the_right_message_calls_only_offset_weights_a_convolution():
    message = nb02.check_position_weights(solutions.position_weights).message
    assert "i − j alone" in message


@pytest.mark.parametrize(("f", "hint"), [
    (np.eye, "same in both orders"),  # each token keeps its own value
    (lambda n: np.full((n, n), 1 / n), "same in both orders"),  # everyone gets the mean
    (lambda n: np.eye(n)[::-1], "from its reverse"),  # the mirror is blind to this very swap
    (lambda n: np.ones((n, n)), "sum to 1"),  # a missing normalisation
    (lambda n: np.tril(np.ones((n, n))), "sum to 1"),  # the cumulative sum, not the mean
    (lambda n: np.eye(3), "shape (5, 5)"),
    (lambda n: -np.eye(n), "≥ 0"),
    (lambda n: ..., "returns nothing yet"),
    (lambda n: n / 0, "ZeroDivisionError"),
    ("np.eye(n)", "must be a function"),
])
def test_position_blind_or_malformed_weights_get_a_hint(f, hint):
    feedback = nb02.check_position_weights(f)
    assert not feedback.ok and hint in feedback.message


# Issue 29: the three terms, and the checker's own data

def test_the_three_terms_instead_of_their_sum_get_a_hint_that_says_so():
    terms = nb02.A[1][:, None] * nb02.V  # (3, 2): α_1j v_j, one per row
    feedback = nb02.check_y1(terms)
    assert not feedback.ok and "their sum" in feedback.message


def test_the_checkers_data_is_read_only():
    for array in (nb02.A, nb02.V, nb02.PERM):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    assert nb02.check_reordered_weights([0.1, 0.6, 0.3]).ok

"""Notebook 06 (the whole Transformer): the checkers accept the solutions, reject the rest."""

import numpy as np
import pytest

from posattn.exercises import nb06
from solutions import nb06_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb06.check_layer_norm(SOL.my_layer_norm).ok
    assert nb06.check_breaking_change(SOL.breaking_change).ok
    assert nb06.check_set_vector(SOL.set_vector).ok


@pytest.mark.parametrize(("answer", "message"), [
    (lambda X: (X - X.mean(axis=0)) / X.std(axis=0), "columns have mean 0"),
    (lambda X: X - 1.0, "should have mean 0"),
    (lambda X: X - X.mean(axis=1, keepdims=True), "wrong spread"),
    (lambda X: (X - X.mean(axis=1, keepdims=True))[:, :2], "shape (5, 6)"),
])
def test_wrong_layer_norms_get_a_hint(answer, message):
    feedback = nb06.check_layer_norm(answer)
    assert not feedback.ok and message in feedback.message, feedback


@pytest.mark.parametrize(("answer", "message"), [
    ("a", "GELU"), (" B ", "more heads"), ("c", "a mean is invariant"), ("d", "P M Pᵀ = M"),
    ("f", "it is invariant"), ("g", "must be one of"),
])
def test_each_wrong_change_gets_its_reason(answer, message):
    feedback = nb06.check_breaking_change(answer)
    assert not feedback.ok and message in feedback.message, feedback


@pytest.mark.parametrize(("answer", "message"), [
    (lambda P: P[0], "another order"),
    (lambda P: np.ones(3), "did not change"),
    (lambda P: P.mean(axis=0), "same mean and size"),
    (lambda P: P.sum(axis=0, keepdims=True), "one vector"),
])
def test_wrong_set_functions_get_a_hint(answer, message):
    feedback = nb06.check_set_vector(answer)
    assert not feedback.ok and message in feedback.message, feedback


def test_an_invariant_set_function_other_than_the_solution_is_right():
    assert nb06.check_set_vector(lambda P: (P ** 2).sum(axis=0)).ok

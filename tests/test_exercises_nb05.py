"""The notebook 05 checkers accept the solutions and reject wrong answers."""

import numpy as np
import pytest

from posattn.exercises import nb05
from solutions import nb05_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb05.check_put_back(SOL.put_back).ok
    assert nb05.check_alibi_blind_order(SOL.alibi_blind_order).ok


@pytest.mark.parametrize(("f", "message"), [
    (lambda A, perm: A[perm][:, perm], "once more in the shuffled direction"),
    (lambda A, perm: A[np.argsort(perm)], "not A"),
    (lambda A, perm: A, "not A"),
    (lambda A, perm: ..., "returns nothing yet"),
    (lambda A, perm: A[:2], "must have shape"),
    ("Pᵀ A' P", "must be a function"),
])
def test_wrong_put_back_gets_not_yet(f, message):
    feedback = nb05.check_put_back(f)
    assert not feedback.ok and message in feedback.message


@pytest.mark.parametrize(("perm", "message"), [
    ([0, 1, 2, 3], "original order"),
    ([1, 0, 2, 3], "ALiBi sees this order"),
    ([3, 0, 1, 2], "ALiBi sees this order"),
    ([0, 0, 1, 2], "repeated: 0"),
    ([2, 1, 0], "permutation of range(4)"),
])
def test_wrong_alibi_order_gets_not_yet(perm, message):
    feedback = nb05.check_alibi_blind_order(perm)
    assert not feedback.ok and message in feedback.message

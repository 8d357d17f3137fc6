"""The notebook 08 checkers accept the solutions and reject wrong answers."""


import numpy as np
import pytest

from posattn.exercises import nb08
from solutions import nb08_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb08.check_alibi_blind_spot(SOL.alibi_blind_spot).ok
    assert nb08.check_rope_partner(SOL.rope_partner).ok
    assert nb08.check_shift_matrix(SOL.shift_matrix()).ok


@pytest.mark.parametrize(
    ("perm", "message"),
    [([0, 1, 2], "identity"), ([1, 0, 2], "ALiBi notices it"), ([0, 0, 1], "must be a permutation of range(3)")],
)
def test_wrong_blind_spots_get_not_yet(perm, message):
    feedback = nb08.check_alibi_blind_spot(perm)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(("j", "message"), [(8, "sign of the offset"), (3, "i − j only"), ("zero", "must be a number")])
def test_wrong_rope_partners_get_not_yet(j, message):
    feedback = nb08.check_rope_partner(j)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(
    ("M", "message"),
    [(SOL.shift_matrix().T, "transpose"), (np.eye(2), "angle-addition"), (np.eye(3), "shape (2, 2)")],
)
def test_wrong_shift_matrices_get_not_yet(M, message):
    feedback = nb08.check_shift_matrix(M)
    assert not feedback.ok
    assert message in feedback.message

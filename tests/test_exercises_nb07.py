"""The notebook 07 checkers accept the solutions and reject wrong answers."""


import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb07
from solutions import nb07_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb07.check_rnn_rows(SOL.rnn_rows).ok
    assert nb07.check_conv_rows(SOL.conv_rows).ok
    assert nb07.check_equivariant_kernel(SOL.equivariant_kernel()).ok


@pytest.mark.parametrize(("answer", "message"), [([0, 1, 2, 3, 4, 5, 6], "h_0"), ([1], "h_2"), ("one", "whole numbers")])
def test_wrong_rnn_rows_get_not_yet(answer, message):
    feedback = nb07.check_rnn_rows(answer)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(("answer", "message"), [([4], "neighbours"), ([4, 5, 6], "for which t"), ([2, 3, 4, 5], "for which t")])
def test_wrong_conv_rows_get_not_yet(answer, message):
    feedback = nb07.check_conv_rows(answer)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(
    ("kernel", "message"),
    [(pa.conv_kernel(), "neighbours still leak"), (np.zeros((3, 8, 4)), "all-zero"), (np.ones((8, 4)), "shape (3, 8, 4)")],
)
def test_wrong_kernels_get_not_yet(kernel, message):
    feedback = nb07.check_equivariant_kernel(kernel)
    assert not feedback.ok
    assert message in feedback.message

"""The notebook 07 checkers accept the solutions and say "Not yet" with a hint to anything else."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb07
from solutions import nb07_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb07.check_edge_rows(SOL.edge_rows).ok
    assert nb07.check_layers_needed(SOL.layers_needed).ok
    assert nb07.check_equivariant_kernel(SOL.my_kernel).ok


def test_the_answers_are_the_measured_ones():
    # the literal answers, not the checkers' own recipe: two layers widen the edge by a row each
    assert nb07.check_edge_rows({8, 7, 1, 0}).ok
    assert nb07.check_layers_needed(12.0).ok


@pytest.mark.parametrize(("answer", "hint"), [
    ([0, 8], "one layer"), ([0, 1, 4, 7, 8], "middle row itself"),
    ([0, 1, 2, 6, 7, 8], "widen by one row"), ([0.5, 1], "whole numbers"),
])
def test_wrong_edge_rows_get_a_hint(answer, hint):
    feedback = nb07.check_edge_rows(answer)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("answer", "hint"), [
    (24, "width-3 window"), (6, "not 4"), (13, "How many rows apart"), ([12, 12], "shape ()"),
])
def test_wrong_layer_counts_get_a_hint(answer, hint):
    feedback = nb07.check_layers_needed(answer)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("kernel", "hint"), [(pa.conv_kernel(), "neighbours still leak"),
                                              (np.zeros((3, 8, 4)), "all-zero"),
                                              (np.ones((8, 4)), "shape (3, 8, 4)")])
def test_wrong_kernels_get_a_hint(kernel, hint):
    feedback = nb07.check_equivariant_kernel(kernel)
    assert not feedback.ok and hint in feedback.message

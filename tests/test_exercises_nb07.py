"""The notebook 07 checkers accept the solutions and say "Not yet" with a hint to anything else.

Every checker: at least three right answers in different forms, and the plausible mistakes,
each with a hint that names it.
"""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb07
from solutions import nb07_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb07.check_edge_rows(SOL.edge_rows).ok
    assert nb07.check_layers_needed(SOL.layers_needed).ok
    assert nb07.check_equivariant_kernel(SOL.my_kernel).ok


def _measured_edge_rows():  # the two stacked convolutions of the exercise, run
    kernel = pa.conv_kernel(width=3, d=8, d_out=8)  # (3, 8, 8), so that layers stack
    Y = pa.conv1d(pa.conv1d(pa.embed(["the"] * 9), kernel), kernel)  # (9, 8)
    return [t for t in range(9) if np.abs(Y[t] - Y[4]).max() > 1e-12]


@pytest.mark.parametrize("answer", [
    [0, 1, 7, 8], {8, 7, 1, 0}, (0, 1, 7, 8), np.array([8, 1, 7, 0]),
    np.array([0.0, 1.0, 7.0, 8.0], dtype=np.float32), _measured_edge_rows(),
])
def test_edge_rows_are_right_in_any_form(answer):
    assert nb07.check_edge_rows(answer).ok


@pytest.mark.parametrize(("answer", "hint"), [
    ([0, 8], "one layer"), ([0, 1, 4, 7, 8], "middle row itself"),
    ([1, 7], "not alone"), ([0, 1, 8], "mirror images"),
    ([0, 1, 2, 6, 7, 8], "3 layers would give"), ([1, 2, 8, 9], "from 0 to 8"),
    ([0.5, 1], "whole numbers"), ([0, 2, 6, 8], "widen by one row"),
])
def test_wrong_edge_rows_get_a_hint(answer, hint):
    feedback = nb07.check_edge_rows(answer)
    assert not feedback.ok and hint in feedback.message


def _layers_by_loop():  # stack width-5 reaches until output 24 reaches word 0
    reach, layers = 24, 0
    while reach > 0:
        reach, layers = reach - 2, layers + 1
    return layers


@pytest.mark.parametrize("answer", [12, 12.0, np.float32(12), np.int64(12), (25 - 1) // (5 // 2),
                                    _layers_by_loop()])
def test_layers_needed_are_right_in_any_form(answer):
    assert nb07.check_layers_needed(answer).ok


@pytest.mark.parametrize(("answer", "hint"), [
    (24, "width-3 window"), (6, "not 4"), (5, "hides a constant"), (13, "one layer too many"),
    (12.5, "24 rows apart, not 25"), (11.5, "whole numbers"), (11, "How many rows apart"),
    ([12, 12], "shape ()"),
])
def test_wrong_layer_counts_get_a_hint(answer, hint):
    feedback = nb07.check_layers_needed(answer)
    assert not feedback.ok and hint in feedback.message


KEEP = np.array([0.0, 1.0, 0.0])[:, None, None]  # (3, 1, 1): keep W_0, drop both neighbours


@pytest.mark.parametrize("kernel", [
    pa.conv_kernel() * KEEP,
    (pa.conv_kernel() * KEEP).astype(np.float32),
    np.stack([np.zeros((8, 4)), np.ones((8, 4)), np.zeros((8, 4))]),
    (pa.conv_kernel() * KEEP).tolist(),
    1e6 * pa.conv_kernel(seed=3) * KEEP,  # any W_0, at any scale
])
def test_equivariant_kernels_are_right_in_any_form(kernel):
    assert nb07.check_equivariant_kernel(kernel).ok


@pytest.mark.parametrize(("kernel", "hint"), [
    (pa.conv_kernel(), "which offsets must be all zeros"),
    (pa.conv_kernel() * (1 - KEEP), "the middle matrix"),  # the neighbours kept, W_0 dropped
    (pa.conv_kernel() * [[[0.0]], [[1.0]], [[1.0]]], "right, W_+1"),
    (pa.conv_kernel() * [[[1.0]], [[0.0]], [[0.0]]], "the middle matrix"),  # a shift
    (pa.conv_kernel() * [[[1.0]], [[1.0]], [[0.0]]], "left, W_−1"),
    (np.zeros((3, 8, 4)), "all-zero"),
    (np.ones((8, 4)), "shape (3, 8, 4)"),
    (np.transpose(pa.conv_kernel() * KEEP, (0, 2, 1)), "shape (3, 8, 4)"),
])
def test_wrong_kernels_get_a_hint(kernel, hint):
    feedback = nb07.check_equivariant_kernel(kernel)
    assert not feedback.ok and hint in feedback.message

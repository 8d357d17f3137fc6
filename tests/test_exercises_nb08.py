"""The notebook 08 checkers accept the solutions and say "Not yet" with a hint to anything else."""

import numpy as np
import pytest

from posattn.exercises import nb08
from solutions import nb08_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb08.check_alibi_causal(SOL.alibi_causal).ok
    assert nb08.check_rope_partner(SOL.rope_partner).ok
    assert nb08.check_shift_matrix(SOL.M_1).ok


def test_the_paper_bias_is_right_written_out_by_hand():
    def by_hand(n, m):  # the n = 3 pattern spelled out, for every n
        return [[-m * (i - j) if j <= i else -np.inf for j in range(n)] for i in range(n)]
    assert nb08.check_alibi_causal(by_hand).ok


def _indices(n):
    return np.indices((n, n))


@pytest.mark.parametrize(("f", "hint"), [
    (lambda n, m: -m * np.abs(_indices(n)[0] - _indices(n)[1]), "symmetric variant"),
    (lambda n, m: -SOL.alibi_causal(n, m), "sign is flipped"),
    (lambda n, m: np.where(np.tri(n, dtype=bool), SOL.alibi_causal(n, m), 0.0), "must be masked"),
    (lambda n, m: SOL.alibi_causal(n, m).T, "above the diagonal"),
    (lambda n, m: SOL.alibi_causal(n, 0.5), "should be −m·(i − j)"),
    (lambda n, m: SOL.alibi_causal(n + 1, m), "shape"),
    (lambda n, m: np.full((n, n), np.nan), "NaN"),
    (lambda n, m: 1 / 0, "raised ZeroDivisionError"),
])
def test_wrong_alibi_biases_get_a_hint(f, hint):
    feedback = nb08.check_alibi_causal(f)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("j", "hint"), [(8, "sign of the offset"), (3, "i − j only"),
                                         ("zero", "must be an array of numbers")])
def test_wrong_rope_partners_get_a_hint(j, hint):
    feedback = nb08.check_rope_partner(j)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("M", "hint"), [(SOL.M_1.T, "transpose"), (np.eye(2), "angle-addition"),
                                         (np.eye(3), "shape (2, 2)")])
def test_wrong_shift_matrices_get_a_hint(M, hint):
    feedback = nb08.check_shift_matrix(M)
    assert not feedback.ok and hint in feedback.message

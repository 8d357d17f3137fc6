"""The notebook 08 checkers accept the solutions and say "Not yet" with a hint to anything else.

Every checker: at least three right answers in different forms, and the plausible mistakes,
each with a hint that names it.
"""

import re

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb08
from solutions import nb08_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb08.check_alibi_causal(SOL.alibi_causal).ok
    assert nb08.check_rope_partner(SOL.rope_partner).ok
    assert nb08.check_shift_matrix(SOL.M_1).ok
    assert nb08.check_symmetry_break(SOL.self_attention, SOL.symmetry_break).ok


def _indices(n):
    return np.indices((n, n))


def _by_hand(n, m):  # the n = 3 pattern spelled out, for every n: a list of lists
    return [[-m * (i - j) if j <= i else -np.inf for j in range(n)] for i in range(n)]


def _mask_added(n, m):  # the bias everywhere, then a mask of 0 / −inf added on top
    i, j = _indices(n)
    return -m * (i - j) + np.triu(np.full((n, n), -np.inf), 1)


def _from_the_package(n, m):
    return np.where(pa.causal_mask(n), pa.alibi_bias(n, m), -np.inf)


def _float32(n, m):
    return SOL.alibi_causal(n, m).astype(np.float32)


@pytest.mark.parametrize("f", [_by_hand, _mask_added, _from_the_package, _float32])
def test_the_paper_bias_is_right_in_any_form(f):
    assert nb08.check_alibi_causal(f).ok


def _large_negative(n, m):  # masks in a softmax, but the exercise asks for -np.inf
    return np.where(np.isneginf(SOL.alibi_causal(n, m)), -1e9, SOL.alibi_causal(n, m))


def _diagonal_masked(n, m):
    i, j = _indices(n)
    return np.where(j < i, -m * (i - j), -np.inf)


@pytest.mark.parametrize(("f", "hint"), [
    (lambda n, m: -m * np.abs(_indices(n)[0] - _indices(n)[1]), "symmetric variant"),
    (lambda n, m: -SOL.alibi_causal(n, m), "sign is flipped"),
    (lambda n, m: np.where(np.tri(n, dtype=bool), SOL.alibi_causal(n, m), 0.0), "must be masked"),
    (lambda n, m: SOL.alibi_causal(n, m).T, "above the diagonal"),
    (_large_negative, "large negative number"),
    (_diagonal_masked, "diagonal is masked too"),
    (lambda n, m: SOL.alibi_causal(n, 0.5), "should be −m·(i − j)"),
    (lambda n, m: SOL.alibi_causal(n + 1, m), "shape"),
    (lambda n, m: np.full((n, n), np.nan), "NaN"),
    (lambda n, m: 1 / 0, "raised ZeroDivisionError"),
])
def test_wrong_alibi_biases_get_a_hint(f, hint):
    feedback = nb08.check_alibi_causal(f)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize("j", [0, 0.0, np.float32(0.0), np.int64(0), 4 - (7 - 3), [0][0]])
def test_rope_partners_are_right_in_any_form(j):
    assert nb08.check_rope_partner(j).ok


@pytest.mark.parametrize(("j", "hint"), [
    (8, "sign of the offset"), (4, "not a position"), (3, "the key stayed at 3"),
    (7, "i − j only"), ("zero", "must be an array of numbers"), ([0, 0], "shape ()"),
])
def test_wrong_rope_partners_get_a_hint(j, hint):
    feedback = nb08.check_rope_partner(j)
    assert not feedback.ok and hint in feedback.message


def _fitted_shift():  # M_1 solved from the encodings themselves: E[p] @ M = E[p + 1]
    p = np.arange(6.0)
    E = np.stack([np.sin(p), np.cos(p)], axis=1)  # (6, 2)
    return np.linalg.lstsq(E[:-1], E[1:], rcond=None)[0]


@pytest.mark.parametrize("M", [
    SOL.M_1, SOL.M_1.astype(np.float32), SOL.M_1.tolist(), pa.sinusoidal_shift(1, 2),
    _fitted_shift(),
])
def test_shift_matrices_are_right_in_any_form(M):
    """float32 answers are right (issue 18: 08 ex3 refused them)."""
    assert nb08.check_shift_matrix(M).ok


@pytest.mark.parametrize(("M", "hint"), [
    (SOL.M_1.T, "transpose"),  # also the inverse rotation, and M for E_p = (cos p, sin p)
    (np.abs(SOL.M_1), "up to their signs"), (-SOL.M_1, "up to their signs"),
    (SOL.M_1[:, ::-1], "swapped"), (SOL.M_1[::-1], "swapped"),
    (np.eye(2), "angle-addition"), (pa.sinusoidal_shift(2, 2), "angle-addition"),
    (np.eye(3), "shape (2, 2)"),
])
def test_wrong_shift_matrices_get_a_hint(M, hint):
    feedback = nb08.check_shift_matrix(M)
    assert not feedback.ok and hint in feedback.message


# Exercise 4: the learner's own attention from 03, and its symmetry break

X4, W4 = pa.embed(pa.tokenize("the dog bites man")), pa.default_projections()
BACK = [3, 2, 1, 0]  # its own inverse: the checker also reads X turned by one, [1, 2, 3, 0]
MEASURED = (r"(read backwards|turned by one), (no mask, no bias|causal mask|symmetric ALiBi bias): "
            r"(below 1e-12|[\d.e-]+)")


def _break(f=SOL.self_attention, compare=lambda Y_p, Y, perm: np.abs(Y_p - Y[perm]).max(),
           mask_both=True, order=None):
    """symmetry_break as a learner might write it: compare(Y(PX), Y(X), perm) of the function f,
    with PX = X[perm] (or X[order], an order of its own, whatever it is given)."""
    def symmetry_break(perm, mask=None, bias=None):
        perm = perm if order is None else order
        Y = np.asarray(f(X4, *W4, mask=mask, bias=bias)[0])
        given = {"mask": mask, "bias": bias} if mask_both else {}
        Y_p = np.asarray(f(X4[perm], *W4, **given)[0])
        return compare(Y_p, Y, perm)
    return symmetry_break


def _loop_attention(X, W_Q, W_K, W_V, mask=None, bias=None):
    Y, A = SOL.self_attention(np.float32(X), np.float32(W_Q), np.float32(W_K), np.float32(W_V),
                              mask, bias)
    return Y.tolist(), A.tolist()


def _with_weights_too(perm, mask=None, bias=None):  # max over Y and A: a measure of the break too
    (Y, A), (Y_p, A_p) = (SOL.self_attention(X, *W4, mask=mask, bias=bias) for X in (X4, X4[perm]))
    return max(np.abs(Y_p - Y[perm]).max(), np.abs(A_p - A[perm][:, perm]).max())


def _by_matrix(perm, mask=None, bias=None):  # P as a matrix: PX = P @ X, P Y(X) = P @ Y(X)
    P = np.eye(4)[perm]
    Y, Y_p = (SOL.self_attention(X, *W4, mask=mask, bias=bias)[0] for X in (X4, P @ X4))
    return np.abs(Y_p - P @ Y).max()


def _undone(Y_p, Y, perm):  # P⁻¹ Y(PX) against Y(X): the same break, undone on the other side
    return float(np.max(np.abs(Y_p[np.argsort(perm)] - Y)))


@pytest.mark.parametrize(("attention", "symmetry_break"), [
    (SOL.self_attention, SOL.symmetry_break),
    (SOL.self_attention, _break()),
    (SOL.self_attention, _break(compare=_undone)),
    (_loop_attention, _break(_loop_attention)),
    (SOL.self_attention, _with_weights_too),
    (SOL.self_attention, _by_matrix),
], ids=["solution", "as written", "P⁻¹ Y(PX) vs Y(X)", "float32 lists", "Y and A", "P as a matrix"])
def test_own_symmetry_breaks_are_right_in_any_form(attention, symmetry_break):
    feedback = nb08.check_symmetry_break(attention, symmetry_break)
    assert feedback.ok, feedback.message
    found = {(order, case): shown for order, case, shown in re.findall(MEASURED, feedback.message)}

    def no_break(shown):  # float32 answers round near 1e-7, float64 ones below 1e-12
        return shown == "below 1e-12" or float(shown) < 1e-5

    for order in ("read backwards", "turned by one"):
        assert float(found[order, "causal mask"]) > 0.1, feedback.message  # the mask sees both
        assert no_break(found[order, "no mask, no bias"]), feedback.message
    symmetric = "symmetric ALiBi bias"  # reversal keeps every |i − j|, the turn does not
    assert no_break(found["read backwards", symmetric]), feedback.message
    assert float(found["turned by one", symmetric]) > 0.01, feedback.message


@pytest.mark.parametrize(("attention", "symmetry_break", "hint"), [
    (SOL.self_attention, _break(compare=lambda Y_p, Y, perm: np.abs(Y_p - Y).max()),
     "you compared Y(PX) with Y(X)"),
    (SOL.self_attention,
     _break(compare=lambda Y_p, Y, perm: np.abs(Y_p - Y[np.argsort(perm)]).max()),
     "Pᵀ instead of P"),
    (SOL.self_attention, _break(compare=lambda Y_p, Y, perm: np.abs(Y_p[perm] - Y).max()),
     "Pᵀ instead of P"),  # "undone" with P itself: P Y(PX) against Y(X)
    (SOL.self_attention, _break(order=BACK), "measured another order"),  # a reversal of its own
    (SOL.self_attention, _break(mask_both=False), "pass the mask and the bias on to both calls"),
    (SOL.self_attention, lambda perm, mask=None, bias=None: np.zeros(4),
     "symmetry_break([3, 2, 1, 0]) with no mask"),
    (SOL.self_attention, lambda mask=None, bias=None: 0.0, "symmetry_break raised TypeError"),
    (lambda X, W_Q, W_K, W_V: SOL.self_attention(X, W_Q, W_K, W_V), SOL.symmetry_break,
     "let it take a mask and a bias too"),
    (lambda X, W_Q, W_K, W_V, mask=None, bias=None: SOL.self_attention(X, W_Q, W_K, W_V),
     SOL.symmetry_break, "same as without the mask"),
    (SOL.self_attention, lambda perm, mask=None, bias=None: ..., "returns nothing yet"),
])
def test_wrong_own_symmetry_breaks_get_a_hint(attention, symmetry_break, hint):
    feedback = nb08.check_symmetry_break(attention, symmetry_break)
    assert not feedback.ok and hint in feedback.message, feedback.message

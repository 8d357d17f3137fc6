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


def _none_written_out(perm, mask=None, bias=None):  # an all-True mask and a zero bias for None
    mask = np.ones((4, 4), dtype=bool) if mask is None else mask
    bias = np.zeros((4, 4)) if bias is None else bias
    return _break()(perm, mask, bias)


def _with_a_look_of_its_own(perm, mask=None, bias=None):  # one more call, of its own, unmasked
    SOL.self_attention(X4[::-1], *W4)
    return SOL.symmetry_break(perm, mask, bias)


def _under_another_name(perm, mask=None, bias=None):
    attend = SOL.self_attention
    Y, Y_p = (attend(X, *W4, mask=mask, bias=bias)[0] for X in (X4, X4[perm]))
    return np.abs(Y_p - Y[perm]).max()


def _options_attention(X, W_Q, W_K, W_V, **options):  # None means none, as 03 now asks
    return SOL.self_attention(X, W_Q, W_K, W_V, options.get("mask"), options.get("bias"))


@pytest.mark.parametrize(("attention", "symmetry_break"), [
    (SOL.self_attention, _none_written_out),
    (SOL.self_attention, _with_a_look_of_its_own),
    (SOL.self_attention, _under_another_name),
    (_options_attention, _break(_options_attention)),
    (SOL.self_attention, SOL.symmetry_break),
    (SOL.self_attention, _break()),
    (SOL.self_attention, _break(compare=_undone)),
    (_loop_attention, _break(_loop_attention)),
    (SOL.self_attention, _with_weights_too),
    (SOL.self_attention, _by_matrix),
], ids=["None written out", "a look of its own", "another name", "**options", "solution",
        "as written", "P⁻¹ Y(PX) vs Y(X)", "float32 lists", "Y and A", "P as a matrix"])
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


# Issue 40: the learner's own function is the one measured, and each slip gets its own hint
# (checked for what it must say and for the false claim it made before: "pass the mask and the
# bias on to both calls" to a symmetry_break that passed them)

def _inputs_break(compare, f=SOL.self_attention, X=X4, mask_for_PX=lambda mask, perm: mask):
    """symmetry_break that calls f as given, then compare(Y, A, Y_p, A_p, perm)."""
    def symmetry_break(perm, mask=None, bias=None):
        Y, A = (np.asarray(M) for M in f(X, *W4, mask=mask, bias=bias))
        Y_p, A_p = (np.asarray(M) for M in f(X[perm], *W4, mask=mask_for_PX(mask, perm),
                                              bias=bias))
        return compare(Y, A, Y_p, A_p, perm)
    return symmetry_break


def _dev(Y, A, Y_p, A_p, perm):
    return Y_p - Y[perm]


def _reordered(mask, perm):  # the mask moved with the tokens
    return None if mask is None else mask[perm][:, perm]


PASS_THE_MASK = "pass the mask and the bias on to both calls"
SLIPS_OF_08_4 = [  # (id, symmetry_break, words the hint must hold)
    ("measures pa.self_attention",
     _inputs_break(lambda *a: np.abs(_dev(*a)).max(), f=pa.self_attention),
     ["never calls the self_attention"]),
    ("measures Y(PX) with pa.self_attention", lambda perm, mask=None, bias=None: np.abs(
        pa.self_attention(X4[perm], *W4, mask=mask, bias=bias)[0]
        - SOL.self_attention(X4, *W4, mask=mask, bias=bias)[0][perm]).max(),
     ["never gives your self_attention X[perm]"]),
    ("no abs", _inputs_break(lambda *a: _dev(*a).max()), ["either way"]),
    ("no abs, other sign", _inputs_break(lambda *a: (-_dev(*a)).max()), ["either way"]),
    ("mean", _inputs_break(lambda *a: np.abs(_dev(*a)).mean()), ["averaged"]),
    ("a norm", _inputs_break(lambda *a: np.linalg.norm(_dev(*a))), ["norm"]),
    ("relative error",
     _inputs_break(lambda Y, A, Y_p, A_p, perm: np.abs(Y_p - Y[perm]).max() / np.abs(Y).max()),
     ["divided"]),
    ("A only", _inputs_break(lambda Y, A, Y_p, A_p, perm: np.abs(A_p - A[perm][:, perm]).max()),
     ["A alone"]),
    ("a reordered mask", _inputs_break(lambda *a: np.abs(_dev(*a)).max(),
                                       mask_for_PX=_reordered), ["reordered the mask"]),
    ("another sentence", _inputs_break(lambda *a: np.abs(_dev(*a)).max(),
                                       X=pa.embed(pa.tokenize("the man bites dog"))),
     ["another X"]),
    ("the mask for Y(X) only",  # the same largest deviation by chance: it was Right
     _inputs_break(lambda *a: np.abs(_dev(*a)).max(), mask_for_PX=lambda mask, perm: None),
     [PASS_THE_MASK]),
    ("mask and bias swapped", lambda perm, mask=None, bias=None: _break()(perm, bias, mask),
     ["passes the mask as the bias"]),
    ("a reordered bias", lambda perm, mask=None, bias=None: np.abs(
        SOL.self_attention(X4[perm], *W4, mask=mask, bias=_reordered(bias, perm))[0]
        - SOL.self_attention(X4, *W4, mask=mask, bias=bias)[0][perm]).max(),
     ["reordered the bias"]),
    ("other projections", lambda perm, mask=None, bias=None: np.abs(
        SOL.self_attention(X4[perm], *pa.default_projections(seed=1), mask=mask, bias=bias)[0]
        - SOL.self_attention(X4, *pa.default_projections(seed=1), mask=mask, bias=bias)[0][perm]
    ).max(), ["other projections than the cell's W"]),
    ("rows only", _inputs_break(lambda Y, A, Y_p, A_p, perm: max(
        np.abs(Y_p - Y[perm]).max(), np.abs(A_p - A[perm]).max())), ["only the rows of A"]),
]


@pytest.mark.parametrize(("symmetry_break", "says"), [s[1:] for s in SLIPS_OF_08_4],
                         ids=[s[0] for s in SLIPS_OF_08_4])
def test_each_symmetry_break_slip_gets_a_hint_of_its_own(symmetry_break, says):
    feedback = nb08.check_symmetry_break(SOL.self_attention, symmetry_break)
    assert not feedback.ok, feedback.message
    for words in says:
        assert words in feedback.message, feedback.message
    assert PASS_THE_MASK not in feedback.message or PASS_THE_MASK in says, feedback.message


def test_a_symmetry_break_that_drops_the_mask_is_still_told_to_pass_it():
    feedback = nb08.check_symmetry_break(SOL.self_attention, _break(mask_both=False))
    assert not feedback.ok and PASS_THE_MASK in feedback.message, feedback.message


X_OF_08, W_OF_08 = pa.embed(pa.tokenize("the dog bites man")), pa.default_projections()


def _the_notebooks_X(X, W_Q, W_K, W_V, mask=None, bias=None):  # W45: 08's X, not the argument
    return SOL.self_attention(X_OF_08, W_Q, W_K, W_V, mask, bias)


def _the_notebooks_Q(X, W_Q, W_K, W_V, mask=None, bias=None):  # W46: 08's Q = X W_Q
    Q = X_OF_08 @ W_OF_08[0]  # (4, 4)
    S = Q @ (X @ W_K).T / np.sqrt(W_K.shape[1])
    S = S if bias is None else S + bias
    S = S if mask is None else np.where(mask, S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ (X @ W_V), A


@pytest.mark.parametrize("f", [_the_notebooks_X, _the_notebooks_Q], ids=["X", "Q"])
def test_a_pasted_function_that_uses_the_notebooks_globals_gets_03s_hint(f):
    feedback = nb08.check_symmetry_break(f, SOL.symmetry_break)
    assert not feedback.ok and "instead of its own arguments" in feedback.message, \
        feedback.message


def test_a_pasted_function_that_needs_03s_stable_softmax_is_told_where_it_comes_from():
    space = {"np": np, "__name__": "__main__"}
    exec("def self_attention(X, W_Q, W_K, W_V, mask=None, bias=None):\n"  # noqa: S102
         "    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_K.shape[1])\n"
         "    A = np.array([stable_softmax(row) for row in S])\n"
         "    return A @ (X @ W_V), A\n", space)
    feedback = nb08.check_symmetry_break(space["self_attention"], SOL.symmetry_break)
    assert not feedback.ok and "stable_softmax" in feedback.message, feedback.message
    assert "notebook 03" in feedback.message and "Run the cells above" not in feedback.message, \
        feedback.message


def test_a_bias_with_a_branch_that_returns_nothing_is_told_so():
    def alibi_causal(n, m):
        if n > 1:
            return SOL.alibi_causal(n, m)

    feedback = nb08.check_alibi_causal(alibi_causal)
    assert not feedback.ok and "returned None" in feedback.message, feedback.message
    assert "replace the ..." not in feedback.message


def test_the_checkers_tables_cannot_be_changed_from_a_notebook():
    """Replacing an entry of CASES changed later verdicts: the dicts were writable."""
    import copy
    kept = {name: copy.deepcopy(value) if isinstance(value, dict) else value
            for name, value in vars(nb08).items() if name in ("CASES", "ORDERS")}
    try:
        with pytest.raises(TypeError):
            nb08.CASES["causal mask"] = {}
        with pytest.raises(TypeError):
            nb08.CASES["causal mask"]["mask"] = None
        with pytest.raises((TypeError, AttributeError)):
            nb08.ORDERS["turned by one"][0] = 3
        with pytest.raises(AttributeError, match="read-only"):
            nb08.CASES = {}
    finally:
        vars(nb08).update(kept)  # put back, should the module have let them change
    assert nb08.check_symmetry_break(SOL.self_attention, SOL.symmetry_break).ok

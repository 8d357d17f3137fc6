"""Checkers for notebook 08 (putting position back)."""

import numpy as np

from ..embeddings import default_projections, embed, tokenize
from ..positions import alibi_bias, causal_mask, sinusoidal_shift
from ..rope import rope
from . import NotYet, as_array, call, checker, close, read_only
from .nb03 import check_self_attention


@checker("a function alibi_causal(n, m)")
def check_alibi_causal(alibi_causal):
    """Exercise 1: the paper's ALiBi bias with its causal mask, for any n and slope m."""
    for n, m in ((3, 0.5), (5, 0.25), (1, 2.0), (6, 0.125)):
        B = as_array(call(alibi_causal, n, m, name="alibi_causal"), f"alibi_causal({n}, {m})",
                     (n, n), masked=True)
        bias, behind = alibi_bias(n, m), causal_mask(n)  # −m·|i − j|; True on the keys j ≤ i
        if close(B, np.where(behind, bias, -np.inf)):  # −inf matches −inf
            continue
        if close(B, bias):
            raise NotYet("that is the symmetric variant −m·|i − j|: the paper masks the keys j > i "
                         "instead, with -np.inf.")
        if close(B[behind], bias[behind]):
            if n > 1 and (B[~behind] < -1e6).all():
                raise NotYet("a large negative number masks in practice, but this exercise writes "
                             "the mask as -np.inf on the keys ahead (j > i).")
            raise NotYet("the keys ahead (j > i) must be masked: put -np.inf there.")
        if n > 1 and np.isneginf(B[np.tril(behind, -1)]).all():  # the keys j < i
            raise NotYet("rows are queries i and columns keys j: the −inf belongs above the "
                         "diagonal (keys ahead), not below it.")
        if close(B[behind], -bias[behind]):
            raise NotYet("the sign is flipped: a key far back should lower the score, "
                         "not raise it.")
        if np.isneginf(np.diag(B)).all():
            raise NotYet("the diagonal is masked too: a query may attend to its own key, j = i, "
                         "where the penalty is 0.")
        raise NotYet(f"on the keys j ≤ i the entries should be −m·(i − j); for n = {n}, m = {m}, "
                     f"row {n - 1} should start at {-m * (n - 1):g}.")
    return ("−m·(i − j) on the keys behind, −inf on the keys ahead: one rule for every length "
            "n, with no table to outgrow.")


@checker("a position j")
def check_rope_partner(rope_partner):
    """Exercise 2: j with score(query at 4, key at j) = score(query at 7, key at 3) under RoPE."""
    j = float(as_array(rope_partner, "rope_partner", ()))
    q, k = np.random.default_rng(3).standard_normal((2, 1, 8))  # (1, 8) each

    def score(i, j):
        return float((rope(q, [i]) @ rope(k, [j]).T)[0, 0])

    if close(score(4, j), score(7, 3)):
        return "only the offset counts: 7 − 3 = 4 − 0."
    if close(score(4, 2 * 4 - j), score(7, 3)):
        raise NotYet("close: the sign of the offset matters. Keep i − j the same, not j − i.")
    if close(j, 4):
        raise NotYet("4 is the offset i − j of (7, 3), not a position: which key position j gives "
                     "the query at 4 that same offset?")
    if close(j, 3):
        raise NotYet("the key stayed at 3 while the query moved from 7 to 4: the offset changed. "
                     "RoPE scores depend on i − j only.")
    raise NotYet("RoPE scores depend on i − j only. What is i − j for (7, 3)?")


@checker("a 2×2 matrix")
def check_shift_matrix(M_1):
    """Exercise 3: the 2×2 matrix M_1 with E[p + 1] = E[p] @ M_1 for d = 2 (interleaved)."""
    M = as_array(M_1, "M_1", (2, 2))
    expected = sinusoidal_shift(1, 2)
    if close(M, expected):
        return "a rotation by ω_0 = 1 radian: sin(p + 1) and cos(p + 1) are linear in sin p, cos p."
    if close(M, expected.T):
        raise NotYet("that is the transpose, the matrix that turns the other way (from E[p + 1] "
                     "back to E[p]): E[p] is a row vector, multiplied from the left (E[p] @ M).")
    if close(np.abs(M), np.abs(expected)):
        raise NotYet("the entries are right up to their signs; here exactly one entry is "
                     "negative. Expand cos(p + 1) to see which.")
    if close(M, expected[:, ::-1]) or close(M, expected[::-1]):
        raise NotYet("two rows or columns are swapped: E_p = (sin p, cos p) has the sine first, "
                     "and column c of M makes coordinate c of E[p + 1].")
    raise NotYet("expand sin(p + 1) and cos(p + 1) with the angle-addition formulas.")


SENTENCE = "the dog bites man"  # exercise 4: X
ORDERS = {  # the orders the checker reads X in: its own inverse, and one that is not
    "read backwards": [3, 2, 1, 0],  # "man bites dog the": P = Pᵀ, so a P-for-Pᵀ slip hides here
    "turned by one": [1, 2, 3, 0],  # "dog bites man the": its inverse is [3, 0, 1, 2]
}
CASES = {  # what the checker asks symmetry_break for, and what each one is
    "no mask, no bias": {},
    "causal mask": {"mask": causal_mask(4)},
    "symmetric ALiBi bias": {"bias": alibi_bias(4)},
    "causal mask and ALiBi bias (the paper's)": {"mask": causal_mask(4), "bias": alibi_bias(4)},
}


def _own_break(self_attention, X, W, perm, **extra) -> dict[str, float]:
    """Of the learner's (already checked and guarded) function, on X and PX = X[perm]:
    max |Y(PX) − P Y(X)| ("y"), the same with |A(PX) − P A Pᵀ| included ("with A"; both measure
    its symmetry break), and the slips: max |Y(PX) − Y(X)| ("unmoved") and max |Y(PX) − Pᵀ Y(X)|
    ("inverse")."""
    (Y, A), (Y_p, A_p) = (
        (np.asarray(M, dtype=float) for M in call(self_attention, X_, *W, name="self_attention",
                                                  **extra)) for X_ in (X, X[perm]))
    y = float(np.abs(Y_p - Y[perm]).max())
    return {"y": y, "with A": max(y, float(np.abs(A_p - A[perm][:, perm]).max())),
            "unmoved": float(np.abs(Y_p - Y).max()),
            "inverse": float(np.abs(Y_p - Y[np.argsort(perm)]).max())}


def _same(got: float, expected: float) -> bool:
    """Equal to float32 precision; two rounding-sized numbers (below 1e-5, float32's rounding of
    outputs of size 1) count as equal: either says "no break"."""
    return (got < 1e-5 and expected < 1e-5) or close(got, expected)


def _shown(value: float) -> str:
    return "below 1e-12" if value < 1e-12 else f"{value:.2g}"


@checker("your self_attention from notebook 03 and a function symmetry_break(perm, mask=None, "
         "bias=None)")
def check_symmetry_break(self_attention, symmetry_break):
    """Exercise 4: the learner's own attention (03, exercise 4), and its symmetry break measured
    by the learner on "the dog bites man" in each of ORDERS, with each of CASES."""
    try:  # 03's checker judges the pasted function
        check_self_attention.__wrapped__(self_attention)
    except NotYet as hint:
        raise NotYet(f"notebook 03's checker does not accept your self_attention yet: "
                     f"{hint}") from None
    X, W = embed(tokenize(SENTENCE)), default_projections()  # (4, 8), three (8, 4)
    measured = {}
    for case, extra in CASES.items():
        breaks = {order: _own_break(self_attention, X, W, perm, **extra)
                  for order, perm in ORDERS.items()}
        for order, perm in ORDERS.items():
            got = call(symmetry_break, list(perm), name="symmetry_break", **extra)  # it gets copies
            got = float(as_array(got, f"symmetry_break({perm}) with {case}", ()))
            own = breaks[order]
            if _same(got, own["y"]) or _same(got, own["with A"]):
                measured[order, case] = own["y"]
                continue
            if _same(got, own["unmoved"]):
                raise NotYet(f"with X {order} and {case}, you compared Y(PX) with Y(X); "
                             "equivariance compares it with P Y(X), the rows of Y(X) reordered "
                             "the same way.")
            if _same(got, own["inverse"]):
                raise NotYet(f"with X {order} ({perm}) and {case}, you reordered the outputs with "
                             "the inverse order, Pᵀ instead of P. Read backwards, the two are the "
                             "same order, so only an order that is not its own inverse shows the "
                             "slip: P Y(X) reorders the rows of Y(X) exactly as PX reorders the "
                             "rows of X.")
            others = [o for o in ORDERS if o != order and not _same(breaks[o]["y"], own["y"])]
            if any(_same(got, breaks[o]["y"]) for o in others):
                raise NotYet(f"symmetry_break({perm}) with {case} measured another order: read X "
                             "in the order perm it is given.")
            raise NotYet(f"with {case}, symmetry_break({perm}) returns {got:.3g}, but your "
                         f"self_attention on {SENTENCE!r} {order} gives {own['y']:.3g}. Read X in "
                         "the order perm, pass the mask and the bias on to both calls, and "
                         "compare Y(PX) with P Y(X).")
    lines = "; ".join(f"{order}, {case}: {_shown(measured[order, case])}"
                      for order in ORDERS for case in CASES)
    return (f"your own attention on {SENTENCE!r}: {lines}. The mask sees both orders; the "
            "symmetric bias cannot see the reversal, which keeps every |i − j|, but sees the turn, "
            "which moves the first word from the start to the end.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

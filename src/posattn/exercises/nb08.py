"""Checkers for notebook 08 (putting position back)."""

import functools
import inspect
import sys

import numpy as np

from ..embeddings import default_projections, embed, tokenize
from ..positions import alibi_bias, causal_mask, sinusoidal_shift
from ..rope import rope
from . import NotYet, as_array, call, checker, close, read_only
from .nb03 import check_self_attention

# Names an answer may use that no cell of this notebook defines (a NameError's hint says so).
DEFINED_ELSEWHERE = {"stable_softmax": "your answer to notebook 03's exercise 1 (`def "
                                       "stable_softmax(s)`), which your self_attention calls"}


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
    "read backwards": (3, 2, 1, 0),  # "man bites dog the": P = Pᵀ, so a P-for-Pᵀ slip hides here
    "turned by one": (1, 2, 3, 0),  # "dog bites man the": its inverse is [3, 0, 1, 2]
}
CASES = {  # what the checker asks symmetry_break for, and what each one is
    "no mask, no bias": {},
    "causal mask": {"mask": causal_mask(4)},
    "symmetric ALiBi bias": {"bias": alibi_bias(4)},
    "causal mask and ALiBi bias (the paper's)": {"mask": causal_mask(4), "bias": alibi_bias(4)},
}


def _own_break(self_attention, X, W, perm, **extra) -> dict[str, float]:
    """Of the learner's (already checked and guarded) function, on X and PX = X[perm]: max
    |Y(PX) − P Y(X)| ("y"), the same with |A(PX) − P A Pᵀ| included ("with A"; both measure its
    symmetry break), and what each known slip would measure instead."""
    (Y, A), (Y_p, A_p) = (
        (np.asarray(M, dtype=float) for M in call(self_attention, X_, *W, name="self_attention",
                                                  **extra)) for X_ in (X, X[perm]))
    (Y_u, _), (Y_pu, _) = (  # a call without the mask and the bias
        (np.asarray(M, dtype=float) for M in call(self_attention, X_, *W, name="self_attention"))
        for X_ in (X, X[perm]))
    D, E = Y_p - Y[perm], A_p - A[perm][:, perm]  # (n, d_v), (n, n): the deviations
    y, a = float(np.abs(D).max()), float(np.abs(E).max())
    rows = float(np.abs(A_p - A[perm]).max())
    return {"y": y, "with A": max(y, a), "A": a, "rows": rows, "rows with Y": max(y, rows),
            "signed": float(D.max()), "signed with A": max(float(D.max()), float(E.max())),
            "signed back": float(-D.min()),
            "signed back with A": max(float(-D.min()), float(-E.min())),
            "mean": float(np.abs(D).mean()), "norm": float(np.linalg.norm(D)),
            "row norm": float(np.linalg.norm(D, axis=1).max()),
            "relative": y / float(np.abs(Y).max()),
            "relative norm": float(np.linalg.norm(D) / np.linalg.norm(Y)),
            "dropped": max(float(np.abs(Y_pu - Y[perm]).max()),
                           float(np.abs(Y_p - Y_u[perm]).max())),
            "unmoved": float(np.abs(Y_p - Y).max()),
            "inverse": float(np.abs(Y_p - Y[np.argsort(perm)]).max())}


_SLIPS = (  # (what the slip measures, of _own_break's, its hint)
    (("signed", "signed with A", "signed back", "signed back with A"),
     "A break can go either way: a deviation of −2 is as large as one "
     "of +2, yet the largest signed difference misses it. Measure the size of each difference."),
    (("mean",), "You averaged the deviations; the break is the largest one."),
    (("norm", "row norm"), "A norm adds the deviations up; the break is the largest single one, "
     "entry by entry."),
    (("relative", "relative norm"), "You divided by the size of Y; the break is the deviation "
     "itself, in the units of Y."),
    (("A",), "That is the break of A alone; the exercise measures Y, the output (A may count "
     "too, beside it)."),
    (("rows", "rows with Y"), "You reordered only the rows of A: its columns are the keys, and "
     "they move with the tokens too, P A Pᵀ."),
    (("dropped",), "Pass the mask and the bias on to both calls: Y(PX) and Y(X) must be "
     "computed alike."),
)


def _code(function):
    """The code the learner's function runs, looking through wrappers (None for a partial, a
    builtin or an object that is called)."""
    while getattr(function, "__wrapped__", None) is not None:
        function = function.__wrapped__
    return None if isinstance(function, functools.partial) else getattr(function, "__code__",
                                                                          None)


def _recorded(code, run):
    """run(), and the arguments (X, mask, bias) of every call of ``code`` made on the way (seen
    through sys.setprofile, whatever name the learner's code calls it by); None for the calls of
    a function whose X cannot be read (no positional parameter)."""
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    spread = code.co_varnames[len(names) + bool(code.co_flags & inspect.CO_VARARGS)] \
        if code.co_flags & inspect.CO_VARKEYWORDS else None
    if not code.co_argcount:
        return run(), None
    calls = []

    def hook(frame, event, arg):
        if event == "call" and frame.f_code is code:
            local = frame.f_locals
            keywords = local.get(spread, {}) if spread else {}
            calls.append({"X": local.get(names[0]), "W": [local.get(n) for n in names[1:4]],
                          **{k: local[k] if k in names else keywords.get(k)
                             for k in ("mask", "bias")}})

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        return run(), calls
    finally:
        sys.setprofile(previous)


def _is(got, expected, key: str = "X") -> bool:
    """Whether an argument the learner's function got is ``expected``: a mask of None is one
    that keeps every key, a bias of None one of zeros."""
    try:
        got, expected = ((np.ones((4, 4)) if key == "mask" else np.zeros((4, 4))) if M is None
                         else np.asarray(M, dtype=float) for M in (got, expected))
        if key != "X":
            got = np.broadcast_to(got, expected.shape)
        return close(got, expected)
    except (TypeError, ValueError):
        return False


def _unmeasured(calls, X, W, perm, extra, case: str, where: str) -> str | None:
    """The hint when symmetry_break does not measure the learner's function on X and on X[perm],
    each with the cell's W and the mask and the bias it was given; None when it does."""
    if not calls:
        return ("symmetry_break never calls the self_attention you gave the checker: it measures "
                "another attention (pa.self_attention?). Measure your own function, the one "
                "pasted in this cell.")
    at_X, at_PX = ([c for c in calls if _is(c["X"], Z)] for Z in (X, X[list(perm)]))
    if not at_X:
        return (f"{where}, symmetry_break gives your self_attention another X, not the cell's X "
                f"({SENTENCE!r}): measure on that X, and on X[perm].")
    if not at_PX:
        if any(_is(c["X"], X[list(other)]) for c in calls for other in ORDERS.values()):
            return (f"symmetry_break({list(perm)}) with {case} measured another order: read X "
                    "in the order perm it is given.")
        return (f"{where}, symmetry_break never gives your self_attention X[perm], X read in the "
                "order perm it is given.")
    if not all(any(all(_is(a, b) for a, b in zip(c["W"], W, strict=True)) for c in cs)
               for cs in (at_X, at_PX)):
        return (f"{where}, symmetry_break gives your self_attention other projections than the "
                "cell's W: use W, as the checker does, for both calls.")
    if all(any(all(_is(c[k], extra.get(k), k) for k in ("mask", "bias")) for c in cs)
           for cs in (at_X, at_PX)):
        return None
    return _passed_otherwise(at_X + at_PX, perm, extra, where)


def _passed_otherwise(calls, perm, extra, where: str) -> str | None:
    """The hint when symmetry_break does not pass the mask and the bias on as it got them."""
    for key, other in (("mask", "bias"), ("bias", "mask")):
        given = extra.get(key)
        for c in calls:
            if _is(c[key], given, key):
                continue
            if given is not None and c[other] is not None and _is(c[other], given, other):
                return (f"{where}, symmetry_break passes the {key} as the {other}: pass each on "
                        "under its own name.")
            if given is None:
                return (f"{where}, symmetry_break passes a {key} though none was given: pass on "
                        f"the {key} it gets.")
            if c[key] is None:
                return f"{where}, pass the mask and the bias on to both calls."
            if _is(c[key], np.asarray(given)[list(perm)][:, list(perm)], key):
                return (f"{where}, you reordered the {key} along with X: the {key} belongs to "
                        "positions, not to words, so both calls get it as it is.")
            return f"{where}, symmetry_break passes another {key} than the one it was given."
    return None


@checker("your self_attention from notebook 03 and a function symmetry_break(perm, mask=None, "
         "bias=None)")
def check_symmetry_break(self_attention, symmetry_break):
    """Exercise 4: the learner's own attention (03, exercise 4), and its symmetry break measured
    by the learner on "the dog bites man" in each of ORDERS, with each of CASES; while
    symmetry_break runs, the checker sees what it gives the learner's function."""
    try:  # 03's checker judges the pasted function
        check_self_attention.__wrapped__(self_attention)
    except NotYet as hint:
        raise NotYet(f"notebook 03's checker does not accept your self_attention yet: "
                     f"{hint}") from None
    X, W = embed(tokenize(SENTENCE)), default_projections()  # (4, 8), three (8, 4)
    code, measured = _code(self_attention), {}
    for case, extra in CASES.items():
        breaks = {order: _own_break(self_attention, X, W, list(perm), **extra)
                  for order, perm in ORDERS.items()}
        for order, perm in ORDERS.items():
            def measure(perm=perm, extra=extra):  # it gets copies, and both keywords
                return call(symmetry_break, list(perm), name="symmetry_break",
                            mask=extra.get("mask"), bias=extra.get("bias"))

            got, calls = _recorded(code, measure) if code is not None else (measure(), None)
            got = float(as_array(got, f"symmetry_break({list(perm)}) with {case}", ()))
            own, where = breaks[order], f"with X {order} ({list(perm)}) and {case}"
            wrong = None if calls is None else _unmeasured(calls, X, W, perm, extra, case, where)
            if wrong is None and (_same(got, own["y"]) or _same(got, own["with A"])):
                measured[order, case] = own["y"]
                continue
            _not_the_break(got, own, breaks, wrong, order, list(perm), case, where)
    lines = "; ".join(f"{order}, {case}: {_shown(measured[order, case])}"
                      for order in ORDERS for case in CASES)
    return (f"your own attention on {SENTENCE!r}: {lines}. The mask sees both orders; the "
            "symmetric bias cannot see the reversal, which keeps every |i − j|, but sees the turn, "
            "which moves the first word from the start to the end.")


def _not_the_break(got, own, breaks, wrong, order, perm, case, where):
    """Raise NotYet naming why ``got`` is not the learner's break ``own``: ``wrong`` names what
    symmetry_break gave the learner's function, when the checker could see it."""
    if wrong is not None:
        raise NotYet(wrong)
    others = [o for o in ORDERS if o != order and not _same(breaks[o]["y"], own["y"])]
    if any(_same(got, breaks[o]["y"]) for o in others):
        raise NotYet(f"symmetry_break({perm}) with {case} measured another order: read X "
                     "in the order perm it is given.")
    if _same(got, own["unmoved"]):
        raise NotYet(f"{where}, you compared Y(PX) with Y(X); equivariance compares it with "
                     "P Y(X), the rows of Y(X) reordered the same way.")
    if _same(got, own["inverse"]):
        raise NotYet(f"{where}, you reordered the outputs with the inverse order, Pᵀ instead of "
                     "P. Read backwards, the two are the same order, so only an order that is "
                     "not its own inverse shows the slip: P Y(X) reorders the rows of Y(X) "
                     "exactly as PX reorders the rows of X.")
    for keys, hint in _SLIPS:
        if any(_same(got, own[key]) for key in keys) and not _same(own["y"], got):
            raise NotYet(f"{where}, symmetry_break returns {got:.3g}. {hint}")
    raise NotYet(f"{where}, symmetry_break returns {got:.3g}, but max |Y(PX) − P Y(X)| of your "
                 f"self_attention is {own['y']:.3g}. Compare Y(PX) with P Y(X) entry by entry, "
                 "and return the largest deviation.")


def _same(got: float, expected: float) -> bool:
    """Equal to float32 precision; two rounding-sized numbers (below 1e-5, float32's rounding of
    outputs of size 1) count as equal: either says "no break"."""
    return (got < 1e-5 and expected < 1e-5) or close(got, expected)


def _shown(value: float) -> str:
    return "below 1e-12" if value < 1e-12 else f"{value:.2g}"


read_only(globals())  # the checkers' own data: an answer cannot write into it

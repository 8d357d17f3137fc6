"""Checkers for notebook 03 (softmax and projections)."""

import functools
import inspect
import os
import site
import sys
import sysconfig

import numpy as np

from ..attention import self_attention, softmax
from ..embeddings import default_projections, embed, tokenize
from . import GUARD_CODES, NotYet, as_array, call, checker, close, read_only

# Where the notebook defines the names an answer may use (a NameError's hint names the cell).
DEFINED_IN = {
    **dict.fromkeys(("X", "X2", "Q", "Q2", "W_Q", "W_K", "W_V", "tokens"),
                    "in section 4's first code cell (`Q, Q2 = X @ W_Q, X2 @ W_Q`)"),
    "stable_softmax": "in exercise 1's cell (your `def stable_softmax(s)`)",
}

_CASES = ([2.0, 1.0, 0.1], [1000.0, 999.0, 998.0], [-1000.0, -1001.0], [5.0], [1e300, -1e300, 0.0])
SHAPES = ((3, 8, 4, 4), (5, 6, 3, 2), (7, 4, 2, 5))  # exercise 4: (n, d, d_k, d_v), as it says


def _module_of(f):
    """The module a function was written in, looking through functools.partial and wrappers."""
    while True:
        if isinstance(f, functools.partial):
            f = f.func
        elif getattr(f, "__wrapped__", None) is not None:
            f = f.__wrapped__
        else:
            return getattr(f, "__module__", None)


# Libraries with a softmax of their own, known by name; any other installed package is known by
# where its files live. A module of the learner's own (a helper file beside the notebook) is
# neither, whatever its functions are called.
_LIBRARIES = frozenset(("numpy", "scipy", "torch", "jax", "jaxlib", "tensorflow", "keras",
                        "sklearn", "cupy", "mxnet", "flax", "haiku", "einops", "transformers",
                        "paddle", "mlx", "theano", "chainer", "autograd", "tinygrad", "posattn"))
_INSTALLED = tuple({os.path.realpath(path) + os.sep for path in (
    *(sysconfig.get_paths().get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")),
    *site.getsitepackages(), site.getusersitepackages()) if path})


def _library(module: str, filename: str) -> bool:
    """Whether code of ``module`` (from ``filename``, "" for a function written in C) belongs to
    an installed library rather than to the learner."""
    top = module.split(".")[0]
    if top in _LIBRARIES or top in sys.stdlib_module_names:
        return True
    if not filename:  # a C function: where its module lives
        filename = getattr(sys.modules.get(module) or sys.modules.get(top), "__file__", "") or ""
    return not filename.startswith("<") and bool(filename) and \
        os.path.realpath(filename).startswith(_INSTALLED)


def _borrowing(f):
    """``f`` run with a record, ``run.borrowed``, of every posattn function or library softmax
    it calls on the way (seen through sys.setprofile, whatever name or route it was reached by)."""
    own = _module_of(f)

    def hook(frame, event, arg):
        if event == "call" and frame.f_code in GUARD_CODES:  # the checker's own copying
            return
        if event == "call":
            module, name = frame.f_globals.get("__name__") or "", frame.f_code.co_name
            filename = frame.f_code.co_filename
        elif event == "c_call":
            module, name = getattr(arg, "__module__", None) or "", getattr(arg, "__name__", "")
            filename = ""
        else:
            return
        if module.startswith("posattn") or ("softmax" in name.lower() and module != own
                                            and _library(module, filename)):
            run.borrowed.append((module.split(".")[0], name))

    def run(*args, **keywords):
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            return f(*args, **keywords)
        finally:
            sys.setprofile(previous)

    run.borrowed = []
    return run


def _own_work(f, *args, name: str, task: str, **keywords):
    """f(*args, **keywords), or NotYet when f hands its work to posattn or to a library's
    softmax."""
    if not callable(f):
        raise NotYet(f"{name} must be a function; got {type(f).__name__}.")
    run = _borrowing(f)
    out = call(run, *args, name=name, **keywords)
    if run.borrowed:
        named = [f"pa.{n}" for m, n in run.borrowed if m == "posattn" and not n.startswith("_")]
        first = (named or [f"{n} from {m}" for m, n in run.borrowed])[0]
        raise NotYet(f"{name} calls {first}. The exercise asks you to {task} yourself, with "
                     "numpy only: np.exp, sums and products.")
    return out


def _shifted_by_the_minimum(got, s) -> bool:
    """Whether ``got`` is what exp(s − min s) / Σ exp(s − min s) gives, inf and nan included."""
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.min())  # overflows where a score lies far above the smallest
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    return got.shape == s.shape and bool(np.allclose(got, e / e.sum(), equal_nan=True))


@checker("a function of s")
def check_stable_softmax(stable_softmax):
    """Exercise 1: ``stable_softmax(s)`` is softmax of a 1-D array of scores, even huge ones,
    built with np.exp (a call to pa.softmax or another library's softmax is not the exercise).

    softmax(s)_j = exp(s_j - max(s)) / Σ_l exp(s_l - max(s))
    """
    for s in _CASES:
        with np.errstate(all="ignore"):
            got = _own_work(stable_softmax, np.array(s), name="stable_softmax",
                            task="build softmax")
        try:
            got = as_array(got, f"stable_softmax({list(s)})", (len(s),))
        except NotYet as hint:
            if "NaN or inf" not in str(hint):
                raise
            if np.asarray(got).dtype.itemsize < 8 and max(map(abs, s)) > 3e38:
                raise NotYet(f"for scores {list(s)} you get inf or nan: float32 stops near "
                             "3.4e38, so 1e300 became inf before any shift. Keep the scores in "
                             "float64 (the cell's first line does), and round at the end."
                             ) from None
            if _shifted_by_the_minimum(got, s):
                raise NotYet(f"for scores {list(s)} you get inf or nan: you shifted by the "
                             "smallest score, and exp(s − min) overflows when the scores lie far "
                             "apart. Which shift keeps every exponent at most 0?") from None
            raise NotYet(f"for scores {list(s)} you get inf or nan: exp overflowed or gave 0/0. "
                         "Shift the scores first.") from None
        if not close(got, softmax(s)):
            raise NotYet(f"for scores {list(s)} the weights are not softmax(s): they should be "
                         "positive, sum to 1, and keep the differences between scores.")
    return "positive weights that sum to 1, even for scores of ±1e300."


@checker("a number")
def check_score_spread(spread_at_256):
    """Exercise 2: the spread (standard deviation) of q·k for d_k = 256, unit-variance entries."""
    value = float(as_array(spread_at_256, "spread_at_256", ()))
    if 15.0 <= value <= 17.0:
        return "q·k is a sum of d_k terms of variance 1, so its spread grows like √d_k."
    if 240.0 <= value <= 270.0:
        raise NotYet("that is the variance; the question asks for the standard deviation "
                     "(its square root).")
    raise NotYet("q·k is a sum of d_k independent products, each of variance 1. "
                 "What is the variance of the sum, and what is its square root?")


@checker("a vector of length 4")
def check_query_of_man(q_man):
    """Exercise 3: the query of "man" in "man bites dog", with the default W_Q."""
    W_Q, W_K, W_V = default_projections()
    X = embed(tokenize("man bites dog"))  # (3, 8): man, bites, dog
    q = as_array(q_man, "q_man", W_Q.shape[1:])
    if close(q, X[0] @ W_Q):
        return ("the same vector as for 'man' at the end of 'dog bites man': W_Q is shared by "
                "every position.")
    for W, what in ((W_K, "key of 'man' (W_K)"), (W_V, "value of 'man' (W_V)")):
        if close(q, X[0] @ W):
            raise NotYet(f"that is the {what}; a query is made with W_Q.")
    for row in (1, 2):
        if close(q, X[row] @ W_Q):
            raise NotYet(f"that is the query of '{['man', 'bites', 'dog'][row]}' (row {row} of "
                         "X_mbd); 'man' is the first word of 'man bites dog'.")
    if close(q, X[0] @ W_Q / np.sqrt(W_Q.shape[1])):
        raise NotYet("you divided by √d_k: that scale belongs to the scores q·k, not to the query.")
    raise NotYet("that is not the query of 'man'. Section 4 shows how a token's query is made "
                 "from its embedding row; which row of X_mbd is 'man'?")


_NOTEBOOKS_A = self_attention(embed(tokenize("dog bites man")), *default_projections())[1]


def _near(got, expected) -> bool:
    """Equal to float32 precision, relative to the size of the expected array."""
    return close(got, expected, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


_ROW_SUMS = ("each weight was divided by the sum of another row: a row sum of shape (n,) divides "
             "the columns. Keep its axis (keepdims=True) to divide row by row.")


def _mistaken_A(A, X, W_Q, W_K, d_v):
    """The hint naming the mistake that gives this A, or None."""
    Q, K = X @ W_Q, X @ W_K  # (n, d_k) each
    d, d_k = W_Q.shape
    S = Q @ K.T / np.sqrt(d_k)  # (n, n): the right scores
    E, F = np.exp(S), np.exp(S - S.max(axis=1, keepdims=True))  # (n, n): plain and shifted
    mistakes = [
        (softmax(S.T), "your scores are K Qᵀ: row i compares key i with every query. "
         "Row i must hold query i's scores against every key."),
        (softmax(S).T, "your A is transposed (rows and columns swapped): row i must hold "
         "query i's weights over the keys."),
        (softmax(S, axis=0), "softmax ran over the wrong axis: the columns of your A sum "
         "to 1, but each query's row of weights should."),
        (softmax(S * np.sqrt(d_k)), "the scores are not scaled: you left out the 1/√d_k."),
        (softmax(S / np.sqrt(d_k)), "you divided the scores by d_k; the scale is its "
         "square root."),
        (E / E.sum(axis=1), _ROW_SUMS),
        (F / F.sum(axis=1), _ROW_SUMS),
        (softmax(Q @ Q.T / np.sqrt(d_k)), "your keys are X W_Q, the queries: keys come "
         "from W_K."),
        (softmax(K @ K.T / np.sqrt(d_k)), "your queries are X W_K, the keys: queries come "
         "from W_Q."),
    ]
    if d != d_k:
        mistakes.append((softmax(S * np.sqrt(d_k / d)), f"you scaled by √d, with d = {d} "
                         "the width of X; the scale uses d_k, the length of a query."))
    if d_v != d_k:
        mistakes.append((softmax(S * np.sqrt(d_k / d_v)), f"you scaled by √d_v, with d_v = {d_v} "
                         "the width of a value; the scale uses d_k, the length of a query."))
    n = len(S)
    shifted = np.exp(S - S.max(axis=1))  # (n, n) − (n,): row j's max taken off column j
    mistakes += [
        (softmax(S * d_k), "you multiplied the scores by √d_k; they are divided by it."),
        (softmax(np.where(np.tril(np.ones((n, n), dtype=bool)), S, -np.inf)), "your A is "
         "causal (zero above the diagonal): this exercise asks for plain self-attention, every "
         "query seeing every key, unless a mask is given."),
        (shifted / shifted.sum(axis=1, keepdims=True), "you subtracted S.max(axis=1) without "
         "keepdims: the max of row j came off column j. Keep the axis (keepdims=True)."),
        *((softmax(S * np.sqrt(d_k) / c), f"you divided the scores by {c:g}, a size written as a "
           f"number: √d_k is {np.sqrt(d_k):g} here. Read d_k from the arrays.")
          for c in (2.0, 4.0, 8.0, np.sqrt(8.0)) if not np.isclose(c, np.sqrt(d_k))),
    ]
    return next((hint for wrong, hint in mistakes if _near(A, wrong)), None)


def _mistaken_Y(Y, X, A, W_Q, W_K, W_V):
    """The hint naming the mistake that gives this Y (with the right A), or None."""
    mistakes = [
        (A @ (X @ W_K), "your values are X W_K, the keys: V comes from W_V."),
        (A @ (X @ W_Q), "your values are X W_Q, the queries: V comes from W_V."),
        (A @ X, "Y mixes the rows of X itself: the values are X projected by W_V."),
        (A.T @ (X @ W_V), "Y uses A transposed: y_i mixes the values with row i of A."),
    ]
    return next((hint for wrong, hint in mistakes if wrong.shape == Y.shape and _near(Y, wrong)),
                None)


def _masked(S, mask):
    return np.where(mask, S, -np.inf)


def _mistaken_extra(A, S, mask, bias, d_k):
    """The hint naming the mistake in a mask or a bias that gives this A, or None. ``S`` holds
    the right scaled scores Q Kᵀ/√d_k, before the bias and the mask."""
    B = np.zeros_like(S) if bias is None else bias
    M = np.ones(S.shape, dtype=bool) if mask is None else mask
    mistakes = []
    if bias is not None:
        mistakes += [
            (softmax(_masked(S, M)), "your A is the same as without the bias: add the bias to the "
             "scores, before the softmax."),
            (softmax(_masked(S + B / np.sqrt(d_k), M)), "you divided the bias by √d_k too: it "
             "is added to the scores after they are scaled, S = Q Kᵀ/√d_k + B."),
            (softmax(_masked(S - B, M)), "you subtracted the bias: it is added to the scores "
             "(a penalty such as ALiBi's is a bias that is already negative)."),
            (softmax(_masked(S + B.T, M)), "your bias is transposed: B[i, j] belongs to query i "
             "(a row) and key j (a column)."),
            (softmax(_masked(S, M)) + B, "you added the bias to the weights: it goes on the "
             "scores, before the softmax."),
        ]
    if mask is not None:
        plain = softmax(S + B)
        mistakes += [
            (plain, "your A is the same as without the mask: where the mask is False, a key must "
             "get weight 0."),
            (plain * mask, "you zeroed the masked weights after the softmax, so the rows no longer "
             "sum to 1: mask the scores before the softmax."),
            (softmax(np.where(mask, S + B, 0.0)), "a masked score set to 0 still gets the weight "
             "e⁰ > 0: a masked score must be −∞ (or so negative that its exp is 0)."),
            (softmax(_masked(S + B, mask.T)), "your mask is transposed: row i of the mask says "
             "which keys query i may attend to."),
        ]
        causal = np.tril(np.ones(S.shape, dtype=bool))  # (n, n)
        if not np.array_equal(mask, causal):
            mistakes.append((softmax(_masked(S + B, causal)), "your A is causal whatever mask "
                             "it is given: the mask argument says which keys each query sees."))
    hint = next((hint for wrong, hint in mistakes if _near(A, wrong)), None)
    if hint is None and mask is not None:
        some = (~mask).any(axis=1)  # the rows an inverted mask leaves a key
        if _near(A[some], softmax(_masked(S + B, ~mask)[some])):
            hint = ("your A puts weight where the mask is False and none where it is True: True "
                    "marks a key the query may attend to.")
    return hint


def _not_finite(A, shape) -> bool:
    """Whether A is an array of ``shape`` with a NaN or an inf in it."""
    try:
        A = np.asarray(A, dtype=float)
    except (TypeError, ValueError):
        return False
    return A.shape == shape and not np.isfinite(A).all()


def _why_not_finite(A, S, mask, bias) -> str:
    """What a NaN or an inf in A (a function given ``mask`` or ``bias``) comes from."""
    bad = ~np.isfinite(np.asarray(A, dtype=float))  # (n, n)
    if mask is None:
        return ("your A holds NaN or inf with a bias and no mask, where every key is allowed: "
                "the bias step overflows or divides 0 by 0.")
    if bad[mask.all(axis=1)].any():  # a row the mask leaves whole
        return ("your A holds NaN even in a row the mask leaves whole: 0·(−∞) is NaN, so a mask "
                "written as a product with −∞, such as (1 − mask)·(−∞), spoils the very scores it "
                "should leave alone. Put −∞ only where the mask is False.")
    top = np.where(mask, S + (0.0 if bias is None else bias), np.inf)  # masked scores at +∞
    with np.errstate(all="ignore"):
        shifted, plain = np.exp(top - top.max(axis=1, keepdims=True)), np.exp(top)
        if any(np.array_equal(bad, ~np.isfinite(E / E.sum(axis=1, keepdims=True)))
               for E in (shifted, plain)):
            return ("your masked scores are +∞, which takes all the weight (∞ − ∞ and ∞/∞ are "
                    "NaN): a masked key needs a score of −∞, whose exp is 0.")
    return ("your A holds NaN or inf, yet every row keeps a key (query i may attend to key i): "
            "a NaN comes from 0·(−∞), ∞ − ∞ or 0/0 in the mask or bias step.")


def _with(mask, bias) -> str:
    causal = mask is not None and np.array_equal(mask, np.tril(np.ones(mask.shape, dtype=bool)))
    return " and ".join(what for what, given in (
        ("a causal mask" if causal else "a mask (each query sees its neighbours)",
         mask is not None), ("a bias", bias is not None)) if given)


ARGUMENTS = ("X", "W_Q", "W_K", "W_V")


def _ignored(f, X, W) -> str | None:
    """The first argument f's (Y, A) on (X, *W) does not depend on, or None: it is replaced by
    other numbers of the same shape, and the output stays the same."""
    inputs = (X, *W)
    try:
        before = [np.asarray(M, dtype=float) for M in f(*inputs)]
        for i, name in enumerate(ARGUMENTS):
            other = np.random.default_rng(40 + i).standard_normal(np.shape(inputs[i]))
            after = [np.asarray(M, dtype=float) for M in f(*inputs[:i], other, *inputs[i + 1:])]
            if all(a.shape == b.shape and np.allclose(a, b) for a, b in zip(after, before,
                                                                            strict=True)):
                return name
    except Exception:  # noqa: BLE001 - an answer that fails here tells nothing more
        return None
    return None


def _right_on(f, X, W) -> bool | None:
    """Whether f's (Y, A) on (X, *W) is attention's; None when f raises there."""
    try:
        Y, A = (np.asarray(M, dtype=float) for M in f(X, *W))
    except Exception:  # noqa: BLE001 - an answer may fail in any way
        return None
    Y_ok, A_ok = self_attention(X, *W)
    return Y.shape == Y_ok.shape and A.shape == A_ok.shape and _near(A, A_ok) and _near(Y, Y_ok)


def _sizes(f, shape: str, hint: NotYet) -> str:
    """A hint for f, right on the notebook's own input, that raised on the input ``shape``."""
    X, W = embed(tokenize("dog bites man")), default_projections()  # the notebook's: n=3, d=8
    said, rng = f"on {shape}, {_text(hint)}", np.random.default_rng(5)
    if (name := _ignored(f, X, W)) is not None:
        return (f"{said} Your function gives the same result whatever {name} it is given: does "
                "it use the notebook's X or W_Q, W_K, W_V instead of its own arguments (or a Q, K "
                "or V made from them)?")
    if not _right_on(f, rng.standard_normal((3, 8)), W):
        return (f"{said} It is right on the notebook's X, but not on another X of the same shape: "
                "does it use the notebook's X (or a Q, K or V made from it) instead of its own "
                "argument X?")
    if _right_on(f, rng.standard_normal((5, 8)), W) is None:
        return (f"{said} It works for n = 3 tokens, but not for n = 5 with the same d = 8, "
                "d_k = 4, d_v = 4: is n = 3 written into your function? Read n from X.")
    return (f"{said} It works for d = 8, d_k = 4, d_v = 4: is one of those sizes written into "
            "your function as a number? Read the sizes from the arrays.")


def _text(hint: NotYet) -> str:
    """A hint's text as a sentence, ending with a full stop."""
    text = str(hint).rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


_UNSET = object()  # a keyword the check leaves out, so that the function's default is used


def _compare(self_attention_fn, X, W_Q, W_K, W_V, shape: str, mask=_UNSET, bias=_UNSET):
    """Y and A of the learner's function on one input, or NotYet naming what differs; ``mask``
    and ``bias`` are passed as keywords when given (None included), as notebook 08 passes them."""
    n, d_v = len(X), W_V.shape[1]
    passed = {k: v for k, v in (("mask", mask), ("bias", bias)) if v is not _UNSET}  # copied
    # by the guard that every checker puts around the learner's function
    mask, bias = passed.get("mask"), passed.get("bias")
    extra = mask is not None or bias is not None
    if extra:
        shape = f"{shape}, with {_with(mask, bias)}"
    try:
        out = _own_work(self_attention_fn, X, W_Q, W_K, W_V, name="self_attention",
                        task="write attention", **passed)
    except NotYet as hint:
        if "truth value of an array" in str(hint):
            raise NotYet(f"on {shape}, {_text(hint)} An `if mask:` (or `if bias:`) asks for one "
                         "truth value of a whole array: test whether it is None instead."
                         ) from None
        if ("ValueError" in str(hint) or "IndexError" in str(hint)) and not passed \
                and "n=3, d=8" not in shape:  # a size clash, on a shape that is not the notebook's
            raise NotYet(_sizes(self_attention_fn, shape, hint)) from None
        raise
    if isinstance(out, (tuple, list)) and len(out) != 2:
        raise NotYet(f"self_attention should return the pair (Y, A), as pa.self_attention does; "
                     f"on {shape} it returned {len(out)} things.")
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        try:
            got = np.shape(out)
        except ValueError:  # a ragged list
            got = "a ragged list"
        what = {(n, d_v): "only Y", (n, n): "only A"}.get(got, f"shape {got}") \
            if isinstance(out, (np.ndarray, list, tuple)) else f"a {type(out).__name__}"
        raise NotYet(f"self_attention should return the pair (Y, A), as pa.self_attention does; "
                     f"on {shape} it returned {what}.")
    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_Q.shape[1])  # (n, n): the right scaled scores
    if extra and _not_finite(out[1], (n, n)):
        hint = _mistaken_extra(np.asarray(out[1], dtype=float), S, mask, bias, W_Q.shape[1])
        raise NotYet(f"on {shape}, {hint or _why_not_finite(out[1], S, mask, bias)}")
    Y, A = (as_array(M, name) for M, name in zip(out, ("Y", "A"), strict=True))
    if Y.shape == (n, n) and A.shape == (n, d_v) and n != d_v:
        raise NotYet("you returned (A, Y); pa.self_attention returns (Y, A), Y first.")
    Y_ok, A_ok = self_attention(X, W_Q, W_K, W_V, mask=mask, bias=bias)
    if A.shape != (n, n):
        if A.shape == (3, 3) and close(A, _NOTEBOOKS_A):
            raise NotYet(f"on {shape} your function returns the notebook's own \"dog bites man\" "
                         "weights: it uses the notebook's X or W_Q, W_K, W_V instead of its own "
                         "arguments.")
        if not passed and (name := _ignored(self_attention_fn, X, (W_Q, W_K, W_V))) is not None:
            raise NotYet(f"on {shape} A has shape {A.shape}, and your function gives the same "
                         f"result whatever {name} it is given: does it use the notebook's X or "
                         "W_Q, W_K, W_V instead of its own arguments (or a Q, K or V made from "
                         "them)?")
        raise NotYet(f"A should be (n, n) = ({n}, {n}), one weight per query and key, on {shape}; "
                     f"got {A.shape}.")
    if not _near(A, A_ok):
        hint = (_mistaken_extra(A, S, mask, bias, W_Q.shape[1]) if extra
                else _mistaken_A(A, X, W_Q, W_K, d_v))
        if hint is not None:
            raise NotYet(f"on {shape}, {hint}" if extra else hint)
        right = [i for i in range(n) if _near(A[i], A_ok[i])]
        if n > 3 and right == [0, 1, 2]:  # the notebook's n = 3, written into a loop
            raise NotYet(f"on {shape} the first 3 rows of your A are right and the others are "
                         "not: is n = 3 written into your function (a loop over range(3))? "
                         "Read n from X.")
        if not np.allclose(A.sum(axis=1), 1.0, atol=1e-5):
            raise NotYet(f"the rows of your A do not sum to 1 (on {shape} they sum to "
                         f"{np.round(A.sum(axis=1), 3).tolist()[:3]}…): normalise each row.")
        raise NotYet(f"on {shape} your A differs from pa.self_attention's by up to "
                     f"{np.abs(A - A_ok).max():.2g}. Check each step on this shape: the scores, "
                     "their scale, the softmax of each row.")
    if Y.shape == Y_ok.shape[::-1] and n != d_v and _near(Y.T, Y_ok):
        raise NotYet(f"your Y is transposed: it should have one row per token, (n, d_v) = "
                     f"{Y_ok.shape}, on {shape}.")
    if Y.shape != Y_ok.shape or not _near(Y, Y_ok):
        if (hint := _mistaken_Y(Y, X, A_ok, W_Q, W_K, W_V)) is not None:
            raise NotYet(hint)
        if Y.shape != Y_ok.shape:
            raise NotYet(f"Y should be (n, d_v) = {Y_ok.shape} on {shape}; got {Y.shape}.")
        raise NotYet(f"A is right, but on {shape} your Y differs from pa.self_attention's by up "
                     f"to {np.abs(Y - Y_ok).max():.2g}: y_i mixes the values with row i of A.")
    return Y, A


def _takes_mask_and_bias(f) -> bool:
    """Whether f can be called as f(X, W_Q, W_K, W_V, mask=..., bias=...)."""
    try:
        inspect.signature(f).bind(None, None, None, None, mask=None, bias=None)
    except TypeError:
        return False
    except ValueError:  # no signature to read (a builtin): let the call decide
        return True
    return True


def _break(f, X, W, perm, **extra):
    """The largest of |Y(PX) − P Y(X)| and |A(PX) − P A Pᵀ| of the learner's checked function."""
    Y, A = _compare(f, X, *W, "the last shape", **extra)
    Y_p, A_p = _compare(f, X[perm], *W, "the last shape, shuffled", **extra)
    return max(np.abs(Y_p - Y[perm]).max(), np.abs(A_p - A[perm][:, perm]).max())


@checker("a function self_attention(X, W_Q, W_K, W_V, mask=None, bias=None) that returns (Y, A)")
def check_self_attention(self_attention_fn):
    """Exercise 4: attention written from scratch, against pa.self_attention on SHAPES (the
    notebook's "dog bites man" first), then with a causal mask, a bias and both on the second
    shape, then its own equivariance error on a shuffled input, and the mask's break of it."""
    inputs = []
    for i, (n, d, d_k, d_v) in enumerate(SHAPES):
        W = default_projections(d, d_k, d_v, seed=i)  # (d, d_k), (d, d_k), (d, d_v)
        X = embed(tokenize("dog bites man")) if i == 0 else \
            np.random.default_rng(i).standard_normal((n, d))  # (n, d)
        _compare(self_attention_fn, X, *W, f"n={n}, d={d}, d_k={d_k}, d_v={d_v}")
        inputs.append((X, W))
    if not _takes_mask_and_bias(self_attention_fn):
        raise NotYet("your self_attention agrees with pa.self_attention on all three shapes. Now "
                     "let it take a mask and a bias too: def self_attention(X, W_Q, W_K, W_V, "
                     "mask=None, bias=None), where None means no mask or no bias.")
    (X, W), (n, d, d_k, d_v) = inputs[0], SHAPES[0]
    try:  # as notebook 08's symmetry_break calls it: with mask=None, bias=None written out
        _compare(self_attention_fn, X, *W, f"n={n}, d={d}, d_k={d_k}, d_v={d_v}", mask=None,
                 bias=None)
    except NotYet as hint:
        raise NotYet(f"your self_attention agrees with pa.self_attention when mask and bias are "
                     f"left out, but not when they are passed as mask=None, bias=None, as notebook "
                     f"08 will pass them: {_text(hint)} None means no mask and no bias.") from None
    (X, W), n = inputs[1], SHAPES[1][0]
    causal = np.tril(np.ones((n, n), dtype=bool))  # (n, n): query i sees keys j ≤ i
    bias = np.random.default_rng(5).normal(size=(n, n))  # (n, n): a bias per query and key
    window = np.abs(np.subtract.outer(range(n), range(n))) <= 1  # (n, n): keys j next to i
    for mask, B in ((causal, None), (None, bias), (causal, bias), (window, None)):
        _compare(self_attention_fn, X, *W, f"n={n}", mask=mask, bias=B)
    (X, W), n = inputs[-1], SHAPES[-1][0]
    perm = np.random.default_rng(7).permutation(n)  # a shuffle of the last input's n tokens
    error = _break(self_attention_fn, X, W, perm)
    masked = _break(self_attention_fn, X, W, perm, mask=np.tril(np.ones((n, n), dtype=bool)),
                    bias=None)
    return (f"your function agrees with pa.self_attention on all three shapes, with a mask and "
            f"a bias too. Shuffling the {n} tokens of the last input only moved its outputs: the "
            f"largest of |Y(PX) − P Y(X)| and |A(PX) − P A Pᵀ| is {error:.1e}. Your own code is "
            f"permutation equivariant; with a causal mask the same shuffle changes it by "
            f"{masked:.2f}. Keep this function: notebook 08 asks for it again.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

"""The notebook 03 checkers accept right answers in any form and name the usual mistakes."""

import math
import re

import numpy as np
import pytest

import posattn as pa
from posattn.attention import softmax as softmax_imported_under_its_name
from posattn.exercises import nb03
from solutions import nb03_solutions as solutions


def test_solutions_pass_their_checkers():
    assert nb03.check_stable_softmax(solutions.stable_softmax).ok
    assert nb03.check_score_spread(solutions.spread_at_256).ok
    assert nb03.check_query_of_man(solutions.q_man).ok
    assert nb03.check_self_attention(solutions.self_attention).ok


# Exercise 1: a stable softmax, built with np.exp

def naive_softmax(s):
    return np.exp(s) / np.exp(s).sum()


def softmax_by_loop(s):
    top = max(s)
    e = [math.exp(x - top) for x in s]  # the largest term is exp(0) = 1
    return [x / sum(e) for x in e]


def softmax_float32_at_the_end(s):
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max())
    return (e / e.sum()).astype(np.float32)  # issue 18: float32 answers are right


def softmax_as_ratios(s):
    with np.errstate(over="ignore"):  # exp(s_l − s_j) = inf for a far smaller s_j: weight 0
        return 1 / np.exp(s[None, :] - s[:, None]).sum(axis=1)  # 1 / Σ_l exp(s_l − s_j)


def softmax_in_float32(s):
    s = np.asarray(s, dtype=np.float32)  # 1e300 does not fit: inf
    e = np.exp(s - s.max())
    return e / e.sum()


@pytest.mark.parametrize("f", [
    solutions.stable_softmax,
    softmax_by_loop,
    softmax_float32_at_the_end,
    lambda s: np.exp(s - np.logaddexp.reduce(s)),  # exp(s - log Σ exp s), an equivalent formula
    softmax_as_ratios,
], ids=["solution", "loop", "float32", "log-sum-exp", "ratios"])
def test_right_softmax_passes_in_any_form(f):
    feedback = nb03.check_stable_softmax(f)
    assert feedback.ok, feedback.message


def _pretend_library(module_name: str):
    """A softmax defined in a module named like another library's (scipy.special)."""
    space = {"__name__": module_name, "np": np}
    exec("def softmax(s):\n    e = np.exp(s - np.max(s))\n    return e / e.sum()", space)
    return space["softmax"]


@pytest.mark.parametrize(("f", "hint"), [
    (naive_softmax, "inf or nan"),  # no shift
    (lambda s: np.exp(s - s.max()), "not softmax"),  # no normalisation
    (lambda s: np.exp(s - s.min()) / np.exp(s - s.min()).sum(), "inf or nan"),  # shift by min
    (softmax_in_float32, "float32 stops near 3.4e38"),
    (lambda s: pa.softmax(s), "calls pa.softmax"),  # issue 18: breaks the exercise's rule
    (pa.softmax, "calls pa.softmax"),
    (lambda s: softmax_imported_under_its_name(s), "calls pa.softmax"),
    (lambda s: pa.self_attention(np.eye(len(s)), np.zeros((len(s), 1)), np.zeros((len(s), 1)),
                                 np.eye(len(s)))[1][0], "calls pa.self_attention"),
    (lambda s: _pretend_library("scipy.special")(s), "calls softmax from scipy"),
    (lambda s: ..., "returns nothing yet"),
    (lambda s: np.ones(2), "shape"),
    (lambda s: "weights", "must be an array of numbers"),
    (lambda s: s.nope, "AttributeError"),
    ("softmax", "must be a function"),
])
def test_wrong_softmax_gets_a_hint(f, hint):
    feedback = nb03.check_stable_softmax(f)
    assert not feedback.ok and hint in feedback.message


def test_a_helper_of_ones_own_named_softmax_is_no_borrowing():
    def softmax(s):  # defined here, like a helper in the student's notebook
        e = np.exp(s - s.max())
        return e / e.sum()

    assert nb03.check_stable_softmax(lambda s: softmax(np.asarray(s, dtype=float))).ok


# Exercise 2: the spread of q·k

@pytest.mark.parametrize("answer", [16, 16.0, np.float32(16.0), np.sqrt(256), 256 ** 0.5, 15.9])
def test_right_spread_passes_in_any_form(answer):
    assert nb03.check_score_spread(answer).ok


@pytest.mark.parametrize(("answer", "hint"), [
    (256, "variance"),
    (2.0, "sum of d_k"),
    (1.0, "sum of d_k"),  # the spread after scaling
    ("sixteen", "must be an array of numbers"),
    ([16.0, 16.0], "shape ()"),
    (float("nan"), "NaN"),
    (4 + 4j, "real numbers"),
])
def test_wrong_spread_gets_a_hint(answer, hint):
    feedback = nb03.check_score_spread(answer)
    assert not feedback.ok and hint in feedback.message


# Exercise 3: the query of "man"

X_MBD = pa.embed(pa.tokenize("man bites dog"))  # (3, 8)
W_Q, W_K, W_V = pa.default_projections()  # (8, 4) each


@pytest.mark.parametrize("q_man", [
    X_MBD[0] @ W_Q,
    (X_MBD @ W_Q)[0].tolist(),
    (X_MBD[0] @ W_Q).astype(np.float32),  # issue 18: float32
    X_MBD.astype(np.float32)[0] @ W_Q.astype(np.float32),
    (pa.embed(pa.tokenize("dog bites man")) @ W_Q)[2],  # the same word, last in the other order
    [sum(X_MBD[0, m] * W_Q[m, c] for m in range(8)) for c in range(4)],  # a loop
], ids=["row times W_Q", "list", "float32", "float32 inputs", "from dog bites man", "loop"])
def test_right_query_passes_in_any_form(q_man):
    feedback = nb03.check_query_of_man(q_man)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize(("q_man", "hint"), [
    (X_MBD[0] @ W_K, "key of 'man'"),
    (X_MBD[0] @ W_V, "value of 'man'"),
    (X_MBD[2] @ W_Q, "query of 'dog'"),  # the row of "man" in "dog bites man"
    (X_MBD[1] @ W_Q, "query of 'bites'"),
    (X_MBD[0] @ W_Q / 2.0, "divided by √d_k"),
    (X_MBD[0] @ W_Q[:, ::-1], "not the query of 'man'"),  # the columns of W_Q reversed
    (X_MBD[0], "shape"),
])
def test_wrong_query_gets_a_hint(q_man, hint):
    feedback = nb03.check_query_of_man(q_man)
    assert not feedback.ok and hint in feedback.message


def test_the_generic_query_hint_does_not_give_the_answer_away():
    message = nb03.check_query_of_man(X_MBD[0] @ W_Q[:, ::-1]).message
    assert "W_Q" not in message and "x W" not in message and "@" not in message


# Exercise 4: self-attention from scratch

def _softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _scores(Q, K, mask, bias):
    S = Q @ K.T / np.sqrt(K.shape[1])
    S = S if bias is None else S + bias
    return S if mask is None else np.where(mask, S, -1e9)  # a very negative score, not −∞


def by_loop(X, W_Q, W_K, W_V, mask=None, bias=None):
    n = len(X)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A, Y = np.zeros((n, n)), np.zeros((n, V.shape[1]))
    for i in range(n):  # one query at a time, plain softmax, masked keys skipped
        keys = [j for j in range(n) if mask is None or mask[i][j]]
        s = np.array([Q[i] @ K[j] / np.sqrt(Q.shape[1]) + (0 if bias is None else bias[i][j])
                      for j in keys])
        A[i, keys] = np.exp(s) / np.exp(s).sum()
        Y[i] = A[i] @ V
    return Y, A


def by_einsum(X, W_Q, W_K, W_V, mask=None, bias=None):
    Q, K, V = (np.einsum("nd,dk->nk", X, W) for W in (W_Q, W_K, W_V))
    S = np.einsum("ik,jk->ij", Q, K) / np.sqrt(Q.shape[-1]) + (0 if bias is None else bias)
    E = np.exp(S) * (1 if mask is None else mask)  # masked after exp, then normalised: the same
    A = E / E.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", A, V), A


def in_float32(X, W_Q, W_K, W_V, mask=None, bias=None):
    X, W_Q, W_K, W_V = (np.asarray(M, dtype=np.float32) for M in (X, W_Q, W_K, W_V))
    return solutions.self_attention(X, W_Q, W_K, W_V, mask, bias)


def as_lists(X, W_Q, W_K, W_V, mask=None, bias=None):
    Y, A = solutions.self_attention(X, W_Q, W_K, W_V, mask=mask, bias=bias)
    return [Y.tolist(), A.tolist()]


def with_large_negative_mask(X, W_Q, W_K, W_V, mask=None, bias=None):
    A = _softmax(_scores(X @ W_Q, X @ W_K, mask, bias))
    return A @ (X @ W_V), A


def with_keywords_only(X, W_Q, W_K, W_V, *, bias=None, mask=None):
    return solutions.self_attention(X, W_Q, W_K, W_V, mask, bias)


def my_stable_softmax(s):  # the learner's exercise-1 answer, defined beside the exercise
    e = np.exp(s - s.max())
    return e / e.sum()


def with_own_softmax_helper(X, W_Q, W_K, W_V, mask=None, bias=None):  # reuses it, row by row
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = np.array([my_stable_softmax(row) for row in _scores(Q, K, mask, bias)])
    return A @ V, A


@pytest.mark.parametrize("f", [
    solutions.self_attention, by_loop, by_einsum, in_float32, as_lists, with_large_negative_mask,
    with_keywords_only,
], ids=["solution", "loop over queries", "einsum", "float32", "lists", "mask as -1e9",
        "keyword-only mask and bias"])
def test_right_self_attention_passes_in_any_form(f):
    feedback = nb03.check_self_attention(f)
    assert feedback.ok, feedback.message
    assert "|Y(PX) − P Y(X)|" in feedback.message  # the learner's own equivariance error
    masked = float(re.search(r"with a causal mask the same shuffle changes it by (\d+\.\d+)",
                             feedback.message)[1])
    assert masked > 0.01  # the mask's break, measured on the learner's function


def test_reusing_a_softmax_of_ones_own_is_from_scratch():
    feedback = nb03.check_self_attention(with_own_softmax_helper)
    assert feedback.ok, feedback.message


def test_attention_without_a_mask_and_a_bias_is_asked_for_them():
    feedback = nb03.check_self_attention(lambda X, W_Q, W_K, W_V: _plain(X, W_Q, W_K, W_V))
    assert not feedback.ok and "agrees with pa.self_attention on all three shapes" in \
        feedback.message and "mask=None, bias=None" in feedback.message, feedback.message


def _plain(X, W_Q, W_K, W_V):
    return solutions.self_attention(X, W_Q, W_K, W_V)


def _extra(scores):
    """A learner's attention whose mask or bias step is scores(S, mask, bias), S = QKᵀ/√d_k."""
    def f(X, W_Q, W_K, W_V, mask=None, bias=None):
        Q, K = X @ W_Q, X @ W_K
        with np.errstate(invalid="ignore"):  # an inverted mask leaves a row with no key: NaN
            A = _softmax(scores(Q @ K.T / np.sqrt(K.shape[1]), mask, bias))
        return A @ (X @ W_V), A
    return f


def _b(bias):
    return 0 if bias is None else np.asarray(bias)


def _m(S, mask, blocked=-np.inf):
    return S if mask is None else np.where(mask, S, blocked)


def _masked_after_softmax(X, W_Q, W_K, W_V, mask=None, bias=None):
    Y, A = solutions.self_attention(X, W_Q, W_K, W_V, bias=bias)
    A = A if mask is None else A * mask
    return A @ (X @ W_V), A


def _bias_scaled_too(X, W_Q, W_K, W_V, mask=None, bias=None):
    Q, K = X @ W_Q, X @ W_K
    A = _softmax(_m((Q @ K.T + _b(bias)) / np.sqrt(K.shape[1]), mask))  # (QKᵀ + B)/√d_k
    return A @ (X @ W_V), A


def _bias_on_the_weights(X, W_Q, W_K, W_V, mask=None, bias=None):
    Y, A = solutions.self_attention(X, W_Q, W_K, W_V, mask=mask)
    A = A + _b(bias)
    return A @ (X @ W_V), A


@pytest.mark.parametrize(("f", "hint"), [
    (_extra(lambda S, mask, bias: S + _b(bias)), "same as without the mask"),
    (_extra(lambda S, mask, bias: _m(S, mask)), "same as without the bias"),
    (_extra(lambda S, mask, bias: _m(S + _b(bias), mask, 0.0)), "a masked score set to 0"),
    (_extra(lambda S, mask, bias: _m(S + _b(bias), None if mask is None else ~mask)),
     "True marks a key the query may attend to"),
    (_extra(lambda S, mask, bias: _m(S + _b(bias), None if mask is None else np.transpose(mask))),
     "your mask is transposed"),
    (_masked_after_softmax, "zeroed the masked weights after the softmax"),
    (_bias_scaled_too, "divided the bias by √d_k"),
    (_extra(lambda S, mask, bias: _m(S - _b(bias), mask)), "you subtracted the bias"),
    (_extra(lambda S, mask, bias: _m(S + np.transpose(_b(bias)), mask)), "bias is transposed"),
    (_bias_on_the_weights, "added the bias to the weights"),
])
def test_a_wrong_mask_or_bias_gets_a_hint_naming_the_mistake(f, hint):
    feedback = nb03.check_self_attention(f)
    assert not feedback.ok and hint in feedback.message, feedback.message


def _attention(scores, values=lambda X, W_Q, W_K, W_V: X @ W_V, axis=-1, answer=None):
    """A learner's attention with one step changed: scores(Q, K), values(...), the softmax axis."""
    def f(X, W_Q, W_K, W_V):
        A = _softmax(scores(X @ W_Q, X @ W_K), axis=axis)
        Y = A @ values(X, W_Q, W_K, W_V)
        return (Y, A) if answer is None else answer(Y, A)
    return f


RIGHT = lambda Q, K: Q @ K.T / np.sqrt(K.shape[1])  # noqa: E731


@pytest.mark.parametrize(("f", "hint"), [
    (_attention(RIGHT, axis=0), "wrong axis"),
    (_attention(lambda Q, K: Q @ K.T), "left out the 1/√d_k"),
    (_attention(lambda Q, K: K @ Q.T / np.sqrt(K.shape[1])), "K Qᵀ"),
    (_attention(RIGHT, answer=lambda Y, A: (Y, A.T)), "transposed"),
    (_attention(RIGHT, values=lambda X, W_Q, W_K, W_V: X @ W_K), "X W_K, the keys"),
    (_attention(RIGHT, values=lambda X, W_Q, W_K, W_V: X @ W_Q), "X W_Q, the queries"),
    (_attention(RIGHT, answer=lambda Y, A: Y), "returned only Y"),
    (_attention(RIGHT, answer=lambda Y, A: A), "returned only A"),
    (_attention(RIGHT, answer=lambda Y, A: (A, Y)), "you returned (A, Y)"),
    (_attention(lambda Q, K: Q @ K.T / K.shape[1]), "divided the scores by d_k"),
    (_attention(lambda Q, K: Q @ K.T / 2.0), "a size written as a number"),  # √4, fixed
    (_attention(RIGHT, values=lambda X, W_Q, W_K, W_V: X), "rows of X itself"),
    (_attention(lambda Q, K: Q @ Q.T / np.sqrt(K.shape[1])), "your keys are X W_Q"),
    (lambda X, W_Q, W_K, W_V: (np.exp(RIGHT(X @ W_Q, X @ W_K)) @ (X @ W_V),
                               np.exp(RIGHT(X @ W_Q, X @ W_K))), "do not sum to 1"),
    (lambda X, W_Q, W_K, W_V: _row_sum_without_keepdims(X, W_Q, W_K, W_V), "keepdims"),
    (lambda X, W_Q, W_K, W_V: pa.self_attention(X, W_Q, W_K, W_V), "calls pa.self_attention"),
    (_attention(RIGHT, answer=lambda Y, A: (Y, pa.softmax(np.log(A)))), "calls pa.softmax"),
    (lambda X, W_Q, W_K, W_V: ..., "returns nothing yet"),
    (lambda X, W_Q, W_K, W_V: 1 / 0, "ZeroDivisionError"),
])
def test_wrong_self_attention_gets_a_hint_naming_the_mistake(f, hint):
    feedback = nb03.check_self_attention(f)
    assert not feedback.ok and hint in feedback.message, feedback.message


def _row_sum_without_keepdims(X, W_Q, W_K, W_V):
    E = np.exp(RIGHT(X @ W_Q, X @ W_K))
    A = E / E.sum(axis=1)  # (n, n) / (n,): divides column j by row j's sum
    return A @ (X @ W_V), A


def test_the_exercise_states_the_shapes_the_checker_uses():
    assert nb03.SHAPES[0] == (3, 8, 4, 4)  # the notebook's own "dog bites man" first
    assert len({shape[2:] for shape in nb03.SHAPES}) == len(nb03.SHAPES)  # d_k, d_v vary


# Issue 29: side effects, and hints that name the mistake

def test_an_answer_that_scales_the_callers_weights_in_place_is_told_so():
    def scales_in_place(X, W_Q, W_K, W_V, mask=None, bias=None):
        W_Q /= np.sqrt(W_Q.shape[1])  # the scale moved into W_Q, in place
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        A = _softmax(_scores(Q, K, mask, bias) * np.sqrt(K.shape[1]))
        return A @ V, A

    feedback = nb03.check_self_attention(scales_in_place)
    assert not feedback.ok and "changes its input W_Q in place" in feedback.message


NOTEBOOK_X, NOTEBOOK_W = pa.embed(pa.tokenize("dog bites man")), pa.default_projections()


def _global_W(X, W_Q, W_K, W_V, mask=None, bias=None):  # the notebook's W, not the arguments
    return solutions.self_attention(X, *NOTEBOOK_W, mask, bias)


def _global_X(X, W_Q, W_K, W_V, mask=None, bias=None):  # the notebook's X and W
    return solutions.self_attention(NOTEBOOK_X, *NOTEBOOK_W, mask, bias)


def _max_without_keepdims(X, W_Q, W_K, W_V):
    S = RIGHT(X @ W_Q, X @ W_K)
    E = np.exp(S - S.max(axis=1))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ (X @ W_V), A


def _causal_by_habit(X, W_Q, W_K, W_V):
    S = RIGHT(X @ W_Q, X @ W_K)
    A = _softmax(np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf))
    return A @ (X @ W_V), A


@pytest.mark.parametrize(("f", "hint"), [
    (_causal_by_habit, "your A is causal"),
    (_max_without_keepdims, "S.max(axis=1) without keepdims"),
    (_global_W, "the notebook's X or W_Q, W_K, W_V instead of its own arguments"),
    (_global_X, "the notebook's X or W_Q, W_K, W_V instead of its own arguments"),
    (_attention(RIGHT, answer=lambda Y, A: (Y.T, A)), "your Y is transposed"),
    (_attention(lambda Q, K: Q @ K.T / 8.0), "divided the scores by 8, a size written as"),
    (_attention(lambda Q, K: Q @ K.T * np.sqrt(K.shape[1])), "multiplied the scores by √d_k"),
    (lambda X, W_Q, W_K, W_V: (*solutions.self_attention(X, W_Q, W_K, W_V), None),
     "it returned 3 things"),
])
def test_more_plausible_mistakes_are_named(f, hint):
    feedback = nb03.check_self_attention(f)
    assert not feedback.ok and hint in feedback.message, feedback.message


def test_scaling_by_the_square_root_of_d_v_is_named():
    def by_d_v(X, W_Q, W_K, W_V):
        A = _softmax((X @ W_Q) @ (X @ W_K).T / np.sqrt(W_V.shape[1]))
        return A @ (X @ W_V), A

    feedback = nb03.check_self_attention(by_d_v)
    assert not feedback.ok and "√d_v" in feedback.message, feedback.message


def test_the_fallback_hint_no_longer_guesses_a_number_written_as_a_size():
    def off(X, W_Q, W_K, W_V):
        A = _softmax(RIGHT(X @ W_Q, X @ W_K) + 0.3 * np.eye(len(X)))  # something else entirely
        return A @ (X @ W_V), A

    feedback = nb03.check_self_attention(off)
    assert not feedback.ok and "written as a number" not in feedback.message, feedback.message


def general_attention(X, W_Q, W_K, W_V, mask=None, bias=None, scale=None):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / (np.sqrt(K.shape[1]) if scale is None else scale)
    S = S if bias is None else S + bias
    S = S if mask is None else np.where(mask, S, -np.inf)
    A = np.array([my_stable_softmax(row) for row in S])
    return A @ V, A


def test_a_partial_of_ones_own_general_function_with_ones_own_softmax_is_right():
    import functools
    feedback = nb03.check_self_attention(functools.partial(general_attention, scale=None))
    assert feedback.ok, feedback.message


# Issue 40: a Right in 03 holds in 08, a helper of one's own is one's own, and every hint names
# the mistake that was made (each hint is checked for what it must say and for the false claim
# it made before)

def _defaults_true_and_zero(X, W_Q, W_K, W_V, mask=True, bias=0.0):
    """Right when mask and bias are left out; mask=None, bias=None (as 08 passes) break it."""
    Q, K = X @ W_Q, X @ W_K
    A = _softmax(np.where(mask, Q @ K.T / np.sqrt(K.shape[1]) + bias, -np.inf))
    return A @ (X @ W_V), A


def _keywords_with_get(X, W_Q, W_K, W_V, **options):
    Q, K = X @ W_Q, X @ W_K
    S = Q @ K.T / np.sqrt(K.shape[1]) + options.get("bias", 0.0)
    mask = options.get("mask")
    A = _softmax(S if mask is None else np.where(mask, S, -np.inf))
    return A @ (X @ W_V), A


@pytest.mark.parametrize("f", [_defaults_true_and_zero, _keywords_with_get],
                         ids=["mask=True, bias=0.0", "**options with .get('bias', 0.0)"])
def test_a_function_that_fails_when_mask_and_bias_are_passed_as_none_is_not_yet(f):
    """Both were Right in 03 ("keep this function: notebook 08 asks for it again") and raised in
    08, whose symmetry_break passes mask=None, bias=None."""
    feedback = nb03.check_self_attention(f)
    assert not feedback.ok, feedback.message
    assert "mask=None" in feedback.message and "notebook 08" in feedback.message, feedback.message


def test_a_helper_of_ones_own_named_softmax_in_ones_own_module_is_no_borrowing(tmp_path,
                                                                               monkeypatch):
    """It was refused as "calls softmax from my_helpers", and accepted as normalise_rows."""
    (tmp_path / "my_helpers.py").write_text(
        "import numpy as np\n\n\ndef softmax(S):\n    E = np.exp(S - S.max(axis=-1, keepdims=True))"
        "\n    return E / E.sum(axis=-1, keepdims=True)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from my_helpers import softmax

    def self_attention(X, W_Q, W_K, W_V, mask=None, bias=None):
        A = softmax(_scores(X @ W_Q, X @ W_K, mask, bias))
        return A @ (X @ W_V), A

    feedback = nb03.check_self_attention(self_attention)
    assert feedback.ok, feedback.message
    assert nb03.check_stable_softmax(lambda s: softmax(np.asarray(s, dtype=float))).ok


def _global_K(X, W_Q, W_K, W_V, mask=None, bias=None):  # the keys of the notebook's X
    A = _softmax(_m((X @ W_Q) @ (NOTEBOOK_X @ W_K).T / np.sqrt(W_K.shape[1]) + _b(bias), mask))
    return A @ (X @ W_V), A


def _if_mask(X, W_Q, W_K, W_V, mask=None, bias=None):
    S = RIGHT(X @ W_Q, X @ W_K) + _b(bias)
    if mask:  # the truth value of a whole array
        S = np.where(mask, S, -np.inf)
    A = _softmax(S)
    return A @ (X @ W_V), A


def _n_written_as_3(X, W_Q, W_K, W_V, mask=None, bias=None):
    if mask is None:
        mask = np.ones((3, 3), dtype=bool)  # the notebook's sentence has 3 words
    A = _softmax(np.where(mask, RIGHT(X @ W_Q, X @ W_K) + _b(bias), -np.inf))
    return A @ (X @ W_V), A


def _loop_over_three(X, W_Q, W_K, W_V, mask=None, bias=None):
    A = np.zeros((len(X), len(X)))
    S = _m(RIGHT(X @ W_Q, X @ W_K) + _b(bias), mask)
    for i in range(3):  # the notebook's sentence has 3 words
        A[i] = _softmax(S[i])
    return A @ (X @ W_V), A


def _causal_whatever_the_mask(X, W_Q, W_K, W_V, mask=None, bias=None):  # it was Right
    S = RIGHT(X @ W_Q, X @ W_K) + _b(bias)
    if mask is not None:
        S = np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)
    A = _softmax(S)
    return A @ (X @ W_V), A


def _zero_times_inf(X, W_Q, W_K, W_V, mask=None, bias=None):
    S = RIGHT(X @ W_Q, X @ W_K) + _b(bias)
    if mask is not None:
        with np.errstate(invalid="ignore"):
            S = S + (1 - mask) * -np.inf  # 0·(−∞) is NaN where the mask is True
    A = _softmax(S)
    return A @ (X @ W_V), A


def _plus_inf(X, W_Q, W_K, W_V, mask=None, bias=None):
    A = _softmax(_m(RIGHT(X @ W_Q, X @ W_K) + _b(bias), mask, np.inf))
    return A @ (X @ W_V), A


def _no_return_when_masked(X, W_Q, W_K, W_V, mask=None, bias=None):
    S = RIGHT(X @ W_Q, X @ W_K) + _b(bias)
    if mask is None:
        A = _softmax(S)
        return A @ (X @ W_V), A
    A = _softmax(np.where(mask, S, -np.inf))  # and no return on this branch


@pytest.mark.parametrize(("f", "says", "not_said"), [
    (_if_mask, ["if mask", "truth value", "Use a.any() or a.all()"], ["notebook's X"]),
    (_n_written_as_3, ["n = 3", "n=5"], ["notebook's X"]),
    (_loop_over_three, ["n = 3", "range(3)"], ["normalise each row"]),
    (_causal_whatever_the_mask, ["causal whatever mask it is given"], []),
    (_global_K, ["not on another X of the same shape"], ["n = 3 written"]),
    (_zero_times_inf, ["0·(−∞)"], ["no key left"]),
    (_plus_inf, ["+∞"], ["no key left"]),
    (_no_return_when_masked, ["returned None", "branch"], ["replace the ..."]),
], ids=["if mask:", "n hard-coded", "a loop over range(3)", "causal whatever the mask",
        "the notebook's X for K", "0·(−∞)", "+np.inf mask",
        "a branch without return"])
def test_each_self_attention_slip_is_named_as_what_it_is(f, says, not_said):
    feedback = nb03.check_self_attention(f)
    assert not feedback.ok, feedback.message
    for words in says:
        assert words in feedback.message, feedback.message
    for words in not_said:
        assert words not in feedback.message, feedback.message


def test_an_error_message_is_never_cut_mid_sentence():
    """numpy's matmul message was cut at 120 characters, before "(size 8 is different from 6)"."""
    feedback = nb03.check_self_attention(_global_W)
    assert not feedback.ok and "instead of its own arguments" in feedback.message
    raised = nb03.check_self_attention(lambda X, W_Q, W_K, W_V: (X @ np.ones((7, 2)), None))
    assert "raised ValueError" in raised.message, raised.message
    assert "(size 7 is different from 8)" in raised.message, raised.message


def _global_Q(X, W_Q, W_K, W_V, mask=None, bias=None):  # the notebook's queries
    Q = NOTEBOOK_X @ NOTEBOOK_W[0]
    A = _softmax(_m(Q @ (X @ W_K).T / np.sqrt(W_K.shape[1]) + _b(bias), mask))
    return A @ (X @ W_V), A


def test_an_answer_that_ignores_an_argument_is_told_which():
    feedback = nb03.check_self_attention(_global_Q)
    assert not feedback.ok and "instead of its own arguments" in feedback.message, \
        feedback.message
    assert "whatever W_Q it is given" in feedback.message


@pytest.mark.parametrize(("f", "says", "not_said"), [
    (lambda s: np.exp(s - np.min(s)) / np.exp(s - np.min(s)).sum(), ["smallest"],
     ["Shift the scores first"]),
    (lambda s: _softmax(np.asarray(s, float)) if max(s) > 100 else None, ["returned None",
                                                                          "branch"],
     ["replace the ..."]),
], ids=["shift by the minimum", "a branch without return"])
def test_each_softmax_slip_is_named_as_what_it_is(f, says, not_said):
    feedback = nb03.check_stable_softmax(f)
    assert not feedback.ok, feedback.message
    for words in says:
        assert words in feedback.message, feedback.message
    for words in not_said:
        assert words not in feedback.message, feedback.message

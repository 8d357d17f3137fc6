"""The notebook 03 checkers accept the solutions and answer wrong ones with a hint."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb03
from solutions import nb03_solutions as solutions


def test_solutions_pass_their_checkers():
    assert nb03.check_stable_softmax(solutions.stable_softmax).ok
    assert nb03.check_score_spread(solutions.spread_at_256).ok
    assert nb03.check_query_of_man(solutions.q_man).ok


def naive_softmax(s):
    return np.exp(s) / np.exp(s).sum()


@pytest.mark.parametrize(("f", "hint"), [
    (naive_softmax, "inf or nan"),
    (lambda s: np.exp(s - s.max()), "not softmax"),
    (lambda s: ..., "returns nothing yet"),
    (lambda s: np.ones(2), "shape"),
    (lambda s: "weights", "must be an array of numbers"),
    (lambda s: s.nope, "AttributeError"),
    ("softmax", "must be a function"),
])
def test_wrong_softmax_gets_a_hint(f, hint):
    feedback = nb03.check_stable_softmax(f)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("answer", "hint"), [
    (256, "variance"),
    (2.0, "sum of d_k"),
    ("sixteen", "must be an array of numbers"),
    ([16.0, 16.0], "shape ()"),
    (float("nan"), "NaN"),
    (4 + 4j, "real numbers"),
])
def test_wrong_spread_gets_a_hint(answer, hint):
    feedback = nb03.check_score_spread(answer)
    assert not feedback.ok and hint in feedback.message


def test_wrong_query_gets_a_hint():
    X = pa.embed(pa.tokenize("man bites dog"))
    W_Q, W_K, _ = pa.default_projections()
    assert "W_K" in nb03.check_query_of_man(X[0] @ W_K).message
    assert "row 0 of X_mbd" in nb03.check_query_of_man(X[2] @ W_Q).message  # the query of "dog"
    assert "shape" in nb03.check_query_of_man(X[0]).message

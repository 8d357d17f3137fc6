"""The notebook 03 checkers accept the solutions and reject wrong answers."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb03
from solutions import nb03_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb03.check_stable_softmax(SOL.stable_softmax).ok
    assert nb03.check_score_spread(SOL.spread_at_256).ok
    assert nb03.check_query_of_man(SOL.query_of_man()).ok


def naive_softmax(s):
    return np.exp(s) / np.exp(s).sum()


@pytest.mark.parametrize(
    ("f", "message"),
    [
        (naive_softmax, "inf or nan"),
        (lambda s: np.exp(s - s.max()), "not softmax"),
        (lambda s: ..., "returns nothing yet"),
        (lambda s: np.ones(2), "must have shape"),
        ("softmax", "must be a function"),
    ],
)
def test_wrong_softmax_gets_not_yet(f, message):
    feedback = nb03.check_stable_softmax(f)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(("answer", "message"), [(256, "variance"), (2.0, "sum of d_k"), ("sixteen", "must be a number")])
def test_wrong_spread_gets_not_yet(answer, message):
    feedback = nb03.check_score_spread(answer)
    assert not feedback.ok
    assert message in feedback.message


def test_wrong_query_gets_not_yet():
    X = pa.embed(pa.tokenize("man bites dog"))
    W_Q, W_K, _ = pa.default_projections()
    assert "W_K" in nb03.check_query_of_man(X[0] @ W_K).message
    assert not nb03.check_query_of_man(X[2] @ W_Q).ok  # the query of "dog", not "man"
    assert "shape" in nb03.check_query_of_man(X[0]).message

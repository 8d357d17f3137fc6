"""The notebook 04 checkers accept the solutions and say "Not yet" with a hint to anything else."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb04
from solutions import nb04_solutions as SOL


def test_the_answers_are_the_measured_ones():
    # literal answers, not the checker's recipe: the rows of the reordered sentence, by hand
    A = pa.self_attention(pa.embed(pa.tokenize("dog bites man")), *pa.default_projections())[1]
    by_hand = [[A[1, 1], A[1, 2], A[1, 0]],
               [A[2, 1], A[2, 2], A[2, 0]],
               [A[0, 1], A[0, 2], A[0, 0]]]
    assert nb04.check_shuffled_attention(by_hand).ok
    assert nb04.check_changed_rows({4, 1}).ok


def test_solutions_pass_their_checkers():
    assert nb04.check_shuffled_attention(SOL.A_shuffled).ok
    assert nb04.check_changed_rows(SOL.changed_rows).ok
    assert nb04.check_position_entry(SOL.choice).ok


def _A_and_P():
    A = pa.self_attention(pa.embed(pa.tokenize("dog bites man")), *pa.default_projections())[1]
    return A, pa.permutation_matrix(nb04.PERM)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda A, P: A, "A itself"),
        (lambda A, P: P @ A, "only one side"),
        (lambda A, P: A @ P.T, "only one side"),
        (lambda A, P: P.T @ A @ P, "row i of the new matrix"),
        (lambda A, P: A[:2], "must have shape"),
    ],
)
def test_wrong_shuffled_attention_gets_not_yet(make, message):
    feedback = nb04.check_shuffled_attention(make(*_A_and_P()))
    assert not feedback.ok
    assert message in feedback.message


def test_shuffled_attention_matches_the_reordered_sentence():
    X = pa.embed(pa.tokenize("dog bites man"))
    A_reordered = pa.self_attention(X[nb04.PERM], *pa.default_projections())[1]
    assert nb04.check_shuffled_attention(A_reordered).ok


@pytest.mark.parametrize(
    ("rows", "message"),
    [([], "something does change"), ([1, 2, 4], "too many"), ([0, 6], "which rows"),
     ("one", "array of numbers"), ([1.5, 4], "row indices from 0 to 6"), ([1, 9], "from 0 to 6")],
)
def test_wrong_rows_get_not_yet(rows, message):
    feedback = nb04.check_changed_rows(rows)
    assert not feedback.ok
    assert message in feedback.message


def test_rows_are_accepted_in_any_order_and_container():
    assert nb04.check_changed_rows((4, 1)).ok
    assert nb04.check_changed_rows(np.array([1, 4])).ok


@pytest.mark.parametrize(
    ("choice", "message"),
    [("a", "W_Q is shared"), ("b", "different scale"), ("d", "order"), ("e", "must be one of")]
)
def test_wrong_choice_gets_not_yet(choice, message):
    feedback = nb04.check_position_entry(choice)
    assert not feedback.ok
    assert message in feedback.message


def test_choice_accepts_capital_and_parentheses():
    assert nb04.check_position_entry("(C)").ok

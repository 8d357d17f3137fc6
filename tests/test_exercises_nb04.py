"""The notebook 04 checkers accept every correct form of an answer and say "Not yet", with a hint
that names the mistake, to the plausible wrong ones."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb04
from solutions import nb04_solutions as SOL


def _A_and_P():
    A = pa.self_attention(pa.embed(pa.tokenize("dog bites man")), *pa.default_projections())[1]
    return A, pa.permutation_matrix(nb04.PERM)


def test_solutions_pass_their_checkers():
    assert nb04.check_shuffled_attention(SOL.A_shuffled).ok
    assert nb04.check_changed_rows(SOL.changed_rows).ok
    assert nb04.check_position_entry(SOL.choice).ok


def _by_hand(A, P):  # literal answers, not the checker's recipe: the rows of the new sentence
    return [[A[1, 1], A[1, 2], A[1, 0]], [A[2, 1], A[2, 2], A[2, 0]], [A[0, 1], A[0, 2], A[0, 0]]]


def _loop(A, P):
    perm = nb04.PERM
    return [[A[perm[i], perm[j]] for j in range(3)] for i in range(3)]


@pytest.mark.parametrize("make", [
    _by_hand,  # a list of lists
    _loop,  # a loop over i and j
    lambda A, P: P @ A @ P.T,  # the formula
    lambda A, P: A[np.ix_(nb04.PERM, nb04.PERM)],  # another indexing
    lambda A, P: (P @ A @ P.T).astype(np.float32),  # float32
    lambda A, P: np.take(np.take(A, nb04.PERM, axis=0), nb04.PERM, axis=1),
], ids=["list", "loop", "P A Pᵀ", "np.ix_", "float32", "np.take"])
def test_every_form_of_the_shuffled_attention_is_right(make):
    feedback = nb04.check_shuffled_attention(make(*_A_and_P()))
    assert feedback.ok, feedback


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda A, P: A, "A itself"),
        (lambda A, P: P @ A, "only one side"),  # the rows alone
        (lambda A, P: A @ P.T, "only one side"),  # the columns alone
        (lambda A, P: P.T @ A @ P, "inverse of perm"),  # the inverse permutation
        (lambda A, P: (P @ A @ P.T).T, "rows and columns are swapped"),  # a transpose
        (lambda A, P: A.T, "rows and columns are swapped"),
        (lambda A, P: P @ A @ P.T + 0.01, "row i of the new matrix"),
        (lambda A, P: A[:2], "must have shape"),
    ],
    ids=["A", "rows only", "columns only", "inverse", "transposed", "A transposed", "off",
         "shape"],
)
def test_wrong_shuffled_attention_gets_not_yet(make, message):
    feedback = nb04.check_shuffled_attention(make(*_A_and_P()))
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize("rows", [[1, 4], [4, 1], (4, 1), {4, 1}, np.array([1, 4]),
                                  np.array([1.0, 4.0], dtype=np.float32)],
                         ids=["list", "reversed", "tuple", "set", "array", "float32"])
def test_the_changed_rows_are_right_in_any_order_and_container(rows):
    assert nb04.check_changed_rows(rows).ok


@pytest.mark.parametrize(
    ("rows", "message"),
    [([], "something does change"), ([1, 2, 4], "too many"), (list(range(7)), "too many"),
     ([0, 6], "which rows"), ([1], "which rows"), ([1, 4, 4], "row 4 is listed more than once"),
     ([4, 1, 1], "row 1 is listed more than once"), ("one", "array of numbers"),
     ([1.5, 4], "row indices from 0 to 6"), ([1, 9], "from 0 to 6")],
)
def test_wrong_rows_get_not_yet(rows, message):
    feedback = nb04.check_changed_rows(rows)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize("choice", ["c", "C", "(c)", " c "])
def test_the_offset_term_is_right_in_any_spelling(choice):
    assert nb04.check_position_entry(choice).ok


@pytest.mark.parametrize(
    ("choice", "message"),
    [("a", "W_Q is shared"), ("b", "different scale"), ("(d)", "order"), ("e", "must be one of")]
)
def test_wrong_choice_gets_not_yet(choice, message):
    feedback = nb04.check_position_entry(choice)
    assert not feedback.ok
    assert message in feedback.message


def test_rows_counted_from_one_get_a_hint_about_counting_from_zero():
    feedback = nb04.check_changed_rows([2, 5])
    assert not feedback.ok and "numbered from 0" in feedback.message

"""The notebook 05 checkers accept every correct form of an answer and say "Not yet", with a hint
that names the mistake, to the plausible wrong ones."""

from itertools import permutations

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb05
from solutions import nb05_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb05.check_rose_order(SOL.rose_order).ok
    assert nb05.check_invisible_orders(SOL.invisible_orders).ok


def test_the_answers_are_the_measured_ones():
    # literal answers, not the checker's recipe: a↔a and rose↔rose; "the dog bit the man" has 2
    assert SOL.invisible_orders(["the", "dog", "bit", "the", "man"]) == [[0, 1, 2, 3, 4],
                                                                        [3, 1, 2, 0, 4]]
    assert len(SOL.invisible_orders(["la", "la", "la"])) == 6


@pytest.mark.parametrize("order", [[3, 4, 2, 0, 1], (3, 4, 2, 0, 1), np.array([3, 4, 2, 0, 1]),
                                   np.array([3, 4, 2, 0, 1], dtype=np.float32)],
                         ids=["list", "tuple", "array", "float32"])
def test_the_rose_order_is_right_in_any_container(order):
    assert nb05.check_rose_order(order).ok


@pytest.mark.parametrize(("order", "hint"), [
    ([0, 1, 2, 3, 4], "moves 0 words"), ([3, 1, 2, 0, 4], "moves 2 words"),  # one pair only
    ([0, 4, 2, 3, 1], "moves 2 words"),
    ([1, 0, 2, 3, 4], "a different sentence"), ([4, 3, 2, 1, 0], "a different sentence"),
    ([3, 3, 2, 0, 1], "each of 0 … 4 once"), ([0, 0, 1, 2, 3], "each of 0 … 4 once"),
    ([3, 4, 2, 0], "shape (5,)"), ([3.5, 4, 2, 0, 1], "each of 0 … 4 once"),
])
def test_wrong_rose_orders_get_a_hint(order, hint):
    feedback = nb05.check_rose_order(order)
    assert not feedback.ok and hint in feedback.message


def _by_words(tokens):  # another valid method: an order is invisible when it keeps every word
    return [list(p) for p in permutations(range(len(tokens)))
            if [tokens[i] for i in p] == list(tokens)]


def _by_loop(tokens):  # a loop, measured with the attention matrices, tuples returned
    X = pa.embed(tokens)
    A = pa.self_attention(X, *pa.default_projections())[1]
    found = []
    for perm in pa.all_permutations(len(tokens)):
        if np.array_equal(pa.self_attention(X[perm], *pa.default_projections())[1], A):
            found.append(tuple(int(i) for i in perm))
    return found


@pytest.mark.parametrize("f", [
    _by_words,
    _by_loop,
    lambda tokens: np.array(_by_words(tokens)),  # one 2-D array
    lambda tokens: [np.array(p) for p in reversed(_by_words(tokens))],  # arrays, another order
    lambda tokens: np.array(_by_words(tokens), dtype=np.float32),  # float32
], ids=["by words", "loop", "2-D array", "list of arrays", "float32"])
def test_every_form_of_the_invisible_orders_is_right(f):
    feedback = nb05.check_invisible_orders(f)
    assert feedback.ok, feedback


@pytest.mark.parametrize(("f", "hint"), [
    (lambda tokens: [], "include it"),
    (lambda tokens: [list(range(len(tokens)))], "you found 1 of the 2"),
    (lambda tokens: [list(range(len(tokens))), list(range(len(tokens)))[::-1]], "so the picture"),
    (lambda tokens: [list(p) for p in permutations(range(len(tokens)))], "so the picture"),
    (lambda tokens: _by_words(tokens) * 2, "returned more than once"),  # every order twice
    (lambda tokens: _by_words(tokens) + [list(range(len(tokens)))], "returned more than once"),
    (lambda tokens: list(range(len(tokens))), "list of orders"),
    (lambda tokens: [[0, 0, 1, 2, 3]], "each of 0 … 4 once"),
    (lambda tokens: ..., "returns nothing yet"),
    (lambda tokens: None, "returned None"),
    (lambda tokens: tokens[99], "raised IndexError"),
])
def test_wrong_invisible_orders_get_a_hint(f, hint):
    feedback = nb05.check_invisible_orders(f)
    assert not feedback.ok and hint in feedback.message, feedback


# Issue 40: a search that tries every order but compares exactly, and orders in a set

def _attention_summed_another_way(X, W_Q, W_K):
    """A: as a BLAS may compute it, the last key summed in another order than the others, so that
    equal words in different rows can differ in the last bit."""
    Q, K = X @ W_Q, X @ W_K  # (n, d_k) each
    K[-1] = sum(X[-1, m] * W_K[m] for m in (2, 4, 3, 6, 5, 0, 1, 7))
    return pa.softmax(Q @ K.T / np.sqrt(K.shape[1]))


def _compared_exactly(tokens):  # A(PX) as P A Pᵀ, the way 04.1 taught, compared with ==
    X, (W_Q, W_K, _) = pa.embed(tokens), pa.default_projections()
    A = _attention_summed_another_way(X, W_Q, W_K)
    return [list(p) for p in permutations(range(len(tokens)))
            if np.array_equal(A[list(p)][:, list(p)], A)]


def test_a_search_that_compares_exactly_is_told_to_compare_with_a_tolerance():
    """"Did you try every order?" was false: every order was tried, and identical rows differed
    in the last bit ("la la la": 2 of 6)."""
    assert len(_compared_exactly(["la", "la", "la"])) == 2  # the stand-in shows the symptom
    feedback = nb05.check_invisible_orders(_compared_exactly)
    assert not feedback.ok and "tolerance" in feedback.message, feedback.message
    assert "Did you try every order" not in feedback.message, feedback.message


@pytest.mark.parametrize("f", [
    lambda tokens: {tuple(p) for p in _by_words(tokens)},
    lambda tokens: (p for p in _by_words(tokens)),
    lambda tokens: iter(_by_words(tokens)),
], ids=["set", "generator", "iterator"])
def test_orders_in_a_set_or_a_generator_are_told_what_type_is_expected(f):
    feedback = nb05.check_invisible_orders(f)
    assert not feedback.ok and "a list of orders" in feedback.message, feedback.message
    assert "[[0.5, 1.0]]" not in feedback.message, feedback.message

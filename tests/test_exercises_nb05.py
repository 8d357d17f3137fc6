"""The notebook 05 checkers accept the solutions and say "Not yet" with a hint to anything else."""

import numpy as np
import pytest

from posattn.exercises import nb05
from solutions import nb05_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb05.check_rose_order(SOL.rose_order).ok
    assert nb05.check_invisible_orders(SOL.invisible_orders).ok


def test_the_answers_are_the_measured_ones():
    # literal answers, not the checker's recipe: a↔a and rose↔rose; "the dog bit the man" has 2
    assert nb05.check_rose_order(np.array([3, 4, 2, 0, 1])).ok
    assert SOL.invisible_orders(["the", "dog", "bit", "the", "man"]) == [[0, 1, 2, 3, 4],
                                                                        [3, 1, 2, 0, 4]]
    assert len(SOL.invisible_orders(["la", "la", "la"])) == 6


@pytest.mark.parametrize(("order", "hint"), [
    ([0, 1, 2, 3, 4], "moves 0 words"), ([3, 1, 2, 0, 4], "moves 2 words"),
    ([1, 0, 2, 3, 4], "a different sentence"), ([0, 0, 1, 2, 3], "each of 0 … 4 once"),
    ([3, 4, 2, 0], "shape (5,)"), ([3.5, 4, 2, 0, 1], "each of 0 … 4 once"),
])
def test_wrong_rose_orders_get_a_hint(order, hint):
    feedback = nb05.check_rose_order(order)
    assert not feedback.ok and hint in feedback.message


@pytest.mark.parametrize(("f", "hint"), [
    (lambda tokens: [], "include it"),
    (lambda tokens: [list(range(len(tokens)))], "you found 1 of the 2"),
    (lambda tokens: [list(range(len(tokens))), list(range(len(tokens)))[::-1]], "so the picture"),
    (lambda tokens: list(range(len(tokens))), "list of orders"),
    (lambda tokens: [[0, 0, 1, 2, 3]], "each of 0 … 4 once"),
    (lambda tokens: None, "returns nothing yet"),
    (lambda tokens: tokens[99], "raised IndexError"),
])
def test_wrong_invisible_orders_get_a_hint(f, hint):
    feedback = nb05.check_invisible_orders(f)
    assert not feedback.ok and hint in feedback.message

"""The notebook 10 checkers: right answers in any form are Right, plausible mistakes are Not yet
with a hint that names the mistake and never gives the answer away."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb10
from solutions import nb10_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb10.check_unchanged(SOL.unchanged).ok
    assert nb10.check_relative_bias(SOL.relative_bias_by_hand).ok


# Exercise 1: which rows stay the same when words 6 and 9 swap (k = 2) ---------------------------

@pytest.mark.parametrize("rows", [
    [0, 1, 2, 3, 4],
    (4, 3, 2, 1, 0),  # any order
    {0, 1, 2, 3, 4},  # a set
    range(5),
    np.arange(5),
    np.arange(5, dtype=np.int32),
    [0.0, 1.0, 2.0, 3.0, 4.0],
    [i for i in range(10) if i not in (6, 9) and 6 - i >= 2],  # worked out by a rule
])
def test_the_unchanged_rows_in_any_form_are_right(rows):
    feedback = nb10.check_unchanged(rows)
    assert feedback.ok, feedback
    assert "measured" in feedback.message


@pytest.mark.parametrize(("rows", "names_the_mistake"), [
    ([0, 1, 2, 3], "exactly k = 2 from word 6: which entry of b does an offset of +k get"),
    ([0, 1, 2, 3, 4, 5], "query 5 is only 1 from a word that moves, closer than k = 2"),
    ([0, 1, 2, 3, 4, 7, 8], "query 7 sees word 6 on its left and word 9 on its right; the clip "
                            "keeps the direction"),
    ([0, 1, 2, 3, 4, 6, 9], "rows [6, 9] hold a word that moves"),
    ([0, 1, 2, 4], "query 3 is missing. Look at its offsets to words 6 and 9"),
    ([], "query 4 is missing"),
])
def test_plausible_mistakes_get_a_hint_that_names_them(rows, names_the_mistake):
    feedback = nb10.check_unchanged(rows)
    assert not feedback.ok
    assert names_the_mistake in feedback.message
    assert "[0, 1, 2, 3, 4]" not in feedback.message  # the answer is never shown


@pytest.mark.parametrize(("rows", "message"), [
    ([0, 12], "whole numbers (row indices from 0 to 9)"),
    ([0.5], "whole numbers"),
    ("0-4", "must be an array of numbers"),
    (..., "replace the ... with a list of the queries"),
])
def test_malformed_rows_get_not_yet(rows, message):
    feedback = nb10.check_unchanged(rows)
    assert not feedback.ok and message in feedback.message


def test_the_checker_measures_what_the_rule_says():
    """Rows at least k before both moved words stay the same; every other kept row moves."""
    change = nb10._moved_rows()
    assert [i for i, c in change.items() if c < 1e-12] == SOL.unchanged
    assert min(c for i, c in change.items() if i not in SOL.unchanged) > 0.01


# Exercise 2: build the relative bias ---------------------------------------------------------

def _vectorised(n, table, max_distance):
    i = np.arange(n)
    return np.asarray(table)[np.clip(np.subtract.outer(i, i).T, -max_distance, max_distance)
                             + max_distance]


def _float32(n, table, max_distance):
    return SOL.relative_bias_by_hand(n, table, max_distance).astype(np.float32)


def _nested_lists(n, table, max_distance):
    k = max_distance
    return [[float(table[k + max(-k, min(k, j - i))]) for j in range(n)] for i in range(n)]


def _minimum_maximum(n, table, max_distance):
    offsets = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.take(table, np.minimum(np.maximum(offsets, -max_distance), max_distance)
                   + max_distance)


@pytest.mark.parametrize("build", [SOL.relative_bias_by_hand, _vectorised, _float32,
                                   _nested_lists, _minimum_maximum, pa.relative_bias])
def test_right_biases_in_any_form_are_right(build):
    feedback = nb10.check_relative_bias(build)
    assert feedback.ok, feedback


def _transposed(n, table, k):  # i − j instead of j − i
    return SOL.relative_bias_by_hand(n, table, k).T


def _absolute(n, table, k):  # |j − i|: direction lost
    d = np.abs(np.arange(n)[None, :] - np.arange(n)[:, None])
    return np.asarray(table)[np.clip(d, -k, k) + k]


def _not_shifted(n, table, k):  # forgets + k: negative offsets wrap to the table's end
    d = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.asarray(table)[np.clip(d, -k, k)]


def _not_clipped(n, table, k):  # no clip: an offset beyond k indexes past the table
    d = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.asarray(table)[d + k]


def _wraps_around(n, table, k):  # wraps offsets beyond k round the table instead of clipping
    d = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.asarray(table)[(d + k) % len(table)]


def _zeros(n, table, k):
    return np.zeros((n, n))


@pytest.mark.parametrize(("build", "names_the_mistake"), [
    (_transposed, "your B is the transpose of the scheme's: the offset is j − i"),
    (_absolute, "your B is the same above and below the diagonal"),
    (_not_shifted, "the entry for the offset −k is b[0]"),
    (_not_clipped, "raised IndexError"),
    (_wraps_around, "wrap around the table instead of sticking at its ends"),
    (_zeros, "differs from the scheme's bias"),
    (lambda n, table, k: np.zeros(n), "must have shape (5, 5)"),
    (lambda n, table, k: 1 / 0, "raised ZeroDivisionError"),
    (lambda n, table: None, "raised TypeError"),
    ("B", "must be a function"),
])
def test_wrong_biases_get_not_yet_with_a_hint_that_names_the_mistake(build, names_the_mistake):
    feedback = nb10.check_relative_bias(build)
    assert not feedback.ok
    assert names_the_mistake in feedback.message
    assert "expected" not in feedback.message  # the right values are never shown


def test_a_bias_right_without_clipping_only_is_caught():
    def unclipped_when_possible(n, table, k):
        return SOL.relative_bias_by_hand(n, table, k) if n <= k + 1 else np.zeros((n, n))
    assert not nb10.check_relative_bias(unclipped_when_possible).ok


def _clipped_at_two(n, table, k):  # exercise 1's k = 2 written into the clip
    d = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.asarray(table)[np.clip(d, -2, 2) + k]


def test_a_clip_at_a_hard_coded_two_is_told_so():
    """"Clip it to −k … k first" was false: the function did clip, at ±2 whatever k was."""
    feedback = nb10.check_relative_bias(_clipped_at_two)
    assert not feedback.ok and "max_distance = 2" in feedback.message, feedback.message
    assert "clip it to −k … k first" not in feedback.message, feedback.message


def test_a_bias_with_a_branch_that_returns_nothing_is_told_so():
    def relative_bias_by_hand(n, table, max_distance):
        if n > 1:
            return SOL.relative_bias_by_hand(n, table, max_distance)

    feedback = nb10.check_relative_bias(relative_bias_by_hand)
    assert not feedback.ok and "returned None" in feedback.message, feedback.message
    assert "replace the ..." not in feedback.message

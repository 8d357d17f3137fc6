"""The notebook 09 checkers: right answers in any form are Right, plausible mistakes are Not yet
with a hint that names the mistake and never gives the answer away."""

from fractions import Fraction

import numpy as np
import pytest

from posattn.exercises import nb09
from solutions import nb09_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb09.check_prediction(SOL.scheme, SOL.prediction).ok
    assert nb09.check_ceiling(SOL.ceiling).ok


# Exercise 1: predict, then check ---------------------------------------------------------------

@pytest.mark.parametrize(
    ("scheme", "prediction"),
    [
        (None, "chance"),  # None means no positions, as in pa.attention_with_positions
        ("none", "chance"),
        ("None", "Chance"),
        ("alibi_symmetric", "chance"),
        ("rope", "learns"),
        (" Causal ", "LEARNS"),
        ("sinusoidal", "(learns)"),
    ],
)
def test_right_predictions_in_any_spelling_are_right(scheme, prediction):
    feedback = nb09.check_prediction(scheme, prediction)
    assert feedback.ok, feedback
    assert "measured on seed 2" in feedback.message


@pytest.mark.parametrize(
    ("scheme", "prediction", "names_the_mistake"),
    [
        ("none", "learns", "what does attention do to the rows of 'Y bites X'"),
        (None, "learns", "what does attention do to the rows of 'Y bites X'"),
        ("alibi_symmetric", "learns", "depends on distance only"),
        ("causal", "chance", "make the first word of a sentence look different from the last"),
        ("sinusoidal", "chance", "make the first word of a sentence look different from the last"),
    ],
)
def test_wrong_predictions_get_a_question_that_points_at_the_reason(scheme, prediction,
                                                                   names_the_mistake):
    feedback = nb09.check_prediction(scheme, prediction)
    assert not feedback.ok
    assert names_the_mistake in feedback.message
    assert "the answer is" not in feedback.message  # the hint never gives the answer away
    assert "%" not in feedback.message  # nor the measurement that would settle it


@pytest.mark.parametrize(
    ("scheme", "prediction", "message"),
    [
        ("bogus", "learns", "scheme must be one of"),
        ("rope", "maybe", "prediction must be one of 'chance', 'learns'"),
        (..., "learns", "replace the ... with a scheme name"),
        ("rope", None, "replace the ... with a scheme name"),
    ],
)
def test_malformed_predictions_get_not_yet(scheme, prediction, message):
    feedback = nb09.check_prediction(scheme, prediction)
    assert not feedback.ok
    assert message in feedback.message


# Exercise 2: the ceiling of a blind model ------------------------------------------------------

def _ceiling_loop(pairs):
    right = 0.0
    for s, o in pairs:
        right += 0.5 if (o, s) in pairs else 1.0  # a mirrored pair: one of its two is right
    return right / len(pairs)


def _ceiling_float32(pairs):
    return np.float32(SOL.ceiling(pairs))


def _ceiling_fraction(pairs):
    unordered = {frozenset(p) for p in pairs}  # a mirrored pair is one unordered pair
    return Fraction(len(unordered), len(pairs))


def _ceiling_array(pairs):
    mirrored = np.array([(o, s) in pairs for s, o in pairs])
    return np.array([1.0 - mirrored.mean() / 2])


@pytest.mark.parametrize("ceiling", [SOL.ceiling, _ceiling_loop, _ceiling_float32,
                                     _ceiling_fraction, _ceiling_array])
def test_right_ceilings_in_any_form_are_right(ceiling):
    assert nb09.check_ceiling(ceiling).ok


def _both_wrong(pairs):  # charges both sentences of a mirrored pair
    return 1 - sum((o, s) in pairs for s, o in pairs) / len(pairs)


def _error_rate(pairs):  # the fraction wrong, not right
    return sum((o, s) in pairs for s, o in pairs) / 2 / len(pairs)


def _a_count(pairs):  # forgets to divide by the number of pairs
    return len(pairs) - sum((o, s) in pairs for s, o in pairs) / 2


def _all_right(pairs):
    return 1.0


def _a_half(pairs):  # "a blind model is at 50%": true on mirrored pairs only
    return 0.5


@pytest.mark.parametrize(
    ("ceiling", "message"),
    [
        (_both_wrong, "counted both sentences of a mirrored pair as mistakes"),
        (_error_rate, "the fraction of sentences a blind model must get wrong"),
        (_a_count, "that is a count of sentences"),
        (_all_right, "a pair whose mirror is also in the list costs one mistake"),
        (_a_half, "a pair without its mirror costs none"),
        (lambda pairs: "half", "ceiling(pairs) must be an array of numbers"),
        (lambda pairs: 1 / 0, "raised ZeroDivisionError"),
        (3, "must be a function"),
    ],
)
def test_wrong_ceilings_get_not_yet_with_a_hint_that_names_the_mistake(ceiling, message):
    feedback = nb09.check_ceiling(ceiling)
    assert not feedback.ok
    assert message in feedback.message
    assert "expected" not in feedback.message  # the right value is never shown


def test_a_ceiling_right_on_small_lists_only_is_caught_on_the_notebooks_pairs():
    def small_only(pairs):
        return SOL.ceiling(pairs) if len(pairs) < 20 else 0.75
    feedback = nb09.check_ceiling(small_only)
    assert not feedback.ok and "pairs['train'] (102 pairs)" in feedback.message

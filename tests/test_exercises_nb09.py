"""The notebook 09 checkers accept the solutions and answer wrong answers with a hint."""

import pytest

from posattn.exercises import nb09
from solutions import nb09_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb09.check_prediction(SOL.scheme, SOL.prediction).ok
    assert nb09.check_ceiling(SOL.ceiling).ok


@pytest.mark.parametrize(
    ("scheme", "prediction", "message"),
    [
        ("none", "learns", "so the answer is 'chance'"),
        ("causal", "chance", "so the answer is 'learns'"),
        ("bogus", "learns", "scheme must be one of"),
        ("rope", "maybe", "prediction must be one of 'chance', 'learns'"),
    ],
)
def test_wrong_predictions_get_not_yet(scheme, prediction, message):
    feedback = nb09.check_prediction(scheme, prediction)
    assert not feedback.ok
    assert message in feedback.message


def test_a_right_prediction_for_a_blind_scheme_is_right():
    assert nb09.check_prediction("alibi_symmetric", "chance").ok


def _all_right(pairs):
    return 1.0


def _forgets_mirrors(pairs):
    return len(pairs) / len(pairs) - 0.25


@pytest.mark.parametrize(
    ("ceiling", "message"),
    [
        (_all_right, "expected 0.5"),
        (_forgets_mirrors, "costs one mistake"),
        (lambda pairs: "half", "ceiling(pairs) must be an array of numbers"),
        (lambda pairs: 1 / 0, "raised ZeroDivisionError"),
        (3, "must be a function"),
    ],
)
def test_wrong_ceilings_get_not_yet(ceiling, message):
    feedback = nb09.check_ceiling(ceiling)
    assert not feedback.ok
    assert message in feedback.message

"""The notebook 05 checkers accept the solutions and reject wrong answers."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb05
from solutions import nb05_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb05.check_order_aware_readout(SOL.sentence_vector).ok
    assert nb05.check_equivariant_names(SOL.equivariant_names).ok
    assert nb05.check_non_associative(SOL.triple).ok


@pytest.mark.parametrize(
    ("readout", "message"),
    [
        (lambda Y: Y.mean(axis=0), "same vector"),
        (lambda Y: Y.max(axis=0), "same vector"),
        (lambda Y: ..., "returns nothing yet"),
        (lambda Y: Y, "1-D array"),
        ("mean", "must be a function"),
    ],
)
def test_order_blind_readouts_get_not_yet(readout, message):
    feedback = nb05.check_order_aware_readout(readout)
    assert not feedback.ok
    assert message in feedback.message


def test_first_row_readout_is_order_aware():
    assert nb05.check_order_aware_readout(lambda Y: Y[0]).ok


def test_equivariant_answer_matches_measured_errors():
    candidates = {
        "double": lambda X: 2 * X,
        "cumsum": lambda X: np.cumsum(X, axis=0),
        "centre": lambda X: X - X.mean(axis=0),
        "ramp": lambda X: X * np.arange(1, len(X) + 1)[:, None],
    }
    rng = np.random.default_rng(1)
    X, perm = rng.standard_normal((5, 3)), np.array([4, 2, 0, 1, 3])
    measured = {name: pa.equivariance_error(g, X, perm) < 1e-12 for name, g in candidates.items()}
    assert {name for name, ok in measured.items() if ok} == SOL.equivariant_names


@pytest.mark.parametrize(
    ("names", "message"),
    [({"double"}, "left out"), ({"double", "centre", "ramp"}, "treats slot i"), ("cumsum", "treats slot i"),
     ({"mean"}, "must come from"), (3, "set of strings")],
)
def test_wrong_names_get_not_yet(names, message):
    feedback = nb05.check_equivariant_names(names)
    assert not feedback.ok
    assert message in feedback.message


@pytest.mark.parametrize(
    ("triple", "message"),
    [((0.3, 0.1, 0.2), "example from the notebook"), ((1.0, 2.0, 3.0), "round to the same"),
     ((1.0, 2.0), "three numbers"), ((np.inf, 1.0, 2.0), "finite")],
)
def test_wrong_triples_get_not_yet(triple, message):
    feedback = nb05.check_non_associative(triple)
    assert not feedback.ok
    assert message in feedback.message

"""Notebook 11's stored result (ex.context_grid(), made by tools/run/context_grid.py) is what the
code trains: its shape is what it declares, seeds of it trained again give the stored numbers,
and with the trained frequencies ("none") the extension's own forward pass is the RoPE model's."""

import numpy as np
import pytest

from posattn import experiments as ex
from tools.run import context_grid as maker

GRID = ex.context_grid()
LABELS = ["none", "interpolation", "ntk", *(f"yarn({a:g},{b:g})" for a, b in maker.RAMPS)]


def test_the_grid_holds_every_task_method_and_length_for_seeds_0_to_29():
    assert GRID["seeds"] == list(range(30)) and GRID["train_max_len"] == 8
    assert (GRID["tuning"], GRID["held_out"]) == (list(ex.SEEDS), list(ex.HELD_OUT))
    assert GRID["lengths"] == list(maker.LENGTHS)
    assert set(GRID["accuracy"]) == set(ex.TASKS) == set(GRID["train_accuracy"])
    for task, by_label in GRID["accuracy"].items():
        assert list(by_label) == LABELS, task
        for label, by_length in by_label.items():
            assert list(by_length) == list(maker.LENGTHS)
            for accuracy in by_length.values():
                assert len(accuracy) == 30, (task, label)
                assert all(abs(200 * a - round(200 * a)) < 1e-9 for a in accuracy)


def test_at_the_training_length_every_method_is_the_trained_model():
    """s = 8/8 = 1: every method's frequencies are the trained ones, and YaRN's gain is 1."""
    for by_label in GRID["accuracy"].values():
        assert all(by_label[k][8] == by_label["none"][8] for k in LABELS)


@pytest.mark.parametrize(("task", "seeds"), [("first", [3, 25]), ("before_last", [0, 17])])
def test_seeds_trained_again_give_the_stored_numbers(task, seeds):
    again = maker.cell(task, seeds)
    for label in LABELS:
        for n in maker.LENGTHS:
            stored = [GRID["accuracy"][task][label][n][s] for s in seeds]
            got = again["test_accuracy"][label][n]
            # a test row may flip where two words tie to the last bit (tests/test_setup_grid)
            assert np.allclose(got, stored, rtol=0, atol=1 / 200 + 1e-12), (label, n, got, stored)


def test_with_the_trained_frequencies_the_extension_is_the_rope_model_itself():
    """"none" goes through the extension's own forward pass; length_curves through the scheme's."""
    seeds = [4]
    curves = ex.length_curves("rope", "before_last", test_lens=[8, 16], seeds=seeds)
    extended = ex.context_extension("before_last", seeds=seeds, test_lens=[8, 16])
    assert extended["test_accuracy"]["none"] == curves["test_accuracy"]
    assert extended["train_accuracy"] == curves["train_accuracy"]


@pytest.mark.parametrize(("ramps", "error", "match"), [
    ([(4.0, 1.0)], ValueError, "each ramp must rise"),
    ([], TypeError, "ramps must be a list of 1 to 10 pairs"),
    ([(1.0,)], TypeError, "ramps must hold pairs"),
    ([(1.0, float("nan"))], ValueError, "ramps' beta must be a finite number"),
])
def test_context_extension_refuses_bad_ramps_before_training(ramps, error, match):
    with pytest.raises(error, match=match):
        ex.context_extension(ramps=ramps)

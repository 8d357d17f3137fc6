"""The trained models of notebook 09: the proofs hold, the positional schemes learn, runs repeat."""

import itertools

import numpy as np
import pytest

from posattn import SCHEMES
from posattn import experiments as ex

SCHEMES_AND_NONE = [None, *SCHEMES]
ORDER_AWARE = ["sinusoidal", "learned", "rope", "alibi", "causal"]


@pytest.fixture(scope="module")
def results():
    """who_bites_whom for every scheme, trained once for the whole module."""
    return {scheme: ex.who_bites_whom(scheme) for scheme in SCHEMES_AND_NONE}


@pytest.mark.parametrize("scheme", [None, "alibi_symmetric"])
def test_a_model_blind_to_reversal_is_at_most_half_right_on_mirrored_pairs(results, scheme):
    assert results[scheme]["mirrored_accuracy"] <= 0.5 + 1e-9


@pytest.mark.parametrize("scheme", ORDER_AWARE)
def test_order_aware_schemes_learn_who_bites_whom_on_held_out_pairs(results, scheme):
    result = results[scheme]
    assert result["test_accuracy"] >= 0.95
    assert result["mirrored_accuracy"] >= 0.95


def test_results_have_the_fixed_keys_and_one_loss_per_step(results):
    for result in results.values():
        assert set(result) == {"train_accuracy", "test_accuracy", "mirrored_accuracy", "loss"}
        assert len(result["loss"]) == ex.STEPS and np.isfinite(result["loss"]).all()
        assert all(0.0 <= result[k] <= 1.0 for k in ("train_accuracy", "test_accuracy"))


def test_training_lowers_the_loss_of_an_order_aware_model(results):
    loss = results["causal"]["loss"]
    assert np.mean(loss[-10:]) < 0.1 * np.mean(loss[:10])


def test_who_bites_whom_is_deterministic(results):
    assert ex.who_bites_whom("rope") == results["rope"]


def test_without_positions_a_sentence_and_its_mirror_get_the_same_logits():
    params, _ = ex._train([([0, 12, 1], 0)], None, 12, 15, 3, seed=0, steps=0)  # random weights
    dog_bites_man, man_bites_dog = ex._logits(params, [0, 12, 1]), ex._logits(params, [1, 12, 0])
    assert np.abs(dog_bites_man - man_bites_dog).max() < 1e-12
    with_alibi = [ex._logits(params, ids, "alibi") for ids in ([0, 12, 1], [1, 12, 0])]
    assert np.abs(with_alibi[0] - with_alibi[1]).max() > 1e-3  # negative control


def test_noun_pairs_hold_out_mirrored_and_one_way_pairs():
    pairs = ex.noun_pairs(seed=3)
    train, test, mirrored = (set(pairs[k]) for k in ("train", "test", "mirrored"))
    everything = set(itertools.permutations(range(len(ex.NOUNS)), 2))
    assert train | test == everything and not train & test
    assert mirrored <= test and all((o, s) in mirrored for s, o in mirrored)
    assert all((o, s) in train for s, o in test - mirrored)
    assert {s for s, _ in train} == set(range(len(ex.NOUNS)))  # every noun is a subject in training


def test_the_learned_table_rows_beyond_the_training_length_never_change():
    rows = [(list(range(n)), 0) for n in range(2, 9)]  # lengths 2 … 8
    start, _ = ex._train(rows, "learned", 12, 12, 16, seed=0, steps=0)
    trained, _ = ex._train(rows, "learned", 12, 12, 16, seed=0, steps=5)
    assert (trained["table"][8:] == start["table"][8:]).all()
    assert (trained["table"][:2] != start["table"][:2]).all()  # every length uses positions 0, 1


def test_the_first_adam_step_moves_every_weight_by_the_step_size():
    params, grads = {"w": np.array([1.0, 2.0])}, {"w": np.array([3.0, -1e-3])}
    ex._adam(params, grads, {}, t=1)
    assert np.allclose(params["w"], [1.0 - ex.LEARNING_RATE, 2.0 + ex.LEARNING_RATE], atol=1e-6)


@pytest.mark.parametrize(("scheme", "at_least", "at_most"), [(None, 0.0, 0.5), ("learned", 0.9, 1)])
def test_length_generalisation_reports_accuracies(scheme, at_least, at_most):
    result = ex.length_generalisation(scheme)
    assert set(result) == {"train_accuracy", "test_accuracy"}
    assert 0.0 <= result["train_accuracy"] <= 1.0
    assert at_least <= result["test_accuracy"] <= at_most


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ex.who_bites_whom("bogus"), ValueError, r"scheme must be one of 'sinus.*or None"),
        (lambda: ex.who_bites_whom(None, seed=-1), ValueError, "seed must be at least 0; got -1"),
        (lambda: ex.who_bites_whom(None, seed="0"), TypeError, "seed must be an integer; got str"),
        (lambda: ex.length_generalisation(7), ValueError, "scheme must be one of"),
        (lambda: ex.length_generalisation(train_max_len=1), ValueError, "train_max_len must be at"),
        (lambda: ex.length_generalisation(test_len=100), ValueError, "test_len must be at most 64"),
        (lambda: ex.length_generalisation(test_len=2.5), TypeError, "test_len must be an integer"),
        (lambda: ex.noun_pairs(seed=True), TypeError, "seed must be an integer; got bool"),
    ],
)
def test_bad_arguments_get_the_series_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_training_step_takes_sentences_of_one_length_in_one_batch(monkeypatch):
    seen = []
    real_loss = ex._loss
    monkeypatch.setattr(ex, "_loss", lambda p, ids, labels, s: seen.append(ids.shape) or
                        real_loss(p, ids, labels, s))
    rows = [([0] * n, 0) for n in range(2, 9) for _ in range(20)]  # 20 rows each of 2 … 8 words
    ex._train(rows, None, 12, 12, 8, seed=0, steps=30, batch=4)
    assert len({n for _, n in seen}) > 3 and all(B == 4 for B, _ in seen)


def test_accuracy_counts_every_sentence_once_across_lengths():
    params, _ = ex._train([([0, 1], 0)], None, 12, 12, 3, seed=0, steps=0)
    data = [([0, 1], 0), ([1, 2, 3], 1), ([4, 5], 4)]
    expected = np.mean([np.argmax(ex._logits(params, ids)) == label for ids, label in data])
    assert ex._accuracy(params, data, None) == expected

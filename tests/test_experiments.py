"""The trained models of notebook 09: on every seed 0-9 the proofs hold, the positional schemes
learn without their loss climbing back, and runs repeat."""

import itertools

import numpy as np
import pytest

import posattn as pa
from posattn import SCHEMES
from posattn import experiments as ex
from posattn.experiments import backward, model, tasks, training
from posattn.experiments import probes as probing

SCHEMES_AND_NONE = [None, *SCHEMES]
ORDER_AWARE = ["sinusoidal", "learned", "rope", "alibi", "causal"]
BLIND = [None, "alibi_symmetric"]


@pytest.fixture(scope="module")
def results():
    """who_bites_whom for every scheme on seeds 0-9, trained once for the whole module."""
    return {scheme: ex.who_bites_whom(scheme) for scheme in SCHEMES_AND_NONE}


@pytest.mark.parametrize("scheme", BLIND)
def test_a_model_blind_to_reversal_is_at_most_half_right_on_mirrored_pairs_on_every_seed(
        results, scheme):
    assert max(results[scheme]["mirrored_accuracy"]) <= 0.5


@pytest.mark.parametrize("scheme", ORDER_AWARE)
def test_order_aware_schemes_learn_who_bites_whom_on_held_out_pairs_on_every_seed(
        results, scheme):
    assert min(results[scheme]["test_accuracy"]) >= 0.95
    assert min(results[scheme]["mirrored_accuracy"]) >= 0.95


@pytest.fixture(scope="module")
def held_out():
    """who_bites_whom for every scheme on seeds 10-29, which the recipe was never tuned on."""
    return {scheme: ex.who_bites_whom(scheme, seeds=ex.HELD_OUT) for scheme in SCHEMES_AND_NONE}


@pytest.mark.parametrize("scheme", BLIND)
def test_on_held_out_seeds_too_a_blind_mean_pooled_model_is_at_most_half_right_on_mirrored_pairs(
        held_out, scheme):
    assert max(held_out[scheme]["mirrored_accuracy"]) <= 0.5


@pytest.mark.parametrize("scheme", [*ORDER_AWARE, "relative"])
def test_on_held_out_seeds_too_order_aware_schemes_learn_who_bites_whom(held_out, scheme):
    assert min(held_out[scheme]["test_accuracy"]) >= 0.95
    assert min(held_out[scheme]["mirrored_accuracy"]) >= 0.95
    assert not any(map(ex.climbs_back, held_out[scheme]["loss"]))


@pytest.mark.parametrize("seeds", [ex.SEEDS, ex.HELD_OUT], ids=["seeds 0-9", "held out 10-29"])
def test_the_read_out_lets_position_in_no_positions_and_the_last_row_beats_90_percent_mirrored(
        seeds):
    """No scheme at all: reading the last row (a slot) instead of the mean, the model tells a
    sentence from its mirror; the mean-pooled one cannot (notebooks 04, 06 and 09)."""
    last = ex.who_bites_whom(None, seeds=seeds, readout="last")
    assert np.mean(last["mirrored_accuracy"]) > 0.9
    assert min(last["mirrored_accuracy"]) > 0.5  # above the mean-pooled bound on every seed
    assert min(last["train_accuracy"]) > 0.95  # it fits the sentences the mean cannot


def test_the_last_row_read_out_is_trained_and_measured_on_the_last_row(results):
    """The same seed and scheme, another read-out: other weights, other logits."""
    last = ex.who_bites_whom(None, seeds=[0], readout="last")
    assert not np.allclose(last["params"][0]["W_out"], results[None]["params"][0]["W_out"])
    ids, labels = tasks._sentences(ex.noun_pairs(0)["train"])
    stacked = {k: v[None] for k, v in last["params"][0].items()}
    right = np.argmax(model._logits(stacked, ids[None], None, "last"), axis=-1)[0] == labels
    assert last["train_accuracy"][0] == pytest.approx(right.mean())


@pytest.mark.parametrize("scheme", ORDER_AWARE)
def test_the_loss_of_an_order_aware_model_does_not_climb_back_on_any_seed(results, scheme):
    losses = results[scheme]["loss"]
    assert not any(ex.climbs_back(loss) for loss in losses)
    assert all(loss[-1] < 0.01 * loss[0] for loss in losses)  # and it learns


def test_climbs_back_flags_a_rise_after_the_minimum_and_not_a_settled_loss():
    assert ex.climbs_back([2.5, 0.5, 0.02, 0.38])  # like the first recipe's sinusoidal runs
    assert not ex.climbs_back([2.5, 0.5, 0.02, 0.02])
    assert not ex.climbs_back([2.5, 0.5, 0.002, 0.004])  # thousandths: below the 0.01 allowed
    assert not ex.climbs_back([2.5, 1.0, 1.04])  # a plateau, 4 % above its low
    assert ex.climbs_back([2.5, 1.0, 1.2])


def test_the_loss_is_the_loss_on_the_whole_training_set_every_few_steps(results):
    params = {k: v[None] for k, v in results["rope"]["params"][2].items()}  # seed 2, stacked
    ids, labels = tasks._sentences(ex.noun_pairs(2)["train"])
    final = training._mean_losses(params, [(ids[None], labels[None])], "rope")
    assert results["rope"]["loss"][2][-1] == pytest.approx(final[0], rel=1e-9)
    assert results["rope"]["loss"][2][0] == pytest.approx(np.log(12), abs=0.5)  # a guess at first


def test_seeds_trained_side_by_side_are_the_seeds_trained_alone(results):
    alone = ex.who_bites_whom("learned", seeds=[4])
    assert alone["test_accuracy"][0] == results["learned"]["test_accuracy"][4]
    np.testing.assert_allclose(alone["loss"][0], results["learned"]["loss"][4], rtol=1e-9)
    table = results["learned"]["params"][4]["table"]
    np.testing.assert_allclose(alone["params"][0]["table"], table, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scheme", SCHEMES_AND_NONE)
def test_the_trained_weights_give_the_packages_own_attention(results, scheme):
    """The side-by-side kernels, ex.attention and the public attention_with_positions agree."""
    ids, _ = tasks._sentences(ex.noun_pairs(1)["mirrored"][:2])
    params = results[scheme]["params"]
    stacked = {k: np.stack([p[k] for p in params]) for k in params[0]}
    A = model._forward(stacked, np.broadcast_to(ids, (len(params), *ids.shape)), scheme)["A"]
    words = [" ".join((ex.NOUNS + ex.VERBS)[i] for i in row) for row in ids]
    for s in (0, 7):
        p = params[s]
        options = {"table": p["table"]} if scheme in ("learned", "relative") else {}
        for b, sentence in enumerate(words):
            X = np.concatenate([p["embed"][ids[b]], np.ones((len(ids[b]), 1))], axis=1)
            _, public = pa.attention_with_positions(X, p["W_Q"], p["W_K"], p["W_V"], scheme,
                                                    **options)
            np.testing.assert_allclose(A[s, b], public, atol=1e-12)
            np.testing.assert_array_equal(ex.attention(p, sentence, scheme), public)


def test_results_over_seeds_have_the_fixed_keys_one_entry_per_seed_and_one_loss_per_step(
        results):
    for result in results.values():
        assert set(result) == {"train_accuracy", "test_accuracy", "mirrored_accuracy", "loss",
                               "params"}
        assert all(len(values) == len(ex.SEEDS) for values in result.values())
        assert np.shape(result["loss"]) == (len(ex.SEEDS), ex.STEPS // ex.LOSS_EVERY + 1)
        assert np.isfinite(result["loss"]).all()
        assert all(0.0 <= a <= 1.0 for k in ("train_accuracy", "test_accuracy") for a in result[k])


def test_who_bites_whom_is_deterministic(results):
    again = ex.who_bites_whom("rope")
    assert again["loss"] == results["rope"]["loss"]
    assert again["test_accuracy"] == results["rope"]["test_accuracy"]


def test_seeds_give_different_splits_and_runs(results):
    assert len({tuple(loss[:3]) for loss in results["sinusoidal"]["loss"]}) == len(ex.SEEDS)
    assert ex.noun_pairs(0)["test"] != ex.noun_pairs(1)["test"]


def _groups(*rows):
    """Training groups for _train from lists of rows, the same rows for seeds 0 and 1."""
    return [(np.array([r, r]), np.array([[row[0] for row in r]] * 2)) for r in rows]


def _weights(scheme=None, steps=0):
    """Stacked weights of seeds 0 and 1 (random when steps=0) for 12 classes, 15 words."""
    return training._train(_groups([[0, 12, 1]]), scheme, 12, 15, 3, [0, 1], steps=steps)[0]


def test_without_positions_a_sentence_and_its_mirror_get_the_same_logits():
    params = _weights()
    ids = np.array([[[0, 12, 1], [1, 12, 0]]] * 2)  # (S, B, n): a sentence and its mirror
    z = model._logits(params, ids)
    assert np.abs(z[:, 0] - z[:, 1]).max() < 1e-12
    with_alibi = model._logits(params, ids, "alibi")
    assert np.abs(with_alibi[:, 0] - with_alibi[:, 1]).max() > 1e-3  # negative control


def test_a_trained_blind_model_attends_to_a_mirrored_sentence_with_the_same_picture_reordered(
        results):
    blind, aware = results[None]["params"][0], results["sinusoidal"]["params"][0]
    A, A_mirror = (ex.attention(blind, s) for s in ("man bites elk", "elk bites man"))
    np.testing.assert_allclose(A_mirror, A[::-1, ::-1], atol=1e-12)
    B, B_mirror = (ex.attention(aware, s, "sinusoidal") for s in ("man bites elk", "elk bites man"))
    assert np.abs(B_mirror - B[::-1, ::-1]).max() > 0.5
    assert (B.argmax(axis=1) == 0).all() and (B_mirror.argmax(axis=1) == 0).all()  # the subject


def test_attention_refuses_words_outside_the_vocabulary(results):
    with pytest.raises(ValueError, match=r"sentence must use the words of NOUNS and VERBS; got "
                                         r"\['eats'\]"):
        ex.attention(results[None]["params"][0], "dog eats man")


def _changed(params: dict, **changes) -> dict:
    return {**params, **changes}


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda p, _: ex.attention("weights", "dog bites man"), TypeError,
         r"params must be one seed's weights, a dict such as who_bites_whom\(scheme\)"),
        (lambda p, _: ex.attention(p, ["dog", "bites"]), TypeError,
         "sentence must be a string of words, such as 'dog bites man'; got list"),
        (lambda p, _: ex.attention(p, "   "), TypeError, "sentence must be a string of words"),
        (lambda p, _: ex.attention(p, "dog bites man", "nope"), ValueError,
         "scheme must be one of"),
        (lambda p, _: ex.attention(p, "dog bites man", "learned"), ValueError,
         "params must hold the weights embed, W_Q, W_K, W_V, table for scheme 'learned'; got "
         "no table"),
        (lambda _, learned: ex.attention(learned, "dog bites man bites", "learned"), ValueError,
         "sentence must have at most 3 words, the rows of the learned table in params; got 4"),
        (lambda p, _: ex.attention(_changed(p, W_V=p["W_V"][:-1]), "dog bites man"), ValueError,
         r"params\['W_V'\] must have shape \(12, d_v\) to match X's 12 features; got shape "
         r"\(11, 12\)"),
        (lambda p, _: ex.attention(_changed(p, embed=p["embed"].astype(str)), "dog bites man"),
         TypeError, r"params\['embed'\] must be an array of numbers; got text"),
        (lambda p, _: ex.attention(_changed(p, W_Q=p["W_Q"][:, :-1], W_K=p["W_K"][:, :-1]),
                                   "dog bites man", "rope"), ValueError,
         r"params\['W_Q'\] must have an even number of columns \(d_k\) for RoPE"),
    ],
)
def test_attention_checks_its_arguments_in_the_series_template(results, call, error, message):
    with pytest.raises(error, match=message):
        call(results[None]["params"][0], results["learned"]["params"][0])


def test_noun_pairs_hold_out_mirrored_and_one_way_pairs():
    pairs = ex.noun_pairs(seed=3)
    train, test, mirrored = (set(pairs[k]) for k in ("train", "test", "mirrored"))
    everything = set(itertools.permutations(range(len(ex.NOUNS)), 2))
    assert train | test == everything and not train & test
    assert mirrored <= test and all((o, s) in mirrored for s, o in mirrored)
    assert all((o, s) in train for s, o in test - mirrored)
    assert {s for s, _ in train} == set(range(len(ex.NOUNS)))  # every noun is a subject in training


def test_the_learned_table_rows_beyond_the_training_length_never_change():
    groups = _groups(*[[list(range(n))] for n in range(2, 9)])  # one row each of 2 … 8 words
    start, _ = training._train(groups, "learned", 12, 12, 16, [0, 1], steps=0)
    trained, _ = training._train(groups, "learned", 12, 12, 16, [0, 1], steps=7)
    assert (trained["table"][:, 8:] == start["table"][:, 8:]).all()  # no gradient, no decay
    assert (trained["table"][:, :2] != start["table"][:, :2]).all()  # every length uses 0, 1


def test_the_first_adamw_step_moves_each_weight_by_the_step_size_and_decays_the_matrices():
    params = {"W_Q": np.array([1.0, 2.0]), "embed": np.array([1.0, 2.0])}
    grads = {k: np.array([3.0, -1e-3]) for k in params}
    lr = ex.step_size(1)
    training._adamw(params, grads, {}, t=1, lr=lr)
    assert lr == ex.LEARNING_RATE
    assert np.allclose(params["embed"], [1.0 - lr, 2.0 + lr], atol=1e-6)  # Adam: ± lr at first
    decayed = np.array([1.0, 2.0]) * (1 - lr * ex.WEIGHT_DECAY)
    assert np.allclose(params["W_Q"], decayed + [-lr, lr], atol=1e-6)


def test_the_step_size_falls_from_the_learning_rate_towards_zero():
    sizes = [ex.step_size(t) for t in range(1, ex.STEPS + 1)]
    assert sizes[0] == ex.LEARNING_RATE and 0 < sizes[-1] < 0.001 * ex.LEARNING_RATE
    assert all(a > b for a, b in itertools.pairwise(sizes))


@pytest.mark.parametrize(("scheme", "readout", "at_least", "at_most"),
                         [(None, "mean", 0.0, 0.3), ("sinusoidal", "mean", 0.95, 1),
                          ("causal", "mean", 0.7, 0.9), ("causal", "last", 0.0, 0.3)])
def test_length_generalisation_reports_accuracies_on_every_seed(scheme, readout, at_least,
                                                                at_most):
    result = ex.length_generalisation(scheme, readout=readout)
    assert set(result) == {"train_accuracy", "test_accuracy"}
    assert all(len(v) == len(ex.SEEDS) for v in result.values())
    assert all(0.0 <= a <= 1.0 for a in result["train_accuracy"])
    assert at_least <= min(result["test_accuracy"]) and max(result["test_accuracy"]) <= at_most


def test_the_length_task_has_as_many_rows_of_each_length(monkeypatch):
    seen = []
    real = training._train
    monkeypatch.setattr(ex, "_train", lambda groups, *a, **k: seen.append(
        [ids.shape for ids, _ in groups]) or real(groups, *a, **k))
    ex.length_generalisation(seeds=[0, 3], train_max_len=4)
    assert seen == [[(2, 133, 2), (2, 133, 3), (2, 133, 4)]]


def test_a_causal_model_read_at_its_last_row_sees_a_bag_of_words():
    """One layer: the last row attends to every word with content-only scores."""
    params = _weights("causal")
    ids = np.array([[[0, 1, 2], [1, 0, 2]]] * 2)  # the first two words swapped
    last = model._logits(params, ids, "causal", "last")
    np.testing.assert_allclose(last[:, 0], last[:, 1], atol=1e-12)
    mean = model._logits(params, ids, "causal")
    assert np.abs(mean[:, 0] - mean[:, 1]).max() > 1e-3  # the mean of the rows does see order


def test_spread_prints_the_mean_and_the_range():
    assert ex.spread([0.5, 1.0]) == "75% (50–100%)"
    assert ex.spread([1.0] * 10) == "100% (100–100%)"
    assert ex.spread([0.0123, 0.02], fmt="{:.3f}") == "0.016 (0.012–0.020)"


def test_a_table_aligns_its_columns_two_spaces_apart_so_a_deck_reads_it_back():
    from tools.publish.deck_tables import columns

    text = ex.table({"rope": ["100% (97–100%)", "9%"], "alibi_symmetric": ["5%", "64/84/92"]},
                    ["mirrored", "at 32"], corner="last row")
    lines = text.splitlines()
    assert [columns(line) for line in lines] == [["last row", "mirrored", "at 32"],
                                                 ["rope", "100% (97–100%)", "9%"],
                                                 ["alibi_symmetric", "5%", "64/84/92"]]
    assert len({len(line) for line in lines}) == 1  # right-aligned: every line as long


@pytest.mark.parametrize(("rows", "columns", "error", "message"), [
    ({"rope": ["1%"]}, "first", TypeError, "columns must be a non-empty list of column headers"),
    ([["1%"]], ["first"], TypeError, "rows must be a non-empty dict from a row label"),
    ({"rope": ["1%", "2%"]}, ["first"], ValueError,
     r"rows\['rope'\] must hold one cell per column \(1\); got 2"),
    ({"rope": [0.5]}, ["first"], TypeError, r"rows\['rope'\]\[0\] must be one line of text; got "
                                            "float 0.5"),
    ({"rope": ["a\nb"]}, ["first"], TypeError, "must be one line of text"),
    ({3: ["1%"]}, ["first"], TypeError, r"rows\[3\]'s label must be one line of text; got int"),
])
def test_a_table_refuses_what_it_cannot_align(rows, columns, error, message):
    with pytest.raises(error, match=message):
        ex.table(rows, columns)


@pytest.mark.parametrize(("task", "length", "error", "message"), [
    ("last", 32, ValueError, "task must be one of 'first', 'before_last'; got 'last'"),
    ("first", 12, ValueError, "length must be one of the grid's test lengths, 8, 16, 32; got 12"),
    ("first", 32.0, TypeError, "length must be an integer; got float 32.0"),
])
def test_a_setup_table_refuses_what_the_grid_does_not_hold(task, length, error, message):
    with pytest.raises(error, match=message):
        ex.setup_table(task, length)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ex.who_bites_whom("bogus"), ValueError, r"scheme must be one of 'sinus.*or None"),
        (lambda: ex.who_bites_whom(None, seeds=[-1]), ValueError,
         r"seeds\[i\] must be at least 0; got -1"),
        (lambda: ex.who_bites_whom(None, seeds=["0"]), TypeError,
         r"seeds\[i\] must be an integer; got str"),
        (lambda: ex.who_bites_whom(None, seeds=[]), ValueError, "seeds must be a non-empty list"),
        (lambda: ex.who_bites_whom(None, seeds=3), TypeError,
         r"seeds must be a list of integers \(one seed: seeds=\[3\]\); got int 3"),
        (lambda: ex.length_generalisation(7), ValueError, "scheme must be one of"),
        (lambda: ex.length_generalisation(train_max_len=1), ValueError, "train_max_len must be at"),
        (lambda: ex.length_generalisation(test_len=100), ValueError, "test_len must be at most 64"),
        (lambda: ex.length_generalisation(test_len=2.5), TypeError, "test_len must be an integer"),
        (lambda: ex.length_generalisation(readout="median"), ValueError,
         "readout must be one of 'mean', 'max', 'first', 'last'; got 'median'"),
        (lambda: ex.noun_pairs(seed=True), TypeError, "seed must be an integer; got bool"),
        (lambda: ex.who_bites_whom(None, readout="rows"), ValueError,
         "readout must be one of 'mean', 'max', 'first', 'last'; got 'rows'"),
        (lambda: ex.who_bites_whom(None, seeds=range(10**12)), ValueError,
         r"seeds must hold at most 100 seeds here, each of which trains its own model \(so that a "
         r"call takes seconds\); got 1,000,000,000,000"),
        (lambda: ex.length_generalisation(train_max_len=65), ValueError,
         "train_max_len must be at most 64; got 65. Longer rows"),
        (lambda: ex.step_size(0), ValueError, "t must be at least 1; got 0"),
        (lambda: ex.step_size(5, steps=4), ValueError, "t must be at most steps = 4"),
        (lambda: ex.step_size(1.5), TypeError, "t must be an integer; got float"),
        (lambda: ex.spread([]), ValueError, r"values must be a non-empty list of numbers; got "
                                            r"shape \(0,\)"),
        (lambda: ex.spread(["high"]), TypeError, "values must be an array of numbers; got text"),
        (lambda: ex.spread([0.5, float("nan")]), ValueError,
         "values must hold only finite numbers; got nan"),
        (lambda: ex.spread([0.5], fmt="{:d}"), ValueError,
         "fmt must be a format string for one number, such as '{:.0%}'"),
        (lambda: ex.spread([0.5], fmt=3), ValueError, "fmt must be a format string"),
        (lambda: ex.climbs_back(3.0), ValueError, r"loss must be a non-empty list of numbers; "
                                                  r"got shape \(\)"),
        (lambda: ex.climbs_back(None), TypeError, "loss must be an array of numbers"),
    ],
)
def test_bad_arguments_get_the_series_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---- the setup of a trained result: steps, width and read-out, chosen by the caller (issue 38) ---

TRAINERS = {  # every public function that trains, called with steps= and width= of its own
    "who_bites_whom": lambda **kw: ex.who_bites_whom("rope", seeds=[0], **kw),
    "length_generalisation": lambda **kw: ex.length_generalisation("rope", seeds=[0], **kw),
    "length_curves": lambda **kw: ex.length_curves("rope", test_lens=[8], seeds=[0], **kw),
    "position_probe": lambda **kw: ex.position_probe(True, seed=0, **kw),
    "position_probes": lambda **kw: ex.position_probes(True, seeds=[0], **kw),
    "frozen_position_probes": lambda **kw: ex.frozen_position_probes(True, seeds=[0], **kw),
    "frozen_position_probes, half": lambda **kw: ex.frozen_position_probes(True, seeds=[0],
                                                                           task="half", **kw),
}


@pytest.mark.parametrize("name", list(TRAINERS))
@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"steps": 0}, ValueError, "steps must be at least 1; got 0"),
        ({"steps": 2001}, ValueError, "steps must be at most 2,000; got 2,001"),
        ({"steps": 100.0}, TypeError, "steps must be an integer; got float 100.0"),
        ({"steps": True}, TypeError, "steps must be an integer; got bool True"),
        ({"width": 13}, ValueError, r"width must be even \(RoPE turns q and k pair by pair"),
        ({"width": 0}, ValueError, "width must be at least 2; got 0"),
        ({"width": 66}, ValueError, "width must be at most 64; got 66"),
        ({"width": "12"}, TypeError, "width must be an integer; got str '12'"),
    ],
)
def test_steps_and_width_are_checked_at_the_door_of_every_function_that_trains(
        name, options, error, message, monkeypatch):
    monkeypatch.setattr(training, "_train", None)  # a call that got past the door would fail
    with pytest.raises(error, match=message):
        TRAINERS[name](**options)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: ex.who_bites_whom(seeds=range(100), steps=2000, width=64),
     r"steps and width must fit one call's budget \(about a minute of training\) with 100 seeds "
     r"on rows of up to 3 words; got steps=2,000, width=64: 2\.7× the budget"),
    (lambda: ex.length_generalisation("rope", 64, 64, seeds=range(20), steps=1000, width=64),
     r"with 20 seeds on rows of up to 64 words; got steps=1,000, width=64: 4\.5× the budget"),
    (lambda: ex.position_probes(True, seeds=range(30), steps=2000, width=64),
     "with 30 seeds on rows of up to 17 words"),
])
def test_a_call_over_the_budget_is_refused_before_it_trains(call, message, monkeypatch):
    monkeypatch.setattr(training, "_train", None)
    with pytest.raises(ValueError, match=message):
        call()


def test_the_series_largest_setting_fits_the_budget():
    """09 §6 varies steps to 800 and width to 24 on the 20 held-out seeds: inside the door."""
    assert ex.checks._check_budget(800, 24, list(ex.HELD_OUT), 8) == (800, 24)
    assert ex.checks._check_budget(800, 24, list(ex.HELD_OUT), 1 + ex.PROBE_LEN) == (800, 24)


@pytest.mark.parametrize("name", list(TRAINERS))
def test_steps_and_width_reach_the_training_of_every_function_that_trains(name, monkeypatch):
    seen = []
    real = training._train

    def spy(*args, **kwargs):
        seen.append((kwargs["steps"], kwargs["width"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "_train", spy)
    for module in (ex, probing):
        monkeypatch.setattr(module, "_train", spy)
    TRAINERS[name](steps=7, width=6)
    assert seen == [(7, 6)]


def test_a_wider_model_trained_longer_has_weights_of_its_width_and_a_longer_loss_curve():
    short = ex.who_bites_whom("rope", seeds=[0], steps=10, width=6)
    assert [len(curve) for curve in short["loss"]] == [3]  # before step 1, after 5, after 10
    params = short["params"][0]
    assert params["W_Q"].shape == (6, 6) and params["embed"].shape == (len(ex.NOUNS + ex.VERBS), 5)
    assert ex.attention(params, "dog bites man", "rope").shape == (3, 3)
    longer = ex.who_bites_whom("rope", seeds=[0], steps=20, width=6)
    assert len(longer["loss"][0]) == 5 and longer["loss"][0][0] == short["loss"][0][0]  # one start
    assert longer["loss"][0][1] != short["loss"][0][1]  # the cosine schedule spans the steps


@pytest.fixture(scope="module")
def pooled(held_out_seeds=ex.HELD_OUT):
    """who_bites_whom read out by the maximum of Y's rows and by its first row, held-out seeds."""
    return {(scheme, readout): ex.who_bites_whom(scheme, seeds=held_out_seeds, readout=readout)
            for scheme in (None, "alibi_symmetric", "causal", "alibi")
            for readout in ("max", "first")}


@pytest.mark.parametrize("scheme", [None, "alibi_symmetric"])
def test_a_max_pooled_read_out_is_order_free_too_blind_models_stay_blind(pooled, scheme):
    assert max(pooled[scheme, "max"]["mirrored_accuracy"]) <= 0.5


@pytest.mark.parametrize("scheme", ["causal", "alibi"])
def test_a_max_pooled_read_out_keeps_what_an_order_aware_scheme_learns(pooled, scheme):
    assert min(pooled[scheme, "max"]["mirrored_accuracy"]) >= 0.95


def test_the_first_row_is_a_slot_it_lets_position_into_a_model_without_positions(pooled):
    mirrored = pooled[None, "first"]["mirrored_accuracy"]
    assert np.mean(mirrored) >= 0.9 and max(mirrored) == 1.0


def test_training_steps_take_the_lengths_in_turn_one_batch_per_seed(monkeypatch):
    seen = []
    real = backward._gradients
    monkeypatch.setattr(training, "_gradients", lambda p, ids, *a: seen.append(ids.shape) or
                        real(p, ids, *a))
    groups = _groups(*[[[0] * n] * 40 for n in (2, 3, 4)])  # 40 rows each of 2, 3 and 4 words
    training._train(groups, None, 12, 12, 8, [0, 1], steps=6)
    assert seen == [(2, ex.BATCH, n) for n in (2, 3, 4, 2, 3, 4)]


def test_accuracy_counts_every_sentence_once_across_lengths():
    params = _weights()
    groups = _groups([[0, 1], [4, 5]], [[1, 2, 3]])
    z = [model._logits(params, ids) for ids, _ in groups]  # (S, B, classes) per length
    right = [np.concatenate([np.argmax(zz[s], axis=-1) == labels[s]
                             for zz, (_, labels) in zip(z, groups, strict=True)]) for s in range(2)]
    assert training._accuracy(params, groups, None) == [float(np.mean(r)) for r in right]


# ---- notebook 09, section 6: length as a curve, on two tasks -------------------------------------

@pytest.fixture(scope="module")
def curves():
    """length_curves on the held-out seeds 10-29, for the schemes 09's conclusions name."""
    return {(scheme, task): ex.length_curves(scheme, task, seeds=ex.HELD_OUT)
            for scheme in (None, "learned", "alibi", "alibi_symmetric", "causal", "relative")
            for task in ex.TASKS}


def _at_32(curves, scheme, task):
    return np.mean(curves[scheme, task]["test_accuracy"][32])


def test_on_held_out_seeds_absolute_positions_hold_a_place_counted_from_the_start(curves):
    learned = _at_32(curves, "learned", "first")
    assert learned > _at_32(curves, "relative", "first") + 0.2
    assert learned > _at_32(curves, "alibi", "first") + 0.2
    assert learned > 4 * _at_32(curves, "learned", "before_last")  # and not one from the end


def test_on_held_out_seeds_offsets_hold_a_place_counted_from_the_end(curves):
    assert _at_32(curves, "relative", "before_last") >= 0.9
    assert _at_32(curves, "alibi", "before_last") > 2 * _at_32(curves, "learned", "before_last")
    assert _at_32(curves, "relative", "before_last") > _at_32(curves, "relative", "first") + 0.4


def test_read_at_the_last_row_a_causal_head_is_a_model_without_positions(curves):
    """The last row sees every key, so neither the mask nor |i - j| versus i - j changes what
    the loss reads: the same training, the same numbers (09's presenter notes)."""
    assert curves["causal", "before_last"] == curves[None, "before_last"]
    assert curves["alibi", "before_last"] == curves["alibi_symmetric", "before_last"]
    assert curves["causal", "first"] != curves[None, "first"]  # the mean read-out sees the mask


def test_the_two_tasks_label_the_same_rows_by_the_first_word_and_the_word_before_the_last():
    first = tasks._rows(np.random.default_rng([3, 2]), 5, [2, 6], 12, "first")
    before = tasks._rows(np.random.default_rng([3, 2]), 5, [2, 6], 12, "before_last")
    for (ids, label), (same, other) in zip(first, before, strict=True):
        np.testing.assert_array_equal(ids, same)
        np.testing.assert_array_equal(label, ids[:, 0])
        np.testing.assert_array_equal(other, ids[:, -2])


def test_length_curves_train_once_and_test_every_length_on_every_seed(monkeypatch):
    seen = []
    real = ex._train
    monkeypatch.setattr(ex, "_train", lambda *a, **k: seen.append(a[4]) or real(*a, **k))
    r = ex.length_curves("learned", "first", test_lens=[4, 20], seeds=[0, 7])
    assert seen == [20]  # one training, the table as long as the longest test row
    assert sorted(r) == ["test_accuracy", "train_accuracy"]
    assert list(r["test_accuracy"]) == [4, 20] and len(r["train_accuracy"]) == 2
    assert all(len(v) == 2 and all(0 <= a <= 1 for a in v) for v in r["test_accuracy"].values())
    again = ex.length_curves("learned", "first", test_lens=[4, 20], seeds=[7])
    assert again["test_accuracy"][20] == [r["test_accuracy"][20][1]]  # seed 7 alone: the same


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: ex.length_curves(task="middle"), ValueError,
     "task must be one of 'first', 'before_last'; got 'middle'"),
    (lambda: ex.length_curves(test_lens=[]), ValueError,
     "test_lens must be a non-empty list of distinct row lengths; got"),
    (lambda: ex.length_curves(test_lens=[8, 8]), ValueError, "distinct row lengths"),
    (lambda: ex.length_curves(test_lens=[8, 100]), ValueError,
     r"test_lens\[i\] must be at most 64"),
    (lambda: ex.length_curves(test_lens=16), TypeError, "test_lens must be a list of row lengths"),
    (lambda: ex.length_curves(readout="rows"), ValueError,
     "readout must be one of 'mean', 'max', 'first', 'last'"),
    (lambda: ex.length_curves("bogus"), ValueError, "scheme must be one of"),
])
def test_length_curves_check_their_arguments_in_the_series_template(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---- notebook 10: where position hides ---------------------------------------------------------

@pytest.fixture(scope="module")
def probes():
    """position_probes for both models on seeds 0-9, and the causal one without a start token."""
    return {"bidirectional": ex.position_probes(False), "causal": ex.position_probes(True),
            "no start": ex.position_probes(True, start=False)}


@pytest.mark.parametrize("seeds", [ex.SEEDS, ex.HELD_OUT], ids=["seeds 0-9", "held out 10-29"])
def test_relative_schemes_name_absolute_positions_at_the_edges_of_a_finite_row(seeds):
    """Offsets only, yet on a finite row the set of offsets differs by position, and a start
    token turns each offset into a position (notebooks 08 and 10): far above 1 in 16."""
    chance = 1 / ex.PROBE_LEN
    for scheme in ex.PROBE_SCHEMES:
        named = ex.position_probes(False, seeds=seeds, scheme=scheme)["test_accuracy"]
        assert np.mean(named) > 5 * chance, scheme
    edges_only = ex.position_probes(False, seeds=seeds, start=False, scheme="rope")
    assert min(edges_only["test_accuracy"]) > 3 * chance  # no start token: the two ends alone


@pytest.mark.parametrize("seeds", [ex.SEEDS, ex.HELD_OUT], ids=["seeds 0-9", "held out 10-29"])
def test_frozen_after_another_task_a_causal_head_barely_names_positions_the_control_does(seeds):
    """Haviv et al.'s kind of probe: a frozen model. Trained to copy the first noun, the causal
    head's rows name positions a little above guessing, far below the end-to-end probe; the
    same probe reads sinusoidal positions added to the same rows (notebook 10)."""
    chance = 1 / ex.PROBE_LEN
    causal = ex.frozen_position_probes(True, seeds=seeds)
    blind = ex.frozen_position_probes(False, seeds=seeds)
    assert np.mean(causal["task_accuracy"]) > 0.7  # it learnt its own task
    assert 1.5 * chance < np.mean(causal["probe_accuracy"]) < 0.25
    assert np.mean(blind["probe_accuracy"]) < 1.3 * chance
    for r in (causal, blind):
        assert np.mean(r["control_accuracy"]) > 0.7


@pytest.mark.parametrize("seeds", [ex.SEEDS, ex.HELD_OUT], ids=["seeds 0-9", "held out 10-29"])
def test_frozen_after_a_task_that_asks_for_position_a_causal_head_names_every_position(seeds):
    """The second frozen task asks which half of the row each noun is in: the causal head
    learns it from its start token, and its frozen rows then name the exact position, far
    above the head frozen after copying the first noun; a bidirectional head cannot learn it
    (notebook 10)."""
    half = ex.frozen_position_probes(True, seeds=seeds, task="half")
    first = ex.frozen_position_probes(True, seeds=seeds)
    blind = ex.frozen_position_probes(False, seeds=seeds, task="half")
    assert min(half["task_accuracy"]) >= 0.95
    assert min(half["probe_accuracy"]) > 0.75 > 0.25 > max(first["probe_accuracy"])
    assert max(blind["task_accuracy"]) < 0.55  # order-blind: a coin toss between the halves
    assert np.mean(blind["probe_accuracy"]) < 1.3 / ex.PROBE_LEN


def test_the_frozen_tasks_label_the_first_noun_or_each_nouns_half():
    ids, _ = tasks._probe_rows(np.random.default_rng(0), 3, 12)
    np.testing.assert_array_equal(probing._task(ids[None], "first"), ids[None, :, 1])
    halves = probing._task(ids[None], "half")  # (1, 3, 16)
    assert halves.shape == (1, 3, ex.PROBE_LEN)
    assert (halves[..., :8] == 0).all() and (halves[..., 8:] == 1).all()


def test_the_linear_probe_names_separable_classes():
    rng = np.random.default_rng(0)
    centres = 3.0 * rng.normal(size=(4, 5))  # four classes, far apart in 5 features
    labels = rng.integers(0, 4, (2, 200))  # two "seeds"
    H = centres[labels] + 0.1 * rng.normal(size=(2, 200, 5))
    new_labels = rng.integers(0, 4, (2, 50))
    H_new = centres[new_labels] + 0.1 * rng.normal(size=(2, 50, 5))
    np.testing.assert_array_equal(probing._linear_probe(H, labels, H_new, 4), new_labels)


def test_the_linear_probe_names_classes_along_a_line_that_least_squares_masks():
    """16 positions one after another along one feature, as a count is: linear discriminant
    analysis names nearly all; a least-squares fit to one-hot targets, also linear, masks the
    middle ones (Hastie et al. 2009, §4.2), so it would miss a position that is there."""
    rng = np.random.default_rng(1)
    labels, new_labels = rng.integers(0, 16, (1, 1600)), rng.integers(0, 16, (1, 400))
    H, H_new = (np.stack([c / 16 + 0.005 * rng.normal(size=c.shape),
                          rng.normal(size=c.shape)], axis=-1) for c in (labels, new_labels))
    named = probing._linear_probe(H, labels, H_new, 16)
    assert np.mean(named == new_labels) > 0.95
    F = np.concatenate([H[0], np.ones((1600, 1))], axis=1)  # least squares, numpy's lstsq
    W = np.linalg.lstsq(F, np.eye(16)[labels[0]], rcond=None)[0]
    F_new = np.concatenate([H_new[0], np.ones((400, 1))], axis=1)
    assert np.mean(np.argmax(F_new @ W, axis=1) == new_labels[0]) < 0.4


def test_a_probe_with_a_scheme_trains_that_scheme(monkeypatch):
    seen = []
    real = ex._probe
    monkeypatch.setattr(ex, "_probe", lambda scheme, *a: seen.append(scheme) or real(scheme, *a))
    ex.position_probe(False, seed=0, scheme="alibi_symmetric")
    ex.position_probe(True, seed=0)
    ex.position_probe(False, seed=0)
    assert seen == ["alibi_symmetric", "causal", None]


def test_a_bidirectional_model_without_positions_is_at_chance_on_constant_rows(probes):
    """The proof: equal rows of X give equal rows of Y, so one answer for all 16 positions."""
    assert all(a <= 1 / ex.PROBE_LEN for a in probes["bidirectional"]["constant_accuracy"])
    assert max(probes["bidirectional"]["test_accuracy"]) < 0.1  # new rows: near 1 in 16


def test_a_causal_model_without_positions_counts_from_a_start_token_on_every_seed(probes):
    assert min(probes["causal"]["test_accuracy"]) >= 0.9
    assert min(probes["causal"]["constant_accuracy"]) >= 0.8  # one noun repeated: it counts
    per_position = np.array(probes["causal"]["per_position"])  # (seeds, 16)
    assert (per_position[:, :12] == 1.0).all()  # positions 0-11 on every seed


def test_without_a_start_token_the_causal_model_cannot_count_equal_rows(probes):
    """Row i then averages i + 1 equal vectors: the same vector at every i."""
    assert all(a <= 1 / ex.PROBE_LEN for a in probes["no start"]["constant_accuracy"])
    assert max(probes["no start"]["test_accuracy"]) < 0.2


def test_the_probe_reports_every_key_per_seed_and_one_accuracy_per_position(probes):
    for result in probes.values():
        assert set(result) == {"train_accuracy", "test_accuracy", "constant_accuracy",
                               "per_position"}
        assert all(len(v) == len(ex.SEEDS) for v in result.values())
        assert np.shape(result["per_position"]) == (len(ex.SEEDS), ex.PROBE_LEN)
        np.testing.assert_allclose(np.mean(result["per_position"], axis=1),
                                   result["test_accuracy"], atol=1e-12)


def test_one_probe_seed_is_that_seed_of_the_side_by_side_run_and_repeats(probes):
    alone = ex.position_probe(causal=True, seed=3)
    assert alone["test_accuracy"] == probes["causal"]["test_accuracy"][3]
    assert alone["per_position"] == probes["causal"]["per_position"][3]
    assert ex.position_probe(causal=True, seed=3) == alone  # deterministic


def test_probe_rows_open_with_the_start_token_and_label_each_word_by_its_position():
    ids, labels = tasks._probe_rows(np.random.default_rng(0), 5, 12)
    assert ids.shape == (5, 1 + ex.PROBE_LEN) and (ids[:, 0] == ex.START).all()
    assert (ids[:, 1:] < 12).all() and (labels == np.arange(ex.PROBE_LEN)).all()
    same, _ = tasks._probe_rows(np.random.default_rng(0), 5, 12, constant=True, start=False)
    assert (same == same[:, :1]).all()  # one noun, the first column too


def test_relative_positions_learn_who_bites_whom_on_every_seed(results):
    assert min(results["relative"]["mirrored_accuracy"]) >= 0.95
    assert results["relative"]["params"][0]["table"].shape == (2 * pa.positions.RELATIVE_CLIP + 1,)


def test_random_positions_are_distinct_in_order_and_within_the_table():
    rngs = [np.random.default_rng(s) for s in (0, 1)]
    p = training._random_positions(rngs, 50, 6, 16)  # (S, rows, n)
    assert p.shape == (2, 50, 6) and p.min() >= 0 and p.max() <= 15
    assert (np.diff(p, axis=-1) > 0).all()  # in order, no repeats
    assert len(np.unique(p)) == 16  # every position of the table turns up


def test_randomized_positions_train_every_row_of_the_learned_table(monkeypatch):
    seen = []
    real = training._train
    monkeypatch.setattr(ex, "_train", lambda *a, **k: seen.append(r := real(*a, **k)) or r)
    ex.length_generalisation("learned", seeds=[0], remedy="randomized")
    start = model._init(np.random.default_rng([0, 1]), 12, 12, 16, "learned")["table"]
    assert (seen[0][0]["table"][0] != start).any(axis=1).all()  # rows 0-15 all moved


def test_interpolation_changes_the_test_positions_only():
    plain = ex.length_generalisation("rope", seeds=[0, 1])
    squeezed = ex.length_generalisation("rope", seeds=[0, 1], remedy="interpolation")
    assert squeezed["train_accuracy"] == plain["train_accuracy"]  # the same training
    assert squeezed["test_accuracy"] != plain["test_accuracy"]


def test_the_positions_a_remedy_gives_reach_the_schemes_kernels():
    """Positions 0 … n − 1 given explicitly are the scheme's own, for every remedy's scheme."""
    for scheme in ("learned", "sinusoidal"):
        params = _weights(scheme) if scheme == "learned" else _weights()
        ids = np.array([[[0, 12, 1], [1, 12, 0]]] * 2)
        own = model._logits(params, ids, scheme)
        at = np.broadcast_to(np.arange(3), (2, 2, 3))
        given = model._logits(params, ids, scheme, positions=at)
        np.testing.assert_allclose(given, own, atol=1e-12)
    params = _weights("rope")
    np.testing.assert_allclose(model._logits(params, ids, "rope", positions=np.arange(3.0)),
                               model._logits(params, ids, "rope"), atol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ex.length_generalisation("rope", remedy="randomized"), ValueError,
         r"remedy 'randomized' changes the positions of 'learned' and 'sinusoidal' only; got "
         r"scheme 'rope'\. Use remedy=None"),
        (lambda: ex.length_generalisation("learned", remedy="interpolation"), ValueError,
         r"remedy 'interpolation' changes the positions of 'rope'( and '\w+')* only; got scheme "
         r"'learned'"),
        (lambda: ex.length_generalisation(None, remedy="randomized"), ValueError,
         r"got scheme None"),
        (lambda: ex.length_generalisation("rope", remedy="stretch"), ValueError,
         r"remedy must be one of 'randomized', 'interpolation'; got 'stretch'"),
        (lambda: ex.position_probe("yes"), TypeError,
         r"causal must be True or False \(True: the causal mask; False: bidirectional\); got str"),
        (lambda: ex.position_probe(True, seed=-1), ValueError, "seed must be at least 0"),
        (lambda: ex.position_probes(False, seeds=[]), ValueError, "seeds must be a non-empty"),
        (lambda: ex.position_probes(False, start=1), TypeError, "start must be True or False"),
        (lambda: ex.position_probes(False, scheme="learned"), ValueError,
         "scheme must be one of 'rope', 'relative', 'alibi', 'alibi_symmetric'; got 'learned'"),
        (lambda: ex.frozen_position_probes("yes"), TypeError, "causal must be True or False"),
        (lambda: ex.frozen_position_probes(True, seeds=[]), ValueError,
         "seeds must be a non-empty"),
        (lambda: ex.frozen_position_probes(True, task="middle"), ValueError,
         "task must be one of 'first', 'half'; got 'middle'"),
        (lambda: ex.frozen_position_probes(True, task="half", readout="mean"), ValueError,
         r"readout must be None with task 'half': each noun's row names its own half, so every "
         r"row is read; got 'mean'\. Leave readout out\."),
        (lambda: ex.frozen_position_probes(True, readout="rows"), ValueError,
         "readout must be one of 'mean', 'max', 'first', 'last'; got 'rows'"),
        (lambda: ex.position_probe(True, scheme="rope"), ValueError,
         "causal must be False with scheme 'rope': the scheme brings its own mask"),
    ],
)
def test_bad_arguments_of_notebook_10s_experiments_get_the_series_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()

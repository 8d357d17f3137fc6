"""Trained models: can training find a way around missing positions? (notebooks 09 and 10)

One tiny model per positional scheme and seed, trained by AdamW, in five files of one idea each:

- ``tasks``: the data (who bites whom, copy the first word, the probe's rows);
- ``model``: the forward pass, the package's own kernels (attention, the registry's schemes);
- ``backward``: its gradients, written out (tests/test_autograd.py checks them);
- ``training``: AdamW for every seed at once, and the accuracies;
- ``probes``: does a head without positions know where each word is?

and ``checks``, the door. The public functions below check their arguments once, then call the
kernels. Two tasks: :func:`who_bites_whom` and :func:`length_generalisation` (with a ``remedy``
that changes the positions a model sees, notebook 10). A third, :func:`position_probe`, reads a
position out of every row of Y (notebook 10: does a model without positions know where it is?).
"""

import json
import math
from pathlib import Path

import numpy as np

from .._checks import check_choice, check_int, finite_result, quiet_overflow, shorten, shown
from ..schemes import _check_scheme, _with_positions
from .checks import (
    MAX_PROBE_SEEDS,
    MAX_ROW_LEN,
    MAX_SEEDS,
    MAX_STEPS,
    MAX_WIDTH,
    MAX_WORK,
    PROBE_SCHEMES,
    REMEDIES,
    WORK_PER_STEP,
    _check_accuracies,
    _check_budget,
    _check_fmt,
    _check_grid_length,
    _check_lengths,
    _check_numbers,
    _check_params,
    _check_probe,
    _check_ramps,
    _check_remedy,
    _check_row_length,
    _check_seeds,
    _check_table,
)
from .extension import _extended_accuracy
from .model import D, _unstack
from .probes import FROZEN_TASKS, PROBE_STEPS, _frozen_probe, _probe
from .tasks import NOUNS, PROBE_LEN, START, TASKS, VERBS, _length_rows, _noun_pairs, _sentences
from .training import (
    BATCH,
    DECAYED,
    LEARNING_RATE,
    STEPS,
    WEIGHT_DECAY,
    _accuracy,
    _step_size,
    _train,
)

LOSS_EVERY = 5  # who_bites_whom measures the loss on the whole training set every 5 steps
SEEDS = range(10)  # every result in notebook 09 is over these seeds; the recipe was tuned on them
HELD_OUT = range(10, 30)  # seeds the recipe never saw: the claims are checked on them too
# What the classifier reads of Y: the mean of its rows or their maximum (order-free pools), or
# one row, the first or the last (slots, which let position in).
READOUTS = ("mean", "max", "first", "last")
CURVE_LENGTHS = (8, 12, 16, 24, 32)  # length_curves' test lengths, by default
TASK_READOUTS = {"first": "mean", "before_last": "last"}  # each task's own read-out, by default

__all__ = [  # the recipe's constants, from the files that use them, then the public functions
    "NOUNS", "VERBS", "START", "PROBE_LEN", "D", "BATCH", "STEPS", "LEARNING_RATE", "WEIGHT_DECAY",
    "DECAYED", "PROBE_STEPS", "MAX_SEEDS", "MAX_PROBE_SEEDS", "MAX_ROW_LEN", "MAX_STEPS",
    "MAX_WIDTH", "MAX_WORK", "WORK_PER_STEP", "REMEDIES", "FROZEN_TASKS",
    "LOSS_EVERY", "SEEDS", "HELD_OUT", "PROBE_SCHEMES", "TASKS", "CURVE_LENGTHS", "TASK_READOUTS",
    "READOUTS", "noun_pairs", "step_size", "who_bites_whom", "attention",
    "length_generalisation", "length_curves", "context_extension", "context_grid",
    "position_probe", "position_probes",
    "frozen_position_probes", "setup_grid", "setup_table", "climbs_back", "spread", "table"]


def noun_pairs(seed: int = 0) -> dict[str, list[tuple[int, int]]]:
    """Ordered (subject, object) noun pairs split into "train", "test" and "mirrored".

    12 unordered pairs are held out both ways round, so each one's mirror is in the test set
    too ("mirrored"); 6 more are held out one way only: their mirror is a training pair.

    >>> {k: len(v) for k, v in noun_pairs().items()}
    {'train': 102, 'test': 30, 'mirrored': 24}
    """
    return _noun_pairs(check_int("seed", seed, minimum=0))


def step_size(t: int, steps: int = STEPS) -> float:
    """The cosine schedule: LEARNING_RATE at step 1, falling smoothly to 0 after the last step.

    >>> [round(step_size(t, 4), 3) for t in (1, 2, 3, 4)]
    [0.04, 0.034, 0.02, 0.006]
    """
    steps = check_int("steps", steps)
    if check_int("t", t) > steps:
        raise ValueError(f"t must be at most steps = {steps}, the last step; got t = {t}.")
    return _step_size(t, steps)


def who_bites_whom(scheme=None, seeds=SEEDS, readout: str = "mean", steps: int = STEPS,
                   width: int = D) -> dict:
    """Train on "<noun> <verb> <noun>" -> the subject; test on held-out noun pairs, per seed.

    ``readout`` is what the classifier reads of Y (READOUTS): "mean" pools its rows and "max"
    takes each feature's largest (order-free read-outs: with no positions the model is then
    blind to order); "first" and "last" read the row of the first or last word (read-outs that
    pick a slot, and so let position in). ``steps`` AdamW steps train models of width
    ``width`` (the width d of X, Q, K and V): a trained result is a result of its setup, and
    these let it be re-run under another one.
    Each key holds one entry per seed: train_accuracy, test_accuracy, mirrored_accuracy (test
    sentences whose mirror image is in the test set too), loss (the loss on the whole training
    set at steps 0, LOSS_EVERY, 2·LOSS_EVERY, …, and after the last step) and params (the
    trained weights).
    """
    _check_scheme(scheme, {})  # the registry's own check, before any training starts
    seeds = _check_seeds(seeds)
    check_choice("readout", readout, READOUTS)
    steps, width = _check_budget(steps, width, seeds, 3)
    splits = [{k: _sentences(v) for k, v in _noun_pairs(s).items()} for s in seeds]
    data = {k: [tuple(np.stack(a) for a in zip(*(split[k] for split in splits), strict=True))]
            for k in splits[0]}  # split -> one group: ids (S, N, 3), labels (S, N)
    params, losses = _train(data["train"], scheme, len(NOUNS), len(NOUNS) + len(VERBS), 3,
                            seeds, readout, steps=steps, every=LOSS_EVERY, width=width)
    result = {f"{k}_accuracy": _accuracy(params, v, scheme, readout) for k, v in data.items()}
    return {**result, "loss": losses.tolist(),
            "params": [_unstack(params, s) for s in range(len(seeds))]}


def attention(params: dict, sentence: str, scheme=None) -> np.ndarray:
    """A (n, n), one trained model's attention weights on a sentence of NOUNS and VERBS.

    ``params`` is one seed's entry of who_bites_whom's "params"; the weights go through the
    same kernel as :func:`attention_with_positions`, one sentence at a time.

    >>> params = who_bites_whom(seeds=[0])["params"][0]
    >>> attention(params, "dog bites man").shape
    (3, 3)
    """
    _check_scheme(scheme, {})
    if not isinstance(sentence, str) or not sentence.split():
        raise TypeError(f"sentence must be a string of words, such as 'dog bites man'; got "
                        f"{type(sentence).__name__} {shown(sentence, 60)}.")
    words = sentence.split()
    if len(words) > MAX_ROW_LEN:
        raise ValueError(f"sentence must have at most {MAX_ROW_LEN} words, the longest rows the "
                         f"models are trained or tested on; got {len(words):,}.")
    unknown = [w for w in words if w not in NOUNS + VERBS]
    if unknown:
        raise ValueError(f"sentence must use the words of NOUNS and VERBS; got {shorten(unknown)}. "
                         "Pick nouns from ex.NOUNS and verbs from ex.VERBS.")
    embed, W_Q, W_K, W_V, *table = _check_params(params, scheme, len(words))
    ids = [(NOUNS + VERBS).index(w) for w in words]
    X = np.concatenate([embed[ids], np.ones((len(ids), 1))], axis=1)  # (n, d)
    options = {"table": table[0]} if table else {}
    with quiet_overflow():
        _, A = _with_positions(X, W_Q, W_K, W_V, scheme, **options)
    return finite_result("params", "attention", A)


def length_generalisation(scheme=None, train_max_len: int = 8, test_len: int = 16,
                          seeds=SEEDS, readout: str = "mean", remedy=None, steps: int = STEPS,
                          width: int = D) -> dict:
    """Copy the first word: train on rows of 2 … train_max_len words, test on rows of test_len.

    Each seed draws 400 training rows (the same number of each length) and 200 test rows.
    ``readout`` is one of READOUTS ("last" reads the last row, as a causal language model does);
    ``steps`` and ``width`` as in :func:`who_bites_whom`. Returns train_accuracy and
    test_accuracy, one entry per seed. For "learned" the table has max(train_max_len,
    test_len) rows; rows at positions
    train_max_len and beyond are never used in training, so they keep their start.

    ``remedy`` changes the positions, not the weights (both accuracies are measured at the
    positions given in the test):

    - "randomized" ("learned", "sinusoidal"; Ruoss et al. 2023): in training, each row of n
      words gets n random positions of 0 … max(train_max_len, test_len) − 1, in order; the
      test rows get 0 … test_len − 1, so no test position is new;
    - "interpolation" ("rope"; Chen et al. 2023, without their short fine-tuning): trained as
      usual, then a row of test_len words gets the positions p · train_max_len / test_len,
      squeezed into the range seen in training.
    """
    _check_scheme(scheme, {})
    _check_remedy(remedy, scheme)
    seeds = _check_seeds(seeds)
    train_max_len = _check_row_length("train_max_len", train_max_len)
    test_len = _check_row_length("test_len", test_len)
    check_choice("readout", readout, READOUTS)
    steps, width = _check_budget(steps, width, seeds, train_max_len)
    vocab = len(NOUNS)
    train, test = _length_rows(seeds, train_max_len, [test_len])  # per length: ids, labels
    params, _ = _train(train, scheme, vocab, vocab, max(train_max_len, test_len), seeds,
                       readout, steps=steps, randomized=remedy == "randomized", width=width)
    squeezed = (np.arange(test_len) * (train_max_len / test_len)
                if remedy == "interpolation" else None)  # (test_len,)
    return {"train_accuracy": _accuracy(params, train, scheme, readout),
            "test_accuracy": _accuracy(params, test, scheme, readout, squeezed)}


def length_curves(scheme=None, task: str = "first", test_lens=CURVE_LENGTHS, seeds=SEEDS,
                  readout=None, train_max_len: int = 8, steps: int = STEPS,
                  width: int = D) -> dict:
    """Accuracy against row length: train once on rows of 2 … train_max_len words, then test on
    200 new rows of each length in ``test_lens``, per seed.

    ``task`` picks the label (TASKS): "first", the row's first word (a place counted from the
    start), or "before_last", the word just before the last (a place counted back from the
    end). ``readout`` defaults to the task's own (TASK_READOUTS): the mean of Y's rows for
    "first", the last row for "before_last", where a causal model reads. Each seed draws the
    same rows as :func:`length_generalisation`, so the two tasks differ only in their labels.
    Returns train_accuracy (one entry per seed) and test_accuracy, {length: one entry per
    seed}. For "learned" the table has max(train_max_len, *test_lens) rows. ``readout`` is one
    of READOUTS; ``steps`` and ``width`` as in :func:`who_bites_whom`.
    """
    _check_scheme(scheme, {})
    check_choice("task", task, tuple(TASKS))
    readout = TASK_READOUTS[task] if readout is None else readout
    check_choice("readout", readout, READOUTS)
    seeds = _check_seeds(seeds)
    train_max_len = _check_row_length("train_max_len", train_max_len)
    test_lens = _check_lengths("test_lens", test_lens)
    steps, width = _check_budget(steps, width, seeds, train_max_len)
    vocab = len(NOUNS)
    train, test = _length_rows(seeds, train_max_len, test_lens, task)  # per length: ids, labels
    params, _ = _train(train, scheme, vocab, vocab, max(train_max_len, *test_lens), seeds,
                       readout, steps=steps, width=width)
    return {"train_accuracy": _accuracy(params, train, scheme, readout),
            "test_accuracy": {n: _accuracy(params, [group], scheme, readout)
                              for n, group in zip(test_lens, test, strict=True)}}


def context_extension(task: str = "first", seeds=SEEDS, test_lens=(8, 16, 32),
                      ramps=((1.0, 32.0),), train_max_len: int = 8, steps: int = STEPS,
                      width: int = D) -> dict:
    """One RoPE model per seed, trained as in :func:`length_curves`, tested on longer rows with
    the frequencies of each method of ``posattn.scaling`` (notebook 11): the same weights.

    A row of n words gets s = n / train_max_len (at least 1): "none" keeps the trained ω,
    "interpolation" divides every ω by s (Chen et al. 2023, without their fine-tuning), "ntk"
    raises the base to base·s^(d/(d−2)), and each (α, β) of ``ramps`` is YaRN's ramp with those
    ends and its temperature on the scores (Peng et al. 2024; the paper's ends are 1 and 32),
    labelled "yarn(α,β)". Returns train_accuracy (one entry per seed) and test_accuracy,
    {label: {length: one entry per seed}}; the task's own read-out (TASK_READOUTS).
    """
    check_choice("task", task, tuple(TASKS))
    seeds = _check_seeds(seeds)
    test_lens = _check_lengths("test_lens", test_lens)
    ramps = _check_ramps(ramps)
    train_max_len = _check_row_length("train_max_len", train_max_len)
    steps, width = _check_budget(steps, width, seeds, train_max_len)
    readout, vocab = TASK_READOUTS[task], len(NOUNS)
    train, test = _length_rows(seeds, train_max_len, test_lens, task)
    params, _ = _train(train, "rope", vocab, vocab, max(train_max_len, *test_lens), seeds,
                       readout, steps=steps, width=width)
    methods = [("none", 1.0, 32.0), ("interpolation", 1.0, 32.0), ("ntk", 1.0, 32.0),
               *(("yarn", a, b) for a, b in ramps)]
    return {"train_accuracy": _accuracy(params, train, "rope", readout),
            "test_accuracy": {
                (f"yarn({a:g},{b:g})" if m == "yarn" else m): {
                    n: _extended_accuracy(params, ids, labels, readout, m, train_max_len, a, b)
                    for n, (ids, labels) in zip(test_lens, test, strict=True)}
                for m, a, b in methods}}


def context_grid() -> dict:
    """Notebook 11's stored result: :func:`context_extension` for each task on seeds 0–29.

    "accuracy"[task][label][length] holds one entry per seed of "seeds" (the tuning seeds
    "tuning", then "held_out"); "train_accuracy"[task] one per seed. Training 30 seeds on two
    tasks takes longer than a notebook may, so it is stored (made by ``python -m
    tools.run.context_grid``); tests train seeds of it again and compare.

    >>> grid = context_grid()
    >>> grid["lengths"], list(grid["accuracy"]["first"])[:3]
    ([8, 16, 32], ['none', 'interpolation', 'ntk'])
    """
    grid = json.loads(Path(__file__).with_name("context_grid.json").read_text(encoding="utf-8"))
    grid["accuracy"] = {task: {label: {int(n): a for n, a in by_length.items()}
                               for label, by_length in by_label.items()}
                        for task, by_label in grid["accuracy"].items()}
    return grid


def position_probe(causal: bool, seed: int = 0, start: bool = True, scheme=None,
                   steps: int = PROBE_STEPS, width: int = D) -> dict:
    """Can one attention head say where each word is? One seed.

    Rows are a start token (or, with ``start=False``, a first noun whose row is not read),
    then PROBE_LEN random nouns; the model (one head, no positional scheme, the causal mask if
    ``causal``) reads each noun's row of Y through a linear layer and names its position,
    0 … PROBE_LEN − 1. Trained end to end (``steps`` AdamW steps, PROBE_STEPS by default, 400
    rows, models of width ``width``); measured on 200 new rows. The read-out is every row (the
    probe names each word's position), so it takes no ``readout``. ``scheme``: one of
    PROBE_SCHEMES instead of no positions (with its own mask, so ``causal`` stays False): do
    offsets alone, on a finite row, name absolute positions?
    Returns train_accuracy, test_accuracy, constant_accuracy (on rows of one noun repeated)
    and per_position (test accuracy at each position). :func:`position_probes` trains several
    seeds side by side.

    >>> sorted(position_probe(causal=True))
    ['constant_accuracy', 'per_position', 'test_accuracy', 'train_accuracy']
    """
    chosen, start = _check_probe(causal, start, scheme)
    seeds = [check_int("seed", seed, minimum=0)]
    steps, width = _check_budget(steps, width, seeds, 1 + PROBE_LEN)
    return {k: v[0] for k, v in _probe(chosen, seeds, start, steps, width).items()}


def position_probes(causal: bool, seeds=SEEDS, start: bool = True, scheme=None,
                    steps: int = PROBE_STEPS, width: int = D) -> dict:
    """:func:`position_probe` for several seeds, trained side by side: one entry per seed."""
    chosen, start = _check_probe(causal, start, scheme)
    seeds = _check_seeds(seeds, MAX_PROBE_SEEDS)
    steps, width = _check_budget(steps, width, seeds, 1 + PROBE_LEN)
    return _probe(chosen, seeds, start, steps, width)


def frozen_position_probes(causal: bool, seeds=SEEDS, start: bool = True, steps: int = STEPS,
                           width: int = D, readout=None, task: str = "first") -> dict:
    """Does a trained head know where each word is? A probe of a frozen model, per seed.

    A head without positions (the causal mask if ``causal``) is trained on probe rows (the
    start token, or without ``start`` one more noun, then PROBE_LEN nouns) for a task of
    FROZEN_TASKS: "first", copy the first noun, read by ``readout`` (the mean of Y's rows by
    default; one of READOUTS), a task that never asks where the other nouns are; or "half", at
    each noun's row of Y say which half of the row the noun is in (positions 0–7 or 8–15), a
    task that asks for position, coarsely, so every row is read and it takes no ``readout``.
    ``steps`` and ``width`` as in :func:`who_bites_whom`. Then the head is frozen, and a
    linear probe (linear discriminant analysis: class means, one shared covariance) is fitted
    to its output rows on 400 rows to name each noun's exact position, and tested on 400 new
    rows, as Haviv et al. probed frozen language models. Returns task_accuracy (the task, on
    new rows), probe_accuracy, and control_accuracy: the same probe on the same rows plus
    sinusoidal positions (what a residual stream with positions at the input carries), which
    shows the probe can read a position that is there.
    """
    chosen, start = _check_probe(causal, start, None)
    seeds = _check_seeds(seeds, MAX_PROBE_SEEDS)
    check_choice("task", task, tuple(FROZEN_TASKS))
    if task == "half" and readout is not None:
        raise ValueError(f"readout must be None with task 'half': each noun's row names its own "
                         f"half, so every row is read; got {shown(readout, 60)}. Leave readout "
                         "out.")
    readout = "rows" if task == "half" else "mean" if readout is None else readout
    if task == "first":
        check_choice("readout", readout, READOUTS)
    steps, width = _check_budget(steps, width, seeds, 1 + PROBE_LEN)
    return _frozen_probe(chosen, seeds, start, steps, width, readout, task)


def setup_grid() -> dict:
    """Notebook 09 §6's grid: accuracy on long rows against training steps and width, stored.

    For each task of :func:`length_curves` and each scheme (and "none", no positions), trained on
    rows of 2–8 words at every number of steps in "steps" and every width in "widths", one model
    per held-out seed ("seeds", HELD_OUT): "accuracy"[task][label][(steps, width)][length], one
    entry per seed, at each test length in "lengths". The grid takes minutes to train, so it is
    stored with the package (made by ``python -m tools.run.setup_grid``); every entry is what
    ``length_curves(scheme, task, seeds=HELD_OUT, steps=…, width=…)["test_accuracy"][length]``
    returns, and the tests train cells of it again to check that.

    >>> grid = setup_grid()
    >>> grid["steps"], grid["widths"], grid["lengths"]
    ([100, 200, 400, 800], [8, 12, 24], [8, 16, 32])
    """
    return _grid()


def _grid() -> dict:
    grid = json.loads(Path(__file__).with_name("setup_grid.json").read_text(encoding="utf-8"))
    grid["accuracy"] = {task: {label: {tuple(map(int, setup.split(","))):
                                       {int(n): a for n, a in by_length.items()}
                                       for setup, by_length in by_setup.items()}
                               for label, by_setup in by_label.items()}
                        for task, by_label in grid["accuracy"].items()}
    return grid


def setup_table(task: str, length: int = 32) -> str:
    """:func:`setup_grid` as a table for one task: a row per scheme, a column per number of
    training steps, in each cell the mean accuracy over the held-out seeds at ``length`` words,
    in percent, for each width ("64/84/92": widths 8, 12 and 24).

    >>> print(setup_table("first").splitlines()[4])
    learned           64/84/92   40/39/49   34/33/39   30/30/33
    """
    grid = _grid()
    check_choice("task", task, tuple(grid["accuracy"]))
    _check_grid_length(length, grid["lengths"])
    cells = {label: ["/".join(f"{100 * math.fsum(by[s, w][length]) / len(by[s, w][length]):.0f}"
                              for w in grid["widths"]) for s in grid["steps"]]
             for label, by in grid["accuracy"][task].items()}
    seeds, widths = grid["seeds"], "/".join(map(str, grid["widths"]))
    return (f"{task}, {length} words: mean % of seeds {seeds[0]}-{seeds[-1]}, widths {widths}\n"
            + _table(cells, [f"{s} steps" for s in grid["steps"]], "scheme"))


def climbs_back(loss) -> bool:
    """True when a loss curve ends above 1.05 × its lowest value + 0.01: it rose again.

    >>> [climbs_back(loss) for loss in ([2.5, 0.02, 0.3], [2.5, 0.02, 0.021], [2.5, 1.0, 1.04])]
    [True, False, False]
    """
    loss = _check_numbers("loss", loss)
    return loss[-1] > 1.05 * min(loss) + 0.01


def spread(values, fmt: str = "{:.0%}") -> str:
    """'mean (min–max)' of a list of accuracies (fractions from 0 to 1), each as ``fmt``: the way
    a result over seeds prints.

    >>> spread([0.9, 1.0, 0.95])
    '95% (90–100%)'
    """
    values, fmt = _check_accuracies("values", values), _check_fmt(fmt)
    mean = math.fsum(values) / len(values)  # exactly rounded: the same last digit everywhere
    low, high = fmt.format(min(values)), fmt.format(max(values))
    return f"{fmt.format(mean)} ({low.rstrip('%')}–{high})"


def table(rows: dict, columns, corner: str = "scheme") -> str:
    """The lines of an aligned table: a header (``corner``, then ``columns``), then a line per
    row label with its cells, each column right-aligned and two spaces from the next (the way a
    deck reads a printed table back).

    >>> print(table({"rope": ["100%", "29%"], "none": ["15%", "14%"]}, ["first", "before last"]))
    scheme  first  before last
    rope     100%          29%
    none      15%          14%
    """
    return _table(*_check_table(rows, columns, corner))


def _table(rows: dict, columns: list[str], corner: str) -> str:
    lines = [[corner, *columns], *([label, *cells] for label, cells in rows.items())]
    widths = [max(len(line[k]) for line in lines) for k in range(len(columns) + 1)]
    return "\n".join("  ".join([line[0].ljust(widths[0]),
                                 *(c.rjust(w) for c, w in zip(line[1:], widths[1:], strict=True))])
                      for line in lines)

"""Trained models: can training find a way around missing positions? (notebook 09)

One tiny model per positional scheme, trained by Adam on gradients that autograd takes
through the package's own :func:`attention_with_positions` (no second copy of the math):

    X = token embeddings (B, n, d)    Y, A = attention_with_positions(X, W_Q, W_K, W_V, scheme)
    logits = mean of Y's rows @ W_out + b      loss = cross-entropy of softmax(logits)

The last column of X is a constant 1: a bias row for W_Q, W_K and W_V, as real layers have.
A batch is B sentences of one length n, attended to in one traced call.
Two tasks: :func:`who_bites_whom` and :func:`length_generalisation`.
"""

import itertools
import math

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad

from ._checks import check_int
from .positions import _lookup, attention_with_positions

NOUNS = ("dog", "man", "cat", "fox", "owl", "bee", "rat", "hen", "cow", "pig", "elk", "ape")
VERBS = ("bites", "sees", "chases")
D, BATCH, LEARNING_RATE = 12, 8, 0.05  # width d, sentences per Adam step, step size
STEPS, LENGTH_STEPS = 100, 150  # Adam steps for who_bites_whom, for length_generalisation
LENGTH_BATCH = 16  # rows per step for length_generalisation: each step sees one length only


def noun_pairs(seed: int = 0) -> dict[str, list[tuple[int, int]]]:
    """Ordered (subject, object) noun pairs split into "train", "test" and "mirrored".

    12 unordered pairs are held out both ways round, so each one's mirror is in the test set
    too ("mirrored"); 6 more are held out one way only: their mirror is a training pair.

    >>> {k: len(v) for k, v in noun_pairs().items()}
    {'train': 102, 'test': 30, 'mirrored': 24}
    """
    rng = np.random.default_rng([check_int("seed", seed, minimum=0), 0])  # the split's own stream
    pairs = list(itertools.combinations(range(len(NOUNS)), 2))
    both, one_way = np.split(rng.permutation(len(pairs))[:18], [12])
    mirrored = [pairs[k] for k in both] + [pairs[k][::-1] for k in both]
    test = mirrored + [pairs[k] for k in one_way]
    train = [p for p in itertools.permutations(range(len(NOUNS)), 2) if p not in test]
    return {"train": train, "test": test, "mirrored": mirrored}


def _sentences(pairs) -> list[tuple[list[int], int]]:
    """(token ids, label) for each "<subject> <verb> <object>"; verb ids follow the nouns'."""
    return [([s, len(NOUNS) + v, o], s) for s, o in pairs for v in range(len(VERBS))]


def _init(rng, vocab: int, classes: int, max_len: int, scheme) -> dict:
    """Small random weights: entries of X and of Q, K, V start of order 1."""
    scale = 1.0 / math.sqrt(D)
    params = {"embed": rng.normal(0.0, 1.0, (vocab, D - 1)),  # (vocab, d − 1); X adds a 1
              "W_out": rng.normal(0.0, scale, (D, classes)), "b": np.zeros(classes)}
    for name in ("W_Q", "W_K", "W_V"):
        params[name] = rng.normal(0.0, scale, (D, D))  # (d, d)
    if scheme == "learned":  # the same spread as learned_positions; rows never used get no gradient
        params["table"] = rng.normal(0.0, 1.0 / math.sqrt(2.0), (max_len, D))  # (max_len, d)
    return params


def _logits(params: dict, ids, scheme=None):
    """Class scores for one sentence, ids (n,), or a batch, ids (B, n); traceable by autograd."""
    ids = np.asarray(ids)
    X = anp.concatenate([params["embed"][ids], np.ones((*ids.shape, 1))], axis=-1)  # (..., n, d)
    options = {"table": params["table"]} if scheme == "learned" else {}
    W_Q, W_K, W_V = params["W_Q"], params["W_K"], params["W_V"]  # (d, d) each
    Y, _ = attention_with_positions(X, W_Q, W_K, W_V, scheme, **options)  # (..., n, d)
    return anp.mean(Y, axis=-2) @ params["W_out"] + params["b"]  # (..., d) @ (d, classes)


def _loss(params: dict, ids, labels, scheme):
    """Mean cross-entropy −log softmax(logits)[label] over a batch, ids (B, n), labels (B,)."""
    z = _logits(params, ids, scheme)  # (B, classes)
    top = anp.max(z, axis=1, keepdims=True)  # log Σ exp(z) = top + log Σ exp(z − top)
    log_sum = top[:, 0] + anp.log(anp.sum(anp.exp(z - top), axis=1))
    return anp.mean(log_sum - z[np.arange(len(labels)), labels])


def _by_length(data) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The sentences grouped by length: n -> (ids (B, n), labels (B,)), lengths ascending."""
    data = sorted(data, key=lambda row: len(row[0]))  # stable: each length keeps its order
    return {n: tuple(map(np.array, zip(*rows, strict=True)))
            for n, rows in itertools.groupby(data, key=lambda row: len(row[0]))}


def _adam(params: dict, grads: dict, state: dict, t: int, b1=0.9, b2=0.999, eps=1e-8) -> None:
    """One Adam step (Kingma & Ba 2015) on every array in params; moments kept in state."""
    for k, g in grads.items():
        m, v = state.setdefault(k, (np.zeros_like(g), np.zeros_like(g)))
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        state[k] = m, v
        params[k] = params[k] - LEARNING_RATE * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)


def _train(data, scheme, classes: int, vocab: int, max_len: int, seed: int, steps: int = STEPS,
           batch: int = BATCH):
    """Adam on random batches of ``data``; returns the trained params and the loss at each step.

    Each step takes one length, drawn uniformly from the lengths in ``data`` (no draw when
    all sentences have one length), then up to ``batch`` random sentences of that length.
    """
    rng = np.random.default_rng([seed, 1])  # initial weights and batches: their own stream
    params, state, losses = _init(rng, vocab, classes, max_len, scheme), {}, []
    groups, step = list(_by_length(data).values()), value_and_grad(_loss)
    for t in range(1, steps + 1):
        ids, labels = groups[rng.integers(len(groups))] if len(groups) > 1 else groups[0]
        rows = rng.choice(len(ids), min(batch, len(ids)), replace=False)
        loss, grads = step(params, ids[rows], labels[rows], scheme)
        losses.append(float(loss))
        _adam(params, grads, state, t)
    return params, losses


def _accuracy(params: dict, data, scheme) -> float:
    """The fraction of sentences whose highest logit is the label (one call per length)."""
    right = sum(int((np.argmax(_logits(params, ids, scheme), axis=1) == labels).sum())
                for ids, labels in _by_length(data).values())
    return right / len(data)


def who_bites_whom(scheme=None, seed: int = 0) -> dict:
    """Train on "<noun> <verb> <noun>" -> the subject; test on held-out noun pairs.

    Returns train_accuracy, test_accuracy, mirrored_accuracy (test sentences whose mirror image
    is in the test set too) and loss (the training loss at each step).
    """
    _lookup(scheme, {})  # the registry's own check, before any training starts
    pairs = noun_pairs(seed)
    data = {k: _sentences(v) for k, v in pairs.items()}
    params, losses = _train(data["train"], scheme, len(NOUNS), len(NOUNS) + len(VERBS), 3, seed)
    result = {f"{k}_accuracy": _accuracy(params, v, scheme) for k, v in data.items()}
    return {**result, "loss": losses}


def _rows(rng, count: int, lengths, vocab: int) -> list[tuple[list[int], int]]:
    """count rows of random words, lengths drawn from ``lengths``; the label is the first word."""
    rows = [rng.integers(0, vocab, rng.choice(lengths)).tolist() for _ in range(count)]
    return [(ids, ids[0]) for ids in rows]


def length_generalisation(scheme=None, train_max_len: int = 8, test_len: int = 16,
                          seed: int = 0) -> dict:
    """Copy the first word: train on rows of 2 … train_max_len words, test on rows of test_len.

    For "learned" the table has max(train_max_len, test_len) rows; rows at positions
    train_max_len and beyond are never used in training, so they keep their random start.
    """
    _lookup(scheme, {})
    seed = check_int("seed", seed, minimum=0)
    for name, value in (("train_max_len", train_max_len), ("test_len", test_len)):
        if check_int(name, value, minimum=2) > 64:
            raise ValueError(f"{name} must be at most 64; got {value}. Longer rows make the "
                             "training slow: keep them short.")
    rng, vocab = np.random.default_rng([seed, 2]), len(NOUNS)  # the rows: their own stream
    data = _rows(rng, 400, range(2, train_max_len + 1), vocab)
    test = _rows(rng, 200, [test_len], vocab)
    params, _ = _train(data, scheme, vocab, vocab, max(train_max_len, test_len), seed,
                       LENGTH_STEPS, LENGTH_BATCH)
    return {"train_accuracy": _accuracy(params, data, scheme),
            "test_accuracy": _accuracy(params, test, scheme)}

"""The tasks' data: who bites whom (notebook 09), copy the first word, and the probe's rows.

Every function is a kernel: seeds and sizes arrive checked (the door is ``checks``). Each draws
from its own stream, ``np.random.default_rng([seed, k])``, so a task's rows never depend on how
the weights or the batches were drawn.
"""

import itertools

import numpy as np

NOUNS = ("dog", "man", "cat", "fox", "owl", "bee", "rat", "hen", "cow", "pig", "elk", "ape")
VERBS = ("bites", "sees", "chases")
PROBE_LEN = 16  # position_probe: rows of 16 random words after a start token
START = len(NOUNS)  # the start token's id, after the nouns' ids: it opens every probe row
# The length task's two labels: the row's first word (a place fixed from the start: it suits
# absolute positions), or the word just before the last (a place fixed relative to the end, where
# a causal model reads: it suits offsets). Each is the index of the label in the row.
TASKS = {"first": 0, "before_last": -2}


def _noun_pairs(seed: int) -> dict[str, list[tuple[int, int]]]:
    """Seed's split of the ordered noun pairs: 12 held out both ways round, 6 one way only."""
    rng = np.random.default_rng([seed, 0])  # the split's own stream
    pairs = list(itertools.combinations(range(len(NOUNS)), 2))
    both, one_way = np.split(rng.permutation(len(pairs))[:18], [12])
    mirrored = [pairs[k] for k in both] + [pairs[k][::-1] for k in both]
    test = mirrored + [pairs[k] for k in one_way]
    train = [p for p in itertools.permutations(range(len(NOUNS)), 2) if p not in test]
    return {"train": train, "test": test, "mirrored": mirrored}


def _sentences(pairs) -> tuple[np.ndarray, np.ndarray]:
    """ids (N, 3) and labels (N,) of "<subject> <verb> <object>"; verb ids follow the nouns'."""
    rows = [([s, len(NOUNS) + v, o], s) for s, o in pairs for v in range(len(VERBS))]
    return np.array([ids for ids, _ in rows]), np.array([label for _, label in rows])


def _rows(rng, per_length: int, lengths, vocab: int,
          task: str = "first") -> list[tuple[np.ndarray, np.ndarray]]:
    """per_length rows of random words for each length; the label is the row's word at
    TASKS[task]: its first word, or the word before its last."""
    groups = [rng.integers(0, vocab, (per_length, n)) for n in lengths]  # (N, n) each
    return [(ids, ids[:, TASKS[task]]) for ids in groups]


def _length_rows(seeds, train_max_len: int, test_lens, task: str = "first"):
    """Each seed's rows of the length task, stacked: per training length 2 … train_max_len (400
    rows in all) and per test length (200 rows each), ids (S, N, n) and labels (S, N)."""
    lengths, vocab, per_seed = range(2, train_max_len + 1), len(NOUNS), []
    for s in seeds:
        rng = np.random.default_rng([s, 2])  # the rows: their own stream
        per_seed.append((_rows(rng, 400 // len(lengths), lengths, vocab, task),
                         _rows(rng, 200, test_lens, vocab, task)))
    return ([tuple(np.stack(a) for a in zip(*groups, strict=True))
             for groups in zip(*(rows[k] for rows in per_seed), strict=True)] for k in (0, 1))


def _probe_rows(rng, rows: int, vocab: int, constant: bool = False, start: bool = True):
    """ids (rows, 1 + PROBE_LEN): the start token (or, without ``start``, one more random
    word), then random words (one word repeated if ``constant``, the first one too); labels
    (rows, PROBE_LEN): each word's position 0 … PROBE_LEN − 1 (ids' first column is not read)."""
    words = rng.integers(0, vocab, (rows, 1 if constant else PROBE_LEN))
    first = (np.full((rows, 1), START) if start else words[:, :1] if constant
             else rng.integers(0, vocab, (rows, 1)))  # no start token: one more noun
    ids = np.concatenate([first, np.broadcast_to(words, (rows, PROBE_LEN))], axis=1)
    return ids, np.broadcast_to(np.arange(PROBE_LEN), (rows, PROBE_LEN))

"""The position probe: can one attention head say where each word is, from its output rows?

With no scheme (and with or without the causal mask) it asks whether a head without positions
knows where it is; with a relative scheme ("rope", "relative", "alibi", "alibi_symmetric") it
asks whether offsets alone, on a finite row, give away absolute position (notebook 10)."""

import numpy as np

from .model import _logits
from .tasks import NOUNS, PROBE_LEN, _probe_rows
from .training import _train

PROBE_STEPS = 200  # AdamW steps of the probe, trained end to end


def _probe_hits(params: dict, ids, labels, scheme) -> np.ndarray:
    """(S, B, PROBE_LEN): True where the probe names a word's position right."""
    return np.argmax(_logits(params, ids, scheme, "rows"), axis=-1) == labels


def _probe(scheme, seeds, start: bool = True) -> dict:
    """Train the probe on seeds side by side; accuracies per seed (and per position)."""
    per_seed, vocab = [], len(NOUNS)
    for s in seeds:
        rng = np.random.default_rng([s, 4])  # the rows: their own stream
        per_seed.append([_probe_rows(rng, 400, vocab, start=start),
                         _probe_rows(rng, 200, vocab, start=start),
                         _probe_rows(rng, 200, vocab, constant=True, start=start)])
    train, test, constant = ((np.stack([rows[k][0] for rows in per_seed]),
                              np.stack([rows[k][1] for rows in per_seed])) for k in range(3))
    params, _ = _train([train], scheme, PROBE_LEN, len(NOUNS) + 1, 1 + PROBE_LEN, seeds,
                       "rows", steps=PROBE_STEPS)
    hits = {k: _probe_hits(params, *rows, scheme)
            for k, rows in (("train", train), ("test", test), ("constant", constant))}
    return {"train_accuracy": hits["train"].mean(axis=(1, 2)).tolist(),
            "test_accuracy": hits["test"].mean(axis=(1, 2)).tolist(),
            "constant_accuracy": hits["constant"].mean(axis=(1, 2)).tolist(),
            "per_position": hits["test"].mean(axis=1).tolist()}

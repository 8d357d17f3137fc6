"""The position probe: can one attention head say where each word is, from its output rows?

With no scheme (and with or without the causal mask) it asks whether a head without positions
knows where it is; with a relative scheme ("rope", "relative", "alibi", "alibi_symmetric") it
asks whether offsets alone, on a finite row, give away absolute position (notebook 10)."""

import numpy as np

from ..positions import _sinusoids
from .model import D, _forward, _logits
from .tasks import NOUNS, PROBE_LEN, _probe_rows
from .training import STEPS, _accuracy, _train

PROBE_STEPS = 200  # AdamW steps of the probe, trained end to end
RIDGE = 1e-3  # the frozen probe's ridge λ: a least-squares fit that stays defined


def _probe_hits(params: dict, ids, labels, scheme) -> np.ndarray:
    """(S, B, PROBE_LEN): True where the probe names a word's position right."""
    return np.argmax(_logits(params, ids, scheme, "rows"), axis=-1) == labels


def _probe(scheme, seeds, start: bool = True, steps: int = PROBE_STEPS, width: int = D) -> dict:
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
                       "rows", steps=steps, width=width)
    hits = {k: _probe_hits(params, *rows, scheme)
            for k, rows in (("train", train), ("test", test), ("constant", constant))}
    return {"train_accuracy": hits["train"].mean(axis=(1, 2)).tolist(),
            "test_accuracy": hits["test"].mean(axis=(1, 2)).tolist(),
            "constant_accuracy": hits["constant"].mean(axis=(1, 2)).tolist(),
            "per_position": hits["test"].mean(axis=1).tolist()}


def _linear_probe(H, labels, H_new, classes: int):
    """Fit W, b by ridge least squares to one-hot targets on the rows H (S, N, d), then name
    the class of each new row (S, M, d) by argmax(h W + b): per seed, a linear probe."""
    F = np.concatenate([H, np.ones((*H.shape[:-1], 1))], axis=-1)  # [h, 1]: b is the last row
    T = (labels[..., None] == np.arange(classes)).astype(np.float64)  # (S, N, classes)
    G = F.swapaxes(-1, -2) @ F + RIDGE * np.eye(F.shape[-1])  # FᵀF + λI, (S, d + 1, d + 1)
    W = np.linalg.solve(G, F.swapaxes(-1, -2) @ T)  # (FᵀF + λI)⁻¹ Fᵀ T, (S, d + 1, classes)
    F_new = np.concatenate([H_new, np.ones((*H_new.shape[:-1], 1))], axis=-1)
    return np.argmax(F_new @ W, axis=-1)  # (S, M)


def _frozen_probe(scheme, seeds, start: bool = True, steps: int = STEPS, width: int = D,
                  readout: str = "mean") -> dict:
    """Train a head on a task that never asks for position (copy the first noun of a probe row,
    read by ``readout``, the mean of Y's rows by default), freeze it, then fit a linear probe
    to its output rows to name each noun's position. Accuracies per seed: the task's, and the
    probe's on new rows."""
    per_seed, vocab = [], len(NOUNS)
    for s in seeds:
        rng = np.random.default_rng([s, 6])  # the rows: their own stream
        per_seed.append([_probe_rows(rng, 400, vocab, start=start) for _ in range(3)])
    rows = [np.stack([rows[k][0] for rows in per_seed]) for k in range(3)]  # task, fit, test
    first = [(ids, ids[..., 1]) for ids in rows]  # the task: the first noun after the start
    params, _ = _train([first[0]], scheme, vocab, vocab + 1, 1 + PROBE_LEN, seeds, readout,
                       steps=steps, width=width)
    Y = [_forward(params, ids, scheme)["Y"][..., 1:, :] for ids in rows[1:]]  # frozen: fit, test
    # the control: Y + E_p, positions in a residual stream
    E = _sinusoids(np.arange(1, 1 + PROBE_LEN), width)
    return {"task_accuracy": _accuracy(params, [first[2]], scheme, readout),
            "probe_accuracy": _named(*Y), "control_accuracy": _named(*(y + E for y in Y))}


def _named(fit, new) -> list[float]:
    """Each seed's fraction of new rows (S, B, n, d) whose position the probe, fitted to the
    rows of fit, names right."""
    at = np.broadcast_to(np.arange(fit.shape[-2]), new.shape[:-1]).reshape(len(new), -1)
    flat = [rows.reshape(len(rows), -1, rows.shape[-1]) for rows in (fit, new)]
    return (_linear_probe(flat[0], at, flat[1], fit.shape[-2]) == at).mean(axis=1).tolist()

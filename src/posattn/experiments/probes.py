"""The position probe: can one attention head say where each word is, from its output rows?

With no scheme (and with or without the causal mask) it asks whether a head without positions
knows where it is; with a relative scheme ("rope", "relative", "alibi", "alibi_symmetric") it
asks whether offsets alone, on a finite row, give away absolute position (notebook 10). The
frozen probe asks what a head trained on another task knows: a linear probe of its rows."""

import numpy as np

from ..positions import _sinusoids
from .model import D, _forward, _logits
from .tasks import NOUNS, PROBE_LEN, _probe_rows
from .training import STEPS, _train

PROBE_STEPS = 200  # AdamW steps of the probe, trained end to end
RIDGE = 1e-3  # added to the frozen probe's covariance Σ (its diagonal): Σ stays invertible
# The frozen head's tasks: one that never asks where the nouns are, and one that does, coarsely
FROZEN_TASKS = {"first": "copy the first noun",
                "half": "say, at each noun, which half of the row it is in"}


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
    """Linear discriminant analysis, per seed (Hastie et al. 2009, §4.3): the class means μ_c
    and one covariance Σ of the rows H (S, N, d) about them; each new row h (S, M, d) is named
    argmax_c hᵀΣ⁻¹μ_c − ½ μ_cᵀΣ⁻¹μ_c, a linear classifier (every class is as common here).
    A least-squares fit to one-hot targets is linear too, but it masks classes laid along a
    curve, as positions are (Hastie et al. §4.2): it would miss a position that is there."""
    T = (labels[..., None] == np.arange(classes)).astype(np.float64)  # (S, N, classes)
    mu = (T.swapaxes(-1, -2) @ H) / T.sum(axis=1)[..., None]  # class means, (S, classes, d)
    R = H - T @ mu  # each row minus its class's mean, (S, N, d)
    Sigma = R.swapaxes(-1, -2) @ R / H.shape[1] + RIDGE * np.eye(H.shape[-1])  # (S, d, d)
    W = np.linalg.solve(Sigma, mu.swapaxes(-1, -2))  # Σ⁻¹ μ_c, (S, d, classes)
    b = -0.5 * np.sum(mu.swapaxes(-1, -2) * W, axis=-2)  # −½ μ_cᵀ Σ⁻¹ μ_c, (S, classes)
    return np.argmax(H_new @ W + b[:, None], axis=-1)  # (S, M)


def _task(ids, task: str):
    """Labels of the frozen model's task on probe rows ids (S, N, 1 + PROBE_LEN), as
    FROZEN_TASKS says: the first noun after the start (S, N), or each noun's half of the row,
    0 for positions 0 … PROBE_LEN/2 − 1 and 1 after (S, N, PROBE_LEN)."""
    if task == "first":
        return ids[..., 1]
    return np.broadcast_to(np.arange(PROBE_LEN) // (PROBE_LEN // 2), ids[..., 1:].shape)


def _frozen_probe(scheme, seeds, start: bool = True, steps: int = STEPS, width: int = D,
                  readout: str = "mean", task: str = "first") -> dict:
    """Train a head on a task of FROZEN_TASKS (read by ``readout``, or "rows" for "half"),
    freeze it, then fit a linear probe to its output rows to name each noun's position.
    Accuracies per seed: the task's and the probe's on new rows, and the probe's control."""
    per_seed, vocab = [], len(NOUNS)
    for s in seeds:
        rng = np.random.default_rng([s, 6])  # the rows: their own stream
        per_seed.append([_probe_rows(rng, 400, vocab, start=start) for _ in range(3)])
    rows = [np.stack([rows[k][0] for rows in per_seed]) for k in range(3)]  # task, fit, test
    labelled = [(ids, _task(ids, task)) for ids in rows]
    params, _ = _train([labelled[0]], scheme, vocab if task == "first" else 2, vocab + 1,
                       1 + PROBE_LEN, seeds, readout, steps=steps, width=width)
    Y = [_forward(params, ids, scheme)["Y"][..., 1:, :] for ids in rows[1:]]  # frozen: fit, test
    # the control: Y + E_p, positions in a residual stream
    E = _sinusoids(np.arange(1, 1 + PROBE_LEN), width)
    ids, labels = labelled[2]
    right = np.argmax(_logits(params, ids, scheme, readout), axis=-1) == labels  # (S, N, …)
    return {"task_accuracy": right.reshape(len(seeds), -1).mean(axis=1).tolist(),
            "probe_accuracy": _named(*Y), "control_accuracy": _named(*(y + E for y in Y))}


def _named(fit, new) -> list[float]:
    """Each seed's fraction of new rows (S, B, n, d) whose position the probe, fitted to the
    rows of fit, names right."""
    at = np.broadcast_to(np.arange(fit.shape[-2]), new.shape[:-1]).reshape(len(new), -1)
    flat = [rows.reshape(len(rows), -1, rows.shape[-1]) for rows in (fit, new)]
    return (_linear_probe(flat[0], at, flat[1], fit.shape[-2]) == at).mean(axis=1).tolist()

"""Training: AdamW with a cosine schedule, for every seed at once, and the accuracies it reaches.

A result is a result over seeds, so the S seeds train side by side: each has its own split,
its own weights and its own batches of BATCH sentences of one length n; the losses of the seeds
are summed, so each seed's gradient is its own.
"""

import math

import numpy as np

from .backward import _gradients
from .model import D, _init, _logits, _losses
from .progress import progress

BATCH, STEPS = 32, 100  # sentences per step, AdamW steps (both tasks)
LEARNING_RATE = 0.04  # the first step size; a cosine schedule takes it down to 0 at the last step
WEIGHT_DECAY = 0.5  # AdamW's decoupled decay λ, on the matrices that make the scores only
DECAYED = ("W_Q", "W_K")  # decaying W_V and W_out too made the loss rise again late in training


def _step_size(t: int, steps: int) -> float:
    """lr_t = LEARNING_RATE · ½ (1 + cos(π (t − 1) / steps)): a cosine from the rate down to 0."""
    return LEARNING_RATE * 0.5 * (1.0 + math.cos(math.pi * (t - 1) / steps))


def _adamw(params: dict, grads: dict, state: dict, t: int, lr: float, b1=0.9, b2=0.999,
           eps=1e-8) -> None:
    """One AdamW step (Loshchilov & Hutter 2019): Adam (Kingma & Ba 2015) plus a decay
    w ← w − lr·λ·w of the matrices in DECAYED, kept out of Adam's moments."""
    for k, g in grads.items():
        m, v = state[k] if k in state else (0.0, 0.0)  # both moments start at 0
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        state[k] = m, v
        decay = lr * WEIGHT_DECAY * params[k] if k in DECAYED else 0.0
        params[k] = params[k] - decay - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)


def _random_positions(rngs, rows: int, n: int, max_len: int) -> np.ndarray:
    """(S, rows, n): per seed and row, n distinct positions of 0 … max_len − 1, in order."""
    return np.stack([np.sort(rng.random((rows, max_len)).argsort(axis=1)[:, :n], axis=1)
                     for rng in rngs])


def _train(groups, scheme, classes: int, vocab: int, max_len: int, seeds, readout: str = "mean",
           steps: int = STEPS, every: int = 0, randomized: bool = False, width: int = D):
    """AdamW for every seed at once, ``steps`` steps of models of width ``width``; returns the
    stacked params and the losses (S, points).

    ``groups`` holds, per sentence length, ids (S, N, n) and labels (S, N): each seed's own
    sentences of that length. Step t trains on the group t mod len(groups) (lengths in turn),
    each seed on ``BATCH`` of its sentences drawn by its own generator. With ``every`` > 0 the
    losses are each seed's loss on all of its sentences before step 1 and after every
    ``every`` steps (none otherwise). ``randomized``: each training row's words get n random
    positions of 0 … max_len − 1, in order (Ruoss et al. 2023), from a third stream per seed.
    """
    rngs = [np.random.default_rng([s, 1]) for s in seeds]  # each seed: weights, then batches
    inits = [_init(rng, vocab, classes, max_len, scheme, width) for rng in rngs]
    params = {k: np.stack([p[k] for p in inits]) for k in inits[0]}  # (S, …) each
    state, losses = {}, []
    position_rngs = [np.random.default_rng([s, 3]) for s in seeds]  # used when randomized only
    for t in progress(range(1, steps + 1), steps, f"training {len(rngs)} models side by side"):
        if every and (t - 1) % every == 0:
            losses.append(_mean_losses(params, groups, scheme, readout))
        ids, labels = groups[(t - 1) % len(groups)]  # (S, N, n), (S, N)
        rows = np.array([rng.choice(ids.shape[1], min(BATCH, ids.shape[1]), replace=False)
                         for rng in rngs])  # (S, B)
        seed = np.arange(len(rngs))[:, None]
        positions = (_random_positions(position_rngs, rows.shape[1], ids.shape[2], max_len)
                     if randomized else None)
        loss, grads = _gradients(params, ids[seed, rows], labels[seed, rows], scheme, readout,
                                 positions)
        loss = np.sum(loss)
        if not np.isfinite(loss):
            raise FloatingPointError(f"the training loss of {scheme!r} is {loss}; the recipe "
                                     "diverged: lower LEARNING_RATE.")
        _adamw(params, grads, state, t, _step_size(t, steps))
    if every:
        losses.append(_mean_losses(params, groups, scheme, readout))
    return params, np.array(losses).reshape(-1, len(rngs)).T  # (S, points)


def _mean_losses(params: dict, groups, scheme, readout: str = "mean") -> np.ndarray:
    """Each seed's cross-entropy over all of its sentences, (S,)."""
    total = sum(_losses(params, ids, labels, scheme, readout) * labels.shape[1]
                for ids, labels in groups)
    return total / sum(labels.shape[1] for _, labels in groups)


def _accuracy(params: dict, groups, scheme, readout: str = "mean",
              positions=None) -> list[float]:
    """Each seed's fraction of sentences whose highest logit is the label."""
    right = sum((np.argmax(_logits(params, ids, scheme, readout, positions), axis=-1)
                 == labels).sum(axis=1) for ids, labels in groups)
    return (right / sum(labels.shape[1] for _, labels in groups)).tolist()

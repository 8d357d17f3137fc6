"""Trained models: can training find a way around missing positions? (notebook 09)

One tiny model per positional scheme and seed, trained by AdamW. The forward pass is the
package's own kernels (attention, the schemes, RoPE's turn); the backward pass is written out
beside it, with attention's own backward pass from ``attention`` (tests/test_autograd.py checks
it against finite differences, for every scheme, read-out and remedy):

    X = token embeddings (S, B, n, d)    Y, A = attention of X with the scheme's positions
    logits = mean of Y's rows @ W_out + b      loss = cross-entropy of softmax(logits)

The last column of X is a constant 1: a bias row for W_Q, W_K and W_V, as real layers have.
A result is a result over seeds, so the S seeds train side by side: each has its own split,
its own weights (stacked on a leading axis S) and its own batches of B sentences of one length
n; the losses of the seeds are summed, so each seed's gradient is its own.
Two tasks: :func:`who_bites_whom` and :func:`length_generalisation` (with a ``remedy`` that
changes the positions a model sees, notebook 10). A third, :func:`position_probe`, reads a
position out of every row of Y (notebook 10: does a model without positions know where it is?).
"""

import itertools
import math

import numpy as np

from ._checks import (
    as_matrix,
    check_choice,
    check_even,
    check_finite,
    check_int,
    finite_result,
    quiet_overflow,
    real_array,
)
from .attention import _attention, _attention_gradient, _project, _softmax
from .positions import (
    RELATIVE_CLIP,
    SCHEMES,
    _check_scheme,
    _relative_entries,
    _sinusoids,
    _with_positions,
)
from .rope import _rotate

NOUNS = ("dog", "man", "cat", "fox", "owl", "bee", "rat", "hen", "cow", "pig", "elk", "ape")
VERBS = ("bites", "sees", "chases")
D, BATCH, STEPS = 12, 32, 100  # width d, sentences per step, AdamW steps (both tasks)
LEARNING_RATE = 0.04  # the first step size; a cosine schedule takes it down to 0 at the last step
WEIGHT_DECAY = 0.5  # AdamW's decoupled decay λ, on the matrices that make the scores only
DECAYED = ("W_Q", "W_K")  # decaying W_V and W_out too made the loss rise again late in training
LOSS_EVERY = 5  # who_bites_whom measures the loss on the whole training set every 5 steps
SEEDS = range(10)  # every result in notebook 09 is over these seeds
READOUTS = ("mean", "last")  # pool the rows of Y by their mean, or read out the last row
MAX_ROW_LEN = 64  # length_generalisation's longest rows: longer ones make the training slow
REMEDIES = {"randomized": ("learned", "sinusoidal"), "interpolation": ("rope",)}  # remedy: schemes
PROBE_LEN, PROBE_STEPS = 16, 200  # position_probe: rows of 16 random words after a start token
START = len(NOUNS)  # the start token's id, after the nouns' ids: it opens every probe row


# ---- kernels: the task, the model and its training --------------------------------------


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


def _init(rng, vocab: int, classes: int, max_len: int, scheme) -> dict:
    """One seed's small random weights: entries of X and of Q, K, V start of order 1."""
    scale = 1.0 / math.sqrt(D)
    params = {"embed": rng.normal(0.0, 1.0, (vocab, D - 1)),  # (vocab, d − 1); X adds a 1
              "W_out": rng.normal(0.0, scale, (D, classes)), "b": np.zeros(classes)}
    for name in ("W_Q", "W_K", "W_V"):
        params[name] = rng.normal(0.0, scale, (D, D))  # (d, d)
    if scheme == "learned":  # the same spread as learned_positions; rows never used get no gradient
        params["table"] = rng.normal(0.0, 1.0 / math.sqrt(2.0), (max_len, D))  # (max_len, d)
    if scheme == "relative":  # one bias per offset −k … k, the spread of the scores at the start
        params["table"] = rng.normal(0.0, scale, 2 * RELATIVE_CLIP + 1)  # (2k + 1,)
    return params


def _forward(params: dict, ids, scheme=None, positions=None) -> dict:
    """The forward pass for ids (S, B, n): seed s's sentences through seed s's weights.

    Returns X (the rows attention reads, positions added), Q, K, V, A and Y, (S, B, ·, ·) each,
    and p, the positions a table or RoPE used (None for the other schemes).
    A position enters in one of three places: the input X + E ("learned", "sinusoidal"), q and
    k turned by p ("rope"), or a mask and a bias on the scores (the registry's other schemes).
    ``positions`` None: the scheme's own positions 0 … n − 1. Otherwise the positions each
    word is given instead (a remedy): (S, B, n) whole numbers below the table's length for
    "learned", any real numbers for "sinusoidal"; (n,) real numbers for "rope".
    """
    S, _, n = ids.shape
    seed = np.arange(S)[:, None, None]  # (S, 1, 1): each seed looks up its own embeddings
    X = np.concatenate([params["embed"][seed, ids], np.ones((*ids.shape, 1))], axis=-1)
    W = [params[k][:, None] for k in ("W_Q", "W_K", "W_V")]  # (S, 1, d, d): one per seed
    p = None
    if scheme in ("learned", "rope"):
        p = np.arange(n) if positions is None else positions
    if scheme == "learned":  # X + E[:n], with seed s's own table E
        X = X + (params["table"][:, None, :n] if positions is None
                 else params["table"][seed, positions])
    if scheme == "sinusoidal":  # X + E_p, at positions 0 … n − 1 or at the given ones
        X = X + _sinusoids(np.arange(n) if positions is None else positions, D)
    mask = bias = None
    if scheme in (None, "learned", "sinusoidal", "rope"):
        Q, K, V = _project(X, *W)  # (S, B, n, d) @ (S, 1, d, d) -> (S, B, n, d)
    elif scheme == "relative":  # the scheme's bias b[clip(j − i)], with seed s's own table b
        Q, K, V, mask, bias = SCHEMES[scheme](X, *W, table=params["table"][:, None],
                                              max_distance=RELATIVE_CLIP)  # bias (S, 1, n, n)
    else:
        Q, K, V, mask, bias = SCHEMES[scheme](X, *W)
    if scheme == "rope":  # q_i and k_j turned by their positions
        Q, K = _rotate(Q, p), _rotate(K, p)
    Y, A = _attention(Q, K, V, mask, bias)
    return {"X": X, "Q": Q, "K": K, "V": V, "A": A, "Y": Y, "p": p}


def _read(Y, readout: str = "mean"):
    """What the classifier reads of Y (S, B, n, d): the mean of its rows, its last row (S, B, d),
    or ("rows") every row but the first, the start token's (S, B, n − 1, d)."""
    if readout == "rows":
        return Y[..., 1:, :]
    return Y.mean(axis=-2) if readout == "mean" else Y[..., -1, :]


def _output(params: dict, H):
    """Class scores z = H W_out + b for the rows H (S, N, d) read: (S, N, classes)."""
    return H @ params["W_out"] + params["b"][:, None]


def _logits(params: dict, ids, scheme=None, readout: str = "mean", positions=None):
    """Class scores (S, B, classes) from the mean of Y's rows, or from its last row;
    readout "rows": scores for every row but the first, (S, B, n − 1, classes)."""
    H = _read(_forward(params, ids, scheme, positions)["Y"], readout)
    return _output(params, _by_seed(H)).reshape(*H.shape[:-1], -1)


def _log_sum_exp(z):
    """log Σ_c exp(z_c) over the last axis, as top + log Σ_c exp(z_c − top): no overflow."""
    top = np.max(z, axis=-1, keepdims=True)
    return top[..., 0] + np.log(np.sum(np.exp(z - top), axis=-1))


def _losses(params: dict, ids, labels, scheme, readout: str = "mean", positions=None):
    """Each seed's mean cross-entropy −log softmax(logits)[label], (S,); labels (S, B), or
    (S, B, n − 1) for readout "rows" (one label per row read)."""
    return _cross_entropy(_logits(params, ids, scheme, readout, positions), labels)


def _cross_entropy(z, labels):
    """Each seed's mean of log Σ_c exp(z_c) − z_label over its rows: z (S, …, classes), labels
    (S, …)."""
    picked = np.take_along_axis(z, labels[..., None], axis=-1)[..., 0]  # z[label]
    return (_log_sum_exp(z) - picked).reshape(len(z), -1).mean(axis=1)


def _one_hot(index, size: int):
    """(..., size): 1.0 where the last axis equals index, 0.0 elsewhere."""
    return (np.asarray(index)[..., None] == np.arange(size)).astype(np.float64)


def _by_seed(M):
    """(S, ..., k) -> (S, N, k): every row of seed s, one after another."""
    return M.reshape(len(M), -1, M.shape[-1])


def _gradients(params: dict, ids, labels, scheme, readout: str = "mean", positions=None):
    """The seeds' losses (S,) and the gradient of their sum for every weight: the backward pass.

    Seed s's gradient is its own loss's. Backwards from the loss: the cross-entropy's gradient
    for the logits is softmax(z) − one_hot(label), per row read; the output layer and the
    read-out pass it to Y; attention's own backward pass (``_attention_gradient``) to Q, K, V
    and the scores; RoPE turns it back by −p; then :func:`_input_gradients`.
    tests/test_autograd.py checks every weight's gradient against finite differences.
    """
    f = _forward(params, ids, scheme, positions)
    H = _by_seed(_read(f["Y"], readout))  # (S, N, d): the rows read, N per seed
    z, y = _output(params, H), labels.reshape(len(H), -1)  # (S, N, classes), (S, N)
    dz = (_softmax(z) - _one_hot(y, z.shape[-1])) / y.shape[1]  # (S, N, classes)
    dH = dz @ params["W_out"].swapaxes(-1, -2)  # (S, N, d)
    dQ, dK, dV, dS = _attention_gradient(f["Q"], f["K"], f["V"], f["A"],
                                         _read_gradient(dH, f["Y"].shape, readout))
    if scheme == "rope":  # a turn by p is undone by the turn by −p (its transpose)
        dQ, dK = _rotate(dQ, -f["p"]), _rotate(dK, -f["p"])
    return _cross_entropy(z, y), {"W_out": H.swapaxes(-1, -2) @ dz, "b": dz.sum(axis=1),
                                  **_input_gradients(params, f, ids, dQ, dK, dV, dS, scheme)}


def _read_gradient(dH, shape, readout: str):
    """∂L/∂Y (shape (S, B, n, d)) from ∂L/∂H (S, N, d), H what :func:`_read` read of Y."""
    S, B, n, d = shape
    if readout == "mean":  # every row of Y gets 1/n of its mean's gradient
        return np.broadcast_to(dH.reshape(S, B, 1, d) / n, shape)
    dY = np.zeros(shape)  # the rows read get theirs, the others none
    read = (slice(1, None) if readout == "rows" else -1)  # rows 1 … n − 1, or the last
    dY[..., read, :] = dH.reshape(dY[..., read, :].shape)
    return dY


def _input_gradients(params: dict, f: dict, ids, dQ, dK, dV, dS, scheme) -> dict:
    """The gradients of W_Q, W_K, W_V (Q, K, V = X W), of the embeddings (X = [e, 1] + E) and of
    a scheme's table: a learned E sums the gradients at its rows, a relative b at its entries."""
    X, (S, _, n, _) = f["X"], f["X"].shape
    grads, dX = {}, 0.0
    for name, dZ in (("W_Q", dQ), ("W_K", dK), ("W_V", dV)):  # Z = X W
        grads[name] = _by_seed(X).swapaxes(-1, -2) @ _by_seed(dZ)  # Σ over all rows: (S, d, d)
        dX = dX + dZ @ params[name][:, None].swapaxes(-1, -2)  # (S, B, n, d)
    words = _by_seed(_one_hot(ids, len(params["embed"][0])))  # (S, B·n, words)
    grads["embed"] = words.swapaxes(-1, -2) @ _by_seed(dX[..., :-1])  # X's last column is 1
    if scheme == "learned":  # E's row p gets the gradient of every word at position p
        at = _by_seed(_one_hot(np.broadcast_to(f["p"], ids.shape), params["table"].shape[1]))
        grads["table"] = at.swapaxes(-1, -2) @ _by_seed(dX)  # (S, max_len, d)
    if scheme == "relative":  # b's entry o gets the gradient of every score at offset o
        entries = _relative_entries(n, RELATIVE_CLIP).ravel()  # (n·n,)
        grads["table"] = (dS.sum(axis=1).reshape(S, n * n)
                          @ _one_hot(entries, 2 * RELATIVE_CLIP + 1))  # (S, 2k + 1)
    return grads


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
           steps: int = STEPS, every: int = 0, randomized: bool = False):
    """AdamW for every seed at once; returns the stacked params and the losses (S, points).

    ``groups`` holds, per sentence length, ids (S, N, n) and labels (S, N): each seed's own
    sentences of that length. Step t trains on the group t mod len(groups) (lengths in turn),
    each seed on ``BATCH`` of its sentences drawn by its own generator. With ``every`` > 0 the
    losses are each seed's loss on all of its sentences before step 1 and after every
    ``every`` steps (none otherwise). ``randomized``: each training row's words get n random
    positions of 0 … max_len − 1, in order (Ruoss et al. 2023), from a third stream per seed.
    """
    rngs = [np.random.default_rng([s, 1]) for s in seeds]  # each seed: weights, then batches
    inits = [_init(rng, vocab, classes, max_len, scheme) for rng in rngs]
    params = {k: np.stack([p[k] for p in inits]) for k in inits[0]}  # (S, …) each
    state, losses = {}, []
    position_rngs = [np.random.default_rng([s, 3]) for s in seeds]  # used when randomized only
    for t in range(1, steps + 1):
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


def _probe_rows(rng, rows: int, vocab: int, constant: bool = False, start: bool = True):
    """ids (rows, 1 + PROBE_LEN): the start token (or, without ``start``, one more random
    word), then random words (one word repeated if ``constant``, the first one too); labels
    (rows, PROBE_LEN): each word's position 0 … PROBE_LEN − 1 (ids' first column is not read)."""
    words = rng.integers(0, vocab, (rows, 1 if constant else PROBE_LEN))
    first = (np.full((rows, 1), START) if start else words[:, :1] if constant
             else rng.integers(0, vocab, (rows, 1)))  # no start token: one more noun
    ids = np.concatenate([first, np.broadcast_to(words, (rows, PROBE_LEN))], axis=1)
    return ids, np.broadcast_to(np.arange(PROBE_LEN), (rows, PROBE_LEN))


def _probe_hits(params: dict, ids, labels, scheme) -> np.ndarray:
    """(S, B, PROBE_LEN): True where the probe names a word's position right."""
    return np.argmax(_logits(params, ids, scheme, "rows"), axis=-1) == labels


def _probe(causal: bool, seeds, start: bool = True) -> dict:
    """Train the probe on seeds side by side; accuracies per seed (and per position)."""
    scheme, per_seed, vocab = ("causal" if causal else None), [], len(NOUNS)
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


def _unstack(params: dict, s: int) -> dict:
    """Seed s's weights out of the stacked ones."""
    return {k: v[s] for k, v in params.items()}


def _rows(rng, per_length: int, lengths, vocab: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """per_length rows of random words for each length; the label is a row's first word."""
    groups = [rng.integers(0, vocab, (per_length, n)) for n in lengths]  # (N, n) each
    return [(ids, ids[:, 0]) for ids in groups]


# ---- checks: the door of this module (with positions' _check_scheme and _checks) -----------

MAX_SEEDS = 1000  # seeds train side by side: 10 take about a second per scheme


def _check_seeds(seeds) -> list[int]:
    """A non-empty list of at most MAX_SEEDS seeds, each an integer ≥ 0 (a range is fine)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (list, tuple, range)):
        raise TypeError(f"seeds must be a list of integers (one seed: seeds=[3]); got "
                        f"{type(seeds).__name__} {seeds!r:.60}.")
    if not seeds:
        raise ValueError("seeds must be a non-empty list of integers; got an empty one.")
    if len(seeds) > MAX_SEEDS:
        raise ValueError(f"seeds must hold at most {MAX_SEEDS:,} seeds, each of which trains its "
                         f"own model; got {len(seeds):,}. Use fewer seeds: 10 show the spread.")
    return [check_int("seeds[i]", s, minimum=0) for s in seeds]


def _check_row_length(name: str, value) -> int:
    """A row length of 2 to MAX_ROW_LEN words."""
    if check_int(name, value, minimum=2) > MAX_ROW_LEN:
        raise ValueError(f"{name} must be at most {MAX_ROW_LEN}; got {value}. Longer rows make "
                         "the training slow: keep them short.")
    return value


def _check_params(params, scheme, n: int) -> tuple[np.ndarray, ...]:
    """One seed's trained weights: embed (words, d − 1), W_Q, W_K, W_V (d, ·), and the table:
    (≥ n, d) for "learned", (2 RELATIVE_CLIP + 1,) for "relative"."""
    keys = ["embed", "W_Q", "W_K", "W_V"] + (["table"] if scheme in ("learned", "relative")
                                             else [])
    if not isinstance(params, dict):
        raise TypeError(f"params must be one seed's weights, a dict such as "
                        f"who_bites_whom(scheme)['params'][0]; got {type(params).__name__} "
                        f"{params!r:.60}.")
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"params must hold the weights {', '.join(keys)} for scheme {scheme!r}; "
                         f"got no {', '.join(missing)}. Pass an entry of the 'params' of "
                         "who_bites_whom trained with this scheme.")
    embed = as_matrix("params['embed']", params["embed"], (len(NOUNS) + len(VERBS), "d − 1"),
                      " (one row per word of NOUNS and VERBS)")
    d = embed.shape[1] + 1  # X adds a column of 1s
    W_Q = as_matrix("params['W_Q']", params["W_Q"], (d, "d_k"), f" to match X's {d} features")
    W_K = as_matrix("params['W_K']", params["W_K"], W_Q.shape, ", the shape of W_Q")
    W_V = as_matrix("params['W_V']", params["W_V"], (d, "d_v"), f" to match X's {d} features")
    if scheme == "rope":
        check_even("params['W_Q']", W_Q.shape[1], " (q and k are turned pair by pair)")
    if scheme == "relative":
        return embed, W_Q, W_K, W_V, as_matrix("params['table']", params["table"], (
            2 * RELATIVE_CLIP + 1,), f", one bias per offset −{RELATIVE_CLIP} … {RELATIVE_CLIP}")
    if scheme != "learned":
        return embed, W_Q, W_K, W_V
    table = as_matrix("params['table']", params["table"], ("max_len", d), f" to match X's {d} "
                      "features")
    if n > len(table):
        raise ValueError(f"sentence must have at most {len(table)} words, the rows of the learned "
                         f"table in params; got {n} words. A learned table knows no position it "
                         "never saw: use a shorter sentence.")
    return embed, W_Q, W_K, W_V, table


def _check_numbers(name: str, values) -> list[float]:
    """A non-empty 1-D list of finite numbers, as Python floats."""
    array = real_array(name, values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty list of numbers; got shape {array.shape}.")
    return check_finite(name, array, "Give finite numbers.").tolist()


def _check_fmt(fmt) -> str:
    """A format string for one number, such as "{:.0%}"."""
    try:
        ok = isinstance(fmt, str) and isinstance(fmt.format(0.5), str)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        ok = False
    if not ok:
        raise ValueError(f"fmt must be a format string for one number, such as '{{:.0%}}' or "
                         f"'{{:.3f}}'; got {fmt!r:.60}.")
    return fmt


# ---- public functions: check once, then call the kernels -----------------------------------


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


def who_bites_whom(scheme=None, seeds=SEEDS) -> dict:
    """Train on "<noun> <verb> <noun>" -> the subject; test on held-out noun pairs, per seed.

    Each key holds one entry per seed: train_accuracy, test_accuracy, mirrored_accuracy (test
    sentences whose mirror image is in the test set too), loss (the loss on the whole training
    set at steps 0, LOSS_EVERY, 2·LOSS_EVERY, …, STEPS) and params (the trained weights).
    """
    _check_scheme(scheme, {})  # the registry's own check, before any training starts
    seeds = _check_seeds(seeds)
    splits = [{k: _sentences(v) for k, v in _noun_pairs(s).items()} for s in seeds]
    data = {k: [tuple(np.stack(a) for a in zip(*(split[k] for split in splits), strict=True))]
            for k in splits[0]}  # split -> one group: ids (S, N, 3), labels (S, N)
    params, losses = _train(data["train"], scheme, len(NOUNS), len(NOUNS) + len(VERBS), 3,
                            seeds, every=LOSS_EVERY)
    result = {f"{k}_accuracy": _accuracy(params, v, scheme) for k, v in data.items()}
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
                        f"{type(sentence).__name__} {sentence!r:.60}.")
    words = sentence.split()
    unknown = [w for w in words if w not in NOUNS + VERBS]
    if unknown:
        raise ValueError(f"sentence must use the words of NOUNS and VERBS; got {unknown}. "
                         "Pick nouns from ex.NOUNS and verbs from ex.VERBS.")
    embed, W_Q, W_K, W_V, *table = _check_params(params, scheme, len(words))
    ids = [(NOUNS + VERBS).index(w) for w in words]
    X = np.concatenate([embed[ids], np.ones((len(ids), 1))], axis=1)  # (n, d)
    options = {"table": table[0]} if table else {}
    with quiet_overflow():
        _, A = _with_positions(X, W_Q, W_K, W_V, scheme, **options)
    return finite_result("params", "attention", A)


def _check_remedy(remedy, scheme) -> None:
    """None, or a remedy of REMEDIES that applies to the scheme."""
    if remedy is None:
        return
    check_choice("remedy", remedy, tuple(REMEDIES))
    if scheme not in REMEDIES[remedy]:
        schemes = " and ".join(map(repr, REMEDIES[remedy]))
        raise ValueError(f"remedy {remedy!r} changes the positions of {schemes} only; got scheme "
                         f"{scheme!r}. Use remedy=None with this scheme.")


def length_generalisation(scheme=None, train_max_len: int = 8, test_len: int = 16,
                          seeds=SEEDS, readout: str = "mean", remedy=None) -> dict:
    """Copy the first word: train on rows of 2 … train_max_len words, test on rows of test_len.

    Each seed draws 400 training rows (the same number of each length) and 200 test rows.
    ``readout`` "mean" pools the rows of Y by their mean, "last" reads the last row (as a causal
    language model does). Returns train_accuracy and test_accuracy, one entry per seed. For
    "learned" the table has max(train_max_len, test_len) rows; rows at positions
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
    lengths, vocab = range(2, train_max_len + 1), len(NOUNS)
    per_seed = []
    for s in seeds:
        rng = np.random.default_rng([s, 2])  # the rows: their own stream
        per_seed.append((_rows(rng, 400 // len(lengths), lengths, vocab),
                         _rows(rng, 200, [test_len], vocab)))
    train, test = ([tuple(np.stack(a) for a in zip(*groups, strict=True))
                    for groups in zip(*(rows[k] for rows in per_seed), strict=True)]
                   for k in (0, 1))  # per length: ids (S, N, n), labels (S, N)
    params, _ = _train(train, scheme, vocab, vocab, max(train_max_len, test_len), seeds,
                       readout, randomized=remedy == "randomized")
    squeezed = (np.arange(test_len) * (train_max_len / test_len)
                if remedy == "interpolation" else None)  # (test_len,)
    return {"train_accuracy": _accuracy(params, train, scheme, readout),
            "test_accuracy": _accuracy(params, test, scheme, readout, squeezed)}


def position_probe(causal: bool, seed: int = 0, start: bool = True) -> dict:
    """Can one attention head without positions say where each word is? One seed.

    Rows are a start token (or, with ``start=False``, a first noun whose row is not read),
    then PROBE_LEN random nouns; the model (one head, no positional
    scheme, the causal mask if ``causal``) reads each noun's row of Y through a linear layer
    and names its position, 0 … PROBE_LEN − 1. Trained end to end (PROBE_STEPS AdamW steps,
    400 rows); measured on 200 new rows. Returns train_accuracy, test_accuracy,
    constant_accuracy (on rows of one noun repeated) and per_position (test accuracy at each
    position). :func:`position_probes` trains several seeds side by side.

    >>> sorted(position_probe(causal=True))
    ['constant_accuracy', 'per_position', 'test_accuracy', 'train_accuracy']
    """
    causal = _check_flag("causal", causal, "True: the causal mask; False: bidirectional")
    start = _check_flag("start", start, "True: rows open with a start token")
    result = _probe(causal, [check_int("seed", seed, minimum=0)], start)
    return {k: v[0] for k, v in result.items()}


def _check_flag(name: str, value, meaning: str) -> bool:
    """True or False (a numpy bool too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False ({meaning}); got {type(value).__name__} "
                        f"{value!r:.60}.")
    return bool(value)


def position_probes(causal: bool, seeds=SEEDS, start: bool = True) -> dict:
    """:func:`position_probe` for several seeds, trained side by side: one entry per seed."""
    causal = _check_flag("causal", causal, "True: the causal mask; False: bidirectional")
    start = _check_flag("start", start, "True: rows open with a start token")
    return _probe(causal, _check_seeds(seeds), start)


def climbs_back(loss) -> bool:
    """True when a loss curve ends above 1.05 × its lowest value + 0.01: it rose again.

    >>> [climbs_back(loss) for loss in ([2.5, 0.02, 0.3], [2.5, 0.02, 0.021], [2.5, 1.0, 1.04])]
    [True, False, False]
    """
    loss = _check_numbers("loss", loss)
    return loss[-1] > 1.05 * min(loss) + 0.01


def spread(values, fmt: str = "{:.0%}") -> str:
    """'mean (min–max)' of a list of numbers, each as ``fmt``: the way a result over seeds prints.

    >>> spread([0.9, 1.0, 0.95])
    '95% (90–100%)'
    """
    values, fmt = _check_numbers("values", values), _check_fmt(fmt)
    mean = math.fsum(values) / len(values)  # exactly rounded: the same last digit everywhere
    low, high = fmt.format(min(values)), fmt.format(max(values))
    return f"{fmt.format(mean)} ({low.rstrip('%')}–{high})"

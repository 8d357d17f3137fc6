"""Checker for the PyTorch lab (notebooks/labs/torch_bridge.ipynb): a padded batch's
`key_padding_mask`, built by hand.

The package imports no PyTorch: the answer, a tensor or an array or nested lists, is read as an
array (a CPU tensor gives numpy its values), and its dtype decides how PyTorch would read it.
`nn.MultiheadAttention` takes a boolean mask (True at a padded key: nothing attends to it) or a
float one, which it ADDS to the scores: 0 at a real key and −inf (or a large negative number) at
a padded one blocks the same keys, so that is right too; 1.0 at a padded key only nudges it.
"""

import numpy as np

from . import NotYet, as_array, call, checker, read_only

CASES = (((3, 5), 5), ((1, 4, 2), 4), ((6,), 6), ((2, 2), 3))  # (lengths, n): padding at the end
BLOCKS = -1e4  # an added score at or below this gives a weight of 0, even in float32


def _padding(lengths, n: int) -> np.ndarray:
    """(B, n): True at position j of row b when j >= lengths[b], the padding at the row's end."""
    return np.arange(n)[None, :] >= np.asarray(lengths)[:, None]  # (1, n) vs (B, 1) -> (B, n)


def _says(mask: np.ndarray) -> str:
    return str(mask.astype(int).tolist()).replace(" ", "")


@checker("a function key_padding_mask(lengths, n)")
def check_key_padding_mask(key_padding_mask):
    """A (B, n) mask, True at the padding of each row (PyTorch's convention), for several
    batches; an additive float mask (0 at real keys, −inf at padding) is right too."""
    for lengths, n in CASES:
        expected = _padding(lengths, n)  # (B, n)
        where = f"key_padding_mask({list(lengths)}, {n})"
        out = call(key_padding_mask, list(lengths), n, name="key_padding_mask")
        got = as_array(out, where, masked=True)  # (B, n) as float64
        if got.shape != expected.shape:
            raise NotYet(f"{where} must have shape (batch, n) = {expected.shape}, one row per "
                         f"sequence; got shape {got.shape}.")
        kind = np.asarray(out).dtype.kind  # how PyTorch reads it: "b" blocks, "f" is added
        if kind == "b" and np.array_equal(got, expected):
            continue
        if kind == "f" and np.array_equal(got == 0, ~expected) and np.all(got[expected] <= BLOCKS):
            continue  # an additive mask: 0 at the real keys, −inf (or far below) at the padding
        if np.array_equal(got, expected):  # the right keys, as the numbers 1 and 0
            raise NotYet(f"{where} marks the right keys, but with numbers: PyTorch adds a float "
                         "mask to the scores, so 1 at a padded key does not block it (and an int "
                         "mask is refused). Give booleans, True and False.")
        if kind == "f" and np.array_equal(got == 0, ~expected):
            raise NotYet(f"{where} is a float mask, which PyTorch adds to the scores: at the "
                         f"padded keys it adds {got[expected].max():.3g}, which does not block "
                         "them (their weight is not 0). Give booleans, or −inf at the padding.")
        if np.array_equal(got.astype(bool), ~expected):
            raise NotYet(f"{where} is True at the real keys: that is the convention of "
                         "F.scaled_dot_product_attention (True = may attend). key_padding_mask "
                         "is the other way round.")
        for shift, hint in ((1, "one key late"), (-1, "one key early")):
            if np.array_equal(got.astype(bool), _padding(np.asarray(lengths) + shift, n)):
                raise NotYet(f"{where} starts the padding {hint}: positions count from 0, and a "
                             "row of length L holds its real keys at positions 0 … L − 1.")
        raise NotYet(f"{where} should mark the padding at the end of each row; got "
                     f"{_says(got.astype(bool))}. Row b has lengths[b] real keys first.")
    return ("True exactly at each row's padding: with it, nn.MultiheadAttention gives each real "
            "row what its sequence gives alone.")


read_only(globals())  # the checker's own data: an answer cannot write into it

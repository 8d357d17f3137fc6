"""The PyTorch lab's checker (notebooks/labs/torch_bridge.ipynb), run without PyTorch: a
key_padding_mask in any form PyTorch reads the same way is Right; the plausible mistakes are Not
yet with a hint that names the mistake and never gives the answer away. (The lab itself runs
under nbval in .venv-torch: make test-torch.)"""

import numpy as np
import pytest

from posattn.exercises import torch_bridge
from solutions import torch_bridge_solutions as SOL


def _loops(lengths, n):
    return [[j >= length for j in range(n)] for length in lengths]


def _additive(lengths, n):  # a float mask PyTorch adds to the scores: −inf blocks a key
    return np.where(SOL.key_padding_mask(lengths, n), -np.inf, 0.0)


class _Tensor:
    """A stand-in for a CPU torch.bool tensor: numpy reads it through __array__, as it reads
    torch's (the package imports no PyTorch)."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)


@pytest.mark.parametrize("build", [
    SOL.key_padding_mask, _loops, _additive,
    lambda lengths, n: ~(np.arange(n) < np.asarray(lengths)[:, None]),
    lambda lengths, n: np.where(SOL.key_padding_mask(lengths, n), -1e9, 0).astype(np.float32),
    lambda lengths, n: _Tensor(SOL.key_padding_mask(lengths, n)),
])
def test_a_padding_mask_in_any_form_pytorch_reads_alike_is_right(build):
    feedback = torch_bridge.check_key_padding_mask(build)
    assert feedback.ok, feedback


@pytest.mark.parametrize(("build", "hint"), [
    (lambda lengths, n: ~SOL.key_padding_mask(lengths, n), "True at the real keys"),
    (lambda lengths, n: SOL.key_padding_mask(lengths, n).astype(float), "with numbers"),
    (lambda lengths, n: SOL.key_padding_mask(lengths, n).astype(int), "with numbers"),
    (lambda lengths, n: np.where(SOL.key_padding_mask(lengths, n), -1.0, 0.0), "does not block"),
    (lambda lengths, n: SOL.key_padding_mask(np.asarray(lengths) + 1, n), "one key late"),
    (lambda lengths, n: SOL.key_padding_mask(np.asarray(lengths) - 1, n), "one key early"),
    (lambda lengths, n: SOL.key_padding_mask(lengths, n).T, "must have shape (batch, n)"),
    (lambda lengths, n: SOL.key_padding_mask(lengths, n)[:, ::-1], "at the end of each row"),
    (lambda lengths, n: SOL.key_padding_mask(lengths, n)[0], "must have shape (batch, n)"),
])
def test_a_plausible_slip_is_not_yet_and_named(build, hint):
    feedback = torch_bridge.check_key_padding_mask(build)
    assert not feedback.ok and hint in feedback.message, feedback
    assert "np.arange(n)[None, :] >=" not in feedback.message  # the answer is not given away


def test_the_empty_template_asks_for_the_function():
    feedback = torch_bridge.check_key_padding_mask(...)
    assert not feedback.ok and "key_padding_mask(lengths, n)" in feedback.message

"""Solutions to the exercise of the PyTorch lab (notebooks/labs/torch_bridge.ipynb). Try it
first!"""

import numpy as np


def key_padding_mask(lengths, n):
    """True at position j of row b when j >= lengths[b]: the padding after each row's real keys.
    With torch.arange and torch.tensor the same comparison gives a bool tensor."""
    positions = np.arange(n)[None, :]  # (1, n)
    return positions >= np.asarray(lengths)[:, None]  # (1, n) vs (B, 1) -> (B, n)

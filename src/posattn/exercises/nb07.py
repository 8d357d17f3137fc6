"""Checkers for notebook 07 (RNNs and CNNs are different)."""

import numpy as np

from ..baselines import conv1d
from ..permutations import equivariance_error
from . import NotYet, as_array, as_rows, checker, close, read_only

EDGE = (0, 1, 7, 8)  # two width-3 layers: the edge signal moves one row inward per layer


@checker("a list of rows like [0, 8]")
def check_edge_rows(edge_rows):
    """Exercise 1: rows of two stacked width-3 convolutions, on nine equal words, unlike row 4."""
    got = as_rows(edge_rows, "edge_rows", 9)
    if got == list(EDGE):
        return ("the first layer's edge rows differ; in the second layer, rows 1 and 7 have "
                "windows that reach them. The edge signal moves one row inward per layer.")
    if 4 in got:
        raise NotYet("row 4 is the middle row itself: it cannot differ from itself.")
    if got == [1, 7]:
        raise NotYet("rows 1 and 7 do differ after layer 2, but they are not alone: do the windows "
                     "of the rows that differed after layer 1 still reach the padding?")
    if got != [8 - r for r in reversed(got)]:
        raise NotYet("the two ends are mirror images: row r differs exactly when row 8 − r does.")
    if got == [0, 8]:
        raise NotYet("that is the answer for one layer. The second layer's windows read the first "
                     "layer's rows: which of its windows contain a row that already differs?")
    k = len(got) // 2
    if k > 2 and got == [*range(k), *range(9 - k, 9)]:
        raise NotYet(f"{k} rows at each end is what {k} layers would give: each layer carries the "
                     "edge signal one row further in, and there are two layers.")
    raise NotYet("a row differs when its window reaches a row that already differs (or the zero "
                 "padding). Start from the edges of layer 1, then widen by one row per layer.")


@checker("a whole number of layers")
def check_layers_needed(layers_needed):
    """Exercise 2: stacked width-5 convolutions needed before output 24 feels word 0."""
    got = float(as_array(layers_needed, "layers_needed", ()))
    if close(got, 12):
        return "each width-5 layer reaches 2 rows further; word 0 is 24 rows from output 24: 12."
    hints = {
        24: "that is one row per layer, a width-3 window. How far does a width-5 window reach to "
            "each side?",
        6: "a width-5 window reaches 2 rows to each side, not 4: the path grows by 2 per layer.",
        5: "the path length O(n/k) hides a constant: a width-5 layer carries word 0 only 2 rows "
           "further, not 5.",
        13: "one layer too many: follow word 0 two rows per layer and stop at the first stack "
            "whose last output feels it.",
        12.5: "word 0 and output 24 are 24 rows apart, not 25: count the gaps, not the words.",
    }
    for wrong, hint in hints.items():
        if close(got, wrong):
            raise NotYet(hint)
    if got != round(got):
        raise NotYet("layers come in whole numbers. How many rows apart are word 0 and output 24, "
                     "and how many rows does each width-5 layer cover?")
    raise NotYet("a width-5 window covers t − 2 … t + 2, so each layer carries word 0 two rows "
                 "further. How many rows apart are word 0 and output 24?")


@checker("an array of shape (3, 8, 4)")
def check_equivariant_kernel(my_kernel):
    """Exercise 3: a non-zero (3, 8, 4) kernel that makes conv1d permutation equivariant."""
    W = as_array(my_kernel, "my_kernel", (3, 8, 4))
    if not W.any():
        raise NotYet("an all-zero kernel maps everything to 0, which is equivariant for nothing: "
                     "keep something non-zero.")
    X = np.random.default_rng(7).standard_normal((6, 8))  # (6, 8)
    perm = np.array([3, 0, 5, 1, 4, 2])
    scale = max(1.0, float(np.abs(conv1d(X, W)).max()))  # rounding grows with the outputs' size
    if equivariance_error(lambda X: conv1d(X, W), X, perm) <= 1e-9 * scale:
        return ("with only W_0 left, each output sees its own word alone: the same map on every "
                "row, like W_V, and blind to order.")
    if not W[1].any():
        raise NotYet("W_0, the middle matrix, is the one that meets the word itself; the outer two "
                     "meet its neighbours. Which of them must go?")
    if W[0].any() and W[2].any():
        raise NotYet("neighbours still leak into each output: which offsets must be all zeros?")
    side = "left, W_−1" if W[0].any() else "right, W_+1"
    raise NotYet(f"one neighbour still leaks in (the {side}): an output that reads its neighbour "
                 "changes when that neighbour is swapped for another word.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

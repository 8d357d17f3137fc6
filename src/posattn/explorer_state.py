"""The explorer's logic without any widget: read the inputs, compute A and A', word the result.

Every function here is pure (numpy only), so the rules of the "dog bites man"
explorer are tested without ipywidgets or matplotlib:

    A' = attention(P X),    and A' = P A Pᵀ exactly when attention is permutation equivariant.
"""

from __future__ import annotations

import html
import itertools
import re
from dataclasses import dataclass

import numpy as np

from ._checks import check_perm
from .embeddings import default_projections, embed, tokenize
from .permutations import inverse_permutation, permutation_matrix
from .positions import SCHEMES as POSITION_SCHEMES
from .positions import attention_with_positions

MAX_WORDS = 12  # a 12 × 12 heatmap still reads; longer sentences are refused
MAX_LISTED = 4  # up to 4 words (4! = 24 orders) the order is picked from a list
TOLERANCE = 1e-12  # "equal up to floating point": rounding noise is ~1e-16
SCHEMES = ("none", *POSITION_SCHEMES)  # the explorer's list: "none" is scheme=None


def parse_sentence(text: str) -> list[str]:
    """The tokens of ``text``, or a ValueError saying why the explorer cannot shuffle it.

    >>> parse_sentence("Dog bites man!")
    ['dog', 'bites', 'man']
    """
    if not text.strip():
        raise ValueError("sentence must hold at least 2 words; got an empty box. Type a sentence such as 'dog bites man'.")
    tokens = tokenize(text)  # ValueError for characters it cannot read
    if not tokens:
        raise ValueError(f"sentence must hold at least 2 words; got only punctuation {text.strip()!r}. Type some words.")
    if len(tokens) == 1:
        raise ValueError(f"sentence must hold at least 2 words to have an order; got 1 word: {tokens[0]!r}. Add another word.")
    if len(tokens) > MAX_WORDS:
        raise ValueError(f"sentence must hold at most {MAX_WORDS} words (the explorer's limit, so the heatmap stays "
                         f"readable); got {len(tokens)}. Shorten the sentence.")
    repeated = [word for word in dict.fromkeys(tokens) if tokens.count(word) > 1]
    if repeated:
        raise ValueError(f"sentence must use each word once; got {', '.join(map(repr, repeated))} more than once. "
                         "Equal words get equal embeddings, so orders that only swap them cannot be told apart "
                         "and the shuffle would hide itself. Use different words (e.g. 'a dog bites the man').")
    return tokens


def parse_order(text: str, n: int) -> np.ndarray:
    """Read an order typed as ``2 0 1`` (commas and brackets allowed) and check it permutes range(n).

    >>> parse_order("(2, 0, 1)", 3).tolist()
    [2, 0, 1]
    """
    parts = [p for p in re.split(r"[\s,;()\[\]]+", text) if p]
    if not parts or not all(p.isdigit() for p in parts):
        raise ValueError(f"order must be whole numbers separated by spaces, like {format_order(range(n)[::-1])}; "
                         f"got {text!r}. Type each of 0 … {n - 1} once.")
    try:
        return check_perm([int(p) for p in parts], n, name="order")
    except ValueError as error:
        raise ValueError(f"{error} Type each of 0 … {n - 1} exactly once.") from None


def format_order(perm) -> str:
    """The text of an order as typed in the order field: ``2 0 1``."""
    return " ".join(str(int(i)) for i in perm)


def format_pi(perm) -> str:
    """π as a tuple: ``(2, 0, 1)``."""
    return "(" + ", ".join(str(int(i)) for i in perm) + ")"


def order_options(tokens) -> list[tuple[str, str]]:
    """Every order of a short sentence as (label, value) pairs, the identity first.

    >>> order_options(["dog", "man"])
    [('0 1 · dog man', '0 1'), ('1 0 · man dog', '1 0')]
    """
    return [(f"{format_order(p)} · {' '.join(tokens[i] for i in p)}", format_order(p))
            for p in itertools.permutations(range(len(tokens)))]


@dataclass(frozen=True)
class View:
    """What the explorer shows for one sentence, order π and scheme."""

    tokens: tuple[str, ...]
    perm: np.ndarray  # π; the shuffled tokens are tokens[perm]
    scheme: str
    A: np.ndarray  # (n, n) attention of the original order
    A_shuffled: np.ndarray  # (n, n) A', attention of the shuffled order
    Y: np.ndarray  # (n, d_v)
    Y_shuffled: np.ndarray  # (n, d_v) Y'
    error: float  # max |A' − P A Pᵀ|
    Y_error: float  # max |Y' − P Y|

    @property
    def shuffled_tokens(self) -> list[str]:
        return [self.tokens[i] for i in self.perm]

    @property
    def A_put_back(self) -> np.ndarray:
        """Pᵀ A' P: A' with its rows and columns returned to the original order."""
        back = inverse_permutation(self.perm)  # the order that undoes perm
        return self.A_shuffled[back][:, back]  # (n, n), exactly Pᵀ A' P


def compute_view(tokens, perm, scheme: str = "none") -> View:
    """Attention of the sentence and of its reordering, and how far A' is from P A Pᵀ.

    >>> view = compute_view(["dog", "bites", "man"], [2, 1, 0])
    >>> view.shuffled_tokens, view.error < TOLERANCE
    (['man', 'bites', 'dog'], True)
    """
    tokens = tuple(tokens)
    perm = check_perm(perm, len(tokens))
    X = embed(list(tokens))  # (n, d)
    W_Q, W_K, W_V = default_projections()
    positions = None if scheme == "none" else scheme
    Y, A = attention_with_positions(X, W_Q, W_K, W_V, scheme=positions)
    Y_shuffled, A_shuffled = attention_with_positions(X[perm], W_Q, W_K, W_V, scheme=positions)  # P X = X[perm]
    P = permutation_matrix(perm)
    error = float(np.max(np.abs(A_shuffled - P @ A @ P.T)))  # (n, n) @ (n, n) @ (n, n) -> (n, n)
    Y_error = float(np.max(np.abs(Y_shuffled - P @ Y)))  # (n, n) @ (n, d_v) -> (n, d_v)
    return View(tokens, perm, scheme, A, A_shuffled, Y, Y_shuffled, error, Y_error)


def status_line(view: View) -> str:
    """One sentence stating the result with numbers; rounding noise is reported as "below 1e-12".

    >>> status_line(compute_view(["dog", "bites", "man"], [2, 1, 0]))
    "A' = P A Pᵀ for π = (2, 1, 0) ('man bites dog'): largest difference below 1e-12, and Y' = P Y."
    """
    pi, words = format_pi(view.perm), " ".join(view.shuffled_tokens)
    if (view.perm == np.arange(view.perm.size)).all():
        return f"π = {pi} is the original order ('{words}'), so A' = A. Press Shuffle or choose an order."
    if view.error < TOLERANCE and view.Y_error < TOLERANCE:
        blind = "" if view.scheme == "none" else f" The {view.scheme!r} positions cannot see this reordering."
        return f"A' = P A Pᵀ for π = {pi} ('{words}'): largest difference below {TOLERANCE:.0e}, and Y' = P Y.{blind}"
    return (f"A' is not P A Pᵀ for π = {pi} ('{words}') with {view.scheme!r} positions: "
            f"largest difference {view.error:.3g} (Y' vs P Y: {view.Y_error:.3g}).")


def error_line(error: Exception, view: View) -> str:
    """A refused input: the reason, then what stays on screen."""
    return f"⚠ {error} Still showing '{' '.join(view.tokens)}' with π = {format_pi(view.perm)}."


def _cell(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text  # no signed zero from rounding noise


def outputs_table(view: View) -> str:
    """Y and Y' side by side as HTML tables, rows labelled by token: the same rows, moved."""
    def table(title: str, tokens, Y: np.ndarray) -> str:
        head = "".join(f"<th>{k}</th>" for k in range(Y.shape[1]))
        rows = "".join(f"<tr><th>{html.escape(t)}</th>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>"
                       for t, row in zip(tokens, Y, strict=True))
        return f"<table class='pp-table'><caption>{title}</caption><tr><th></th>{head}</tr>{rows}</table>"

    return (f"<div style='display:flex;gap:2em'>{table('Y, original order', view.tokens, view.Y)}"
            f"{table('Y′, shuffled order', view.shuffled_tokens, view.Y_shuffled)}</div>")


__all__ = ["MAX_LISTED", "MAX_WORDS", "SCHEMES", "TOLERANCE", "View", "compute_view", "error_line", "format_order",
           "format_pi", "order_options", "outputs_table", "parse_order", "parse_sentence", "status_line"]

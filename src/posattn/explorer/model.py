"""The explorer's rules, pure (numpy only): read the inputs, compute A and A', word the result.

A' = attention(P X), and A' = P A Pᵀ exactly when attention is permutation equivariant.
"""

import itertools
import re
from dataclasses import dataclass

import numpy as np

from .._checks import check_perm, shown
from ..embeddings import default_projections, embed, tokenize
from ..permutations import permutation_matrix
from ..schemes import SCHEMES, attention_with_positions

MAX_WORDS = 12  # a 12 × 12 heatmap still reads; longer sentences are refused
MAX_LETTERS = 16  # a longer word would crowd the other panel
MAX_LISTED = 4  # up to 4 words (4! = 24 orders) the order is picked from a list
TOLERANCE = 1e-12  # "equal up to floating point": rounding noise is ~1e-16
NAMES = tuple(SCHEMES)  # the named schemes, in the registry's order; None is "no positions"


def parse_sentence(text) -> list[str]:
    """The tokens of ``text``, or a TypeError/ValueError saying why the explorer cannot use it.

    >>> parse_sentence("The dog bit the man!")
    ['the', 'dog', 'bit', 'the', 'man']
    """
    tokens = tokenize(text)  # TypeError for non-text, ValueError for characters it cannot read
    if len(tokens) < 2:
        got = (f"1 word: {_cut(tokens[0])}" if tokens else
               f"only punctuation {_cut(text.strip())}" if text.strip() else "an empty box")
        raise ValueError(f"sentence must hold at least 2 words to have an order; got {got}. "
                         "Type a sentence such as 'dog bites man'.")
    if len(tokens) > MAX_WORDS:
        raise ValueError(f"sentence must hold at most {MAX_WORDS} words (so the heatmap stays "
                         f"readable); got {len(tokens)}. Shorten the sentence.")
    long = next((word for word in tokens if len(word) > MAX_LETTERS), None)
    if long is not None:
        raise ValueError(f"sentence must use words of at most {MAX_LETTERS} letters; got "
                         f"{long[:MAX_LETTERS]!r}… ({len(long)} letters). Use a shorter word.")
    return tokens


def _cut(text: str, limit: int = 40) -> str:
    """text quoted, cut after limit characters (a pasted page must not fill the status line).

    >>> _cut("dog"), _cut("a" * 50, 4)
    ("'dog'", "'aaaa'… (50 characters)")
    """
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text)} characters)"


def labels(tokens) -> list[str]:
    """One label per token; copies of a word get primes, so every position reads differently.

    >>> labels(["the", "dog", "bit", "the", "man", "the"])
    ['the', 'dog', 'bit', 'the′', 'man', 'the″']
    """
    copies = [tokens[:k].count(word) for k, word in enumerate(tokens)]  # how many came before
    return [word + "″" * (c // 2) + "′" * (c % 2) for word, c in zip(tokens, copies, strict=True)]


def parse_order(text, n: int) -> np.ndarray:
    """Read an order typed as ``2 0 1`` (commas and brackets allowed; words after a ``·``, as in
    the listed orders, are ignored): each of 0 … n−1 once.

    >>> parse_order("(2, 0, 1)", 3).tolist(), parse_order("1 0 · man dog", 2).tolist()
    ([2, 0, 1], [1, 0])
    """
    fix = f"Type each of 0 … {n - 1} once, like {format_order(range(n)[::-1])}."
    typed = text if isinstance(text, str) else shown(text)  # str(10**5000) raises
    parts = [p for p in re.split(r"[\s,;()\[\]]+", typed.split("·")[0]) if p]
    if not parts or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"order must be whole numbers separated by spaces; got "
                         f"{shown(typed, 60)}. {fix}")
    long = next((p for p in parts if len(p) > 100), None)  # int() refuses over 4,300 digits
    if long is not None:
        raise ValueError(f"order must use the positions 0 … {n - 1}; got a number of {len(long)} "
                         f"digits ({long[:12]}…). {fix}")
    try:
        return check_perm([int(p) for p in parts], n, "order")
    except ValueError as error:  # names what is repeated, missing or out of range
        raise ValueError(f"{error} {fix}") from None


def format_order(perm) -> str:
    """The text of an order as typed in the order field: ``2 0 1``."""
    return " ".join(str(int(i)) for i in perm)


def order_options(tokens) -> tuple[str, ...]:
    """Every order of a short sentence (up to MAX_LISTED words), each with its words.

    >>> order_options(["dog", "dog"])
    ('0 1 · dog dog′', '1 0 · dog′ dog')
    """
    if len(tokens) > MAX_LISTED:
        return ()
    marked = labels(tokens)
    return tuple(f"{format_order(p)} · {' '.join(marked[i] for i in p)}"
                 for p in itertools.permutations(range(len(tokens))))


@dataclass(frozen=True)
class View:
    """What the explorer shows for one sentence, order π and scheme (None: no positions)."""

    tokens: tuple[str, ...]
    perm: np.ndarray  # π; the shuffled tokens are tokens[perm]
    scheme: str | None
    labels: list[str]  # labels(tokens)
    shuffled_labels: list[str]  # labels[perm]
    A: np.ndarray  # (n, n) attention of the original order
    A_shuffled: np.ndarray  # (n, n) A', attention of the shuffled order
    A_put_back: np.ndarray  # (n, n) Pᵀ A' P: A' with rows and columns in the original order
    Y: np.ndarray  # (n, d_v)
    Y_shuffled: np.ndarray  # (n, d_v) Y'
    error: float  # max |A' − P A Pᵀ|
    Y_error: float  # max |Y' − P Y|


def compute_view(tokens, perm=None, scheme: str | None = None) -> View:
    """Attention of the sentence and of its reordering, and how far A' is from P A Pᵀ.

    >>> view = compute_view(["dog", "bites", "man"], [2, 1, 0])
    >>> view.shuffled_labels, view.error < TOLERANCE
    (['man', 'bites', 'dog'], True)
    """
    tokens = tuple(tokens)
    perm = check_perm(range(len(tokens)) if perm is None else perm, len(tokens))  # None: identity
    X, W = embed(list(tokens)), default_projections()  # X: (n, d)
    Y, A = attention_with_positions(X, *W, scheme=scheme)
    Y_shuffled, A_shuffled = attention_with_positions(X[perm], *W, scheme=scheme)  # P X = X[perm]
    P, marked = permutation_matrix(perm), labels(tokens)
    error = float(np.max(np.abs(A_shuffled - P @ A @ P.T)))  # (n, n) @ (n, n) @ (n, n) -> (n, n)
    Y_error = float(np.max(np.abs(Y_shuffled - P @ Y)))  # (n, n) @ (n, d_v) -> (n, d_v)
    return View(tokens, perm, scheme, marked, [marked[i] for i in perm], A, A_shuffled,
                P.T @ A_shuffled @ P, Y, Y_shuffled, error, Y_error)  # Pᵀ A' P: exact, P is 0/1


def status_line(view: View) -> str:
    """One sentence stating the result with numbers; rounding noise is reported as "below 1e-12".

    >>> status_line(compute_view(["dog", "bites", "man"], [2, 1, 0]))
    "A' = P A Pᵀ for π = (2, 1, 0) ('man bites dog'): largest difference below 1e-12, and Y' = P Y."
    """
    pi, words = tuple(view.perm.tolist()), " ".join(view.shuffled_labels)
    if (view.perm == np.arange(view.perm.size)).all():
        return (f"π = {pi} is the original order ('{words}'), so A' = A. "
                "Press Shuffle or pick an order.")
    if [view.tokens[i] for i in view.perm] == list(view.tokens):
        return (f"π = {pi} ('{words}') only swaps copies of the same word, so X' = X and A' = A: "
                "the picture cannot change, because attention cannot even tell that anything "
                "moved.")
    if view.error < TOLERANCE and view.Y_error < TOLERANCE:
        blind = f" The {view.scheme!r} positions cannot see this order." if view.scheme else ""
        return (f"A' = P A Pᵀ for π = {pi} ('{words}'): largest difference below {TOLERANCE:.0e}, "
                f"and Y' = P Y.{blind}")
    return (f"A' is not P A Pᵀ for π = {pi} ('{words}') with {view.scheme!r} positions: "
            f"largest difference {view.error:.3g} (Y' vs P Y: {view.Y_error:.3g}).")


def error_line(error: Exception, view: View, limit: int = 400) -> str:
    """A refused input: the reason (cut after limit characters), then what stays on screen."""
    pi, reason = tuple(view.perm.tolist()), str(error)
    reason = reason if len(reason) <= limit else f"{reason[:limit]}…"
    return f"⚠ {reason} Still showing '{' '.join(view.labels)}' with π = {pi}."

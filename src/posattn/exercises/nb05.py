"""Checkers for notebook 05 (seeing it in code); solutions live in ``solutions/``."""

from __future__ import annotations

import numpy as np

from ..attention import self_attention
from ..embeddings import default_projections, embed, tokenize
from . import Feedback, function_answer, not_yet, returned_nothing, right, unanswered


def _outputs(sentence: str) -> np.ndarray:
    return self_attention(embed(tokenize(sentence)), *default_projections())[0]  # (3, d_v)


def check_order_aware_readout(sentence_vector) -> Feedback:
    """Exercise 1: a readout of Y that gives "dog bites man" and "man bites dog" different vectors.

    >>> check_order_aware_readout(...)
    ❌ Not yet: replace the ... with a function of Y, then run the cell again.
    """
    if (early := function_answer(sentence_vector, "sentence_vector", "Y")) is not None:
        return early
    Y1, Y2 = _outputs("dog bites man"), _outputs("man bites dog")
    got1, got2 = sentence_vector(Y1.copy()), sentence_vector(Y2.copy())
    if (early := returned_nothing(got1)) is not None:
        return early
    got1, got2 = np.asarray(got1, dtype=np.float64), np.asarray(got2, dtype=np.float64)
    if got1.ndim != 1 or not np.isfinite(got1).all():
        return not_yet(f"the sentence vector must be a 1-D array of finite numbers; got shape {got1.shape}.")
    if np.allclose(got1, got2, atol=1e-9):
        return not_yet("both sentences get the same vector: a mean, sum or max of the rows forgets their order.")
    return right("your readout uses where each row sits: position had to come from outside attention.")


_EQUIVARIANT = {"double", "centre"}


def check_equivariant_names(names) -> Feedback:
    """Exercise 2: the names of the candidate functions that are permutation equivariant.

    >>> check_equivariant_names(...)
    ❌ Not yet: replace the ... with a set of names, then run the cell again.
    """
    if (missing := unanswered(names, "a set of names")) is not None:
        return missing
    if isinstance(names, str):
        names = {names}
    try:
        got = {str(name).strip().lower() for name in names}
    except TypeError:
        return not_yet(f"names must be a set of strings such as {{'double'}}; got {names!r}.")
    unknown = got - _EQUIVARIANT - {"cumsum", "ramp"}
    if unknown:
        return not_yet(f"names must come from 'double', 'cumsum', 'centre', 'ramp'; got {sorted(unknown)}.")
    if got == _EQUIVARIANT:
        return right("each row of their output depends on its own row and on the rows as a bag, never on a slot.")
    if got & {"cumsum", "ramp"}:
        return not_yet("one of your picks treats slot i differently from slot j; try pa.equivariance_error on it.")
    return not_yet("you have left out an equivariant one; try pa.equivariance_error on each candidate.")


def check_non_associative(triple) -> Feedback:
    """Exercise 3: three floats a, b, c with (a + b) + c != a + (b + c), other than 0.1, 0.2, 0.3.

    >>> check_non_associative(...)
    ❌ Not yet: replace the ... with three numbers (a, b, c), then run the cell again.
    """
    if (missing := unanswered(triple, "three numbers (a, b, c)")) is not None:
        return missing
    try:
        a, b, c = (float(x) for x in triple)
    except (TypeError, ValueError):
        return not_yet(f"triple must hold three numbers, like (1.0, 2.0, 3.0); got {triple!r}.")
    if sorted((a, b, c)) == [0.1, 0.2, 0.3]:
        return not_yet("that is the example from the notebook; find a triple of your own.")
    if not all(np.isfinite((a, b, c))):
        return not_yet("use finite numbers: with inf or nan the comparison says nothing about rounding.")
    if (a + b) + c == a + (b + c):
        return not_yet("these two sums round to the same float. Try numbers of very different sizes.")
    return right(f"(a + b) + c = {(a + b) + c!r} but a + (b + c) = {a + (b + c)!r}: the order of additions matters.")

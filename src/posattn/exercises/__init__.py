"""Self-checking exercises: one module per notebook (``posattn.exercises.nb01`` …).

A checker returns :class:`Feedback`, "Right" or a hint (never the solution, which lives in the
repository's ``solutions/`` folder). It is written as a plain function decorated with
:func:`checker`: it returns the message for a right answer and raises :class:`NotYet` with a hint
otherwise, as the helpers below do when an answer is not what they need.

>>> @checker("a number")
... def check_two(x):
...     if as_array(x, "x", ()) != 2:
...         raise NotYet("count again.")
...     return "two it is."
>>> check_two(...), check_two(3), check_two("two"), check_two(2)
(❌ Not yet: replace the ... with a number, then run the cell again., ❌ Not yet: count again., \
❌ Not yet: x must be an array of numbers; got str 'two'., ✅ Right: two it is.)
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._checks import numbers_array


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer; displays as a single line in a notebook."""

    ok: bool
    message: str

    def __repr__(self) -> str:
        return ("✅ Right: " if self.ok else "❌ Not yet: ") + self.message

    def __bool__(self) -> bool:
        return self.ok


class NotYet(Exception):
    """Raised inside a checker: the answer is not right yet, and the message is the hint."""


def checker(what: str) -> Callable:
    """Make ``check(answer, …)`` return Feedback and never raise, whatever it is given.

    A placeholder answer (``...`` or None) asks for ``what``; :class:`NotYet` becomes its hint;
    any other exception, raised while looking at an unexpected answer, is named in a hint.
    """

    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def checked(*answers) -> Feedback:
            if any(a is ... or a is None for a in answers):
                return Feedback(False, f"replace the ... with {what}, then run the cell again.")
            try:
                return Feedback(True, check(*answers))
            except NotYet as hint:
                return Feedback(False, str(hint))
            except Exception as exc:  # noqa: BLE001 - an answer of any kind may fail in any way
                return Feedback(False, f"this answer could not be checked ({type(exc).__name__}: "
                                       f"{exc!s:.120}). The exercise asks for {what}.")

        return checked

    return decorate


def as_array(answer, name: str, shape: tuple | None = None, *, masked: bool = False) -> np.ndarray:
    """The answer as a finite float64 array (of ``shape`` if given; −inf allowed if ``masked``)."""
    try:
        array = numbers_array(name, answer)  # the package's own check and message
    except TypeError as exc:
        raise NotYet(str(exc)) from None
    if shape is not None and array.shape != tuple(shape):
        raise NotYet(f"{name} must have shape {tuple(shape)}; got shape {array.shape}.")
    if np.isnan(array).any() or not (masked or np.isfinite(array).all()):
        allowed = "a number or -np.inf" if masked else "a finite number"
        raise NotYet(f"{name} holds NaN or inf; every entry should be {allowed}.")
    return array


def as_rows(answer, name: str, n: int) -> list[int]:
    """The answer as sorted distinct row indices of an n-row array, or NotYet."""
    if isinstance(answer, (set, frozenset)):  # "which rows" may well come as a set
        answer = list(answer)
    rows = as_array(answer, name).ravel().tolist()
    if not set(rows) <= set(range(n)):
        raise NotYet(f"{name} must be whole numbers (row indices from 0 to {n - 1}); got {rows}.")
    return sorted({int(r) for r in rows})


def as_choice(answer, options, name: str = "choice") -> str:
    """The answer as one of ``options`` (compared without case, spaces or parentheses)."""
    text = answer.strip("() ").lower() if isinstance(answer, str) else None
    if text not in options:
        listed = ", ".join(map(repr, options))
        raise NotYet(f"{name} must be one of {listed}; got {answer!r:.40}.")
    return text


def call(f, *args, name: str = "your function", **keywords):
    """Call the learner's function ``f``; its errors and empty returns become NotYet."""
    if not callable(f):
        raise NotYet(f"{name} must be a function; got {type(f).__name__}.")
    try:
        out = f(*args, **keywords)
    except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
        raise NotYet(f"{name} raised {type(exc).__name__}: {exc!s:.120}") from None
    if out is ... or out is None:
        raise NotYet(f"{name} returns nothing yet: replace the ... after `return`.")
    return out


RTOL, ATOL = 1e-5, 1e-8  # float32 answers are right: a relative tolerance, plus a tiny absolute one


def close(got, expected, *, atol: float = ATOL) -> bool:
    """True when two arrays have the same shape and agree to float32 precision.

    Equal infinities (a masked −inf) count as equal. ``atol`` is for answers near zero whose
    scale the exercise fixes.
    """
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=RTOL, atol=atol))

"""Self-checking exercises: one module per notebook (``posattn.exercises.nb01`` …).

A checker takes the learner's answer and returns :class:`Feedback`, which shows
"Right" or what is wrong, and never prints the solution. Solutions live apart,
in the repository's ``solutions/`` folder.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer; displays as a single line in a notebook."""

    ok: bool
    message: str

    def __repr__(self) -> str:
        return ("✅ Right: " if self.ok else "❌ Not yet: ") + self.message

    def __bool__(self) -> bool:
        return self.ok


def right(message: str) -> Feedback:
    return Feedback(True, message)


def not_yet(message: str) -> Feedback:
    return Feedback(False, message)


def unanswered(answer, what: str) -> Feedback | None:
    """Feedback for a placeholder answer (``...`` or ``None``), else None."""
    if answer is ... or answer is None:
        return not_yet(f"replace the ... with {what}, then run the cell again.")
    return None


def function_answer(f, name: str, of: str, what: str | None = None) -> Feedback | None:
    """Feedback when a function answer is still the placeholder or is not a function, else None."""
    if (missing := unanswered(f, what or f"a function of {of}")) is not None:
        return missing
    if not callable(f):
        return not_yet(f"{name} must be a function of {of}; got {type(f).__name__}.")
    return None


def returned_nothing(got) -> Feedback | None:
    """Feedback when the learner's function still returns the placeholder, else None."""
    if got is ... or got is None:
        return not_yet("your function returns nothing yet: replace the ... after `return`.")
    return None

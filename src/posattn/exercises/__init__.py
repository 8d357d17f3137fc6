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

"""Input validation shared by the public functions.

Every message follows one template: ``<argument> must be <expectation>; got
<what came>. <how to fix>`` so a learner sees which argument is wrong and why.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_matrix(name: str, value, *, ndim: int = 2) -> np.ndarray:
    """Return ``value`` as a finite, non-empty float64 array with ``ndim`` axes."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be an array of numbers; got {type(value).__name__} {value!r}.")
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers; got {type(value).__name__} ({exc}).") from None
    if array.ndim != ndim:
        rows = "(n, d) with one row per token" if ndim == 2 else f"{ndim} axes"
        raise ValueError(f"{name} must be {ndim}-D, shape {rows}; got {array.ndim}-D array of shape {array.shape}.")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}. Give at least one token and one feature.")
    if not np.isfinite(array).all():
        bad = np.argwhere(~np.isfinite(array))[0]
        raise ValueError(
            f"{name} must hold only finite numbers; got {array[tuple(bad)]} at index {tuple(int(i) for i in bad)}. "
            "Check for NaN or inf upstream."
        )
    return array


def check_rows_match(name: str, W: np.ndarray, x_name: str, d: int) -> None:
    """``W`` multiplies ``x_name`` from the right, so it needs ``d`` rows."""
    if W.shape[0] != d:
        raise ValueError(f"{name} must have {d} rows to match {x_name}'s {d} features; got shape {W.shape}.")


def check_same(name: str, size: int, other: str, expected: int, what: str) -> None:
    if size != expected:
        raise ValueError(f"{name} must have {expected} {what} to match {other}; got {size}.")


def check_perm(perm, n: int | None = None, name: str = "perm") -> np.ndarray:
    """Return ``perm`` as an int array after checking it permutes ``range(n)``."""
    if isinstance(perm, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integers; got {type(perm).__name__} {perm!r}.")
    array = np.asarray(perm)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, an index array like [2, 0, 1]; got shape {array.shape}.")
    if array.size and not (np.issubdtype(array.dtype, np.integer) or np.all(np.mod(array, 1) == 0)):
        raise TypeError(f"{name} must hold integers; got {array.tolist()}.")
    array = array.astype(np.intp)
    n = array.size if n is None else n
    if array.size != n or sorted(array.tolist()) != list(range(n)):
        values = array.tolist()
        repeated = sorted({v for v in values if values.count(v) > 1})
        missing = sorted(set(range(n)) - set(values))
        extra = sorted(v for v in set(values) if not 0 <= v < n)
        detail = "; ".join(
            f"{label}: {', '.join(map(str, items))}"
            for label, items in (("repeated", repeated), ("missing", missing), ("out of range", extra))
            if items
        ) or f"length {array.size}"
        raise ValueError(f"{name} must be a permutation of range({n}); got {values} ({detail}).")
    return array


def check_mask(mask, n: int, m: int) -> np.ndarray:
    """A boolean (n, m) array, True where query i may attend to key j."""
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise TypeError(f"mask must be a boolean array (True = may attend); got dtype {array.dtype}. Use mask.astype(bool).")
    if array.shape != (n, m):
        raise ValueError(f"mask must have shape ({n}, {m}), one row per query and one column per key; got {array.shape}.")
    return array


def check_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__} {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}.")
    return int(value)

"""Input validation shared by the public functions.

Every message follows one template: ``<argument> must be <expectation>; got
<what came>. <how to fix>`` so a learner sees which argument is wrong and why.
Checks look through autograd's ArrayBox (at ``x._value``) and hand the box back
untouched, so the same functions can be differentiated while training.
"""

import math
import numbers

import numpy as np

# run a function with float overflow quiet: its own check then raises a clear error instead
quiet_overflow = np.errstate(over="ignore", invalid="ignore")


def raw(value):
    """The plain array inside autograd's ArrayBox (boxes nest when differentiating twice)."""
    while hasattr(value, "_value"):
        value = value._value
    return value


def traced(*values) -> bool:
    """True when autograd traces one of ``values``: then no array may be written in place."""
    return any(hasattr(v, "_value") for v in values)


def shorten(values, limit: int = 8) -> str:
    """A list for a message: at most ``limit`` entries of at most 30 characters, then "…"."""
    values = list(values)
    shown = [r if len(r := repr(v)) <= 30 else r[:29] + "…" for v in values[:limit]]
    more = f", … ({len(values)} entries)" if len(values) > limit else ""
    return f"[{', '.join(shown)}{more}]"


def _not_numbers(name: str, value, why: str) -> TypeError:
    return TypeError(f"{name} must be an array of numbers; got {type(value).__name__} {why:.120}.")


def numbers_array(name: str, value) -> np.ndarray:
    if isinstance(value, (str, bytes)) or value is None:
        raise _not_numbers(name, value, repr(value))
    try:
        array = np.asarray(value)  # ValueError for ragged nesting, say
        if array.dtype.kind != "c":
            return array.astype(np.float64, copy=False)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _not_numbers(name, value, f"({exc})") from None
    raise TypeError(f"{name} must hold real numbers; got complex values such as "
                    f"{complex(array.flat[0])}. Take .real (or abs) first if you mean it.")


def as_matrix(name: str, value, shape: tuple | None = None, why: str = "", *, batch: bool = False):
    """``value`` as a finite, non-empty float64 (n, d) array (an ArrayBox as it is).

    ``shape``: the exact shape instead, a str entry standing for any size; ``why`` says why.
    ``batch``: also accept a leading batch axis, (B, n, d): B sequences of the same length n.
    """
    array = numbers_array(name, raw(value))
    if shape is not None:
        if array.ndim != len(shape) or any(not isinstance(want, str) and want != got
                                           for want, got in zip(shape, array.shape, strict=True)):
            want = str(tuple(shape)).replace("'", "")  # ("n", 4) -> (n, 4)
            raise ValueError(f"{name} must have shape {want}{why}; got shape {array.shape}.")
    elif array.ndim != 2 and not (batch and array.ndim == 3):
        batched = ", or 3-D, shape (B, n, d) for B sequences of equal length" if batch else ""
        raise ValueError(f"{name} must be 2-D, shape (n, d) with one row per token{batched}; got "
                         f"{array.ndim}-D array of shape {array.shape}.")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}. "
                         "Give at least one token and one feature.")
    check_finite(name, array, "Check for NaN or inf upstream.")
    return value if traced(value) else array


def check_finite(name: str, value, fix: str):
    """Refuse NaN and ±inf in ``value`` (e.g. a product that overflowed float64)."""
    array = raw(value)
    finite = np.isfinite(array)
    if not finite.all():
        bad = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(f"{name} must hold only finite numbers; got {array[bad]} at index {bad}. "
                         + fix)
    return value


def check_number(name: str, value, above: float = -math.inf):
    """A real, finite number > ``above``; an ArrayBox passes as it is."""
    x = raw(value)
    x = x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {type(x).__name__} {x!r:.80}.")
    try:
        ok = math.isfinite(x) and x > above
    except OverflowError:  # an int too large for a float
        ok = False
    if not ok:
        bound = "" if above == -math.inf else f" above {above}"
        raise ValueError(f"{name} must be a finite number{bound}; got {x!r:.80}.")
    return value if traced(value) else float(x)


def _integers(name: str, perm) -> np.ndarray:
    """``perm`` as an integer array; booleans, floats and text are refused."""
    if isinstance(perm, (str, bytes)) or perm is None:
        raise TypeError(f"{name} must be a sequence of integers; got {type(perm).__name__} "
                        f"{perm!r:.80}.")
    try:
        array = np.asarray(perm)
    except ValueError:  # ragged nesting
        array = np.asarray(perm, dtype=object)
    nested = array.dtype == object and any(np.ndim(v) for v in array.flat)
    if array.ndim != 1 or nested:
        got = f"nested entries {shorten(perm)}" if nested else f"shape {array.shape}"
        raise ValueError(f"{name} must be 1-D, an index array like [2, 0, 1]; got {got}.")
    integral = array.dtype.kind in "iu" or (array.dtype == object and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in array.tolist()))
    if array.size and not integral:
        raise TypeError(f"{name} must hold integers; got {shorten(array.tolist())} "
                        f"({array.dtype.name}). Use int positions, e.g. [2, 0, 1].")
    return array


def check_perm(perm, n: int | None = None, name: str = "perm") -> np.ndarray:
    """Return ``perm`` as an int array after checking it permutes ``range(n)`` (in O(n))."""
    array = _integers(name, perm)
    n = array.size if n is None else n
    values = array.tolist()  # Python ints: 2**70 compares without overflowing
    outside = [v for v in values if not 0 <= v < n]
    inside = np.array([v for v in values if 0 <= v < n], dtype=np.intp) if outside else \
        array.astype(np.intp)
    counts = np.bincount(inside, minlength=n)  # how often each of 0 … n − 1 occurs
    if array.size == n and not outside and (counts == 1).all():
        return inside
    detail = "; ".join(f"{label}: {shorten(items)[1:-1]}" for label, items in (
        ("repeated", np.flatnonzero(counts > 1).tolist()),
        ("missing", np.flatnonzero(counts == 0).tolist()),
        ("out of range", sorted(set(outside)))) if items)
    raise ValueError(f"{name} must be a permutation of range({n}); got {shorten(values)} "
                     f"({detail}).")


def check_mask(mask, n: int, m: int) -> np.ndarray:
    """A boolean (n, m) array, True where query i may attend to key j."""
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise TypeError(f"mask must be a boolean array (True = may attend); "
                        f"got dtype {array.dtype}. Use mask.astype(bool).")
    if array.shape != (n, m):
        raise ValueError(f"mask must have shape ({n}, {m}), one row per query and one column per "
                         f"key; got {array.shape}.")
    if not array.any(axis=1).all():
        row = int(np.argmin(array.any(axis=1)))
        raise ValueError(f"mask must let every query attend to at least one key; got row {row} "
                         "all False.")
    return array


def check_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__} {value!r:.80}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}.")
    return int(value)

"""The door: every public function checks its arguments here, once, before it calls kernels.

Every message follows one template: ``<argument> must be <expectation>; got <what came>.
<how to fix>`` so a learner sees which argument is wrong and why. The door refuses what is not
a real number (text, bytes, dates, times, objects, complex numbers, and booleans where a number
is meant), any size that would make an array of more than MAX_ENTRIES entries (before it is
allocated), and results that overflowed float64, naming the caller's own arguments.
Checks look through autograd's ArrayBox (at ``x._value``) and hand the box back untouched, so
the same functions can be differentiated while training; only autograd's own boxes are opened.
A message shows what came through :func:`shown`, bounded: the size of a huge integer (Python
refuses to write one of more than 4,300 digits), the head of a long text or list.
"""

import inspect
import itertools
import math
import numbers
import operator
import re
import reprlib
import string
import sys
from collections.abc import Iterable, Mapping, Sequence, Sized

import numpy as np

MAX_ENTRIES = 2 * 10**7  # the most entries one array may have: 160 MB of float64, so that a call
# and the copies it makes fit in the 2 GB a classroom laptop can spare (tests/test_door_probes.py)


def quiet_overflow():
    """Run a kernel with float overflow quiet: finite_result then names the caller's arguments."""
    return np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore")


def is_box(value) -> bool:
    """True for autograd's boxes (ArrayBox and its kin) only: a plain object that happens to have
    a ``_value`` is not one. No box exists unless autograd is imported, so it is not imported."""
    tracer = sys.modules.get("autograd.tracer")
    return tracer is not None and isinstance(value, tracer.Box)


def raw(value):
    """The plain array inside autograd's ArrayBox (boxes nest when differentiating twice)."""
    while is_box(value):
        value = value._value
    return value


class _Bounded(reprlib.Repr):
    """repr, bounded: a few entries of a container, the head of a text, the size of a long int."""

    def __init__(self):
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother = 3, 60, 60
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = 8

    def repr_int(self, x, level):  # written out up to 40 digits, as reprlib would
        return repr(x) if -10**40 < x < 10**40 else shown_int(x)

    def repr_str(self, x, level):
        return repr(x) if len(x) <= self.maxstring else \
            f"{x[:self.maxstring]!r}… ({len(x):,} characters)"

    def repr_ndarray(self, x, level):  # an object array may hold what repr cannot write
        if x.dtype != object:
            return super().repr_instance(x, level)
        head = self.repr1(x.ravel()[:self.maxlist + 1].tolist(), level - 1)
        return f"array of shape {x.shape}, dtype object: {head}"

    def repr_instance(self, x, level):  # reprlib writes an int subclass (a bool aside) this way
        if isinstance(x, int) and not isinstance(x, bool) and not -10**40 < x < 10**40:
            return shown_int(x)
        return super().repr_instance(x, level)


_BOUNDED = _Bounded()


def shown(value, limit: int = 80) -> str:
    """What came, for a message: its repr, bounded (at most ``limit`` characters, then "…").

    >>> shown(10**5000), shown("dog"), shown(list(range(100)))
    ('an integer of about 5,001 digits', "'dog'", '[0, 1, 2, 3, 4, 5, 6, 7, ...]')
    """
    if isinstance(value, str) and len(value) > limit - 2:  # its head, and how long it is
        count = f"… ({len(value):,} characters)"
        head = repr(value[:max(limit - len(count) - 2, 8)])
        return head[:max(limit - len(count), 10)] + count
    text = _BOUNDED.repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shorten(values, limit: int = 8) -> str:
    """A list for a message: at most ``limit`` entries of at most 30 characters, then "…"."""
    values = list(values)
    shown_ = [shown(v, 30) for v in values[:limit]]
    more = f", … ({len(values)} entries)" if len(values) > limit else ""
    return f"[{', '.join(shown_)}{more}]"


def _not_numbers(name: str, value, why: str) -> TypeError:
    return TypeError(f"{name} must be an array of numbers; got {type(value).__name__} {why:.120}.")


def _not_real(array: np.ndarray) -> list:
    """The first entry of an object array that is not a real number (a bool is not one), if any."""
    odd = (v for v in array.flat if isinstance(v, bool) or not isinstance(v, numbers.Real))
    return list(itertools.islice(odd, 1))


def length(value) -> int:
    """len(value), also past sys.maxsize (range(10**20) is that long)."""
    try:
        return len(value)
    except OverflowError:
        if not isinstance(value, range):
            return sys.maxsize + 1
        start, stop, step = value.start, value.stop, value.step
        return max(0, (stop - start + step - (1 if step > 0 else -1)) // step)


def _is_sequence(value) -> bool:
    """A sequence numpy would read entry by entry (text, bytes and arrays are not, nor another
    library's arrays, a PyTorch tensor say: numpy reads those whole, through ``__array__``)."""
    if isinstance(value, (str, bytes, bytearray, memoryview, np.ndarray, Mapping)):
        return False
    if hasattr(type(value), "__array__") or hasattr(value, "__array_interface__"):
        return False
    kind = type(value)
    return isinstance(value, Sequence) or (hasattr(kind, "__len__")
                                           and hasattr(kind, "__getitem__"))


def _nested_entries(value) -> tuple[int, int]:
    """(entries, levels) numpy would make of nested sequences, read off the first entry at
    each level: without making them (np.asarray(range(10**9)) alone takes 8 GB)."""
    entries, levels = 1, 0
    while _is_sequence(value) and levels < 64:
        entries, levels = entries * length(value), levels + 1
        if entries == 0 or entries > MAX_ENTRIES:
            break
        try:
            value = value[0]
        except Exception:  # noqa: BLE001 - a sequence that cannot be indexed: numpy's to judge
            break
    if levels and isinstance(value, np.ndarray) and 0 < entries <= MAX_ENTRIES:
        entries, levels = entries * value.size, levels + value.ndim  # a list of arrays (an
        # array alone: real_array measures it)
    return entries, levels


def check_length(name: str, value) -> None:
    """Refuse a list, tuple, range (any sequence) of more than MAX_ENTRIES entries, nested ones
    counted by their first entries, before numpy reads it (that alone takes seconds)."""
    entries, levels = _nested_entries(value)
    if entries > MAX_ENTRIES:
        what = (f"a {type(value).__name__} of {shown_int(entries)}" if levels <= 1 else
                f"a {type(value).__name__} nested {levels} deep, {_count(entries)} entries "
                "(counted by the first entry at each level)")
        raise ValueError(f"{name} must have at most {MAX_ENTRIES:,} entries; got {what}. "
                         "Use a shorter one.")


def bounded_list(name: str, values: Iterable, most: int, what: str) -> list:
    """``values`` as a list of at most ``most`` items: a sized one measured before it is read,
    an iterator read to at most most + 1 items (itertools.repeat never ends)."""
    if isinstance(values, Sized):
        count = length(values)
        if count > most:
            raise ValueError(f"{name} must have at most {most:,} entries for {what}; got "
                             f"{shown_int(count)}. Use fewer.")
        return list(values)
    items = list(itertools.islice(values, most + 1))
    if len(items) > most:
        raise ValueError(f"{name} must have at most {most:,} entries for {what}; got an "
                         f"iterator ({type(values).__name__}) that gave more. Pass a list.")
    return items


def real_array(name: str, value, *, bools: bool = False) -> np.ndarray:
    """``value`` as a float64 array, if it holds real numbers only (booleans only if ``bools``).

    Text, bytes, dates, times, objects, complex numbers and ragged nesting are refused;
    so are booleans unless ``bools``: True is not a number that attention can weigh.
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise _not_numbers(name, value, shown(value, 120))
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(f"{name} must be a plain array of numbers; got a masked array "
                        f"({np.ma.count_masked(value)} of {value.size} entries masked), whose "
                        "mask would be ignored. Fill it first (np.ma.filled(a, value)), or pass "
                        "a mask argument where the function takes one.")
    check_length(name, value)
    try:
        array = np.asarray(value)  # ValueError for ragged nesting, say
    except (TypeError, ValueError, OverflowError) as exc:
        raise _not_numbers(name, value, f"({exc})") from None
    if array.size > MAX_ENTRIES:  # a broadcast view is small until it is copied
        raise ValueError(f"{name} must have at most {MAX_ENTRIES:,} entries; got shape "
                         f"{array.shape}, {_count(array.size)} entries (as a broadcast view it "
                         "is small, but every step after this one copies it). Use a smaller one.")
    kind = array.dtype.kind
    if kind == "c":
        such = f" such as {complex(array.flat[0])}" if array.size else f" (dtype {array.dtype})"
        raise TypeError(f"{name} must hold real numbers; got complex values{such}. Take .real "
                        "(or abs) first if you mean it.")
    if kind == "b" and not bools:
        raise TypeError(f"{name} must be an array of numbers; got booleans (dtype bool). "
                        f"Use {name}.astype(float) if you mean 0 and 1.")
    odd = _not_real(array) if kind == "O" else []
    if kind == "O" and not odd:
        try:
            return array.astype(np.float64)  # Python ints and fractions, say
        except OverflowError:
            raise TypeError(f"{name} must hold numbers that fit in float64; got an integer "
                            f"too large for it. Scale it down.") from None
    if kind not in "biuf":
        what = ({"U": "text", "T": "text", "S": "bytes", "M": "dates", "m": "time spans",
                 "V": "records"}.get(kind)
                or (f"{type(odd[0]).__name__} {shown(odd[0], 40)} among its entries" if odd
                    else "entries that are not numbers"))
        raise TypeError(f"{name} must be an array of numbers; got {what} "
                        f"(dtype {array.dtype}). Give real numbers, e.g. [[0.5, 1.0]].")
    return array.astype(np.float64, copy=False)


def numbers_array(name: str, value) -> np.ndarray:
    """``value`` as a float64 array of real numbers or booleans (the exercises' answers)."""
    return real_array(name, value, bools=True)


def as_matrix(name: str, value, shape: tuple | None = None, why: str = "", *, batch: bool = False):
    """``value`` as a finite, non-empty float64 (n, d) array (an ArrayBox as it is).

    ``shape``: the exact shape instead, a str entry standing for any size; ``why`` says why.
    ``batch``: also accept a leading batch axis, (B, n, d): B sequences of the same length n.
    """
    array = real_array(name, raw(value))
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
    return value if is_box(value) else array


def check_finite(name: str, value, fix: str):
    """Refuse NaN and ±inf in ``value`` (e.g. a product that overflowed float64)."""
    array = raw(value)
    finite = np.isfinite(array)
    if not finite.all():
        bad = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(f"{name} must hold only finite numbers; got {array[bad]} at index {bad}. "
                         + fix)
    return value


def finite_result(arguments: str, what: str, *results):
    """Return ``results`` if every entry is finite; else name the caller's ``arguments``.

    Kernels run under quiet_overflow; an overflow anywhere inside leaves an inf or a NaN in
    the result, and this turns it into the template, in the terms of the function called.
    """
    for result in results:
        if not np.isfinite(raw(result)).all():
            them = "them" if " and " in arguments else "it"
            raise ValueError(f"{arguments} must be small enough for {what} to stay within float64 "
                             f"(about ±1.8e308); got an overflow. Scale {them} down.")
    return results[0] if len(results) == 1 else results


def output_of(name: str, f, X) -> np.ndarray:
    """f(X) as finite float64 numbers: an overflow inside the learner's f becomes the template.

    f gets a copy of X, so an f that works in place (``X += …``) changes neither the caller's
    array nor the next call's input.
    """
    with quiet_overflow():
        output = f(np.array(X, copy=True))
    return function_output(name, output)


def function_output(name: str, output) -> np.ndarray:
    """A function's output as finite float64 numbers; of a tuple such as (Y, A), the first."""
    output = output[0] if isinstance(output, tuple) and output else output
    array = real_array(name, output, bools=True)
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}. Make f return at "
                         "least one number.")
    return check_finite(name, array, "Make f return finite numbers for this X.")


MAX_FORMAT_WIDTH = 100  # the widest field or the most digits a format string may ask for


def check_format(name: str, fmt, example: str) -> str:
    """A format string that writes one number, such as ``example``; its widths and precisions are
    at most MAX_FORMAT_WIDTH, so that "{:>10000000000}" is refused before it allocates."""
    why = ""
    if isinstance(fmt, str) and len(fmt) > MAX_FORMAT_WIDTH:
        why = f" ({len(fmt):,} characters; at most {MAX_FORMAT_WIDTH} are allowed)"
    elif isinstance(fmt, str):
        try:
            specs = [spec or "" for _, field, spec, _ in string.Formatter().parse(fmt)
                     if field is not None]
            sizes = [int(n) for spec in specs for n in re.findall(r"\d+", spec)]  # ≤ 100 digits
            if any("{" in spec for spec in specs):
                why = (" (a field nested in a format spec takes its width from the number "
                       "itself; write the width out, such as '{:>8.1%}')")
            elif max(sizes, default=0) > MAX_FORMAT_WIDTH:
                why = f" (a width or precision of {shown_int(max(sizes))}; at most " \
                      f"{MAX_FORMAT_WIDTH} is allowed)"
            elif isinstance(fmt.format(0.5), str):
                return fmt
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
            why = f" ({type(error).__name__}: {str(error):.80})"
    raise ValueError(f"{name} must be a format string for one number, such as '{example}'; got "
                     f"{shown(fmt, 60)}{why}.")


def check_number(name: str, value, above: float = -math.inf, *, nonzero: bool = False):
    """A real, finite number > ``above`` (and not 0 if ``nonzero``); an ArrayBox passes as it is."""
    x = raw(value)
    x = x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x
    real = not isinstance(x, (bool, np.bool_)) and isinstance(x, numbers.Real)
    if not real:  # (numbers.Real declares no comparison with a float: x stays untyped)
        raise TypeError(f"{name} must be a real number; got {type(x).__name__} {shown(x)}.")
    try:
        ok = math.isfinite(x) and x > above and not (nonzero and x == 0)
    except OverflowError:  # an int too large for a float
        ok = False
    if not ok:
        bound = "" if above == -math.inf else f" above {above}"
        bound += ", not 0" if nonzero else ""
        raise ValueError(f"{name} must be a finite number{bound}; got {shown(x)}.")
    return value if is_box(value) else float(x)


MAX_INT = 2**53  # the largest integer a size, count or seed may be: float64 still holds it exactly


def shown_int(value: int) -> str:
    """An integer for a message: written out, or its size when it is too long to read (or for
    Python to write: 10**5000 has more than the 4,300 digits int → str allows)."""
    if -10**15 < value < 10**15:
        return f"{value:,}"
    digits = math.floor(abs(value).bit_length() * math.log10(2)) + 1  # within one of the truth
    return f"{'a negative' if value < 0 else 'an'} integer of about {digits:,} digits"


def check_int(name: str, value, minimum: int = 1, maximum: int = MAX_INT) -> int:
    """An integer (a numpy one too, never a bool) from ``minimum`` to ``maximum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__} {shown(value)}.")
    value = operator.index(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum:,}; got {shown_int(value)}.")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}; got {shown_int(value)}.")
    return value


def _count(entries: int) -> str:
    return shown_int(entries) if entries < 10**15 else \
        f"about 10^{math.floor(entries.bit_length() * math.log10(2)):,}"


def check_size(name: str, value, entries: int, what: str, fix: str = "") -> None:
    """Refuse, before allocating, a request for more than MAX_ENTRIES entries in one array.

    ``value`` is the size asked for (shown as ``name = value``), or a str that says it.
    """
    if entries > MAX_ENTRIES:
        got = value if isinstance(value, str) else f"{name} = {shown(value, 40)}"
        raise ValueError(f"{name} must be small enough for {what} to have at most "
                         f"{MAX_ENTRIES:,} entries ({MAX_ENTRIES * 8 / 1e6:,.0f} MB of float64); "
                         f"got {got}, which needs "
                         f"{_count(entries)}. {fix or f'Use a smaller {name}.'}")


def check_even(name: str, d_k: int, whose: str = "") -> None:
    """RoPE turns pairs of coordinates, so the length d_k of a query must be even."""
    if d_k % 2:
        raise ValueError(f"{name} must have an even number of columns (d_k) for RoPE, which turns "
                         f"pairs of coordinates; got d_k = {d_k}{whose}. Choose an even d_k.")


def check_callable(name: str, f) -> None:
    """A function that can be called with one argument, X (a builtin without a signature to read
    is left to the call)."""
    if not callable(f):
        raise TypeError(f"{name} must be a function of X; got {type(f).__name__} {shown(f)}.")
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # no signature to read
        return
    try:
        signature.bind(None)
    except TypeError:
        called = getattr(f, "__name__", type(f).__name__)
        try:
            called += str(signature)
        except ValueError:  # a default too long for Python to write (10**5000)
            called += "(…)"
        raise TypeError(f"{name} must be a function of one argument, X (the rows of tokens); got "
                        f"{called:.120}. Fix any other argument first, e.g. with "
                        "lambda X: g(X, W).") from None


def check_choice(name: str, value, choices: tuple) -> None:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; "
                         f"got {shown(value)}.")


def check_rng(rng):
    """A numpy Generator, a seed (an integer ≥ 0) or None (fresh entropy), as numpy takes it."""
    if rng is None or isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, numbers.Integral):
        raise TypeError(f"rng must be a numpy Generator or an integer seed; "
                        f"got {type(rng).__name__} {shown(rng)}.")
    return check_int("rng", rng, minimum=0)


def _integers(name: str, perm) -> np.ndarray:
    """``perm`` as an integer array; booleans, floats and text are refused."""
    if isinstance(perm, (str, bytes)) or perm is None:
        raise TypeError(f"{name} must be a sequence of integers; got {type(perm).__name__} "
                        f"{shown(perm)}.")
    check_length(name, perm)
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
    check_size(name, f"{array.size:,} entries", max(array.size, n), "the permutation",
               "Use a shorter one.")
    if array.dtype.kind in "iu" and array.size == n and (n == 0 or (
            int(array.min()) >= 0 and int(array.max()) < n)):  # the quick path: numpy integers
        inside = array.astype(np.intp, copy=False)
        counts = np.bincount(inside, minlength=n)
        if (counts == 1).all():
            return inside
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


def check_mask(mask, n: int, m: int):
    """A boolean (n, m) array, True where query i may attend to key j; None (no mask) passes."""
    if mask is None:
        return None
    check_length("mask", mask)
    try:
        array = np.asarray(mask)
    except (TypeError, ValueError):  # ragged nesting
        raise TypeError(f"mask must be a boolean array (True = may attend); got a ragged "
                        f"{type(mask).__name__}. Give one row of {m} per query.") from None
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


def check_scores(S, axis):
    """Scores for softmax: real numbers, or −inf for a masked entry, with a finite one per row."""
    values = real_array("S", raw(S))
    if values.ndim == 0 or values.size == 0:
        got = f"the single number {values.item()!r}" if values.ndim == 0 else \
            f"shape {values.shape}"
        raise ValueError(f"S must be a non-empty array of scores with at least one axis; got "
                         f"{got}. Give a row of scores, e.g. [2.0, 1.0, 0.0].")
    ndim = values.ndim
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral) \
            or not -ndim <= int(axis) < ndim:
        raise ValueError(f"axis must be an integer from {-ndim} to {ndim - 1} "
                         f"for S of shape {values.shape}; got {shown(axis)}.")
    axis = operator.index(axis)
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError("S must hold finite scores or -inf (masked); got NaN or +inf. "
                         "Check the scores upstream.")
    dead = np.isneginf(values).all(axis=axis)
    if dead.any():
        where = np.argwhere(np.atleast_1d(dead))[0].tolist()
        raise ValueError(
            f"S must leave at least one finite score in every softmax row; got the row at {where} "
            "entirely -inf (fully masked), which would give 0/0 = NaN. Let every query attend to "
            "at least one key.")
    return (S if is_box(S) else values), axis


def check_cross(X, Z, W_Q, W_K, W_V):
    """X (n, d) and Z (m, d_z), and weights to match: W_Q (d, d_k), W_K (d_z, d_k), W_V (d_z, d_v).

    Also bounds the sizes: A (n, m), and Q, K, V.
    """
    X = as_matrix("X", X)
    Z = as_matrix("Z", Z)
    (n, d), (m, d_z) = np.shape(X), np.shape(Z)
    W_Q = as_matrix("W_Q", W_Q, (d, "d_k"), f" to match X's {d} features")
    d_k = np.shape(W_Q)[1]
    W_K = as_matrix("W_K", W_K, (d_z, d_k), f" to match Z's {d_z} features and W_Q's d_k = {d_k} "
                    "(q·k needs equal lengths)")
    W_V = as_matrix("W_V", W_V, (d_z, "d_v"), f" to match Z's {d_z} features")
    check_size("X", f"{n:,} rows and Z {m:,}", n * m, "the (n, m) matrix A", "Use fewer rows.")
    width = max(d_k, np.shape(W_V)[1])
    check_size("X", f"{max(n, m):,} rows", max(n, m) * width, "Q, K and V", "Use fewer rows.")
    return X, Z, W_Q, W_K, W_V


def check_projections(X, W_Q, W_K, W_V, *, batch: bool = True, loop: int | None = None):
    """X and the three weight matrices: W_Q, W_K, W_V need d rows, W_Q and W_K agree.

    Also bounds the sizes: A (n, n) and Q, K, V per sequence (and n for a literal ``loop``).
    """
    X = as_matrix("X", X, batch=batch)
    *B, n, d = np.shape(X)
    W_Q = as_matrix("W_Q", W_Q, (d, "d_k"), f" to match X's {d} features")
    W_K = as_matrix("W_K", W_K, np.shape(W_Q), ", the shape of W_Q (q·k needs equal lengths)")
    W_V = as_matrix("W_V", W_V, (d, "d_v"), f" to match X's {d} features")
    sequences = math.prod(B)
    if loop is not None and n > loop:
        raise ValueError(f"X must have at most {loop:,} rows for the literal loop, which takes "
                         f"n² Python steps; got {n:,} rows. Use self_attention for long inputs.")
    check_size("X", f"{n:,} rows", sequences * n * n, "the (n, n) matrix A", "Use fewer tokens.")
    width = max(np.shape(W_Q)[1], np.shape(W_V)[1])
    check_size("X", f"{n:,} rows", sequences * n * width, "Q, K and V", "Use fewer tokens.")
    return X, W_Q, W_K, W_V

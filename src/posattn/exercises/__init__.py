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

What a check promises, whatever the answer does:

* It is called as the notebook calls it, answers in order; called otherwise (with keywords, or
  with nothing) it says so, with the call to make.
* Its verdict is the checker's own: the names of numpy (and of Python's builtins) that an answer
  rebinds (``np.allclose = lambda *a, **k: True``) are put back as they were at import while
  the check runs, and after every call of the answer; the notebook gets its own back after.
* Its tables and names are its own: a checker module's data is frozen all the way down (arrays
  read-only, dicts read-only mappings, lists tuples) and its names cannot be rebound from a
  notebook (``nb02.V = …`` raises AttributeError), so no cell changes a later verdict.
* An answer that forks (``os.fork()``) gets a Not yet; the new process ends at once, is reaped,
  and never runs the rest of the check.
* It stops an answer after TIME_LIMIT seconds when the answer is Python code running on the
  kernel's main thread; a stop the answer catches (a bare ``except:``) is raised again every
  0.1 s. SIGALRM is unblocked for the check, and the alarm, the SIGALRM and SIGINT handlers and
  the signal mask are given back as they were. From the second stop on, the stop is raised at
  each line of the answer too, so an ``except:`` line cannot hold it; the same for a second
  interrupt of the kernel (■, KeyboardInterrupt), which a check never catches. Not promised:
  one long call into C (numpy work included: it is stopped when it returns), code in another
  thread, or an answer that blocks or ignores SIGALRM itself: interrupting the kernel stops
  those.
"""

import builtins
import contextlib
import copy
import functools
import inspect
import os
import signal
import sys
import threading
import time
import types
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


TIME_LIMIT = 5.0  # seconds one check may take, the answer's own calls included


class _Stopped(BaseException):
    """Raised inside the learner's code to end a check with ``hint`` as its verdict. A
    BaseException, so that no ``except Exception`` on the way (the learner's or the package's)
    can swallow it."""


def say(exc: BaseException, limit: int = 300) -> str:
    """An exception as "Type: message", even when its __str__ raises; a message longer than
    ``limit`` is cut after its last whole sentence (or word), never inside one."""
    try:
        text = " ".join(str(exc).split())
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - a hostile __str__ may raise anything
        text = "(its message could not be shown)"
    if len(text) > limit:
        cut = text[:limit]
        end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
        text = cut[:end + 1] + " …" if end > limit // 3 else cut[:cut.rfind(" ")] + " …"
    return f"{type(exc).__name__}: {text}"


def _fresh(value):
    """A copy of an argument for the learner's function: arrays, lists, dicts and sets."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, dict, set)):
        return copy.deepcopy(value)
    return value


def _changed(before, after) -> bool:
    """Whether the learner's function changed the copy ``after`` of ``before``."""
    try:
        if isinstance(before, np.ndarray):
            return before.shape != np.shape(after) or not np.array_equal(before, after,
                                                                         equal_nan=True)
        return bool(before != after)
    except (TypeError, ValueError):  # equal_nan on text, or a comparison without an answer
        return False


def _argument_name(f, position) -> str:
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):  # no signature to read
        names = []
    if isinstance(position, str):
        return position
    return names[position] if position < len(names) else f"argument {position + 1}"


_MISSING = object()
# the namespaces an answer could rebind to change a verdict, as they were when this was imported
_KEPT = tuple((vars(module), dict(vars(module))) for module in (
    builtins, np, *(sys.modules[name] for name in (
        "numpy.linalg", "numpy.random", "numpy.ma", "numpy._core.numeric",
        "numpy._core.fromnumeric", "numpy.core.numeric", "numpy.core.fromnumeric")
        if name in sys.modules)))


def _restore() -> list:
    """Put back every kept name an answer rebound or removed; returns what was undone."""
    undone = []
    for now, kept in _KEPT:
        for key, value in kept.items():
            if now.get(key, _MISSING) is not value:
                undone.append((now, key, now.get(key, _MISSING)))
                now[key] = value
    return undone


def _put_back(undone: list) -> None:
    """The notebook's own rebinding, given back after a check."""
    for now, key, value in reversed(undone):
        if value is _MISSING:
            now.pop(key, None)
        else:
            now[key] = value


_FORKS = {"checking": 0, "count": 0, "pipe": None}


def _before_fork():
    if _FORKS["checking"]:
        _FORKS["pipe"] = os.pipe()


def _in_child():  # a copy of the kernel inside a check: it must not run the check on
    if _FORKS["checking"]:
        try:
            os.write(_FORKS["pipe"][1], str(os.getpid()).encode())
        finally:
            os._exit(0)


def _in_parent():
    pipe, _FORKS["pipe"] = _FORKS["pipe"], None
    if pipe is None:
        return
    _FORKS["count"] += 1
    os.close(pipe[1])
    try:
        pid = int(os.read(pipe[0], 32) or 0)
    finally:
        os.close(pipe[0])
    with contextlib.suppress(ChildProcessError, OSError):
        if pid:
            os.waitpid(pid, 0)  # it has ended already: reaped, no zombie left


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_in_parent,
                        after_in_child=_in_child)


def guarded(f, name: str = "your function"):
    """The learner's function ``f``, called on fresh copies of its arguments: whatever it does to
    them, the checker's arrays stay as they were, and a change made in place ends the check
    with a hint that says so. A ``sys.exit()`` inside it ends the check with a hint too."""
    if not callable(f) or isinstance(f, type):
        return f
    own = getattr(f, "__name__", "")
    name = own if own.isidentifier() and name == "your function" else name

    @functools.wraps(f)
    def answer(*args, **keywords):
        copies = [_fresh(a) for a in args]
        named = {key: _fresh(v) for key, v in keywords.items()}
        try:
            out = f(*copies, **named)
        except SystemExit:
            raise _Stopped(f"{name} called sys.exit() (or exit()), which would end the program: "
                           "return a value instead.") from None
        finally:
            _restore()  # whatever of numpy's the call rebound
        pairs = [*enumerate(zip(args, copies, strict=True)),
                 *((key, (keywords[key], v)) for key, v in named.items())]
        for position, (given, seen) in pairs:
            if _changed(given, seen):
                what = _argument_name(f, position)
                raise _Stopped(f"{name} changes its input {what} in place (with +=, /=, "
                               f"{what}[…] = … or a method such as .sort()). On the checker's copy "
                               f"no harm is done, but in your notebook it would change {what} "
                               f"itself at every call. Work on a new array: {what} = {what} + …, "
                               f"or {what} = {what}.copy() first.")
        return out

    return answer


# the guard's own code, which a checker that watches what an answer calls (nb03) leaves out
def _codes(code) -> set:
    """A code object and every one nested in it (inner functions, comprehensions)."""
    return {code}.union(*(_codes(c) for c in code.co_consts if hasattr(c, "co_name")))


GUARD_CODES = frozenset().union(*(_codes(f.__code__) for f in (_fresh, _changed, _argument_name,
                                                                 guarded, _restore)))


def _frozen(value):
    """``value`` that nothing can change: arrays read-only, dicts as read-only mappings, lists
    and sets as tuples and frozensets, all the way down."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
        return value
    if isinstance(value, (dict, types.MappingProxyType)):
        return types.MappingProxyType({key: _frozen(v) for key, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return value


class _Sealed(types.ModuleType):
    """A checker module whose names a notebook cannot rebind or delete (``nb02.V = …``)."""

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("__"):  # the import system's own (a reload sets them)
            return super().__setattr__(name, value)
        raise AttributeError(f"{self.__name__}.{name} is read-only: the checker's verdicts are "
                             "computed from it. Give your own value a name of your own.")

    def __delattr__(self, name: str) -> None:
        if name.startswith("__"):
            return super().__delattr__(name)
        raise AttributeError(f"{self.__name__}.{name} is read-only: the checker's verdicts are "
                             "computed from it.")


def read_only(namespace: dict) -> None:
    """The checker module's own data frozen (arrays read-only, dicts read-only mappings, lists
    tuples, all the way down) and its names sealed, so that neither an answer nor a notebook can
    change the data or the functions a verdict is computed from."""
    for name, value in list(namespace.items()):
        if not name.startswith("__"):
            namespace[name] = _frozen(value)
    sys.modules[namespace["__name__"]].__class__ = _Sealed


_LIMIT = threading.local()
_HERE = (__file__, contextlib.__file__, os.path.dirname(np.__file__))  # where no stop is raised
REPEAT = 0.1  # seconds between stops once the first one is caught


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Stop the learner's code after ``seconds``, and again every REPEAT s if it catches the stop
    (on the main thread, where signals arrive; a nested check keeps the outer limit); from the
    second stop, or the second interrupt, at the answer's lines too, so that a bare ``except:``
    cannot hold it. CPython drops a trace function that raises, so the one that raises at each
    line is put back at each stop and interrupt after that, and by a profile function at each
    call and return. Whatever the answer did to them, the alarm, the SIGALRM and SIGINT handlers,
    the signal mask and the trace and profile functions are given back as they were; an interrupt
    that lands while they are given back is raised once they are."""
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
              and not getattr(_LIMIT, "on", False))
    if not usable:
        yield
        return
    stops, presses, armed, closing, pending = [0], [0], [False], [False], [False]
    traced = {}  # the frames given the trace function, by id: theirs is taken away after

    def message() -> str:
        again = (" It went on after the first stop: an `except:` or `except BaseException:` "
                 "catches the stop; catch Exception instead." if stops[0] > 1 else "")
        return (f"the check stopped after {seconds:g} s: your answer is still running (a loop "
                "that never ends, a time.sleep, or far more work than the exercise needs?)."
                f"{again} If one ever runs on, interrupt the kernel (■) to stop it.")

    def every_line(frame, event, arg):  # once armed: a stop (or ■) at each line of the answer
        if event == "line" and armed[0] and not frame.f_code.co_filename.startswith(_HERE):
            raise KeyboardInterrupt if presses[0] >= 2 else _Stopped(message())
        return every_line

    def trace_from(frame) -> None:
        sys.settrace(every_line)
        while frame is not None:
            frame.f_trace, frame.f_trace_lines = every_line, True
            traced[id(frame)] = frame
            frame = frame.f_back

    def rearm(frame, event, arg) -> None:  # profile: the trace back after it raised (never raises)
        if armed[0] and sys.gettrace() is not every_line:
            trace_from(frame)

    def arm(frame) -> None:  # at each stop and interrupt from the second on
        armed[0] = True
        trace_from(frame)
        sys.setprofile(rearm)

    def stop(signum, frame):
        if closing[0] or frame is not None and frame.f_code.co_filename.startswith(_HERE):
            return  # the checker's own code, or numpy's: the next stop lands in the answer
        stops[0] += 1
        if stops[0] >= 2:  # the first was caught: the answer's lines raise it too
            arm(frame)
        raise _Stopped(message())

    def interrupted(signum, frame):  # the kernel's interrupt (■), as Python's own handler does
        if closing[0]:  # raised once everything is given back
            pending[0] = True
            return
        presses[0] += 1
        if presses[0] >= 2:  # and the answer caught the first: at its lines too
            arm(frame)
        raise KeyboardInterrupt

    started, tracing, profiling = time.monotonic(), sys.gettrace(), sys.getprofile()
    interrupt = signal.getsignal(signal.SIGINT)
    previous = signal.getsignal(signal.SIGALRM)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set()) \
        if hasattr(signal, "pthread_sigmask") else None
    alarm = signal.getitimer(signal.ITIMER_REAL)
    try:  # an interrupt in the middle of this is given back too
        if interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupted)
        signal.signal(signal.SIGALRM, stop)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
        signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT)
        _LIMIT.on = True
        yield
    finally:
        closing[0] = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        if armed[0]:
            armed[0] = False
            sys.setprofile(profiling)
            sys.settrace(tracing)
            for frame in traced.values():  # the notebook's own frames among them: untouched after
                frame.f_trace = None
        signal.signal(signal.SIGALRM, previous)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if alarm[0] > 0:  # the notebook's own alarm, with the time it had left
            left = alarm[0] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), alarm[1])
        _LIMIT.on = False
        if interrupt is not None:
            signal.signal(signal.SIGINT, interrupt)
        if pending[0]:
            raise KeyboardInterrupt


def _undefined(exc: NameError, module) -> str:
    """A hint for a name the learner's code uses but the kernel has not defined yet."""
    name = getattr(exc, "name", None) or str(exc)
    if name in IMPORTS:  # a module the cell itself imports: after a restart, nothing else has
        return unimported(name)
    elsewhere = getattr(module, "DEFINED_ELSEWHERE", {}).get(name)
    if elsewhere:  # an answer of another notebook's, which no cell of this one defines
        return (f"your code uses {name}, which no cell of this notebook defines: it is {elsewhere}."
                " Paste it into this cell too, above the code that uses it.")
    where = getattr(module, "DEFINED_IN", {}).get(name)
    return (f"your code uses {name}, which is not defined in this kernel yet. "
            + (f"It is defined {where}: run that cell first, then this one again." if where else
               "Run the cells above this one first (or define it in this cell)."))


def _call_shape(check: Callable, module) -> Callable:
    """A hint for a check called otherwise than with its answers in order, or None."""
    name = check.__name__.lstrip("_")
    parameters = list(inspect.signature(check).parameters.values())
    spread = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    names = [("*" if p.kind is p.VAR_POSITIONAL else "") + p.name for p in parameters]
    shown = f"{(module.__name__ if module else '').rsplit('.', 1)[-1]}.{name}({', '.join(names)})"
    which = (f"your answers as its arguments, in order: {shown}" if spread else
             f"your answer as its one argument: {shown}" if len(names) == 1 else
             f"your answers as its {len(names)} arguments, in this order: {shown}")

    def hint(answers: tuple, keywords: dict) -> str | None:
        if keywords:
            got = "the keyword" + "s" * (len(keywords) > 1) + " " + ", ".join(
                f"{key}=…" for key in keywords)
        elif not spread and len(answers) != len(names):
            got = (f"{len(answers)} argument" + "s" * (len(answers) != 1)) if answers \
                else "no argument"
        else:
            return None
        return f"{name} takes {which}; got {got}."

    return hint


def _forked() -> str:
    return ("your answer started a new process (os.fork()), a copy of the kernel that would go "
            "on running the check: it was ended. Compute the answer in this process.")


def checker(what: str, *, none_is_an_answer: tuple = ()) -> Callable:
    """Make ``check(answer, …)`` return Feedback and never raise, whatever it is given.

    A placeholder answer (``...``, or None unless its argument is named in
    ``none_is_an_answer``) asks for ``what``; a call with keywords or the wrong number of answers
    shows the call to make; :class:`NotYet` becomes its hint; any other exception, raised while
    looking at an unexpected answer, is named in a hint. A function answer is :func:`guarded`;
    the check runs under its own numpy error state and within TIME_LIMIT, with the module's own
    arrays read-only and numpy's names as they were at import. Only KeyboardInterrupt passes.
    """

    def decorate(check: Callable) -> Callable:
        module = sys.modules.get(check.__module__)
        shape = _call_shape(check, module)
        names = list(inspect.signature(check).parameters)
        kept = {i for i, n in enumerate(names) if n in none_is_an_answer}

        @functools.wraps(check)
        def checked(*answers, **keywords) -> Feedback:
            wrong_call = shape(answers, keywords)
            if wrong_call:
                return Feedback(False, wrong_call)
            if any(a is ... or (a is None and i not in kept) for i, a in enumerate(answers)):
                return Feedback(False, f"replace the ... with {what}, then run the cell again.")
            pid, forks = os.getpid(), _FORKS["count"]
            undone = _restore()
            _FORKS["checking"] += 1
            try:
                feedback = _verdict(check, answers, what, module)
            finally:
                _FORKS["checking"] -= 1
                if os.getpid() != pid:  # a fork the hooks did not see: the copy ends here
                    os._exit(0)
                _restore()
                _put_back(undone)
            return Feedback(False, _forked()) if _FORKS["count"] != forks else feedback

        return checked

    return decorate


def _verdict(check: Callable, answers: tuple, what: str, module) -> Feedback:
    try:
        with np.errstate(all="ignore"), _time_limit(TIME_LIMIT):
            return Feedback(True, check(*(guarded(a) for a in answers)))
    except KeyboardInterrupt:
        raise
    except (NotYet, _Stopped) as hint:
        return Feedback(False, _text(hint))
    except SystemExit:
        return Feedback(False, "your answer called sys.exit() (or exit()), which would "
                               "end the program: give a value instead.")
    except NameError as exc:
        return Feedback(False, _undefined(exc, module))
    except BaseException as exc:  # noqa: BLE001 - an answer may fail in any way
        return Feedback(False, f"this answer could not be checked ({say(exc)}). "
                               f"The exercise asks for {what}.")


def _text(hint: BaseException) -> str:
    return hint.args[0] if hint.args and isinstance(hint.args[0], str) else say(hint)


def as_array(answer, name: str, shape: tuple | None = None, *, masked: bool = False) -> np.ndarray:
    """The answer as a finite float64 array (of ``shape`` if given; −inf allowed if ``masked``)."""
    try:
        array = numbers_array(name, answer)  # the package's own check and message
    except TypeError as exc:
        raise NotYet(str(exc)) from None
    finally:
        _restore()  # an answer's __array__ may rebind numpy's names too
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
    except (NameError, _Stopped):  # named where it is defined / the verdict already
        raise
    except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
        raise NotYet(f"{name} raised {say(exc)}") from None
    return returned(out, name)


def returned(out, name: str):
    """``out``, or NotYet when it is the placeholder ``...`` or None (a path without return)."""
    if out is ...:
        raise NotYet(f"{name} returns nothing yet: replace the ... after `return`.")
    if out is None:
        raise NotYet(f"{name} returned None: some path through it ends without `return` (a "
                     "branch of an if, or the end of the function). Return the result on every "
                     "path.")
    return out


RTOL, ATOL = 1e-5, 1e-8  # float32 answers are right: a relative tolerance, plus a tiny absolute one


def close(got, expected, *, atol: float = ATOL) -> bool:
    """True when two arrays have the same shape and agree to float32 precision.

    Equal infinities (a masked −inf) count as equal. ``atol`` is for answers near zero whose
    scale the exercise fixes.
    """
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=RTOL, atol=atol))


IMPORTS = {"np": "import numpy as np", "pa": "import posattn as pa"}  # the series' two modules


def unimported(name: str) -> str:
    """The hint for np or pa used where nothing imported it (an exercise cell run alone after a
    restart): the import to put in the cell, which then runs on its own."""
    return (f"your code uses {name}, which is not defined in this kernel yet: put "
            f"`{IMPORTS[name]}` at the top of this cell, then run it again.")

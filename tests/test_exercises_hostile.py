"""No side effect and no hostile answer changes a checker's verdict (issue 29).

Every checker is given its official answer (the names its notebook cell passes, taken from
``solutions/``), then that answer twisted the ways a real class twists them: a function that
works in place, a write into the checker's own data first, ``sys.exit()``, an exception whose
message cannot be shown, a masked array, numpy told to raise on every floating-point event,
float32 instead of float64, and an answer that never ends.
"""

import ast
import functools
import importlib
import inspect
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import posattn as pa
import posattn.exercises as exercises

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LABS = sorted((NOTEBOOKS / "labs").glob("*.ipynb"))  # the opt-in labs' checkers (issue 42)


def _official() -> list[tuple[str, object, list]]:
    """(checker id, checker, the official answers) for each checker call of an exercise cell."""
    found = []
    for path in sorted(NOTEBOOKS.glob("[01]*.ipynb")) + LABS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code" or "exercise" not in cell["metadata"].get("tags", []):
                continue
            for node in ast.walk(ast.parse("".join(cell["source"]))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr.startswith("check_")):
                    module = node.func.value.id  # nb01 …
                    check = getattr(importlib.import_module(f"posattn.exercises.{module}"),
                                    node.func.attr)
                    solutions = importlib.import_module(f"solutions.{module}_solutions")
                    answers = [getattr(solutions, a.id) for a in node.args]
                    found.append((f"{module}.{node.func.attr}", check, answers))
    return found


OFFICIAL = _official()
IDS = [name for name, _, _ in OFFICIAL]
WITH_FUNCTIONS = [case for case in OFFICIAL if any(callable(a) for a in case[2])]


def is_function(answer) -> bool:
    return callable(answer) and not isinstance(answer, type)


def test_every_checker_of_the_series_is_tried():
    modules = {name.split(".")[0] for name in IDS}
    labs = {path.stem for path in LABS}
    assert modules == {f"nb{n:02d}" for n in range(1, 12)} | labs and len(OFFICIAL) >= 33


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_the_official_answers_are_right(name, check, answers):
    feedback = check(*answers)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_the_official_answers_are_right_when_numpy_raises_on_every_floating_point_event(
        name, check, answers):
    previous = np.seterr(all="raise")
    try:
        feedback = check(*answers)
        assert np.geterr()["under"] == "raise"  # the learner's own setting, given back
    finally:
        np.seterr(**previous)
    assert feedback.ok, feedback.message


def _fits_float32(a) -> bool:
    """A float array that float32 can hold (1e300, a stable softmax's test score, it cannot)."""
    return (isinstance(a, np.ndarray) and a.dtype.kind == "f"
            and bool(np.all(np.abs(a[np.isfinite(a)]) < 1e38)))


def _float32(answer):
    """The answer computed in float32: its arrays, or its function's array arguments."""
    if is_function(answer):
        @functools.wraps(answer)  # written where the answer was: its own helpers are its own
        def in_float32(*args, **keywords):
            args = [np.asarray(a, np.float32) if _fits_float32(a) else a for a in args]
            return answer(*args, **keywords)
        return in_float32
    if _fits_float32(answer):
        return answer.astype(np.float32)
    return answer


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_the_official_answers_are_right_in_float32(name, check, answers):
    feedback = check(*map(_float32, answers))
    assert feedback.ok, feedback.message


def _in_place(f):
    """f, but it also changes its first array or list argument in place, after computing (and
    notes that it did: a function given only numbers has nothing to change)."""
    @functools.wraps(f)
    def works_in_place(*args, **keywords):
        out = f(*args, **keywords)
        first = next((a for a in (*args, *keywords.values()) if isinstance(a, (np.ndarray, list))),
                     None)
        if isinstance(first, list):
            first.append(first[0] if first else 0)
        elif first is not None:
            first[...] = ~first if first.dtype.kind == "b" else first + 1.0
        works_in_place.changed |= first is not None
        return out
    works_in_place.changed = False
    return works_in_place


@pytest.mark.parametrize(("name", "check", "answers"), WITH_FUNCTIONS,
                         ids=[c[0] for c in WITH_FUNCTIONS])
def test_an_answer_that_changes_its_input_in_place_is_told_so(name, check, answers):
    twisted = [_in_place(a) if is_function(a) else a for a in answers]
    feedback = check(*twisted)
    if not any(getattr(t, "changed", False) for t in twisted):
        assert feedback.ok, feedback.message  # given only numbers: nothing to change in place
        pytest.skip("the function is given numbers only (n, m): nothing to change in place")
    assert not feedback.ok and "in place" in feedback.message, feedback.message
    assert check(*answers).ok  # and nothing of the checker's own was changed by it


def _module_arrays(module) -> list[np.ndarray]:
    """Every array of a checker module, inside its mappings and tuples too."""
    from collections.abc import Mapping

    def inside(value):
        inner = value.values() if isinstance(value, Mapping) else \
            value if isinstance(value, (list, tuple)) else ()
        return [value] if isinstance(value, np.ndarray) else [a for v in inner for a in inside(v)]

    return [a for value in vars(module).values() for a in inside(value)]


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_a_write_into_the_checkers_data_fails_and_the_right_answer_stays_right(
        name, check, answers):
    module = sys.modules[check.__module__]
    for array in _module_arrays(module):
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    for value in vars(module).values():  # lists of the checker's own: none left to append to
        assert not (isinstance(value, list) and value and not callable(value[0])), value
    feedback = check(*answers)
    assert feedback.ok, feedback.message


def test_the_write_of_the_issue_is_refused_and_the_right_weights_stay_right():
    from posattn.exercises import nb02
    A = nb02.A
    with pytest.raises(ValueError, match="read-only"):
        A[0] = A[0][[2, 0, 1]]
    assert nb02.check_reordered_weights([0.1, 0.6, 0.3]).ok


class _Exits:
    def __array__(self, *args, **keywords):
        sys.exit()


class _Unshowable(Exception):
    def __str__(self):
        raise ValueError("no message for you")

    def __repr__(self):
        raise ValueError("no repr either")


class _RaisesUnshowable:
    def __array__(self, *args, **keywords):
        raise _Unshowable

    def __repr__(self):
        raise _Unshowable


def _exits(*args, **keywords):
    sys.exit()


def _quits(*args, **keywords):
    exit()


def _raises_unshowable(*args, **keywords):
    raise _Unshowable


def _swap(answers, i, replacement):
    return [replacement if j == i else a for j, a in enumerate(answers)]


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_sys_exit_in_an_answer_gets_not_yet_and_says_so(name, check, answers):
    for i, answer in enumerate(answers):
        if is_function(answer):  # the learner's function calls sys.exit() or exit()
            for stop in (_exits, _quits):
                feedback = check(*_swap(answers, i, stop))
                assert not feedback.ok and "sys.exit()" in feedback.message, feedback.message
        feedback = check(*_swap(answers, i, _Exits()))  # a value whose __array__ does
        assert not feedback.ok, feedback.message
        if np.asarray(answer).dtype.kind in "biuf":  # an answer that is read as numbers
            assert "sys.exit()" in feedback.message, feedback.message


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_an_exception_whose_message_cannot_be_shown_gets_not_yet(name, check, answers):
    for i, answer in enumerate(answers):
        for twisted in ((_raises_unshowable,) if is_function(answer) else ()) + \
                (_RaisesUnshowable(),):
            feedback = check(*_swap(answers, i, twisted))
            assert isinstance(feedback, exercises.Feedback) and not feedback.ok
            read_as_numbers = not is_function(answer) and np.asarray(answer).dtype.kind in "biuf"
            if is_function(twisted) or read_as_numbers:
                assert "_Unshowable" in feedback.message, feedback.message


def _masked(answer):
    """The answer as a masked array (one entry masked), or a function that returns one."""
    if is_function(answer):
        @functools.wraps(answer)
        def returns_masked(*args, **keywords):
            out = answer(*args, **keywords)
            first = out[0] if isinstance(out, tuple) else out
            masked = np.ma.array(np.asarray(first, dtype=float))
            masked[(0,) * masked.ndim] = np.ma.masked
            return (masked, *out[1:]) if isinstance(out, tuple) else masked
        return returns_masked
    masked = np.ma.array(np.asarray(answer, dtype=float))
    masked[(0,) * masked.ndim] = np.ma.masked
    return masked


@pytest.mark.parametrize(("name", "check", "answers"), OFFICIAL, ids=IDS)
def test_a_masked_array_is_refused_with_a_clear_message(name, check, answers):
    numeric = [i for i, a in enumerate(answers)
               if is_function(a) or np.asarray(a).dtype.kind in "biuf"]
    if not numeric:
        pytest.skip("no numbers are asked for (the answer is a word)")
    for i in numeric:
        feedback = check(*_swap(answers, i, _masked(answers[i])))
        assert not feedback.ok and "masked array" in feedback.message, feedback.message


def test_a_masked_array_of_the_issue_is_refused():
    from posattn.exercises import nb02
    feedback = nb02.check_reordered_weights(np.ma.array([0.1, 0.6, 0.3], mask=[0, 0, 1]))
    assert not feedback.ok and "masked array" in feedback.message


@pytest.mark.parametrize(("name", "check", "answers"), WITH_FUNCTIONS[:1] + [
    c for c in WITH_FUNCTIONS if c[0] == "nb06.check_layer_norm"], ids=lambda c: str(c)[:30])
def test_an_answer_that_never_ends_gets_not_yet_within_the_time_limit(name, check, answers,
                                                                       monkeypatch):
    monkeypatch.setattr(exercises, "TIME_LIMIT", 0.5)

    def sleeps(*args, **keywords):
        time.sleep(3)

    def loops(*args, **keywords):
        while True:
            pass

    for slow in (sleeps, loops):
        started = time.perf_counter()
        feedback = check(*[slow if is_function(a) else a for a in answers])
        assert time.perf_counter() - started < 2.0
        assert not feedback.ok and "stopped after 0.5 s" in feedback.message, feedback.message
    assert check(*answers).ok  # the timer is gone: nothing interrupts the next check


def test_keyboard_interrupt_still_stops_the_cell():
    from posattn.exercises import nb01

    def interrupted(X):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        nb01.check_mixing_equivariant(interrupted)


def test_the_public_helpers_measure_an_in_place_function_as_it_is():
    """pa.equivariance_error of an equivariant map written in place: 0, and X unchanged."""
    X = pa.embed(pa.tokenize("dog bites man"))
    kept = X.copy()

    def centred_in_place(X):
        X -= X.mean(axis=0)
        return X

    assert pa.equivariance_error(centred_in_place, X, [2, 0, 1]) < 1e-12
    assert pa.invariance_error(lambda X: X.sort(axis=0) or X, X, [2, 0, 1]) < 1e-12
    np.testing.assert_array_equal(X, kept)


# issue 39 §4: what the time limit promises (module docstring of posattn.exercises)

def _swallows_while_sleeping(*args, **keywords):
    while True:
        try:
            time.sleep(0.05)
        except:  # noqa: E722 - the learner's bare except, which catches the check's stop
            pass


def _swallows_while_computing(*args, **keywords):
    while True:
        try:
            sum(range(1000))
        except BaseException:  # noqa: BLE001, S110 - the same, written out
            pass


def _signal_state():
    import signal
    return (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT),
            signal.pthread_sigmask(signal.SIG_BLOCK, set()), sys.gettrace())


def _left_neighbour(n):
    return np.eye(n, k=-1) + np.eye(n, k=n - 1)  # row i all on i - 1 (row 0 on the last)


@pytest.mark.parametrize("slow", [_swallows_while_sleeping, _swallows_while_computing])
def test_a_stop_the_answer_catches_is_raised_again_and_nothing_of_it_stays(slow, monkeypatch):
    import signal

    from posattn.exercises import nb02
    monkeypatch.setattr(exercises, "TIME_LIMIT", 0.5)
    before = _signal_state()
    feedback = nb02.check_position_weights(slow)  # it returns: the caught stop was raised again
    assert not feedback.ok and "catches the stop" in feedback.message, feedback.message
    assert "interrupt the kernel (■)" in feedback.message
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and _signal_state() == before
    assert nb02.check_position_weights(_left_neighbour).ok  # a later verdict as it should be


def _ignores_the_alarm(n):
    import signal
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    return np.full((n, n), 1 / n)


def test_an_answer_that_ignores_blocks_or_disarms_the_alarm_changes_no_later_check(monkeypatch):
    import signal

    from posattn.exercises import nb02
    monkeypatch.setattr(exercises, "TIME_LIMIT", 0.5)
    before = _signal_state()
    assert not nb02.check_position_weights(_ignores_the_alarm).ok  # uniform weights: blind
    assert _signal_state() == before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    feedback = nb02.check_position_weights(_swallows_while_sleeping)  # stopped as before
    assert "stopped after 0.5 s" in feedback.message, feedback.message


def test_the_notebooks_own_alarm_is_given_back_with_the_time_it_had_left():
    import signal

    from posattn.exercises import nb02
    rang = []
    previous = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        assert nb02.check_y1([2.2, 2.9]).ok
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 25.0 < left <= 30.0 and not rang
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# issue 39 §4: an answer cannot change the checker's own comparisons

def _always(*args, **keywords):
    return True


@pytest.mark.parametrize(("where", "name"), [
    (np, "allclose"), (np, "isfinite"), (np, "isnan"), (np, "asarray"),
    (__import__("builtins"), "bool")])  # each one judged this wrong answer Right before
def test_numpy_rebound_in_the_notebook_does_not_make_a_wrong_answer_right(where, name,
                                                                        monkeypatch):
    from posattn.exercises import nb02
    patch = (lambda *args, **keywords: np.ones(2)) if name in ("asarray", "array") else _always
    monkeypatch.setattr(where, name, patch)
    wrong = nb02.check_y1([9.0, 9.0])
    assert getattr(where, name) is patch  # the notebook's own rebinding, given back
    monkeypatch.undo()
    assert not wrong.ok and "not y_1 yet" in wrong.message, wrong.message
    assert nb02.check_y1([2.2, 2.9]).ok


def test_the_rebinding_of_the_issue_made_inside_an_answer_is_undone():
    from posattn.exercises import nb02
    kept = np.allclose

    def rebinds(n):
        np.allclose = _always
        return np.full((n, n), 1 / n)  # uniform weights: blind to order, so Not yet

    try:
        feedback = nb02.check_position_weights(rebinds)
        assert np.allclose is kept
    finally:
        np.allclose = kept
    assert not feedback.ok and "cannot tell" in feedback.message, feedback.message


def test_an_answer_that_forks_leaves_no_process_and_gets_a_verdict():
    import os

    from posattn.exercises import nb02

    def forks(n):
        os.fork()
        return np.eye(n)

    def children() -> set:
        found = set()
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            with open(task / "children") as listed:
                found |= set(listed.read().split())
        return found

    before = children()
    feedback = nb02.check_position_weights(forks)
    assert children() == before  # none left, not even a zombie
    assert not feedback.ok and "os.fork()" in feedback.message, feedback.message
    assert nb02.check_y1([2.2, 2.9]).ok


@pytest.fixture
def kernels_interrupt():
    """SIGINT as a kernel has it, Python's own handler (the checker stops an answer through it
    and leaves any other handler alone); whatever the process had is put back after."""
    import signal
    had = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, had)


def test_the_kernels_interrupt_stops_an_answer_that_catches_it(monkeypatch, kernels_interrupt):
    """A bare except catches KeyboardInterrupt too; the second interrupt (■ ■) still stops it."""
    import os
    import signal
    import threading

    from posattn.exercises import nb02
    monkeypatch.setattr(exercises, "TIME_LIMIT", 30.0)  # the interrupt, not the limit, stops it
    before = _signal_state()
    done = threading.Event()

    def press_stop():  # ■, again and again, as a teacher would, until the check ends
        while not done.wait(0.3):
            os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_stop, daemon=True)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            nb02.check_position_weights(_swallows_while_sleeping)
    finally:
        done.set()
        presser.join()
    assert _signal_state() == before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert nb02.check_position_weights(_left_neighbour).ok


def _swallows_in_two_places(*args, **keywords):
    """A bare except in a helper and another around its call: the stop raised at the helper's
    `except:` line is caught by the caller, so one raise per stop or interrupt is not enough."""
    def nap():
        try:
            time.sleep(0.05)
        except:  # noqa: E722 - the learner's bare except
            pass
    while not _GIVE_UP.is_set():  # the test's own backstop: a check that hangs fails, not hangs
        try:
            nap()
        except:  # noqa: E722 - and another one around it
            pass


_GIVE_UP = __import__("threading").Event()


@pytest.mark.parametrize("stopped_by", ["the time limit", "the kernel's interrupt"])
def test_a_stop_caught_in_two_places_still_ends_the_check(stopped_by, monkeypatch,
                                                          kernels_interrupt):
    """From the second stop (or interrupt) on, the stop is raised at the answer's lines again
    after one of them was caught: CPython drops a trace function that raises, and the checker
    armed it once only, so the kernel's interrupt (■) no longer stopped this answer."""
    import os
    import signal
    import threading

    from posattn.exercises import nb02
    limit = 0.5 if stopped_by == "the time limit" else 30.0
    monkeypatch.setattr(exercises, "TIME_LIMIT", limit)
    before, done = _signal_state(), threading.Event()
    _GIVE_UP.clear()

    def press_stop():  # ■ every 0.3 s for the interrupt; after 10 s, the answer gives up
        started = time.monotonic()
        while not done.wait(0.3):
            if time.monotonic() - started > 10:
                _GIVE_UP.set()
            elif stopped_by != "the time limit":
                os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_stop, daemon=True)
    presser.start()
    try:
        if stopped_by == "the time limit":
            feedback = nb02.check_position_weights(_swallows_in_two_places)
            assert "catches the stop" in feedback.message, feedback.message
        else:
            with pytest.raises(KeyboardInterrupt):
                nb02.check_position_weights(_swallows_in_two_places)
    finally:
        done.set()
        presser.join()
    assert not _GIVE_UP.is_set(), "the answer ran on until it gave up by itself"
    assert _signal_state() == before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert nb02.check_position_weights(_left_neighbour).ok


# issue 40: the checkers' tables and names cannot be changed from a notebook

def _checker_modules():
    import pkgutil
    return [importlib.import_module(f"posattn.exercises.{m.name}")
            for m in pkgutil.iter_modules(exercises.__path__) if not m.name.startswith("_")]


def _mutable_inside(value, path="") -> list[str]:
    """Where a list, dict or set sits inside a checker's value (arrays are checked elsewhere)."""
    from collections.abc import Mapping
    if isinstance(value, (list, dict, set, bytearray)):
        return [path or "itself"]
    inner = value.items() if isinstance(value, Mapping) else \
        enumerate(value) if isinstance(value, tuple) else ()
    return [spot for key, item in inner for spot in _mutable_inside(item, f"{path}[{key!r}]")]


@pytest.mark.parametrize("module", _checker_modules(), ids=lambda m: m.__name__.rsplit(".")[-1])
def test_no_table_of_a_checker_can_be_changed_or_rebound(module):
    """nb01.FUNCTIONS and nb08.CASES were writable dicts, and `nb02.V = …` made 02.1's literal
    answer Not yet until a restart."""
    for name, value in list(vars(module).items()):
        if name.startswith("__") or inspect.ismodule(value):
            continue
        assert not _mutable_inside(value), (name, _mutable_inside(value))
        try:
            with pytest.raises(AttributeError, match="read-only"):
                setattr(module, name, None)
            with pytest.raises(AttributeError, match="read-only"):
                delattr(module, name)
        finally:
            vars(module)[name] = value  # put back, should the module have let it go


def test_the_tables_of_the_issue_keep_their_verdicts():
    from posattn.exercises import nb01, nb02
    centred = nb01.FUNCTIONS["centred"]
    try:
        with pytest.raises(TypeError):
            nb01.FUNCTIONS["centred"] = nb01.column_max  # "centred" would turn invariant
    finally:
        if isinstance(nb01.FUNCTIONS, dict):
            nb01.FUNCTIONS["centred"] = centred
    V = nb02.V
    try:
        with pytest.raises(AttributeError, match="read-only"):
            nb02.V = np.zeros((3, 2))
        assert nb02.check_y1([2.2, 2.9]).ok
    finally:
        vars(nb02)["V"] = V
    import solutions.nb01_solutions as solutions
    assert nb01.check_symmetries(*(getattr(solutions, n) for n in nb01.FUNCTIONS)).ok

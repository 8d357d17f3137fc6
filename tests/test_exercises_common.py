"""What every exercise checker of the series promises, whichever notebook it belongs to."""

import importlib
import inspect
import pkgutil

import pytest

import posattn.exercises as exercises

MODULES = [importlib.import_module(f"posattn.exercises.{m.name}") for m in pkgutil.iter_modules(exercises.__path__)]
CHECKERS = [(f"{module.__name__.rsplit('.', 1)[1]}.{name}", f) for module in MODULES
            for name, f in inspect.getmembers(module, inspect.isfunction)
            if name.startswith("check_") and f.__module__ == module.__name__]


def test_every_notebook_after_the_first_has_checkers():
    assert sorted({name.split(".")[0] for name, _ in CHECKERS}) == [f"nb0{i}" for i in range(1, 9)]


@pytest.mark.parametrize(("name", "check"), CHECKERS, ids=[name for name, _ in CHECKERS])
def test_an_unanswered_exercise_is_not_yet_and_says_what_is_expected(name, check):
    feedback = check(...)
    assert isinstance(feedback, exercises.Feedback) and not feedback.ok
    assert repr(feedback).startswith("❌ Not yet: ") and len(feedback.message) > 20

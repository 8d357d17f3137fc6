"""What every exercise checker of the series promises, whichever notebook it belongs to."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import posattn.exercises as exercises

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
MODULES = [importlib.import_module(f"posattn.exercises.{m.name}")
           for m in pkgutil.iter_modules(exercises.__path__) if not m.name.startswith("_")]
CHECKERS = [(f"{module.__name__.rsplit('.', 1)[1]}.{name}", f) for module in MODULES
            for name, f in inspect.getmembers(module, inspect.isfunction)
            if name.startswith("check_") and f.__module__ == module.__name__]
IDS = [name for name, _ in CHECKERS]


def _raises(*_):
    raise RuntimeError("the learner's function broke")


WRONG = {  # kinds of wrong answer a student can pass; none of them is right for any exercise
    "str": "x",
    "empty str": "",
    "bytes": b"\x00",
    "a number": -7,
    "a bool": True,
    "a huge int": 2**70,
    "nan": float("nan"),
    "inf": float("inf"),
    "complex": 1 + 2j,
    "list of NaN": [float("nan")] * 3,
    "list with inf": [float("inf")],
    "ragged": [[1.0, 2.0], [3.0]],
    "wrong shape": np.zeros((7, 5, 2)),
    "empty array": np.zeros((0,)),
    "dict": {"a": 1},
    "set": {1, 2},
    "set of fractions": {1.5},
    "object": object(),
    "a function of nothing": lambda: 1,
    "a function returning None": lambda *args: None,
    "a function returning a str": lambda *args: "x",
    "a function that raises": _raises,
    "a class": dict,
}


def test_every_notebook_after_the_door_has_checkers():
    numbers = sorted(p.name[:2] for p in NOTEBOOKS.glob("*.ipynb"))[1:]
    labs = sorted(p.stem for p in (NOTEBOOKS / "labs").glob("*.ipynb"))  # each lab's own module
    assert sorted({name.split(".")[0] for name, _ in CHECKERS}) == [f"nb{n}" for n in numbers
                                                                     ] + labs


@pytest.mark.parametrize(("name", "check"), CHECKERS, ids=IDS)
def test_an_unanswered_exercise_is_not_yet_and_says_what_is_expected(name, check):
    arity = len(inspect.signature(check).parameters)
    feedback = check(*[...] * arity)
    assert isinstance(feedback, exercises.Feedback) and not feedback.ok
    assert repr(feedback).startswith("❌ Not yet: ") and len(feedback.message) > 20


@pytest.mark.parametrize(("name", "check"), CHECKERS, ids=IDS)
def test_any_wrong_answer_gets_not_yet_with_a_hint_and_never_raises(name, check):
    arity = len(inspect.signature(check).parameters)
    for kind, answer in WRONG.items():
        feedback = check(*[answer] * arity)
        assert isinstance(feedback, exercises.Feedback), f"{name}({kind}) returned {feedback!r}"
        assert not feedback.ok, f"{name}({kind}) said Right"
        assert 10 < len(feedback.message) <= 400, f"{name}({kind}): {feedback.message!r}"


@pytest.mark.parametrize(("checker", "name"), [
    ("nb01.check_mixing_equivariant", "W"), ("nb01.check_mixing_equivariant", "X"),
    ("nb03.check_self_attention", "Q"), ("nb03.check_stable_softmax", "stable_softmax"),
    ("nb06.check_layer_norm", "layers"), ("nb06.check_set_vector", "describe"),
    ("nb06.check_set_vector", "W_in"), ("nb09.check_ceiling", "who"),
])
def test_a_name_the_kernel_has_not_defined_yet_gets_the_cell_that_defines_it(checker, name):
    """An answer run straight after the set-up cell may use a name an earlier cell defines."""
    module, function = checker.split(".")
    module = importlib.import_module(f"posattn.exercises.{module}")
    undefined = eval(f"lambda *args, **keywords: {name}")  # noqa: S307 - a name nobody defined
    feedback = getattr(module, function)(undefined)
    assert not feedback.ok and f"uses {name}, which is not defined" in feedback.message
    assert module.DEFINED_IN[name] in feedback.message, feedback.message


@pytest.mark.parametrize(("name", "check"), CHECKERS, ids=IDS)
def test_a_check_called_with_keywords_or_with_nothing_shows_the_call_to_make(name, check):
    """nb02.check_y1(y_1=[2.2, 2.9]) and nb09.check_prediction() raised a raw TypeError."""
    parameters = list(inspect.signature(check).parameters.values())
    spread = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    names = [("*" if p.kind is p.VAR_POSITIONAL else "") + p.name for p in parameters]
    shown = f"{name}({', '.join(names)})"
    calls = [((), {p.name: [1.0, 2.0] for p in parameters})]  # every answer as a keyword
    if not spread:
        calls += [((), {}), ((1.0,) * (len(parameters) + 1), {})]  # nothing, one too many
    for answers, keywords in calls:
        feedback = check(*answers, **keywords)
        assert isinstance(feedback, exercises.Feedback) and not feedback.ok
        assert shown in feedback.message and "got " in feedback.message, feedback.message
        assert name.split(".")[1] + " takes your answer" in feedback.message


def test_the_call_of_the_issue_names_the_argument_and_what_came():
    from posattn.exercises import nb02, nb09
    assert nb02.check_y1(y_1=[2.2, 2.9]).message == (
        "check_y1 takes your answer as its one argument: nb02.check_y1(y_1); "
        "got the keyword y_1=….")
    assert nb09.check_prediction().message == (
        "check_prediction takes your answers as its 2 arguments, in this order: "
        "nb09.check_prediction(scheme, prediction); got no argument.")
    assert not nb09.check_prediction(None, ...).ok  # None is an answer for scheme, ... is not


def test_every_checker_takes_its_references_from_the_module_that_defines_them():
    """nb06 imported layer_norm from the package namespace (`from .. import layer_norm`): a
    notebook's `pa.layer_norm = …` before the first import changed a verdict (issue 40)."""
    import ast
    for module in MODULES:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):  # `from .. import x` or `from posattn import x`
                namespace = (node.level == 2 and node.module is None) or \
                    (node.level == 0 and node.module == "posattn")
                assert not namespace, (module.__name__, ast.unparse(node))
            if isinstance(node, ast.Import):
                assert all(a.name != "posattn" for a in node.names), (module.__name__,
                                                                       ast.unparse(node))

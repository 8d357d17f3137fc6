"""Every exercise cell of 01–11 run alone after a kernel restart (issue 40 §3).

A student restarts the kernel and runs one exercise cell, nothing above it: the cell must answer
with one Feedback line, never a raw NameError. Each cell is run three ways in one real kernel,
each time in a clean namespace:

* as shipped, with its placeholders: it must print what it printed in the notebook's own run;
* answered as tests/answers.py answers it (each placeholder replaced by an import from
  ``solutions/``): it must say Right;
* typed: each placeholder replaced by the solution's own lines, as a student types them, with the
  solution module's helpers it uses (`W_in = …`), but neither its imports of numpy and posattn
  nor the names an earlier cell of the notebook defines (the checker module's DEFINED_IN): the
  cell must import what its own lines use, and a name its functions take from elsewhere gets a
  Not yet that says where that name comes from: the import to add (added, the cell runs again)
  or the cell that defines it.

The clean namespace is IPython's ``%reset -f``, about a second a run faster than a restart; the
tests after the main one show that, for this purpose, it is a restart: the same names are left,
and a sample of the runs prints the same after a real restart.
"""

import ast
import builtins
import importlib
import inspect
import json
import os
import re
import symtable

import pytest
from jupyter_client.manager import start_new_kernel

from tests.answers import ROOT, SOLUTIONS_ON_PATH, answered, is_exercise, placeholders

NOTEBOOKS = ROOT / "notebooks"
CELLS = {f"{path.name[:2]}.{number}": cell for path in sorted(NOTEBOOKS.glob("*.ipynb"))
         for number, cell in enumerate(
             (c for c in json.loads(path.read_text("utf-8"))["cells"] if is_exercise(c)), 1)}
IMPORTED = {"np": "import numpy as np", "pa": "import posattn as pa"}  # never typed in for a cell


# --- a typed answer: the solution's own lines in the cell ---------------------------------------

def _statements(module: str) -> tuple[str, dict]:
    """The source of solutions/<module>.py and, for each name it binds at top level, the
    statement that binds it."""
    source = (ROOT / "solutions" / f"{module}.py").read_text("utf-8")
    binds = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            binds[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update({(a.asname or a.name).split(".")[0]: node for a in node.names})
        elif isinstance(node, ast.Assign):
            binds.update({n.id: node for t in node.targets for n in ast.walk(t)
                          if isinstance(n, ast.Name)})
    return source, binds


def _free_names(code: str) -> tuple[set, set]:
    """The names ``code`` reads but does not bind: (at top level, inside its functions)."""
    table = symtable.symtable(code, "<cell>", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    top = {s.get_name() for s in table.get_symbols() if s.is_referenced()} - bound
    inner, tables = set(), list(table.get_children())
    while tables:
        child = tables.pop()
        inner |= {s.get_name() for s in child.get_symbols() if s.is_global()}
        tables += child.get_children()
    return top - set(dir(builtins)), inner - bound - set(dir(builtins))


def _lines(module: str, name: str, defined_in: dict, have: set) -> list[str]:
    """The solution's statement that binds ``name``, after those of the helpers it needs (not
    numpy or posattn, not a name the notebook or the cell already has)."""
    source, binds = _statements(module)
    node = binds[name]
    if isinstance(node, ast.ImportFrom) and node.module.startswith("solutions."):
        return _lines(node.module.split(".", 1)[1], name, defined_in, have)  # pasted from there
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    text = "\n".join(source.splitlines()[first - 1:node.end_lineno])
    lines = []
    for need in sorted(set().union(*_free_names(text)) - have - set(defined_in) - set(IMPORTED)):
        if need in binds and need != name:
            lines += _lines(module, need, defined_in, have)
            have = have | {need}
    return list(dict.fromkeys([*lines, text]))  # a statement that binds two names, once


def typed(code: str, number: str) -> str:
    """``code`` with each placeholder replaced by the solution's lines that define it."""
    defined_in = DEFINED_IN(number)
    lines, holes = code.splitlines(), placeholders(code)
    have = {name for name, *_ in holes} | {
        s.get_name() for s in symtable.symtable(code, "<cell>", "exec").get_symbols()
        if s.is_assigned() or s.is_imported()}
    for name, first, last in reversed(holes):
        lines[first - 1:last] = _lines(f"nb{number}_solutions", name, defined_in, have)
    return "\n".join(lines)


# --- one kernel, a clean namespace before each run ----------------------------------------------

@pytest.fixture(scope="module")
def kernel():
    env = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(NOTEBOOKS), env=env,
                                       startup_timeout=120)
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client, code: str) -> tuple[str, list]:
    """Run code as a cell; its reply's status and its outputs as (kind, text)."""
    outputs = []

    def keep(message):
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            outputs.append((content["name"], content["text"]))
        elif kind == "error":
            outputs.append(("error", f"{content['ename']}: {content['evalue']}"))
        elif kind in ("execute_result", "display_data"):
            outputs.append((kind, content["data"].get("text/plain", "")))

    reply = client.execute_interactive(code, output_hook=keep, timeout=60)
    return reply["content"]["status"], outputs


def clean(manager, client, restart: bool = False) -> None:
    """A namespace as after a restart: a real one, or %reset -f."""
    if restart:
        manager.restart_kernel(now=True)
        client.wait_for_ready(timeout=60)
    else:
        assert execute(client, "%reset -f") == ("ok", [])
    execute(client, f"{SOLUTIONS_ON_PATH}\ndel sys")  # answered cells import from solutions/


def alone(kernel, code: str, restart: bool = False) -> str:
    """The one line a cell prints when it runs alone in a clean namespace (or what went wrong)."""
    clean(*kernel, restart)
    status, outputs = execute(kernel[1], code)
    if status != "ok" or [kind for kind, _ in outputs] != ["execute_result"]:
        return f"{status}: {outputs}"
    return outputs[0][1]


def stored(cell: dict) -> str:
    return "".join("".join(o["data"]["text/plain"]) for o in cell["outputs"]
                   if o["output_type"] == "execute_result")


def DEFINED_IN(number: str) -> dict:  # noqa: N802 - the checker module's own table
    return getattr(importlib.import_module(f"posattn.exercises.nb{number}"), "DEFINED_IN", {})


def where(number: str, name: str) -> str:
    """Where the hint for a missing ``name`` must send the student."""
    return IMPORTED.get(name) or DEFINED_IN(number)[name]


def test_every_checker_has_its_exercise_cell_here():
    """The cells tried are the series' exercise cells, one for each checker of 01–11."""
    called = sorted(re.search(r"nb\d\d\.check_\w+", "".join(c["source"]))[0]
                    for c in CELLS.values())
    checkers = sorted(f"{m.__name__.rsplit('.', 1)[1]}.{name}" for m in (
        importlib.import_module(f"posattn.exercises.nb{n:02d}") for n in range(1, 12))
        for name, f in vars(m).items()
        if name.startswith("check_") and f.__module__ == m.__name__)
    assert called == checkers and len(called) == 33, called


@pytest.mark.parametrize("exercise", CELLS)
def test_an_exercise_cell_run_alone_after_a_restart_answers_with_one_feedback_line(kernel,
                                                                                   exercise):
    number, code = exercise[:2], "".join(CELLS[exercise]["source"])
    shipped = alone(kernel, code)
    assert shipped == stored(CELLS[exercise]), f"{exercise} as shipped: {shipped}"
    said = alone(kernel, answered(code, f"solutions.nb{number}_solutions"))
    assert said.startswith("✅ Right"), f"{exercise} answered from solutions/: {said}"
    student = typed(code, number)
    while True:  # the student follows each hint to add an import; an earlier cell ends the run
        said = alone(kernel, student)
        missing = _free_names(student)[1] & (IMPORTED.keys() | set(DEFINED_IN(number)))
        if not missing:
            assert said.startswith("✅ Right"), f"{exercise} typed:\n{student}\n{said}"
            return
        named = re.match(r"❌ Not yet: your code uses (\w+), which is not defined", said)
        assert named and named[1] in missing, f"{exercise} typed:\n{student}\n{said}"
        assert where(number, named[1]) in said, f"{exercise} typed: {said}"
        if named[1] not in IMPORTED:
            return  # "It is defined in …: run that cell first"
        student = f"{IMPORTED[named[1]]}\n{student}"


NAMES = ("sorted(k for k in get_ipython().user_ns "
         "if not __import__('re').fullmatch(r'_(i+|i?\\d+|)', k))")  # history entries aside


def names(client) -> list:
    """The names in the kernel's namespace, read without binding one."""
    reply = client.execute_interactive("", user_expressions={"names": NAMES}, timeout=60)
    return ast.literal_eval(reply["content"]["user_expressions"]["names"]["data"]["text/plain"])


def test_reset_leaves_the_names_a_restarted_kernel_has_but_dunders_no_cell_reads(kernel):
    """What decides a NameError is the namespace: after a notebook's set-up and an answered
    exercise, %reset -f leaves the names a restarted kernel has, and nothing else, but for a few
    dunders (__doc__, __spec__, the output history __ and ___), which no exercise cell reads."""
    manager, client = kernel
    clean(manager, client, restart=True)
    fresh = names(client)
    setup = next("".join(c["source"]) for c in json.loads(
        (NOTEBOOKS / "06_the_whole_transformer.ipynb").read_text("utf-8"))["cells"]
        if c["cell_type"] == "code")
    for code in (setup, answered("".join(CELLS["06.3"]["source"]), "solutions.nb06_solutions")):
        assert execute(client, code)[0] == "ok"
    assert {"np", "pa", "plt", "rng", "set_vector", "nb06"} <= set(names(client))
    clean(manager, client)
    left = names(client)
    assert set(left) <= set(fresh) and all(n.startswith("__") for n in set(fresh) - set(left))
    read = set().union(*(_free_names(form)[0] | _free_names(form)[1] for exercise, cell in
                         CELLS.items() for code in ["".join(cell["source"])]
                         for form in (code, typed(code, exercise[:2]))))
    assert not {n for n in read if n.startswith("__")}, read


@pytest.mark.parametrize(("exercise", "form"), [("03.3", "shipped"), ("06.3", "typed"),
                                                ("08.4", "typed")])
def test_a_run_after_reset_prints_what_it_prints_after_a_real_restart(kernel, exercise, form):
    code = "".join(CELLS[exercise]["source"])
    code = typed(code, exercise[:2]) if form == "typed" else code
    assert alone(kernel, code, restart=True) == alone(kernel, code)


def _checks_of_functions() -> list[str]:
    """The checks whose exercise cell asks for a function (a `def` holding a placeholder)."""
    found = []
    for exercise, cell in CELLS.items():
        code = "".join(cell["source"])
        if any(isinstance(node, ast.FunctionDef) and node.name in {n for n, *_ in
                                                                    placeholders(code)}
               for node in ast.parse(code).body):
            found.append((exercise, re.search(r"nb\d\d\.check_\w+", code)[0]))
    return found


@pytest.mark.parametrize(("exercise", "check"), _checks_of_functions())
@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_a_function_that_uses_np_or_pa_unimported_is_told_the_import(exercise, check, name):
    """The checker's shared hint: in a cell run alone, np and pa exist only if the cell imports
    them (10.2's checker named it "raised NameError", the others "run the cells above")."""
    module, function = check.split(".")
    checker = getattr(importlib.import_module(f"posattn.exercises.{module}"), function)
    unimported = eval(f"lambda *args, **keywords: {name}.zeros(3)", {})  # noqa: S307
    arity = len(inspect.signature(checker).parameters)
    feedback = checker(*[unimported] * arity)
    assert not feedback.ok and feedback.message == (
        f"your code uses {name}, which is not defined in this kernel yet: put `{IMPORTED[name]}` "
        "at the top of this cell, then run it again."), (exercise, feedback.message)

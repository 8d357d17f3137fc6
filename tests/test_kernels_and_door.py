"""Kernels and the door: the math reads like the paper, and input is checked once (issue 20).

Each math module holds kernels (private functions that are only the equation) and public
functions that check their arguments through ``_checks`` (or the module's own ``_check_*``
helpers, which use it) and then call kernels. The rules, read from the source:

1. no function in a math module calls a public function of the package: internal hops go
   kernel to kernel, so nothing is checked twice;
2. a kernel calls no check and raises nothing: no check hides the math;
3. every public function reaches a kernel (directly or through its module's checks).
"""

import ast
import inspect
from pathlib import Path

import pytest

import posattn as pa
from posattn import _checks, testing

PACKAGE = Path(pa.__file__).parent
MATH = ("attention", "positions", "rope", "scaling", "schemes", "transformer", "permutations",
        "embeddings", "baselines", "testing")
PUBLIC = {name for module in (pa, testing) for name in module.__all__
          if inspect.isfunction(getattr(module, name))}  # posattn.testing: imported on its own
DOOR = {name for name, f in vars(_checks).items() if inspect.isfunction(f)}
# not checks: a kernel may read a constant out of autograd's box (raw), and a message helper
# write what came, bounded (shown)
LOOKS_INSIDE = {"raw", "shown"}


def _functions(module: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _called(function: ast.FunctionDef) -> set[str]:
    """The bare names this function calls: the package's functions are imported by name."""
    return {node.func.id for node in ast.walk(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


FUNCTIONS = {module: _functions(module) for module in MATH}
KERNELS = {(module, name): f for module, fs in FUNCTIONS.items() for name, f in fs.items()
           if name.startswith("_") and not name.startswith("_check")}
# a scheme's forward and backward (its methods but its doors, check and check_trained) are
# kernels too
KERNELS |= {("schemes", f"{c.name}.{f.name}"): f
            for c in ast.parse((PACKAGE / "schemes.py").read_text(encoding="utf-8")).body
            if isinstance(c, ast.ClassDef) for f in c.body
            if isinstance(f, ast.FunctionDef) and not f.name.startswith("check")}
CHECKS = {name for fs in FUNCTIONS.values() for name in fs if name.startswith("_check")} | DOOR
ALL_KERNELS = {name for _, name in KERNELS}
PUBLIC_DEFS = {(module, name): f for module, fs in FUNCTIONS.items() for name, f in fs.items()
               if not name.startswith("_")}


def _ids(items):
    return [f"{module}.{name}" for module, name in items]


def test_every_public_function_of_the_package_is_defined_in_a_math_module():
    assert {name for _, name in PUBLIC_DEFS} == PUBLIC


@pytest.mark.parametrize(("where", "function"), list({**KERNELS, **PUBLIC_DEFS}.items()),
                         ids=_ids({**KERNELS, **PUBLIC_DEFS}))
def test_no_function_calls_a_public_function_so_nothing_is_checked_twice(where, function):
    assert not _called(function) & PUBLIC, f"{where} calls {sorted(_called(function) & PUBLIC)}"


@pytest.mark.parametrize(("where", "kernel"), list(KERNELS.items()), ids=_ids(KERNELS))
def test_kernels_are_only_the_equation_no_check_and_no_raise(where, kernel):
    checks = _called(kernel) & (CHECKS - LOOKS_INSIDE)
    assert not checks, f"kernel {where} calls the checks {sorted(checks)}"
    assert not any(isinstance(node, ast.Raise) for node in ast.walk(kernel)), where


@pytest.mark.parametrize(("where", "function"), list(PUBLIC_DEFS.items()), ids=_ids(PUBLIC_DEFS))
def test_every_public_function_checks_its_arguments_and_calls_a_kernel(where, function):
    module = where[0]
    helpers = {name: f for name, f in FUNCTIONS[module].items() if name.startswith("_check")}
    reached = _called(function) | set().union(*(_called(helpers[name]) for name in
                                                _called(function) & set(helpers)))
    assert reached & ALL_KERNELS, f"{where} calls no kernel"
    assert reached & CHECKS or _raises(function), f"{where} checks nothing"


def _raises(function: ast.FunctionDef) -> bool:
    return any(isinstance(node, ast.Raise) for node in ast.walk(function))


@pytest.mark.parametrize("module", ["attention", "positions", "rope", "schemes", "transformer"])
def test_the_equations_come_first_in_the_modules_students_read(module):
    """Top-down: every kernel is defined before the first public function."""
    order = list(FUNCTIONS[module])
    first_public = min(i for i, name in enumerate(order) if not name.startswith("_"))
    late = [name for name in order[first_public:] if (module, name) in KERNELS]
    assert not late, f"{module}: kernels after the public functions: {late}"


@pytest.mark.parametrize(("where", "kernel"), list(KERNELS.items()), ids=_ids(KERNELS))
def test_kernels_are_short(where, kernel):
    body = kernel.body[1:] if ast.get_docstring(kernel) else kernel.body
    lines = body[-1].end_lineno - body[0].lineno + 1
    assert lines <= 15, f"{where} has {lines} lines of code"


# ---- the same door for training (experiments) and figures (plotting) ------------------------

EXPERIMENTS = ("__init__", "tasks", "model", "backward", "training", "probes", "checks")
OUTER = (*(f"experiments/{name}" for name in EXPERIMENTS), "plotting")
OUTER_FUNCTIONS = {module: _functions(module) for module in OUTER}
OUTER_PUBLIC = {name for fs in OUTER_FUNCTIONS.values() for name in fs if not name.startswith("_")}
OUTER_DEFS = {(module, name): f for module, fs in OUTER_FUNCTIONS.items() for name, f in fs.items()}
OUTER_CHECKS = CHECKS | {name for fs in OUTER_FUNCTIONS.values() for name in fs
                         if name.startswith("_check")}
OUTER_KERNELS = {where: f for where, f in OUTER_DEFS.items()
                 if where[1].startswith("_") and not where[1].startswith("_check")}


@pytest.mark.parametrize(("where", "function"), list(OUTER_DEFS.items()), ids=_ids(OUTER_DEFS))
def test_training_and_figures_call_no_public_function_so_nothing_is_checked_twice(where,
                                                                                   function):
    public = _called(function) & (PUBLIC | OUTER_PUBLIC)
    assert not public, f"{where} calls {sorted(public)}"


@pytest.mark.parametrize(("where", "function"),
                         [(w, f) for w, f in OUTER_DEFS.items() if not w[1].startswith("_")],
                         ids=_ids([w for w in OUTER_DEFS if not w[1].startswith("_")]))
def test_every_public_function_of_training_and_figures_checks_its_arguments(where, function):
    assert where[0] in ("experiments/__init__", "plotting")  # the experiments' door is __init__
    a = function.args
    if not (a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg):
        return  # nothing comes in (ex.setup_grid() reads the stored grid): nothing to check
    assert _called(function) & OUTER_CHECKS, f"{where} checks nothing"


@pytest.mark.parametrize(("where", "kernel"), list(OUTER_KERNELS.items()),
                         ids=_ids(OUTER_KERNELS))
def test_training_and_drawing_kernels_call_no_check(where, kernel):
    """(Training may still stop with FloatingPointError when a recipe diverges: not a check.)"""
    checks = _called(kernel) & (OUTER_CHECKS - LOOKS_INSIDE)
    assert not checks, f"kernel {where} calls the checks {sorted(checks)}"
    if where[0] == "plotting":
        assert not any(isinstance(node, ast.Raise) for node in ast.walk(kernel)), where

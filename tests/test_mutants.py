"""The mutation check's list (tools/run/mutants.py), checked without running nbval: every mutant
applies to today's package, names notebooks that use the module it breaks, and together they
cover every formula the notebooks teach (`make mutants` runs them)."""

import inspect
import json
import re
from importlib import import_module
from pathlib import Path

import nbformat
import pytest

import posattn as pa
from tools.run import mutants as tm

SRC = Path(tm.SRC) / "posattn"
MATH = ("attention", "baselines", "embeddings", "permutations", "positions", "rope", "schemes",
        "transformer", "experiments")  # the modules a notebook calls for its evidence


def _defined(module) -> set[str]:
    """The public names a module defines: its functions and classes, and its CONSTANTS."""
    return {name for name, value in vars(module).items()
            if not name.startswith("_") and not inspect.ismodule(value)
            and (getattr(value, "__module__", None) == module.__name__ if callable(value)
                 else name.isupper())}


def _imports(user: str, module: str) -> bool:
    """Whether posattn.<user> (a module or the experiments package) imports from module."""
    files = sorted((SRC / user).glob("*.py")) if (SRC / user).is_dir() else [SRC / f"{user}.py"]
    pattern = re.compile(rf"^from \.+{module} import", re.MULTILINE)
    return any(pattern.search(f.read_text("utf-8")) for f in files)


def users(file: str) -> set[str]:
    """Names that run the code of src/posattn/<file>: its own, and those of the math modules that
    import from it."""
    module = file.removesuffix(".py")
    names = _defined(import_module(f"posattn.{module}"))
    for user in MATH:
        if user != module and _imports(user, module):
            names |= _defined(import_module(f"posattn.{user}"))
    return names


def called(number: str) -> set[str]:
    """The names a notebook's code takes from posattn: pa.NAME, ex.NAME, from posattn import."""
    cells = json.loads(tm.notebook(number).read_text("utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    names = set(re.findall(r"\b(?:pa|ex)\.(\w+)", code))
    for imported in re.findall(r"^from posattn[\w.]* import (.+)$", code, re.MULTILINE):
        names |= {part.split(" as ")[0].strip() for part in imported.split(",")}
    return names


@pytest.mark.parametrize("mutant", tm.MUTANTS, ids=[m.name for m in tm.MUTANTS])
def test_each_mutant_changes_one_line_of_todays_package(mutant):
    text = (SRC / mutant.file).read_text("utf-8")
    assert text.count(mutant.original) == 1, mutant
    assert mutant.replacement != mutant.original
    changed = tm.mutated(mutant, text)
    assert changed != text and len(changed.splitlines()) == len(text.splitlines())
    compile(changed, mutant.file, "exec")  # a mutant that cannot import says nothing


@pytest.mark.parametrize("mutant", tm.MUTANTS, ids=[m.name for m in tm.MUTANTS])
def test_each_mutant_names_notebooks_that_call_its_module(mutant):
    assert mutant.notebooks and len(set(mutant.notebooks)) == len(mutant.notebooks)
    assert mutant.reason and "\n" not in mutant.reason
    for number in mutant.notebooks:
        assert called(number) & users(mutant.file), (mutant.name, number)


def test_the_notebook_check_can_fail():
    """Notebook 02 computes Y = A V with numpy alone: it calls nothing of the schemes."""
    assert not called("02") & users("positions.py")
    assert "attention_with_positions" in called("08") & users("schemes.py")
    assert "encoder" in users("attention.py")  # transformer.py builds on attention's kernels


def test_every_formula_a_notebook_teaches_has_a_mutant():
    covered = {m.formula for m in tm.MUTANTS}
    assert covered == set(tm.FORMULAS)
    assert set(pa.SCHEMES) <= covered  # a new scheme needs a mutant of its own
    by_file = {m.file for m in tm.MUTANTS}
    assert {"attention.py", "positions.py", "rope.py", "transformer.py", "permutations.py",
            "baselines.py"} <= by_file


def test_names_are_unique_and_make_folder_names():
    names = [m.name for m in tm.MUTANTS]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[\w-]+", name) for name in names), names
    assert 20 <= len(names) <= 34


def test_a_line_found_other_than_once_is_an_error():
    mutant = tm.Mutant("m", "rope.py", "x = 1", "x = 2", "a reason", "rope", ("08",))
    assert tm.mutated(mutant, "y = 0\nx = 1\n") == "y = 0\nx = 2\n"
    for text in ("y = 0\n", "x = 1\nx = 1\n"):
        with pytest.raises(tm.MutantError, match="exactly once; found it [02] times"):
            tm.mutated(mutant, text)


def test_the_copy_is_mutated_and_the_package_is_not(tmp_path):
    mutant = tm.MUTANTS[0]
    before = (SRC / mutant.file).read_text("utf-8")
    target = tm.copy_with(mutant, tmp_path)
    assert target == tmp_path / "src" / "posattn" / mutant.file
    assert mutant.replacement in target.read_text("utf-8")
    assert (SRC / mutant.file).read_text("utf-8") == before
    assert not list((tmp_path / "src").rglob("__pycache__"))


def test_the_probe_is_a_notebook_that_expects_the_copy(tmp_path):
    path = tm.probe(tmp_path / "probe.ipynb", "posattn.rope", "/copy/src/posattn/rope.py")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    (cell,) = nb.cells
    assert "import_module('posattn.rope')" in cell.source  # posattn.rope is also a function
    assert cell.outputs[0].text == "/copy/src/posattn/rope.py\n"


def test_unknown_mutants_are_refused_by_name():
    with pytest.raises(SystemExit, match="mutants must be among: scores-Q-Qt, .*got 'nope'"):
        tm.selected(["nope"])
    assert tm.selected([tm.MUTANTS[1].name]) == [tm.MUTANTS[1]]

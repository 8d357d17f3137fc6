"""The repository's layout holds (issue 41 §3): nothing outside tests/ imports from tests/, and
tools/ is sorted into folders, each saying at its top what it is for."""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE_TESTS = ["src", "tools", "benchmarks", "solutions", "notebooks"]


def imports_tests(source: str) -> list[str]:
    """The import statements of source that import the tests package or a module in it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [ast.unparse(node) for name in names if name.split(".")[0] == "tests"]
    return found


def code_of(path: Path) -> str:
    """A module's source, or a notebook's code cells (IPython's magics left out)."""
    if path.suffix == ".py":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join(line for cell in cells if cell["cell_type"] == "code"
                     for line in "".join(cell["source"]).splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def test_the_import_check_finds_each_way_to_import_tests():
    source = ("import tests\nimport os, tests.launchers\nfrom tests.browser import jlab\n"
              "from tests import answers as a\nfrom .tests import x\nimport testsuite\n")
    assert imports_tests(source) == ["import tests", "import os, tests.launchers",
                                     "from tests.browser import jlab",
                                     "from tests import answers as a"]


def test_nothing_outside_tests_imports_from_tests():
    files = [path for folder in OUTSIDE_TESTS for pattern in ("*.py", "*.ipynb")
             for path in (ROOT / folder).rglob(pattern) if ".ipynb_checkpoints" not in path.parts]
    files += sorted(ROOT.glob("*.py"))
    assert len(files) > 50  # the walk found the repository
    found = {str(path.relative_to(ROOT)): imports_tests(code_of(path)) for path in files}
    assert {path: lines for path, lines in found.items() if lines} == {}, (
        "tests/ is for the tests alone: move what these need into tools/ (or the package) and "
        "import it from there")


def tool_folders() -> list[Path]:
    return sorted(path for path in (ROOT / "tools").iterdir()
                  if path.is_dir() and path.name != "__pycache__")


def test_tools_holds_only_its_folders():
    loose = sorted(path.name for path in (ROOT / "tools").iterdir()
                   if path.is_file() and path.name != "__init__.py")
    assert loose == [], f"tools/ must hold only its folders (publish, serve, run); got {loose}"
    assert [path.name for path in tool_folders()] == ["publish", "run", "serve"]


@pytest.mark.parametrize("folder", tool_folders(), ids=lambda path: path.name)
def test_each_tools_folder_says_what_it_is_for(folder):
    init, readme = folder / "__init__.py", folder / "README.md"
    if init.is_file():
        said = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    else:
        said = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    assert said.strip(), (f"tools/{folder.name}/ must say at its top what it is for: a docstring "
                          "in its __init__.py (or a README.md); got none")
    assert "make " in said, (f"tools/{folder.name}/'s opening must name who uses it (the make "
                             f"commands that run it); got {said.splitlines()[0]!r}")

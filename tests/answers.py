"""A notebook's exercises, answered from ``solutions/`` as a student would answer them.

An exercise cell (tagged ``exercise``) leaves each answer as a placeholder: a line ``name = ...``
or a function ``def name(…)`` whose body still holds ``...``. The solutions module of the
notebook, ``solutions/nbNN_solutions.py``, defines the same names.
"""

import ast
import json
from pathlib import Path

EXERCISE = "exercise"


def _holds_placeholder(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and n.value is Ellipsis for n in ast.walk(node))


def placeholders(code: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of each answer left as a placeholder in an exercise cell."""
    found = []
    for node in ast.parse(code).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis):
            found.append((node.targets[0].id, node.lineno, node.end_lineno))
        elif isinstance(node, ast.FunctionDef) and _holds_placeholder(node):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.append((node.name, first, node.end_lineno))
    return found


def answered(code: str, module: str) -> str:
    """``code`` with each placeholder replaced by the same name imported from ``module``."""
    lines = code.splitlines()
    for name, first, last in reversed(placeholders(code)):
        lines[first - 1:last] = [f"from {module} import {name}"]
    return "\n".join(lines)


def is_exercise(cell: dict) -> bool:
    return cell["cell_type"] == "code" and EXERCISE in cell["metadata"].get("tags", [])


# --- the answered exercises, run inside nbval's own run of each notebook -----------------------
#
# Each exercise cell of a notebook collected by nbval is followed, in the same kernel, by its
# answered copy: nbval runs the notebook once, checking its stored outputs and the unanswered
# exercises as before, and each answered copy must say "✅ Right" (never "Not yet").

ROOT = Path(__file__).resolve().parent.parent
WITH_EXERCISES = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
                  if any(is_exercise(c) for c in json.loads(p.read_text("utf-8"))["cells"])]
SOLUTIONS_ON_PATH = (f"import sys\nif {str(ROOT)!r} not in sys.path:\n"
                     f"    sys.path.append({str(ROOT)!r})")  # the kernel runs in notebooks/


def answered_items(session, items: list) -> list:
    """items with an answered copy after each nbval exercise cell (tests/conftest.py). When
    tests/test_answered_notebooks.py is collected without the notebooks (`pytest tests`), the
    notebooks with exercises are collected here, so the answers are still checked."""
    if not session.config.getoption("nbval", False):
        return items
    from nbval.plugin import IPyNbCell, IPyNbFile

    answered_class = _answered_cell_class(IPyNbCell)
    if any(item.path.name == "test_answered_notebooks.py" for item in items) and not any(
            isinstance(item, IPyNbCell) for item in items):
        for path in WITH_EXERCISES:
            items = [*items, *IPyNbFile.from_parent(session, path=path).collect()]
    out = []
    for item in items:
        out.append(item)
        if isinstance(item, IPyNbCell) and not isinstance(item, answered_class) \
                and is_exercise(item.cell):
            module = f"solutions.nb{item.path.name[:2]}_solutions"
            cell = item.cell.copy()
            cell.source, cell.outputs = answered(item.cell.source, module), []
            out.append(answered_class.from_parent(item.parent, name=f"{item.name} answered",
                                                  cell_num=item.cell_num, cell=cell,
                                                  options=item.options))
    return out


def _answered_cell_class(base):
    class AnsweredCell(base):
        """An exercise cell answered from solutions/: it must say Right."""

        def runtest(self):
            kernel = self.parent.kernel
            kernel.await_reply(kernel.kc.execute(SOLUTIONS_ON_PATH, silent=True), timeout=60)
            super().runtest()
            said = " ".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", ""))
                            for o in self.test_outputs)
            if "✅ Right" not in said or "Not yet" in said:
                self.raise_cell_error("the answered exercise did not say Right", said)

    return AnsweredCell

"""A notebook's exercises, answered from ``solutions/`` as a student would answer them.

An exercise cell (tagged ``exercise``) leaves each answer as a placeholder: a line ``name = ...``
or a function ``def name(…)`` whose body still holds ``...``. The solutions module of the
notebook, ``solutions/nbNN_solutions.py``, defines the same names.
"""

import ast

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

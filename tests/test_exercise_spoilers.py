"""No presenter note gives an exercise away where a student still working on it reads (issue 40 §4).

In JupyterLab a presenter note is on the page like any other cell; in a lecture it is said
aloud. A note that gives an exercise away therefore comes after the exercise's checker cell
(after the lecture's part, which stops at the summary), and holds what gives it away folded, in
a ``<details>`` block a student opens only on purpose. (A cell's ``jupyter.source_hidden`` would
not do: JupyterLab unfolds a markdown cell whenever it is run, Run All included.)

A note gives an exercise away when it shares two or more word triples with the exercise's
solution: the comments and docstrings of its answer's block in ``solutions/``, less the triples
the notebook already shows students (its markdown and code outside the notes).
"""

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from tests.answers import is_exercise, placeholders

ROOT = Path(__file__).resolve().parent.parent
def solutions_of(path: Path) -> str:
    """The solutions module of a notebook (nbNN_solutions) or of a lab (NAME_solutions)."""
    lab = path.parent.name == "labs"
    return f"{path.stem}_solutions" if lab else f"nb{path.name[:2]}_solutions"


NOTEBOOKS = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb")) +
             sorted((ROOT / "notebooks" / "labs").glob("*.ipynb"))  # the opt-in labs too
             if (ROOT / "solutions" / f"{solutions_of(p)}.py").exists()]
SHARED = 2  # word triples a note shares with a solution before it gives the answer away


def triples(text: str) -> set:
    words = re.findall(r"[a-z0-9_]+", text.lower())
    return set(zip(words, words[1:], words[2:], strict=False))


def explanations(module: str) -> dict[str, str]:
    """For each name the solutions ``module`` (nb10_solutions, say) defines: the prose of its
    block (the comments from the statement before it on, and its docstrings)."""
    source = (ROOT / "solutions" / f"{module}.py").read_text("utf-8")
    lines, start, found = source.splitlines(), 0, {}
    for node in ast.parse(source).body:
        block = "\n".join(lines[start:node.end_lineno])
        start = node.end_lineno
        prose = [t.string.lstrip("#") for t in tokenize.generate_tokens(io.StringIO(block).readline)
                 if t.type == tokenize.COMMENT]
        prose += [ast.get_docstring(n) or "" for n in ast.walk(node)
                  if isinstance(n, ast.FunctionDef)]
        names = [node.name] if isinstance(node, ast.FunctionDef) else [
            n.id for t in getattr(node, "targets", []) for n in ast.walk(t)
            if isinstance(n, ast.Name)]
        found.update(dict.fromkeys(names, " ".join(prose)))
    return found


def unfolded(text: str) -> str:
    """A note's text as a student sees it: its <details> blocks folded away."""
    return re.sub(r"<details>.*?</details>", " ", text, flags=re.S)


def is_note(cell: dict) -> bool:
    return cell["metadata"].get("slideshow", {}).get("slide_type") == "notes"


def answers(path: Path) -> list[tuple[int, set]]:
    """For each exercise of the notebook at ``path``: its checker cell, and the triples of its
    solution's explanation that the notebook does not show students anyway."""
    cells = json.loads(path.read_text("utf-8"))["cells"]
    shown = set().union(*(triples("".join(c["source"])) for c in cells if not is_note(c)))
    solved = explanations(solutions_of(path))
    return [(at, set().union(*(triples(solved.get(name, "")) for name, *_ in
                               placeholders("".join(cell["source"])))) - shown)
            for at, cell in enumerate(cells) if is_exercise(cell)]


def giveaways(path: Path) -> list[tuple[int, int, int, set]]:
    """(note's cell, checker's cell, exercise's number, the triples they share) for each note
    that gives an exercise of the notebook at ``path`` away."""
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return [(i, at, number, common) for number, (at, answer) in enumerate(answers(path), 1)
            for i, note in enumerate(cells)
            if is_note(note) and len(common := triples("".join(note["source"])) & answer) >= SHARED]


def test_the_measure_tells_a_note_that_says_the_answer_from_one_that_asks():
    """10's exercise 1: the note of issue 40 gives it away; its cue to argue, and 10's other
    notes, do not."""
    path = ROOT / "notebooks" / "10_where_position_hides.ipynb"
    _, answer = answers(path)[0]
    said = ("> **Expect:** query 4 is exactly k from word 6, so that offset already shares the end "
            "entry; queries 7 and 8 sit between the two words, where the swap moves a word from "
            "b[0] to b[2k].")
    asked = "> **Say:** exercise 1 has two traps.\n>\n> **Pause:** let students argue first."
    assert len(triples(said) & answer) >= SHARED > len(triples(asked) & answer)
    notes = [c for c in json.loads(path.read_text("utf-8"))["cells"] if is_note(c)]
    assert len(notes) > 10
    assert sum(len(triples("".join(c["source"])) & answer) >= SHARED for c in notes) <= 1


def test_a_folded_part_is_what_a_student_does_not_see():
    note = ("> **Ask:** why?\n>\n> <details><summary>Folded</summary>\n>\n> **Expect:** 42.\n"
            "> </details>")
    assert "Ask" in unfolded(note) and "42" not in unfolded(note) and "42" in note


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_note_that_gives_an_exercise_away_comes_after_its_checker_folded(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    wrong = [(f"cell {i} gives exercise {number} (cell {at}) away", sorted(common)[:3])
             for i, at, number, common in giveaways(path)
             if i < at or len(triples(unfolded("".join(cells[i]["source"]))) & common) >= SHARED]
    assert wrong == [], f"{path.stem}: {wrong}"

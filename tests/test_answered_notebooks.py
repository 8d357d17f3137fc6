"""A student who answers every exercise still gets a green `make test` (issue 10 §3).

Each notebook is copied, its exercise placeholders are replaced by the answers in
``solutions/``, and the copy is run twice: once to read what every checker said (all "Right"),
and once under strict nbval, which must pass as it does on the unanswered notebook.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.answers import answered, is_exercise

ROOT = Path(__file__).resolve().parent.parent
WITH_EXERCISES = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
                  if any(is_exercise(c) for c in json.loads(p.read_text("utf-8"))["cells"])]


@pytest.fixture(scope="module")
def answered_copies(tmp_path_factory):
    """Every notebook with exercises, answered, in a temporary folder."""
    folder = tmp_path_factory.mktemp("answered")
    for path in WITH_EXERCISES:
        notebook = nbformat.read(path, as_version=4)
        for cell in filter(is_exercise, notebook.cells):
            cell.source = answered(cell.source, f"solutions.nb{path.name[:2]}_solutions")
        nbformat.write(notebook, folder / path.name)
    return folder


@pytest.fixture
def kernel_sees_solutions(monkeypatch):
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))


def test_there_are_exercises_to_answer():
    assert len(WITH_EXERCISES) >= 8, [p.name for p in WITH_EXERCISES]


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=[p.stem for p in WITH_EXERCISES])
def test_every_answered_exercise_says_right(path, answered_copies, kernel_sees_solutions):
    notebook = nbformat.read(answered_copies / path.name, as_version=4)
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(answered_copies)}},
                   kernel_name="python3").execute()
    said = [" ".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", ""))
                     for o in cell.outputs) for cell in filter(is_exercise, notebook.cells)]
    assert said and all("✅ Right" in s and "Not yet" not in s for s in said), said


def test_strict_nbval_passes_on_the_answered_notebooks(answered_copies, kernel_sees_solutions):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-q", "-p",
         "no:cacheprovider", "-o", "addopts=", "--rootdir", str(answered_copies),
         str(answered_copies)],
        capture_output=True, text=True, cwd=answered_copies, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:]

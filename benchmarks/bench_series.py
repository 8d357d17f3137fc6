"""What does checking the whole series cost, beyond starting its kernels? (a benchmark, not a test)

Two timed runs of `python -m pytest --nbval --nbval-current-env DIR -p no:cacheprovider -q`:

- series: DIR = notebooks/, every notebook re-run and compared by nbval;
- floor:  DIR = build/bench-floor/, one stand-in per notebook whose single cell only runs that
          notebook's imports (numpy, matplotlib, ipywidgets, posattn, ...): the same number of
          kernels, the same packages.

The ratio series / floor is the price of the lessons themselves. The series' time is reported in
two parts: the cells that train models (they call the experiments' training functions, see
TRAINING), timed cell by cell by pytest's --durations, and every other lesson cell. Target: the
lessons other than training within 1.6x the floor; the training is reported beside it.

    python benchmarks/bench_series.py [--repeat N]
"""

import argparse
import ast
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
FLOOR = ROOT / "build" / "bench-floor"
TARGET = 1.6
TRAINING = ("who_bites_whom(", "length_curves(", "length_generalisation(", "position_probes(",
            "frozen_position_probes(", "position_probe(")  # a cell that calls one trains models


def imports_of(notebook: Path) -> list[str]:
    """Every import statement of a notebook's code cells (top level or not), in order, once each.

    Parsed, not pattern-matched: an import with a comment or in parentheses counts like any other.
    Cells holding IPython magics are parsed without their magic lines.
    """
    nb = nbformat.read(notebook, as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        source = "\n".join(x for x in lines if not x.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(ast.unparse(node))
    return list(dict.fromkeys(found))


def write_floor(notebooks: list[Path]) -> None:
    """One single-cell notebook per notebook of the series, importing what it imports, no more."""
    shutil.rmtree(FLOOR, ignore_errors=True)
    FLOOR.mkdir(parents=True)
    for notebook in notebooks:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("\n".join(imports_of(notebook)))]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, FLOOR / notebook.name)


def training_cells(notebooks: list[Path]) -> set[tuple[str, int]]:
    """(notebook name, nbval's cell number) of every code cell that trains models; nbval numbers
    the code cells 0, 1, … in order. Exercise cells (whose checker may train) are left out:
    nbval ignores their output, and they train only once a student answers."""
    found = set()
    for notebook in notebooks:
        code = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
        for number, cell in enumerate(code):
            if "exercise" not in cell.metadata.get("tags", []) and any(
                    call in cell.source for call in TRAINING):
                found.add((notebook.name, number))
    return found


def timed_nbval(folder: Path, training=frozenset()) -> tuple[float, float]:
    """Wall time of nbval over folder, and the part of it spent in the cells of ``training``;
    raises if nbval fails (a failing series is no benchmark)."""
    command = [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
               str(folder.relative_to(ROOT)), "-p", "no:cacheprovider", "-q", "--durations=0",
               "--durations-min=0"]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"nbval failed on {folder.name}/ (exit {result.returncode}):\n"
                         f"{result.stdout[-3000:]}")
    spent = 0.0
    for seconds, name, number in re.findall(r"^([\d.]+)s call\s+\S*/([^/:]+\.ipynb)::Cell (\d+)$",
                                            result.stdout, re.M):
        if (name, int(number)) in training:
            spent += float(seconds)
    return elapsed, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each (the fastest counts); default 1")
    repeat = parser.parse_args().repeat
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    write_floor(notebooks)
    training = training_cells(notebooks)
    floor, series = [], []
    for _ in range(repeat):  # interleaved, so a busy machine slows both alike
        floor.append(timed_nbval(FLOOR)[0])
        series.append(timed_nbval(NOTEBOOKS, training))
    total, trained = min(series)  # the fastest run, and its training part
    ratio = (total - trained) / min(floor)
    print(f"notebooks: {len(notebooks)}   (best of {repeat}; {len(training)} cells train models)")
    print(f"floor  (same kernels and imports, nothing else): {min(floor):6.1f} s")
    print(f"series (nbval over notebooks/):                  {total:6.1f} s")
    print(f"  of which training models:                      {trained:6.1f} s")
    print(f"  the other lesson cells and the kernels:        {total - trained:6.1f} s")
    print(f"series / floor: {total / min(floor):.2f}x; without training: {ratio:.2f}x   "
          f"target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()

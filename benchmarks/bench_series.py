"""What does checking the whole series cost, beyond starting its kernels? (a benchmark, not a test)

Two timed runs of `python -m pytest --nbval --nbval-current-env DIR -p no:cacheprovider -q`:

- series: DIR = notebooks/, every notebook re-run and compared by nbval;
- floor:  DIR = build/bench-floor/, one stand-in per notebook whose single cell only runs that
          notebook's imports (numpy, matplotlib, ipywidgets, posattn, ...): the same number of
          kernels, the same packages.

The ratio series / floor is the price of the lessons themselves. Target: at most 1.6.

    python benchmarks/bench_series.py [--repeat N]
"""

import argparse
import ast
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


def timed_nbval(folder: Path) -> float:
    """Wall time of nbval over folder; raises if nbval fails (a failing series is no benchmark)."""
    command = [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
               str(folder.relative_to(ROOT)), "-p", "no:cacheprovider", "-q"]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"nbval failed on {folder.name}/ (exit {result.returncode}):\n"
                         f"{result.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each (the fastest counts); default 1")
    repeat = parser.parse_args().repeat
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    write_floor(notebooks)
    floor, series = [], []
    for _ in range(repeat):  # interleaved, so a busy machine slows both alike
        floor.append(timed_nbval(FLOOR))
        series.append(timed_nbval(NOTEBOOKS))
    ratio = min(series) / min(floor)
    print(f"notebooks: {len(notebooks)}   (best of {repeat})")
    print(f"floor  (same kernels and imports, nothing else): {min(floor):6.1f} s")
    print(f"series (nbval over notebooks/):                  {min(series):6.1f} s")
    print(f"ratio: {ratio:.2f}x   target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()

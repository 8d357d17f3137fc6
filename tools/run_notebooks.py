"""Restart-and-run-all for the series: execute notebooks in place, as they are committed.

    python tools/run_notebooks.py [notebooks/NN_name.ipynb ...]    (default: every notebook)

Like JupyterLab's "Restart Kernel and Run All Cells" then save, with widget state kept (so the
explorer's picture shows without a kernel) and no wall-clock timing metadata (so a re-run that
changes nothing leaves a clean diff).
"""

import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ExecutePreprocessor

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    # nbconvert's executor, as `jupyter nbconvert --execute` uses: it also merges consecutive stream outputs
    executor = ExecutePreprocessor(timeout=300, kernel_name="python3", record_timing=False, store_widget_state=True)
    executor.preprocess(nb, {"metadata": {"path": str(path.parent)}})
    nbformat.write(nb, path)
    print(f"ran {path.name}")


if __name__ == "__main__":
    for path in [Path(p) for p in sys.argv[1:]] or sorted(NOTEBOOKS.glob("*.ipynb")):
        run(path.resolve())

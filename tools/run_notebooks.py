"""`make notebooks`: restart and run each notebook, then save it in place, unless it changed
meanwhile.

    python -m tools.run_notebooks NOTEBOOK ...

Each notebook is read, run by nbconvert with the options `make notebooks` always had (`jupyter
nbconvert --to notebook --execute --inplace`, a 300 s timeout per cell, the widget state stored
so the explorer shows without a kernel, no timing metadata), and written to a temporary file
beside it. That file replaces the notebook only if the notebook still holds what was read: a
change saved in the meantime (an author's edit, a student's answer) is kept as it is, the run is
saved beside it as NAME.rerun.ipynb, and both are named. Then, or if a notebook fails to run,
the exit status is 1; the other notebooks are run all the same.
"""

import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbconvert import NotebookExporter
from traitlets.config import Config

RERUN = ".rerun.ipynb"  # the run of a notebook that changed while it ran


def exporter() -> NotebookExporter:
    config = Config()
    config.ExecutePreprocessor.enabled = True
    config.ExecutePreprocessor.timeout = 300
    config.ExecutePreprocessor.record_timing = False
    config.ExecutePreprocessor.store_widget_state = True
    return NotebookExporter(config=config)


def run(path: Path) -> bool:
    """Run the notebook at path and save it in place, or beside it if it changed meanwhile;
    True if it was saved in place."""
    read = path.read_bytes()
    notebook = nbformat.reads(read.decode("utf-8"), as_version=4)
    ran, _ = exporter().from_notebook_node(notebook, {"metadata": {"path": str(path.parent)}})
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".ipynb",
                                         dir=path.parent)  # beside it: os.replace is atomic
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(ran)
    os.chmod(temporary, path.stat().st_mode & 0o777)
    if path.read_bytes() == read:
        os.replace(temporary, path)
        return True
    rerun = path.with_name(path.stem + RERUN)
    os.replace(temporary, rerun)
    print(f"{path} changed while it ran, and is left as it is now; the run is in {rerun}: "
          "compare the two and keep one.", file=sys.stderr)
    return False


def main(paths: list[str]) -> int:
    failed = []
    for name in paths:
        path = Path(name)
        if path.name.endswith(RERUN):
            print(f"{path}: skipped (the run of a notebook that changed while it ran)",
                  file=sys.stderr)
            continue
        print(f"Running {path}", file=sys.stderr, flush=True)
        try:
            saved = run(path)
        except Exception as error:  # a cell failed, or the kernel died: the file is unchanged
            print(f"{path} did not run, and is left unchanged: {type(error).__name__}: {error}",
                  file=sys.stderr)
            saved = False
        if not saved:
            failed.append(str(path))
    if failed:
        print(f"not saved in place: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

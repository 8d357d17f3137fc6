"""`make test`'s pytest, in three runs side by side: together they are `python -m pytest`.

    python -m tools.run.run_tests [PYTEST OPTION ...]

Most of the suite's time is spent waiting: on kernels, servers and Chromium. So the tests run as
three pytest processes at once, each reported whole: everything outside tests/browser/ (shown as
it runs), the notebooks run in JupyterLab with the explorer clicked in the same session, and the
other browser tests (servers, decks, Notebook 7). The exit status is 0 only if all three pass.

More than one run builds decks or the book, so the slide assets are fetched once, before the runs
start (on a fresh clone, this is the step that needs the npm registry); the builders also take a
lock (tools/publish/build_slides.py), so a run started some other way cannot race them either.
"""

import subprocess
import sys
from pathlib import Path

from tools.publish.build_slides import AssetsUnavailable, vendor

ROOT = Path(__file__).resolve().parents[2]
LAB = [f"tests/browser/{name}.py" for name in  # one JupyterLab session: notebook 05 runs once
       ("test_notebooks", "test_explorer", "test_keyboard", "test_rise")]
RUNS = {
    "everything outside tests/browser/": ["--ignore=tests/browser"],
    "tests/browser/: the notebooks in JupyterLab": LAB,
    "tests/browser/: servers, decks, Notebook 7": ["tests/browser",
                                                   *(f"--ignore={path}" for path in LAB)],
}


def fetch_assets() -> None:
    """The decks' assets into build/npm/ and build/slides/vendor/, once, before the runs."""
    try:
        vendor(ROOT / "build" / "slides")
    except AssetsUnavailable as error:  # the tests that need them say so, each in its own run
        print(f"(the slide and book tests will skip or fail: {error})", flush=True)


def main(options: list[str]) -> int:
    fetch_assets()
    logs = ROOT / "build" / "tests"
    logs.mkdir(parents=True, exist_ok=True)
    started = []
    for i, (title, arguments) in enumerate(RUNS.items()):
        command = [sys.executable, "-m", "pytest", *arguments, *options]
        out = None if i == 0 else (logs / f"run-{i}.log").open("w")
        started.append((title, out, subprocess.Popen(command, cwd=ROOT, stdout=out,
                                                      stderr=subprocess.STDOUT)))
    codes = []
    for title, out, process in started:
        codes.append(process.wait())
        if out is not None:
            out.close()
            print(f"\n{title}:", flush=True)
            sys.stdout.write(Path(out.name).read_text())
    # pytest's 5 means "no tests collected" (e.g. all deselected by -m): not a failure here
    failed = [title for (title, _, _), code in zip(started, codes, strict=True)
              if code not in (0, 5)]
    print("\nall passed" if not failed else f"\nfailed: {'; '.join(failed)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # Ctrl+C reached the three runs too: they stop on their own
        sys.exit(130)

"""Property tests draw a fresh seed on every run, print it, and run again from it (issue 41 §4).

Three runs of a small property in a child pytest with the suite's plugin
(tests/hypothesis_seed.py): two draw their own seeds and their own examples, and the seed the
first printed runs its examples again."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROPERTY = """import os

from hypothesis import given, strategies as st


@given(st.integers(0, 2**60), st.floats(-1e9, 1e9))
def test_a_property(n, x):
    with open(os.environ["DRAWN"], "a") as drawn:
        drawn.write(f"{n} {x!r}\\n")


def test_a_failure():
    assert False
"""


def _run(folder: Path, name: str, *options: str) -> tuple[tuple[str, str], str]:
    """((the seed, how it came), the examples drawn) of one run of the property above."""
    drawn = folder / f"{name}.drawn"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-p", "tests.hypothesis_seed", "--rootdir", str(folder),
                           "-o", "addopts=", str(folder / "test_property.py"), *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "DRAWN": str(drawn)})
    seeds = re.findall(r"hypothesis seed (\d+) \((drawn fresh for this run|given)\): "
                       r"reproduce with --hypothesis-seed=\1", done.stdout)
    assert len(seeds) == 2 and seeds[0] == seeds[1], done.stdout[-2000:]  # header; after failure
    return seeds[0], drawn.read_text()


def test_each_run_draws_a_fresh_seed_and_the_printed_seed_runs_the_same_examples(tmp_path):
    (tmp_path / "test_property.py").write_text(PROPERTY)
    (seed, how), drawn = _run(tmp_path, "first")
    (other, other_how), other_drawn = _run(tmp_path, "second")
    assert how == other_how == "drawn fresh for this run" and seed != other
    assert drawn.count("\n") == 60 and other_drawn != drawn  # the suite's 60 examples, new ones
    assert _run(tmp_path, "again", f"--hypothesis-seed={seed}") == ((seed, "given"), drawn)

"""`make notebooks`: restart-and-run-all in place with nbconvert, widget state kept, no timings,
and a change saved while a notebook runs is never lost."""

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL = {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}}
# What an author does in JupyterLab while the notebook runs: save an edit to it.
EDIT_WHILE_RUNNING = """import json, pathlib
saved = pathlib.Path("edited.ipynb")
notebook = json.loads(saved.read_text())
notebook["cells"][0]["source"] = "# the author's edit"
saved.write_text(json.dumps(notebook))"""


def make_notebooks(*paths: Path) -> subprocess.CompletedProcess:
    make = ["make", "--no-print-directory", "-o", ".venv/.installed", "notebooks",
            f"BIN={Path(sys.executable).parent}",  # this environment's python
            f"NBS={' '.join(map(str, paths))}"]
    return subprocess.run(make, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_make_notebooks_runs_in_place_keeping_widget_state_and_no_timing(tmp_path):
    path = tmp_path / "widget.ipynb"
    nb = nbformat.v4.new_notebook(metadata=KERNEL)
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(7)"),
                nbformat.v4.new_code_cell("print(6 * 7)")]
    nbformat.write(nb, path)
    path.chmod(0o644)
    assert make_notebooks(path).returncode == 0
    ran = nbformat.read(path, as_version=4)
    assert ran.cells[1].outputs[0].text == "42\n"
    state = ran.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    sliders = [m["state"] for m in state.values() if m["model_name"] == "IntSliderModel"]
    assert [slider["value"] for slider in sliders] == [7]
    assert [cell.metadata for cell in ran.cells] == [{}, {}]  # no "execution" timings
    assert path.stat().st_mode & 0o777 == 0o644 and sorted(tmp_path.iterdir()) == [path]


def test_a_notebook_saved_while_it_runs_is_kept_and_the_run_goes_beside_it(tmp_path):
    edited, other = tmp_path / "edited.ipynb", tmp_path / "other.ipynb"
    nbformat.write(nbformat.v4.new_notebook(metadata=KERNEL, cells=[
        nbformat.v4.new_markdown_cell("# as read"), nbformat.v4.new_code_cell(EDIT_WHILE_RUNNING),
        nbformat.v4.new_code_cell("print('ran')")]), edited)
    nbformat.write(nbformat.v4.new_notebook(metadata=KERNEL, cells=[
        nbformat.v4.new_code_cell("print('the other one')")]), other)
    done = make_notebooks(edited, other)
    assert done.returncode != 0
    assert json.loads(edited.read_text())["cells"][0]["source"] == "# the author's edit"
    rerun = tmp_path / "edited.rerun.ipynb"
    assert nbformat.read(rerun, as_version=4).cells[2].outputs[0].text == "ran\n"
    assert f"{edited} changed while it ran" in done.stderr and str(rerun) in done.stderr
    assert nbformat.read(other, as_version=4).cells[0].outputs[0].text == "the other one\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edited.ipynb", "edited.rerun.ipynb",
                                                           "other.ipynb"]  # no temporary left


SLOW = "import time\nfor _ in range(600):\n    time.sleep(0.1)"  # a minute: stopped well before


@pytest.mark.parametrize("how", ["SIGTERM to the runner", "SIGINT to the runner",
                                 "kill -9 of make", "SIGTERM to make",
                                 "SIGTERM to the runner as its kernel starts"])
def test_a_stopped_make_notebooks_leaves_no_connection_file_and_writes_nothing(tmp_path, how):
    from tests.launchers import alive, descendants, kernels

    path = tmp_path / "slow.ipynb"
    nbformat.write(nbformat.v4.new_notebook(metadata=KERNEL, cells=[
        nbformat.v4.new_code_cell(SLOW)]), path)
    before = path.read_bytes()
    for sub in ("tmp", "runtime"):
        (tmp_path / sub).mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    make = subprocess.Popen(["make", "--no-print-directory", "-o", ".venv/.installed", "notebooks",
                             f"BIN={Path(sys.executable).parent}", f"NBS={path}"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not kernels(make.pid):  # the kernel runs the slow cell
            if make.poll() is not None or time.monotonic() > deadline:  # a wait, not a speed test
                pytest.fail(make.stdout.read())
            time.sleep(0.2)
        if not how.endswith("starts"):  # else at once: the kernel is not ready yet
            time.sleep(1)
        pids = descendants(make.pid)
        runner = pids[1]  # make's child
        if how == "kill -9 of make":
            make.kill()
        else:
            target = make.pid if how.endswith("make") else runner
            os.kill(target, signal.SIGINT if "SIGINT" in how else signal.SIGTERM)
        make.wait(30)
        deadline = time.monotonic() + 40
        while alive(pids):
            if time.monotonic() > deadline:  # a wait, not a speed test
                pytest.fail(f"still running after {how}: {alive(pids)}")
            time.sleep(0.2)
    finally:
        for pid in alive(descendants(make.pid)):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert list((tmp_path / "tmp").iterdir()) == []  # no kernel-*.json with its key
    left = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "runtime").rglob("*"))
    assert left == [], (left, make.stdout.read())  # what is left, and what the run said
    assert path.read_bytes() == before  # nothing written after the stop
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runtime", "slow.ipynb", "tmp"]


# A notebook whose run a kernel splits differently each time: a printout in pieces (flushed, with
# pauses: one message each), a figure between two printouts, widgets (random ids in the kernel).
PIECES = """import sys, time
for word in ["dog ", "bites ", "man\\n"]:
    print(word, end="")
    sys.stdout.flush()
    time.sleep(0.2)"""
FIGURE = """%matplotlib inline
import matplotlib.pyplot as plt
print("before the figure")
plt.plot([0, 1, 4, 9])
plt.show()
print("after", end="")
sys.stdout.flush()
time.sleep(0.2)
print(" the figure")"""
WIDGETS = """import ipywidgets
ipywidgets.VBox([ipywidgets.IntSlider(3), ipywidgets.Label("who bites whom")])"""


def test_make_notebooks_twice_gives_the_same_bytes_and_no_tcp_warning(tmp_path):
    names = [path.name for path in sorted((ROOT / "notebooks").glob("0[58]_*.ipynb"))]
    assert len(names) == 2, names  # the explorer (widgets) and 08 (printouts in pieces)
    pieces = nbformat.v4.new_notebook(metadata=KERNEL, cells=[
        nbformat.v4.new_code_cell(source) for source in (PIECES, FIGURE, WIDGETS)])
    runs = [tmp_path / "first", tmp_path / "second"]
    for run in runs:
        run.mkdir()
        for name in names:
            (run / name).write_bytes((ROOT / "notebooks" / name).read_bytes())
        nbformat.write(pieces, run / "pieces.ipynb")
    done = make_notebooks(*[run / name for run in runs for name in [*names, "pieces.ipynb"]])
    assert done.returncode == 0, done.stderr
    assert "without encryption" not in done.stderr  # ipykernel's warning, once per kernel on TCP
    for name in [*names, "pieces.ipynb"]:
        assert (runs[0] / name).read_bytes() == (runs[1] / name).read_bytes(), name
    ran = nbformat.read(runs[0] / "pieces.ipynb", as_version=4)
    assert [out.get("text") for out in ran.cells[0].outputs] == ["dog bites man\n"]
    assert [(out.output_type, out.get("text")) for out in ran.cells[1].outputs] == [
        ("stream", "before the figure\n"), ("display_data", None),
        ("stream", "after the figure\n")]  # merged only where they follow each other
    assert "image/png" in ran.cells[1].outputs[1].data
    (view,) = [out.data["application/vnd.jupyter.widget-view+json"]
               for out in ran.cells[2].outputs if out.output_type == "execute_result"]
    state = ran.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    assert view["model_id"] in state and state[view["model_id"]]["model_name"] == "VBoxModel"
    children = [child.removeprefix("IPY_MODEL_")
                for child in state[view["model_id"]]["state"]["children"]]
    assert [state[child]["model_name"] for child in children] == ["IntSliderModel", "LabelModel"]

"""`make notebooks` never loses a save that lands while it puts a run in place (issue 30).

Someone saves the notebook while tools/run/run_notebooks.py compares and replaces it: by writing a
temporary file and renaming it over the notebook (as many editors do) or by writing into the file
(as Jupyter's contents manager does). Whenever the save lands, it is kept at NAME.ipynb; when the
run was not put in place, it is kept as NAME.rerun.ipynb and the exit status is 1; otherwise 0.
The kernel is stood in for, so each run takes milliseconds.
"""

import os
import random
import subprocess
import sys
import time

import nbformat
import pytest

from tools.run import run_notebooks

TAG = "@@TAG@@"  # the first cell's source: "as read", or whose save it is


def notebook(pad: int, ran: bool) -> str:
    """A notebook whose first cell is TAG, padded to about pad bytes; run, it has an output."""
    code = nbformat.v4.new_code_cell(TAG, id="code")  # fixed ids: the same text every time
    if ran:
        code.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    return nbformat.writes(nbformat.v4.new_notebook(cells=[
        code, nbformat.v4.new_markdown_cell("x" * pad, id="text")]))


class Kernel:
    """Stands in for nbconvert's exporter, without a kernel: a notebook's run is the run template
    with the notebook's first cell."""

    def __init__(self, pad: int):
        self.ran = notebook(pad, ran=True)

    def __call__(self, connection_file=None):  # run_notebooks.exporter(connection_file)
        return self

    def register_preprocessor(self, preprocessor, enabled=False):  # steady(): nothing to steady
        pass

    def from_notebook_node(self, nb, resources):
        return self.ran.replace(TAG, nb.cells[0].source), {}


def save_by_rename(path, data: bytes) -> None:
    """An editor's save: write a temporary file, then rename it over the notebook."""
    temporary = path.with_name(f".{path.name}~")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def save_in_place(path, data: bytes) -> None:
    """Jupyter's save (jupyter_server's atomic_writing): truncate the notebook, write into it."""
    with open(path, "wb") as file:
        file.write(data)


class SaveAt:
    """os as tools.run.run_notebooks sees it, with someone's save just before or after call k."""

    def __init__(self, k: int, after: bool, save):
        self.k, self.after, self.save, self.calls, self.saved = k, after, save, 0, False

    def __getattr__(self, name):
        real = getattr(os, name)
        if isinstance(real, type) or not callable(real):
            return real

        def call(*args, **kwargs):
            if self.calls == self.k and not self.after:
                self.land()
            try:
                return real(*args, **kwargs)
            finally:
                if self.calls == self.k and self.after:
                    self.land()
                self.calls += 1
        return call

    def land(self):
        self.save()
        self.saved = True


def outcome(path, code: int, stderr: str, saved: bytes, runs: tuple[bytes, bytes],
            ended: bool) -> str | None:
    """What went wrong for a save that landed while path ran, or None. The save is at path (or
    the run of it, if the run read it); the run (of what was read, runs[0], or of the save,
    runs[1]) is at path or beside it, and the exit status is 1 exactly when it is beside. Only a
    save after the command ended (ended) may supersede the run put in place."""
    kept = path.read_bytes() if path.exists() else None
    rerun = path.with_name(path.stem + ".rerun.ipynb")
    others = sorted(p.name for p in path.parent.iterdir() if p not in (path, rerun))
    if kept not in (saved, runs[1]):
        return "the save was lost" + (": the run replaced it" if kept == runs[0] else "")
    if others:
        return f"files left beside it: {others}"
    if code == 0 and rerun.exists():
        return "the run went beside it, yet exit status 0"
    if code == 0 and kept == saved and not ended:
        return "exit status 0, but the run is neither in place nor beside it"
    if code != 0 and not (rerun.exists() and rerun.read_bytes() in runs):
        return "exit status 1, but the run is not beside it"
    return None if code == 0 or str(rerun) in stderr else f"{rerun} not named: {stderr!r}"


def race(directory, save, k: int, after: bool, last: bool, capsys) -> tuple[str | None, SaveAt]:
    """Run a small notebook with a save landing at call k (last: after the run's last call);
    what went wrong, or None."""
    directory.mkdir()
    path = directory / "race.ipynb"
    as_read, saved = (notebook(0, ran=False).replace(TAG, tag).encode()
                      for tag in ("as read", "the person's save"))
    path.write_bytes(as_read)
    at = SaveAt(k, after, lambda: save(path, saved))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_notebooks, "os", at)
        code = run_notebooks.main([str(path)])
    ended = last or not at.saved
    if not at.saved:
        save(path, saved)  # the run made fewer calls: the save comes after it ended
    runs = tuple(Kernel(0).ran.replace(TAG, tag).encode()
                 for tag in ("as read", "the person's save"))
    return outcome(path, code, capsys.readouterr().err, saved, runs, ended), at


@pytest.mark.parametrize("save", [save_by_rename, save_in_place])
def test_a_save_before_or_after_any_step_of_the_replace_is_kept(save, tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.setattr(run_notebooks, "exporter", Kernel(0))
    _, clean = race(tmp_path / "clean", save, -1, False, True, capsys)  # how many calls a run makes
    problems = []
    for k in range(clean.calls):
        for after in (False, True):
            last = after and k == clean.calls - 1
            problem, _ = race(tmp_path / f"{k}-{after}", save, k, after, last, capsys)
            if problem:
                problems.append(f"{'after' if after else 'before'} call {k}: {problem}")
    assert not problems, f"{len(problems)} of {2 * clean.calls} moments:\n" + "\n".join(problems)


SAVER = """import os, sys, time
path, save = sys.argv[1], open(sys.argv[2], "rb").read()
temporary = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + "~")
for delay in sys.stdin:  # write the save, say so; on "go", wait delay seconds and rename it over
    with open(temporary, "wb") as out:
        out.write(save)
    print("ready", flush=True)
    sys.stdin.readline()
    time.sleep(float(delay))
    os.replace(temporary, path)
    print("saved", flush=True)
"""


def test_saves_at_random_moments_around_the_replace_of_a_large_notebook_are_kept(
        tmp_path, monkeypatch, capsys):
    pad, saves = 20_000_000, 20  # a 20 MB notebook, as in the issue
    kernel = Kernel(pad)
    monkeypatch.setattr(run_notebooks, "exporter", kernel)
    (tmp_path / "notebooks").mkdir()
    path, saving = tmp_path / "notebooks" / "large.ipynb", tmp_path / "the person's save"
    as_read, saved = (notebook(pad, ran=False).replace(TAG, tag).encode()
                      for tag in ("as read", "the person's save"))
    runs = tuple(kernel.ran.replace(TAG, tag).encode() for tag in ("as read", "the person's save"))
    saving.write_bytes(saved)
    durations = []
    for _ in range(2):
        path.write_bytes(as_read)
        start = time.monotonic()
        assert run_notebooks.main([str(path)]) == 0
        durations.append(time.monotonic() - start)
    saver = subprocess.Popen([sys.executable, "-c", SAVER, str(path), str(saving)], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    problems, beside, rng = [], 0, random.Random(0)
    try:
        for i in range(saves):
            path.write_bytes(as_read)
            path.with_name("large.rerun.ipynb").unlink(missing_ok=True)
            delay = rng.uniform(0.5, 1.05) * min(durations)  # the compare and replace, and after
            saver.stdin.write(f"{delay:.4f}\n")
            saver.stdin.flush()
            assert saver.stdout.readline() == "ready\n"
            saver.stdin.write("go\n")
            saver.stdin.flush()
            code = run_notebooks.main([str(path)])
            assert saver.stdout.readline() == "saved\n"
            beside += code
            problem = outcome(path, code, capsys.readouterr().err, saved, runs,
                              ended=True)  # the saver's clock cannot tell "after the end"
            if problem:
                problems.append(f"save {i} after {delay * 1000:.0f} ms: {problem}")
    finally:
        saver.stdin.close()
        saver.wait(timeout=10)
    assert not problems, f"{len(problems)} of {saves} saves:\n" + "\n".join(problems)
    assert beside, f"no save of {saves} landed while the run was put in place: widen the window"

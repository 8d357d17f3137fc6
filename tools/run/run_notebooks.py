"""`make notebooks`: restart and run each notebook, then save it in place, unless it was saved
meanwhile.

    python -m tools.run.run_notebooks NOTEBOOK ...

Each notebook is read, run by nbconvert with the options `make notebooks` always had (`jupyter
nbconvert --to notebook --execute --inplace`, a 300 s timeout per cell, the widget state stored so
the explorer shows without a kernel, no timing metadata), saved the same way every time (steady:
consecutive prints to one stream in one output, the widgets' ids made from the notebook's name and
their order, not drawn at random), and written to a temporary file beside it, which takes the
notebook's place only if the notebook is still the file that was read: the same inode, size,
modification time and bytes.

A save is never lost, whenever it lands, whether written into the file (as Jupyter does) or
renamed over it (as many editors do). A check followed by a replace leaves a gap between the two,
so the notebook is first renamed to a private name: that takes whichever file is there at that
instant, and the file taken is what is checked. The run is then hard-linked to the notebook's
name, which fails rather than replace a save that landed since; a file taken that is a save goes
back, unless a newer save is already there. Each notebook put in place is checked once more
before the exit status is decided. Whenever a save wins, the notebook is left as saved, the run is
kept beside it as NAME.rerun.ipynb, both are named and the exit status is 1 (as it is when a
notebook fails to run; the others run all the same). A save after the command ended is an
ordinary later edit. For an instant the notebook's name is missing: were the process killed
then, the notebook would be beside it as .NAME.*.ipynb.taken.

However the command is stopped, it leaves nothing behind and writes nothing after. The kernels'
connection files (each with its key) go to a private folder of the run's own (serve/runtime.py:
0700, in Jupyter's runtime folder, never the temp folder), and so do their sockets (IPC, not TCP:
no other user can reach a kernel, and ipykernel has no plain-text TCP warning to print), removed as
the run ends, or by the next `make lab`, `make present` or `make notebooks` if the runner was
killed with `kill -9`. SIGTERM, SIGHUP and Ctrl+C stop the run at once (Stopped), or, while a
kernel starts, as soon as it has started (Executor): the notebook being run is left as it was,
its kernel is shut down (nbclient's own handlers, which would shut the
kernel down and let the run go on, are not added for these signals). The runner also stops when
make dies, however it dies (tools.serve.runtime.end_with_parent), and it looks once more, just
before it saves, that its parent is still there: after `kill -9` of make no notebook is written.
"""

import hashlib
import json
import os
import re
import signal
import sys
import tempfile
from asyncio import unix_events
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

import nbformat
from nbconvert import NotebookExporter
from nbconvert.preprocessors import ExecutePreprocessor
from traitlets.config import Config

from tools.serve.runtime import STARTED_BY, end_with_parent, own_runtime_dir

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REF = re.compile("IPY_MODEL_[0-9a-f]{32}")  # how a widget's state names another
SOCKET_PATH_MAX = 100  # a Unix socket's path: 107 bytes on Linux, 103 on macOS; some to spare
RERUN = ".rerun.ipynb"  # the run of a notebook that was saved while it ran
STOP_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(BaseException):
    """The run was stopped by a signal, or by its parent's death: nothing more is written."""


class Put(NamedTuple):
    """A run put in place of the notebook at path, and the file it was written as."""

    path: Path
    ran: bytes
    written: os.stat_result


class Executor(ExecutePreprocessor):
    """nbconvert's ExecutePreprocessor, whose kernel is shut down however the run is stopped.

    nbclient shuts the kernel down in a `finally` that begins only once the kernel has started
    and answered: a stop that landed before (while the kernel starts) left it running, and the
    kernel, finding its folder gone, made it again, wrote its own kernel-N.json there and left
    it when it saw its parent gone. So a stop that lands while the kernel starts waits until that
    `finally` is in place (the kernel's start: a second or two), then stops the run."""

    @contextmanager
    def setup_kernel(self, **kwargs):
        with ExitStack() as started:
            with stops_held():
                started.enter_context(super().setup_kernel(**kwargs))
            yield


def exporter(connection_file: Path | None = None) -> NotebookExporter:
    config = Config()
    if connection_file is not None:
        config.KernelManager.connection_file = str(connection_file)
        if len(str(connection_file)) < SOCKET_PATH_MAX - 12:  # room for "-ipc-PORT"
            config.KernelManager.transport = "ipc"  # sockets in the private folder, not TCP
    config.ExecutePreprocessor.timeout = 300
    config.ExecutePreprocessor.record_timing = False
    config.ExecutePreprocessor.store_widget_state = True
    runner = NotebookExporter(config=config)
    runner.register_preprocessor(Executor(config=config), enabled=True)  # first: steady after
    return runner


def steady(name: str):
    """A preprocessor that saves a run the same way every time (`make notebooks` twice gives the
    same bytes): consecutive outputs of one stream merged into one, as they read (how a kernel
    splits a printout into messages depends on the machine's load), and the widgets' ids, which
    the kernel draws at random, replaced by ids made from name and the order the notebook shows
    them in."""
    def preprocess(nb, resources):
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = merged_streams(cell.outputs)
        renumber_widgets(nb, name)
        return nb, resources
    return preprocess


def merged_streams(outputs: list) -> list:
    """outputs with each run of consecutive stdout (or stderr) outputs joined into one."""
    merged = []
    for output in outputs:
        if (output.output_type == "stream" and merged and merged[-1].output_type == "stream"
                and merged[-1].name == output.name):
            merged[-1].text += output.text
        else:
            merged.append(output)
    return merged


def renumber_widgets(nb, name: str) -> None:
    """Each widget model id in nb replaced by a stable one: the k-th id met, walking the views
    in cell order and each model's references depth first (then the models no view reaches, by
    type and state), becomes the hash of "name:k"."""
    models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    order = []

    def visit(value) -> None:  # a model's state: IPY_MODEL_<id>, and "model_id" in its views
        if isinstance(value, dict):
            for key in sorted(value):
                item = value[key]
                visit(f"IPY_MODEL_{item}" if key == "model_id" and isinstance(item, str) else item)
        elif isinstance(value, list):
            for item in value:
                visit(item)
        elif isinstance(value, str) and MODEL_REF.fullmatch(value) and value[10:] not in order:
            order.append(value[10:])
            visit(models.get(value[10:]))

    visit([output.get("data", {}).get(WIDGET_VIEW) for cell in nb.cells
           for output in cell.get("outputs", [])])
    for model in sorted(set(models) - set(order), key=lambda model: MODEL_REF.sub(
            "IPY_MODEL_", json.dumps(models[model], sort_keys=True))):
        visit(f"IPY_MODEL_{model}")
    if order:
        new = {old: hashlib.sha256(f"{name}:{k}".encode()).hexdigest()[:32]
               for k, old in enumerate(order)}
        text = re.sub("|".join(new), lambda found: new[found[0]], json.dumps(nb))
        nb.update(nbformat.from_dict(json.loads(text)))


def identity(status: os.stat_result) -> tuple[int, int, int, int]:
    """Which file, as it was: a save changes its inode (renamed over) or size and mtime."""
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


def holds(path: Path, seen: os.stat_result, data: bytes) -> bool:
    """Whether path is still the file seen, holding data."""
    try:
        with open(path, "rb") as file:
            same = identity(os.fstat(file.fileno())) == identity(seen) and file.read() == data
        return same and identity(os.stat(path)) == identity(seen)  # and not renamed over since
    except FileNotFoundError:  # an editor has renamed it away, to write it anew
        return False


def link(source: str, target: Path) -> bool:
    """Give the file at source the name target too, unless a file has that name: never replaces."""
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    return True


def write_beside(path: Path, data: bytes, mode: int) -> tuple[str, os.stat_result]:
    """data in a new temporary file beside path (same directory: links and renames are atomic)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".ipynb",
                                         dir=path.parent)
    os.fchmod(handle, mode & 0o777)  # the notebook's permissions, not mkstemp's 0o600
    with os.fdopen(handle, "wb") as out:
        out.write(data)
        out.flush()
        written = os.fstat(out.fileno())
    return temporary, written


def swap(path: Path, temporary: str, seen: os.stat_result) -> bool:
    """Put temporary at path if path is still the file seen; True if it did."""
    taken = f"{temporary}.taken"
    os.link(temporary, taken)  # reserves the name (and fails here, harmlessly, without links)
    try:
        os.replace(path, taken)  # take whatever file is at path now: no save can slip in
    except FileNotFoundError:  # an editor has renamed it away, to write it anew
        os.unlink(taken)
        return False
    installed = False
    try:
        installed = identity(os.stat(taken)) == identity(seen) and link(temporary, path)
    finally:
        if not installed:
            link(taken, path)  # a save: back it goes, unless a newer one has landed since
        os.unlink(taken)
    return installed


def keep_beside(path: Path, temporary: str, why: str) -> None:
    """The run, in temporary, kept as NAME.rerun.ipynb beside the notebook, and both named."""
    os.replace(temporary, rerun := path.with_name(path.stem + RERUN))
    print(f"{path} {why}, and is left as it is now; the run is in {rerun}: compare the two and "
          "keep one.", file=sys.stderr)


def save(path: Path, ran: bytes, read: bytes, seen: os.stat_result) -> Put | None:
    """Put the run in place of the notebook if it is still the file read, else beside it."""
    temporary, written = write_beside(path, ran, seen.st_mode)
    try:
        installed = holds(path, seen, read) and swap(path, temporary, seen)
    except BaseException:
        os.unlink(temporary)
        raise
    if installed:
        os.unlink(temporary)  # the notebook's name holds it now
        return Put(path, ran, written)
    keep_beside(path, temporary, "changed while it ran")
    return None


def run(path: Path, connection_file: Path | None = None) -> Put | None:
    """Run the notebook at path (its kernel's connection file at connection_file) and put the
    run in its place, or beside it if it was saved meanwhile; the run put in place, or None."""
    with open(path, "rb") as file:
        seen = os.fstat(file.fileno())
        read = file.read()
    notebook = nbformat.reads(read.decode("utf-8"), as_version=4)
    runner = exporter(connection_file)
    runner.register_preprocessor(steady(path.stem), enabled=True)  # after the run
    ran, _ = runner.from_notebook_node(notebook, {"metadata": {"path": str(path.parent)}})
    if os.getppid() != STARTED_BY:  # make has died: nothing is written after it
        raise Stopped(signal.SIGTERM)
    return save(path, ran.encode("utf-8"), read, seen)


HELD: dict = {"on": False, "signal": None}  # a stop that waits for the kernel's start to end


def stop(signum: int, frame) -> None:
    if HELD["on"]:
        HELD["signal"] = HELD["signal"] or signum
        return
    raise Stopped(signum)


@contextmanager
def stops_held():
    """A stop that lands inside this is raised (Stopped) as it ends."""
    HELD["on"] = True
    try:
        yield
    finally:
        HELD["on"] = False
        held, HELD["signal"] = HELD["signal"], None
        if held is not None:
            raise Stopped(held)


def no_loop_handlers_for(signals) -> None:
    """asyncio's add_signal_handler refuses signals, leaving this process's handlers on them."""
    add = unix_events._UnixSelectorEventLoop.add_signal_handler

    def add_unless_ours(loop, sig, callback, *args) -> None:
        if sig not in signals:
            add(loop, sig, callback, *args)

    unix_events._UnixSelectorEventLoop.add_signal_handler = add_unless_ours


def still_in_place(put: Put) -> bool:
    """Whether the run is still at put.path; if a save has replaced it, the run goes beside."""
    if holds(put.path, put.written, put.ran):
        return True
    temporary, _ = write_beside(put.path, put.ran, put.written.st_mode)
    keep_beside(put.path, temporary, "was saved after the run was put in place")
    return False


def main(paths: list[str]) -> int:
    """Run each notebook in paths; stopped by a signal or make's death, 128 + the signal."""
    for sig in STOP_ON:
        if sig == signal.SIGINT or signal.getsignal(sig) is not signal.SIG_IGN:  # nohup
            signal.signal(sig, stop)
    no_loop_handlers_for(STOP_ON)
    end_with_parent()
    try:
        with own_runtime_dir() as folder:
            return run_all(paths, folder)
    except Stopped as stopped:
        name = signal.Signals(stopped.args[0]).name
        print(f"stopped by {name}: the notebook being run is left as it was", file=sys.stderr)
        return 128 + stopped.args[0]


def run_all(paths: list[str], folder: Path) -> int:
    failed, put = [], []
    for number, name in enumerate(paths):
        path = Path(name)
        if path.name.endswith(RERUN):
            print(f"{path}: skipped (the run of a notebook that was saved while it ran)",
                  file=sys.stderr)
            continue
        print(f"Running {path}", file=sys.stderr, flush=True)
        try:
            done = run(path, folder / f"kernel-{number}.json")
        except Exception as error:  # a cell failed, or the kernel died: the file is unchanged
            print(f"{path} did not run, and is left unchanged: {type(error).__name__}: {error}",
                  file=sys.stderr)
            done = None
        if done:
            put.append(done)
        else:
            failed.append(str(path))
    failed += [str(done.path) for done in put if not still_in_place(done)]  # the last look
    if failed:
        print(f"not saved in place: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

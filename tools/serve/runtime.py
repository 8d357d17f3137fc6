"""A runtime folder of its own for each server the launcher runs (tools.serve.servers), so that none
leaves its files behind.

A Jupyter server keeps files in Jupyter's runtime folder (`jupyter --runtime-dir`):
jpserver-PID.json with its token, the kernels' connection files kernel-ID.json with their keys, a
cookie secret; Voilà keeps its kernels' files in a voila_* folder. A server stopped by a signal
removes them; a killed one (`kill -9`, a crash) cannot. So each launch keeps them in a folder of
its own inside Jupyter's runtime folder, the-position-problem-PID-XXXXXXXX, private (0700), with a
lock that the launcher holds while it lives: the system drops a process's locks when it ends,
however it ends, so a PID used again by another program is no mistake. The folder goes when the
launcher ends, and each launch first removes every folder of the series whose lock is free: a
dead launcher's, and only that.

Jupyter's runtime folder (in HOME, unless JUPYTER_RUNTIME_DIR names one) that cannot be made is
said in one line (runtime_base), by `make lab`'s and `make present`'s checks too.

A server, and `make notebooks`' runner, also ends when the command that started it dies, however
it dies (`kill -9` of make included): end_with_parent() watches the parent's pid from a thread
(twice a second; once the parent has gone, the process is some other process's child, and
getppid() says so) and then stops the process as SIGTERM does, its kernels and this folder with
it. (Not PR_SET_PDEATHSIG: Linux sends it when the *thread* that started the process ends, which
a test runner's worker thread does while its process lives on.) A process that a SIGTERM does
not end within STOP_GRACE seconds is killed; its kernels end with it (ipykernel's parent poller).
"""

import fcntl
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from jupyter_core.paths import jupyter_runtime_dir

PREFIX = "the-position-problem-"
LOCK = "launcher.lock"
STOP_GRACE = 30  # seconds a process has to stop once its parent has gone
STARTED_BY = os.getppid()  # the parent, as this module is first imported: as the process starts


def runtime_base() -> Path:
    """Jupyter's runtime folder, made (0700) if it is missing; a one-line ValueError if it
    cannot be made or written."""
    base = Path(jupyter_runtime_dir())
    chosen = "JUPYTER_RUNTIME_DIR" if os.environ.get("JUPYTER_RUNTIME_DIR") else "HOME"
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not os.access(base, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as error:
        where = os.environ.get(chosen, "") or "unset"
        raise ValueError(f"{chosen} must be a folder you can write to (Jupyter keeps a server's "
                         f"files in {base}); got {where!r}: {error.strerror}. Set {chosen} to "
                         "a folder of yours, or JUPYTER_RUNTIME_DIR to one you can write."
                         ) from None
    return base


def end_with_parent(parent: int = STARTED_BY, every: float = 0.5) -> None:
    """Stop this process (SIGTERM to itself, then SIGKILL after STOP_GRACE s) once the process
    that started it, parent, has died: a daemon thread that watches os.getppid()."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(STOP_GRACE)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


@contextmanager
def own_runtime_dir() -> Iterator[Path]:
    """A new private folder in Jupyter's runtime folder, locked for as long as this lasts and
    set as JUPYTER_RUNTIME_DIR (for the server and its kernels); removed at the end. The folders
    of launchers that are gone are removed first."""
    base = runtime_base()
    remove_dead(base)
    starting = Path(tempfile.mkdtemp(prefix=f".{PREFIX}{os.getpid()}-", dir=base))  # 0700
    with open(os.open(starting / LOCK, os.O_WRONLY | os.O_CREAT, 0o600), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = starting.rename(base / starting.name[1:])  # so it is locked under its name
        before = os.environ.get("JUPYTER_RUNTIME_DIR")
        os.environ["JUPYTER_RUNTIME_DIR"] = str(folder)
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            os.environ.pop("JUPYTER_RUNTIME_DIR")
            if before is not None:
                os.environ["JUPYTER_RUNTIME_DIR"] = before


def remove_dead(base: Path) -> None:
    """Remove the series' folders in base whose launcher is gone: those with a lock nobody holds
    (a live launcher holds its own; anything else is not the series')."""
    for folder in base.glob(f"{PREFIX}*"):
        with suppress(OSError), open(folder / LOCK) as lock:  # OSError: no lock, not ours
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its launcher runs
                continue
            shutil.rmtree(folder, ignore_errors=True)  # not through a symbolic link

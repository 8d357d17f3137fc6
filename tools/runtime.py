"""A runtime folder of its own for each server the launcher runs (tools.servers), so that none
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
"""

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from jupyter_core.paths import jupyter_runtime_dir

PREFIX = "the-position-problem-"
LOCK = "launcher.lock"


@contextmanager
def own_runtime_dir() -> Iterator[Path]:
    """A new private folder in Jupyter's runtime folder, locked for as long as this lasts and
    set as JUPYTER_RUNTIME_DIR (for the server and its kernels); removed at the end. The folders
    of launchers that are gone are removed first."""
    base = Path(jupyter_runtime_dir())
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
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

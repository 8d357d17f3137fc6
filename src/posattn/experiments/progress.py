"""A training's progress, shown while it runs in the series' JupyterLab and gone when it ends.

Notebooks 09 and 10 train hundreds of models, some cells for half a minute. `make lab` passes its
own process id to its kernels as POSATTN_PROGRESS, and in a kernel whose parent is that server each
training shows one line ("training 10 models side by side: step 40 of 100") that updates in place
and is blanked when the training ends (an output with nothing in it, which JupyterLab draws as
nothing). Anywhere else nothing is shown: under nbval and `make notebooks` (even when they are
started from a terminal of that JupyterLab, which inherits the setting: their kernels have another
parent) and in plain Python, so the saved notebooks stay the same to the byte.
"""

import os
import time
from collections.abc import Iterable, Iterator

EVERY = 0.25  # seconds between updates of the line


def progress(steps: Iterable[int], total: int, what: str) -> Iterator[int]:
    """steps, as they are; in a kernel of the series' JupyterLab, with a line that says
    "{what}: step t of {total}" while they run."""
    line = _line() if os.environ.get("POSATTN_PROGRESS") == str(os.getppid()) else None
    if line is None:
        yield from steps
        return
    shown = 0.0
    try:
        for t in steps:
            if time.monotonic() - shown > EVERY:
                line.update({"text/plain": f"{what}: step {t} of {total}"}, raw=True)
                shown = time.monotonic()
            yield t
    finally:
        line.update({}, raw=True)  # blank: JupyterLab draws nothing for an output without data


def _line():
    """A display that can be updated in place, in an IPython kernel (None elsewhere)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None
    return display({"text/plain": ""}, raw=True, display_id=True)

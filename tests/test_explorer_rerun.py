"""Notebook 05's explorer cell run again and again in one real kernel, as JupyterLab runs it (each
run carries the cell's id): the kernel's memory and its open widgets stay flat, whether the cell
returns the explorer (IPython's ``Out`` keeps it) or displays it."""

import os
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

EXPLORER_CELL = {
    "returned": 'explorer = ShuffleExplorer("dog bites man", seed=0)\nexplorer',
    "displayed": 'explorer = ShuffleExplorer("dog bites man", seed=0)\ndisplay(explorer)',
}
# after a garbage collection, and with freed memory handed back to the system (glibc keeps it
# otherwise), the resident set is what the kernel really holds
MEASURE = ("import ctypes, gc; from ipywidgets.widgets.widget import _instances; gc.collect(); "
           "ctypes.CDLL('libc.so.6').malloc_trim(0)")
COUNTS = {"widgets": "len(_instances)",  # open widgets
          "figures": "sum(type(o).__name__ == 'Figure' for o in gc.get_objects())"}


def run(client, code: str, cell_id: str | None = None, expressions: dict | None = None) -> dict:
    """Execute code as a front end does (with the cell's id in the request's metadata, as
    JupyterLab sends it); returns the reply's content, which must say ok."""
    content = {"code": code, "silent": False, "store_history": True, "allow_stdin": False,
               "user_expressions": expressions or {}, "stop_on_error": True}
    request = client.session.msg("execute_request", content)
    if cell_id is not None:
        request["metadata"]["cellId"] = cell_id
    client.shell_channel.send(request)
    while True:
        reply = client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
            assert reply["content"]["status"] == "ok", reply["content"]
            return reply["content"]


def resident_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) / 1024


def counts(client) -> dict[str, int]:
    """The kernel's open widgets and live matplotlib Figures, after a garbage collection."""
    said = run(client, MEASURE, expressions=COUNTS)["user_expressions"]
    return {name: int(value["data"]["text/plain"]) for name, value in said.items()}


@pytest.fixture
def kernel(tmp_path):
    if not Path("/proc/self/status").exists():
        pytest.skip("reads memory from /proc (Linux)")
    env = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env,
                                       startup_timeout=120)
    try:
        run(client, "from posattn.explorer import ShuffleExplorer")
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.mark.parametrize("form", EXPLORER_CELL)
def test_running_the_explorer_cell_again_and_again_keeps_memory_and_widgets_flat(kernel, form):
    manager, client = kernel
    pid = manager.provisioner.pid
    for _ in range(4):  # the first runs fill font, layout and import caches
        run(client, EXPLORER_CELL[form], cell_id="explorer-cell")
    first, before = counts(client), resident_mib(pid)
    for _ in range(10):  # collected after each run: what is left is what a run keeps
        run(client, EXPLORER_CELL[form], cell_id="explorer-cell")
        counts(client)
    assert counts(client) == first == {**first, "figures": 1}  # each run closed the one before
    grown = resident_mib(pid) - before
    assert grown < 8, f"{grown:.0f} MiB more after 10 runs"  # a kept figure: ~3.5 MiB a run

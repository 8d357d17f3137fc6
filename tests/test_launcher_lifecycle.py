"""`make present` and `make lab` over a class (issue 39 §2): the deck's kernels go with their pages
(at most tools.serve.voila_adapter.PAGE_KERNELS, measured after 30 loads), a server stops with the
command that started it (`kill -9` of make), the token stays out of kernels and redirected logs, and
bad input (an unwritable HOME, a path that is no text, a PORT that make would expand) is one
line."""

import asyncio
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

import pytest

from tests.browser.test_present_command import start_present
from tests.launchers import (
    ROOT,
    URL,
    alive,
    descendants,
    gone,
    kernels,
    launch,
    printed_url,
    request,
    server_failures,
    stop,
)
from tests.test_server_options import MAKE, launcher_said, needs_make, printed, user_env
from tools.publish.build_slides import AssetsUnavailable, vendor
from tools.serve.voila_adapter import CLOSED_GRACE, CULL_EVERY, PAGE_KERNELS, UNCONNECTED

KERNEL_ID = re.compile(rb'"kernelId": "([0-9a-f-]{36})"')
LOADS = 30


def rss_mib(pids) -> float:
    """The resident memory of pids together, in MiB."""
    total = 0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in lines if line.startswith("VmRSS:"))
    return total / 1024


def connect_and_close(url: str, token: str, kernel_id: str) -> None:
    """What a real page of the deck does with its kernel: open its websocket; then the page is
    closed or reloaded, and the browser closes it."""
    from tornado.websocket import websocket_connect

    async def page() -> None:
        ws = await websocket_connect(
            f"{url.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels?token={token}")
        await asyncio.sleep(0.2)
        ws.close()

    asyncio.run(page())


def wait_for(condition, timeout: float) -> bool:
    """Wait until condition() holds; False after timeout seconds (a wait, not a speed test)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def test_30_loads_of_the_deck_leave_at_most_8_kernels_and_the_closed_pages_kernels_go(tmp_path):
    process, url, token = start_present(tmp_path)
    counts, envs = [], []
    try:
        def load(n: int) -> None:
            status, page = request(url, f"/?token={token}&load={n}")
            assert status == 200, page[:200]
            kernel_id = KERNEL_ID.search(page)[1].decode()
            if n >= LOADS // 3:  # the first 10: plain loads; then pages that connect and close
                connect_and_close(url, token, kernel_id)
            counts.append(len(kernels(process.pid)))

        with ThreadPoolExecutor(3) as pool:  # a class reloading: three loads at a time
            list(pool.map(load, range(LOADS)))
        for pid in kernels(process.pid):  # a kernel's environment: no token, from any page
            try:
                envs.append(Path(f"/proc/{pid}/environ").read_bytes())
            except OSError:
                continue
        # the closed pages' kernels go within CLOSED_GRACE; the unconnected loads' stay until
        # culled, never more than PAGE_KERNELS in all
        time.sleep(CLOSED_GRACE + 2)
        after, memory = kernels(process.pid), rss_mib(kernels(process.pid))
        print(f"after {LOADS} loads: {len(after)} kernels, {memory:.0f} MiB; most at once "
              f"{max(counts)}")
        assert max(counts) <= PAGE_KERNELS, counts
        assert len(after) <= PAGE_KERNELS, after
        assert memory < PAGE_KERNELS * 200, memory
        assert envs and not [env for env in envs if token.encode() in env]
        assert any(b"QUERY_STRING=load=" in env for env in envs)  # the page's query, less token
        assert wait_for(lambda: not kernels(process.pid), UNCONNECTED + 2 * CULL_EVERY + 10), (
            f"unconnected kernels still run: {kernels(process.pid)}")
    finally:
        stop(process)
    assert server_failures((tmp_path / "voila.log").read_text()) == []


def test_a_page_beyond_the_bound_while_every_kernel_is_held_is_a_503_in_one_line(tmp_path):
    from tools.serve.voila_adapter import FULL

    assert len(FULL.format(PAGE_KERNELS).splitlines()) == 1
    assert FULL.startswith("Open pages of the deck must be at most {0}")


@needs_make
@pytest.mark.parametrize("target", ["lab", "present"])
def test_kill_9_of_make_stops_the_server_its_kernels_and_removes_its_files(tmp_path, target):
    if target == "present":
        try:
            vendor(ROOT / "build" / "slides")
        except AssetsUnavailable as error:
            (pytest.fail if os.environ.get("CI") else pytest.skip)(str(error))
    runtime = tmp_path / "runtime"
    runtime.mkdir(exist_ok=True)
    env = user_env(runtime, PORT="18990" if target == "lab" else "18995")
    with (tmp_path / "make.log").open("w") as log:
        make = subprocess.Popen([*MAKE, target], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=log, text=True, start_new_session=True)
    try:
        url, token = printed_url(make, tmp_path / "make.log")
        if target == "lab":
            assert request(url, "/api/kernels", method="POST", token=token)[0] == 201
        else:
            assert request(url, f"/?token={token}")[0] == 200  # the deck's kernel runs
        pids = descendants(make.pid)[1:]  # the launcher (make's child) and its kernel
        assert kernels(make.pid) and pids
        make.kill()  # kill -9 of make: the launcher is orphaned
        make.wait(10)
        assert gone(pids, url, timeout=30), f"still running after kill -9 of make: {alive(pids)}"
        assert list(runtime.iterdir()) == []  # its folder went with it
    finally:
        for pid in alive(descendants(make.pid)):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_the_token_stays_out_of_a_redirected_log_and_stdout(tmp_path):
    env = {**user_env(tmp_path), "PORT": "18960"}
    process, url, token = launch("tools.serve.servers", log=tmp_path / "lab.log", env=env)
    try:
        assert request(url, f"/api/status?token={token}")[0] == 200
        (holder,) = tmp_path.glob("the-position-problem-*/url")
        assert holder.stat().st_mode & 0o777 == 0o600 and token in holder.read_text()
    finally:
        stop(process)
    log = (tmp_path / "lab.log").read_text()
    assert token not in log  # `make lab 2>lab.log`
    assert set(re.findall(r"token=([^\s&]*)", log)) <= {"..."}, log  # Jupyter's placeholder only
    assert not holder.exists()


def test_on_a_terminal_the_url_with_its_token_is_printed_and_the_log_has_none(tmp_path):
    env = {**user_env(tmp_path), "PORT": "18965"}
    leader, terminal = pty.openpty()
    with (tmp_path / "lab.log").open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "tools.serve.servers"], cwd=ROOT, env=env,
                                   stdout=terminal, stderr=log, start_new_session=True)
    os.close(terminal)
    said = b""
    try:
        while not URL.search(said.decode(errors="replace")):
            ready, _, _ = select.select([leader], [], [], 120)
            assert ready, f"no URL on the terminal; it said {said[-500:]!r}"
            said += os.read(leader, 4096)
        token = URL.search(said.decode())[3]
    finally:
        stop(process)
        os.close(leader)
    assert token not in (tmp_path / "lab.log").read_text()


@pytest.mark.parametrize("argv", [[], ["present"], ["check"]], ids=["lab", "present", "check"])
def test_a_home_jupyter_cannot_write_to_is_said_in_one_line(tmp_path, argv):
    home = tmp_path / "home"
    home.write_text("a file, not a folder")  # unwritable even for root
    env = {**user_env(tmp_path), "HOME": str(home), "PORT": "18970"}
    env.pop("JUPYTER_RUNTIME_DIR")
    code, lines = printed([sys.executable, "-m", "tools.serve.servers", *argv], env)
    assert code != 0 and len(lines) == 1, lines
    assert lines[0].startswith(f"HOME must be a folder you can write to (Jupyter keeps a server's "
                               f"files in {home}/"), lines


@needs_make
def test_make_lab_with_a_home_jupyter_cannot_write_to_says_so_in_one_line(tmp_path):
    home = tmp_path / "home"
    home.write_text("")
    env = {**user_env(tmp_path), "HOME": str(home)}
    env.pop("JUPYTER_RUNTIME_DIR")
    code, lines = printed([*MAKE, "lab", "PORT=18971"], env)
    assert code != 0 and len(lines) == 1, lines
    assert launcher_said(lines[0]).startswith("HOME must be a folder you can write to")


@needs_make
@pytest.mark.parametrize("how", ["argument", "environment"])
@pytest.mark.parametrize("target", ["lab", "present"])
def test_make_passes_PORT_as_typed_and_expands_nothing_in_it(tmp_path, target, how):
    touched = tmp_path / "touched"
    port = f"$(shell touch {touched})"
    command = [*MAKE, "-n", target, *([f"PORT={port}"] if how == "argument" else [])]
    code, lines = printed(command, user_env(tmp_path, **({"PORT": port} if how != "argument"
                                                         else {})))
    assert not touched.exists(), "make ran the command in PORT"
    assert code != 0 and len(lines) == 1, lines
    assert launcher_said(lines[0]).startswith("PORT must be a whole number from 1 to 65535; got "
                                              "'$(shell touch ")


@needs_make
def test_make_passes_the_checked_PORT_to_the_server(tmp_path):
    code, lines = printed([*MAKE, "-n", "lab", "PORT=18973"], user_env(tmp_path))
    launcher = "PORT='18973' exec .venv/bin/python -m tools.serve.servers"
    assert code == 0 and lines == [launcher], lines

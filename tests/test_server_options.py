"""`make lab` and `make present` refuse a PORT they cannot use with one line, before serving."""

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.launchers import ROOT, server_failures
from tools.serve import servers


@pytest.mark.parametrize("port", ["abc", "-1", "0", "99999", "65536", "8888x", "1e3", "٨٨٨٨",
                                  "9" * 5000])
@pytest.mark.parametrize("argv", [[], ["present"]], ids=["lab", "present"])
def test_a_port_out_of_range_is_refused_with_one_line_naming_PORT(monkeypatch, argv, port):
    monkeypatch.setenv("PORT", port)
    monkeypatch.setattr(servers, "serve", lambda *a: pytest.fail("it served"))
    with pytest.raises(SystemExit) as stopped:
        servers.main(argv)
    said = str(stopped.value.code)
    assert said.startswith("PORT must be a whole number from 1 to 65535; got ")
    assert "\n" not in said and len(said) < 200 and "Traceback" not in said


@pytest.mark.parametrize(("value", "app", "port"), [
    ("", "lab", 8888), ("", "voila", 8866), (" 9000 ", "lab", 9000), ("1", "lab", 1),
    ("65535", "voila", 65535)])
def test_port_from_reads_PORT_or_the_default(value, app, port):
    assert servers.port_from({"PORT": value}, app) == port


def test_every_server_binds_127_0_0_1_only_and_leaves_voila_out_of_the_lab():
    for app in ("lab", "notebook", "voila"):
        assert any(o.endswith(".ip=127.0.0.1") for o in servers.options(app))
    lab = servers.options("lab")
    assert "voila.server_extension=False" in lab
    assert "--ServerApp.allow_remote_access=False" in lab


def test_the_launcher_binds_127_0_0_1_at_the_nearest_free_port_never_past_65535():
    first = servers.bind(40_000)
    second = servers.bind(40_000)  # the first holds it: the next free one
    try:
        (one,), (two,) = first, second
        assert one.getsockname() == ("127.0.0.1", 40_000) or one.getsockname()[1] in range(
            40_000, 40_050)
        assert two.getsockname()[0] == "127.0.0.1" and two.getsockname() != one.getsockname()
    finally:
        for each in (*first, *second):
            each.close()
    assert servers.near(65535)[:3] == [65535, 65534, 65533]
    assert servers.near(8888)[:2] == [8888, 8889] and max(servers.near(8888)) < 8888 + 50
    assert all(port in servers.PORTS for port in [*servers.near(1), *servers.near(65535)])


def test_a_server_log_counts_500s_and_server_tracebacks_but_not_a_kernels_shutdown_noise():
    kernel = ("[PresentVoila] Kernel shutdown: 100f\n[IPKernelApp] ERROR | Exception in message "
              "handler:\nTraceback (most recent call last):\n  File \"kernelbase.py\"\n"
              "zmq.error.ZMQError: Socket operation on non-socket\n")
    served = "404 GET /voila/files/Makefile (127.0.0.1) 0.24ms\n"
    crash = ("[PresentVoila] ERROR | Uncaught exception GET /\nTraceback (most recent call last):\n"
             "  File \"web.py\"\nKeyError: 'x'\n")
    assert server_failures(kernel + served) == []
    assert server_failures(served + crash + kernel) == [crash.rstrip("\n")]
    assert server_failures("500 GET / (127.0.0.1) 3ms\n" + served) == ["500 GET / (127.0.0.1) 3ms"]


# `make lab` and `make present` as a user types them, set-up left out (make -o: the environment
# counts as installed, so nothing is fetched); make's own variables from a make that runs pytest
# left out too.
MAKE = ["make", "--no-print-directory", "-o", ".venv/.installed"]
NOT_MAKES = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PORT", "NB", "JUPYTER_TOKEN")


def printed(command: list[str], env: dict[str, str], timeout: float = 90) -> tuple[int, list[str]]:
    """Run command from the repository's folder: (exit code, every line it printed, stdout and
    stderr together). One still running after timeout seconds has served: it fails the test."""
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as process:
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            pytest.fail(f"{' '.join(command)} still ran after {timeout} s; it said:\n{out[-2000:]}")
    return process.returncode, out.splitlines()


def launcher_said(line: str) -> str:
    """line without make's frame around an $(error): "Makefile:NN: *** ", ".  Stop."."""
    return re.sub(r"^Makefile:\d+: \*\*\* (.*)\.  Stop\.$", r"\1.", line)


def user_env(runtime: Path, **chosen: str) -> dict[str, str]:
    """The user's environment, with Jupyter's runtime folder in runtime."""
    env = {name: value for name, value in os.environ.items() if name not in NOT_MAKES}
    return {**env, "JUPYTER_RUNTIME_DIR": str(runtime), **chosen}


needs_make = pytest.mark.skipif(
    shutil.which("make") is None or not (ROOT / ".venv" / "bin" / "python").exists(),
    reason="make and the project's .venv are needed")


@needs_make
@pytest.mark.parametrize("port", ["abc", "65536"])
@pytest.mark.parametrize("target", ["lab", "present"])
def test_make_says_a_bad_PORT_in_one_line_and_nothing_else(tmp_path, target, port):
    code, lines = printed([*MAKE, target, f"PORT={port}"], user_env(tmp_path))
    assert code != 0
    assert len(lines) == 1, lines
    assert launcher_said(lines[0]).startswith("PORT must be a whole number from 1 to 65535; got ")


@pytest.fixture
def every_port_near():
    """A port P (from 20000 to 32000) with every port from P - 120 to P + 120 in use (held here,
    or by another program). Below Linux's ephemeral ports (32768 on): the other two runs of
    `make test` bind free ports the system picks, and none of those is held here."""
    P = random.Random().randrange(20_000, 32_000)
    held = []
    for port in range(P - 120, P + 121):
        sock = socket.socket()
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
            held.append(sock)
        except OSError:  # in use already
            sock.close()
    try:
        yield P
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("how", ["python -m", pytest.param("make", marks=needs_make)])
@pytest.mark.parametrize("target", ["lab", "present"])
def test_with_every_port_near_PORT_in_use_the_launcher_says_so_in_one_line(every_port_near, how,
                                                                           target, tmp_path):
    args = ["present"] if target == "present" else []
    command = ([*MAKE, target, f"PORT={every_port_near}"] if how == "make" else
               [sys.executable, "-m", "tools.serve.servers", *args])
    code, lines = printed(command, user_env(tmp_path, PORT=str(every_port_near)))
    assert code != 0
    assert len(lines) == 1, lines
    assert launcher_said(lines[0]).startswith(f"PORT must be a free port, or have one near it; "
                                              f"got {every_port_near}, and ")

"""Helpers for the tests of `make lab` and `make present`: run the command, read its URL, probe."""

import functools
import http.client
import http.server
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit

from tools.run.lab_driver import descendants

ROOT = Path(__file__).resolve().parent.parent
URL = re.compile(r"(http://127\.0\.0\.1:(\d+))/\S*\?token=(\w+)")
HOLDER = re.compile(r"Its token is in (\S+) \(yours alone")  # stdout not a terminal


def spawn(module: str, *args: str, log: Path, env: dict[str, str] | None = None,
          ignoring: tuple[signal.Signals, ...] = ()):
    """Run `python -m module args` as make does, its log (stderr) to the file log; with the
    signals ``ignoring`` ignored, as a shell leaves them for `nohup make lab &` (the shell's trap
    '', then exec: the same process)."""
    command = [sys.executable, "-m", module, *args]
    if ignoring:
        traps = " ".join(sig.name.removeprefix("SIG") for sig in ignoring)
        command = ["/bin/sh", "-c", f'trap "" {traps}; exec "$@"', "sh", *command]
    with log.open("w") as stderr:
        return subprocess.Popen(command, cwd=ROOT, text=True, env=env, stdout=subprocess.PIPE,
                                stderr=stderr, start_new_session=True)


def printed_url(process: subprocess.Popen, log: Path) -> tuple[str, str]:
    """(base URL, token) of the URL the command prints: on a pipe, the token is not printed but
    kept in the file the command names."""
    for line in process.stdout:
        if match := URL.search(line):
            return match[1], match[3]
        if held := HOLDER.search(line):
            match = URL.search(Path(held[1]).read_text())
            return match[1], match[3]
    raise AssertionError(f"no URL printed; the log:\n{log.read_text()[-3000:]}")


def launch(module: str, *args: str, log: Path, env: dict[str, str] | None = None,
           ignoring: tuple[signal.Signals, ...] = ()):
    """spawn, then wait for the URL: (process, base URL, token)."""
    process = spawn(module, *args, log=log, env=env, ignoring=ignoring)
    try:
        return process, *printed_url(process, log)
    except AssertionError:
        stop(process)
        raise


def command_lines(pid: int) -> list[str]:
    """The command lines of pid and its descendants, as any local user can read them."""
    lines = []
    for each in descendants(pid):
        try:
            lines.append(Path(f"/proc/{each}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return lines


def request(url: str, path: str, host: str | None = None, limit: int | None = None,
            method: str = "GET", token: str | None = None) -> tuple[int, bytes]:
    """GET (or method) path exactly as written (no normalisation), with the given Host header
    (and the token, as a header); the status and the first limit bytes of the body (all by
    default; Voilà streams a page as its cells run)."""
    parts = urlsplit(url)
    headers = {"Host": host or parts.netloc, **({"Authorization": f"token {token}"} if token
                                                 else {})}
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        connection.request(method, path, body=b"{}" if method == "POST" else None,
                           headers=headers)
        response = connection.getresponse()
        return response.status, response.read(limit)
    finally:
        connection.close()


def listening(url: str) -> bool:
    """True if something accepts connections at url's port."""
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=2).close()
        return True
    except OSError:
        return False


def alive(pids) -> list[int]:
    """Those of pids still running (not zombies)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running


def _session(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
    except (OSError, IndexError, ValueError):
        return None


def held_listeners(pids, url: str) -> list[int]:
    """The processes that hold a socket listening at url's port and are among pids or in their
    sessions (a launcher starts its own: a child it left behind is in it too). Another test's
    server that took the freed port since is in neither."""
    port = urlsplit(url).port
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()  # local address "HEX_IP:HEX_PORT", state 0A is LISTEN
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return []
    pids = list(pids)
    sessions = {pids[0], *(_session(pid) for pid in pids)} - {None}  # the first: the leader
    holders = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        pid = int(stat.parent.name)
        if pid not in pids and _session(pid) not in sessions:
            continue
        with suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in (stat.parent / "fd").iterdir()):
                holders.append(pid)
    return holders


def gone(pids, url: str, timeout: float = 30) -> bool:
    """Wait until none of pids runs and none of them (or of their sessions) holds a socket
    listening at url's port; False after timeout seconds. Whether the URL answers says nothing:
    a server of another test may have taken the freed port."""
    deadline = time.monotonic() + timeout
    while alive(pids) or held_listeners(pids, url):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def stop(process: subprocess.Popen) -> None:
    """Stop the command as `kill` would, and whatever it left running."""
    left = descendants(process.pid)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        pass
    for pid in left:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def server_failures(log: str) -> list[str]:
    """The records of a server log that show the server failing: a 5xx answer, or a traceback
    the server printed. A kernel's own shutdown noise does not count: ipykernel prints a ZMQError
    when it is stopped mid-execute (Voilà stops a page's kernel when the page is closed early)."""
    records = re.split(r"\n(?=\[|\d{3} )", log)  # one record: a line "[App] …" or "404 GET …", and
    return [record for record in records     # the traceback lines below it
            if re.match(r"5\d\d ", record)
            or ("Traceback" in record and not record.startswith("[IPKernelApp]"))]


def kernels(pid: int) -> list[int]:
    """The ipykernel processes below pid."""
    found = []
    for each in descendants(pid):
        try:
            if b"ipykernel" in Path(f"/proc/{each}/cmdline").read_bytes():
                found.append(each)
        except OSError:
            continue
    return found


def assert_no_utf8_path_is_a_one_line_400(url: str, token: str, path: str, log: Path) -> None:
    """A path that is no UTF-8 gets a one-line 400, with or without the token, a foreign Host a
    403, and the server's log no traceback."""
    for with_token in (token, None):
        status, body = request(url, path, token=with_token)
        assert status == 400 and body.startswith(b"The path must be UTF-8 text"), (status, body)
        assert len(body.splitlines()) == 1 and len(body) < 200
    assert request(url, path, host="evil.example")[0] == 403
    assert "Traceback" not in log.read_text()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no line a request
        pass


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """`python -m http.server` over folder on 127.0.0.1, in a thread: yields its URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)

"""Start a Jupyter server of this environment on 127.0.0.1: JupyterLab, Notebook 7 or Voilà.

`make lab` runs `python -m tools.servers`; `make present` (tools/present.py) and the browser tests
call start().

- The token travels in the environment (JUPYTER_TOKEN, readable only by its owner), never on a
  command line, which any local user can read in /proc/PID/cmdline.
- The server binds its port itself (the preferred one, else a free one near it) and the URL is
  built from the port the server reports: two servers started together each print their own.
- A request whose Host header names another machine (a DNS-rebinding page) is refused: by
  Jupyter's own check (allow_remote_access off), and by tools/voila_app.py for Voilà.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
REPORTED = re.compile(rf"http://{re.escape(HOST)}:(\d+)/")  # the server's "is running at" line


@dataclass
class Server:
    process: subprocess.Popen
    url: str  # http://127.0.0.1:PORT, the port the server reported
    token: str


def command(app: str, *options: str) -> list[str]:
    """The command line of app ("lab", "notebook" or "voila"): 127.0.0.1 only, and no token."""
    if app == "voila":
        return [sys.executable, "-m", "tools.voila_app", f"--Voila.ip={HOST}",
                "--Voila.port_retries=50", "--no-browser", *options]
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    return [sys.executable, "-m", "jupyter", app, f"--ServerApp.ip={HOST}",
            "--ServerApp.port_retries=50", "--ServerApp.allow_remote_access=False",
            "--no-browser", *as_root, *options]


def start(app: str, *options: str, port: int = 8888, env: dict[str, str] | None = None,
          log: Path | None = None) -> Server:
    """Start app on port (or a free one near it) with a random token; return once it serves.

    The server runs in its own process group from the repository's folder; its output goes on
    to the file log (default: this process's stderr). jupyter_server reports a port it found
    free and binds it a moment later: a server that lost its port to another one started at the
    same moment exits, and is started again."""
    env = dict(os.environ if env is None else env)
    env["JUPYTER_TOKEN"] = env.get("JUPYTER_TOKEN") or secrets.token_hex(24)
    for _ in range(5):
        server = launch(command(app, f"--port={port}", *options), env, log)
        if app == "voila" or serves(server):  # Voilà reports its port once it is bound
            return server
        stop(server.process)
    raise RuntimeError(f"jupyter {app} found no port it could keep; its output: {log or 'above'}")


def launch(args: list[str], env: dict[str, str], log: Path | None) -> Server:
    """Run args; return once the server reports its port."""
    process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
                               stderr=subprocess.STDOUT, start_new_session=True)
    reported: list[int] = []
    ready = threading.Event()
    threading.Thread(target=relay, args=(process, log, reported, ready), daemon=True).start()
    if not ready.wait(120) or not reported:
        stop(process)
        raise RuntimeError(f"the server did not report its port (exit code "
                           f"{process.returncode}); its output: {log or 'above'}")
    return Server(process, f"http://{HOST}:{reported[0]}", env["JUPYTER_TOKEN"])


def serves(server: Server, timeout: float = 120) -> bool:
    """True once the server's URL accepts its token (it is this server, not another one on the
    same port); False if it exits first."""
    status = urllib.request.Request(f"{server.url}/api/status",
                                    headers={"Authorization": f"token {server.token}"})
    deadline = time.monotonic() + timeout
    while server.process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(status, timeout=5):
                return True
        except OSError:  # not listening yet, or another server's port (403)
            time.sleep(0.2)
    return False


def relay(process: subprocess.Popen, log: Path | None, reported: list[int],
          ready: threading.Event) -> None:
    """Copy the server's output to log; note the first port it reports, and when it exits."""
    with open(log, "a") if log else nullcontext(sys.stderr) as out:
        for line in process.stdout:
            out.write(line)
            out.flush()
            if not reported and (match := REPORTED.search(line)):
                reported.append(int(match.group(1)))
                ready.set()
    ready.set()


def stop(process: subprocess.Popen) -> None:
    """Stop the server and its kernels (its process group): SIGTERM, then SIGKILL after 10 s."""
    for sig, grace in [(signal.SIGTERM, 10), (signal.SIGKILL, 5)]:
        if process.poll() is not None:
            return
        with suppress(ProcessLookupError, subprocess.TimeoutExpired):  # gone, or still going
            os.killpg(process.pid, sig)
            process.wait(grace)


def serve_until_stopped(server: Server, title: str, path: str) -> None:
    """Print the URL to open, then wait; Ctrl+C, `kill` or closing the terminal stops the server
    and its kernels."""
    print(f"\n  {title}:\n\n    {server.url}/{path}?token={server.token}\n\n"
          "  (Ctrl+C stops the server.)\n", flush=True)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    with suppress(KeyboardInterrupt):
        server.process.wait()
    stop(server.process)


def main() -> None:
    """`make lab`: JupyterLab on notebooks/; PORT picks the preferred port (default 8888)."""
    server = start("lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}",
                   port=int(os.environ.get("PORT", 8888)))
    serve_until_stopped(server, "The Position Problem is open at", "lab/tree/00_start_here.ipynb")


if __name__ == "__main__":
    main()

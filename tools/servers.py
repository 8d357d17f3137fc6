"""Start a Jupyter server of this environment on 127.0.0.1: JupyterLab, Notebook 7 or Voilà.

    python -m tools.servers               # `make lab`: JupyterLab on notebooks/
    python -m tools.servers present [NB]  # `make present`: a notebook as live slides in Voilà

The browser tests call start() and present().

- The token travels in the environment (JUPYTER_TOKEN, readable only by its owner), never on a
  command line, which any local user can read in /proc/PID/cmdline.
- The server binds its port itself (the preferred one, else a free one near it) and the URL is
  built from the port the server reports: two servers started together each print their own.
- A request whose Host header names another machine (a DNS-rebinding page) is refused: by
  Jupyter's own check (allow_remote_access off), and by tools/voila_app.py for Voilà.
"""

import os
import queue
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
        process = subprocess.Popen(command(app, f"--port={port}", *options), cwd=ROOT, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        ports = queue.Queue()
        threading.Thread(target=relay, args=(process, log, ports), daemon=True).start()
        reported = None
        with suppress(queue.Empty):  # not within 2 minutes
            reported = ports.get(timeout=120)
        server = Server(process, f"http://{HOST}:{reported}", env["JUPYTER_TOKEN"])
        if reported and (app == "voila" or serves(server)):  # Voilà reports a port it has bound
            return server
        stop(process)
        if not reported:  # it failed, or hung, before it reported a port: no use starting again
            break
    raise RuntimeError(f"jupyter {app} did not start, or lost every port it found (exit code "
                       f"{process.returncode}); its output: {log or 'above'}")


def relay(process: subprocess.Popen, log: Path | None, ports: queue.Queue) -> None:
    """Copy the server's output to log; put each port it reports, and None when it exits."""
    with open(log, "a") if log else nullcontext(sys.stderr) as out:
        for line in process.stdout:
            out.write(line)
            out.flush()
            if match := REPORTED.search(line):
                ports.put(int(match[1]))
    ports.put(None)


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


def stop(process: subprocess.Popen) -> None:
    """Stop the server and its kernels (its process group): SIGTERM, then SIGKILL after 10 s."""
    for sig, grace in [(signal.SIGTERM, 10), (signal.SIGKILL, 5)]:
        if process.poll() is not None:
            return
        with suppress(ProcessLookupError, subprocess.TimeoutExpired):  # gone, or still going
            os.killpg(process.pid, sig)
            process.wait(grace)


def notebook_path(name: str = "*_dog_bites_man_explorer") -> Path:
    """notebooks/NAME.ipynb, for NAME with or without .ipynb or notebooks/, or a glob."""
    found = sorted((ROOT / "notebooks").glob(f"{Path(name).stem}.ipynb"))
    if len(found) != 1:
        names = ", ".join(p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
        raise ValueError(f"NB must name one notebook in notebooks/; got {name!r}. "
                         f"Pick one of: {names}")
    return found[0]


def present(notebook: Path, env: dict[str, str] | None = None, log: Path | None = None) -> Server:
    """Voilà serving notebook as a reveal.js deck with live widgets, code hidden (the template
    tools/voila/templates/series-reveal); its assets go to build/slides/vendor/ first. It serves
    the deck's copy (tools/deck.py: prose in the notes, exercises as tasks), build/present/."""
    import nbformat  # imported only when slides are wanted, as nbconvert is

    from tools.build_slides import vendor
    from tools.deck import deck_of

    vendor(ROOT / "build" / "slides")
    deck = ROOT / "build" / "present" / notebook.name
    deck.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(deck_of(notebook), deck)
    notebook = deck
    env = dict(os.environ if env is None else env)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(ROOT / "tools"),
                                                        env.get("JUPYTER_PATH")]))
    return start("voila", str(notebook), "--template=series-reveal",
                 port=int(env.get("PORT", 8866)), env=env, log=log)


def main(argv: list[str]) -> None:
    """Print the URL to open, then wait; Ctrl+C, `kill` or closing the terminal stops the server
    and its kernels. PORT picks the preferred port (default 8888 for Lab, 8866 for Voilà)."""
    try:
        if argv[:1] == ["present"]:
            notebook = notebook_path(*argv[1:2])
            server, path = present(notebook), ""
            title = f"{notebook.stem} as live slides (arrow keys move)"
        else:
            server = start("lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}",
                           port=int(os.environ.get("PORT", 8888)))
            title, path = "The Position Problem is open at", "lab/tree/00_start_here.ipynb"
    except (ValueError, RuntimeError) as error:  # RuntimeError: also AssetsUnavailable
        sys.exit(str(error))
    print(f"\n  {title}:\n\n    {server.url}/{path}?token={server.token}\n\n"
          "  (Ctrl+C stops the server.)\n", flush=True)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    with suppress(KeyboardInterrupt):
        server.process.wait()
    stop(server.process)


if __name__ == "__main__":
    main(sys.argv[1:])

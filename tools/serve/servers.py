"""Serve this environment's Jupyter on 127.0.0.1: JupyterLab, Notebook 7 or Voilà.

    python -m tools.serve.servers               # `make lab`: JupyterLab on the repository, at 00
    python -m tools.serve.servers present [NB]  # `make present`: a notebook as live slides in Voilà
    python -m tools.serve.servers serve APP [OPTION ...]  # what start() runs (the browser tests)
    python -m tools.serve.servers check [present [NB]]  # the checks alone (make's first step)
    python -m tools.serve.servers check-early [present [NB]]  # the same, before the set-up

- The launcher is the server: after its checks it runs the Jupyter app in its own process, so
  nothing it started outlives it, whatever stops it (a kernel ends when its parent goes:
  ipykernel's parent poller; `kill -9` included). Nor do its files: they go to a runtime folder
  of its own, removed as it ends, or by the next launch if it was killed (tools/serve/runtime.py).
- Nor does it outlive the command that started it (make, a shell, a test), however that ends:
  `kill -9` of make stops the server within a second, as SIGTERM does, kernels and files with it
  (tools.serve.runtime.end_with_parent). The Makefile runs it with exec, so its parent is make.
- The URL with the token is printed to a terminal only. When stdout is not a terminal (`make lab
  > lab.log`, a pipe) the URL is printed without it, and the line after names the file that
  holds the whole URL: "url" in the server's private runtime folder, readable by the user alone
  (0600 in a 0700 folder), gone when the server stops. Jupyter's own log (stderr) never holds
  the token (jupyter_adapter.py). (start() reads the token from a pipe of its own: print_json.)
- A HOME (or JUPYTER_RUNTIME_DIR) where Jupyter cannot keep its runtime files is said in one line
  (tools.serve.runtime.runtime_base), by the checks too.
- The server makes its token (jupyter_adapter.py, or Voilà's), which never reaches a command line.
  The launcher binds the port before anything starts ($PORT, else the nearest free port to it, up
  to 65535) and the server listens on that socket (jupyter_adapter.py, voila_adapter.py): the
  URL, printed once it listens, names the port bound, and two servers started together each get
  their own. A PORT that is no port, or with no free port near it, is said in one line.
- A request whose Host header names another machine (a DNS-rebinding page) is refused: by
  Jupyter's own check (allow_remote_access off), and by voila_adapter.py for Voilà. Voilà's
  server extension, which skips that check, is not loaded into JupyterLab.
- A path that names nothing (a NUL byte, a name too long for a file, an unknown export format) is
  a 404, never a 500 (tools/serve/jupyter_adapter.py, tools/serve/voila_adapter.py).
- SIGINT, SIGTERM and SIGHUP stop the server and shut its kernels down, even in a launcher that
  was started with SIGINT ignored (`make lab &` in a script); SIGHUP is left ignored under nohup.
"""

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PORTS = range(1, 65536)
DEFAULT_PORT = {"lab": 8888, "notebook": 8888, "voila": 8866}


@dataclass
class Server:
    process: subprocess.Popen
    url: str  # http://127.0.0.1:PORT, the port the server bound
    token: str


def options(app: str) -> list[str]:
    """app's options ("lab", "notebook" or "voila"): 127.0.0.1 only, no browser opened. The port
    is the socket's (bind)."""
    if app == "voila":
        return [f"--Voila.ip={HOST}", "--no-browser"]
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    return [f"--ServerApp.ip={HOST}", "--ServerApp.allow_remote_access=False",
            "--ServerApp.open_browser=False",
            "--ServerApp.jpserver_extensions", "voila.server_extension=False", *as_root]


def port_from(env, app: str) -> int:
    """$PORT, the preferred port (default 8888, or 8866 for Voilà), or a one-line ValueError."""
    text = env.get("PORT", "").strip()
    if not text:
        return DEFAULT_PORT[app]
    if not (text.isascii() and text.isdigit() and len(text) < 6 and int(text) in PORTS):
        raise ValueError(f"PORT must be a whole number from {PORTS[0]} to {PORTS[-1]}; got "
                         f"{text[:20]!r}{'…' if len(text) > 20 else ''}. Pick a port such as "
                         f"PORT={DEFAULT_PORT[app]}, or leave PORT unset.")
    return int(text)


def near(port: int) -> list[int]:
    """port, the 49 ports after it, then the 50 before it: those of them in PORTS."""
    return [*range(port, min(port + 50, PORTS[-1] + 1)),
            *range(port - 1, max(port - 51, PORTS[0] - 1), -1)]


def bind(port: int) -> list[socket.socket]:
    """Listening sockets on 127.0.0.1 at port, else at the nearest free port to it (near); a
    one-line ValueError if there is none."""
    try:
        from tornado.netutil import bind_sockets  # the sockets Jupyter's servers would bind
    except ImportError:  # `check-early`: the system's Python, before the set-up
        bind_sockets = plain_socket

    why = set()
    for each in near(port):
        try:
            return bind_sockets(each, HOST)
        except OSError as error:  # in use, or not this user's to use
            why.add(error.strerror)
    tried = near(port)
    raise ValueError(f"PORT must be a free port, or have one near it; got {port}, and "
                     f"{min(tried)} to {max(tried)} are all taken ({'; '.join(sorted(why))}). "
                     "Stop a server that holds one, or pick another PORT.")


def plain_socket(port: int, host: str) -> list[socket.socket]:
    """A listening socket at host:port, as tornado's bind_sockets makes one (address reuse)."""
    plain = socket.socket()
    try:
        plain.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        plain.bind((host, port))
        plain.listen()
    except OSError:
        plain.close()
        raise
    return [plain]


def serve(app: str, argv: list[str], sockets: list[socket.socket], announce) -> None:
    """Run app with argv (after options(app)) in this process, listening on sockets, until a
    signal stops it, or the process that started this one dies; announce(port, token) is called
    once it listens. Its files go to a runtime folder of its own."""
    from tools.serve.runtime import end_with_parent, own_runtime_dir

    def listening(port: int, token: str) -> None:  # the loop runs, the signal handlers are set
        end_with_parent()
        announce(port, token)

    port = sockets[0].getsockname()[1]  # the port bound, which the app reports from the start
    argv = [*argv, f"--{'Voila' if app == 'voila' else 'ServerApp'}.port={port}"]
    stop_on = [sig for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
               if sig != signal.SIGHUP or signal.getsignal(sig) is not signal.SIG_IGN]  # nohup
    with own_runtime_dir():
        if app == "voila":
            from tools.serve.voila_adapter import PresentVoila

            server = PresentVoila.instance(auto_token=True)  # no JUPYTER_TOKEN: a random one
            server.initialize(argv)
            server.sockets, server.announce, server.stop_on = sockets, listening, stop_on
        else:
            from tools.serve.jupyter_adapter import initialized

            if app == "lab":
                from jupyterlab.labapp import LabApp as App
            else:
                from notebook.app import JupyterNotebookApp as App
            server = initialized(App, argv, sockets)
            server.io_loop.add_callback(lambda: listening(port, server.identity_provider.token))
            for sig in stop_on:  # the kernels, then the loop
                signal.signal(sig, lambda *_: server.stop(from_signal=True))
        server.start()


def print_url(title: str, path: str):
    """announce for `make lab` and `make present`: the URL to open (with its token on a terminal
    only, else the file that holds it), then stdout is done (whoever reads the URL from a pipe
    sees the pipe end there)."""
    def announce(port: int, token: str) -> None:
        url = f"http://{HOST}:{port}/{path}"
        if sys.stdout.isatty():
            shown = f"    {url}?token={token}\n"
        else:  # a file or a pipe: the token stays in the private runtime folder
            holder = Path(os.environ["JUPYTER_RUNTIME_DIR"]) / "url"
            with open(os.open(holder, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
                out.write(f"{url}?token={token}\n")
            shown = (f"    {url}\n\n  Its token is in {holder} (yours alone; it goes when the "
                     "server stops): open the URL that file holds.\n")
        print(f"\n  {title}:\n\n{shown}\n  (Ctrl+C stops the server.)\n", flush=True)
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return announce


def print_json(port: int, token: str) -> None:
    """announce for start(): one JSON line on stdout."""
    print(json.dumps({"url": f"http://{HOST}:{port}", "token": token}), flush=True)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())


def start(app: str, *more: str, port: int = 8888, env: dict[str, str] | None = None,
          log: Path | None = None) -> Server:
    """Start app ("lab", "notebook" or "voila") with the options more, on port or a free one
    near it, in a process of its own (its own process group) from the repository's folder;
    return once it listens. Its log goes to the file log (default: this process's stderr)."""
    command = [sys.executable, "-m", "tools.serve.servers", "serve", app, *options(app), *more]
    env = {**(os.environ if env is None else env), "PORT": str(port)}
    with open(log, "a") if log else nullcontext(None) as stderr:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                   stderr=stderr, text=True, start_new_session=True)
    line = first_line(process, timeout=120)
    if not line:
        stop(process)
        raise RuntimeError(f"jupyter {app} did not start within 2 minutes (exit code "
                           f"{process.returncode}); its output: {log or 'above'}")
    said = json.loads(line)
    return Server(process, said["url"], said["token"])


def first_line(process: subprocess.Popen, timeout: float) -> str:
    """The first line process writes to stdout, or "" if it exits or takes longer."""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(timeout):
            return process.stdout.readline()
    return ""


def stop(process: subprocess.Popen) -> None:
    """Stop a server that start() started: SIGTERM (it shuts its kernels down first), then
    SIGKILL to its process group after 20 s."""
    for sig, grace in [(signal.SIGTERM, 20), (signal.SIGKILL, 5)]:
        if process.poll() is not None:
            return
        with suppress(ProcessLookupError, subprocess.TimeoutExpired):  # gone, or still going
            (os.kill if sig == signal.SIGTERM else os.killpg)(process.pid, sig)
            process.wait(grace)


def notebook_path(name: str = "*_dog_bites_man_explorer") -> Path:
    """notebooks/NAME.ipynb, for NAME with or without .ipynb or notebooks/, or a glob."""
    found = sorted((ROOT / "notebooks").glob(f"{Path(name).stem}.ipynb"))
    if len(found) != 1:
        names = ", ".join(p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
        raise ValueError(f"NB must name one notebook in notebooks/; got {name!r}. "
                         f"Pick one of: {names}")
    return found[0]


# JupyterLab extensions Voilà would load into a deck that have no use there: Notebook 7's, which
# fails to load outside Notebook 7 ("The getter for the shared module is not a function")
NOT_IN_A_DECK = ["@jupyter-notebook/lab-extension"]


def deck(notebook: Path) -> list[str]:
    """Voilà's arguments for notebook as a reveal.js deck with live widgets, code hidden (the
    template voila/templates/series-reveal): its assets go to build/slides/vendor/ first,
    and the deck's copy (tools/publish/deck.py: prose in the notes, exercises as tasks) to
    build/present/."""
    import nbformat  # imported only when slides are wanted, as nbconvert is

    from tools.publish.build_slides import vendor
    from tools.publish.deck import deck_of

    vendor(ROOT / "build" / "slides")
    copy = ROOT / "build" / "present" / notebook.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(deck_of(notebook), copy)
    return [str(copy), "--template=series-reveal", f"--VoilaConfiguration.extension_denylist="
            f"{json.dumps(NOT_IN_A_DECK)}"]


def with_templates(env) -> dict[str, str]:
    """env with tools/serve/ on JUPYTER_PATH, where Voilà finds the series-reveal template."""
    return {**env, "JUPYTER_PATH": os.pathsep.join(filter(None, [str(ROOT / "tools" / "serve"),
                                                                   env.get("JUPYTER_PATH")]))}


def present(notebook: Path, env: dict[str, str] | None = None, log: Path | None = None) -> Server:
    """Voilà serving notebook as live slides (deck()), started as start() does."""
    env = dict(os.environ if env is None else env)
    return start("voila", *deck(notebook), port=port_from(env, "voila"),
                 env=with_templates(env), log=log)


def checked(argv: list[str], early: bool = False) -> tuple[str, int, Path | None]:
    """The app argv asks for, its preferred port and the notebook to present (or None); a
    one-line ValueError for a PORT or an NB that is not one, or a runtime folder that cannot
    be made. An empty NB is the default one (the Makefile passes NB quoted)."""
    if argv[:1] == ["serve"]:
        chosen = argv[1], port_from(os.environ, argv[1]), None
    elif argv[:1] == ["present"]:
        chosen = "voila", port_from(os.environ, "voila"), notebook_path(*filter(None, argv[1:2]))
    else:
        chosen = "lab", port_from(os.environ, "lab"), None
    if not early:  # early: no Jupyter yet
        from tools.serve.runtime import runtime_base

        runtime_base()
    return chosen


def main(argv: list[str]) -> None:
    """Check the arguments and bind the port, then serve until stopped (Ctrl+C, `kill`, closing
    the terminal). `check` stops after the checks: the Makefile runs it first, and says what
    failed in make's own one line (`$(error)`, which ends it with ".  Stop."). `check-early`
    is the same checks with the system's Python, before the set-up has installed Jupyter (no
    runtime folder yet, the port probed with a plain socket)."""
    early = argv[:1] == ["check-early"]
    if not early:
        import tools.serve.runtime  # noqa: F401  (it notes the parent as the process starts)

    checking = early or argv[:1] == ["check"]
    try:
        app, port, notebook = checked(argv[1:] if checking else argv, early)
        sockets = bind(port)
        if checking:
            for each in sockets:
                each.close()
            return
        if argv[:1] == ["serve"]:
            more, announce = argv[2:], print_json
        elif notebook:
            more = [*options(app), *deck(notebook)]
            os.environ.update(with_templates(os.environ))
            announce = print_url(f"{notebook.stem} as live slides (arrow keys move)", "")
        else:
            more = [*options(app), f"--ServerApp.root_dir={ROOT}"]  # solutions/ too
            os.environ["POSATTN_PROGRESS"] = str(os.getpid())  # its kernels show progress
            announce = print_url("The Position Problem is open at",
                                 "lab/tree/notebooks/00_start_here.ipynb")
    except (ValueError, RuntimeError) as error:  # RuntimeError: also AssetsUnavailable
        sys.exit(str(error).removesuffix(".") if checking else str(error))
    serve(app, more, sockets, announce)


if __name__ == "__main__":
    main(sys.argv[1:])

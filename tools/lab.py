"""Start JupyterLab on notebooks/, on 127.0.0.1 with a fresh random token, and print the URL."""

import os
import secrets
import socket
import sys
from pathlib import Path


def free_port(preferred: int = 8888) -> int:
    for port in (preferred, 0):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError("no free port on 127.0.0.1")


def main() -> None:
    root = Path(__file__).resolve().parent.parent / "notebooks"
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_hex(24)
    port = free_port(int(os.environ.get("PORT", 8888)))
    url = f"http://127.0.0.1:{port}/lab/tree/00_start_here.ipynb?token={token}"
    print(f"\n  The Position Problem is opening at:\n\n    {url}\n\n  (Ctrl+C twice stops the server.)\n", flush=True)
    args = [
        sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={root}", "--ip=127.0.0.1",
        f"--port={port}", f"--IdentityProvider.token={token}", "--ServerApp.port_retries=0",
    ]
    if os.geteuid() == 0:
        args.append("--allow-root")
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        args.append("--no-browser")
    os.execv(sys.executable, args)


if __name__ == "__main__":
    main()

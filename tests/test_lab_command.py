"""`make lab` runs tools/lab.py: JupyterLab on notebooks/, bound to 127.0.0.1, behind a random token."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except urllib.error.URLError:  # not listening yet
        return 0, b""


def test_lab_serves_the_notebooks_on_localhost_behind_a_token(tmp_path):
    port = free_port()
    env = {**os.environ, "PORT": str(port), "JUPYTER_TOKEN": "", "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    server = subprocess.Popen([sys.executable, str(ROOT / "tools" / "lab.py")], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    try:
        url = next(line for line in server.stdout if "token=" in line).strip()
        assert url.startswith(f"http://127.0.0.1:{port}/lab/tree/00_start_here.ipynb?token=")
        token = re.search(r"token=(\w+)", url).group(1)
        assert len(token) >= 32  # never empty, never guessable
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            status, body = get(f"{base}/api/contents?token={token}")
            if status == 200:
                break
            time.sleep(0.25)
        names = {item["name"] for item in json.loads(body)["content"]}
        assert "00_start_here.ipynb" in names  # the server's root is notebooks/
        assert get(f"{base}/api/contents")[0] == 403  # no token, no access
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)

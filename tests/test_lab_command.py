"""`make lab` (python -m tools.servers): JupyterLab on notebooks/, 127.0.0.1 only, behind a token
that never appears on a command line, refusing foreign Host headers, each launch on its own port."""

import json
import os

import pytest

from tests.launchers import command_lines, launch, printed_url, request, spawn, stop

pytestmark = pytest.mark.browser  # starts servers


def lab_env(tmp_path) -> dict[str, str]:
    """The user's environment: no token or port chosen (8888 is preferred, as `make lab` does)."""
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    for chosen in ("JUPYTER_TOKEN", "PORT"):
        env.pop(chosen, None)
    return env


def test_lab_serves_the_notebooks_behind_a_token_kept_off_every_command_line(tmp_path):
    process, url, token = launch("tools.servers", log=tmp_path / "lab.log",
                                 env=lab_env(tmp_path))
    try:
        assert len(token) >= 32  # never empty, never guessable
        status, body = request(url, f"/api/contents?token={token}")
        assert status == 200
        assert "00_start_here.ipynb" in {item["name"] for item in json.loads(body)["content"]}
        assert request(url, "/api/contents")[0] == 403  # no token, no access
        lines = command_lines(process.pid)
        assert any("jupyter" in line and "lab" in line for line in lines)  # the server is seen
        assert [line for line in lines if token in line] == []
    finally:
        stop(process)


def test_lab_refuses_a_foreign_host_header(tmp_path):
    process, url, token = launch("tools.servers", log=tmp_path / "lab.log",
                                 env=lab_env(tmp_path))
    try:
        assert request(url, f"/api/status?token={token}")[0] == 200
        assert request(url, f"/api/status?token={token}", host="evil.example")[0] == 403
    finally:
        stop(process)


def test_two_labs_started_together_each_print_a_url_to_their_own_server(tmp_path):
    # both prefer port 8888: one of them (or both, if another server has it) must move
    folders = [tmp_path / "first", tmp_path / "second"]
    launched = []
    try:
        for folder in folders:
            folder.mkdir()
            launched.append(spawn("tools.servers", log=folder / "lab.log",
                                  env=lab_env(folder)))
        (url_1, token_1), (url_2, token_2) = [printed_url(process, folder / "lab.log")
                                              for process, folder in zip(launched, folders,
                                                                         strict=True)]
        assert url_1 != url_2
        assert request(url_1, f"/api/status?token={token_1}")[0] == 200
        assert request(url_2, f"/api/status?token={token_2}")[0] == 200
        assert request(url_2, f"/api/status?token={token_1}")[0] == 403  # not the first one's
    finally:
        for process in launched:
            stop(process)

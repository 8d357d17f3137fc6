"""`make lab` (python -m tools.servers): JupyterLab on notebooks/, 127.0.0.1 only, behind a token
that never appears on a command line, refusing foreign Host headers, each launch on its own port,
bad paths a 404, and nothing left running once the launcher goes, however it is stopped."""

import json
import os
import signal
import time

import pytest

from tests.launchers import (
    alive,
    command_lines,
    descendants,
    gone,
    launch,
    listening,
    printed_url,
    request,
    spawn,
    stop,
)

BAD_PATHS = [  # none names a file it may serve: a 404, 403 or the login page, never a 500
    "/voila/templates/reveal/static/..%2fREADME.md",
    "/voila/templates/reveal/static/..%2f..%2f..%2fREADME.md",
    "/voila/static/voila.js",  # Voilà's server extension is not loaded into the lab
    "/voila/files/..%00x",
    "/files/..%2f..%2fREADME.md",
    "/static/..%00x",
    "/lab/api/settings/..%2f..%2fREADME.md",
]


def lab_env(tmp_path) -> dict[str, str]:
    """The user's environment: no token or port chosen (8888 is preferred, as `make lab` does)."""
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    for chosen in ("JUPYTER_TOKEN", "PORT"):
        env.pop(chosen, None)
    return env


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`make lab` with PORT=18931, for the tests that only ask it things: (process, URL, token,
    its log)."""
    folder = tmp_path_factory.mktemp("lab")
    env = {**lab_env(folder), "PORT": "18931"}
    process, url, token = launch("tools.servers", log=folder / "lab.log", env=env)
    try:
        yield process, url, token, folder / "lab.log"
    finally:
        stop(process)


def test_lab_serves_the_notebooks_behind_a_token_kept_off_every_command_line(lab):
    process, url, token, _ = lab
    assert len(token) >= 32  # never empty, never guessable
    assert url == "http://127.0.0.1:18931" or listening("http://127.0.0.1:18931")  # PORT, if free
    status, body = request(url, f"/api/contents?token={token}")
    assert status == 200
    assert "00_start_here.ipynb" in {item["name"] for item in json.loads(body)["content"]}
    assert request(url, "/api/contents")[0] == 403  # no token, no access
    assert request(url, "/api/kernels", method="POST", token=token)[0] == 201  # a kernel too
    lines = command_lines(process.pid)
    assert any("tools.servers" in line for line in lines)  # the launcher, which serves
    assert any("ipykernel" in line for line in lines)
    assert [line for line in lines if token in line] == []


def test_lab_refuses_a_foreign_host_header_on_every_path(lab):
    _, url, token, _ = lab
    assert request(url, f"/api/status?token={token}")[0] == 200
    for path in (f"/api/status?token={token}", "/voila/static/voila.js",
                 "/static/favicons/favicon.ico", "/lab"):
        assert request(url, path, host="evil.example")[0] == 403, path


def test_bad_paths_are_refused_without_a_500_or_a_traceback(lab):
    _, url, _, log = lab
    answered = {path: request(url, path)[0] for path in BAD_PATHS}
    assert {p: status for p, status in answered.items() if status not in {302, 403, 404}} == {}
    assert "Traceback" not in log.read_text()


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


def with_a_kernel(tmp_path, ignoring=()):
    """`make lab` with one kernel running: (process, url, every pid below the launcher)."""
    process, url, token = launch("tools.servers", log=tmp_path / "lab.log",
                                 env=lab_env(tmp_path), ignoring=ignoring)
    assert request(url, "/api/kernels", method="POST", token=token)[0] == 201
    pids = descendants(process.pid)
    assert len(pids) >= 2, "no kernel process below the launcher"
    return process, url, pids


def test_nothing_outlives_a_launcher_killed_with_SIGKILL(tmp_path):
    process, url, pids = with_a_kernel(tmp_path)
    try:
        process.kill()  # kill -9: no handler runs
        process.wait(10)
        assert gone(pids, url), f"still running after kill -9: {alive(pids)}"
    finally:
        stop(process)


def test_SIGTERM_stops_the_server_and_its_kernels(tmp_path):
    process, url, pids = with_a_kernel(tmp_path)
    try:
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        assert gone(pids, url, timeout=10), f"still running: {alive(pids)}"
        assert list(tmp_path.glob("jpserver-*")) == []  # its runtime files removed
    finally:
        stop(process)


def test_kill_INT_stops_a_launcher_started_in_the_background_under_nohup(tmp_path):
    # `nohup make lab &` in a script: SIGINT and SIGHUP ignored from the start
    process, url, pids = with_a_kernel(tmp_path, ignoring=(signal.SIGINT, signal.SIGHUP))
    try:
        process.send_signal(signal.SIGHUP)  # nohup's promise holds: closing the terminal
        time.sleep(2)
        assert process.poll() is None and listening(url)
        process.send_signal(signal.SIGINT)  # kill -INT
        process.wait(30)
        assert gone(pids, url, timeout=10), f"still running after kill -INT: {alive(pids)}"
    finally:
        stop(process)


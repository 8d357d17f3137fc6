"""`make lab` (python -m tools.serve.servers): JupyterLab on the repository (notebooks/,
solutions/), 127.0.0.1 only, behind a token that never appears on a command line, refusing
foreign Host headers, each launch on its own port and printing the port it bound, bad paths a 4xx
(never a 500), and nothing left running once the launcher goes, however it is stopped: its files
live in a folder of its own, which the next launch removes if a `kill -9` left it."""

import json
import os
import signal
import socket
import time

import pytest

from tests.launchers import (
    alive,
    assert_no_utf8_path_is_a_one_line_400,
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
NO_SUCH_FILE = [  # none can name a file, an export format or a kernel spec's resource
    "/files/%00",
    "/files/a%00b",
    "/kernelspecs/python3/%00",
    "/nbconvert/bogus/00_start_here.ipynb",
    "/api/contents/" + "a" * 10_000,
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
    process, url, token = launch("tools.serve.servers", log=folder / "lab.log", env=env)
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
    assert {"notebooks", "solutions"} <= {item["name"] for item in json.loads(body)["content"]}
    status, body = request(url, f"/api/contents/notebooks?token={token}")
    assert "00_start_here.ipynb" in {item["name"] for item in json.loads(body)["content"]}
    # every exercise names its worked solution in solutions/: a learner opens it from the lab
    assert request(url, f"/files/solutions/nb04_solutions.py?token={token}")[0] == 200
    assert request(url, "/api/contents")[0] == 403  # no token, no access
    assert request(url, "/api/kernels", method="POST", token=token)[0] == 201  # a kernel too
    lines = command_lines(process.pid)
    assert any("tools.serve.servers" in line for line in lines)  # the launcher, which serves
    assert any("ipykernel" in line for line in lines)
    assert [line for line in lines if token in line] == []


def test_lab_prints_one_url_and_jupyter_logs_none_above_it(lab):
    _, _, _, log = lab
    said = log.read_text()  # Jupyter's log, which says it runs before the launcher prints the URL
    assert "Jupyter Server" in said and " is running" in said
    assert [line for line in said.splitlines() if "http" in line] == []


def test_lab_refuses_a_foreign_host_header_on_every_path(lab):
    _, url, token, _ = lab
    assert request(url, f"/api/status?token={token}")[0] == 200
    for path in (f"/api/status?token={token}", "/voila/static/voila.js",
                 "/static/favicons/favicon.ico", "/lab", *NO_SUCH_FILE):
        assert request(url, path, host="evil.example")[0] == 403, path


def test_bad_paths_are_refused_without_a_500_or_a_traceback(lab):
    _, url, _, log = lab
    answered = {path: request(url, path)[0] for path in BAD_PATHS}
    assert {p: status for p, status in answered.items() if status not in {302, 403, 404}} == {}
    assert "Traceback" not in log.read_text()


@pytest.mark.parametrize("path", NO_SUCH_FILE, ids=lambda path: path[:40])
def test_a_path_that_names_nothing_is_a_4xx_even_with_the_token(lab, path):
    _, url, token, log = lab
    status, body = request(url, path, token=token)
    assert 400 <= status < 500, f"{path[:60]} answered {status}: {body[:80]!r}"
    assert "Traceback" not in log.read_text()


@pytest.mark.parametrize("path", ["/%ff%fe", "/api/contents/%ff%fe", "/files/%c3%28"])
def test_a_path_that_is_no_utf8_is_a_400_in_one_line_with_no_traceback(lab, path):
    _, url, token, log = lab
    assert_no_utf8_path_is_a_one_line_400(url, token, path, log)


def test_a_busy_PORT_65535_moves_the_server_and_the_url_names_the_port_it_bound(tmp_path):
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 65535))
        held.listen()
    except OSError:  # in use already: as good
        pass
    try:
        process, url, token = launch("tools.serve.servers", log=tmp_path / "lab.log",
                                     env={**lab_env(tmp_path), "PORT": "65535"})
        try:
            port = int(url.rsplit(":", 1)[1])
            assert port < 65535, url
            assert request(url, f"/api/status?token={token}")[0] == 200
        finally:
            stop(process)
    finally:
        held.close()


def test_two_labs_started_together_each_print_a_url_to_their_own_server(tmp_path):
    # both prefer port 8888: one of them (or both, if another server has it) must move
    folders = [tmp_path / "first", tmp_path / "second"]
    launched = []
    try:
        for folder in folders:
            folder.mkdir()
            launched.append(spawn("tools.serve.servers", log=folder / "lab.log",
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
    process, url, token = launch("tools.serve.servers", log=tmp_path / "lab.log",
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
        assert gone(pids, url), f"still running: {alive(pids)}"
        assert [path.name for path in tmp_path.iterdir()] == ["lab.log"]  # its files, gone
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
        assert gone(pids, url), f"still running after kill -INT: {alive(pids)}"
    finally:
        stop(process)



def runtime_files(folder) -> dict[str, tuple[int, bytes]]:
    """Each file below folder: its mode and contents."""
    return {str(path.relative_to(folder)): (path.stat().st_mode & 0o777, path.read_bytes())
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_launcher_killed_with_SIGKILL_leaves_its_files_in_a_folder_the_next_launch_removes(
        tmp_path):
    runtime = tmp_path / "runtime"  # Jupyter's runtime folder, shared with another Jupyter
    (runtime / "other").mkdir(parents=True)
    foreign = {"jpserver-1.json": b"{}", "other/kernel-1.json": b"{}"}
    for name, text in foreign.items():
        (runtime / name).write_bytes(text)
    env = {**lab_env(tmp_path), "JUPYTER_RUNTIME_DIR": str(runtime)}
    launched = []

    def make_lab(name: str):
        """`make lab`: (process, url, token, what it added to runtime/ as it started)."""
        before = set(runtime.iterdir())
        process, url, token = launch("tools.serve.servers", log=tmp_path / f"{name}.log", env=env)
        launched.append(process)
        return process, url, token, set(runtime.iterdir()) - before

    try:
        live, live_url, live_token, (live_folder, *others) = make_lab("live")
        assert others == [] and live_folder.is_dir() and str(live.pid) in live_folder.name
        before = set(runtime.iterdir())
        dead, dead_url, dead_token, _ = make_lab("dead")
        assert request(dead_url, "/api/kernels", method="POST", token=dead_token)[0] == 201
        pids = descendants(dead.pid)
        dead.kill()  # kill -9: no handler runs
        dead.wait(10)
        assert gone(pids, dead_url), f"still running after kill -9: {alive(pids)}"

        added = set(runtime.iterdir()) - before  # what it left: one folder of its own
        assert [path.name for path in added if not path.is_dir()] == [], sorted(added)
        (folder,) = added
        left = runtime_files(folder)
        assert f"jpserver-{dead.pid}.json" in left, sorted(left)
        assert any(name.startswith("kernel-") for name in left), sorted(left)
        assert [name for name in left if name.endswith("-open.html")] == []
        assert folder.stat().st_mode & 0o777 == 0o700  # private: the token is in these files
        assert {name: oct(mode) for name, (mode, _) in left.items() if mode & 0o077} == {}

        kept = runtime_files(live_folder)
        make_lab("next")
        assert not folder.exists()  # the dead launcher's folder is gone
        assert runtime_files(live_folder) == kept  # the live one's is untouched
        assert request(live_url, f"/api/status?token={live_token}")[0] == 200
        assert {name: (runtime / name).read_bytes() for name in foreign} == foreign
    finally:
        for process in launched:
            stop(process)
    assert sorted(path.name for path in runtime.iterdir()) == ["jpserver-1.json", "other"]

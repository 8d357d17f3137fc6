"""`make present` (python -m tools.serve.servers present): Voilà behind a token that never appears
on a command line, serving only the vendored slide assets as files, refusing foreign Host headers,
answering a bad path with a 404 (never a 500), and leaving nothing behind when stopped: its files
live in a folder of its own, which the next launch removes if a `kill -9` left it."""

import os
import signal

import pytest

from tests.launchers import (
    ROOT,
    alive,
    assert_no_utf8_path_is_a_one_line_400,
    command_lines,
    descendants,
    gone,
    launch,
    request,
    server_failures,
    stop,
)
from tools.publish.build_slides import AssetsUnavailable, vendor

OUTSIDE_THE_ASSETS = [  # each names a repository file, or no file; none may be served
    "/voila/files/build/slides/vendor/..%2f..%2f..%2fREADME.md",
    "/voila/files/..%2f..%2f..%2fREADME.md",
    "/voila/files/../../../README.md",
    "/voila/files/%2e%2e/%2e%2e/%2e%2e/Makefile",
    "/voila/files/..%2f..%2f..%2f.git%2fconfig",
    "/voila/files/.git/config",
    "/voila/files/Makefile",
    "/voila/files/README.md",
    "/voila/files/pyproject.toml",
    "/voila/files/..%00x",
    "/voila/templates/reveal/static/..%2fREADME.md",
    "/voila/templates/reveal/static/..%2f..%2f..%2fREADME.md",
    "/voila/templates/series-reveal/static/..%00",
    "/voila/static/..%2f..%2fREADME.md",
    "/voila/labextensions/..%00x",
    "/voila/api/themes/..%00x",
]
NOT_SERVED = ["/logout", "/%00", "/api/kernels/%00"]  # Voilà's logout page, a NUL byte
ASSET = "/voila/files/reveal.js/dist/reveal.css"


def start_present(folder, log: str = "voila.log"):
    """`make present` as a user runs it, with Jupyter's runtime folder in folder/runtime and its
    temp folder in folder/tmp: (process, URL, token)."""
    try:
        vendor(ROOT / "build" / "slides")
    except AssetsUnavailable as error:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(str(error))
    for sub in ("tmp", "runtime"):
        (folder / sub).mkdir(exist_ok=True)
    env = {**os.environ, "PORT": "8866", "TMPDIR": str(folder / "tmp"),
           "JUPYTER_RUNTIME_DIR": str(folder / "runtime")}
    env.pop("JUPYTER_TOKEN", None)
    return launch("tools.serve.servers", "present", log=folder / log, env=env)


@pytest.fixture(scope="module")
def present(tmp_path_factory):
    """`make present`, shared by this module's tests (the last one stops it): (process, base
    URL, token, its folder)."""
    folder = tmp_path_factory.mktemp("present")
    process, url, token = start_present(folder)
    try:
        yield process, url, token, folder
    finally:
        stop(process)
    assert server_failures((folder / "voila.log").read_text()) == []  # no 500s, no error page


def test_present_keeps_its_token_off_every_command_line(present):
    process, url, token, _ = present
    status, page = request(url, f"/?token={token}", limit=500)  # the page's kernel has started
    assert status == 200 and b"<html" in page.lower()
    lines = command_lines(process.pid)
    assert any("voila" in line for line in lines) and any("kernel" in line for line in lines)
    assert [line for line in lines if token in line] == []
    assert request(url, "/")[0] in {302, 403}  # no token, no deck


@pytest.mark.parametrize("path", OUTSIDE_THE_ASSETS)
def test_present_serves_no_repository_file(present, path):
    _, url, token, _ = present
    status, body = request(url, path, token=token)  # not even to the presenter
    assert status in {403, 404}, f"{path} answered {status}: {body[:80]!r}"
    assert request(url, path)[0] in {302, 403, 404}, path  # 302: to the login page
    assert request(url, path, host="evil.example")[0] == 403, path


@pytest.mark.parametrize("path", NOT_SERVED)
def test_present_answers_a_page_it_does_not_serve_with_a_4xx(present, path):
    _, url, token, _ = present
    for with_token in (token, None):
        status, body = request(url, path, token=with_token)
        assert 400 <= status < 500, f"{path} answered {status}: {body[:80]!r}"


@pytest.mark.parametrize("path", ["/%ff%fe", "/voila/files/%ff", "/api/kernels/%c3%28"])
def test_present_answers_a_path_that_is_no_utf8_with_a_400_in_one_line(present, path):
    _, url, token, folder = present
    assert_no_utf8_path_is_a_one_line_400(url, token, path, folder / "voila.log")


def test_present_serves_the_vendored_assets(present):
    _, url, _, _ = present
    status, body = request(url, ASSET)
    assert status == 200 and b".reveal" in body


def test_present_refuses_a_foreign_host_header(present):
    _, url, token, _ = present
    for path in (f"/?token={token}", ASSET):
        assert request(url, path, host="evil.example")[0] == 403, path
        assert request(url, path, host="evil.example:8866")[0] == 403, path


def test_SIGTERM_after_a_page_stops_the_kernels_and_leaves_no_connection_file(present):
    process, url, token, folder = present  # the module's last test: it stops the server
    status, page = request(url, f"/?token={token}")  # the whole deck: every cell has run
    assert status == 200 and b"pp-shuffle" in page
    pids = descendants(process.pid)
    assert len(pids) >= 2 and list((folder / "runtime").glob("*/voila_*/kernel-*.json"))
    process.send_signal(signal.SIGTERM)
    process.wait(30)
    assert gone(pids, url), f"still running: {alive(pids)}"
    assert list((folder / "runtime").iterdir()) == []  # no voila_*/kernel-*.json
    assert list((folder / "tmp").iterdir()) == []


def test_a_present_killed_with_SIGKILL_leaves_its_kernel_file_in_a_folder_the_next_removes(
        tmp_path):
    process, url, token = start_present(tmp_path, "killed.log")
    try:
        status, page = request(url, f"/?token={token}")  # the whole deck: its kernel runs
        assert status == 200 and b"pp-shuffle" in page
        pids = descendants(process.pid)
        process.kill()  # kill -9: no handler runs
        process.wait(10)
        assert gone(pids, url), f"still running after kill -9: {alive(pids)}"
    finally:
        stop(process)
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing in the temp folder
    (folder,) = (tmp_path / "runtime").iterdir()  # a folder of its own, holding the kernel's file
    assert folder.is_dir() and str(process.pid) in folder.name
    assert list(folder.glob("voila_*/kernel-*.json")), sorted(folder.rglob("*"))
    assert folder.stat().st_mode & 0o777 == 0o700

    process, url, token = start_present(tmp_path, "next.log")
    try:
        assert not folder.exists()  # the next launch removed it
    finally:
        stop(process)
    assert list((tmp_path / "runtime").iterdir()) == []

"""`make present` (python -m tools.servers present): Voilà behind a token that never appears on a
command line, serving only the vendored slide assets as files, refusing foreign Host headers."""

import os

import pytest

from tests.launchers import ROOT, command_lines, launch, request, stop
from tools.build_slides import AssetsUnavailable, vendor

pytestmark = pytest.mark.browser  # starts a server
OUTSIDE_THE_ASSETS = [  # each names a repository file; none may be served
    "/voila/files/build/slides/vendor/..%2f..%2f..%2fREADME.md",
    "/voila/files/..%2f..%2f..%2fREADME.md",
    "/voila/files/../../../README.md",
    "/voila/files/%2e%2e/%2e%2e/%2e%2e/Makefile",
    "/voila/files/..%2f..%2f..%2f.git%2fconfig",
    "/voila/files/.git/config",
    "/voila/files/Makefile",
    "/voila/files/README.md",
    "/voila/files/pyproject.toml",
]
ASSET = "/voila/files/reveal.js/dist/reveal.css"


@pytest.fixture(scope="module")
def present(tmp_path_factory):
    """`make present` as a user runs it: (process, base URL, token)."""
    try:
        vendor(ROOT / "build" / "slides")
    except AssetsUnavailable as error:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(str(error))
    env = {**os.environ, "PORT": "8866"}
    env.pop("JUPYTER_TOKEN", None)
    log = tmp_path_factory.mktemp("present") / "voila.log"
    process, url, token = launch("tools.servers", "present", log=log, env=env)
    try:
        yield process, url, token
    finally:
        stop(process)


def test_present_keeps_its_token_off_every_command_line(present):
    process, url, token = present
    status, page = request(url, f"/?token={token}", limit=500)  # the page's kernel has started
    assert status == 200 and b"<html" in page.lower()
    lines = command_lines(process.pid)
    assert any("voila" in line for line in lines) and any("kernel" in line for line in lines)
    assert [line for line in lines if token in line] == []
    assert request(url, "/")[0] in {302, 403}  # no token, no deck


@pytest.mark.parametrize("path", OUTSIDE_THE_ASSETS)
def test_present_serves_no_repository_file(present, path):
    _, url, _ = present
    status, body = request(url, path)
    assert status in {403, 404}, f"{path} answered {status}: {body[:80]!r}"


def test_present_serves_the_vendored_assets(present):
    _, url, _ = present
    status, body = request(url, ASSET)
    assert status == 200 and b".reveal" in body


def test_present_refuses_a_foreign_host_header(present):
    _, url, token = present
    for path in (f"/?token={token}", ASSET):
        assert request(url, path, host="evil.example")[0] == 403, path
        assert request(url, path, host="evil.example:8866")[0] == 403, path

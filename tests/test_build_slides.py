"""tools/build_slides.py without a browser: what needs the network, and what is said without it."""

import pytest

from tools import build_slides, servers

NO_REGISTRY = "http://127.0.0.1:9/"  # nothing listens on the discard port


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """A first build (nothing installed, an empty npm cache) with the registry unreachable."""
    monkeypatch.setattr(build_slides, "NPM_DIR", tmp_path / "npm")
    monkeypatch.setenv("npm_config_registry", NO_REGISTRY)
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")


@pytest.mark.parametrize("argv", [[], ["present"]], ids=["slides", "present"])
def test_a_first_build_offline_fails_with_one_line_that_says_what_needs_the_network(
        offline, capsys, argv):
    main = servers.main if argv else build_slides.main  # `make present`, `make slides`
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    said = str(stopped.value.code)
    assert "\n" not in said
    assert said.startswith("The slide assets (reveal.js, MathJax, jQuery, RequireJS, widget "
                           f"renderer) must be fetched once from the npm registry ({NO_REGISTRY});")
    assert "later builds need no network" in said
    assert "npm ci" in capsys.readouterr().out  # said before it tried


def test_the_slide_assets_are_pinned_by_a_committed_lockfile():
    lock = build_slides.LOCK.read_text()
    for package in build_slides.KEEP:
        assert f'"node_modules/{package}"' in lock
    assert '"integrity": "sha512-' in lock

import ipaddress
import socket
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import posattn as pa
from tests.answers import answered_items

# Property tests: a fresh seed on every run, printed (tests/hypothesis_seed.py)
from tests.hypothesis_seed import (  # noqa: E402, F401 - its hooks are this conftest's
    pytest_configure,
    pytest_report_header,
    pytest_terminal_summary,
)


@pytest.fixture(autouse=True)
def _agg_backend():
    matplotlib.use("Agg")


def _loopback_only(connect):
    def checked(sock, address, *rest):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                local = host == "localhost" or ipaddress.ip_address(host).is_loopback
            except ValueError:  # a host name
                local = False
            if not local:
                raise OSError(f"the test suite must not use the network; got a connection to "
                              f"{address!r}. Use 127.0.0.1, or a local copy of what it needs.")
        return connect(sock, address, *rest)
    return checked


@pytest.fixture(autouse=True, scope="session")
def _no_network():
    """The suite runs offline once set up: a connection from the test process to another
    machine fails the test that tries it. (`make test-offline` covers every process it starts:
    servers, kernels, Chromium, pip.)"""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("connect", "connect_ex"):
            patch.setattr(socket.socket, name, _loopback_only(getattr(socket.socket, name)))
        yield


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def dog_bites_man():
    """X, the default projections and the tokens of "dog bites man"."""
    tokens = pa.tokenize("dog bites man")
    return pa.embed(tokens), pa.default_projections(), tokens


BROWSER = Path(__file__).resolve().parent / "browser"  # every test that starts a server lives here


@pytest.hookimpl(tryfirst=True)  # before `-m` and `-k` select
def pytest_collection_modifyitems(session, items):
    """Every test in tests/browser/ is marked browser (it starts a server or a browser), so
    `-m "not browser"` leaves all of them out. Each exercise cell nbval collects is followed by
    its answered copy, which must say Right (tests/answers.py)."""
    for item in items:
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.browser)
    items[:] = answered_items(session, items)

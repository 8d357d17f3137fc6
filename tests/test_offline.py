"""The suite needs no network once set up. In the test process a connection to another machine
fails at once, with a message (tests/conftest.py); `make test-offline` runs the whole of
`make test` in a network namespace that holds only loopback, servers, kernels and Chromium
included (a maintainer's check: CI's 45-minute budget no longer holds a second whole run)."""

import socket

import pytest


@pytest.mark.parametrize("address", [("192.0.2.1", 443), ("2001:db8::1", 80)])
def test_a_connection_to_another_machine_fails_with_a_message(address):
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family) as sock, pytest.raises(OSError, match="must not use the network"):
        sock.connect(address)


def test_a_connection_to_this_machine_is_allowed():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        socket.create_connection(server.getsockname(), timeout=5).close()

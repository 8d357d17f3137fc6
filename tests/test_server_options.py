"""`make lab` and `make present` refuse a PORT they cannot use with one line, before serving."""

import pytest

from tests.launchers import server_failures
from tools import servers


@pytest.mark.parametrize("port", ["abc", "-1", "0", "99999", "65536", "8888x", "1e3", "٨٨٨٨",
                                  "9" * 5000])
@pytest.mark.parametrize("argv", [[], ["present"]], ids=["lab", "present"])
def test_a_port_out_of_range_is_refused_with_one_line_naming_PORT(monkeypatch, argv, port):
    monkeypatch.setenv("PORT", port)
    monkeypatch.setattr(servers, "serve", lambda *a: pytest.fail("it served"))
    with pytest.raises(SystemExit) as stopped:
        servers.main(argv)
    said = str(stopped.value.code)
    assert said.startswith("PORT must be a whole number from 1 to 65535; got ")
    assert "\n" not in said and len(said) < 200 and "Traceback" not in said


@pytest.mark.parametrize(("value", "app", "port"), [
    ("", "lab", 8888), ("", "voila", 8866), (" 9000 ", "lab", 9000), ("1", "lab", 1),
    ("65535", "voila", 65535)])
def test_port_from_reads_PORT_or_the_default(value, app, port):
    assert servers.port_from({"PORT": value}, app) == port


def test_every_server_binds_127_0_0_1_only_and_leaves_voila_out_of_the_lab():
    for app in ("lab", "notebook", "voila"):
        assert any(o.endswith(".ip=127.0.0.1") for o in servers.options(app, 8888))
    lab = servers.options("lab", 8888)
    assert "voila.server_extension=False" in lab
    assert "--ServerApp.allow_remote_access=False" in lab


def test_a_server_log_counts_500s_and_server_tracebacks_but_not_a_kernels_shutdown_noise():
    kernel = ("[PresentVoila] Kernel shutdown: 100f\n[IPKernelApp] ERROR | Exception in message "
              "handler:\nTraceback (most recent call last):\n  File \"kernelbase.py\"\n"
              "zmq.error.ZMQError: Socket operation on non-socket\n")
    served = "404 GET /voila/files/Makefile (127.0.0.1) 0.24ms\n"
    crash = ("[PresentVoila] ERROR | Uncaught exception GET /\nTraceback (most recent call last):\n"
             "  File \"web.py\"\nKeyError: 'x'\n")
    assert server_failures(kernel + served) == []
    assert server_failures(served + crash + kernel) == [crash.rstrip("\n")]
    assert server_failures("500 GET / (127.0.0.1) 3ms\n" + served) == ["500 GET / (127.0.0.1) 3ms"]

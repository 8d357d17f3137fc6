"""Serving: JupyterLab, Notebook 7 and Voilà on 127.0.0.1 behind a token (servers, runtime), for
students and teachers: make lab, make present, make rise. What the series changes inside each
server lives in one adapter per server (jupyter_adapter, voila_adapter), each checked against the
installed release by tests/test_server_adapters.py."""

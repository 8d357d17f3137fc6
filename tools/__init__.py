"""The series' tools, run as `python -m tools.NAME` from the repository (the Makefile does)."""

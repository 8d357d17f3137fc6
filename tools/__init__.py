"""The series' tools, sorted by who uses them, each run as `python -m tools.FOLDER.NAME` from the
repository (the Makefile does; tools/run/lock_install.py runs as a script, before the package is
installed):

- publish/  the decks and the book, made from the committed notebooks (make slides, make book)
- serve/    JupyterLab and Voilà on 127.0.0.1 (make lab, make present, make rise)
- run/      the tests, the notebooks, the mutants, the locks (make test, make notebooks, make
            mutants, make setup), and what the browser tests and the benchmarks share
"""

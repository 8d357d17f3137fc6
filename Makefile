# The two quick-start commands, each doing its own set-up:
#   make lab    open the series in JupyterLab
#   make test   lint + unit, property and doctests + nbval over every notebook
#               (make test-offline: the same with no network, to show it needs none once set up)
# and for teachers:
#   make slides   an offline reveal.js deck per notebook in build/slides/
#   make book     the series as a static website in build/book/ (read it with no install)
#   make present  one notebook as live slides (Voilà: kernel running, widgets live); the default is
#                 the "dog bites man" explorer, another with NB=03_softmax_and_projections
# and for authors:
#   make notebooks  re-run every notebook in place (restart and run all, then save)
# Network: `make setup` (PyPI), and the FIRST `make test`, `make slides`, `make present` or
# `make book` (the npm registry, for reveal.js, MathJax and the widget renderer); everything else
# runs offline.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# the oldest setuptools pyproject.toml allows: tests/test_packaging.py builds with it, offline
SETUPTOOLS_FLOOR := $(shell sed -n 's/^requires = \["setuptools>=\([0-9.]*\)"\].*/\1/p' pyproject.toml)

.PHONY: lab test test-offline lint setup slides book present notebooks clean

# A virtual environment in the project, re-installed only when the requirements change.
# (jupyterlab-rise pulls in jupyterlab-mathjax3, a JupyterLab 3 extension that Lab 4 lists as
#  incompatible: disabled. tools/lab-overrides.json: RISE slides in the offline "white" theme and
#  scrollable (the explorer is taller than a slide), no news or update checks in JupyterLab.)
$(STAMP): requirements.txt pyproject.toml tools/lab-overrides.json
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and \
	  "Python 3.10 or newer is needed; got " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -e .
	$(BIN)/python -m pip install --quiet "setuptools==$(SETUPTOOLS_FLOOR).*"
	-$(BIN)/jupyter labextension disable --level=sys_prefix @jupyterlab/mathjax3-extension \
	  >/dev/null 2>&1
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp tools/lab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $(STAMP)

setup: $(STAMP)

# JupyterLab on 127.0.0.1 with a random token; the URL is printed (tools/servers.py).
lab: $(STAMP)
	$(BIN)/python -m tools.servers

lint: $(STAMP)
	$(BIN)/ruff check src tests notebooks benchmarks solutions tools

# pytest, as three runs side by side (tools/run_tests.py): most of the suite waits on kernels,
# servers and Chromium.
test: lint
	$(BIN)/python -m tools.run_tests

# make test with no network at all, once set up (the slide assets fetched first): in a network
# namespace that holds only loopback (Linux: unshare, and user namespaces for a non-root user).
test-offline: $(STAMP)
	$(BIN)/python -c 'from tools.build_slides import ROOT, vendor; vendor(ROOT / "build" / "slides")'
	unshare --map-root-user --net sh -c 'ip link set lo up && exec $(MAKE) test'

# Restart-and-run-all of every notebook (or NBS=...), saved in place (after editing a notebook or
# the package): widget state kept (the explorer shows without a kernel), no timing metadata. A
# notebook saved by someone while it ran is kept; the run goes beside it (tools/run_notebooks.py).
NBS ?= notebooks/*.ipynb
notebooks: $(STAMP)
	$(BIN)/python -m tools.run_notebooks $(NBS)

# Offline decks in build/slides/ (tools/build_slides.py).
slides: $(STAMP)
	$(BIN)/python -m tools.build_slides

# The series as a static website in build/book/ (tools/build_book.py): the committed notebooks
# with their stored outputs, nothing executed. The first build fetches MathJax and the widget
# renderer from the npm registry (as `make slides` does); later builds need no network.
book: $(STAMP)
	$(BIN)/python -m tools.build_book

# Live slides: Voilà on 127.0.0.1 with a random token; the URL is printed (tools/servers.py).
NB ?=
present: $(STAMP)
	$(BIN)/python -m tools.servers present $(NB)

clean:
	rm -rf $(VENV) build artifacts src/*.egg-info

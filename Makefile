# The two quick-start commands, each doing its own set-up:
#   make lab    open the series in JupyterLab
#   make test   lint + unit, property and doctests + nbval over every notebook
#               (make test-offline: the same with no network, to show it needs none once set up)
# and for teachers:
#   make slides   an offline reveal.js deck per notebook in build/slides/ (listed in index.html)
#   make handouts the decks as PDFs in build/handouts/, one page per slide
#   make book     the series as a static website in build/book/ (read it with no install)
#   make present  one notebook as live slides (Voilà: kernel running, widgets live); the default is
#                 the "dog bites man" explorer, another with NB=03_softmax_and_projections
# and for your own JupyterLab or a JupyterHub:
#   make kernel   a kernel named position-problem that runs .venv (Kernel > Change Kernel)
# and for authors:
#   make notebooks  re-run every notebook in place (restart and run all, then save)
# and for maintainers:
#   make lock        refresh requirements*.lock from the ranges (then make test)
#   make test-lowest the tests at the lowest declared versions; make rise / make test-rise: RISE
#   make torch / make test-torch: the PyTorch bridge (notebooks/labs/), in .venv-torch
#   make mutants     break each formula a notebook teaches: its notebooks must fail nbval
# Network: `make setup` (PyPI), and the FIRST `make test`, `make slides`, `make present` or
# `make book` (the npm registry, for reveal.js, MathJax and the widget renderer); everything else
# runs offline.
# PYTHON: the interpreter the environments are made with (3.11 or newer), for example
# `make lab PYTHON=python3.12`; the default is the first python3 on PATH.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help lab test test-offline lint setup slides handouts book present notebooks clean lock \
	rise test-rise test-lowest mutants kernel torch test-torch notebooks-torch
.DEFAULT_GOAL := help

# `make` alone, or `make help`: each target in one line (tests/test_makefile.py: every target).
help:
	@echo 'make lab           open the series in JupyterLab (sets up .venv/ the first time)'
	@echo 'make test          lint, unit, property and doctests, nbval and browser tests'
	@echo 'make test-offline  make test with no network at all (Linux), once set up'
	@echo 'make book          the series as a static website in build/book/ (nothing re-run)'
	@echo 'make slides        an offline reveal.js deck per notebook in build/slides/'
	@echo 'make handouts      the decks as PDFs in build/handouts/, one page per slide'
	@echo 'make present       one notebook as live slides in Voilà (NB=03_softmax_and_projections)'
	@echo 'make rise          JupyterLab with RISE slides (Alt+R), from its own .venv-rise/'
	@echo 'make notebooks     re-run the notebooks in place (NBS=notebooks/05_*.ipynb: some)'
	@echo 'make setup         only the set-up: .venv/ from requirements.lock (hashes checked)'
	@echo 'make kernel        a named kernel (position-problem) for your own JupyterLab or hub'
	@echo 'make lint          ruff over the code, the notebooks and the tools'
	@echo 'make mutants       break each formula a notebook teaches: its notebooks must fail'
	@echo 'make test-rise     the RISE deck test, in .venv-rise/'
	@echo 'make torch         JupyterLab with PyTorch (CPU) for the bridge lab, .venv-torch/'
	@echo 'make test-torch    the PyTorch bridge lab under nbval, in .venv-torch/'
	@echo 'make notebooks-torch  re-run the PyTorch bridge lab in place, in .venv-torch/'
	@echo 'make test-lowest   the tests at the lowest versions the ranges allow'
	@echo 'make lock          refresh requirements*.lock from the ranges (then make test)'
	@echo 'make clean         remove the environments, build/ and the series'"'"' own checkpoints'
	@echo 'make help          this list'
	@echo 'PORT=8890 picks the port for lab, rise and present.'

# $(call make_venv,DIR,LOCK): a virtual environment in DIR with exactly the versions of
# requirements-bootstrap.lock (pip, and the oldest setuptools pyproject.toml allows) and of LOCK,
# every one hash-checked, and a changed lock entry installed and checked again
# (tools/run/lock_install.py); then the package itself, editable, built with that setuptools (no
# build isolation, no index). tools/serve/lab-overrides.json: no autosave (reading the series never
# rewrites it; Ctrl+S saves), no news or update checks in JupyterLab, and RISE's slides (in
# .venv-rise) in the offline "white" theme, scrollable (the explorer is taller than a slide).
define make_venv
	@command -v $(PYTHON) >/dev/null || { echo "PYTHON must name a Python 3.11 or newer; got \
	  $(PYTHON), which is not a command here. Name one, for example: make PYTHON=python3.12 \
	  $(MAKECMDGOALS)" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and \
	  "PYTHON must be Python 3.11 or newer; got " + sys.version.split()[0] + " ($(PYTHON)). " \
	  "Name a newer interpreter, for example: make PYTHON=python3.12 $(MAKECMDGOALS)")'
	@test -x $(1)/bin/python || echo "Setting up $(1)/ from $(2), once: 1 to 3 minutes and \
	  750 MB from PyPI, each package's hash checked. Later runs reuse it."
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python tools/run/lock_install.py requirements-bootstrap.lock $(2)
	$(1)/bin/python -m pip install --quiet --no-deps --no-build-isolation --no-index -e .
	mkdir -p $(1)/share/jupyter/lab/settings
	cp tools/serve/lab-overrides.json $(1)/share/jupyter/lab/settings/overrides.json
endef

# The series' environment, from requirements.lock, re-installed only when the lock changes.
# (RISE lived here before the fourth edition; an old .venv loses it: it is in .venv-rise now.)
$(STAMP): requirements.lock requirements-bootstrap.lock tools/run/lock_install.py pyproject.toml \
	  tools/serve/lab-overrides.json
	$(call make_venv,$(VENV),requirements.lock)
	-$(BIN)/python -m pip uninstall --quiet --yes jupyterlab-rise jupyterlab-mathjax3 \
	  >/dev/null 2>&1
	touch $(STAMP)

setup: $(STAMP)

# A named Jupyter kernel that runs this environment (.venv), for a JupyterLab or JupyterHub
# started from another Python: it is listed as "The Position Problem" in the launcher and in
# Kernel > Change Kernel. Installed for this user, in Jupyter's data folder (JUPYTER_DATA_DIR if
# set); `jupyter kernelspec uninstall position-problem` removes it.
KERNEL_NAME := position-problem
kernel: $(STAMP)
	$(BIN)/python -m ipykernel install --user --name $(KERNEL_NAME) \
	  --display-name "The Position Problem"
	@echo "In JupyterLab: open a notebook, then Kernel > Change Kernel > The Position Problem."

# The launcher's own checks (PORT, and NB for present), run as make reads the recipe: one that
# fails is said in one line, make's $(error) (a failed recipe would add make's "Error 1" line).
# PORT and NB reach the launcher as typed, never expanded by make (`$(value)`, quoted for the
# shell; not exported): PORT='$$(shell …)' runs nothing and the check and the server see one value.
launcher_checks = $(call one_line_error,$(shell PORT=$(call quoted,PORT) \
  $(or $(2),$(BIN))/python -m tools.serve.servers check $(1) 2>&1))
one_line_error = $(if $(1),$(error $(1)))
quoted = '$(subst ','\'',$(value $(1)))'
unexport PORT NB

# The same checks before any set-up (the first `make lab` installs for minutes): with the system's
# Python, which has no Jupyter yet (`check-early`), unless it is too old to read tools/serve/servers.py
# (the set-up's first line then says so).
early_checks = $(call one_line_error,$(shell $(PYTHON) -c 'import sys; \
  sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && PORT=$(call quoted,PORT) \
  $(PYTHON) -m tools.serve.servers check-early $(1) 2>&1))
ifneq ($(filter present,$(MAKECMDGOALS)),)
$(call early_checks,present $(call quoted,NB))
else ifneq ($(filter lab rise,$(MAKECMDGOALS)),)
$(call early_checks,)
endif

# JupyterLab on 127.0.0.1 with a random token; the URL is printed (tools/serve/servers.py).
lab: $(STAMP)
	$(call launcher_checks,)
	@PORT=$(call quoted,PORT) exec $(BIN)/python -m tools.serve.servers

lint: $(STAMP)
	$(BIN)/ruff check src tests notebooks benchmarks solutions tools
	$(BIN)/mypy  # the math modules' types ([tool.mypy] in pyproject.toml)

# pytest, as three runs side by side (tools/run/run_tests.py): most of the suite waits on kernels,
# servers and Chromium.
test: lint
	$(BIN)/python -m tools.run.run_tests

# make test with no network at all, once set up (the slide assets fetched first): in a network
# namespace that holds only loopback (Linux: unshare, and user namespaces for a non-root user).
test-offline: $(STAMP)
	$(BIN)/python -c 'from tools.publish.build_slides import ROOT, vendor; \
	  vendor(ROOT / "build" / "slides")'
	unshare --map-root-user --net sh -c 'ip link set lo up && exec $(MAKE) test'

# Restart-and-run-all of every notebook (or NBS=...), saved in place (after editing a notebook or
# the package): widget state kept (the explorer shows without a kernel), no timing metadata. A
# notebook saved by someone while it ran is kept; the run goes beside it as NAME.rerun.ipynb and
# make fails (tools/run/run_notebooks.py: no save is lost, whenever it lands).
NBS ?= notebooks/*.ipynb
notebooks: $(STAMP)
	$(BIN)/python -m tools.run.run_notebooks $(NBS)

# The mutation check (tools/run/mutants.py): each mutant changes one line of the math in a temporary
# copy of src/, and the notebooks that teach that formula must fail nbval (after make test).
mutants: $(STAMP)
	$(BIN)/python -m tools.run.mutants

# Offline decks in build/slides/ (tools/publish/build_slides.py).
slides: $(STAMP)
	$(BIN)/python -m tools.publish.build_slides

# The decks as PDF handouts in build/handouts/, one page per slide (tools/publish/handouts.py:
# headless Chromium prints each deck's ?print-pdf view, offline).
handouts: $(STAMP)
	$(BIN)/python -m tools.publish.handouts

# The series as a static website in build/book/ (tools/publish/build_book.py): the committed
# notebooks with their stored outputs, nothing executed. The first build fetches MathJax and the
# widget renderer from the npm registry (as `make slides` does); later builds need no network.
book: $(STAMP)
	$(BIN)/python -m tools.publish.build_book

# Live slides: Voilà on 127.0.0.1 with a random token; the URL is printed (tools/serve/servers.py).
NB ?=
present: $(STAMP)
	$(call launcher_checks,present $(call quoted,NB))
	@PORT=$(call quoted,PORT) exec $(BIN)/python -m tools.serve.servers present $(call quoted,NB)

# RISE, opt-in: JupyterLab with live slides (Alt+R), from its own environment (.venv-rise and
# requirements-rise.txt say why: its pin on jupyterlab_widgets stays out of everyone else's).
# (jupyterlab-rise pulls in jupyterlab-mathjax3, a JupyterLab 3 extension that Lab 4 lists as
#  incompatible: disabled.) tools/serve/labextensions/posattn-rise: RISE's Alt+R saves nothing,
# its deck shows the notebook as it is in JupyterLab (the extension's file says how).
RISE_VENV := .venv-rise
RISE_EXTENSION := tools/serve/labextensions/posattn-rise
$(RISE_VENV)/.installed: requirements-rise.lock requirements-bootstrap.lock \
	  tools/run/lock_install.py pyproject.toml tools/serve/lab-overrides.json \
	  $(RISE_EXTENSION)/package.json $(RISE_EXTENSION)/static/remoteEntry.js
	$(call make_venv,$(RISE_VENV),requirements-rise.lock)
	-$(RISE_VENV)/bin/jupyter labextension disable --level=sys_prefix \
	  @jupyterlab/mathjax3-extension >/dev/null 2>&1
	rm -rf $(RISE_VENV)/share/jupyter/labextensions/posattn-rise
	cp -R $(RISE_EXTENSION) $(RISE_VENV)/share/jupyter/labextensions/posattn-rise
	touch $@

rise: $(RISE_VENV)/.installed
	$(call launcher_checks,,$(RISE_VENV)/bin)
	@PORT=$(call quoted,PORT) exec $(RISE_VENV)/bin/python -m tools.serve.servers

# RISE's test, in RISE's environment: the explorer drawn as a widget in RISE's deck.
test-rise: $(RISE_VENV)/.installed
	$(RISE_VENV)/bin/python -c 'from tools.publish.build_slides import ROOT, vendor; \
	  vendor(ROOT / "build" / "slides")'
	POSATTN_RISE=1 $(RISE_VENV)/bin/python -m pytest tests/browser/test_rise.py

# The PyTorch bridge, opt-in: the series' lock plus torch 2.13.0 (requirements-torch.txt says why
# it is exact), in an environment of its own, .venv-torch (PyTorch's download is large: it is not in
# requirements.lock). `make torch` makes it and opens JupyterLab from it; the lab is
# notebooks/labs/torch_bridge.ipynb, which the default nbval run does not collect
# (norecursedirs in pyproject.toml); `make test-torch` runs it under nbval. After editing it:
# make notebooks-torch (restart and run all, saved in place, in .venv-torch).
TORCH_VENV := .venv-torch
TORCH_LAB  := notebooks/labs/torch_bridge.ipynb
$(TORCH_VENV)/.installed: requirements-torch.lock requirements-bootstrap.lock \
	  tools/run/lock_install.py pyproject.toml tools/serve/lab-overrides.json
	$(call make_venv,$(TORCH_VENV),requirements-torch.lock)
	touch $@

torch: $(TORCH_VENV)/.installed
	$(call launcher_checks,,$(TORCH_VENV)/bin)
	@PORT=$(call quoted,PORT) exec $(TORCH_VENV)/bin/python -m tools.serve.servers

test-torch: $(TORCH_VENV)/.installed
	$(TORCH_VENV)/bin/python -m pytest $(TORCH_LAB)

notebooks-torch: $(TORCH_VENV)/.installed
	$(TORCH_VENV)/bin/python -m tools.run.run_notebooks $(TORCH_LAB)

# The declared lower bounds, tested: every direct dependency at the oldest version its range
# allows (requirements-lowest.lock), then the unit, property and doctests and nbval.
LOWEST_VENV := build/venv-lowest
$(LOWEST_VENV)/.installed: requirements-lowest.lock requirements-bootstrap.lock \
	  tools/run/lock_install.py pyproject.toml tools/serve/lab-overrides.json
	$(call make_venv,$(LOWEST_VENV),requirements-lowest.lock)
	touch $@

test-lowest: $(LOWEST_VENV)/.installed
	$(LOWEST_VENV)/bin/python -m pytest --ignore=tests/browser

# Refresh the five locks from the ranges (uv, in a tool environment of its own under build/):
# after changing a requirements file, or to move to today's releases, then `make test`.
LOCK_FOR := --universal --generate-hashes --python-version 3.11 --quiet
# torch's lock resolves against pip's own find-links too (uv does not read pip's configuration):
# where a CPU build of torch 2.13.0 lies there, the lock names it for the platform it is built for.
TORCH_WHEELS = $(addprefix --find-links ,$(shell $(PYTHON) -m pip config get global.find-links \
  2>/dev/null))
lock:
	test -x build/uv/bin/uv || ($(PYTHON) -m venv build/uv && build/uv/bin/pip install --quiet uv)
	build/uv/bin/uv pip compile $(LOCK_FOR) requirements.txt requirements-test.txt \
	  -o requirements.lock
	build/uv/bin/uv pip compile $(LOCK_FOR) requirements-rise.txt -o requirements-rise.lock
	build/uv/bin/uv pip compile $(LOCK_FOR) $(TORCH_WHEELS) requirements-torch.txt \
	  -c requirements.lock -c requirements-bootstrap.lock -o requirements-torch.lock
	build/uv/bin/uv pip compile $(LOCK_FOR) --resolution lowest-direct requirements.txt \
	  requirements-test.txt -o requirements-lowest.lock
	build/uv/bin/uv pip compile $(LOCK_FOR) requirements-bootstrap.txt \
	  -o requirements-bootstrap.lock

# JupyterLab's checkpoints of the series' files go too, unless one is the only copy of a save
# (tools/run/checkpoints.py says which it keeps).
clean:
	$(PYTHON) -m tools.run.checkpoints
	rm -rf $(VENV) $(RISE_VENV) $(TORCH_VENV) build artifacts/screenshots src/*.egg-info

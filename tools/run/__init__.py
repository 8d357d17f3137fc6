"""Running: the tests (run_tests), the notebooks (run_notebooks), the mutation check (mutants),
the locked environment (lock_install), 09's stored grid (setup_grid), 11's (context_grid), and a
private JupyterLab driven in headless Chromium (lab_driver), which the browser tests and the
benchmarks share. For authors, maintainers and CI: make test, make notebooks, make mutants, make
setup."""

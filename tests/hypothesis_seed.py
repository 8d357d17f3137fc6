"""Property tests draw a fresh seed on every run and print it (issue 41 §4).

Each run of the suite draws one seed for all of its property tests, so that a run can find a
counterexample no earlier run met. The seed is printed in pytest's header and again after a
failure; ``pytest --hypothesis-seed=N`` (hypothesis's own option) runs the same examples again, on
any machine. There is no example database: a run writes nothing into the repository. The hooks
are tests/conftest.py's (a plugin of its own, so a test can load it alone with ``-p``).
"""

import secrets

import pytest
from hypothesis import settings

settings.register_profile("series", deadline=None, max_examples=60, database=None)
settings.load_profile("series")

SEED_OPTION = "hypothesis_seed"  # where pytest keeps --hypothesis-seed
_FRESH = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)  # before hypothesis's plugin reads the option
def pytest_configure(config):
    if config.getoption(SEED_OPTION, None) is None:
        config.option.hypothesis_seed = str(secrets.randbelow(2**32))
        config.stash[_FRESH] = True


def _seed_line(config) -> str:
    seed = config.getoption(SEED_OPTION)
    how = "drawn fresh for this run" if config.stash.get(_FRESH, False) else "given"
    return f"hypothesis seed {seed} ({how}): reproduce with --hypothesis-seed={seed}"


def pytest_report_header(config):
    return _seed_line(config)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if exitstatus not in (0, 5):  # a failure (5: no tests collected)
        terminalreporter.write_line(_seed_line(config))

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hypothesis import settings

import posattn as pa

# Property tests are reproducible: the same examples on every run and machine.
settings.register_profile("series", derandomize=True, deadline=None, max_examples=60)
settings.load_profile("series")


@pytest.fixture(autouse=True)
def _agg_backend():
    matplotlib.use("Agg")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def dog_bites_man():
    """X, the default projections and the tokens of "dog bites man"."""
    tokens = pa.tokenize("dog bites man")
    return pa.embed(tokens), pa.default_projections(), tokens


BROWSER = Path(__file__).resolve().parent / "browser"  # every test that starts a server lives here


@pytest.hookimpl(tryfirst=True)  # before `-m` selects
def pytest_collection_modifyitems(items):
    """Every test in tests/browser/ is marked browser (it starts a server or a browser), so
    `-m "not browser"` leaves all of them out."""
    for item in items:
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.browser)

import re

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


# A test starts a server or a browser through one of these fixtures or helpers.
SERVER_FIXTURES = {"browser", "lab", "present"}  # (page, explorer, deck, ... use these)
SERVER_HELPERS = re.compile(r"\b(tests\.launchers|servers\.start|servers\.present|serving)\b")


def pytest_collection_modifyitems(items):
    """Every test that starts a server or a browser is marked browser, so `-m "not browser"`
    leaves out all of them: refuse the run otherwise."""
    unmarked = sorted({item.nodeid for item in items if not item.get_closest_marker("browser") and (
        SERVER_FIXTURES & set(getattr(item, "fixturenames", ()))
        or SERVER_HELPERS.search(item.path.read_text(encoding="utf-8")))})
    if unmarked:
        raise pytest.UsageError(f"tests that start a server or browser must be marked "
                                f"@pytest.mark.browser; got unmarked: {unmarked}")

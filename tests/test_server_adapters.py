"""The two server adapters (tools/serve/jupyter_adapter.py, tools/serve/voila_adapter.py) against
the installed releases: every method they override still exists with the parameters it had, the
code they rely on still does what they rely on, and they override nothing they do not list. An
upgrade of jupyter_server, Voilà, tornado or nbclient that breaks one fails here, by name, before
`make lab` or `make present` misbehaves."""

import inspect
from importlib.metadata import PackageNotFoundError, version

import pytest
import tornado.web
from traitlets import HasTraits
from voila.handler import VoilaHandler

from tools.serve import jupyter_adapter, voila_adapter

ADAPTERS = {"tools/serve/jupyter_adapter.py": jupyter_adapter,
            "tools/serve/voila_adapter.py": voila_adapter}
# the classes the adapters make, each from the class it adapts
ADAPTED = [jupyter_adapter.ServerApp, voila_adapter.PresentVoila, voila_adapter.PageKernels,
           voila_adapter.page_limited(VoilaHandler),
           voila_adapter.local_only(tornado.web.RequestHandler),
           voila_adapter.files_or_404(tornado.web.StaticFileHandler)]


def listed(table: str) -> list:
    return [pytest.param(path, *entry, id=f"{entry[0].__name__}.{entry[1]}")
            for path, module in ADAPTERS.items() for entry in getattr(module, table)]


def release(owner: type) -> str:
    """The distribution and version that owner comes from: "jupyter_server 2.21.1"."""
    package = owner.__module__.split(".")[0]
    try:
        return f"{package} {version(package)}"
    except PackageNotFoundError:  # not an installed distribution's
        return f"{package} (not installed)"


def where(owner: type, name: str) -> str:
    return f"{owner.__module__}.{owner.__qualname__}.{name}"


@pytest.mark.parametrize(("adapter", "owner", "name", "parameters", "why"), listed("OVERRIDES"))
def test_each_overridden_method_is_still_there_with_its_parameters(adapter, owner, name,
                                                                   parameters, why):
    method = inspect.getattr_static(owner, name, None)
    assert callable(method), (
        f"{where(owner, name)} is gone in {release(owner)}; {adapter} overrides it: {why}. Read "
        "that release's change to it, then change the override and its line in OVERRIDES.")
    found = tuple(inspect.signature(getattr(owner, name)).parameters)
    assert found == parameters, (
        f"{where(owner, name)} takes {found} in {release(owner)}, not {parameters}; {adapter} "
        f"overrides it: {why}. Read that release's change to it, then change the override and "
        "its line in OVERRIDES.")


@pytest.mark.parametrize(("adapter", "owner", "name", "needle", "why"), listed("RELIES_ON"))
def test_the_code_each_adapter_relies_on_still_does_it(adapter, owner, name, needle, why):
    method = getattr(owner, name, None)
    assert callable(method), (
        f"{where(owner, name)} is gone in {release(owner)}; {adapter} relies on it: {why}.")
    assert needle in inspect.getsource(method), (
        f"{where(owner, name)} no longer holds {needle!r} in {release(owner)}; {adapter} relies "
        f"on it: {why}. Read that release's change to it, then change the adapter and RELIES_ON.")


@pytest.mark.parametrize("adapted", ADAPTED, ids=lambda cls: cls.__qualname__)
def test_every_method_an_adapter_overrides_is_listed(adapted):
    overrides = {(owner, name) for module in ADAPTERS.values()
                 for owner, name, *_ in module.OVERRIDES}
    unlisted = []
    for name, value in vars(adapted).items():
        bases = [base for base in adapted.__mro__[1:] if name in vars(base)]
        if inspect.isfunction(value) and bases and not any(
                (base, name) in overrides for base in adapted.__mro__[1:]):
            unlisted.append(where(bases[0], name))
    assert unlisted == [], (f"{adapted.__qualname__} overrides {unlisted} without a line in its "
                            "adapter's OVERRIDES: add one, with why no configuration serves")


DEFAULTS = [(adapted, name, value.trait_name) for adapted in ADAPTED
            if issubclass(adapted, HasTraits)
            for name, value in vars(adapted).items() if getattr(value, "trait_name", None)]


@pytest.mark.parametrize(("adapted", "name", "trait"), DEFAULTS,
                         ids=[f"{cls.__name__}.{trait}" for cls, _, trait in DEFAULTS])
def test_each_default_an_adapter_gives_is_a_configurable_trait(adapted, name, trait):
    """A trait default (@default) is public configuration only if the trait is configurable."""
    base = adapted.__mro__[1]
    assert base.class_traits(config=True).get(trait) is not None, (
        f"{adapted.__qualname__}.{name} gives a default to {base.__qualname__}.{trait}, which is "
        f"not a configurable trait in {release(base)}: pass the value another public way")


def test_the_adapters_give_their_defaults_as_configuration():
    assert {trait for _, _, trait in DEFAULTS} == {
        "connection_dir_root", "cull_idle_timeout", "cull_interval"}


def test_an_entry_that_no_longer_matches_is_said_by_name_and_release():
    """The check itself can fail: a method whose parameters changed, as an upgrade would."""
    class Changed:
        def _find_http_port(self, port):
            pass

    said = (r"Changed\._find_http_port takes \('self', 'port'\) in test_server_adapters \(not "
            r"installed\), not \('self',\); tools/serve/jupyter_adapter\.py overrides it")
    with pytest.raises(AssertionError, match=said):
        test_each_overridden_method_is_still_there_with_its_parameters(
            "tools/serve/jupyter_adapter.py", Changed, "_find_http_port", ("self",), "the port")

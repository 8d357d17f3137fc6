"""Every fact the README and its companion files state about the code is the code's (issue 44 §4):
each number is counted again here, each name looked up where it is defined, and each number
that can only be measured (a time, a size) carries the date it was measured.

The reading and lecture minutes are computed by tests/test_notebook_conventions.py.
"""

import re
import tomllib
from pathlib import Path

import numpy as np

import posattn
from tests import door_probes, test_door_probes
from tools.run import mutants

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "posattn"
MATH = ("attention", "permutations", "embeddings", "positions", "schemes", "rope", "transformer",
        "_checks")
ABOUT = 0.05  # "about N lines": within 5 % of the count
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def flat(name: str) -> str:
    """The file with its lines joined: a sentence is found wherever it wraps."""
    return " ".join(read(name).split())


def number(text: str) -> int:
    return int(text.replace(",", ""))


def lines(paths) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in paths)


def test_the_package_sizes_the_readme_states_are_counted():
    found = re.search(r"The math \(attention, permutations, embeddings, positions, the schemes, "
                      r"RoPE, the encoder and the input checks\) comes to about ([\d,]+) "
                      r"lines, .*? the whole package, .*? to about ([\d,]+)", flat("README.md"))
    assert found, "the README states no size of the package"
    counted = (lines(PACKAGE / f"{name}.py" for name in MATH), lines(PACKAGE.rglob("*.py")))
    for stated, count in zip(map(number, found.groups()), counted, strict=True):
        assert abs(stated - count) <= ABOUT * count, f"the README says {stated}; {count} counted"


def test_the_module_table_is_the_packages_modules():
    readme = read("README.md")
    table = readme[readme.index("| module | holds |"):]
    table = table[:table.index("\n\n")]
    listed = {name for row in table.splitlines()[2:]
              for name in re.findall(r"`([^`]+)`", row.split(" | ")[0])}
    modules = {path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py"}
    packages = {f"{path.parent.name}/" for path in PACKAGE.glob("*/__init__.py")}
    data = {path.name for path in PACKAGE.glob("*") if path.is_file() and path.suffix != ".py"}
    assert listed == modules | packages | data


def test_the_hostile_calls_the_door_is_tried_with_are_counted():
    found = re.search(r"tries (\d+) hostile calls with numpy 2 \((\d+) with numpy 1, .*?\), then "
                      r"each of (\d+) odd values in every argument of (\d+) working calls "
                      r"\(([\d,]+) more\), under a (\d+) GB memory ceiling and (\d+) s of CPU "
                      r"time each", flat("CONTRIBUTING.md"))
    assert found, "CONTRIBUTING.md states no count of the door's probes"
    numpy2, numpy1, odd, bases, more, gigabytes, seconds = map(number, found.groups())
    hostile = len(test_door_probes.REFUSED) + len(test_door_probes.QUICK)
    probes = {**test_door_probes.REFUSED, **test_door_probes.QUICK}.values()
    strings = sum("StringDType" in code for code in probes)  # numpy 2's text: left out on 1
    if int(np.__version__.split(".")[0]) >= 2:
        assert (numpy2, numpy1) == (hostile, hostile - strings)
    else:  # numpy 1: the StringDType probes are left out
        assert numpy1 == hostile and strings == 0
    assert (odd, bases, more) == (len(test_door_probes.ODD), len(test_door_probes.BASES),
                                  len(test_door_probes.ODD_ARGUMENTS))
    assert (gigabytes * 2**30, seconds) == (door_probes.MEMORY, door_probes.SECONDS)


def test_the_doors_limits_are_its_constants():
    from posattn import _checks
    from posattn.experiments import checks

    found = re.search(r"integers past 2\*\*(\d+), and any array past 2·10\^(\d+) entries \((\d+) "
                      r"MB\), .*? \(more than (\d+) seeds, (\d+) for a probe\)",
                      flat("CONTRIBUTING.md"))
    assert found, "CONTRIBUTING.md states no limits of the door"
    power, entries, megabytes, seeds, probe_seeds = map(int, found.groups())
    assert (2**power, 2 * 10**entries) == (_checks.MAX_INT, _checks.MAX_ENTRIES)
    assert megabytes * 10**6 == 8 * _checks.MAX_ENTRIES  # float64
    assert (seeds, probe_seeds) == (checks.MAX_SEEDS, checks.MAX_PROBE_SEEDS)


def test_the_mutants_the_documents_count_are_the_mutants():
    text = flat("CONTRIBUTING.md")
    found = re.search(r"(\d+) single-line mutants of the package .*? All (\d+) are caught", text)
    assert found, "CONTRIBUTING.md states no count of mutants"
    assert tuple(map(int, found.groups())) == (len(mutants.MUTANTS),) * 2


def test_the_live_decks_kernel_bounds_are_the_servers():
    source = read("tools/serve/voila_adapter.py")
    constant = {name: int(re.search(rf"^{name} = (\d+)", source, re.M)[1])
                for name in ("PAGE_KERNELS", "CLOSED_GRACE", "UNCONNECTED", "CULL_EVERY")}
    found = re.search(r"A page's kernel goes (\d+) s after the page is closed or reloaded, one "
                      r"that no page ever connected to within about (\d+) s, and at most (\d+) "
                      r"run at once", flat("SECURITY.md"))
    assert found, "SECURITY.md states no bounds of the live deck's kernels"
    assert tuple(map(int, found.groups())) == (
        constant["CLOSED_GRACE"], constant["UNCONNECTED"] + constant["CULL_EVERY"],
        constant["PAGE_KERNELS"])


def test_the_set_up_installs_again_when_the_files_the_readme_names_change():
    found = re.search(r"It installs again only when (.+?) change\.", flat("README.md"))
    assert found, "the README does not say when the set-up installs again"
    named = set(re.findall(r"`([^`]+)`", found[1]))
    rule = re.search(r"^\$\(STAMP\):((?:.*\\\n)*.*)$", read("Makefile"), re.M)[1]
    assert named == set(rule.replace("\\\n", " ").split())


def test_the_python_and_node_floors_are_said_alike_everywhere():
    project = tomllib.loads(read("pyproject.toml"))["project"]
    floor = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"]).groups()
    python = "Python {}.{} or newer".format(*floor)
    readme = flat("README.md")
    assert python in readme and set(re.findall(r"Python \d+\.\d+ or newer", readme)) == {python}
    assert f"sys.version_info < ({floor[0]}, {floor[1]})" in read("Makefile")
    assert f"PYTHON must be {python}" in read("Makefile")
    book = read("tools/publish/build_book.py")
    assert re.findall(r"Python \d+\.\d+ or newer", book) == [python] * 2, "the book's own line"
    node = re.search(r"- nodejs>=(\d+)", read("environment.yml"))[1]
    assert set(re.findall(r"Node\.js \d+ or newer", readme)) == {f"Node.js {node} or newer"}
    assert f"Node.js {node} or newer" in read("tools/publish/build_slides.py")


def test_the_kernel_the_readme_names_is_the_one_make_kernel_installs():
    makefile = read("Makefile")
    name = re.search(r"^KERNEL_NAME := (\S+)$", makefile, re.M)[1]
    display = re.search(r'--display-name "([^"]+)"', makefile)[1]
    readme = flat("README.md")
    assert f"installs a kernel named `{name}` for your user, shown as *{display}*" in readme
    assert f"`jupyter kernelspec uninstall {name}`" in readme


def test_the_versions_the_documents_say_are_locked_are_the_locks():
    text = flat("CONTRIBUTING.md")
    found = re.search(r"Locked today: (.+?); the lowest tested: (.+?)\. ", text)
    assert found, "CONTRIBUTING.md names no locked versions"
    for said, lock in ((found[1], "requirements.lock"), (found[2], "requirements-lowest.lock")):
        pinned = {(m[1].lower().replace("_", "-"), m[2]) for m in
                  re.finditer(r"^([A-Za-z0-9_.\-]+)==(\S+)", read(lock), re.M)}
        named = re.findall(r"(?:^|, | with )([A-Za-z][\w.\-]*|Voilà) (\d+\.\d+\.\d+)"
                           r"(?: \((\d+\.\d+\.\d+) on Python 3\.12\+\))?", said)
        assert len(named) >= 5, said
        for name, version, later in named:
            key = name.lower().replace("voilà", "voila").replace("_", "-")
            assert (key, version) in pinned, f"{lock} does not pin {name} {version}"
            assert not later or (key, later) in pinned, f"{lock} does not pin {name} {later}"


def test_one_version_in_pyproject_the_package_the_citation_and_the_changelog():
    version = tomllib.loads(read("pyproject.toml"))["project"]["version"]
    assert posattn.__version__ == version
    assert re.search(r'^version: "?([^"\s]+)"?$', read("CITATION.cff"), re.M)[1] == version
    newest = re.search(r"^## (\S+) — the (\w+) edition", read("CHANGELOG.md"), re.M)
    assert newest and newest[1] == version, "CHANGELOG.md's newest entry is another version"
    assert version.split(".")[0] == str(ORDINALS.index(newest[2]) + 1), "major = the edition"
    assert f"this is its {newest[2]} edition, version {version}" in flat("README.md")


def test_the_citation_file_is_citation_file_format_1_2():
    cff = read("CITATION.cff")
    for key in ("cff-version: 1.2.0", "message:", "title:", "authors:", "version:"):
        assert re.search(rf"^{re.escape(key)}", cff, re.M), key
    assert "The Position Problem contributors" in cff
    project = tomllib.loads(read("pyproject.toml"))["project"]
    assert project["authors"] == [{"name": "The Position Problem contributors"}]


MEASURED = re.compile(r"\b\d+(?:[.,]\d+)? ?(?:ms|s|MiB|MB|GB|minutes)\b")
DATED = re.compile(r"\bmeasured\b[^.]*?\b20\d\d-\d\d-\d\d\b", re.S)


def test_each_measured_time_or_size_in_the_readme_says_when_it_was_measured():
    """A time or size outside the computed sections is a measurement: its paragraph says
    "measured" and the date."""
    readme = read("README.md")
    computed = re.search(r"^## The notebooks\n.*?(?=^## )", readme, re.M | re.S)[0]
    undated = [paragraph.strip()[:80] for paragraph in readme.replace(computed, "").split("\n\n")
               if MEASURED.search(paragraph) and not paragraph.lstrip().startswith("```")
               and not DATED.search(paragraph)]
    assert undated == []


def test_the_readmes_other_bounds_are_the_codes():
    readme = flat("README.md")
    kernels = re.search(r"^PAGE_KERNELS = (\d+)", read("tools/serve/voila_adapter.py"), re.M)[1]
    assert f"and at most {kernels} run at once" in readme
    pin = re.search(r"^jupyterlab_widgets>=[\d.]+,<([\d.]+)$", read("requirements-rise.txt"),
                    re.M)[1]
    assert f"keeps `jupyterlab_widgets` below {pin}" in readme
    viewport = re.findall(r'viewport=\{"width": (\d+), "height": (\d+)\}',
                          read("tests/browser/test_slides.py"))
    assert viewport and {"×".join(size) for size in viewport} == {"1280×720"}
    assert "checked to fit 1280×720" in readme


def test_the_node_and_npm_the_pinned_slide_assets_ask_for_are_the_readmes():
    import json

    lock = json.loads(read("tools/publish/slide_assets/package-lock.json"))
    floors = {tool: max(int(re.search(r"\d+", package["engines"][tool])[0])
                        for package in lock["packages"].values()
                        if tool in package.get("engines", {}))
              for tool in ("node", "npm")}
    assert (f"the pinned packages ask for Node.js {floors['node']} and npm {floors['npm']} "
            "or newer") in flat("README.md")


def test_the_reading_budgets_the_readme_states_are_the_ones_tested():
    source = read("tests/test_notebook_conventions.py")
    tested = (re.search(r"if m > (\d+)\}", source)[1],
              re.search(r"\[:explorer \+ 1\]\) <= (\d+)", source)[1],
              re.search(r"sum\(minutes\.values\(\)\) <= (\d+)", source)[1])
    found = re.search(r"at most (\d+) per notebook, (\d+) up to the explorer, (\d+) in all",
                      flat("README.md"))
    assert found and found.groups() == tested

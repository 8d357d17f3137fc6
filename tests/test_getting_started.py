"""A newcomer's first steps, as the README's "Who can run it, and how" says them (issue 44 §3):
an old Python is refused naming PYTHON, `make kernel` installs a named kernel that runs the
series, and `pip install .` without an extra says which extra a part needs."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from posattn import _extras

ROOT = Path(__file__).resolve().parent.parent
# A stand-in for Python 3.10: this interpreter, told it is 3.10.12 before the Makefile's check runs.
OLD_PYTHON = """#!/bin/sh
exec {python} -c 'import sys; sys.version_info = (3, 10, 12, "final", 0); \
sys.version = "3.10.12 (stand-in)"; exec(sys.argv[1])' "$2"
"""


def test_an_old_python_is_refused_in_one_line_that_names_PYTHON(tmp_path):
    old = tmp_path / "python3.10"
    old.write_text(OLD_PYTHON.format(python=sys.executable))
    old.chmod(0o755)
    venv = tmp_path / "venv"  # a folder with no environment: make must set one up, and refuse
    run = subprocess.run(["make", "--no-print-directory", "setup", f"PYTHON={old}",
                          f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    refusal = [line for line in run.stderr.splitlines() if "3.11" in line]
    assert refusal == [f"PYTHON must be Python 3.11 or newer; got 3.10.12 ({old}). Name a newer "
                       "interpreter, for example: make PYTHON=python3.12 setup"], run.stderr
    assert not venv.exists(), "an environment was made with the refused Python"


def test_a_python_that_is_not_there_is_refused_in_one_line_that_names_PYTHON(tmp_path):
    missing = tmp_path / "python3.99"
    run = subprocess.run(["make", "--no-print-directory", "setup", f"PYTHON={missing}",
                          f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert [line for line in run.stderr.splitlines() if line.startswith("PYTHON")] == [
        f"PYTHON must name a Python 3.11 or newer; got {missing}, which is not a command here. "
        "Name one, for example: make PYTHON=python3.12 setup"], run.stderr
    assert not (tmp_path / "venv").exists()


@pytest.fixture
def jupyter_data(tmp_path, monkeypatch):
    """Jupyter's folders in tmp_path: the kernel goes there, never into the user's home."""
    for name, folder in (("JUPYTER_DATA_DIR", "data"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                         ("JUPYTER_CONFIG_DIR", "config"), ("HOME", "home")):
        (tmp_path / folder).mkdir()
        monkeypatch.setenv(name, str(tmp_path / folder))
    return tmp_path / "data"


def test_make_kernel_installs_a_named_kernel_that_runs_the_series(jupyter_data):
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("make kernel installs .venv's kernel; these tests run in another environment")
    run = subprocess.run(["make", "--no-print-directory", "kernel"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env=os.environ)
    assert run.returncode == 0, run.stderr
    spec_file = jupyter_data / "kernels" / "position-problem" / "kernel.json"
    assert f"Installed kernelspec position-problem in {spec_file.parent}" in run.stdout + run.stderr
    assert "Kernel > Change Kernel > The Position Problem" in run.stdout  # what to do with it
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import start_new_kernel

    spec = KernelSpecManager().get_kernel_spec("position-problem")  # found where Jupyter looks
    assert spec.display_name == "The Position Problem"
    assert Path(spec.argv[0]) == ROOT / ".venv" / "bin" / "python"
    manager, client = start_new_kernel(kernel_name="position-problem", startup_timeout=120)
    shown = []
    try:
        client.execute_interactive(
            "import posattn, ipywidgets, matplotlib; print(posattn.__file__)", timeout=120,
            output_hook=lambda msg: shown.append(msg["content"].get("text", "")))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(shown).strip() == str(ROOT / "src" / "posattn" / "__init__.py")


PARTS = {  # a module left out, the import that needs it -> the extra named
    "IPython": ("from posattn.explorer import ShuffleExplorer", "widgets"),
    "ipywidgets": ("from posattn.explorer import ShuffleExplorer", "widgets"),
    "matplotlib": ("from posattn.explorer import ShuffleExplorer", "widgets"),
    "matplotlib.pyplot": ("import posattn.plotting", "plot"),
}


@pytest.mark.parametrize("module", list(PARTS))
def test_a_part_without_its_extra_says_which_extra_to_install(module):
    """`pip install .` brings numpy only: a missing module is named with the extra that brings
    it (a Python where the module is absent: sys.modules[name] = None makes its import fail)."""
    code, extra = PARTS[module]
    run = subprocess.run([sys.executable, "-c", f"import sys; sys.modules[{module!r}] = None\n"
                          f"import posattn\n{code}"], capture_output=True, text=True, timeout=60)
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode != 0 and last.startswith("ModuleNotFoundError: posattn."), run.stderr
    assert f"needs the '{extra}' extra" in last and f"got no module named '{module}'" in last
    assert f"pip install '.[{extra}]'" in last and sys.executable in last, last


def test_a_missing_module_that_no_extra_brings_keeps_its_own_error():
    missing = ModuleNotFoundError("No module named 'posattn.nothing'", name="posattn.nothing")
    assert _extras.needs_extra("widgets", "posattn.explorer", missing) is missing


def requirement_lines() -> dict[str, str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    found = (re.match(r"([A-Za-z0-9_.\-\[\]]+)(\S*)", line.split("#")[0].strip()) for line in lines)
    return {m[1].split("[")[0].lower(): m[1] + m[2] for m in found if m}


def test_each_extra_has_the_bounds_of_requirements_txt_and_names_what_it_brings():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    pinned = requirement_lines()
    for extra, requirements in extras.items():
        for requirement in requirements:
            name = re.match(r"[A-Za-z0-9_.\-]+", requirement)[0].lower()
            assert pinned.get(name) == requirement, (extra, requirement, pinned.get(name))
    names = {extra: tuple(re.match(r"[A-Za-z0-9_.\-]+", r)[0] for r in requirements)
             for extra, requirements in extras.items()}
    assert {extra: names[extra] for extra in _extras.PACKAGES} == _extras.PACKAGES
    assert pinned["numpy"] in project["dependencies"]

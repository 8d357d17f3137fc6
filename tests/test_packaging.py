"""The package builds with the oldest setuptools pyproject.toml allows and installs into a clean
virtual environment, from which `import posattn` works outside the repository: offline.

The set-up (`make setup`) pins this environment's setuptools to that floor; the wheel is built
with it (--no-build-isolation, --no-index) and installed without an index. The clean
environment takes numpy, posattn's one dependency, from this environment (a .pth file listed
after its own site-packages), so nothing is downloaded.
"""

import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = """import importlib.metadata as m, posattn
print(posattn.__file__)
print(m.metadata("posattn")["License-Expression"], *m.metadata("posattn").get_all("License-File"))
"""
OFFLINE = ["--no-index", "--disable-pip-version-check", "--quiet"]


def setuptools_floor() -> str:
    pyproject = (ROOT / "pyproject.toml").read_text()
    return re.search(r'requires = \["setuptools>=([\d.]+)"\]', pyproject)[1]


def test_this_environment_builds_with_the_oldest_allowed_setuptools():
    import setuptools

    floor = setuptools_floor()
    assert setuptools.__version__.split(".")[0] == floor.split(".")[0], (
        f"setuptools {setuptools.__version__} here; the set-up pins {floor}.* (make setup)")


@pytest.mark.slow
def test_the_package_builds_installs_and_imports_offline(tmp_path):
    source = tmp_path / "source"  # what a clean clone holds, without build/ or .venv/
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", *OFFLINE, "--no-build-isolation",
                    "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(source)],
                   check=True, timeout=600)
    [wheel] = (tmp_path / "dist").glob("posattn-*.whl")
    venv.create(tmp_path / "venv", with_pip=True)  # pip from ensurepip: no download
    python = str(tmp_path / "venv" / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", *OFFLINE, "--no-deps", str(wheel)],
                   check=True, timeout=600)
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                              "'purelib'))"], capture_output=True, text=True, check=True)
    (Path(purelib.stdout.strip()) / "numpy-from-the-series.pth").write_text(
        sysconfig.get_path("purelib") + "\n")
    env = {"PATH": "/usr/bin:/bin"}  # no PYTHONPATH: only the clean environment and numpy
    shown = subprocess.run([python, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True,
                           check=True, env=env).stdout.split("\n")
    assert shown[0].startswith(str(tmp_path / "venv"))  # the installed copy, not src/
    assert shown[1] == "MIT LICENSE"

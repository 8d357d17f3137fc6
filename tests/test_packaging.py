"""`pip install .` into a clean virtual environment, with the oldest setuptools pyproject.toml
allows, then `import posattn` from outside the repository."""

import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = """import importlib.metadata as m, posattn
print(posattn.__file__)
print(m.metadata("posattn")["License-Expression"], *m.metadata("posattn").get_all("License-File"))
"""


@pytest.mark.slow
def test_the_package_installs_with_the_oldest_allowed_setuptools_and_imports(tmp_path):
    pyproject = (ROOT / "pyproject.toml").read_text()
    floor = re.search(r'requires = \["setuptools>=([\d.]+)"\]', pyproject)
    source = tmp_path / "source"  # what a clean clone holds, without build/ or .venv/
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, f"setuptools=={floor[1]}.*"], check=True, timeout=600)
    subprocess.run([*pip, "--no-build-isolation", str(source)], check=True, timeout=600)
    shown = subprocess.run([python, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True,
                           check=True).stdout.split("\n")
    assert shown[0].startswith(str(tmp_path / "venv"))  # the installed copy, not src/
    assert shown[1] == "MIT LICENSE"

"""The package builds with the oldest setuptools pyproject.toml allows and installs into a clean
virtual environment, from which `import posattn` works outside the repository: offline.

The set-up (`make setup`) pins this environment's setuptools to that floor; the wheel is built
with it (--no-build-isolation, --no-index) and installed without an index. The clean
environment takes numpy, posattn's one dependency, from this environment (a .pth file naming a
folder that holds this environment's numpy and nothing else), so nothing is downloaded, and it
is what `pip install .` makes: the math, and the explorer saying which extra it needs.
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
print(*m.metadata("posattn").get_all("Provides-Extra"))
print(posattn.self_attention(posattn.embed(["dog"]), *posattn.default_projections())[1])
try:
    from posattn.explorer import ShuffleExplorer
except ModuleNotFoundError as missing:
    print(missing)
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
    only_numpy = tmp_path / "only-numpy"  # this environment's numpy, and nothing else of it
    only_numpy.mkdir()
    for part in Path(sysconfig.get_path("purelib")).glob("numpy*"):
        (only_numpy / part.name).symlink_to(part)
    (Path(purelib.stdout.strip()) / "numpy-from-the-series.pth").write_text(f"{only_numpy}\n")
    env = {"PATH": "/usr/bin:/bin"}  # no PYTHONPATH: only the clean environment and numpy
    shown = subprocess.run([python, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True,
                           check=True, env=env).stdout.split("\n")
    assert shown[0].startswith(str(tmp_path / "venv"))  # the installed copy, not src/
    assert shown[1] == "MIT LICENSE"
    assert shown[2] == "plot widgets notebooks"
    assert shown[3] == "[[1.]]"  # the math, with numpy alone
    assert shown[4].startswith("posattn.explorer needs the 'widgets' extra"), shown[4]
    assert "pip install '.[widgets]'" in shown[4]


def test_the_bootstrap_lock_pins_the_oldest_allowed_setuptools_with_a_hash():
    """make setup installs pip and setuptools from requirements-bootstrap.lock, hash-checked."""
    lock = (ROOT / "requirements-bootstrap.lock").read_text()
    floor = re.escape(setuptools_floor())
    assert re.search(rf"^setuptools=={floor}\.[\d.]+ \\\n    --hash=sha256:", lock, re.M), lock
    assert re.search(r"^pip==[\d.]+ \\\n    --hash=sha256:", lock, re.M), lock


def _tiny_wheel(folder: Path, version: str) -> tuple[Path, str]:
    """A wheel of an empty package, tiny_lock_probe, and its sha256: built here, no index."""
    import base64
    import hashlib
    import zipfile

    name = f"tiny_lock_probe-{version}-py3-none-any.whl"
    info = f"tiny_lock_probe-{version}.dist-info"
    files = {"tiny_lock_probe.py": "",
             f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny-lock-probe\n"
                                 f"Version: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    def entry(path, text):
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        return f"{path},sha256={digest.decode()},{len(text)}\n"

    record = "".join(entry(path, text) for path, text in files.items()) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(folder / name, "w") as wheel:
        for path, text in {**files, f"{info}/RECORD": record}.items():
            wheel.writestr(path, text)
    return folder / name, hashlib.sha256((folder / name).read_bytes()).hexdigest()


@pytest.mark.slow
def test_a_changed_hash_in_the_lock_stops_the_setup_in_an_existing_environment(tmp_path):
    """pip checks a lock's hashes only for what it downloads: the set-up's old command passed a
    tampered lock in an environment that already held its versions. tools/run/lock_install.py (what
    make setup runs) installs again each entry that changed, and checks its hash."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _, digest = _tiny_wheel(wheels, "1.0")
    venv.create(tmp_path / "venv", with_pip=True)  # pip from ensurepip: no download
    python = str(tmp_path / "venv" / "bin" / "python")
    env = {"PATH": "/usr/bin:/bin", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"tiny-lock-probe==1.0 \\\n    --hash=sha256:{digest}\n    # via nothing\n")
    install = [python, str(ROOT / "tools" / "run" / "lock_install.py"), str(lock)]
    subprocess.run(install, check=True, env=env, timeout=300)  # a fresh one: installed
    installed = next((tmp_path / "venv").glob("lib/python*/site-packages/tiny_lock_probe.py"))
    installed.write_text("# the copy installed first\n")  # a re-install would write it anew
    subprocess.run(install, check=True, env=env, timeout=300)  # unchanged: nothing to install
    assert installed.read_text() == "# the copy installed first\n"
    tampered = "0" if digest[0] != "0" else "1"
    lock.write_text(lock.read_text().replace(digest, tampered + digest[1:]))
    old = [python, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", str(lock)]
    assert subprocess.run(old, env=env, timeout=300).returncode == 0  # the old set-up: passed
    run = subprocess.run(install, env=env, timeout=300, capture_output=True, text=True)
    assert run.returncode != 0 and "did not install" in run.stderr, run.stderr
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in run.stdout + run.stderr


def test_a_package_pinned_under_two_markers_is_installed_by_the_one_that_applies(tmp_path):
    """A universal lock pins numpy twice (one for Python 3.11, one for 3.12 and later): both are
    entries; the one that applies here is installed and checked, whichever comes last."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    digests = {version: _tiny_wheel(wheels, version)[1] for version in ("1.0", "2.0")}
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    env = {"PATH": "/usr/bin:/bin", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"tiny-lock-probe==1.0 ; python_full_version >= '3.0' \\\n"
                    f"    --hash=sha256:{digests['1.0']}\n"
                    f"tiny-lock-probe==2.0 ; python_full_version < '3.0' \\\n"
                    f"    --hash=sha256:{digests['2.0']}\n")
    subprocess.run([python, str(ROOT / "tools" / "run" / "lock_install.py"), str(lock)], check=True,
                   env=env, timeout=300)
    shown = subprocess.run([python, "-c", "import importlib.metadata as m; "
                            "print(m.version('tiny-lock-probe'))"], env=env, capture_output=True,
                           text=True, check=True)
    assert shown.stdout.strip() == "1.0"


def _pins(text: str) -> dict:
    """(name, marker) → (the pin line, its hashes) of a lock: its "# via" notes left out."""
    from tools.run.lock_install import entries, pin
    return {(name, marker): (f"{name}=={pin(entry)[0]}", sorted(re.findall(r"sha256:\w+", entry)))
            for (name, marker), entry in entries(text).items()}


def test_the_torch_lock_is_the_series_lock_plus_exactly_torch_2_13_0():
    """make torch installs requirements-torch.lock: every pin of requirements.lock as it is, and
    torch 2.13.0 only, hashed; on Linux x86-64 with Python 3.11 its CPU build and no CUDA package
    (PyPI's own Linux wheel is the CUDA build: several GB)."""
    from packaging.markers import Marker

    series, torch = (_pins((ROOT / name).read_text()) for name in
                     ("requirements.lock", "requirements-torch.lock"))
    assert {key: torch.get(key) for key in series} == series
    versions = {pin.split("==")[1] for (name, _), (pin, _) in torch.items() if name == "torch"}
    assert versions == {"2.13.0", "2.13.0+cpu"}, versions
    assert all(hashes for pin, hashes in torch.values()), "an entry without a hash"
    here = {"sys_platform": "linux", "platform_machine": "x86_64", "python_full_version": "3.11.2",
            "python_version": "3.11", "platform_python_implementation": "CPython"}
    installed = {pin for (name, marker), (pin, _) in torch.items() if name not in series
                 and (not marker or Marker(marker).evaluate(here))} - {
                     pin for key, (pin, _) in series.items()}
    assert "torch==2.13.0+cpu" in installed
    assert not [pin for pin in installed if pin.startswith(("nvidia", "cuda", "triton"))]

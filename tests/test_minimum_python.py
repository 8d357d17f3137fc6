"""Every minimum Python the repository states is pyproject.toml's requires-python (issue 41 §4).

tools/publish/build_book.py told the book's readers "Python 3.10 or newer" while the project
needs 3.11: each sentence or check that names a lowest Python, in any tracked text file (tools,
docs, README, Makefile, notebooks), is read here and compared with requires-python."""

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIRES = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "project"]["requires-python"]
STATED = [  # the ways a file says "at least this Python"
    re.compile(r"\bPython (3\.\d+)(?:\.\d+)? or (?:newer|later|above)", re.IGNORECASE),
    re.compile(r"\bPython ?(?:>=|≥) ?(3\.\d+)", re.IGNORECASE),
    re.compile(r"\bat least Python (3\.\d+)", re.IGNORECASE),
    re.compile(r"version_info < \((3), (\d+)\)"),  # a check in code (the Makefile's)
    re.compile(r"python_requires\s*=\s*['\"]>=\s*(3\.\d+)"),
]
SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".yml", ".yaml", ".ipynb", ".html", ".j2",
            ".sh", ""}


def minimum(statement: str) -> str:
    """'3.11' from a requires-python such as '>=3.11'."""
    found = re.fullmatch(r"\s*>=\s*(\d+\.\d+)(?:\.\d+)?\s*", statement)
    assert found, f"requires-python must be one lower bound, '>=X.Y'; got {statement!r}"
    return found[1]


def stated_minimums(text: str) -> list[str]:
    return [".".join(g for g in m.groups() if g) if m.re.groups > 1 else m[1]
            for pattern in STATED for m in pattern.finditer(text)]


def _tracked() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    return [ROOT / name for name in names if name and Path(name).suffix in SUFFIXES
            and name != "tests/test_minimum_python.py"]  # (its examples state other versions)


def test_the_reader_finds_each_way_of_stating_a_minimum():
    text = ("You need Python 3.9 or newer. (Python 3.8.2 or later) Python >= 3.7; python≥3.6, "
            "at least Python 3.5, sys.version_info < (3, 4), python_requires='>=3.3'")
    assert stated_minimums(text) == ["3.9", "3.8", "3.7", "3.6", "3.5", "3.4", "3.3"]
    assert stated_minimums("Measured on Python 3.11 and numpy 2.4.") == []  # a fact, no minimum
    assert minimum(">=3.11") == "3.11"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return ""  # not text, or a submodule: nothing is stated there


def test_every_stated_minimum_python_is_requires_python():
    wrong = {str(path.relative_to(ROOT)): found for path in _tracked()
             if (found := [v for v in stated_minimums(_text(path)) if v != minimum(REQUIRES)])}
    assert not wrong, f"these files state another minimum Python than requires-python " \
                      f"{REQUIRES!r}: {wrong}"


def test_the_repository_states_its_minimum_where_newcomers_look():
    """The check is not empty: the README and the Makefile say it (and the book, for readers)."""
    for name in ("README.md", "Makefile", "tools/publish/build_book.py"):
        found = [p for p in _tracked() if p.name == Path(name).name]
        assert any(stated_minimums(_text(p)) for p in found), name

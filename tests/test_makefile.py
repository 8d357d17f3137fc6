"""The Makefile says what each step does: `make help` (and `make` alone) lists every target in one
line, a bad PORT or NB is said before any set-up, and `make clean` removes the series'
checkpoints but never the one copy of a save."""

import re
import subprocess
from pathlib import Path

import pytest

from tools.run import checkpoints

ROOT = Path(__file__).resolve().parent.parent


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def targets() -> set[str]:
    """Every target the Makefile names: its .PHONY list and each rule's name."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    phony = re.search(r"^\.PHONY:(.*)$", text, re.MULTILINE)[1].split()
    rules = re.findall(r"^([a-z][a-z-]*)\s*:(?!=)", text, re.MULTILINE)
    return set(phony) | set(rules)


@pytest.mark.parametrize("command", [["help"], []], ids=["make help", "make"])
def test_make_help_lists_every_target_in_one_line(command):
    done = make(*command)
    assert done.returncode == 0, done.stderr
    named = [re.match(r"make (\S+)\s+\S", line) for line in done.stdout.splitlines()]
    listed = [match[1] for match in named if match]
    assert len(targets()) >= 15
    assert sorted(targets() - set(listed)) == []  # each target has its line
    assert sorted(name for name in set(listed) if listed.count(name) > 1) == []  # once
    assert sorted(set(listed) - targets()) == []
    assert max(map(len, done.stdout.splitlines())) <= 100


@pytest.mark.parametrize("goal, setting, said", [
    ("lab", "PORT=http", "PORT must be a whole number"),
    ("rise", "PORT=99999", "PORT must be a whole number"),
    ("present", "NB=06_the_hole_transformer", "NB must name one notebook"),
])
def test_a_bad_PORT_or_NB_is_said_before_any_set_up(tmp_path, goal, setting, said):
    # a dry run, with environments that do not exist: checked at set-up time, the set-up's
    # commands would be listed first
    done = make("-n", goal, setting, f"VENV={tmp_path / 'venv'}",
                f"RISE_VENV={tmp_path / 'rise'}")
    assert done.returncode != 0
    assert said in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""  # nothing set up, nothing run
    assert list(tmp_path.iterdir()) == []


def test_make_clean_removes_the_checkpoints_with_the_environments():
    recipe = make("-n", "clean", "PYTHON=python3").stdout.splitlines()
    assert recipe[0] == "python3 -m tools.run.checkpoints"  # before the environment goes


def committed_repository(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "series"], check=True)


def test_checkpoints_go_unless_one_holds_the_only_copy_of_a_save(tmp_path):
    committed_repository(tmp_path, {"notebooks/01_a.ipynb": b"committed 01",
                                    "notebooks/02_b.ipynb": b"committed 02",
                                    "notebooks/03_c.ipynb": b"committed 03",
                                    "solutions/nb01_solutions.py": b"committed solution"})
    (tmp_path / "notebooks" / "02_b.ipynb").write_bytes(b"saved 02")  # a person's later save
    (tmp_path / "notebooks" / "03_c.ipynb").write_bytes(b"saved 03")
    saved = {
        "notebooks/.ipynb_checkpoints/01_a-checkpoint.ipynb": b"committed 01",  # as opened
        "notebooks/.ipynb_checkpoints/02_b-checkpoint.ipynb": b"saved 02",  # as saved last
        "notebooks/.ipynb_checkpoints/03_c-checkpoint.ipynb": b"an earlier save of 03",
        "notebooks/.ipynb_checkpoints/my_notes-checkpoint.ipynb": b"a person's own",
        "solutions/.ipynb_checkpoints/nb01_solutions-checkpoint.py": b"committed solution",
    }
    for name, data in saved.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    kept = checkpoints.clean(tmp_path)
    assert [path.relative_to(tmp_path).as_posix() for path in kept] == [
        "notebooks/.ipynb_checkpoints/03_c-checkpoint.ipynb"]
    left = sorted(path.relative_to(tmp_path).as_posix()
                  for path in tmp_path.rglob("*-checkpoint.*"))
    assert left == ["notebooks/.ipynb_checkpoints/03_c-checkpoint.ipynb",
                    "notebooks/.ipynb_checkpoints/my_notes-checkpoint.ipynb"]
    assert not (tmp_path / "solutions" / ".ipynb_checkpoints").exists()  # empty: gone
    assert (tmp_path / "notebooks" / "03_c.ipynb").read_bytes() == b"saved 03"  # untouched

"""`make clean`'s part in notebooks/ and solutions/: JupyterLab's checkpoints of the series' own
files, removed when they hold nothing that is not kept elsewhere.

    python -m tools.run.checkpoints    (any Python 3.11 or newer: the standard library only)

JupyterLab copies a file it opens to .ipynb_checkpoints/NAME-checkpoint.EXT beside it, and again
on each save. A checkpoint of a series file (a notebook NN_*.ipynb or the glossary in notebooks/,
a solution in solutions/) is removed when its bytes are the file's as it is now, or as committed
(git holds those). One that differs from both is the one copy of something a person saved (the
file changed since, or was reset with git): it is kept and named. Anything else in a checkpoints
folder (a person's own notebook's) is left, and so is the folder while it holds something.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERIES = {"notebooks": ["[0-9][0-9]_*.ipynb", "glossary.md"], "solutions": ["*.py"]}
FOLDER = ".ipynb_checkpoints"


def committed(path: Path, root: Path) -> bytes | None:
    """path's bytes as committed in the repository at root (git's HEAD), or None (not
    committed, or no git)."""
    try:
        shown = subprocess.run(["git", "show", f"HEAD:{path.relative_to(root).as_posix()}"],
                               cwd=root, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return shown.stdout if shown.returncode == 0 else None


def original(checkpoint: Path) -> Path:
    """The file a checkpoint is of: .ipynb_checkpoints/NAME-checkpoint.EXT -> NAME.EXT."""
    return checkpoint.parent.parent / (checkpoint.stem.removesuffix("-checkpoint")
                                       + checkpoint.suffix)


def clean(root: Path = ROOT) -> list[Path]:
    """Remove the series' checkpoints that hold nothing else; those kept."""
    kept = []
    for folder, patterns in SERIES.items():
        checkpoints = root / folder / FOLDER
        for pattern in patterns:
            stem, dot, extension = pattern.rpartition(".")
            for checkpoint in sorted(checkpoints.glob(f"{stem}-checkpoint{dot}{extension}")):
                source = original(checkpoint)
                held = checkpoint.read_bytes()
                now = source.read_bytes() if source.is_file() else None
                if held in (now, committed(source, root)):
                    checkpoint.unlink()
                else:
                    kept.append(checkpoint)
        if checkpoints.is_dir() and not any(checkpoints.iterdir()):
            checkpoints.rmdir()
    return kept


def main() -> int:
    for checkpoint in clean():
        print(f"kept {checkpoint.relative_to(ROOT)}: it differs from {original(checkpoint).name} "
              "now and as committed, so it may be the one copy of a save of yours. Delete it "
              "yourself once you have what you need from it.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

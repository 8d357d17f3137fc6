"""Present one notebook as live slides: `make present NB=06_dog_bites_man_explorer`.

Voilà runs the notebook on a kernel and shows it as a reveal.js deck in which the widgets are live (the explorer
of notebook 06 responds to its Shuffle button). It works with no network: the deck's template
(tools/voila/templates/series-reveal) loads reveal.js's CSS, jQuery and the series' slide style from
build/slides/vendor/, which `make slides` fills from the npm registry (this script fills it too, once).

    python tools/present.py [NB]      # NB: a notebook name, with or without .ipynb; default 06_dog_bites_man_explorer

The server listens on 127.0.0.1 only, with a fresh random token; Ctrl+C stops it. The arrow keys move
through the deck. Code cells are hidden, as in any Voilà page; the outputs and widgets are shown.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # as a script or loaded by path: find build_slides
from build_slides import vendor  # noqa: E402
from lab import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_ROOT = Path(__file__).resolve().parent  # holds voila/templates/series-reveal
DEFAULT = "06_dog_bites_man_explorer"


def notebook_path(name: str) -> Path:
    """notebooks/NAME.ipynb, checked: `06_dog_bites_man_explorer` and `notebooks/06_dog_bites_man_explorer.ipynb` both work."""
    path = ROOT / "notebooks" / f"{Path(name).stem}.ipynb"
    if not path.is_file():
        names = ", ".join(p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
        raise ValueError(f"NB must be a notebook in notebooks/; got {name!r}. Pick one of: {names}")
    return path


def voila_command(notebook: Path, port: int, token: str) -> list[str]:
    """The Voilà command line: the offline reveal template, 127.0.0.1 only, a token, only vendor/ served as files."""
    return [
        sys.executable, "-m", "voila", str(notebook), "--template=series-reveal", "--no-browser",
        "--Voila.ip=127.0.0.1", f"--port={port}", "--Voila.port_retries=0", f"--Voila.token={token}",
        f"--Voila.root_dir={ROOT}", "--VoilaConfiguration.file_allowlist=['build/slides/vendor/.*']",
    ]


def voila_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for Voilà: env (default os.environ) with this repository's templates on JUPYTER_PATH."""
    env = dict(os.environ if env is None else env)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(TEMPLATE_ROOT), env.get("JUPYTER_PATH")]))
    return env


def prepare() -> None:
    """Make sure build/slides/vendor/ holds the deck's scripts and styles (fetched from the npm registry once)."""
    vendor(ROOT / "build" / "slides")


def main(argv: list[str]) -> None:
    try:
        notebook = notebook_path(argv[0] if argv else DEFAULT)
    except ValueError as error:
        sys.exit(str(error))
    prepare()
    port, token = free_port(int(os.environ.get("PORT", 8866))), os.environ.get("VOILA_TOKEN") or secrets.token_hex(24)
    print(f"\n  {notebook.stem} as live slides:\n\n    http://127.0.0.1:{port}/?token={token}\n\n"
          "  (The arrow keys move; Ctrl+C stops the server.)\n", flush=True)
    os.chdir(ROOT)
    os.execve(sys.executable, voila_command(notebook, port, token), voila_env())


if __name__ == "__main__":
    main(sys.argv[1:])

"""Present one notebook as live slides: `make present` (the explorer) or `make present NB=NAME`.

Voilà runs the notebook on a kernel and shows it as a reveal.js deck whose widgets are live (the
explorer answers its Shuffle button). Its template (tools/voila/templates/series-reveal) loads
reveal.js's CSS, jQuery and the slide style from build/slides/vendor/, which the first
`make slides` or `make present` fetches from the npm registry; after that no network is needed.

    python -m tools.present [NB]      # a notebook's name, with or without .ipynb, or a glob

The server (tools/voila_app.py, started by tools.servers) listens on 127.0.0.1 with a random
token. The arrow keys move through the deck; code is hidden, outputs and widgets are shown.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tools import servers
from tools.build_slides import AssetsUnavailable, vendor

ROOT = servers.ROOT
EXPLORER = "*_dog_bites_man_explorer"


def notebook_path(name: str = EXPLORER) -> Path:
    """notebooks/NAME.ipynb, for NAME with or without .ipynb or notebooks/, or a glob."""
    found = sorted((ROOT / "notebooks").glob(f"{Path(name).stem}.ipynb"))
    if len(found) != 1:
        names = ", ".join(p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
        raise ValueError(f"NB must name one notebook in notebooks/; got {name!r}. "
                         f"Pick one of: {names}")
    return found[0]


def start(notebook: Path, env: dict[str, str] | None = None,
          log: Path | None = None) -> servers.Server:
    """Voilà serving notebook as a deck; its assets go to build/slides/vendor/ first."""
    vendor(ROOT / "build" / "slides")
    env = dict(os.environ if env is None else env)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(ROOT / "tools"),
                                                        env.get("JUPYTER_PATH")]))
    return servers.start("voila", str(notebook), "--template=series-reveal",
                         port=int(env.get("PORT", 8866)), env=env, log=log)


def main(argv: list[str]) -> None:
    try:
        notebook = notebook_path(*argv[:1])
        server = start(notebook)
    except (ValueError, AssetsUnavailable) as error:
        sys.exit(str(error))
    servers.serve_until_stopped(server, f"{notebook.stem} as live slides (arrow keys move)", "")


if __name__ == "__main__":
    main(sys.argv[1:])

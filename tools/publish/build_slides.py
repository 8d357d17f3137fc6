"""Build an offline reveal.js deck per notebook: `make slides` -> build/slides/NN_name.slides.html,
and one per opt-in lab (notebooks/labs/NAME.ipynb -> build/slides/NAME.slides.html, from its stored
outputs: building needs no PyTorch), with build/slides/index.html listing them (and glossary.html:
tools/publish/deck_pages.py).

The scripts a deck loads (reveal.js, require.js, jQuery, MathJax 2, the widget renderer) are npm
packages pinned in tools/publish/slide_assets/package-lock.json. The FIRST build (`make slides` or
`make present`) needs the npm registry once: `npm ci` installs them into build/npm/ (npm's cache
keeps a copy). Later builds copy from there and need no network. A deck's files go beside it, in
build/slides/vendor/, so it opens from a USB stick on a projector with no network. A notebook's
text never runs as script in its deck: nbconvert's `sanitize_html`, with tools/publish/sanitize.py's
policy (nor is an image fetched from the web). A malformed notebook stops the build with one line
naming the notebook and the cell (tools/publish/deck.py's read_notebook).

    python -m tools.publish.build_slides [NOTEBOOK ...]     # default: every deck_notebooks()
"""

import fcntl
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nbconvert import SlidesExporter
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell

from tools.publish import sanitize
from tools.publish.deck import NotebookError, deck_of, title, with_kind
from tools.publish.deck_pages import LAB, deck_links, write_pages
from tools.publish.deck_tables import deck_tables

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(__file__).resolve().parent
NPM_DIR, VENDOR = ROOT / "build" / "npm", ROOT / "build" / "slides" / "vendor"
LOCK = TOOLS / "slide_assets" / "package-lock.json"
INSTALLED = ".installed-lock.json"  # a copy of LOCK, written once a folder is complete
FONTS = ("dist/*.woff2", "dist/*.woff", "dist/*.ttf", "dist/*.eot", "dist/*.svg")  # widget icons
# package -> the files a deck loads (glob patterns); node_modules holds far more (200 MB)
KEEP = {
    "reveal.js": ("dist/**/*", "plugin/notes/**/*"),
    "requirejs": ("require.js",),
    "jquery": ("dist/jquery.min.js",),
    "mathjax": ("MathJax.js", "config/TeX-AMS_CHTML-full.js", "config/Safe.js",
                "jax/input/TeX/**/*", "jax/output/CommonHTML/**/*", "jax/element/**/*",
                "extensions/**/*", "fonts/HTML-CSS/TeX/woff/**/*"),
    "@jupyter-widgets/html-manager": ("dist/embed-amd.js", *FONTS),
}
# the series' own files a deck loads (tools/publish/slides_template/): its style, its slide size
OWN = ("series-slides.css", "series-size.js")
# the scripts a deck cannot open without: an install that lacks one is not finished
STILL = "*A still picture of one shuffle: run this notebook (`make lab`) to shuffle it yourself.*"
MUST_HAVE = ("reveal.js/dist/reveal.js", "requirejs/require.js", "jquery/dist/jquery.min.js",
             "mathjax/MathJax.js", "@jupyter-widgets/html-manager/dist/embed-amd.js")


def deck_notebooks(folder: Path | None = None) -> list[Path]:
    """The notebooks that have a deck: the series (folder/*.ipynb), then the opt-in labs
    (folder/labs/*.ipynb). folder: notebooks/ by default."""
    folder = folder or ROOT / "notebooks"
    return sorted(folder.glob("*.ipynb")) + sorted((folder / LAB).glob("*.ipynb"))


class AssetsUnavailable(RuntimeError):
    """The slide assets are not installed, and npm could not install them (no network)."""

    def __init__(self, why: str):  # one line, said when the first build cannot fetch the assets
        registry = os.environ.get("npm_config_registry", "https://registry.npmjs.org/")
        super().__init__(f"The slide assets (reveal.js, MathJax, jQuery, RequireJS, widget "
                         f"renderer) must be fetched once from the npm registry ({registry}); "
                         f"{why}. Connect once and run it again: later builds need no network.")


@contextmanager
def one_builder_at_a_time() -> Iterator[None]:
    """Hold the assets' lock: one process at a time installs into NPM_DIR or copies out of it.

    `make test` runs three pytest processes side by side, and more than one of them builds decks or
    the book; two `npm ci` in one folder leave packages half written. Every builder (`install`,
    `vendor`, the book's copy) takes this lock, an flock on a file beside the npm folder that the
    system releases when its holder exits, however it exits. Re-entrant within a process.
    """
    lock = NPM_DIR.with_name(NPM_DIR.name + ".lock")
    if lock in _HELD:
        yield
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        _HELD.add(lock)
        try:
            yield
        finally:
            _HELD.discard(lock)
            fcntl.flock(handle, fcntl.LOCK_UN)


_HELD: set[Path] = set()  # the locks this process holds


def install() -> Path:
    """node_modules with the pinned packages: `npm ci` on a first build or a new lockfile.

    npm runs in a folder beside NPM_DIR, which takes its place only once npm has finished with
    every file of MUST_HAVE and the lockfile's copy is in it: a folder without that copy is never
    used, and a failed or killed run's is removed or started over.
    """
    with one_builder_at_a_time():
        if not installed(NPM_DIR):
            partial = NPM_DIR.with_name(NPM_DIR.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            try:
                _npm_ci(partial)
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)
                raise
            shutil.rmtree(NPM_DIR, ignore_errors=True)  # an earlier lockfile's packages
            partial.rename(NPM_DIR)
        return NPM_DIR / "node_modules"


def _npm_ci(folder: Path) -> None:
    """`npm ci` of the lockfile into folder; the lockfile's copy is written last."""
    shutil.copytree(LOCK.parent, folder)  # package.json and the lockfile
    print("Fetching the slide assets from the npm registry (first build only): npm ci", flush=True)
    try:
        npm = subprocess.run(["npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit",
                              "--no-fund"], cwd=folder, capture_output=True, text=True)
    except FileNotFoundError:
        raise AssetsUnavailable("npm is not installed (Node.js 18 or newer)") from None
    if npm.returncode:
        code = re.search(r"npm (?:error|ERR!) code (\S+)", npm.stderr)
        why = code[1] if code else " ".join(npm.stderr.split())[-200:]
        raise AssetsUnavailable(f"npm ci failed ({why})")
    missing = [name for name in MUST_HAVE if not (folder / "node_modules" / name).is_file()]
    if missing:
        raise AssetsUnavailable(f"npm ci finished without {', '.join(missing)}")
    shutil.copy(LOCK, folder / INSTALLED)


def installed(folder: Path) -> bool:
    """True when folder was filled from the current lockfile."""
    return (folder / INSTALLED).is_file() and (folder / INSTALLED).read_bytes() == LOCK.read_bytes()


def vendor(out: Path) -> None:
    """Put every file a deck loads, and the series' own (OWN), into out/vendor/."""
    with one_builder_at_a_time():
        modules, folder = install(), out / "vendor"
        if not installed(folder):
            shutil.rmtree(folder, ignore_errors=True)
            for package, patterns in KEEP.items():
                sources = [path for glob in patterns for path in (modules / package).glob(glob)]
                for source in sources:
                    if source.is_file():
                        target = folder / package / source.relative_to(modules / package)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy(source, target)
            for font in (folder / "@jupyter-widgets" / "html-manager" / "dist").glob("*.*"):
                if font.suffix != ".js":  # the controls look for their icon fonts one level up
                    shutil.copy(font, folder / "@jupyter-widgets" / font.name)
            shutil.copy(LOCK, folder / INSTALLED)
        for name in OWN:
            source, target = TOOLS / "slides_template" / name, folder / name
            if not target.is_file() or target.read_bytes() != source.read_bytes():
                shutil.copy(source, target)  # only when it changed: an open deck may read it


def drop_image_tooltips(nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
    """The stored widget state minus Image tooltips: html-manager 1.0.15 cannot draw them."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    for model in state.get("state", {}).values():
        if model.get("model_name") == "ImageModel":
            model["state"].pop("tooltip", None)
    return nb, resources


def still_pictures(nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
    """Where no kernel runs, no dead controls: a widget that stored a picture of itself (the
    explorer, its figure) shows the picture, with a line under it on how to make it live. The
    widget state, and with it the widget renderer, goes when no other widget is left to draw."""
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        stills = [out for out in cell.get("outputs", [])
                  if sanitize.WIDGET_VIEW in out.get("data", {}) and "image/png" in out.data]
        for out in stills:
            del out.data[sanitize.WIDGET_VIEW]
        if stills:
            cells.append(with_kind(new_markdown_cell(STILL, metadata={"tags": ["still-picture"]}),
                                   "-"))
    nb.cells = cells
    if not any(sanitize.WIDGET_VIEW in out.get("data", {}) for cell in cells
               for out in cell.get("outputs", [])):
        nb.metadata.pop("widgets", None)
    return nb, resources


def build(notebooks: list[Path], out: Path) -> list[Path]:
    """Write out/NAME.slides.html for each notebook, out/vendor/, and the index of the decks and
    the glossary (tools/publish/deck_pages.py); return the decks. Every
    notebook is read and checked first, and every deck made: a malformed notebook (NotebookError)
    stops the build before any deck is written."""
    views = [deck_of(notebook) for notebook in notebooks]
    out.mkdir(parents=True, exist_ok=True)
    vendor(out)
    slides = SlidesExporter(  # nbconvert's reveal.js exporter, every URL into the local vendor/
        extra_template_paths=[str(TOOLS / "slides_template")], template_file="series.html.j2",
        reveal_url_prefix="vendor/reveal.js", reveal_theme="white", reveal_transition="none",
        reveal_width="1280", reveal_height="720", reveal_number="c/t",
        require_js_url="vendor/requirejs/require.js", jquery_url="vendor/jquery/dist/jquery.min.js",
        mathjax_url="vendor/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe",
        widget_renderer_url="vendor/@jupyter-widgets/html-manager/dist/embed-amd.js",
        preprocessors=[still_pictures, drop_image_tooltips, deck_tables, deck_links,
                       sanitize.safe_notebook],
        sanitize_html=True, filters={"clean_html": sanitize.clean},  # no script from a notebook
    )
    pages = [slides.from_notebook_node(view, {"metadata": {"name": notebook.stem}})[0]
             for notebook, view in zip(notebooks, views, strict=True)]  # all, before any is written
    decks = [out / f"{notebook.stem}.slides.html" for notebook in notebooks]
    for deck, page in zip(decks, pages, strict=True):
        deck.write_text(page, encoding="utf-8")
    titles = {notebook.stem: title(view) for notebook, view in zip(notebooks, views, strict=True)}
    folder = notebooks[0].parent if notebooks else ROOT / "notebooks"
    write_pages(out, folder.parent if folder.name == LAB else folder, titles)  # the glossary's
    return decks


def main(argv: list[str]) -> None:
    notebooks = [Path(a) for a in argv] or deck_notebooks()
    try:
        decks = build(notebooks, ROOT / "build" / "slides")
    except (AssetsUnavailable, NotebookError) as error:
        sys.exit(str(error))
    print("".join(f"  {deck.relative_to(ROOT)}\n" for deck in decks), end="")
    print(f"{len(decks)} decks, listed in build/slides/index.html"
          "; open one in a browser (no network needed). "
          "Keys: S = presenter notes, Esc = overview.")


if __name__ == "__main__":
    main(sys.argv[1:])

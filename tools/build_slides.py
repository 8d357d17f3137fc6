"""Build an offline reveal.js deck for every notebook: `make slides` -> build/slides/NN_name.slides.html.

The scripts a deck needs (reveal.js, require.js, jQuery, MathJax 2, the widget renderer) are taken from the
npm registry at build time, checked against the registry's sha512, cached under build/npm-cache/, and copied
beside the decks into build/slides/vendor/. A deck then opens from a USB stick on a projector with no network.

    python tools/build_slides.py [NOTEBOOK ...]     # default: every notebooks/*.ipynb

Readable on a projector: the type stays large (slides_template/series-slides.css), and slide_fit.py splits a
slide whose cells would not fit 1280×720 into vertical sub-slides, on the exported copy only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
import tarfile
import urllib.request
from fnmatch import fnmatch
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))  # as a script or loaded by path: find slide_fit
from slide_fit import fit_slides  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_DIR = Path(__file__).resolve().parent / "slides_template"
REGISTRY = "https://registry.npmjs.org"
FONTS = ("dist/*.woff2", "dist/*.woff", "dist/*.ttf", "dist/*.eot", "dist/*.svg")  # html-manager's icon fonts
# npm package -> (pinned version, folder under vendor/, what to keep from the package)
VENDOR = {
    "reveal.js": ("4.6.1", "reveal.js", ("dist/*", "plugin/notes/*")),
    "requirejs": ("2.3.8", "requirejs", ("require.js",)),
    "jquery": ("3.7.1", "jquery", ("dist/jquery.min.js",)),
    "mathjax": ("2.7.9", "mathjax", ("MathJax.js", "config/TeX-AMS_CHTML-full.js", "config/Safe.js", "jax/input/TeX/*",
                                     "jax/output/CommonHTML/*", "jax/element/*", "extensions/*", "fonts/HTML-CSS/TeX/woff/*")),
    "@jupyter-widgets/html-manager": ("1.0.15", "@jupyter-widgets/html-manager", ("dist/embed-amd.js", *FONTS)),
}
MATHJAX_CONFIG = "TeX-AMS_CHTML-full,Safe"


def fetch_tarball(name: str, version: str, cache: Path) -> Path:
    """Download name@version from the registry once; check it against the registry's integrity hash every time."""
    path, meta = cache / f"{name.replace('/', '__')}-{version}.tgz", cache / f"{name.replace('/', '__')}-{version}.json"
    cache.mkdir(parents=True, exist_ok=True)
    if not meta.exists():  # after the first build, rebuilding needs no network
        with urllib.request.urlopen(f"{REGISTRY}/{name}/{version}", timeout=60) as response:
            meta.write_text(json.dumps(json.load(response)["dist"]))
    dist = json.loads(meta.read_text())
    if not path.exists():
        with urllib.request.urlopen(dist["tarball"], timeout=300) as response:
            path.with_suffix(".part").write_bytes(response.read())
        path.with_suffix(".part").rename(path)
    algorithm, expected = dist["integrity"].split("-", 1)
    digest = base64.b64encode(hashlib.new(algorithm, path.read_bytes()).digest()).decode()
    if digest != expected:
        path.unlink()
        raise ValueError(f"{name}@{version} must match the registry's {algorithm}; got {digest}. Run `make slides` again.")
    return path


def unpack(tarball: Path, dest: Path, keep: tuple[str, ...]) -> None:
    """Extract the files matching keep (glob patterns) of an npm tarball (whose members start with 'package/') into dest."""
    if dest.exists():
        shutil.rmtree(dest)
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            rel = member.name.split("/", 1)[-1]
            if not member.isfile() or ".." in Path(rel).parts or not any(fnmatch(rel, pattern) for pattern in keep):
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())


def vendor(out: Path) -> None:
    """Put every script a deck loads, and the series' slide CSS, into out/vendor/."""
    cache = ROOT / "build" / "npm-cache"
    for name, (version, folder, keep) in VENDOR.items():
        stamp = out / "vendor" / folder / ".version"
        if not (stamp.exists() and stamp.read_text() == version):
            unpack(fetch_tarball(name, version, cache), stamp.parent, keep)
            stamp.write_text(version)
    widgets = out / "vendor" / "@jupyter-widgets"
    for font in (widgets / "html-manager" / "dist").glob("*.*"):  # the controls look for the same fonts one level up
        if font.suffix != ".js":
            shutil.copy(font, widgets / font.name)
    shutil.copy(TEMPLATE_DIR / "series-slides.css", out / "vendor" / "series-slides.css")


def exporter() -> SlidesExporter:
    """nbconvert's reveal.js exporter, every URL pointing at the local vendor/ folder."""
    return SlidesExporter(
        extra_template_paths=[str(TEMPLATE_DIR)],
        template_file="series.html.j2",
        reveal_url_prefix="vendor/reveal.js",
        reveal_theme="white",
        reveal_transition="none",
        reveal_width="1280",
        reveal_height="720",
        reveal_scroll=False,  # slides are split to fit (fit_slides); the CSS still scrolls one that does not
        require_js_url="vendor/requirejs/require.js",
        jquery_url="vendor/jquery/dist/jquery.min.js",
        mathjax_url=f"vendor/mathjax/MathJax.js?config={MATHJAX_CONFIG}",
        widget_renderer_url="vendor/@jupyter-widgets/html-manager/dist/embed-amd.js",
    )


def drop_image_tooltips(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The stored widget state, minus Image tooltips: html-manager 1.0.15 cannot draw an Image that has one."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in state.values():
        if model.get("model_name") == "ImageModel":
            model["state"].pop("tooltip", None)
    return nb


def build(notebooks: list[Path], out: Path) -> list[Path]:
    """Write out/NAME.slides.html for each notebook (and the shared vendor/ folder); return the decks."""
    out.mkdir(parents=True, exist_ok=True)
    vendor(out)
    slides = exporter()
    decks = []
    for notebook in notebooks:
        body, _ = slides.from_notebook_node(fit_slides(drop_image_tooltips(nbformat.read(notebook, as_version=4))))
        deck = out / f"{notebook.stem}.slides.html"
        deck.write_text(body, encoding="utf-8")
        decks.append(deck)
    return decks


def main(argv: list[str]) -> None:
    notebooks = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    decks = build(notebooks, ROOT / "build" / "slides")
    for deck in decks:
        print(f"  {deck.relative_to(ROOT)}")
    print(f"{len(decks)} decks; open one in a browser (no network needed). Keys: S = presenter notes, Esc = overview.")


if __name__ == "__main__":
    main(sys.argv[1:])

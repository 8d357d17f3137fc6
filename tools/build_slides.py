"""Build an offline reveal.js deck for every notebook: `make slides` -> build/slides/NN_name.slides.html.

The scripts a deck needs (reveal.js, require.js, jQuery, MathJax 2, the widget renderer) are taken from the
npm registry at build time, checked against the registry's sha512, cached under build/npm-cache/, and copied
beside the decks into build/slides/vendor/. A deck then opens from a USB stick on a projector with no network.

    python tools/build_slides.py [NOTEBOOK ...]     # default: every notebooks/*.ipynb

Readable on a projector: the type stays large (slides_template/series-slides.css), so a slide whose cells would not
fit 1280×720 is split. On the copy being exported (never the notebook), fit_slides estimates each cell's height
(prose wrapped at the deck's line length, headings, tables, display math, code lines, printed lines, PNG figures
scaled to the slide) and starts a vertical sub-slide before the cell that would overflow, so the top-level slides
stay one per "slide" cell. A "*Figure:*" description never leaves its figure; the text introducing a code cell goes
with it when both fit; fragments count as continuation cells. A markdown cell taller than a slide is cut at
paragraph boundaries (a long table into tables with the same header); a cell that is still too tall on its own,
or a figure with no room for its description, is tagged "slides-dense": 24 px prose, 18 px code, a smaller figure.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import struct
import sys
import tarfile
import urllib.request
from fnmatch import fnmatch
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

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
# Fitting cells on a 1280×720 slide (px of reveal's slide; the numbers follow slides_template/series-slides.css).
BUDGET = 690                      # slide height 720, minus a small margin
PROSE_LINE, PROSE_CHARS = 38, 80  # 28 px text, line-height 1.35; characters per line of prose across the slide
CODE_LINE, CODE_CHARS = 27, 95    # 21 px monospace, line-height 1.3
IMAGE_WIDTH, IMAGE_HEIGHT = 1200, 440  # the CSS caps a figure at 440 px high (61 % of the slide), aspect kept
DENSE_IMAGE_HEIGHT = 270          # ... and at 270 px in a "slides-dense" cell
HEADINGS = {1: 90, 2: 80, 3: 64}  # px per heading line, margins included
TABLE_CHARS = 80                  # characters per table row (24 px), all its columns together
CELL_PAD, BLOCK_GAP = 10, 20      # around every cell; between paragraphs, lists, tables, display math


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


def slide_type(cell: nbformat.NotebookNode) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-") or "-"


def markdown_height(text: str) -> int:
    """Estimated px of rendered markdown: headings, prose wrapped at PROSE_CHARS, table rows, display math."""
    height = 0
    for block in re.split(r"\n\s*\n", text.strip()):
        if block.startswith("$$"):  # tall fractions and braces make a display taller
            height += 70 + 35 * block.count("\\frac") + 25 * block.count("brace") + 40 * block.count("\\\\") + BLOCK_GAP
            continue
        for line in block.splitlines():
            level = len(line) - len(line.lstrip("#"))
            if level and line[level:level + 1] == " ":
                wrap = {1: 45, 2: 55, 3: 70}.get(level, 80)  # characters per heading line
                height += HEADINGS.get(level, 50) + 50 * ((len(line) - level - 2) // wrap)
            elif line.lstrip().startswith("|"):
                cells = [re.sub(r"\]\([^)]*\)|[*_`\\]|\$", "", c) for c in line.strip().strip("|").split("|")]
                total = -(-sum(len(c.strip()) + 3 for c in cells) // TABLE_CHARS)  # columns share the width, but the
                widest = max(-(-len(c.strip()) // (3 * TABLE_CHARS // (2 * len(cells)))) for c in cells)  # longest wraps
                rows = max(1, total, widest)
                height += 0 if set(line.strip()) <= set("|-: ") else 12 + 32 * rows
            else:
                shown = re.sub(r"\]\([^)]*\)|[*_`\\]|\$", "", line)  # link targets, emphasis and TeX marks are not shown
                height += PROSE_LINE * max(1, -(-len(shown) // PROSE_CHARS))
        height += BLOCK_GAP
    return height + CELL_PAD


def png_size(data: str) -> tuple[int, int]:
    """(width, height) of a base64 PNG, read from its IHDR header."""
    return struct.unpack(">II", base64.b64decode(data[:32])[16:24])


def output_height(output: nbformat.NotebookNode, dense: bool = False) -> int:
    data = output.get("data", {})
    if "image/png" in data:
        width, height = png_size(data["image/png"])
        return int(min(DENSE_IMAGE_HEIGHT if dense else IMAGE_HEIGHT, height * min(1.0, IMAGE_WIDTH / width))) + CELL_PAD
    if "application/vnd.jupyter.widget-view+json" in data:
        return 880  # the explorer: controls, two heatmaps and a status line
    if "text/markdown" in data:
        return markdown_height("".join(data["text/markdown"]))
    text = output.get("text") or data.get("text/html") or data.get("text/plain", "")
    lines = "".join(text).splitlines() or [""]
    return CODE_LINE * sum(max(1, -(-len(line) // CODE_CHARS)) for line in lines) + CELL_PAD


def cell_height(cell: nbformat.NotebookNode) -> int:
    """Estimated px the cell takes on a slide (0 for cells that are not shown)."""
    if slide_type(cell) in {"skip", "notes"}:
        return 0
    if cell.cell_type == "markdown":
        return markdown_height(cell.source) * (6 if "slides-dense" in cell.metadata.get("tags", []) else 7) // 7
    dense, lines = "slides-dense" in cell.metadata.get("tags", []), cell.source.splitlines() or [""]
    code = (23 if dense else CODE_LINE) * sum(max(1, -(-len(line) // CODE_CHARS)) for line in lines) + 3 * CELL_PAD
    return code + sum(output_height(output, dense) for output in cell.get("outputs", []))


def fit_slides(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Start a vertical sub-slide wherever the cells so far would overflow the slide (on the build copy only)."""
    nb = split_long_markdown(nb)
    shown = [cell for cell in nb.cells if cell_height(cell)]
    for before, cell in zip([None, *shown], shown, strict=False):
        # Smaller type and figure for a cell taller than a slide on its own (a long code cell and its output),
        # and for a figure that would not leave room for its "*Figure:*" description and a line above.
        figure = before is not None and glued(before, cell) and before.cell_type == "code"
        if cell_height(cell) > BUDGET or figure and cell_height(before) + cell_height(cell) > BUDGET - PROSE_LINE:
            for dense in (before, cell) if figure else (cell,):
                dense.metadata["tags"] = sorted({*dense.metadata.get("tags", []), "slides-dense"})
    height, start = 0, None  # running height of the current (sub)slide, index of its first shown cell
    for index, cell in enumerate(nb.cells):
        kind, size = slide_type(cell), cell_height(cell)
        if not size:
            continue
        if kind in {"slide", "subslide"} or start is None:
            height, start = size, index
            continue
        cut = break_before(nb, start, index) if height + size > BUDGET else None
        if cut is None or cut == index and is_description(cell):  # a "*Figure:*" line stays under its figure regardless
            height += size
            continue
        nb.cells[cut].metadata.setdefault("slideshow", {})["slide_type"] = "subslide"
        height, start = sum(cell_height(c) for c in nb.cells[cut:index + 1]), cut
    return nb


def break_before(nb: nbformat.NotebookNode, start: int, index: int) -> int:
    """Where to start the new sub-slide when cell index does not fit: never between a figure and its
    "*Figure:*" description, and the markdown that introduces a code cell goes with it (unless it opens the slide)."""
    shown = [i for i in range(start + 1, index + 1) if cell_height(nb.cells[i])]
    cut = shown[-1]
    while len(shown) > 1 and glued(nb.cells[shown[-2]], nb.cells[shown[-1]]):
        if nb.cells[shown[-1]].cell_type == "code" and sum(map(cell_height, nb.cells[shown[-2]:index + 1])) > BUDGET:
            break  # an introduction that would not fit with its code stays behind
        shown.pop()
        cut = shown[-1]
    return cut


def is_description(cell: nbformat.NotebookNode) -> bool:
    """The one-line "*Figure:* ..." text under a figure."""
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith("*Figure")


def glued(before: nbformat.NotebookNode, after: nbformat.NotebookNode) -> bool:
    """True when after must stay on the same slide as before."""
    if is_description(after):
        return True
    return before.cell_type == "markdown" and after.cell_type == "code"


def split_long_markdown(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Cut a markdown cell taller than a slide into continuation cells at paragraph boundaries (headings stay
    with the paragraph after them), so fit_slides can put the parts on successive sub-slides."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "markdown" or cell_height(cell) <= BUDGET:
            cells.append(cell)
            continue
        parts = [""]
        for block in [part for text in re.split(r"\n\s*\n", cell.source.strip()) for part in table_parts(text)]:
            joined = f"{parts[-1]}\n\n{block}".strip()
            heading_only = re.fullmatch(r"(#+ .*|\*\*[^*]+\*\*)", parts[-1].strip())
            if parts[-1] and not heading_only and markdown_height(joined) > BUDGET:
                parts.append(block)
            else:
                parts[-1] = joined
        for number, part in enumerate(parts):
            piece = nbformat.v4.new_markdown_cell(part, metadata=dict(cell.metadata) if not number else {})
            cells.append(piece)
    nb.cells = cells
    return nb


def table_parts(block: str) -> list[str]:
    """A markdown table too tall for a slide as several tables, each with the header; any other block as it is."""
    lines = block.splitlines()
    room = BUDGET - 4 * PROSE_LINE  # wrapped table rows are hard to estimate: leave a margin
    if not block.startswith("|") or markdown_height(block) <= room:
        return [block]
    parts = [lines[:2]]
    for row in lines[2:]:
        if len(parts[-1]) > 2 and markdown_height("\n".join([*parts[-1], row])) > room:
            parts.append(lines[:2])
        parts[-1] = [*parts[-1], row]
    return ["\n".join(part) for part in parts]


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

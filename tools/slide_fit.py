"""Fit a notebook's cells onto 1280×720 slides, on the copy being exported (never the notebook itself).

fit_slides estimates each cell's height (prose wrapped at the deck's line length, headings, tables, display
math, code lines, printed lines, PNG figures scaled to the slide) and starts a vertical sub-slide before the cell
that would overflow, so the top-level slides stay one per "slide" cell. A "*Figure:*" description never leaves
its figure; the text introducing a code cell goes with it when both fit; fragments count as continuation cells.
A markdown cell taller than a slide is cut at paragraph boundaries (a long table into tables with the same
header); a cell that is still too tall on its own, or a figure with no room for its description, is tagged
"slides-dense": 24 px prose, 18 px code, a smaller figure. Used by build_slides.py.
"""

from __future__ import annotations

import base64
import re
import struct

import nbformat

# Fitting cells on a 1280×720 slide (px of reveal's slide; the numbers follow slides_template/series-slides.css).
BUDGET = 690                      # slide height 720, minus a small margin
PROSE_LINE, PROSE_CHARS = 38, 80  # 28 px text, line-height 1.35; characters per line of prose across the slide
CODE_LINE, CODE_CHARS = 27, 95    # 21 px monospace, line-height 1.3
IMAGE_WIDTH, IMAGE_HEIGHT = 1200, 440  # the CSS caps a figure at 440 px high (61 % of the slide), aspect kept
DENSE_IMAGE_HEIGHT = 270          # ... and at 270 px in a "slides-dense" cell
HEADINGS = {1: 90, 2: 80, 3: 64}  # px per heading line, margins included
TABLE_CHARS = 80                  # characters per table row (24 px), all its columns together
CELL_PAD, BLOCK_GAP = 10, 20      # around every cell; between paragraphs, lists, tables, display math


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

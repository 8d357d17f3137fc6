"""A notebook as a lecture-hall deck: results on the slide, reading prose in the presenter notes.

The notebook stays the single source; `deck_view` makes the deck's copy of it (`make slides`,
`make present`). What changes on the way, cell by cell:

- a markdown cell tagged ``deck-notes`` goes to the presenter notes of its slide; when it opens a
  slide, its heading stays on the slide and only the prose below the heading moves;
- code is hidden (its output stays), unless the cell is tagged ``deck-code``, where the code is
  the lesson; a code cell left with nothing to show drops out;
- exercise cells show the task only: the code cell and the checker's verdict stay in the notebook;
- a ``*Figure:*`` description becomes the image's alt text, and its first sentence, the takeaway,
  stays on the slide under the figure;
- the navigation line drops out, and a closing slide says the takeaway and what comes next;
- a tag in a presenter's note shows as written (sanitize.literal_tags): a cue on the token `<s>`
  says "<s>", where markdown would strike the rest of it through.

Each slide's presenter notes (the speaker view, key S) then read in one order: the presenter's
cues first (markdown cells with slide_type "notes", written as a blockquote `> **Presenter
notes.**` with **Say:**, **Ask:**, **Pause:**, **Expect:**, **Do:**), then the lesson prose moved
there (the two kinds above: deck-notes prose, "Figure: …" descriptions) as one note under the line
"From the notebook:", after a rule. nbconvert puts each notes cell into its slide as an `<aside
class="notes">`, and reveal.js's notes plugin joins a slide's asides in page order; so the notes
go after the slide's leading cells, before its first fragment. An aside inside a fragment would
replace the slide's notes while that fragment is the current one, and notes before the deck's
first shown cell would belong to no slide.

Before a builder reads a notebook, `read_notebook` checks what they read of it (a contributed
notebook may be malformed): a `NotebookError`, one line naming the notebook and the cell, instead
of a traceback from deep inside a builder.
"""

import binascii
import copy
import json
import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell

from tools.publish.sanitize import literal_tags

NOTES, CODE, EXERCISE = "deck-notes", "deck-code", "exercise"
STARTS = {"slide", "subslide"}
HIDDEN = {"notes", "skip"}  # cells that open no slide, even as the deck's first
PRESENTER = "> **Presenter notes.**"
FROM_THE_NOTEBOOK = "**From the notebook:**"
HEADING = re.compile(r"\A((?:#{1,6} [^\n]*\n*)+)")
NAVIGATION = re.compile(r"\A(\s*\[[^\]]+\]\([^)]+\.ipynb\)\s*·?\s*)+\Z")
FIGURE = re.compile(r"\A\s*\*Figure[^:]*:\*?\s*")  # *Figure:*, *Figure (live):*, *Figure: …*
SENTENCE = re.compile(r"(.+?[.!?])(?=\s+[A-Z(\"'*$`]|\s*\Z)", re.S)
SLIDE_TYPES = ("slide", "subslide", "fragment", "skip", "notes", "-")
PICTURES = ("image/png", "image/jpeg", "image/gif")  # stored as base64
FIX = "Fix it in JupyterLab (the cell's metadata: the gear icon, right sidebar) or in the file."


class NotebookError(ValueError):
    """A notebook the builders cannot read: one line naming the notebook and the cell."""


def cell_name(name: str, index: int, cell) -> str:
    """How a build error names a cell: its place in the notebook (from 1) and its id."""
    ident = cell.get("id") if isinstance(cell, dict) else None
    return f"{name}, cell {index + 1}" + (f" (id {ident})" if ident else "")


def shown(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def check_output(where: str, number: int, output) -> None:
    """An output's pictures are base64 and its texts are text (the builders decode both)."""
    data = output.get("data", {}) if isinstance(output, dict) else None
    if not isinstance(data, dict):
        raise NotebookError(f"{where}: output {number} must be a dict with a dict \"data\"; got "
                            f"{shown(output)}. Clear the cell's output and run it again.")
    for mime, value in data.items():
        if mime.endswith("json"):
            continue
        if not isinstance(value, str):
            raise NotebookError(f"{where}: output {number}'s {mime} must be text; got "
                                f"{shown(value)}. Clear the cell's output and run it again.")
        if mime in PICTURES:
            try:
                binascii.a2b_base64("".join(value.split()).encode("ascii"), strict_mode=True)
            except (binascii.Error, UnicodeEncodeError, ValueError):
                raise NotebookError(f"{where}: output {number}'s {mime} must be base64 (as "
                                    f"Jupyter saves a picture); got {shown(value[:40])}. Clear "
                                    "the cell's output and run it again.") from None


def check_cell(name: str, index: int, cell) -> None:
    """The metadata a builder reads (slideshow, tags, deck) in the form it reads them."""
    where = cell_name(name, index, cell)
    if not isinstance(cell, dict) or not isinstance(cell.get("metadata", {}), dict):
        raise NotebookError(f"{where} must be a cell with a dict of metadata; got "
                            f"{shown(cell)}. {FIX}")
    if not isinstance(cell.get("source", ""), str):
        raise NotebookError(f"{where}: its source must be text; got {shown(cell.get('source'))}."
                            f" {FIX}")
    metadata = cell.get("metadata", {})
    slideshow = metadata.get("slideshow", {})
    if not isinstance(slideshow, dict) or slideshow.get("slide_type", "-") not in SLIDE_TYPES:
        raise NotebookError(f"{where}: metadata \"slideshow\" must be a dict like "
                            f'{{"slide_type": "slide"}} (slide_type one of '
                            f"{', '.join(SLIDE_TYPES)}); got {shown(slideshow)}. {FIX}")
    cell_tags = metadata.get("tags", [])
    if not isinstance(cell_tags, list) or not all(isinstance(tag, str) for tag in cell_tags):
        raise NotebookError(f"{where}: metadata \"tags\" must be a list of strings like "
                            f'["deck-notes"]; got {shown(cell_tags)}. {FIX}')
    if not isinstance(metadata.get("deck", {}), dict):
        raise NotebookError(f"{where}: metadata \"deck\" must be a dict like "
                            f'{{"mark": [["<row label>", "<column header>"]]}}; got '
                            f"{shown(metadata['deck'])}. {FIX}")
    outputs = cell.get("outputs", [])
    if not isinstance(outputs, list):
        raise NotebookError(f"{where}: its outputs must be a list; got {shown(outputs)}. Clear "
                            "the cell's output and run it again.")
    for number, output in enumerate(outputs, 1):
        check_output(where, number, output)


def check_notebook(nb, name: str) -> None:
    """What the builders read of a notebook, checked (NotebookError, one line, on the first
    fault): at least one cell, and each cell as check_cell wants it."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or not cells:
        raise NotebookError(f"notebook {name} must hold at least one cell (its title, "
                            f"'# NN · Title'); got {shown(cells) if cells != [] else 'no cells'}. "
                            "Add the title cell, or take the file out of notebooks/.")
    if not isinstance(nb.get("metadata", {}), dict):
        raise NotebookError(f"notebook {name}: its metadata must be a dict; got "
                            f"{shown(nb.get('metadata'))}. {FIX}")
    for index, cell in enumerate(cells):
        check_cell(name, index, cell)


def read_notebook(path: Path) -> NotebookNode:
    """A notebook file as the builders read it: checked (check_notebook, then nbformat's schema),
    else NotebookError."""
    name, invalid = path.name, {}
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)  # nbformat's own error would print the whole file
        nb = nbformat.reads(text, as_version=4, capture_validation_error=invalid)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        why = " ".join(str(error).split())[:120]
        raise NotebookError(f"notebook {name} must be a Jupyter notebook (JSON, nbformat 4); "
                            f"got {type(error).__name__}: {why}. Open it in JupyterLab and save "
                            "it again.") from None
    check_notebook(nb, name)
    if invalid.get("ValidationError") is not None:
        error = invalid["ValidationError"]
        place = list(getattr(error, "absolute_path", []) or [])
        where = (cell_name(name, place[1], nb.cells[place[1]])
                 if place[:1] == ["cells"] and len(place) > 1 and isinstance(place[1], int)
                 and place[1] < len(nb.cells) else f"notebook {name}")
        field = "/".join(map(str, place[2:] if where != f"notebook {name}" else place)) or "it"
        why = " ".join(str(getattr(error, "message", error)).split())[:120]
        raise NotebookError(f"{where}: {field} must follow the notebook format (nbformat 4); got "
                            f"{why}. Open it in JupyterLab and save it again.")
    return nb


def kind(cell: NotebookNode) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def tags(cell: NotebookNode) -> set:
    return set(cell.metadata.get("tags", []))


def with_kind(cell: NotebookNode, slide_type: str) -> NotebookNode:
    cell.metadata.setdefault("slideshow", {})["slide_type"] = slide_type
    return cell


def plain(markdown: str) -> str:
    """Markdown reduced to the words a screen reader should say (alt text)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)  # [words](link) -> words
    return " ".join(re.sub(r"[*`$]", "", text).split())


def alt_text(caption: str) -> str:
    """A "*Figure:* …" cell as plain text for an image's alt attribute (decks and book)."""
    return plain(FIGURE.sub("", caption))


def takeaway(description: str) -> str:
    """The first sentence of a figure's description: what the audience should see in it."""
    match = SENTENCE.match(description.strip())
    return (match[1] if match else description).strip()


def deck_view(nb: NotebookNode, closing: str | None = None) -> NotebookNode:
    """The deck's copy of ``nb``; ``closing`` (markdown) is appended as its last slide."""
    nb = copy.deepcopy(nb)
    cells, last_image, moved = [], None, set()  # moved: ids of the cells made lesson notes
    for cell in nb.cells:
        if cell.cell_type == "markdown" and kind(cell) == "notes":
            cell.source = literal_tags(cell.source)  # a cue's `<s>` is the token, not HTML
        source = cell.source
        if cell.cell_type == "code":
            if EXERCISE in tags(cell) or kind(cell) == "skip":
                cells.append(with_kind(cell, "skip"))
                continue
            images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
            last_image = images[-1] if images else last_image
            if CODE not in tags(cell):
                cell.metadata.setdefault("transient", {})["remove_source"] = True
                if not cell.get("outputs") and kind(cell) not in STARTS:
                    with_kind(cell, "skip")
        elif cell.cell_type == "markdown" and kind(cell) != "notes":
            if NAVIGATION.match(source) and kind(cell) not in STARTS:
                with_kind(cell, "skip")
            elif FIGURE.match(source):
                description = FIGURE.sub("", source)
                if last_image is not None:
                    last_image.setdefault("metadata", {}).setdefault("image/png", {})["alt"] = (
                        alt_text(source))
                cell.source = f"*{takeaway(description).strip('*')}*"
                cell.metadata.setdefault("tags", []).append("figure-takeaway")
                cells.append(cell)  # the whole description is the presenter's to read out
                cell = with_kind(new_markdown_cell(f"Figure: {description.strip()}"), "notes")
                moved.add(id(cell))
                last_image = None
            elif NOTES in tags(cell):
                heading = HEADING.match(source)
                if heading and kind(cell) in STARTS:
                    cell.source = heading[1].strip()
                    cells.append(cell)
                    cell = with_kind(new_markdown_cell(source[heading.end():].strip()), "notes")
                else:
                    with_kind(cell, "notes")
                moved.add(id(cell))
        cells.append(cell)
    if closing:
        cells.append(with_kind(new_markdown_cell(closing), "slide"))
    nb.cells = [cell for group in slides_of(cells) for cell in with_notes_in_order(group, moved)]
    return nb


def slides_of(cells: list[NotebookNode]) -> list[list[NotebookNode]]:
    """cells in the slides nbconvert makes of them: one opens at the first cell that shows and at
    each slide or subslide cell after it; hidden cells before the first join the first slide."""
    slides, before = [], []
    for cell in cells:
        if (kind(cell) in STARTS) if slides else (kind(cell) not in HIDDEN):
            slides.append([*before, cell])
            before = []
        else:
            (slides[-1] if slides else before).append(cell)
    return slides or [before]


def with_notes_in_order(slide: list[NotebookNode], moved: set) -> list[NotebookNode]:
    """One slide's cells with its notes (tools/publish/deck.py's docstring): the presenter's first,
    then the lesson prose of the cells in moved as one note, after the slide's leading cells."""
    notes = [cell for cell in slide if kind(cell) == "notes" and cell.source.strip()]
    rest = [cell for cell in slide if kind(cell) != "notes"]
    lesson = [cell for cell in notes if id(cell) in moved]
    notes = [cell for cell in notes if id(cell) not in moved]
    if lesson:
        lesson[0].source = "\n\n".join([*(["---"] if notes else []), FROM_THE_NOTEBOOK,
                                         *(cell.source.strip() for cell in lesson)])
        notes.append(lesson[0])
    first = next((i for i, cell in enumerate(rest) if kind(cell) not in HIDDEN), len(rest))
    at = next((i for i in range(first + 1, len(rest)) if kind(rest[i]) == "fragment"),
              len(rest))
    return [*rest[:at], *notes, *rest[at:]]


def first_bullet(markdown: str) -> str:
    match = re.search(r"^\s*[-*] (.+?)(?=\n\s*[-*] |\n\n|\Z)", markdown, re.M | re.S)
    return " ".join(match[1].split()) if match else ""


def closing_slide(nb: NotebookNode, next_title: str | None) -> str:
    """The last slide: headed by the point the summary's heading states ("Summary: the point"),
    then the summary's first point, and the next notebook's title."""
    summary = next((c.source for c in nb.cells if c.cell_type == "markdown"
                    and re.search(r"^#+ .*Summary", c.source, re.M)), "")
    point = re.search(r"^#+ .*?Summary[ \t]*[:—–-]?[ \t]*(.*)$", summary, re.M)
    heading = point[1].strip() if point else ""
    heading = heading[:1].upper() + heading[1:] if heading else "The takeaway"
    lines = [f"## {heading}", "", first_bullet(summary) or "See the summary in the notebook."]
    lines += ["", f"**Next:** {next_title}" if next_title else "**The end of the series.**"]
    return "\n".join(lines)


def title(nb: NotebookNode) -> str:
    """A notebook's title: its opening heading without the '#'."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells else ""
    return first.lstrip("# ").strip()


def deck_of(notebook: Path) -> NotebookNode:
    """The deck of notebooks/NN_name.ipynb, its closing slide naming the next notebook; after the
    series' last, the first opt-in lab (notebooks/labs/), marked as opt-in. A lab's deck ends
    the walk."""
    nb = read_notebook(notebook)
    later = sorted(p for p in notebook.parent.glob("[0-9][0-9]_*.ipynb") if p.name > notebook.name)
    labs = sorted((notebook.parent / "labs").glob("*.ipynb")) if notebook.parent.name != "labs" \
        else []
    next_title = (title(read_notebook(later[0])) if later else
                  f"{title(read_notebook(labs[0]))} (opt-in)" if labs else None)
    return deck_view(nb, closing_slide(nb, next_title))

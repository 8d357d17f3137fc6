"""Headline results as styled tables in the decks: the `deck-table` tag.

A code cell tagged ``deck-table`` prints (stdout) a whitespace-aligned table. In the deck only,
that printout becomes an HTML table of class ``deck-table``; the notebook (and nbval's comparison
of it) and the book keep the printout as it is. How the printout is read:

- columns are separated by two or more spaces;
- the first line that splits into two or more columns is the header (a header line that starts
  with spaces has an empty first header: the row labels' column);
- each later line with as many columns as the header is a row, its first column the row label;
- other lines (a title above, a note below) become plain paragraphs above or below the table.

The cell's metadata ``"deck": {"mark": [["<row label>", "<column header>"], ...]}`` names the
numbers that matter: those cells get class ``deck-mark`` (series-slides.css: bold, highlighted
and outlined, so they read without colour). A cell of four words or more is a sentence: it wraps,
left-aligned (class ``deck-prose``). A mark that names no cell, a printout that yields no
table, or a line inside the table with the wrong number of columns is a build error, a
NotebookError (a ValueError) naming the notebook and the cell id. Every text is escaped: nothing
from the notebook is markup.
"""

import html
import re

from nbformat import NotebookNode
from nbformat.v4 import new_output

from tools.publish.deck import NotebookError

TAG, CLASS, MARK = "deck-table", "deck-table", "deck-mark"
# a cell of this many words or more is a sentence, not a number: it wraps, left-aligned
PROSE, PROSE_WORDS = "deck-prose", 4
COLUMNS = re.compile(r"\s{2,}")


def same(text: str) -> str:
    """text with its runs of whitespace as single spaces, as marks are matched."""
    return " ".join(text.split())


def columns(line: str) -> list[str]:
    """A printed line's columns: runs of text separated by two or more spaces."""
    return [part for part in COLUMNS.split(line.strip()) if part]


def parse(text: str, where: str = "the printout") -> tuple[list[str], list[list[str]],
                                                            list[str], list[str]]:
    """(header, rows, lines above, lines below) of a printed table; ValueError without one."""
    lines = [line.rstrip() for line in text.splitlines()]
    start = next((i for i, line in enumerate(lines) if len(columns(line)) >= 2), None)
    if start is None:
        raise NotebookError(f"{where}: tagged {TAG!r}, but its printout has no table (no line with "
                         "two or more columns separated by two or more spaces): "
                         f"{text.strip()[:80]!r}")
    header = columns(lines[start])
    rows = [columns(line) for line in lines[start + 1:]]
    if lines[start][:1].isspace() and any(len(row) == len(header) + 1 for row in rows):
        header = ["", *header]  # the row labels' column has no header
    matching = [i for i, row in enumerate(rows) if len(row) == len(header)]
    if not matching:
        raise NotebookError(f"{where}: tagged {TAG!r}, but no line under the header "
                         f"{lines[start].strip()!r} has its {len(header)} columns")
    first, last = matching[0], matching[-1]
    for i in range(first, last + 1):
        if len(rows[i]) != len(header) and lines[start + 1 + i].strip():
            raise NotebookError(f"{where}: line {lines[start + 1 + i].strip()!r} sits inside the "
                             f"table but has {len(rows[i])} columns, not {len(header)} (separate "
                             "columns by two or more spaces)")
    above = [line.strip() for line in lines[:start] if line.strip()]
    body = [row for row in rows[first:last + 1] if row]
    below = [line.strip() for line in lines[start + 1 + last + 1:] if line.strip()]
    return header, body, above, below


def marks_of(cell: NotebookNode, where: str) -> list[tuple[str, str]]:
    """The cell's ``deck.mark`` pairs, checked: a list of [row label, column header]."""
    deck = cell.metadata.get("deck", {})
    if not isinstance(deck, dict):
        raise NotebookError(f"{where}: metadata deck must be a dict like {{\"mark\": [[\"<row "
                            f"label>\", \"<column header>\"]]}}; got {deck!r}")
    marks = deck.get("mark", [])
    ok = isinstance(marks, list) and all(
        isinstance(m, list) and len(m) == 2 and all(isinstance(s, str) for s in m) for m in marks)
    if not ok:
        raise NotebookError(f"{where}: metadata deck.mark must be a list of [row label, column "
                         f"header] pairs of strings; got {marks!r}")
    return [(row, col) for row, col in marks]


def table_html(text: str, marks: list[tuple[str, str]], where: str = "the printout") -> str:
    """The printout as an HTML table, the marked cells of class deck-mark; all text escaped."""
    header, rows, above, below = parse(text, where)
    labels, headers = [r[0] for r in rows], {same(h) for h in header}
    for row, col in marks:
        if same(row) not in labels or same(col) not in headers:
            raise NotebookError(f"{where}: mark [{row!r}, {col!r}] names no cell of the table "
                                f"(rows {labels}, columns {header})")
    marked = {(same(r), same(c)) for r, c in marks}
    e = html.escape

    def cell(tag: str, text: str, row: str, col: str, scope: str) -> str:
        names = [MARK] * ((row, col) in marked) + [PROSE] * (len(text.split()) >= PROSE_WORDS)
        kind = f' class="{" ".join(names)}"' if names else ""
        return f'<{tag} scope="{scope}"{kind}>{e(text)}</{tag}>' if tag == "th" else \
            f"<td{kind}>{e(text)}</td>"

    parts = [f"<p>{e(line)}</p>" for line in above]
    parts.append(f'<table class="{CLASS}"><thead><tr>'
                 + "".join(f'<th scope="col">{e(h)}</th>' for h in header) + "</tr></thead><tbody>")
    for row in rows:
        label = same(row[0])
        parts.append("<tr>" + cell("th", row[0], label, same(header[0]), "row")
                     + "".join(cell("td", value, label, same(h), "")
                               for value, h in zip(row[1:], header[1:], strict=True)) + "</tr>")
    parts.append("</tbody></table>")
    parts += [f"<p>{e(line)}</p>" for line in below]
    return "".join(parts)


def deck_tables(nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
    """Each ``deck-table`` cell's printout as a styled table (an nbconvert preprocessor)."""
    name = (resources or {}).get("metadata", {}).get("name", "the notebook")
    for cell in nb.cells:
        if cell.cell_type != "code" or TAG not in cell.metadata.get("tags", []):
            continue
        where = f"{name}, cell {cell.get('id', '?')}"
        printed = [out for out in cell.get("outputs", [])
                   if out.get("output_type") == "stream" and out.get("name") == "stdout"]
        text = "".join(out.get("text", "") for out in printed)
        table = new_output("display_data", data={"text/html": table_html(
            text, marks_of(cell, where), where)})
        outputs, placed = [], False
        for out in cell.get("outputs", []):
            if any(out is p for p in printed):
                if not placed:
                    outputs.append(table)
                    placed = True
            else:
                outputs.append(out)
        cell.outputs = outputs
    return nb, resources

"""tools/publish/deck_tables.py: a `deck-table` cell's printout becomes a styled table in the deck
only."""

import html.parser

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from tools.publish import sanitize
from tools.publish.deck_tables import deck_tables, parse, table_html

PRINTOUT = """Accuracy on held-out pairs (30 seeds)
scheme         train    test
none             52%     35%
sinusoidal      100%    100%
lowest order-aware test accuracy: 96.7%
"""


def notebook(text: str, mark=None, tags=("deck-table",)) -> nbformat.NotebookNode:
    cell = new_code_cell("print(table)", id="ab12cd34", metadata={"tags": list(tags)})
    if mark is not None:
        cell.metadata["deck"] = {"mark": mark}
    cell.outputs = [new_output("stream", name="stdout", text=text)]
    return new_notebook(cells=[cell])


class Cells(html.parser.HTMLParser):
    """The table's cells as (tag, classes, text), and every tag met."""

    def __init__(self):
        super().__init__()
        self.cells, self.tags, self.open = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in {"td", "th"}:
            self.open = [tag, dict(attrs).get("class", ""), ""]

    def handle_data(self, data):
        if self.open:
            self.open[2] += data

    def handle_endtag(self, tag):
        if tag in {"td", "th"} and self.open:
            self.cells.append(tuple(self.open))
            self.open = None


def cells_of(markup: str) -> Cells:
    parser = Cells()
    parser.feed(markup)
    return parser


def test_parse_finds_header_rows_and_the_lines_around_them():
    header, rows, above, below = parse(PRINTOUT)
    assert header == ["scheme", "train", "test"]
    assert rows == [["none", "52%", "35%"], ["sinusoidal", "100%", "100%"]]
    assert above == ["Accuracy on held-out pairs (30 seeds)"]
    assert below == ["lowest order-aware test accuracy: 96.7%"]


def test_an_indented_header_has_an_empty_corner():
    header, rows, _, _ = parse("          causal  bidirectional\nfirst      12%      6%\n")
    assert header == ["", "causal", "bidirectional"]
    assert rows == [["first", "12%", "6%"]]


def test_a_single_space_does_not_split_a_column():
    header, rows, _, _ = parse("order            Y(PX) vs PY\nman bites dog    below 1e-12\n")
    assert header == ["order", "Y(PX) vs PY"] and rows == [["man bites dog", "below 1e-12"]]


def test_the_deck_shows_a_table_with_the_marked_cell():
    nb, _ = deck_tables(notebook(PRINTOUT, [["none", "test"]]), {"metadata": {"name": "09_x"}})
    [out] = nb.cells[0].outputs
    assert out.output_type == "display_data" and list(out.data) == ["text/html"]
    parsed = cells_of(out.data["text/html"])
    assert "table" in parsed.tags and '<table class="deck-table">' in out.data["text/html"]
    marked = [(tag, text) for tag, classes, text in parsed.cells if "deck-mark" in classes]
    assert marked == [("td", "35%")]
    assert ("th", "", "sinusoidal") in parsed.cells  # row labels are row headers
    assert "<p>Accuracy on held-out pairs (30 seeds)</p>" in out.data["text/html"]


def test_a_mark_on_a_row_label_marks_the_label():
    markup = table_html(PRINTOUT, [("sinusoidal", "scheme")])
    assert [t for _, c, t in cells_of(markup).cells if "deck-mark" in c] == ["sinusoidal"]


def test_a_sentence_in_a_cell_wraps_and_a_number_does_not():
    text = ("function        definition\n"
            "centred         f(X) = X minus the mean of the rows\n"
            "scaled          0.36 (97–100%)\n")
    classes = {t: c for _, c, t in cells_of(table_html(text, [("centred", "definition")])).cells}
    assert classes["f(X) = X minus the mean of the rows"].split() == ["deck-mark", "deck-prose"]
    assert classes["0.36 (97–100%)"] == ""  # a number and its range stay on one line


def test_cells_without_the_tag_keep_their_printout():
    nb, _ = deck_tables(notebook(PRINTOUT, tags=()), {})
    assert nb.cells[0].outputs[0].output_type == "stream"


def test_other_outputs_stay_in_their_place():
    nb = notebook(PRINTOUT, [])
    nb.cells[0].outputs.append(new_output("display_data", data={"image/png": "iVBOR"}))
    nb, _ = deck_tables(nb, {})
    assert [list(o.data) for o in nb.cells[0].outputs] == [["text/html"], ["image/png"]]


@pytest.mark.parametrize("mark, names", [
    ([["nowhere", "test"]], "'nowhere'"),
    ([["none", "valid"]], "'valid'"),
])
def test_a_mark_that_names_no_cell_is_an_error_naming_the_cell(mark, names):
    with pytest.raises(ValueError, match=rf"09_x, cell ab12cd34: mark .*{names}.* names no cell"):
        deck_tables(notebook(PRINTOUT, mark), {"metadata": {"name": "09_x"}})


@pytest.mark.parametrize("mark", ["none", [["none"]], [["none", 3]], {"none": "test"}])
def test_a_malformed_mark_is_an_error(mark):
    with pytest.raises(ValueError, match="cell ab12cd34: metadata deck.mark must be a list"):
        deck_tables(notebook(PRINTOUT, mark), {})


@pytest.mark.parametrize("text", ["", "just one sentence of output\n", "a b c\nd e f\n"])
def test_a_printout_without_a_table_is_an_error(text):
    with pytest.raises(ValueError, match="cell ab12cd34: tagged 'deck-table', but"):
        deck_tables(notebook(text), {})


def test_a_header_without_rows_is_an_error():
    with pytest.raises(ValueError, match="no line under the header"):
        parse("scheme  train  test\nnothing else here\n")


def test_a_misaligned_row_inside_the_table_is_an_error():
    text = "scheme    train   test\nnone      52%     35%\nrope 100% 100%\nalibi     99%     98%\n"
    with pytest.raises(ValueError, match="'rope 100% 100%' sits inside the table"):
        parse(text)


HOSTILE = ('<img src=x onerror="alert(1)">  <script>alert(2)</script>\n'
           'a&b <b>  "quoted" \'x\'\n'
           '<img src=x onerror="alert(1)">  </td></tr></table><script>alert(3)</script>\n')


def test_hostile_text_is_escaped_never_markup():
    markup = table_html(HOSTILE, [("a&b <b>", '<script>alert(2)</script>')])
    parsed = cells_of(markup)
    assert set(parsed.tags) <= {"table", "thead", "tbody", "tr", "th", "td", "p"}
    assert "<script" not in markup and "<img" not in markup and "onerror=\"" not in markup
    texts = [text for _, _, text in parsed.cells]
    assert '<img src=x onerror="alert(1)">' in texts
    assert "</td></tr></table><script>alert(3)</script>" in texts
    assert [t for _, c, t in parsed.cells if "deck-mark" in c] == ['"quoted" \'x\'']
    assert sanitize.clean(markup) == markup  # nothing the decks' cleaner would have to take out

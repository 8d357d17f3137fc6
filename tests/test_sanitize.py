"""tools/publish/sanitize.py without a browser: what the decks and the book keep of a notebook's
HTML.

The policy keeps what markdown renders (headings and their anchors, tables, math, highlighted code,
pictures) and drops what runs (script, handlers, script URLs, script outputs, widgets whose code
would come from a CDN). tests/browser/test_hostile_notebook.py opens the built pages in Chromium.
"""

import copy
from html.parser import HTMLParser

import nbformat
import pytest
from docutils import nodes
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tools.publish import build_book, sanitize

RUNNING_TAGS = {"script", "iframe", "object", "embed", "svg", "math", "style", "form", "meta",
                "base"}


class Runs(HTMLParser):
    """The tags and attributes of some HTML that could run script (text aside: escaped script
    is text)."""

    def __init__(self, html: str):
        super().__init__()
        self.found: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag in RUNNING_TAGS:
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or "javascript:" in "".join((value or "").lower().split()):
                self.found.append(f"{tag} {name}")


@pytest.mark.parametrize("html", [
    "<script>steal()</script>",
    '<img src="x" onerror="steal()">',
    '<a href="javascript:steal()">x</a>',
    '<a href=" JaVa&#x09;ScRiPt:steal()">x</a>',
    '<svg onload="steal()"></svg>',
    '<iframe srcdoc="&lt;script&gt;steal()&lt;/script&gt;"></iframe>',
    '<details open ontoggle="steal()"><summary>s</summary></details>',
    '<style onload="steal()">p { color: red }</style>',
    '<form action="javascript:steal()"><button>go</button></form>',
    '<object data="javascript:steal()"></object>',
    '<math><mtext><table><mglyph><style><img src=x onerror="steal()">',
    '<p style="background: url(javascript:steal())">x</p>',
])
def test_clean_leaves_nothing_that_runs(html):
    cleaned = sanitize.clean(html)
    assert Runs(html).found, "a control: the checker sees the vector before cleaning"
    assert Runs(cleaned).found == [], cleaned


def test_clean_keeps_what_markdown_and_the_series_render():
    html = ('<h2 id="Self-attention">Self-attention<a class="anchor-link" href="#Self-attention">'
            '¶</a></h2><p>$a &lt; b$ and <a href="02_weighted_sum.ipynb">next</a></p>'
            '<table><thead><tr><th style="text-align: right;">n</th></tr></thead></table>'
            '<div class="highlight"><pre><span class="n">X</span></pre></div>'
            '<img src="data:image/png;base64,iVBOR" alt="a figure">'
            '<details class="presenter-notes"><summary>Presenter notes</summary>x</details>')
    assert sanitize.clean(html).replace("<tbody></tbody>", "") == html


def test_data_addresses_are_kept_only_as_pictures():
    assert sanitize.clean('<a href="data:text/html,x">x</a>') == "<a>x</a>"
    assert sanitize.clean('<img src="data:image/svg+xml,x">') == "<img>"


def widget_notebook() -> nbformat.NotebookNode:
    from ipywidgets import HTML
    from ipywidgets.embed import embed_data

    widget = HTML('<b onclick="steal()">Y</b>')
    data = embed_data(views=[widget])
    widget.close()
    state, view = data["manager_state"], data["view_specs"][0]
    state["state"]["f" * 32] = {"model_module": "a-widget-from-a-cdn", "model_name": "M",
                                "model_module_version": "1.0.0", "state": {}}
    outputs = [
        new_output("display_data", {"application/javascript": "steal()", "text/plain": "js"}),
        new_output("display_data", {"application/vnd.jupyter.widget-view+json": view,
                                    "text/plain": "HTML()"}),
        new_output("display_data", {"application/vnd.jupyter.widget-view+json":
                                    {**view, "model_id": "f" * 32}, "text/plain": "M()"}),
    ]
    nb = new_notebook(cells=[new_code_cell("w", outputs=outputs)])
    nb.metadata["widgets"] = {sanitize.WIDGET_STATE: state}
    return nb


def test_script_outputs_and_widgets_from_elsewhere_are_dropped():
    nb, _ = sanitize.safe_notebook(widget_notebook())
    js, html, foreign = (set(output.data) for output in nb.cells[0].outputs)
    assert (js, foreign) == ({"text/plain"}, {"text/plain"})
    assert html == {"text/plain", sanitize.WIDGET_VIEW}
    models = nb.metadata.widgets[sanitize.WIDGET_STATE]["state"]
    values = [m["state"]["value"] for m in models.values() if m["model_name"] == "HTMLModel"]
    assert values == ["<b>Y</b>"]
    assert "f" * 32 not in models


def test_the_series_widget_state_is_kept_whole():
    path = build_book.NOTEBOOKS / "05_dog_bites_man_explorer.ipynb"
    if not path.is_file():
        pytest.skip("no explorer notebook")
    stored = nbformat.read(path, as_version=4)
    nb, _ = sanitize.safe_notebook(copy.deepcopy(stored))
    before = stored.metadata.widgets[sanitize.WIDGET_STATE]["state"]
    after = nb.metadata.widgets[sanitize.WIDGET_STATE]["state"]
    assert after.keys() == before.keys()
    values = [m["state"]["value"] for m in after.values() if m["model_name"] == "HTMLModel"]
    tables = [value for value in values if "pp-table" in value]
    assert tables and all('style="display:flex;gap:2em;"' in value for value in tables)


def test_the_book_copy_takes_no_myst_nb_settings_from_the_notebook():
    nb = new_notebook(cells=[new_markdown_cell("# T")])
    nb.metadata.update(mystnb={"execution_mode": "force"}, myst={"html_meta": {"a": "b"}})
    nb.cells[0].metadata["mystnb"] = {"markdown_format": "myst"}
    copied = build_book.book_copy(nb, "01_t")
    assert "mystnb" not in copied.metadata and "myst" not in copied.metadata
    assert "mystnb" not in copied.cells[0].metadata


def raw(html: str) -> nodes.raw:
    return nodes.raw("", html, format="html")


def test_a_pages_raw_html_is_cleaned_with_its_siblings_as_one_piece():
    paragraph = nodes.paragraph("", "", raw('<span style="color: red" onclick="steal()">'),
                                nodes.emphasis("", "red"), raw("</span>"))
    document = nodes.section("", paragraph)
    sanitize.clean_raw_html(None, document)
    assert [child.astext() for child in paragraph.children] == [
        '<span style="color: red;">', "red", "</span>"]


def test_raw_html_that_would_move_its_siblings_is_cleaned_node_by_node():
    paragraph = nodes.paragraph("", "", raw("<table>"), nodes.Text("text"), raw("</table>"))
    sanitize.clean_raw_html(None, nodes.section("", paragraph))
    assert [child.astext() for child in paragraph.children] == ["<table></table>", "text", ""]


def test_a_widget_view_is_kept_and_a_meta_refresh_removed():
    view = ('<script type="application/vnd.jupyter.widget-view+json">{"model_id": "a"}'
            "</script>")
    section = nodes.section("", raw(view), nodes.meta(content="0; url=https://example.invalid/"))
    sanitize.clean_raw_html(None, section)
    assert [child.astext() for child in section.children] == [view]

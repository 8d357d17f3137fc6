"""The book's Sphinx extension (tools/book/conf.py names it; tools/build_book.py runs the build).

- Printed output that is a table (columns lined up with runs of spaces) is marked
  `book-printed-table`: the stylesheet wraps every other printout and all code to the column, and
  keeps a table's lines whole (book.js fits its font to the column, or lets it scroll in a labelled
  box that takes the keyboard's focus).
- Each image in an output links to its own file in _images/: a tap opens the figure full size.
- The search page shows a snippet of each match. Sphinx's search fetches each page to cut the
  snippet from, and a book opened from disk (file://) cannot fetch: _static/book-pages.js holds
  each page's text (its sections and words, no markup) and book-search.js answers those fetches
  from it, wherever the book is read.
"""

import json
import posixpath
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path

from docutils import nodes

PRINTED_TABLE = "book-printed-table"
GAP = re.compile(r"\S {2,}\S")  # two columns, apart by two spaces or more
PAGES_JS = "book-pages.js"
SEARCH_JS = "book-search.js"
NOT_SEARCHED = {"search", "genindex"}
BLOCKS = set("blockquote br dd details div dt figcaption figure h1 h2 h3 h4 h5 h6 hr img li p pre "
             "summary table td th tr".split())
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def printed_table(text: str) -> bool:
    """Lines whose columns line up: at least two lines with a gap of two spaces between words."""
    return sum(bool(GAP.search(line)) for line in text.splitlines()) >= 2


def in_output(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if "cell_output" in parent.get("classes", []):
            return True
        parent = parent.parent
    return False


def mark_printed_tables(app, doctree) -> None:
    """doctree-read: printed output whose columns line up gets the class PRINTED_TABLE."""
    for block in doctree.findall(nodes.literal_block):
        if "output" in block["classes"] and printed_table(block.astext()):
            block["classes"].append(PRINTED_TABLE)


def link_figures(app, doctree, docname: str) -> None:
    """doctree-resolved: each output image inside a link to its file in _images/."""
    from sphinx.util.osutil import relative_uri

    builder = app.builder
    if not hasattr(builder, "imagedir"):
        return
    folder = relative_uri(builder.get_target_uri(docname), builder.imagedir)
    for image in list(doctree.findall(nodes.image)):
        candidate = image.get("candidates", {}).get("*", image["uri"])
        if isinstance(image.parent, nodes.reference) or candidate not in app.env.images \
                or not in_output(image):
            continue
        link = nodes.reference("", "", internal=True, classes=["book-figure-link"],
                               refuri=posixpath.join(folder, app.env.images[candidate][1]),
                               reftitle="Open the figure full size")
        image.replace_self(link)
        link.append(image)


def search_scripts(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: the search page (only) loads the pages' text and the fetch answerer."""
    if pagename == "search":
        app.add_js_file(PAGES_JS)
        app.add_js_file(SEARCH_JS)


class PageText(HTMLParser):
    """A page's article as Sphinx's search reads a page (its text, without scripts, styles and
    heading links), kept in its sections so a match's anchor finds its own, under the
    `[role=main]` the search looks for; a space between blocks, where textContent would join their
    words. The theme's `[role=main]` also holds its menus ("Light Dark", "Contents"): left out."""

    SKIP = {"script", "style"}

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.depth = 0  # inside the article: the count of open elements
        self.skipping = 0  # inside a script, a style or a heading link: its open elements
        self.parts: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if not self.depth:
            if tag == "article" and "bd-article" in (attrs.get("class") or "").split():
                self.depth = 1
            return
        if tag in BLOCKS and not self.skipping:
            self.parts.append(" ")  # words of two blocks stay two words
        if tag in VOID:
            return
        self.depth += 1
        if self.skipping or tag in self.SKIP or "headerlink" in (attrs.get("class") or "").split():
            self.skipping += 1
        elif tag == "section":
            ident = f' id="{escape(attrs["id"])}"' if attrs.get("id") else ""
            self.parts.append(f"<section{ident}>")

    def handle_endtag(self, tag):
        if not self.depth or tag in VOID:
            return
        if tag in BLOCKS and not self.skipping:
            self.parts.append(" ")
        self.depth -= 1
        if self.skipping:
            self.skipping -= 1
        elif tag == "section":
            self.parts.append("</section>")

    def handle_data(self, data):
        if self.depth and not self.skipping:
            self.parts.append(escape(data, quote=False))

    def html(self) -> str:
        body = re.sub(r"\s+", " ", "".join(self.parts)).strip()
        body = re.sub(r"(<section[^>]*>) ", r"\1", body).replace(" </section>", "</section>")
        return f'<div role="main">{body}</div>'


def write_page_texts(app, exception) -> None:
    """build-finished: _static/book-pages.js, each page's text for the search's snippets."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    pages = {path.stem: PageText(path.read_text(encoding="utf-8")).html()
             for path in sorted(out.glob("*.html")) if path.stem not in NOT_SEARCHED}
    text = json.dumps(pages, ensure_ascii=False, separators=(",", ":"))
    (out / "_static" / PAGES_JS).write_text(f"window.BOOK_PAGES = {text};\n", encoding="utf-8")


def setup(app) -> dict:
    app.connect("doctree-read", mark_printed_tables)
    app.connect("doctree-resolved", link_figures)
    app.connect("html-page-context", search_scripts)
    app.connect("build-finished", write_page_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

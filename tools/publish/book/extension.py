"""The book's Sphinx extension (tools/publish/book/conf.py names it; tools/publish/build_book.py
runs the build).

- Printed output that is a table (columns lined up with runs of spaces) is marked
  `book-printed-table`: the stylesheet wraps every other printout and all code to the column, and
  keeps a table's lines whole (book.js fits its font to the column, or lets it scroll in a labelled
  box that takes the keyboard's focus).
- Each image in an output links to its own file in _images/: a tap opens the figure full size. On
  a phone a figure keeps its text readable (book.js: at least 12 px, from the series' style,
  figure_text_px), scrolling sideways in a labelled box where it is wider than the page.
- The search page shows a snippet of each match, in plain text (a formula's TeX as its letters
  and symbols: "Pᵀ X", not "\\(P^\\top X\\)"). Sphinx's search fetches each page to cut the
  snippet from, and a book opened from disk (file://) cannot fetch: _static/book-pages.js holds
  each page's text (its sections and words, no markup) and book-search.js answers those fetches
  from it, wherever the book is read.
- No file of the machine that builds the book is published: every picture and download a page
  refers to (`{image}`, `{figure}`, `{download}`, `![](…)`, a link to a file) must be a file
  inside the notebooks' folder (it is then copied into the build) or one the build made itself
  (an output's picture, the .ipynb download); `{include}` and `{literalinclude}` put no file on a
  page. Anything else is a refusal, one line naming the notebook and cell (or the glossary's line)
  and the reference; tools/publish/build_book.py stops the build with them (REFUSED).
- No image is fetched from the web: one whose address is remote shows as its alt text, with a
  warning that names it.
"""

import json
import posixpath
import re
import shutil
from html import escape
from html.parser import HTMLParser
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.parsers.rst.directives.images import Image

from tools.publish import sanitize

PRINTED_TABLE = "book-printed-table"
GAP = re.compile(r"\S {2,}\S")  # two columns, apart by two spaces or more
PAGES_JS = "book-pages.js"
SEARCH_JS = "book-search.js"
NOT_SEARCHED = {"search", "genindex"}
BLOCKS = set("blockquote br dd details div dt figcaption figure h1 h2 h3 h4 h5 h6 hr img li p pre "
             "summary table td th tr".split())
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
CELLS = "_book_cells.json"  # staged by build_book.py: each page's cells, as the notebook's
DOWNLOADS = "_notebooks"  # the build's own downloads (the committed notebooks)
CELL_LINES = 10_000  # myst-nb numbers cell i's lines from (i + 1) * 10000
# files a browser runs script in when opened; of these, only SVG pictures are published (inert)
RUNNABLE_SUFFIXES = {".svg", ".svgz", ".html", ".htm", ".xhtml", ".xht", ".xml", ".xsl", ".xslt",
                     ".js", ".mjs", ".shtml", ".mht", ".mhtml", ".rdf"}
REFUSED: list[str] = []  # this build's refusals, one line each (read by build_book.py)


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


def figure_text_px() -> float:
    """The smallest text of a series figure, in pixels of its stored PNG (the smallest font size
    of src/posattn/series.mplstyle at its dpi): book.js keeps it readable on a phone."""
    import matplotlib

    import posattn

    style = matplotlib.rc_params_from_file(Path(posattn.__file__).parent / "series.mplstyle",
                                           use_default_template=False)
    sizes = [style[key] for key in style if key.endswith("size") and "figsize" not in key]
    return min(float(size) for size in sizes) * float(style["savefig.dpi"]) / 72


def escaped_title(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context, after the theme's: the page's title as HTML text. sphinx-book-theme
    sets `pagetitle` to the title's plain text and writes it into its print header unescaped, so
    a heading whose code names a tag (`<img src=x onerror=…>`) put that tag on the page."""
    if isinstance(context.get("pagetitle"), str):
        context["pagetitle"] = escape(context["pagetitle"], quote=False)


def search_scripts(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: the search page (only) loads the pages' text and the fetch answerer."""
    if pagename == "search":
        app.add_js_file(PAGES_JS)
        app.add_js_file(SEARCH_JS)


# TeX as a search snippet shows it: the formula's letters and symbols, no markup
TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ",
    "omega": "ω", "Sigma": "Σ", "Pi": "Π", "Delta": "Δ", "top": "ᵀ", "intercal": "ᵀ",
    "cdot": "·", "cdots": "…", "ldots": "…", "dots": "…", "times": "×", "le": "≤", "leq": "≤",
    "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "in": "∈", "infty": "∞",
    "sum": "Σ", "prod": "Π", "sqrt": "√", "to": "→", "rightarrow": "→", "Rightarrow": "⇒",
    "mapsto": "↦", "pm": "±", "circ": "∘", "odot": "⊙", "lvert": "|", "rvert": "|", "mid": "|",
    "quad": " ", "qquad": " ", "prime": "′",
}
TEX_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
TEX_DELIMITERS = re.compile(r"\\[()\[\]]")


def plain_tex(tex: str) -> str:
    """A formula's TeX (with its \\( \\) or \\[ \\] delimiters) as plain text for a snippet.

    >>> plain_tex(r"\\(\\alpha_{ij} = \\mathrm{softmax}(P^\\top X)\\)")
    'α_ij = softmax(Pᵀ X)'
    """
    text = TEX_DELIMITERS.sub("", tex)
    spaces = {",": " ", ";": " ", ":": " ", "!": "", " ": " "}
    text = TEX_COMMAND.sub(lambda m: TEX_SYMBOLS.get(m[1], "" if m[1].isalpha() else
                                                     spaces.get(m[1], m[1])), text)
    return " ".join(re.sub(r"[{}]", "", text).replace("^ᵀ", "ᵀ").split())


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
        self.math = 0  # inside a formula (its TeX, shown as plain text): its open elements
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
        if self.math or "math" in (attrs.get("class") or "").split():
            self.math += 1

    def handle_endtag(self, tag):
        if not self.depth or tag in VOID:
            return
        if tag in BLOCKS and not self.skipping:
            self.parts.append(" ")
        self.depth -= 1
        self.math = max(0, self.math - 1)
        if self.skipping:
            self.skipping -= 1
        elif tag == "section":
            self.parts.append("</section>")

    def handle_data(self, data):
        if self.depth and not self.skipping:
            self.parts.append(escape(plain_tex(data) if self.math else data, quote=False))

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


def where(app, docname: str, line: int | None) -> str:
    """A place in the book's sources as its author knows it: the notebook and cell, the glossary's
    line, the landing page."""
    cells_file = Path(app.srcdir) / CELLS
    cells = json.loads(cells_file.read_text(encoding="utf-8")) if cells_file.is_file() else {}
    if docname in cells:
        staged = (line or 0) // CELL_LINES - 1
        origin = cells[docname][staged] if 0 <= staged < len(cells[docname]) else None
        if origin is None:
            return f"{docname}.ipynb"
        index, ident = origin
        return f"{docname}.ipynb, cell {index + 1}" + (f" (id {ident})" if ident else "")
    if docname == "index":
        return "the landing page (README.md's section \"The notebooks\")"
    return f"{docname}.md" + (f", line {line}" if line else "")


def refuse(app, docname: str, line: int | None, message: str) -> None:
    REFUSED.append(f"{where(app, docname, line)}: {message}")


def node_line(node) -> int | None:
    while node is not None:
        if node.line:
            return node.line
        node = node.parent
    return None


def own_file(app, docname: str, target: str, what: str, line: int | None) -> bool:
    """True when the file a page refers to may be published: made by the build (an output's
    picture, a download of the committed notebook) or a file inside the notebooks' folder, which
    is then copied beside the page. Otherwise a refusal, and False."""
    src = Path(app.srcdir).resolve()
    made = Path(app.env.mystnb_config.output_folder).resolve()
    _, full = app.env.relfn2path(target.split("?")[0].split("#")[0], docname)
    full = Path(full)
    if full.is_relative_to(made) or (full.is_relative_to(src / DOWNLOADS) and full.is_file()):
        return True
    notebooks = Path(app.config.book_notebooks).resolve()
    folder = f"{notebooks.name}/"
    original = (notebooks / full.relative_to(src)).resolve() if full.is_relative_to(src) else None
    if original is None or not original.is_relative_to(notebooks):
        refuse(app, docname, line, f"{what} {target!r} must name a file inside {folder} (the "
               "series' own files); got a file outside it. Put the file in "
               f"{folder} and give its path from the page, or remove the reference.")
        return False
    if not original.is_file():
        refuse(app, docname, line, f"{what} {target!r} must name a file inside {folder}; got "
               f"no such file. Put the file in {folder}, or remove the reference.")
        return False
    if original.suffix.lower() in RUNNABLE_SUFFIXES and not (
            what == "the image" and original.suffix.lower() == ".svg"):
        refuse(app, docname, line, f"{what} {target!r} must be a file a browser does not run (a "
               "picture, data, text, a notebook); got a file it runs script in. Offer it as text "
               "or zipped, or remove the reference.")
        return False
    if full.exists() and full.read_bytes() != original.read_bytes():
        refuse(app, docname, line, f"{what} {target!r} must name a file of {folder}, not one "
               "the book is built from; got the book's own file. Rename the file, or remove "
               "the reference.")
        return False
    full.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(original, full)
    return True


def check_files(app, doctree) -> None:
    """doctree-read, before Sphinx collects the files to publish: each picture and download is a
    file of the series (own_file) or is refused and dropped; a picture from the web is its alt
    text (nothing is fetched)."""
    from sphinx import addnodes
    from sphinx.util import logging

    docname = app.env.docname
    for image in list(doctree.findall(nodes.image)):
        uri, line = image["uri"], image.attributes.pop("book-line", None) or node_line(image)
        if uri.startswith("data:"):
            continue
        if sanitize.remote(uri):
            logging.getLogger(__name__).warning(
                f"{where(app, docname, line)}: the image {uri[:80]!r} is on the web: not "
                "fetched, its alt text shows instead")
            image.replace_self(nodes.inline("", sanitize.remote_image_text(
                image.get("alt", "").strip()), classes=["book-remote-image"]))
        elif not own_file(app, docname, uri, "the image", line):
            image.parent.remove(image)
    for download in list(doctree.findall(addnodes.download_reference)):
        target = download.get("reftarget", "")
        if "://" in target:  # a link to the web: nothing is copied
            continue
        if not own_file(app, docname, target, "the download", node_line(download)):
            download.replace_self(nodes.inline("", download.astext()))


class AnyOption(dict):
    """An option_spec that takes every option (a refused directive is refused, whatever its
    options)."""

    def __missing__(self, name):
        return str


class LinedImage(Image):
    """`image`, with the line it was written on kept for check_files: MyST-Parser 4 (the lowest
    version the book allows) sets that line to 0 after the directive has run, and a refusal
    then named the cell above the one to fix."""

    def run(self) -> list:
        result = super().run()
        for node in result:
            for image in node.findall(nodes.image):
                image["book-line"] = self.lineno
        return result


class NoFileInsertion(Directive):
    """`include` and `literalinclude`: refused (they would put a file's text on a page)."""

    required_arguments, optional_arguments, final_argument_whitespace = 0, 1, True
    has_content = True
    option_spec = AnyOption()

    def run(self) -> list:
        app = self.state.document.settings.env.app
        argument = self.arguments[0] if self.arguments else ""
        refuse(app, app.env.docname, self.lineno,
               f"{{{self.name}}} {argument!r} must not be used: the book puts no file's text on a "
               f"page; got {self.name} of that file. Paste the text into the cell instead.")
        return []


def setup(app) -> dict:
    app.add_config_value("book_notebooks", "", "env")
    app.add_directive("image", LinedImage, override=True)
    for name in ("include", "literalinclude"):
        app.add_directive(name, NoFileInsertion, override=True)
    app.connect("doctree-read", check_files, priority=200)  # after cleaning, before collecting
    app.connect("doctree-read", mark_printed_tables)
    app.connect("doctree-resolved", link_figures)
    app.connect("html-page-context", search_scripts)
    app.connect("html-page-context", escaped_title, priority=900)  # after the theme's (500)
    app.add_js_file(None, body=f"window.BOOK_FIGURE_TEXT_PX = {figure_text_px():.2f};")
    app.connect("build-finished", write_page_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

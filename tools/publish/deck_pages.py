"""The pages around the decks in build/slides/: links between decks, an index, the glossary.

A notebook links the others as `NN_name.ipynb` and the glossary as `glossary.md`, files a deck's
folder does not hold (a projector's browser says "Your file couldn't be accessed"). In a deck
those links go to the decks (`NN_name.slides.html`) and to `glossary.html`, which is the
notebooks' glossary as a page of its own; `index.html` lists the decks. An opt-in lab
(notebooks/labs/NAME.ipynb, which links the series as `../NN_name.ipynb`) has its deck in the same
folder, `NAME.slides.html`, its links going to the decks beside it; the index lists it apart, with
what it needs (`make torch`). Each page loads only files of the folder (MathJax 2 from vendor/,
for the glossary's symbols), so the folder still opens from a USB stick with no network.
"""

import re
from html import escape
from pathlib import Path

from nbconvert.filters.markdown import markdown2html
from nbformat import NotebookNode

from tools.publish import sanitize

GLOSSARY = "glossary.md"
# a markdown link to a notebook (anchors go: reveal.js reads the address's # as a slide) or to
# the glossary, in the notebooks' folder
# (from a lab, one folder up: `../`), or to a lab (from the series: `labs/`)
NOTEBOOK_LINK = re.compile(r"\]\((?:\.\./)?(\d\d_[A-Za-z0-9_]+)\.ipynb(?:#[^)\s]*)?\)")
LAB_LINK = re.compile(r"\]\(labs/([A-Za-z][A-Za-z0-9_]*)\.ipynb(?:#[^)\s]*)?\)")
GLOSSARY_LINK = re.compile(r"\]\((?:\.\./)?glossary\.md(#[^)\s]*)?\)")
LAB = "labs"  # the opt-in labs' folder, inside the notebooks' folder
# what a lab needs, by its file name (the index says it beside the lab's deck)
NEEDS = {"torch_bridge": "PyTorch: <code>make torch</code> sets it up"}
MATHJAX = "vendor/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
STYLE = """body { font: 22px/1.45 system-ui, sans-serif; color: #111; max-width: 46em;
  margin: 2em auto; padding: 0 1em; }
a { color: #0645ad; text-decoration: underline; } li { margin: 0.4em 0; }"""


def deck_link(markdown: str) -> str:
    """Markdown whose links to notebooks go to their decks, and to the glossary to its page."""
    markdown = NOTEBOOK_LINK.sub(r"](\1.slides.html)", markdown)
    markdown = LAB_LINK.sub(r"](\1.slides.html)", markdown)
    return GLOSSARY_LINK.sub(r"](glossary.html\1)", markdown)


def deck_links(nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
    """An nbconvert preprocessor: every markdown cell's links as deck_link makes them."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = deck_link(cell.source)
    return nb, resources


def page(title: str, body: str, head: str = "") -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n{head}</head>\n"
            f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n")


def is_lab(deck: str) -> bool:
    """A lab's deck: its name does not start with a notebook's number (NN_)."""
    return not re.match(r"\d\d_", deck)


def index_page(decks: list[tuple[str, str]], glossary: bool) -> str:
    """The list of decks, [(file name, title)], the opt-in labs' apart (with what each needs),
    and the glossary when there is one."""
    items = "".join(f'<li><a href="{escape(name)}">{escape(title)}</a></li>\n'
                    for name, title in decks if not is_lab(name))
    labs = "".join(
        f'<li><a href="{escape(name)}">{escape(title)}</a> (opt-in; it needs '
        f'{NEEDS.get(name.removesuffix(".slides.html"), "its own set-up: see its first slide")})'
        "</li>\n" for name, title in decks if is_lab(name))
    labs = (f"<h2>Opt-in labs</h2>\n<p>Beyond the series' own set-up: each runs in an "
            f"environment of its own.</p>\n<ul>\n{labs}</ul>\n" if labs else "")
    more = ('<p>The <a href="glossary.html">glossary</a> defines every term the series '
            "uses.</p>\n" if glossary else "")
    how = ("<p>Keys in a deck: arrows move, S opens the presenter notes, Esc the overview, "
           "F full screen.</p>\n")
    return page("The Position Problem: the decks",
                f"<h1>The Position Problem: the decks</h1>\n<ol>\n{items}</ol>\n{labs}{more}{how}")


def glossary_page(markdown: str) -> str:
    """The notebooks' glossary as a page beside the decks, cleaned as a deck is (sanitize.clean):
    its links to notebooks going to their decks, its symbols typeset by the decks' MathJax."""
    body = sanitize.clean(markdown2html(deck_link(markdown)))
    back = '<p><a href="index.html">← All decks</a></p>\n'
    head = ('<script>window.MathJax = {tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], '
            'processEscapes: true}, messageStyle: "none"};</script>\n'
            f'<script src="{MATHJAX}"></script>\n')
    return page("The Position Problem: glossary", back + body, head)


def write_pages(out: Path, notebooks: Path, titles: dict[str, str]) -> list[Path]:
    """out/index.html over the decks in out ({stem: title} for those built now, the rest by their
    file name), and out/glossary.html when notebooks/ holds the glossary; the pages written."""
    built = sorted(path.name.removesuffix(".slides.html") for path in out.glob("*.slides.html"))
    decks = [(f"{stem}.slides.html", titles.get(stem) or stem.replace("_", " ")) for stem in built]
    glossary = (notebooks / GLOSSARY).is_file()
    written = [out / "index.html"]
    written[0].write_text(index_page(decks, glossary), encoding="utf-8")
    if glossary:
        written.append(out / "glossary.html")
        text = (notebooks / GLOSSARY).read_text(encoding="utf-8")
        written[1].write_text(glossary_page(text), encoding="utf-8")
    return written

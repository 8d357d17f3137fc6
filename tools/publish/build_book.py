"""Build the series as a static book: `make book` -> build/book/index.html.

The pages are the committed notebooks with their stored outputs (nothing is executed), made into
HTML by Sphinx with myst-nb and sphinx-book-theme (book/ holds the configuration, CSS and
JS; book/extension.py the Sphinx extension). The landing page is made from the README's
table of notebooks; notebooks/glossary.md, when present, is the glossary page. An opt-in lab
(notebooks/labs/NAME.ipynb) is a page too, NAME.html, after the series and listed apart in the
contents ("Opt-in lab", with what it needs: LAB_NEEDS); its links to the series (`../NN_name.ipynb`)
go to their pages. Its stored outputs are the page: no PyTorch is needed to build it. The one script
package a page loads, MathJax 2, is from the decks' npm packages (slide_assets/): the first
build installs them with `npm ci` like `make slides` does, later builds need no network.
Every link is relative, so the folder works from file://, from `python -m http.server` and from
any sub-path.

What the book's copy of a notebook adds to the committed one (the committed files are not
touched): presenter notes folded into a "Presenter notes" box; sections numbered under their
notebook ("9.4 · …", keeping a notebook's own "4 · …"); each figure numbered ("Figure 9.3") with
its "*Figure:*" description as its caption and its image's alt text; a line that offers the .ipynb
and says how to run it; the explorer as a still picture of its saved shuffle with a line on how to
make it live (as in the decks: build_slides.still_pictures; no dead controls, no widget renderer);
under each exercise, what its checker will say when the student runs it, instead of its verdict on
the empty template. What it leaves out: anything that would run (sanitize.py, which also
cleans every page's HTML as Sphinx reads it), the myst-nb settings a notebook's metadata can carry
(one is "execute me") and the theme's 1.5 MB icon script (its stylesheet draws the icons).

What it refuses, each a one-line error naming the notebook and cell (or the glossary's line): a
malformed notebook (deck.py's read_notebook: a picture that is not base64, metadata of the
wrong shape, no cells); a reference to a file outside the notebooks' folder, or a file inclusion
(tools/publish/book/extension.py). An image on the web is never fetched: its alt text shows, with a
warning. No file it publishes runs script when opened: every file a browser could run that a
notebook put there (an SVG figure in _images/, a download) is made inert or refused (`inert`).

    python -m tools.publish.build_book [OUT]     # default: build/book
"""

import base64
import io
import json
import mimetypes
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from html import escape
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from tools.publish import build_slides, sanitize
from tools.publish.book import extension
from tools.publish.deck import FIGURE, NotebookError, alt_text, plain, read_notebook, tags
from tools.publish.deck import kind as slide_type

ROOT = Path(__file__).resolve().parents[2]
CONF = Path(__file__).resolve().parent / "book"
NOTEBOOKS, README, BOOK = ROOT / "notebooks", ROOT / "README.md", ROOT / "build" / "book"
GLOSSARY = "glossary.md"
ASSETS = ("mathjax",)  # of build_slides.KEEP: no page runs a widget, so no widget renderer
# the notebook metadata the book reads; myst-nb takes its settings from the rest (even "execute")
METADATA = ("kernelspec", "language_info")  # no page runs a widget: no widget state
NOTE_LABEL = re.compile(r"^(\*\*)?Presenter notes\.?(\*\*)?\s*", re.IGNORECASE)
# what an exercise's saved output says in the book (the notebook keeps the checker's verdict on the
# empty template, which would tell every reader "Not yet")
EXERCISE_OUTPUT = ("Run this cell in JupyterLab (`make lab`) once you have written your answer: "
                   "the checker then says **Right**, or **Not yet** with a hint.")
HEADING = re.compile(r"^## (?:(\d+) · )?(.*)$")  # a section; the notebook may number it
UNNUMBERED = re.compile(r"(Summary|Exercises)\b", re.IGNORECASE)  # the closing sections
FENCE = re.compile(r"^\s*(```|~~~)")
# a file a browser runs script in when it is opened (its type as a server would send it)
RUNNABLE = re.compile(r"(html|xml|svg|javascript|ecmascript|xsl)", re.IGNORECASE)
RUNNABLE_SUFFIXES = extension.RUNNABLE_SUFFIXES
# what the build writes itself (the pages, the theme's and the book's scripts and styles)
OWN = {"_static", "searchindex.js", "objects.inv", ".buildinfo"}
SVG_ROOT = re.compile(r"<svg\b[^>]*>", re.IGNORECASE)
SVG_SIZE = re.compile(r"""\s(width|height|viewBox)\s*=\s*["']([0-9.\s,a-z%-]{1,60})["']""",
                      re.IGNORECASE)
RUN_IT = ("To run it: get the series, run `make lab` in its folder (Python 3.11 or newer, see "
          "the README's quick start) and open the notebook in JupyterLab.")
LAB = "labs"  # the opt-in labs' folder, inside the notebooks' folder
# how to run a lab, by its name: the command that sets up what it needs
LAB_NEEDS = {"torch_bridge": "make torch"}
RUN_LAB = ("To run it: get the series and run `{command}` in its folder: it sets up what this "
           "opt-in lab needs beside the series' own packages (the README says what) and opens "
           "JupyterLab, where the notebook is labs/{name}.ipynb.")
UP_LINK = re.compile(r"\]\(\.\./([^)\s/]+\.(?:ipynb|md)(?:#[^)\s]*)?)\)")  # a lab's link up
DOWN_LINK = re.compile(rf"\]\({LAB}/([^)\s/]+\.ipynb(?:#[^)\s]*)?)\)")  # a page's link to a lab


@dataclass
class Book:
    index: Path  # the landing page
    pages: int  # HTML pages written (the landing page, notebooks, glossary, search, index)
    megabytes: float
    seconds: float  # on the clock
    cpu_seconds: float  # the build's own work (the same on a busy machine)
    warnings: list[str]


def markdown(source: str, slide: str = "-") -> NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata["slideshow"] = {"slide_type": slide}
    return cell


def presenter_notes(source: str) -> str:
    """A notes cell as a folded box: the quote marks and the label go, the text stays, a tag in it
    as written (a cue's `<s>` is the token: sanitize.literal_tags)."""
    body = "\n".join(re.sub(r"^\s*>\s?", "", line)
                     for line in sanitize.literal_tags(source).strip().splitlines())
    body = NOTE_LABEL.sub("", body.strip(), count=1)
    return (f'<details class="presenter-notes">\n<summary>Presenter notes</summary>\n\n{body}\n\n'
            "</details>")


def has_output(cell: NotebookNode, mime: str) -> bool:
    return any(mime in out.get("data", {}) for out in cell.get("outputs", []))


def numbered_sections(nb: NotebookNode, chapter: int) -> None:
    """Section headings (##) numbered "9.4 · …" within notebook 09: a notebook that numbers its
    sections ("## 4 · …", which its text cites as "section 4") keeps its numbers, under the
    notebook's; one that does not is numbered in order. Summary and Exercises stay unnumbered."""
    cells = [cell for cell in nb.cells
             if cell.cell_type == "markdown" and slide_type(cell) != "notes"]
    headings = [match for cell in cells for match in map(HEADING.match, cell.source.splitlines())
                if match]
    own = any(match[1] for match in headings)
    count = 0
    for cell in cells:
        lines, fenced = cell.source.splitlines(), False
        for i, line in enumerate(lines):
            fenced ^= bool(FENCE.match(line))
            match = None if fenced else HEADING.match(line)
            if not match or (own and not match[1]) or UNNUMBERED.match(match[2]):
                continue
            count += 1
            lines[i] = f"## {chapter}.{match[1] if own else count} · {match[2]}"
        cell.source = "\n".join(lines)


def caption(description: str, number: str) -> str:
    """A "*Figure:* …" cell as the caption of figure `number`: "*Figure 9.3:* …"."""
    label = re.match(r"\A\s*\*Figure([^:]*):(\*?)\s*", description)
    rest = description[label.end():].strip()
    name = f"Figure {number}{label[1]}"
    return f"*{name}:* {rest}" if label[2] else f"*{name}: {rest}"  # the italics as they were


def run_it(name: str, lab: bool) -> str:
    """The line under a page's title: its notebook to download, and how to run it."""
    how = RUN_LAB.format(command=LAB_NEEDS.get(name, "make lab"), name=name) if lab else RUN_IT
    return (f"{{download}}`Download this notebook <_notebooks/{name}.ipynb>` "
            f"({name}.ipynb, with its outputs). {how}")


def exercise_output(name: str, lab: bool = False) -> str:
    """What an exercise's output says in the book: EXERCISE_OUTPUT, with a lab's own command."""
    return EXERCISE_OUTPUT.replace("`make lab`", f"`{LAB_NEEDS.get(name, 'make lab')}`") \
        if lab else EXERCISE_OUTPUT


def book_copy(nb: NotebookNode, name: str, lab: bool = False) -> NotebookNode:
    """The book's copy of a notebook (see the module docstring); outputs are kept as stored, but
    for those that would run script (sanitize.py; the pages' HTML is cleaned as read), the
    exercises' verdicts on their empty templates and widget views (no page runs a widget). A lab
    (lab=True) sits beside the series' pages: its links one folder up lead to them, and a page's
    links down into labs/ lead to the lab's page."""
    nb, _ = sanitize.safe_notebook(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = (UP_LINK if lab else DOWN_LINK).sub(r"](\1)", cell.source)
    nb.metadata = NotebookNode({key: nb.metadata[key] for key in METADATA if key in nb.metadata})
    chapter = int(name[:2]) if name[:2].isdigit() else None
    if chapter is not None:
        numbered_sections(nb, chapter)
    cells, dropped, figures = nb.cells, set(), 0
    for i, cell in enumerate(cells):
        cell.metadata.pop("mystnb", None)  # myst-nb's settings, from the builder only
        following = next((c for c in cells[i + 1:] if c.cell_type == "markdown"), None)
        described = following is not None and FIGURE.match(following.source)
        if cell.cell_type == "markdown" and slide_type(cell) == "notes":
            cell.source = presenter_notes(cell.source)
        elif "exercise" in tags(cell) and cell.get("outputs"):
            said = exercise_output(name, lab)
            cell.outputs = [nbformat.v4.new_output("display_data", {
                "text/markdown": said, "text/plain": plain(said)})]
        elif has_output(cell, "image/png") and described:
            settings = cell.metadata.setdefault("mystnb", {})
            settings["image"] = {"alt": alt_text(following.source)}
            if chapter is not None and cells[i + 1] is following:  # its caption, numbered
                figures += 1
                number = f"{chapter}.{figures}"
                settings["figure"] = {"caption": caption(following.source, number),
                                      "name": f"figure-{number.replace('.', '-')}"}
                dropped.add(id(following))
    cells = [cell for cell in cells if id(cell) not in dropped]
    download = run_it(name, lab)
    nb.cells = [cells[0], markdown(f"```{{container}} book-run-it\n{download}\n```"), *cells[1:]]
    nb = build_slides.still_pictures(nb, {})[0]  # after the alt texts: the line is no figure's
    for cell in nb.cells:  # a widget nothing draws: its text, as JupyterLab shows it untrusted
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(sanitize.WIDGET_VIEW, None)
    return nb


def landing_page(readme: str, glossary: bool, pages: list[str], labs: list[str] = ()) -> str:
    """The README's title, opening paragraph and section "The notebooks", with page links; the
    contents list the series' pages, then the labs' under their own caption, then the glossary."""
    title = re.search(r"^# .+$", readme, re.MULTILINE)
    found = re.search(r"^## The notebooks\n(.*?)(?=^## )", readme, re.MULTILINE | re.DOTALL)
    if not (title and found):
        raise SystemExit("README.md needs a '# ' title and a '## The notebooks' section (with the "
                         "table of notebooks) followed by another '## ' section: the landing page.")
    title = title[0]
    opening = readme[readme.index(title) + len(title):].strip().split("\n\n")[0]
    name, _, claim = title[2:].partition(" — ")  # a short title; the claim under it
    title = f"# {name}\n\n**{claim[:1].upper()}{claim[1:]}.**" if claim else title
    section = found[1]
    section = re.sub(rf"\]\(notebooks/(?:{LAB}/)?([^)]+)\)", r"](\1)", section)  # its page
    kept = "|".join([r"[0-9][0-9]_", *(re.escape(f"{lab}.ipynb") for lab in labs)])
    section = re.sub(rf"\[([^\]]+)\]\((?!{kept})[^)]*\)", r"\1", section)  # others: text
    glossary_line = "The [glossary](glossary.md) defines every term the series uses.\n\n"
    needs = ", ".join(sorted({LAB_NEEDS.get(lab, "its own set-up") for lab in labs}))
    tocs = [toctree(pages), toctree(labs, f"Opt-in lab (needs {needs})" if labs else ""),
            toctree(["glossary"] if glossary else [], "Reference")]
    return (f"{title}\n\n{opening}\n\n## The notebooks\n{section.rstrip()}\n\n"
            f"{glossary_line if glossary else ''}"
            "This book shows each notebook with the outputs it was saved with. Every page offers "
            "its notebook for download; to run them, get the series and type `make lab` "
            "(Python 3.11 or newer).\n\n" + "\n".join(toc for toc in tocs if toc))


def toctree(pages: list[str], caption: str = "") -> str:
    """A hidden toctree of pages (the sidebar's contents, in that order), under caption if any;
    "" for no pages."""
    heading = f":caption: {caption}\n" if caption else ""
    return (f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n{heading}\n" + "\n".join(pages) + "\n```\n"
            if pages else "")


def copy_assets(static: Path) -> None:
    """The scripts the pages load (MathJax), from the decks' npm folder, into static/vendor/."""
    with build_slides.one_builder_at_a_time():  # no install replaces the folder mid-copy
        modules = build_slides.install()
        for package in ASSETS:
            for pattern in build_slides.KEEP[package]:
                for source in (modules / package).glob(pattern):
                    if source.is_file():
                        target = static / "vendor" / package / source.relative_to(modules / package)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy(source, target)


def theme_macros(templates: Path) -> None:
    """The theme's asset macros without its icon-font script (1.5 MB on every page, to draw the
    dozen icons its stylesheet already draws from the icon font)."""
    import pydata_sphinx_theme

    name = Path("static") / "webpack-macros.html"
    source = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / name
    text = source.read_text(encoding="utf-8")
    kept = re.sub(r"[ \t]*<script[^>]*scripts/fontawesome\.js[^>]*></script>\n", "", text)
    if kept == text:
        raise SystemExit(f"{source} no longer loads fontawesome.js as the book expects: look "
                         "again at what tools/publish/build_book.py theme_macros() leaves out.")
    (templates / name).parent.mkdir(parents=True, exist_ok=True)
    (templates / name).write_text(kept, encoding="utf-8")


def staged_cells(before: list, after: list) -> list:
    """Each cell of the book's copy as [its index in the notebook, its id], or None for one the
    book adds (how a build error names the cell)."""
    index = {id(cell): i for i, cell in enumerate(before)}
    return [[index[id(cell)], before[index[id(cell)]].get("id")] if id(cell) in index else None
            for cell in after]


def glossary_text(path: Path) -> str:
    """The glossary as plain markdown (a front matter that makes it a MyST notebook would let it
    load files into code cells: refused)."""
    from myst_nb.core.read import is_myst_markdown_notebook

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"{path.name} must be UTF-8 text; got a byte it cannot read at "
                            f"{error.start}. Save it as UTF-8.") from None
    if is_myst_markdown_notebook(text):
        raise NotebookError(f"{path.name} must be plain markdown; got a front matter that makes "
                            "it a notebook (file_format or jupytext). Remove the front matter.")
    return text


def stage(src: Path, notebooks: Path) -> None:
    """Sphinx's source folder: the configuration, the book's notebooks, the landing page. Each
    notebook is read and checked first (a NotebookError, one line, for a malformed one)."""
    names = sorted(path.stem for path in notebooks.glob("[0-9][0-9]_*.ipynb"))
    labs = sorted(path.stem for path in (notebooks / LAB).glob("*.ipynb"))
    paths = {**{name: notebooks / f"{name}.ipynb" for name in names},
             **{lab: notebooks / LAB / f"{lab}.ipynb" for lab in labs}}
    read = {name: read_notebook(path) for name, path in paths.items()}
    glossary = (notebooks / GLOSSARY).is_file()
    text = glossary_text(notebooks / GLOSSARY) if glossary else ""
    shutil.copytree(CONF, src, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    copy_assets(src / "_static")
    theme_macros(src / "_templates")
    (src / extension.DOWNLOADS).mkdir()
    cells = {}
    for name, nb in read.items():
        shutil.copy(paths[name], src / extension.DOWNLOADS)  # as committed
        before = list(nb.cells)
        copy = book_copy(nb, name, lab=name in labs)
        cells[name] = staged_cells(before, copy.cells)
        nbformat.write(copy, src / f"{name}.ipynb")
    (src / extension.CELLS).write_text(json.dumps(cells), encoding="utf-8")
    if glossary:
        (src / GLOSSARY).write_text(text, encoding="utf-8")
    page = landing_page(README.read_text(encoding="utf-8"), glossary, names, labs)
    (src / "index.md").write_text(page, encoding="utf-8")


def replaceable(out: Path) -> None:
    """Refuse a folder that is not empty and holds no earlier book."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())) \
            and not (out / ".buildinfo").is_file():
        raise SystemExit(f"{out} is not empty and holds no earlier book; pick another folder.")


def clear(out: Path) -> None:
    """Remove an earlier book (or an empty folder) at out, refusing a folder that is neither."""
    replaceable(out)
    if out.exists():
        shutil.rmtree(out)


def runnable(path: Path) -> bool:
    """A file a browser runs script in when it opens it (by its name, as a server types it)."""
    kind = mimetypes.guess_type(path.name)[0] or ""
    return path.suffix.lower() in RUNNABLE_SUFFIXES or bool(RUNNABLE.search(kind))


def inert_svg(data: bytes) -> bytes:
    """An SVG as a picture of itself: a new SVG whose only content is the original as a data:
    image, which a browser draws as an image (no script, nothing fetched), also when the file is
    opened on its own. The original's width, height and viewBox are kept."""
    root = SVG_ROOT.search(data[:4096].decode("utf-8", "replace"))
    found = SVG_SIZE.findall(root[0] if root else "")
    sizes = {name.lower(): value.strip() for name, value in found}
    box = sizes.get("viewbox", "").replace(",", " ").split()
    numbers = re.fullmatch(r"(-?[0-9.]+ ){3}-?[0-9.]+", " ".join(box)) and len(box) == 4
    outer = "".join(f' {name}="{escape(sizes[name])}"' for name in ("width", "height")
                    if name in sizes)
    if numbers:
        outer += f' viewBox="{" ".join(box)}"'
        place = f'x="{box[0]}" y="{box[1]}" width="{box[2]}" height="{box[3]}"'
    else:
        place = 'width="100%" height="100%"'
    picture = base64.b64encode(data).decode("ascii")
    return (f'<svg xmlns="http://www.w3.org/2000/svg"{outer}><image {place} '
            f'href="data:image/svg+xml;base64,{picture}"/></svg>\n').encode()


def inert(html: Path, pages: set[str]) -> list[str]:
    """Every file a notebook put in the book that a browser could run (runnable) made inert: an
    SVG as a picture of itself (inert_svg); anything else refused (NotebookError). The build's own
    files (the pages, _static/) are left as written. Returns the SVGs made inert."""
    made = []
    for path in sorted(html.rglob("*")):
        part = path.relative_to(html)
        if not path.is_file() or part.parts[0] in OWN or (len(part.parts) == 1 and path.suffix
                                                           == ".html" and path.stem in pages):
            continue
        if not runnable(path):
            continue
        if path.suffix.lower() == ".svg":
            path.write_bytes(inert_svg(path.read_bytes()))
            made.append(part.as_posix())
        else:
            raise NotebookError(f"the book's file {part.as_posix()} must be one a browser does not "
                                "run (a picture, a notebook, text); got a file it runs script in. "
                                "Remove what refers to it from the notebook.")
    return made


def sphinx(src: Path, html: Path, doctrees: Path, notebooks: Path) -> list[str]:
    """Sphinx's HTML build of src into html: its warnings. A refusal (book/extension.py) or
    a page Sphinx cannot build is a NotebookError, one line each; no traceback or log is left."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    warnings, app = io.StringIO(), None
    extension.REFUSED.clear()
    try:
        with patch_docutils(src), docutils_namespace():
            app = Sphinx(str(src), str(src), str(html), str(doctrees), "html", status=None,
                         warning=warnings, freshenv=True,
                         confoverrides={"book_notebooks": str(notebooks.resolve())})
            app.build(force_all=True)
    except Exception as error:  # a page it cannot build: said in one line, with the page
        page = getattr(getattr(app, "env", None), "docname", None) if app else None
        why = " ".join(str(error).split())[:160]
        raise NotebookError(f"{page or 'the book'}: Sphinx cannot build it; got "
                            f"{type(error).__name__}: {why}. Open the notebook in JupyterLab, "
                            "save it again, and build again.") from None
    finally:
        refused = list(extension.REFUSED)
        extension.REFUSED.clear()
    if refused:
        raise NotebookError("\n".join(refused))
    said = re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue()).replace(str(src) + "/", "")
    if app.statuscode:
        raise SystemExit(f"Sphinx failed: {said.strip()}")
    return [line for line in said.splitlines() if line.strip()]


def build(out: Path = BOOK, notebooks: Path = NOTEBOOKS) -> Book:
    """Write the book into out (replacing an earlier book there) and say what was written. The
    book is built in a temporary folder and takes out's place only once it is whole: a failed
    build leaves the earlier book as it was."""
    start, cpu = time.perf_counter(), time.process_time()
    replaceable(out)
    with tempfile.TemporaryDirectory(prefix="book-") as tmp:
        src, html = Path(tmp) / "src", Path(tmp) / "html"
        stage(src, notebooks)
        warnings = sphinx(src, html, Path(tmp) / "doctrees", notebooks)
        pages = {path.stem for path in src.glob("*.ipynb")} | {"index", "search", "genindex"}
        inert(html, pages | ({Path(GLOSSARY).stem} if (src / GLOSSARY).is_file() else set()))
        for unused in (html / "_static" / "scripts").glob("fontawesome.js*"):  # no page loads it
            unused.unlink()
        clear(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(html), str(out))
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    return Book(out / "index.html", len(list(out.glob("*.html"))), size / 1e6,
                time.perf_counter() - start, time.process_time() - cpu, warnings)


def main(argv: list[str]) -> None:
    main_for(Path(argv[0]).resolve() if argv else BOOK)


def main_for(out: Path, notebooks: Path = NOTEBOOKS) -> None:
    """`make book`: the book of notebooks into out, and what was written; a build error is one
    line a problem (SystemExit), never a traceback."""
    try:
        book = build(out, notebooks)
    except (build_slides.AssetsUnavailable, NotebookError) as error:
        sys.exit(str(error))
    shown = book.index.relative_to(ROOT) if book.index.is_relative_to(ROOT) else book.index
    print("".join(f"  warning: {line}\n" for line in book.warnings), end="")
    print(f"The book: {shown} ({book.pages} pages, {book.megabytes:.1f} MB, built in "
          f"{book.seconds:.1f} s). Open it in a browser (no network needed), or serve the "
          f"folder: python -m http.server -d {shown.parent} and open http://127.0.0.1:8000/")


if __name__ == "__main__":
    main(sys.argv[1:])

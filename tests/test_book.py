"""The static book (tools/build_book.py) without a browser: built into a temporary folder from the
committed notebooks, then read as files. Its pages, their order and links, the downloads, the
presenter notes, figures' alt text, the explorer's line, and the build's time and size.
tests/browser/test_book.py opens the same pages in Chromium."""

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from tools import build_book, build_slides, sanitize
from tools.build_slides import AssetsUnavailable

NOTEBOOKS = build_book.NOTEBOOKS
SERIES = sorted(path.stem for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
GLOSSARY = (NOTEBOOKS / build_book.GLOSSARY).is_file()
PAGES = ["index", *SERIES, *(["glossary"] if GLOSSARY else []), "search", "genindex"]
MAX_SECONDS, MAX_MB = 60, 40
EXTERNAL = ("http://", "https://", "mailto:")
# the theme and myst-parser still use an API Sphinx 11 will remove: their business, not the book's
pytestmark = pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")


def build_or_skip(out: Path) -> build_book.Book:
    """Build the book; without the npm assets and no registry, skip (fail in CI)."""
    try:
        return build_book.build(out)
    except AssetsUnavailable as error:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(str(error))


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> build_book.Book:
    return build_or_skip(tmp_path_factory.mktemp("book") / "book")


class Page(HTMLParser):
    """What the tests read from one page: links, resources, ids, images, classes."""

    def __init__(self, text: str):
        super().__init__()
        self.links, self.resources, self.ids, self.images = [], [], set(), []
        self.classes: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.add(attrs.get("id"))
        self.classes.append(attrs.get("class") or "")
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        for name in ("src", "href"):
            if tag in {"script", "img", "link", "source", "iframe"} and attrs.get(name):
                self.resources.append(attrs[name])
        if tag == "img":
            self.images.append(attrs)


def read(book: build_book.Book, name: str) -> Page:
    return Page((book.index.parent / name).read_text(encoding="utf-8"))


def words(book: build_book.Book, name: str) -> str:
    """A page's text, tags removed (inline code is split into one span a word)."""
    html = (book.index.parent / name).read_text(encoding="utf-8")
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_build_is_quick_small_and_says_nothing_wrong(book):
    assert book.seconds <= MAX_SECONDS, f"the build took {book.seconds:.1f} s"
    assert book.megabytes <= MAX_MB, f"the book holds {book.megabytes:.1f} MB"
    assert book.warnings == [], "Sphinx warned:\n" + "\n".join(book.warnings)


def test_one_page_per_notebook_with_the_landing_page_glossary_and_search(book):
    out = book.index.parent
    assert sorted(path.stem for path in out.glob("*.html")) == sorted(PAGES)
    assert book.pages == len(PAGES)
    assert (out / "searchindex.js").is_file(), "no offline search index"


def test_the_landing_page_is_the_readmes_table_of_notebooks(book):
    readme = build_book.README.read_text(encoding="utf-8")
    index = read(book, "index.html")
    for name in SERIES:
        assert f"{name}.html" in index.links, f"the landing page does not link {name}"
        row = re.search(rf"^\| {name[:2]} \|.*\| (\d+) \|$", readme, re.MULTILINE)
        minutes = row[1] if row else None
        text = (book.index.parent / "index.html").read_text(encoding="utf-8")
        assert minutes and re.search(rf"<td><p>{minutes}</p></td>", text), name
    assert not [link for link in index.links if "notebooks/" in link], "a link into the repo"


def prev_next(book, name: str) -> tuple[str | None, str | None]:
    text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
    found = [re.search(rf'class="{side}[^"]*"\s+href="([^"]+)"', text) or
             re.search(rf'href="([^"]+)"[^>]*\s+class="{side}', text)
             for side in ("left-prev", "right-next")]
    return tuple(m[1] if m else None for m in found)


def test_the_notebooks_follow_in_order_with_previous_and_next_links(book):
    order = ["index", *SERIES, *(["glossary"] if GLOSSARY else [])]
    for i, name in enumerate(order):
        before, after = prev_next(book, name)
        assert before == (f"{order[i - 1]}.html" if i else None), name
        assert after == (f"{order[i + 1]}.html" if i + 1 < len(order) else None), name


def test_every_link_and_resource_is_relative_and_resolves(book):
    out = book.index.parent
    for name in PAGES:
        page = read(book, f"{name}.html")
        for url in page.resources:
            assert not url.startswith(("/", *EXTERNAL, "//")), f"{name}: {url} is not relative"
        for url in page.links + page.resources:
            if url.startswith(EXTERNAL):
                continue  # a link to a paper or a library: a hyperlink, nothing is loaded
            assert not url.startswith("/"), f"{name}: {url} starts at the site's root"
            parts = urlsplit(url)
            target = (out / unquote(parts.path)) if parts.path else out / f"{name}.html"
            assert target.is_file(), f"{name}: {url} leads nowhere"
            if parts.fragment and target.suffix == ".html":
                ids = page.ids if not parts.path else read(book, target.name).ids
                assert parts.fragment in ids, f"{name}: no #{parts.fragment} in {target.name}"


def test_every_page_offers_its_committed_notebook_and_says_how_to_run_it(book):
    for name in SERIES:
        page = read(book, f"{name}.html")
        downloads = [link for link in page.links if link.endswith(f"/{name}.ipynb")]
        assert len(downloads) == 1, f"{name}: {downloads}"
        got = (book.index.parent / unquote(downloads[0])).read_bytes()
        assert got == (NOTEBOOKS / f"{name}.ipynb").read_bytes(), f"{name}: not the committed file"
        assert "make lab" in words(book, f"{name}.html"), name
        assert "book-run-it" in " ".join(page.classes), name


def notebook(name: str):
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def test_presenter_notes_are_folded_into_a_notes_box(book):
    for name in SERIES:
        notes = [c for c in notebook(name).cells if build_book.slide_type(c) == "notes"]
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        boxes = re.findall(r'<details class="presenter-notes">\s*<summary>Presenter notes'
                           r"</summary>(.*?)</details>", text, re.DOTALL)
        assert len(boxes) == len(notes), f"{name}: {len(notes)} notes cells, {len(boxes)} boxes"
        assert not [box for box in boxes if "<blockquote" in box or "Presenter notes." in box]


def test_every_figure_has_its_description_as_alt_text(book):
    for name in SERIES:
        cells = notebook(name).cells
        wanted = [build_book.alt_text(following.source)
                  for i, c in enumerate(cells) if build_book.has_output(c, "image/png")
                  for following in [next(d for d in cells[i + 1:] if d.cell_type == "markdown")]]
        images = [img for img in read(book, f"{name}.html").images
                  if "_images/" in img.get("src", "")]
        assert [img.get("alt") for img in images] == wanted, name
        assert all(wanted), f"{name}: an empty description"


def test_exercises_show_with_the_answer_their_checker_gave(book):
    for name in SERIES:
        exercises = [c for c in notebook(name).cells
                     if "exercise" in c.metadata.get("tags", [])]
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        cells = re.findall(r'<div class="cell tag_exercise[^"]*"(.*?)(?=<div class="cell |'
                           r"</section>)", text, re.DOTALL)
        assert len(cells) == len(exercises), name
        shown = [bool(re.search("Not yet|Right", cell)) for cell in cells]
        stored = [any("Not yet" in str(o) or "Right" in str(o) for o in c.outputs)
                  for c in exercises]
        assert shown == stored, f"{name}: an exercise lost its checker's answer"


def test_the_explorer_page_shows_a_still_picture_and_how_to_make_it_live(book):
    """No kernel runs in the book: the explorer's saved shuffle as a picture, one line on how to
    make it live, and no dead controls (no widget views, state or renderer on the page)."""
    explorers = [name for name in SERIES if any(build_book.has_output(c, sanitize.WIDGET_VIEW)
                                                for c in notebook(name).cells)]
    assert explorers, "no notebook stores a widget"
    for name in explorers:
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        assert "widget-state+json" not in text and "widget-view+json" not in text, name
        assert "html-manager" not in text, f"{name} loads the widget renderer"
        assert "pp-shuffle" not in text, f"{name}: a Shuffle button that cannot run"
        alt = re.search(r'<img alt="(the explorer opens on one shuffle[^"]*)"', text)
        assert alt and "man bites dog" in alt[1], f"{name}: no still picture of the shuffle"
        line = "run this notebook ( make lab ) to shuffle it yourself"
        assert line in words(book, f"{name}.html"), name


def test_the_staged_copy_changes_no_committed_notebook(tmp_path):
    before = {path.name: path.read_bytes() for path in NOTEBOOKS.glob("*.ipynb")}
    nb = build_book.book_copy(notebook(SERIES[1]), SERIES[1])
    assert nb.cells[1].source.startswith("```{container} book-run-it")
    assert before == {path.name: path.read_bytes() for path in NOTEBOOKS.glob("*.ipynb")}


@pytest.mark.parametrize("source, body", [
    ("> **Presenter notes.** Ask the room.\n>\n> Then draw it.", "Ask the room.\n\nThen draw it."),
    ("Ask the room.", "Ask the room."),  # an older notes cell, unlabelled
    ("Presenter notes. Ask the room.", "Ask the room."),  # labelled in plain text
])
def test_a_notes_cell_becomes_a_notes_box(source, body):
    assert build_book.presenter_notes(source) == (
        '<details class="presenter-notes">\n<summary>Presenter notes</summary>\n\n'
        f"{body}\n\n</details>")


@pytest.mark.parametrize("description, alt", [
    ("*Figure:* left, $X$; right, `X[perm]`.", "left, X; right, X[perm]."),
    ("*Figure: training loss against steps.*", "training loss against steps."),
    ("*Figure (live):* the explorer.", "the explorer."),
])
def test_a_figure_description_becomes_plain_alt_text(description, alt):
    assert build_book.alt_text(description) == alt


def test_a_first_build_offline_fails_with_one_line_and_keeps_the_earlier_book(
        tmp_path, monkeypatch):
    monkeypatch.setattr(build_slides, "NPM_DIR", tmp_path / "npm")  # nothing installed yet
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens there
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    earlier = tmp_path / "book"
    earlier.mkdir()
    (earlier / ".buildinfo").write_text("an earlier book")
    with pytest.raises(SystemExit) as stopped:
        build_book.main([str(earlier)])
    said = str(stopped.value.code)
    assert "\n" not in said and "npm registry" in said and "later builds need no network" in said
    assert (earlier / ".buildinfo").read_text() == "an earlier book"


def test_a_folder_that_is_not_a_book_is_never_emptied(tmp_path):
    (tmp_path / "thesis.tex").write_text("mine")
    with pytest.raises(SystemExit, match="holds no earlier book"):
        build_book.clear(tmp_path)
    assert (tmp_path / "thesis.tex").read_text() == "mine"

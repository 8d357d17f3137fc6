"""The static book (tools/publish/build_book.py) without a browser: built into a temporary folder
from the committed notebooks, then read as files. Its pages, their order and links, the downloads,
the presenter notes, figures' alt text, captions, numbers and links to their files, section numbers,
the exercises' line, the explorer's line, the search's page texts, the scripts left out, and the
build's CPU time and size. tests/browser/test_book.py opens the same pages in Chromium."""

import html
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from tools.publish import build_book, build_slides, sanitize
from tools.publish.book import extension
from tools.publish.build_slides import AssetsUnavailable

NOTEBOOKS = build_book.NOTEBOOKS
SERIES = sorted(path.stem for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LABS = sorted(path.stem for path in (NOTEBOOKS / build_book.LAB).glob("*.ipynb"))  # opt-in
GLOSSARY = (NOTEBOOKS / build_book.GLOSSARY).is_file()
PAGES = ["index", *SERIES, *LABS, *(["glossary"] if GLOSSARY else []), "search", "genindex"]
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
    # CPU time, the build's own work: `make test` shares the cores among three runs (issue 37)
    assert book.cpu_seconds <= MAX_SECONDS, f"the build took {book.cpu_seconds:.1f} s of CPU"
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
    for name in LABS:
        assert f"{name}.html" in index.links, f"the landing page does not link the lab {name}"
    assert not [link for link in index.links if "notebooks/" in link], "a link into the repo"


def test_the_contents_list_each_lab_apart_with_what_it_needs(book):
    """The sidebar: the series, then the opt-in labs under a caption that names their command
    (`make torch`), then the glossary; on every page."""
    assert LABS, "notebooks/labs/ holds no lab"
    for name in ("index", SERIES[-1], *LABS):
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        captions = re.findall(r'<span class="caption-text">([^<]*)</span>', text)
        needs = sorted({build_book.LAB_NEEDS[lab] for lab in LABS})
        assert f"Opt-in lab (needs {', '.join(needs)})" in captions, (name, captions)
        nav = text[text.index('class="caption-text">Opt-in lab'):]
        nav = nav[:nav.index("</ul>")]
        assert re.findall(r'href="([^"]*)"', nav) == [  # its own page links to itself as "#"
            "#" if lab == name else f"{lab}.html" for lab in LABS], name


def prev_next(book, name: str) -> tuple[str | None, str | None]:
    text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
    found = [re.search(rf'class="{side}[^"]*"\s+href="([^"]+)"', text) or
             re.search(rf'href="([^"]+)"[^>]*\s+class="{side}', text)
             for side in ("left-prev", "right-next")]
    return tuple(m[1] if m else None for m in found)


def test_the_notebooks_follow_in_order_with_previous_and_next_links(book):
    order = ["index", *SERIES, *LABS, *(["glossary"] if GLOSSARY else [])]
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
    for name in LABS:  # a lab: its own file from notebooks/labs/, and the command it needs
        page = read(book, f"{name}.html")
        downloads = [link for link in page.links if link.endswith(f"/{name}.ipynb")]
        assert len(downloads) == 1, f"{name}: {downloads}"
        got = (book.index.parent / unquote(downloads[0])).read_bytes()
        assert got == (NOTEBOOKS / build_book.LAB / f"{name}.ipynb").read_bytes(), name
        run = re.search(r'class="[^"]*book-run-it[^"]*"(.*?)</div>', (
            book.index.parent / f"{name}.html").read_text(encoding="utf-8"), re.DOTALL)
        said = " ".join(re.sub(r"<[^>]+>", " ", run[1] if run else "").split())
        assert f"run {build_book.LAB_NEEDS[name]} in its folder" in said, (name, said)


def test_a_labs_links_to_the_series_lead_to_its_pages(book):
    """A lab links the series one folder up (../03_….ipynb): in the book, to the pages beside it
    (the navigation line "← 11", "Contents" included)."""
    for name in LABS:
        cells = notebook(name).cells
        wanted = {f"{stem}.html" for cell in cells if cell.cell_type == "markdown"
                  for stem in re.findall(r"\]\(\.\./(\d\d_\w+)\.ipynb", cell.source)}
        assert "00_start_here.html" in wanted, f"{name}: no Contents link"
        links = set(read(book, f"{name}.html").links)
        assert wanted <= links, f"{name}: {sorted(wanted - links)} not linked"
        assert not [link for link in links if link.endswith(".ipynb") and "_downloads" not in link]


def notebook(name: str):
    folder = NOTEBOOKS / build_book.LAB if name in LABS else NOTEBOOKS
    return nbformat.read(folder / f"{name}.ipynb", as_version=4)


def test_presenter_notes_are_folded_into_a_notes_box(book):
    for name in SERIES + LABS:
        notes = [c for c in notebook(name).cells if build_book.slide_type(c) == "notes"]
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        boxes = re.findall(r'<details class="presenter-notes">\s*<summary>Presenter notes'
                           r"</summary>(.*?)</details>", text, re.DOTALL)
        assert len(boxes) == len(notes), f"{name}: {len(notes)} notes cells, {len(boxes)} boxes"
        assert not [box for box in boxes if "<blockquote" in box or "Presenter notes." in box]


def test_every_figure_has_its_description_as_alt_text(book):
    for name in SERIES + LABS:
        cells = notebook(name).cells
        wanted = [build_book.alt_text(following.source)
                  for i, c in enumerate(cells) if build_book.has_output(c, "image/png")
                  for following in [next(d for d in cells[i + 1:] if d.cell_type == "markdown")]]
        images = [img for img in read(book, f"{name}.html").images
                  if "_images/" in img.get("src", "")]
        assert [img.get("alt") for img in images] == wanted, name
        assert all(wanted), f"{name}: an empty description"


def exercise_cells(book, name: str) -> list[str]:
    text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
    return re.findall(r'<div class="cell tag_exercise[^"]*"(.*?)(?=<div class="cell |</section>)',
                      text, re.DOTALL)


def test_exercises_say_what_their_checker_will_say_not_its_verdict_on_the_template(book):
    """The notebooks keep the checker's verdict on the empty template ("Not yet: replace the
    ..."); the book says what happens when the student runs the cell."""
    for name in SERIES + LABS:
        said = " ".join(re.sub(r"[*`]", "", build_book.exercise_output(name, name in LABS)).split())
        exercises = [c for c in notebook(name).cells
                     if "exercise" in c.metadata.get("tags", [])]
        cells = exercise_cells(book, name)
        assert len(cells) == len(exercises), name
        for cell in cells:
            output = cell[cell.index("cell_output"):]
            assert said in " ".join(re.sub(r"<[^>]+>", "", output).split()), name
            assert "❌" not in output and "Not yet:" not in output, f"{name}: a verdict shows"
        verdicts = [c for c in exercises if any("❌ Not yet" in str(o) for o in c.outputs)]
        assert not verdicts or cells, f"{name}: the test reads no exercise"
        if name in LABS:
            assert f"({build_book.LAB_NEEDS[name]})" in said, said


def test_sections_and_figures_are_numbered_under_their_notebook(book):
    """Page 09: its sections "9.N · …" (the notebook's own "N · …"), its figures "Figure 9.N"
    in order, each with the id a link can point at (#figure-9-N)."""
    for name in SERIES:
        chapter = int(name[:2])
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        sections = re.findall(r"<h2>([^<]*)", text)
        numbered = [h for h in sections if re.match(r"\d+\.\d+ · ", h)]
        assert numbered, f"{name}: no numbered section"
        assert all(h.startswith(f"{chapter}.") for h in numbered), (name, numbered)
        own = [m[1] for c in notebook(name).cells if c.cell_type == "markdown"
               for m in re.finditer(r"^## (\d+) · ", c.source, re.MULTILINE)]
        if own:  # the notebook numbers its sections; its text cites them by those numbers
            assert [h.split(" · ")[0] for h in numbered] == [f"{chapter}.{n}" for n in own]
        captions = re.findall(r'<figure[^>]*id="([^"]+)".*?<figcaption>\s*<p><span '
                              r'class="caption-text"><em>(Figure [^<:]*):', text, re.DOTALL)
        images = sum(build_book.has_output(c, "image/png") for c in notebook(name).cells)
        assert [label for _, label in captions] == [
            f"Figure {chapter}.{n}" + (" (live)" if label.endswith("(live)") else "")
            for n, (_, label) in enumerate(captions, 1)], name
        assert len(captions) == images, f"{name}: {images} figures, {len(captions)} captions"
        assert [ident for ident, _ in captions] == [
            f"figure-{chapter}-{n}" for n in range(1, len(captions) + 1)], name
    nine = next(name for name in SERIES if name.startswith("09_"))
    assert "Figure 9.3:" in words(book, f"{nine}.html")


def test_every_output_figure_opens_full_size_from_its_own_link(book):
    for name in SERIES:
        text = (book.index.parent / f"{name}.html").read_text(encoding="utf-8")
        figures = re.findall(r'<img alt="[^"]*" src="(_images/[^"]+)"', text)
        linked = re.findall(r'<a class="book-figure-link[^"]*" href="(_images/[^"]+)"[^>]*>'
                            r'<img alt="[^"]+" src="(_images/[^"]+)"', text)
        images = sum(build_book.has_output(c, "image/png") for c in notebook(name).cells)
        assert len(figures) == images, f"{name}: {images} figures, {len(figures)} on the page"
        assert len(linked) == len(figures), f"{name}: {len(linked)} of {len(figures)} linked"
        assert all(href == src and (book.index.parent / href).is_file() for href, src in linked)


def test_no_page_carries_scripts_it_does_not_run(book):
    """No widget renderer, require.js or the theme's icon-font script: no page loads them."""
    out = book.index.parent
    assert not list(out.rglob("embed-amd.js")) and not list(out.rglob("require.js"))
    assert not list(out.rglob("fontawesome.js")) and not (out / "@jupyter-widgets").exists()
    for name in PAGES:
        text = (out / f"{name}.html").read_text(encoding="utf-8")
        assert "fontawesome.js" not in text and "require.js" not in text, name


def test_the_search_page_has_every_pages_text_for_its_snippets(book):
    out = book.index.parent
    pages = (out / "_static" / "book-pages.js").read_text(encoding="utf-8")
    assert pages.startswith("window.BOOK_PAGES = {")
    found = json.loads(pages.removeprefix("window.BOOK_PAGES = ").rstrip().removesuffix(";"))
    assert sorted(found) == sorted(set(PAGES) - {"search", "genindex"})
    first = next(name for name in SERIES if name.startswith("01_"))
    assert "equivariant" in found[first] and "<script" not in found[first]
    search = (out / "search.html").read_text(encoding="utf-8")
    assert "book-pages.js" in search and "book-search.js" in search
    assert "book-pages.js" not in (out / f"{first}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("source, text", [
    ("<p>Hi <script>x()</script><a class=\"headerlink\" href=\"#a\">#</a></p>", "Hi"),
    ("<section id=\"a\"><h2>A &amp; B</h2><br><img src=x><p>one\n two</p></section>",
     '<section id="a">A &amp; B one two</section>'),
    ('<p>Then <span class="math notranslate nohighlight">\\(P^\\top X\\)</span> and </p><div '
     'class="math notranslate nohighlight">\\[\\alpha_{ij} \\le 1\\]</div>',
     "Then Pᵀ X and α_ij ≤ 1"),  # a formula in a snippet: plain text, not its TeX
])
def test_a_pages_text_for_the_search_keeps_its_sections_and_words(source, text):
    html = (f'<body><main role="main"><nav>Light Dark</nav><article class="bd-article">{source}'
            "</article><nav>Contents</nav></main><footer>f</footer></body>")
    assert extension.PageText(html).html() == f'<div role="main">{text}</div>'


@pytest.mark.parametrize("printout, table", [
    ("scheme     train    test\nnone       52%      35%\n", True),
    ("the ↔ the′  P X equals X: True\ndog ↔ man   P X equals X: False\n", True),
    ("π = (3, 1, 2, 0, 4) only swaps copies of the same word, so X' = X.\n", False),
    ("one line  with  gaps\n", False),
])
def test_a_printout_whose_columns_line_up_is_a_printed_table(printout, table):
    assert extension.printed_table(printout) is table


def test_sections_are_numbered_in_order_where_the_notebook_numbers_none():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source) for source in [
        "# 01 · Title\n\n## One\n\ntext", "```\n## not a heading\n```\n\n## Two",
        "## Summary: done", "## Exercises"]])
    build_book.numbered_sections(nb, 1)
    assert [c.source for c in nb.cells] == [
        "# 01 · Title\n\n## 1.1 · One\n\ntext", "```\n## not a heading\n```\n\n## 1.2 · Two",
        "## Summary: done", "## Exercises"]


@pytest.mark.parametrize("description, caption", [
    ("*Figure:* left, $X$.", "*Figure 9.3:* left, $X$."),
    ("*Figure (live):* the explorer.", "*Figure 9.3 (live):* the explorer."),
    ("*Figure: training loss.*", "*Figure 9.3: training loss.*"),
])
def test_a_figure_description_becomes_its_numbered_caption(description, caption):
    assert build_book.caption(description, "9.3") == caption


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
    before = {path.name: path.read_bytes() for path in NOTEBOOKS.rglob("*.ipynb")}
    nb = build_book.book_copy(notebook(SERIES[1]), SERIES[1])
    assert nb.cells[1].source.startswith("```{container} book-run-it")
    for name in LABS:
        copy = build_book.book_copy(notebook(name), name, lab=True)
        assert "](../" not in " ".join(c.source for c in copy.cells if c.cell_type == "markdown")
    assert before == {path.name: path.read_bytes() for path in NOTEBOOKS.rglob("*.ipynb")}


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


def test_no_page_title_repeats_itself(book):
    titles = {}
    for page in sorted(book.index.parent.glob("*.html")):
        found = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.DOTALL)
        titles[page.stem] = html.unescape(found[1]).strip()
    assert titles["index"] == "The Position Problem"
    assert {name: title for name, title in titles.items()
            if len(set(parts := title.split(" — "))) < len(parts)} == {}
    assert titles[SERIES[0]].endswith(" — The Position Problem")  # the book's name, once

"""What the book and the decks publish of a contributed notebook's files, and what a malformed
notebook gets (issue 39 §1), without a browser: tests/browser/test_hostile_notebook.py opens the
published files in Chromium.

- A reference to a file outside the notebooks' folder (`{download}`, `{image}`, `{figure}`,
  `![](…)`, a link, `{include}`, `{literalinclude}`, in a notebook or in glossary.md) stops the
  book's build with one line per reference naming the notebook and cell (or the glossary's line)
  and the reference; no book is written and the file is nowhere in the build.
- A file inside the folder is published; an SVG figure is published as a picture of itself (no
  script when it is opened on its own); an image on the web is never fetched (its alt text).
- A malformed notebook (a picture that is not base64, metadata of the wrong shape, no cells, not
  JSON) is one line naming the notebook and cell from `make book` and `make slides`, and no
  Sphinx error log is left in the temporary folder.
Each build here is of one small notebook (about 2 s).
"""

import base64
import json
import os
import re
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tools.publish import build_book, build_slides, deck, sanitize
from tools.publish.build_slides import AssetsUnavailable

pytestmark = pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")
SECRET = "pp-a-file-of-the-machine-that-builds"
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAAB"
       "JRU5ErkJggg==")
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" viewBox="0 0 40 20" '
       'onload="localStorage.pwned=1"><script>localStorage.pwned_script=1</script>'
       '<rect width="40" height="20" fill="red"/></svg>')
TRACKER = "http://127.0.0.1:9/track.png"


def built_or_skip(call):
    try:
        return call()
    except AssetsUnavailable as error:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(str(error))


def notebook_folder(root: Path, cells: list, name: str = "01_contribution") -> Path:
    folder = root / "notebooks"
    folder.mkdir(exist_ok=True)
    nb = new_notebook(cells=[new_markdown_cell("# 01 · A contribution\n\n## Its section"), *cells])
    nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def refused(root: Path, folder: Path) -> list[str]:
    """The lines the book's build stops with (main(), as `make book` runs it)."""
    out = root / "book"
    with pytest.raises(SystemExit) as stopped:
        built_or_skip(lambda: build_book.main_for(out, folder))
    assert not out.exists(), "a refused build published a book"
    said = str(stopped.value.code)
    assert "Traceback" not in said
    return said.splitlines()


def files_of(folder: Path) -> str:
    return "".join(path.read_text(encoding="utf-8", errors="replace")
                   for path in folder.rglob("*") if path.is_file()) if folder.exists() else ""


def test_a_reference_outside_the_notebooks_folder_is_refused_naming_it(tmp_path):
    secret = tmp_path / "private" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    (tmp_path / "private" / "secret.png").write_bytes(base64.b64decode(PNG))
    up = "../" * 30 + str(secret.parent).lstrip("/")  # docutils reads "/…" from the source folder
    references = {  # cell source -> the reference its refusal must name
        f"{{download}}`the key <{up}/secret.txt>`": f"{up}/secret.txt",
        f"```{{image}} {up}/secret.png\n```": f"{up}/secret.png",
        f"```{{figure}} {up}/secret.png\nA caption.\n```": f"{up}/secret.png",
        f"![a picture]({up}/secret.png)": f"{up}/secret.png",
        "![one level up](../private/secret.png)": "../private/secret.png",
        f"[a link to it]({up}/secret.txt)": f"{up}/secret.txt",
        f"```{{include}} {up}/secret.txt\n```": f"{up}/secret.txt",
        f"```{{literalinclude}} {up}/secret.txt\n```": f"{up}/secret.txt",
        f"```{{eval-rst}}\n.. literalinclude:: {up}/secret.txt\n\n.. image:: {up}/secret.png\n"
        "```": f"{up}/secret.txt",
    }
    cells = [new_markdown_cell(source) for source in references]
    folder = notebook_folder(tmp_path, cells)
    (folder / "glossary.md").write_text(f"# Glossary\n\nterm\n: its {{download}}`key <{up}/"
                                        "secret.txt>`\n", encoding="utf-8")
    lines = refused(tmp_path, folder)
    for i, (source, reference) in enumerate(references.items(), 2):
        assert [line for line in lines if line.startswith(f"01_contribution.ipynb, cell {i} (id")
                and repr(reference) in line], f"no refusal of cell {i}: {source!r}\n{lines}"
    assert [line for line in lines if line.startswith("glossary.md, line 3:")
            and f"{up}/secret.txt" in line], lines
    assert all(" must " in line and "; got " in line for line in lines), lines
    assert SECRET not in files_of(tmp_path / "book")


def test_a_file_inside_the_folder_is_published_and_an_svg_figure_runs_no_script(tmp_path):
    folder = notebook_folder(tmp_path, [
        new_markdown_cell("![a pixel](figures/pixel.png)\n\n{download}`the data <data.csv>`"),
        new_code_cell("show()", outputs=[new_output("display_data", {
            "image/svg+xml": SVG, "text/plain": "svg"})]),
    ])
    (folder / "figures").mkdir()
    (folder / "figures" / "pixel.png").write_bytes(base64.b64decode(PNG))
    (folder / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    book = built_or_skip(lambda: build_book.build(tmp_path / "book", folder))
    out = book.index.parent
    page = (out / "01_contribution.html").read_text(encoding="utf-8")
    assert re.search(r'<img alt="a pixel" src="_images/pixel\.png"', page)
    assert [path.read_text() for path in out.rglob("data.csv")] == ["a,b\n1,2\n"]
    svgs = sorted((out / "_images").glob("*.svg"))
    assert len(svgs) == 1 and f'href="{svgs[0].relative_to(out).as_posix()}"' in page
    published = svgs[0].read_text(encoding="utf-8")
    assert "<script" not in published and "onload" not in published, published[:200]
    assert published.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" '
                                'viewBox="0 0 40 20"><image x="0" y="0" width="40" height="20" '
                                'href="data:image/svg+xml;base64,')
    inner = base64.b64decode(published.split("base64,")[1].split('"')[0]).decode()
    assert inner == SVG  # the figure as saved, drawn only as a picture


def test_no_published_file_a_browser_runs_is_left_as_a_notebook_wrote_it(tmp_path):
    """Every file of the build outside the pages and _static/ that a browser runs is inert."""
    folder = notebook_folder(tmp_path, [
        new_markdown_cell("![a figure](figure.svg)"),
        new_markdown_cell("{download}`a page <page.html>`")])
    (folder / "figure.svg").write_text(SVG, encoding="utf-8")
    (folder / "page.html").write_text("<script>localStorage.pwned=1</script>", encoding="utf-8")
    lines = refused(tmp_path, folder)
    assert len(lines) == 1 and lines[0].startswith("01_contribution.ipynb, cell 3 (id"), lines
    assert "'page.html'" in lines[0] and "runs script" in lines[0], lines
    assert build_book.inert_svg(SVG.encode()).count(b"<script") == 0


HOSTILE_IMAGES = (f'<img src="{TRACKER}" alt="a tracker">\n\n![pixel](https://127.0.0.1:9/p.png)\n\n'
                  '<img src="//127.0.0.1:9/x.png">\n\n'
                  '<p style="cursor: url(http://127.0.0.1:9/c.cur), auto">hover</p>')


def remote_sources(html: str) -> list[str]:
    found = re.findall(r"""<img\b[^>]*\bsrc\s*=\s*["']?\s*((?:[a-z]+:)?//[^"' >]*)""", html,
                       re.IGNORECASE)
    return found + re.findall(r"url\(\s*['\"]?(?:[a-z]+:)?//[^)]*\)", html, re.IGNORECASE)


def test_an_image_on_the_web_is_never_fetched_by_the_book_or_the_deck(tmp_path):
    folder = notebook_folder(tmp_path, [
        new_markdown_cell(HOSTILE_IMAGES),
        new_code_cell("show()", outputs=[new_output("display_data", {
            "text/html": f'<img src="{TRACKER}">', "text/markdown": f"![out]({TRACKER})",
            "text/plain": "html"})])])
    book = built_or_skip(lambda: build_book.build(tmp_path / "book", folder))
    page = (book.index.parent / "01_contribution.html").read_text(encoding="utf-8")
    assert remote_sources(page) == []
    assert "[a tracker: an image on the web, not loaded]" in page
    assert "[pixel: an image on the web, not loaded]" in page
    assert [w for w in book.warnings if "cell 2 (id" in w and "is on the web" in w], book.warnings
    decks = built_or_skip(lambda: build_slides.build(sorted(folder.glob("*.ipynb")),
                                                     tmp_path / "slides"))
    slides = decks[0].read_text(encoding="utf-8")
    assert "a tracker: an image on the web, not loaded" in slides
    assert remote_sources(slides) == []


@pytest.mark.parametrize("address, fetched", [
    ("http://example.org/t.png", True), ("HTTPS://example.org/t.png", True),
    ("//example.org/t.png", True), ("/\\example.org/t.png", True), (" \thttp://x/t.png", True),
    ("ftp://example.org/t.png", True), ("figure.png", False), ("_images/a.png", False),
    ("data:image/png;base64,AAAA", False)])
def test_an_image_address_is_remote_when_it_names_a_host_or_a_scheme(address, fetched):
    assert sanitize.remote(address) is fetched
    shown = sanitize.clean(f'<img src="{address}" alt="x">')
    assert ("src=" not in shown) is fetched, shown


def test_css_keeps_nothing_that_fetches():
    assert sanitize.clean('<p style="cursor: url(http://x/c.cur); color: red">a</p>') == \
        '<p style="color: red;">a</p>'
    assert "url" not in sanitize.clean('<p style="cursor: \\75rl(http://x/c.cur)">a</p>')


def cell_with(**changes):
    cell = new_code_cell("x", outputs=[new_output("display_data", {
        "image/png": PNG, "text/plain": "<Figure>"})])
    for key, value in changes.items():
        if key == "png":
            cell.outputs[0]["data"]["image/png"] = value
        else:
            cell.metadata[key] = value
    return cell


# a malformed notebook -> what its one line must say
MALFORMED = {
    "png-not-base64": ([cell_with(png="not base64 at all!")], ["cell 2 (id", "image/png",
                                                               "must be base64"]),
    "slideshow-string": ([cell_with(slideshow="slide")], ["cell 2 (id", '"slideshow" must be a',
                                                          "got 'slide'"]),
    "tags-string": ([cell_with(tags="deck-notes")], ["cell 2 (id", '"tags" must be a list',
                                                     "got 'deck-notes'"]),
    "deck-string": ([cell_with(deck="x", tags=["deck-table"])], ["cell 2 (id", '"deck" must be',
                                                                  "got 'x'"]),
    "empty": (None, ["01_contribution.ipynb must hold at least one cell", "got no cells"]),
    "not-json": ("not json", ["01_contribution.ipynb must be a Jupyter notebook",
                              "JSONDecodeError"]),
}


def malformed_folder(root: Path, case: str) -> Path:
    cells, _ = MALFORMED[case]
    folder = root / "notebooks"
    folder.mkdir()
    path = folder / "01_contribution.ipynb"
    if case == "empty":
        nbformat.write(new_notebook(), path)
    elif case == "not-json":
        path.write_text("not json", encoding="utf-8")
    else:  # as a hand edit leaves it (nbformat.write would refuse some of these)
        nb = new_notebook(cells=[new_markdown_cell("# 01 · A contribution")])
        nb.cells += cells
        path.write_text(json.dumps(nb), encoding="utf-8")
    return folder


def sphinx_logs() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("sphinx-err-*.log")}


@pytest.mark.parametrize("builder", ["book", "slides"])
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_notebook_is_one_line_naming_the_notebook_and_cell(tmp_path, case, builder):
    folder = malformed_folder(tmp_path, case)
    logs = sphinx_logs()
    with pytest.raises(SystemExit) as stopped:
        if builder == "book":
            built_or_skip(lambda: build_book.main_for(tmp_path / "book", folder))
        else:
            build_slides.main([str(path) for path in sorted(folder.glob("*.ipynb"))])
    said = str(stopped.value.code)
    assert "\n" not in said and "Traceback" not in said, said
    assert said.startswith(("01_contribution.ipynb", "notebook 01_contribution.ipynb")), said
    assert all(part in said for part in MALFORMED[case][1]), said
    assert re.search(r" must .*; got .*\. [A-Z]", said), f"not the house form: {said}"
    assert sphinx_logs() == logs, "Sphinx left an error log in the temporary folder"
    assert not (tmp_path / "book").exists()


def test_a_picture_that_is_not_base64_is_caught_before_any_builder_decodes_it():
    nb = new_notebook(cells=[cell_with(png="iVBOR\n\nw0K!!")])
    with pytest.raises(deck.NotebookError, match=r"^x\.ipynb, cell 1 .*image/png must be base64"):
        deck.check_notebook(nb, "x.ipynb")
    deck.check_notebook(new_notebook(cells=[cell_with(png=PNG[:20] + "\n" + PNG[20:])]), "x")


def test_the_series_notebooks_pass_the_checks():
    paths = sorted(build_book.NOTEBOOKS.rglob("*.ipynb"))  # the labs' too (notebooks/labs/)
    assert [path for path in paths if path.parent.name == build_book.LAB], "no lab checked"
    for path in paths:
        assert deck.read_notebook(path).cells, path.name
    assert json.loads((build_book.NOTEBOOKS / "00_start_here.ipynb").read_text())["cells"]


def test_a_headings_code_that_names_a_tag_stays_text_wherever_the_title_goes(tmp_path):
    """sphinx-book-theme wrote a page's title into its print header unescaped: a heading with
    `<img src=x onerror=…>` in code made an element that runs script (issue 43, found while making
    notes' tags text)."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    title = "# 01 · A `<img src=x onerror=alert(1)>` title\n\n## Its section"
    nbformat.write(new_notebook(cells=[new_markdown_cell(title)]), folder / "01_title.ipynb")
    book = built_or_skip(lambda: build_book.build(tmp_path / "book", folder))
    page = (book.index.parent / "01_title.html").read_text(encoding="utf-8")
    assert re.findall(r"<img[^>]*onerror[^>]*>", page) == []
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def lab_folder(root: Path, cells: list) -> Path:
    """A notebooks folder with one notebook and an opt-in lab, labs/x_lab.ipynb."""
    folder = notebook_folder(root, [])
    (folder / build_book.LAB).mkdir()
    nb = new_notebook(cells=[new_markdown_cell(
        "# Lab · X\n\n[← 01 A contribution](../01_contribution.ipynb) · "
        "[terms](../glossary.md)"), *cells])
    nbformat.write(nb, folder / build_book.LAB / "x_lab.ipynb")
    (folder / "glossary.md").write_text("# Glossary\n\n**term** — a word.\n", encoding="utf-8")
    return folder


def test_a_lab_is_a_page_after_the_series_whose_links_up_lead_to_its_pages(tmp_path):
    folder = lab_folder(tmp_path, [new_markdown_cell("## 1 · Its section\n\nText.")])
    book = built_or_skip(lambda: build_book.build(tmp_path / "book", folder))
    out = book.index.parent
    page = (out / "x_lab.html").read_text(encoding="utf-8")
    assert 'href="01_contribution.html"' in page and 'href="glossary.html"' in page
    assert "../" not in " ".join(re.findall(r'href="([^"]+)"', page))
    downloads = re.findall(r'href="([^"]+/x_lab\.ipynb)"', page)
    assert [(out / d).read_bytes() for d in downloads] == [
        (folder / build_book.LAB / "x_lab.ipynb").read_bytes()]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Opt-in lab (needs its own set-up)" in index  # a lab LAB_NEEDS does not name


def test_a_labs_reference_outside_the_notebooks_folder_is_refused_naming_the_lab(tmp_path):
    secret = tmp_path / "private" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    up = "../" * 30 + str(secret.parent).lstrip("/")
    folder = lab_folder(tmp_path, [new_markdown_cell(f"[the key]({up}/secret.txt)")])
    lines = refused(tmp_path, folder)
    assert [line for line in lines if line.startswith("x_lab.ipynb, cell 2")
            and f"{up}/secret.txt" in line], lines
    assert SECRET not in files_of(tmp_path / "book")


def test_a_malformed_lab_stops_the_book_in_one_line_naming_it(tmp_path):
    folder = lab_folder(tmp_path, [])
    (folder / build_book.LAB / "x_lab.ipynb").write_text("not json", encoding="utf-8")
    lines = refused(tmp_path, folder)
    assert len(lines) == 1 and lines[0].startswith("notebook x_lab.ipynb must be a Jupyter"), lines

"""tools/publish/build_slides.py without a browser: what needs the network, and what is said without
it."""

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tools.publish import build_slides, deck, deck_pages, sanitize
from tools.serve import servers

ROOT = Path(__file__).resolve().parent.parent

NO_REGISTRY = "http://127.0.0.1:9/"  # nothing listens on the discard port


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """A first build (nothing installed, an empty npm cache) with the registry unreachable."""
    monkeypatch.setattr(build_slides, "NPM_DIR", tmp_path / "npm")
    monkeypatch.setenv("npm_config_registry", NO_REGISTRY)
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")


@pytest.mark.parametrize("argv", [[], ["present"]], ids=["slides", "present"])
def test_a_first_build_offline_fails_with_one_line_that_says_what_needs_the_network(
        offline, capsys, argv):
    main = servers.main if argv else build_slides.main  # `make present`, `make slides`
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    said = str(stopped.value.code)
    assert "\n" not in said
    assert said.startswith("The slide assets (reveal.js, MathJax, jQuery, RequireJS, widget "
                           f"renderer) must be fetched once from the npm registry ({NO_REGISTRY});")
    assert "later builds need no network" in said
    assert "npm ci" in capsys.readouterr().out  # said before it tried


# npm's words for a registry out of reach (ENOTEMPTY and the like are the race this test is for)
UNREACHABLE = ("(ENOTFOUND)", "(ECONNREFUSED)", "(EAI_AGAIN)", "(ENETUNREACH)", "(ETIMEDOUT)",
               "(ENOTCACHED)", "npm is not installed")
# One builder, as its own process: the slide assets from an npm folder into a deck's folder.
BUILDER = """
import sys
import time
from pathlib import Path
from tools.publish import build_slides
build_slides.NPM_DIR = Path(sys.argv[1])
build_slides.vendor(Path(sys.argv[2]))
"""


@pytest.mark.parametrize("apart", [0, 4], ids=["together", "4 s apart"])
def test_two_builders_started_at_once_on_a_fresh_clone_both_end_with_every_file_a_deck_loads(
        tmp_path, apart):
    """make test's runs build decks side by side: two `npm ci` in one folder once left the widget
    renderer without its scripts (seen with the second started 3 to 10 s into the first). Two
    processes start on an empty npm folder, together or 4 s apart (npm's own cache may be warm, as
    on a machine that built before; the registry is needed otherwise)."""
    npm, outs = tmp_path / "npm", [tmp_path / "deck-a", tmp_path / "deck-b"]
    builders = []
    for out in outs:
        builders.append(subprocess.Popen([sys.executable, "-c", BUILDER, str(npm), str(out)],
                                         cwd=ROOT, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True))
        time.sleep(apart)
    said = [builder.communicate(timeout=600)[0] for builder in builders]
    if any(code in text for text in said for code in UNREACHABLE) and not os.environ.get("CI"):
        pytest.skip(f"the npm registry is out of reach and npm's cache is cold: {said}")
    assert [builder.returncode for builder in builders] == [0, 0], said
    assert sum("npm ci" in text for text in said) == 1  # one install; the other waited and used it
    modules = npm / "node_modules"
    expected = sorted(str(path.relative_to(modules))
                      for package, patterns in build_slides.KEEP.items() for pattern in patterns
                      for path in (modules / package).glob(pattern) if path.is_file())
    for name in build_slides.MUST_HAVE:
        assert (modules / name).is_file(), name
        assert name in expected
    for out in outs:
        vendor = out / "vendor"
        for name in expected:
            assert (vendor / name).read_bytes() == (modules / name).read_bytes(), name
        assert (vendor / "series-slides.css").is_file()
    assert not npm.with_name("npm.partial").exists()  # nothing half written is left beside it


def test_the_slide_assets_are_pinned_by_a_committed_lockfile():
    lock = build_slides.LOCK.read_text()
    for package in build_slides.KEEP:
        assert f'"node_modules/{package}"' in lock
    assert '"integrity": "sha512-' in lock


def cell(kind: str, source: str, slide: str = "-", tags=(), outputs=None):
    made = (nbformat.v4.new_code_cell(source, outputs=outputs or []) if kind == "code"
            else nbformat.v4.new_markdown_cell(source))
    made.metadata["slideshow"] = {"slide_type": slide}
    made.metadata["tags"] = list(tags)
    return made


PNG = nbformat.v4.new_output("display_data", {"image/png": "iVBORw0KGgo=",
                                              "text/plain": "<Figure>"})


def view(*cells, closing=None):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    shown = deck.deck_view(nb, closing)
    return [(c.metadata["slideshow"]["slide_type"], c.source,
             c.metadata.get("transient", {}).get("remove_source", False)) for c in shown.cells]


def test_prose_tagged_deck_notes_goes_to_the_notes_and_its_heading_stays_on_the_slide():
    shown = view(cell("markdown", "## The point\n\nA long paragraph.", "slide", ["deck-notes"]),
                 cell("markdown", "More prose to say aloud.", "-", ["deck-notes"]),
                 cell("markdown", "A short line for the slide."))
    assert shown == [("slide", "## The point", False),
                     ("-", "A short line for the slide.", False),
                     ("notes", "**From the notebook:**\n\nA long paragraph.\n\n"
                               "More prose to say aloud.", False)]  # one note, the slide's last


def test_code_is_hidden_unless_it_is_the_lesson_and_exercises_show_the_task_only():
    out = [nbformat.v4.new_output("stream", text="3\n")]
    shown = view(cell("code", "x = 1 + 2\nprint(x)", outputs=out),
                 cell("code", "Y = A @ V", tags=["deck-code"], outputs=out),
                 cell("code", "import numpy as np"),
                 cell("markdown", "**Exercise 1.** Build it.", "subslide"),
                 cell("code", "answer = ...\nnb01.check(answer)", tags=["exercise"], outputs=out))
    assert [(kind, hidden) for kind, _, hidden in shown] == [
        ("-", True), ("-", False), ("skip", True), ("subslide", False), ("skip", False)]


def test_a_figure_description_becomes_alt_text_with_its_takeaway_on_the_slide():
    nb = nbformat.v4.new_notebook(cells=[
        cell("code", "plot()", outputs=[PNG]),
        cell("markdown", "*Figure:* the blind model is the same picture reordered. Left, A; "
                         "right, [A'](x.ipynb).")])
    shown = deck.deck_view(nb)
    alt = shown.cells[0].outputs[0].metadata["image/png"]["alt"]
    assert alt == "the blind model is the same picture reordered. Left, A; right, A'."
    assert shown.cells[1].source == "*the blind model is the same picture reordered.*"
    assert shown.cells[2].metadata["slideshow"]["slide_type"] == "notes"
    assert "Left, A" in shown.cells[2].source


def test_the_navigation_line_drops_out_and_a_closing_slide_ends_the_deck():
    shown = view(cell("markdown", "## Summary\n\n- The takeaway.\n- More.", "slide"),
                 cell("markdown", "[← 00 Start](00_start.ipynb) · [02 Next →](02_next.ipynb)"),
                 closing=deck.closing_slide(nbformat.v4.new_notebook(cells=[
                     cell("markdown", "## Summary\n\n- The takeaway.\n- More.", "slide")]),
                     "02 · Next"))
    assert [kind for kind, _, _ in shown] == ["slide", "skip", "slide"]
    assert shown[-1][1] == "## The takeaway\n\nThe takeaway.\n\n**Next:** 02 · Next"


def test_the_closing_slide_is_headed_by_the_point_the_summary_states():
    def closing(heading: str) -> str:
        nb = nbformat.v4.new_notebook(cells=[
            cell("markdown", f"{heading}\n\n- The first point.\n- More.", "slide")])
        return deck.closing_slide(nb, "02 · Next").splitlines()[0]

    assert closing("## Summary: attention alone is blind to order") == (
        "## Attention alone is blind to order")
    assert closing("## Summary — every scheme has a blind spot") == (
        "## Every scheme has a blind spot")
    assert closing("## Summary") == "## The takeaway"  # no point stated: the notebook test says so


def widget_notebook(picture: bool) -> nbformat.NotebookNode:
    """A notebook whose one output is a widget view, with or without a picture of it."""
    data = {"text/plain": "Explorer()", sanitize.WIDGET_VIEW: {"model_id": "m"}}
    if picture:
        data["image/png"] = "iVBORw0KGgo="
    cell = nbformat.v4.new_code_cell("explorer", outputs=[
        nbformat.v4.new_output("execute_result", data=data, execution_count=1)])
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


def test_a_widget_with_a_picture_is_shown_still_with_how_to_make_it_live():
    nb, _ = build_slides.still_pictures(widget_notebook(picture=True), {})
    assert set(nb.cells[0].outputs[0].data) == {"text/plain", "image/png"}  # no dead controls
    assert "make lab" in nb.cells[1].source and deck.kind(nb.cells[1]) == "-"  # on its slide
    assert "widgets" not in nb.metadata, "the widget state (and renderer) is left on the page"


def test_a_widget_without_a_picture_is_left_as_saved():
    nb, _ = build_slides.still_pictures(widget_notebook(picture=False), {})
    assert sanitize.WIDGET_VIEW in nb.cells[0].outputs[0].data
    assert len(nb.cells) == 1 and "widgets" in nb.metadata


def test_a_labs_links_one_folder_up_and_the_series_links_to_a_lab_go_to_the_decks():
    """A lab (notebooks/labs/) links the series as ../NN_name.ipynb and the glossary as
    ../glossary.md; the series links a lab as labs/NAME.ipynb: in the decks' flat folder each goes
    to the deck or page beside it (issue 42)."""
    assert deck_pages.deck_link(
        "[← 11 P](../11_positions_in_practice.ipynb) · [Contents](../00_start_here.ipynb#top)"
        " · [terms](../glossary.md#rope)") == (
        "[← 11 P](11_positions_in_practice.slides.html) · [Contents](00_start_here.slides.html)"
        " · [terms](glossary.html#rope)")
    assert deck_pages.deck_link("[Lab →](labs/torch_bridge.ipynb)") == (
        "[Lab →](torch_bridge.slides.html)")
    for kept in ("[x](../../01_x.ipynb)", "[x](labs/data.csv)", "[x](https://a.b/01_x.ipynb)"):
        assert deck_pages.deck_link(kept) == kept


def test_the_decks_index_lists_a_lab_apart_with_the_command_it_needs():
    page = deck_pages.index_page([("00_start.slides.html", "00 · Start"),
                                  ("torch_bridge.slides.html", "Lab · A bridge to PyTorch")],
                                 glossary=True)
    series, labs = page.split("<h2>Opt-in labs</h2>")
    assert 'href="00_start.slides.html"' in series and "torch_bridge" not in series
    assert 'href="torch_bridge.slides.html"' in labs and "<code>make torch</code>" in labs
    assert "Opt-in labs" not in deck_pages.index_page([("00_start.slides.html", "00")], False)


def test_the_decks_are_the_series_then_the_labs(tmp_path):
    for name in ("01_b.ipynb", "00_a.ipynb", "labs/z_lab.ipynb", "labs/a_lab.ipynb"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    assert [path.relative_to(tmp_path).as_posix() for path in build_slides.deck_notebooks(
        tmp_path)] == ["00_a.ipynb", "01_b.ipynb", "labs/a_lab.ipynb", "labs/z_lab.ipynb"]


def test_the_series_last_deck_names_the_opt_in_lab_next_and_the_lab_ends_the_walk(tmp_path):
    summary = cell("markdown", "## Summary: the point\n\n- the first point", "slide")
    for name, heading in (("10_a.ipynb", "# 10 · A"), ("11_b.ipynb", "# 11 · B"),
                          ("labs/x_lab.ipynb", "# Lab · X")):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        nbformat.write(nbformat.v4.new_notebook(cells=[cell("markdown", heading, "slide"),
                                                       summary]), tmp_path / name)
    closing = {name: deck.deck_of(tmp_path / name).cells[-1].source
               for name in ("10_a.ipynb", "11_b.ipynb", "labs/x_lab.ipynb")}
    assert closing["10_a.ipynb"].endswith("**Next:** 11 · B")
    assert closing["11_b.ipynb"].endswith("**Next:** Lab · X (opt-in)")
    assert closing["labs/x_lab.ipynb"].endswith("**The end of the series.**")

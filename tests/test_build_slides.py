"""tools/build_slides.py without a browser: what needs the network, and what is said without it."""

import nbformat
import pytest

from tools import build_slides, deck, servers

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
    assert shown == [("slide", "## The point", False), ("notes", "A long paragraph.", False),
                     ("notes", "More prose to say aloud.", False),
                     ("-", "A short line for the slide.", False)]


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

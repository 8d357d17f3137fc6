"""Presenter notes a lecturer can use (tools/publish/deck.py), in the order the speaker view shows
them.

A slide's notes are what the speaker view (key S) shows for it: the notes cells nbconvert puts into
that slide, grouped here by nbconvert's own slide preprocessor. Per deck, at least 90 % of the
slides that carry notes hold a cue (**Say:**, **Ask:**, **Pause:**, **Expect:**, **Do:**), every
presenter note (`> **Presenter notes.**`) holds one, no note says "run the next cell" (no code
shows in a deck), and the cues come before the lesson prose under "From the notebook:". No note
sits inside a fragment: there it would replace the slide's notes while the fragment is current.
"""

import re
from pathlib import Path

import nbformat
import pytest
from nbconvert.exporters.slides import _RevealMetadataPreprocessor

from tools.publish import deck

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CUE = re.compile(r"\*\*(?:Say|Ask|Pause|Expect|Do):\*\*")
RUN_THE_NEXT_CELL = re.compile(r"run\s+the\s+next\s+cell", re.I)
FROM = "From the notebook:"


def slides(nb: nbformat.NotebookNode) -> list[dict]:
    """The deck nb's slides as nbconvert's reveal exporter makes them: per slide (or sub-slide)
    its number ("h/v") and its notes, each as (source, inside a fragment)."""
    nb, _ = _RevealMetadataPreprocessor().preprocess(nb, {})
    found, h, v, in_fragment = [], 0, 0, False
    for cell in nb.cells:
        if cell.metadata.get("slide_start"):
            h, v = h + 1, 0
        if cell.metadata.get("subslide_start"):
            v += 1
            found.append({"slide": f"{h}/{v}", "notes": []})
            in_fragment = False
        in_fragment = in_fragment or bool(cell.metadata.get("fragment_start"))
        if cell.metadata.slide_type == "notes" and found:
            found[-1]["notes"].append((cell.source, in_fragment))
        elif cell.metadata.slide_type == "notes":
            found.append({"slide": "before the first slide", "notes": [(cell.source, False)]})
        in_fragment = in_fragment and not cell.metadata.get("fragment_end")
    return found


def cue_part(notes: list[tuple[str, bool]]) -> str:
    """A slide's notes up to "From the notebook:" (the presenter's part)."""
    return "\n\n".join(source for source, _ in notes).split(FROM)[0]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_notes_tell_the_presenter_what_to_say_ask_and_do(notebook: Path):
    noted = [s for s in slides(deck.deck_of(notebook)) if s["notes"]]
    without = [s["slide"] for s in noted if not CUE.search(cue_part(s["notes"]))]
    assert len(without) <= 0.1 * len(noted), (
        f"{len(without)} of the {len(noted)} slides with notes hold no cue (**Say:**, **Ask:**, "
        f"**Pause:**, **Expect:**, **Do:**): slides {without}")
    bare = [(s["slide"], source[:60]) for s in noted for source, _ in s["notes"]
            if source.lstrip().startswith(deck.PRESENTER) and not CUE.search(source)]
    assert bare == [], f"presenter notes without a cue: {bare}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_note_says_run_the_next_cell(notebook: Path):
    said = [(s["slide"], found[0]) for s in slides(deck.deck_of(notebook))
            for source, _ in s["notes"] if (found := RUN_THE_NEXT_CELL.search(source))]
    assert said == [], f"no code shows in a deck: {said}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_cues_come_first_and_the_lesson_prose_apart_under_one_line(notebook: Path):
    for s in slides(deck.deck_of(notebook)):
        sources = [source for source, _ in s["notes"]]
        text = "\n\n".join(sources)
        assert text.count(FROM) <= 1, f"slide {s['slide']}: {FROM!r} twice"
        if FROM in text:
            apart = next(i for i, source in enumerate(sources) if FROM in source)
            assert apart == len(sources) - 1, f"slide {s['slide']}: a note after the lesson prose"
            assert not CUE.search(text.split(FROM)[1]), f"slide {s['slide']}: a cue after {FROM!r}"
        inside = [source[:60] for source, in_fragment in s["notes"] if in_fragment]
        assert inside == [], f"slide {s['slide']}: notes inside a fragment: {inside}"
        assert s["slide"] != "before the first slide", sources


def md(source: str, slide: str = "-", tags=()) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata["slideshow"] = {"slide_type": slide}
    cell.metadata["tags"] = list(tags)
    return cell


def test_a_slides_cues_go_before_its_lesson_prose_and_out_of_its_fragments():
    cue, later_cue = "> **Presenter notes.** **Ask:** why?", "> **Presenter notes.** **Do:** x."
    nb = nbformat.v4.new_notebook(cells=[
        md(cue, "notes"),  # before the first cell that shows: it joins the first slide
        md("## One\n\nProse to move.", "slide", ["deck-notes"]),
        md("Shown."),
        md("Later, step by step.", "fragment"),
        md("More prose.", tags=["deck-notes"]),  # in the fragment, in the notebook
        md(later_cue, "notes"),
        md("## Two", "slide"),
        md("Only prose.", tags=["deck-notes"]),
    ])
    shown = [(deck.kind(c), c.source) for c in deck.deck_view(nb).cells]
    assert shown == [
        ("slide", "## One"), ("-", "Shown."), ("notes", cue), ("notes", later_cue),
        ("notes", "---\n\n**From the notebook:**\n\nProse to move.\n\nMore prose."),
        ("fragment", "Later, step by step."),
        ("slide", "## Two"), ("notes", "**From the notebook:**\n\nOnly prose."),
    ]
    found = slides(deck.deck_view(nb))
    assert [s["slide"] for s in found] == ["1/1", "2/1"]
    assert [in_fragment for s in found for _, in_fragment in s["notes"]] == [False] * 4


def test_the_checks_catch_notes_out_of_order():
    """What the checks above read: a cue after the lesson prose, and a note in a fragment."""
    nb = nbformat.v4.new_notebook(cells=[
        md("## One", "slide"), md("Step.", "fragment"),
        md("**From the notebook:**\n\nProse.", "notes"),
        md("> **Presenter notes.** **Say:** x", "notes")])
    (one,) = slides(nb)
    assert one["notes"][0][1] and one["notes"][1][1]  # both inside the fragment
    assert not CUE.search(cue_part(one["notes"]))  # the cue is after "From the notebook:"

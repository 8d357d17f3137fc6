"""The conventions every notebook keeps (CURRICULUM.md), checked on the committed files.

nbval re-runs each notebook and compares outputs; these tests check what nbval
does not: the series is complete, navigable, presentable and saved executed.
"""

import importlib
import json
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from tests.answers import is_exercise, placeholders
from tools.publish import deck

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SERIES = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
HARD_CODED = re.compile(r"print\(.*,\s*(True|False)\s*\)")  # print("claim:", True)
MAX_ASSERTS = 4
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}


def tags(cell: dict) -> set:
    return set(cell["metadata"].get("tags", []))


def load(name: str) -> dict:
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    return "".join(cell["source"])


def test_the_series_is_numbered_without_gaps():
    assert [name[:3] for name in SERIES] == [f"{i:02d}_" for i in range(len(SERIES))]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+", name) for name in SERIES), SERIES


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [name for name in SERIES if f"notebooks/{name}.ipynb" not in readme] == []


@pytest.fixture(params=SERIES)
def nb(request):
    path = NOTEBOOKS / f"{request.param}.ipynb"
    if not path.exists():
        pytest.fail(f"{path.name} is missing from notebooks/")
    return request.param, load(request.param)


def test_every_cell_has_slide_metadata(nb):
    name, notebook = nb
    missing = [i for i, c in enumerate(notebook["cells"])
               if c.get("metadata", {}).get("slideshow", {}).get("slide_type") not in SLIDE_TYPES]
    assert missing == [], f"{name}: cells without a slideshow.slide_type: {missing}"
    assert notebook["cells"][0]["metadata"]["slideshow"]["slide_type"] == "slide"


def test_opening_cell_has_title_goals_needs_and_navigation(nb):
    name, notebook = nb
    first = source(notebook["cells"][0])
    assert first.startswith(f"# {name[:2]}"), first[:40]
    for heading in ("What you will learn", "What you need"):
        assert heading in first, f"{name}: opening cell lacks '{heading}'"
    index = SERIES.index(name)
    neighbours = SERIES[max(index - 1, 0):index] + SERIES[index + 1:index + 2]
    if name != SERIES[0]:
        neighbours.append(SERIES[0])
    for other in neighbours:
        assert f"({other}.ipynb)" in first, f"{name}: opening cell does not link to {other}"


def test_every_link_to_a_notebook_resolves(nb):
    name, notebook = nb
    links = {m for c in notebook["cells"] if c["cell_type"] == "markdown"
             for m in re.findall(r"\]\(([^)#\s]+\.ipynb)", source(c))}
    broken = sorted(link for link in links if not (NOTEBOOKS / link).resolve().exists())
    assert broken == [], f"{name}: broken links {broken}"


def test_saved_after_restart_and_run_all(nb):
    name, notebook = nb
    counts = [c["execution_count"] for c in notebook["cells"]
              if c["cell_type"] == "code" and source(c).strip()]
    assert counts == list(range(1, len(counts) + 1)), f"{name}: execution counts {counts}"


def test_outputs_are_png_and_errors_are_deliberate(nb):
    name, notebook = nb
    for i, cell in enumerate(notebook["cells"]):
        for out in cell.get("outputs", []):
            assert "image/svg+xml" not in out.get("data", {}), f"{name} cell {i}: SVG output"
            if out["output_type"] == "error":
                assert "raises-exception" in tags(cell), f"{name} cell {i}: stored error"


def test_every_figure_has_a_text_description_under_it(nb):
    name, notebook = nb
    cells = notebook["cells"]
    for i, cell in enumerate(cells):
        figure = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        if figure and not {"nbval-ignore-output"} & set(cell["metadata"].get("tags", [])):
            after = next((c for c in cells[i + 1:] if c["cell_type"] == "markdown"), None)
            assert after is not None and source(after).lstrip().startswith("*Figure"), (
                f"{name} cell {i}: a figure without a '*Figure: …' description right under it"
            )


def test_few_cells_escape_output_comparison(nb):
    """Exercise cells are excused (their feedback depends on the answer); at most 3 others."""
    name, notebook = nb
    ignored = [i for i, c in enumerate(notebook["cells"])
               if "nbval-ignore-output" in tags(c) and "exercise" not in tags(c)]
    assert len(ignored) <= 3, f"{name}: {len(ignored)} cells tagged nbval-ignore-output: {ignored}"


def test_exercise_cells_are_excused_and_answered_by_the_solutions(nb):
    """An exercise cell leaves each answer as `name = ...` (or a `def` holding `...`), and
    solutions/nbNN_solutions.py defines the same name."""
    name, notebook = nb
    cells = [c for c in notebook["cells"] if is_exercise(c)]
    if name == SERIES[0]:
        assert cells == [], f"{name}: the door has no exercises"
        return
    assert cells, f"{name}: no cell tagged 'exercise'"
    solutions = importlib.import_module(f"solutions.nb{name[:2]}_solutions")
    for cell in cells:
        assert "nbval-ignore-output" in tags(cell), f"{name}: exercise cell not excused from nbval"
        answers = [answer for answer, _, _ in placeholders(source(cell))]
        assert answers, f"{name}: exercise cell without a `name = ...` answer: {source(cell)[:60]}"
        missing = [a for a in answers if not hasattr(solutions, a)]
        assert missing == [], f"{name}: answers missing from the solutions module: {missing}"


def test_no_hard_coded_results_and_few_asserts(nb):
    """Evidence is a measured output; an assert only where seeing it helps (a few per notebook)."""
    name, notebook = nb
    code = [source(c) for c in notebook["cells"] if c["cell_type"] == "code"]
    hard = [line for s in code for line in s.splitlines() if HARD_CODED.search(line)]
    assert hard == [], f"{name}: prints a fixed result: {hard}"
    asserts = sum(len(re.findall(r"^\s*assert ", s, re.M)) for s in code)
    assert asserts <= MAX_ASSERTS, f"{name}: {asserts} asserts (at most {MAX_ASSERTS})"


def test_ends_with_a_claim_a_summary_and_exercises(nb):
    name, notebook = nb
    text = [source(c) for c in notebook["cells"]]
    headings = [source(c) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    assert any(re.search(r"^#+ .*Summary", t, re.M) for t in headings), f"{name}: no Summary"
    if name != SERIES[0]:
        assert any(re.search(r"^#+ .*Exercise", t, re.M) for t in headings), f"{name}: no Exercises"
        assert any("posattn.exercises" in t for t in text), f"{name}: exercises do not self-check"


# A heading that names the kind of slide and nothing else ("Summary", "2 · Exercises", "The
# takeaway"): a room reads the heading first, so it states the slide's point ("Summary: attention
# alone is blind to order"), which also heads the deck's closing slide (deck.closing_slide).
GENERIC = re.compile(r"(?:\d+\s*·\s*)?(?:the\s+)?(?:summary|exercises?|takeaways?|conclusions?|"
                     r"recap|results?|overview|introduction|discussion)\W*", re.I)
# 06 is being rewritten on another branch (issue 43): its Summary and Exercises headings are
# bare there until that lands. Strict: once 06 states its points, this entry must go.
BARE_HEADINGS_PENDING: set[str] = set()


def generic_headings(notebook: dict) -> list[str]:
    """The headings of the cells a reader or a room sees that state no point."""
    shown = [source(c) for c in notebook["cells"] if c["cell_type"] == "markdown"
             and c["metadata"].get("slideshow", {}).get("slide_type") != "notes"]
    headings = [m[1].strip() for text in shown for m in re.finditer(r"^#{1,6} (.*)$", text, re.M)]
    return [h for h in headings if GENERIC.fullmatch(h.strip("*_ "))]


def test_generic_headings_are_found():
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in (
        "## Summary", "## 4 · Exercises", "### The takeaway:", "## **Summary**",
        "## Summary: attention alone is blind to order", "### Exercise 1: build $P$ by hand",
        "## Results over ten seeds")]
    cells.append({"cell_type": "markdown", "metadata": {"slideshow": {"slide_type": "notes"}},
                  "source": "## Summary"})
    assert generic_headings({"cells": cells}) == [
        "Summary", "4 · Exercises", "The takeaway:", "**Summary**"]


def test_every_heading_states_its_point(nb):
    """No heading is only "Summary", "Exercises" or "The takeaway" (issue 43 §2)."""
    name, notebook = nb
    bare = generic_headings(notebook)
    if name in BARE_HEADINGS_PENDING:
        if not bare:
            pytest.fail(f"{name} states its points now: take it out of BARE_HEADINGS_PENDING")
        pytest.xfail(f"{name}'s headings are rewritten on another branch: {bare}")
    assert bare == [], (f"{name}: headings that state no point: {bare}; say the slide's point "
                        "after the word, as in \"## Summary: attention alone is blind to order\"")


def test_presenter_notes_exist(nb):
    name, notebook = nb
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in notebook["cells"]]
    assert "notes" in kinds, f"{name}: no presenter notes"


def test_no_machine_paths_or_memory_addresses_in_outputs(nb):
    name, notebook = nb
    text = json.dumps([[c.get("outputs", []), source(c)] for c in notebook["cells"]])
    assert not re.search(r"/(work|home|root|tmp)/", text), f"{name}: a machine path in the notebook"
    assert not re.search(r" at 0x[0-9a-f]{6,}", text), f"{name}: a memory address in an output"


def reading_minutes(notebook: dict) -> float:
    """(markdown words + 2 × code words + printed words) / 150; presenter notes not counted."""
    words = 0
    for cell in notebook["cells"]:
        if cell["metadata"].get("slideshow", {}).get("slide_type") == "notes":
            continue
        weight = {"markdown": 1, "code": 2}.get(cell["cell_type"], 0)
        words += weight * len(source(cell).split())
        words += sum(len("".join(o.get("text", "")).split()) for o in cell.get("outputs", [])
                     if o.get("output_type") == "stream")
    return words / 150


SPEAKING_RATE = 130  # words a minute, said aloud to a room (reading_minutes reads at 150)
ASK_MINUTES = 1.0  # an **Ask:** with its **Expect:**: the question, a wait, answers, the answer
PAUSE_MINUTES = 0.5  # a **Pause:**: the room thinks, guesses or votes
EXERCISE_MINUTES = 5  # a lab's allowance per exercise cell (README: "A unit plan")
CUE = re.compile(r"\*\*(Say|Ask|Expect|Pause|Do):\*\*")
SPAN = re.compile(r"\b(a|one|two|three|four|five|ten|\d+) minutes?\b", re.I)
NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}


def lecture_minutes(notebook: "str | Path", slides: range | None = None) -> tuple[float, Counter]:
    """Minutes to present a notebook's deck (a name in notebooks/, or a path), or only its
    ``slides``, numbered from 1 as the deck numbers them (its closing slide last); and the cues
    counted on the way, by kind.

    A lecture is the deck tools/publish/deck.py makes of the notebook, said aloud: every word shown
    on a slide (its markdown, its printed output, the code of a `deck-code` cell counted twice, as
    reading_minutes counts code) and every word of its presenter notes (the lesson prose moved there
    included), at SPEAKING_RATE, 130 words a minute: lecturers speak at 120 to 150, slower over
    formulas and while a room reads a slide. The cues take time of their own:

    - **Ask:** ASK_MINUTES, 1 minute with its **Expect:**: the question, a wait, two or three
      answers, the expected one said. Their words are inside that minute, not counted again.
    - **Pause:** PAUSE_MINUTES, half a minute in which the room thinks or votes.
    - **Do:** as written: its words at the speaking rate (pointing at a cell or pressing Shuffle
      happens while it is said), plus the time it names, if it names one ("for about a minute",
      "give about ten minutes"); a Pause that names its time ("give the room a minute") takes it.
    - **Say:** its words at the speaking rate.
    """
    path = notebook if isinstance(notebook, Path) else NOTEBOOKS / f"{notebook}.ipynb"
    groups = deck.slides_of(deck.deck_of(path).cells)
    if slides is not None and not set(slides) <= set(range(1, len(groups) + 1)):
        raise ValueError(f"{path.stem} has slides 1–{len(groups)}; asked for {slides}")
    minutes, cues = 0.0, Counter()
    for number, group in enumerate(groups, start=1):
        if slides is not None and number not in slides:
            continue
        words = 0
        for cell in group:
            kind = deck.kind(cell)
            if kind == "skip":
                continue
            if cell.cell_type == "code":
                words += 2 * len(cell.source.split()) if deck.CODE in deck.tags(cell) else 0
                words += sum(len("".join(o.get("text", "")).split()) for o in cell.outputs
                             if o.get("output_type") == "stream")
                continue
            if kind != "notes":
                words += len(cell.source.split())
                continue
            text = "\n".join(line.lstrip("> ") for line in cell.source.splitlines())
            for label in ("**Presenter notes.**", deck.FROM_THE_NOTEBOOK, "---"):
                text = text.replace(label, " ")
            prose, *said = CUE.split(text)  # the prose, then each cue and what follows it
            words += len(prose.split())
            for cue, what in zip(said[::2], said[1::2], strict=True):
                cues[cue] += 1
                span = SPAN.search(what)  # a time the cue names, in minutes
                named = (NUMBERS.get(span[1].lower()) or int(span[1])) if span else 0
                if cue == "Ask":
                    minutes += ASK_MINUTES
                elif cue == "Pause":
                    minutes += named or PAUSE_MINUTES
                elif cue in ("Say", "Do"):
                    words += len(what.split())
                    minutes += named if cue == "Do" else 0
        minutes += words / SPEAKING_RATE
    return minutes, cues


def summary_slide(name: str) -> int:
    """The number of the slide that holds the notebook's Summary: a lecture stops there, and
    the exercises after it are for the lab."""
    groups = deck.slides_of(deck.deck_of(NOTEBOOKS / f"{name}.ipynb").cells)
    return next(number for number, group in enumerate(groups, start=1)
                if any(cell.cell_type == "markdown" and re.search(r"^#+ .*Summary", cell.source,
                                                                   re.M) for cell in group))


def exercises(name: str) -> int:
    return sum(is_exercise(cell) for cell in load(name)["cells"])


def test_lecture_minutes_counts_words_at_the_speaking_rate_and_cues_by_their_time(tmp_path):
    """The estimate itself, on a deck whose answer is known: 130 shown and spoken words make
    a minute, an Ask one more, a Pause half, a Do its words and the time it names."""
    def cell(kind, text, slide="-", tags=()):
        made = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(text)
        made.metadata.update(slideshow={"slide_type": slide}, tags=list(tags))
        return made

    code = cell("code", "x = 1\nprint(x)", tags=["deck-code"])  # 4 words, counted twice
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="one two\n")]
    hidden = cell("code", "y = 2  # hidden: no words")
    nb = nbformat.v4.new_notebook(cells=[
        cell("md", "# 00 · Title " + "word " * 96, "slide"),  # 100 words
        cell("md", "> **Presenter notes.**\n>\n> **Say:** " + "said " * 20 + "\n>\n> **Ask:** "
             "why? **Expect:** because.\n>\n> **Pause:** think.", "notes"),  # 20 words, 1.5 min
        cell("md", "## Two\n\n" + "shown " * 8, "slide"), code, hidden,  # 10 + 8 + 2 words
        cell("md", "> **Presenter notes.**\n>\n> **Do:** for about two minutes, shuffle.",
             "notes"),  # 5 words, 2 minutes
        cell("md", "## Summary\n\n- done", "slide"),
    ])
    path = tmp_path / "00_t.ipynb"
    nbformat.write(nb, path)
    first, cues = lecture_minutes(path, range(1, 2))
    assert first == pytest.approx(120 / 130 + 1.5) and cues == Counter(Say=1, Ask=1, Expect=1,
                                                                       Pause=1)
    second, cues = lecture_minutes(path, range(2, 3))
    assert second == pytest.approx(25 / 130 + 2) and cues == Counter(Do=1)
    whole, _ = lecture_minutes(path)  # with the summary and the closing slide
    assert whole > first + second
    with pytest.raises(ValueError, match="slides 1–4"):
        lecture_minutes(path, range(1, 6))


def test_reading_time_fits_a_course():
    """Budgets (CURRICULUM.md): each notebook ≤ 20 min, up to the explorer ≤ 60, all ≤ 175."""
    minutes = {name: reading_minutes(load(name)) for name in SERIES}
    long = {name: round(m) for name, m in minutes.items() if m > 20}
    assert long == {}, f"notebooks over 20 minutes: {long}"
    explorer = next(i for i, name in enumerate(SERIES) if name.endswith("dog_bites_man_explorer"))
    assert sum(list(minutes.values())[:explorer + 1]) <= 60, minutes
    assert sum(minutes.values()) <= 175, minutes


def test_the_minutes_the_series_states_are_the_minutes_it_measures():
    """00's route, the README's table and their totals say each notebook's reading time as this
    file's reading_minutes computes it, rounded: one number, computed, never typed twice."""
    minutes = {name[:2]: reading_minutes(load(name)) for name in SERIES}
    explorer = round(sum(m for number, m in minutes.items() if number <= "05"))
    door = "\n".join(source(c) for c in load(SERIES[0])["cells"] if c["cell_type"] == "markdown")
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    for where, text in (("00", door), ("README", readme)):
        rows = dict(re.findall(r"^\| (\d\d) \| \[.*\| (\d+) \|$", text, re.M))
        assert rows == {n: str(round(m)) for n, m in minutes.items()}, where
    assert re.search(rf"\(00–05, about {explorer} minutes\)", door)
    assert re.search(rf"about {round(sum(minutes.values()))} in all", door)
    assert (f"Up to the explorer: {explorer} minutes; the whole series: "
            f"{round(sum(minutes.values()))} minutes") in readme


def test_the_45_minute_lecture_fits_45_minutes_with_its_cues():
    """The README's 45-minute lecture names slide ranges that end at each deck's summary, and
    states the minutes and cues lecture_minutes computes for them: at most 45 (CURRICULUM.md)."""
    readme = " ".join((NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"For a 45-minute lecture: (.+?), each up to its summary \(.*?\): about "
                      r"(\d+) minutes with their (\d+) Asks and (\d+) Pauses", readme)
    assert found, "the README states no 45-minute lecture"
    parts = re.findall(r"(\d\d) \(slides (\d+)–(\d+)\)", found[1])
    assert len(parts) >= 3, found[1]
    names = {name[:2]: name for name in SERIES}
    minutes, cues = 0.0, Counter()
    for number, first, last in parts:
        assert (int(first), int(last)) == (1, summary_slide(names[number])), (number, first, last)
        m, c = lecture_minutes(names[number], range(int(first), int(last) + 1))
        minutes, cues = minutes + m, cues + c
    assert minutes <= 45, f"the 45-minute lecture takes {minutes:.1f} minutes"
    assert found.group(2, 3, 4) == (str(round(minutes)), str(cues["Ask"]), str(cues["Pause"]))


def test_the_unit_plan_states_the_minutes_it_takes():
    """The README's unit plan: each lecture is decks up to their summaries, timed by
    lecture_minutes, in a 45-minute slot; each lab is notebooks read (reading_minutes) with
    EXERCISE_MINUTES per exercise, in a 90-minute slot; every notebook is worked in a lab, every
    exercise counted once; each number and the totals are recomputed here."""
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (Lecture|Lab) \d \| ([\d, ]+) \| (\d+) \| (.*) \|$", readme, re.M)
    assert rows, "the README has no unit plan"
    names = {name[:2]: name for name in SERIES}
    stated, worked = {"Lecture": [], "Lab": []}, []
    for kind, numbers, minutes, how in rows:
        books = [names[number] for number in numbers.split(", ")]
        if kind == "Lecture":
            spent = sum(lecture_minutes(name, range(1, summary_slide(name) + 1))[0]
                        for name in books)
            assert spent <= 45, f"lecture {numbers}: {spent:.1f} minutes"
        else:
            reading, tasks = sum(reading_minutes(load(name)) for name in books), sum(
                exercises(name) for name in books)
            spent = reading + EXERCISE_MINUTES * tasks
            assert how == f"reading {round(reading)} + {tasks} exercises × {EXERCISE_MINUTES}", how
            assert spent <= 90, f"lab {numbers}: {spent:.1f} minutes"
            worked += books
        assert minutes == str(round(spent)), (kind, numbers, minutes, round(spent, 1))
        stated[kind].append(int(minutes))
    assert sorted(worked) == SERIES, f"notebooks worked in the labs: {worked}"
    total = sum(stated["Lecture"]) + sum(stated["Lab"])
    assert (f"In all: {len(stated['Lecture'])} lectures ({sum(stated['Lecture'])} minutes), "
            f"{len(stated['Lab'])} labs ({sum(stated['Lab'])} minutes), "
            f"{sum(exercises(name) for name in SERIES)} exercises: {total} minutes, about "
            f"{total / 60:.1f} hours") in " ".join(readme.split())


NOTES_LABEL = "> **Presenter notes.**"


def test_presenter_notes_look_like_presenter_notes(nb):
    """A student reading in JupyterLab sees a notes cell as an aside for the presenter: it opens
    with the label and sits in a quote block, line by line."""
    name, notebook = nb
    for i, cell in enumerate(notebook["cells"]):
        if cell["metadata"]["slideshow"]["slide_type"] != "notes":
            continue
        text = source(cell)
        assert text.startswith(NOTES_LABEL), f"{name} cell {i}: notes without {NOTES_LABEL!r}"
        bare = [line for line in text.splitlines() if line.strip() and not line.startswith(">")]
        assert bare == [], f"{name} cell {i}: notes lines outside the quote block: {bare[:2]}"


def test_every_exercise_cell_imports_its_own_checker(nb):
    """Each exercise cell runs on its own after the set-up cell: it imports the checker it calls."""
    name, notebook = nb
    module = f"nb{name[:2]}"
    for i, cell in enumerate(notebook["cells"]):
        text = source(cell)
        if is_exercise(cell) and f"{module}." in text:
            assert f"from posattn.exercises import {module}" in text, (
                f"{name} cell {i}: calls {module}.… without importing it")


def test_the_glossary_is_linked_from_the_door_and_defines_its_terms():
    glossary = NOTEBOOKS / "glossary.md"
    assert glossary.is_file(), "notebooks/glossary.md is missing"
    assert "(glossary.md)" in source(load(SERIES[0])["cells"][0]), "00 does not link the glossary"
    terms = re.findall(r"^\*\*(.+?)\*\*", glossary.read_text(encoding="utf-8"), re.M)
    needed = ["GELU", "[CLS]", "BERT", "LayerNorm", "BatchNorm", "inductive bias", "Deep Sets",
              "LSTM", "⊙", "dilation", "convolution", "ALiBi", "cross-entropy", "logits", "Adam",
              "autograd", "np.einsum",
              # notebook 11's, and the PyTorch lab's (notebooks/labs/torch_bridge.ipynb)
              "rope_theta", "YaRN", "NTK", "position interpolation", "partial RoPE",
              "decoupled RoPE", "interleaved and halves", "positional head", "sliding window",
              "scaled_dot_product_attention", "attn_mask", "key_padding_mask", "is_causal",
              "nn.MultiheadAttention", "float32", "PyTorch"]
    missing = [t for t in needed if not any(t.lower() in term.lower() for term in terms)]
    assert missing == [], f"glossary lacks {missing}"


# The opt-in labs (notebooks/labs/: the PyTorch bridge, make test-torch) keep the conventions
# every notebook keeps, outside the numbered walk; a lab's checker is posattn.exercises.NAME and
# its solutions solutions/NAME_solutions.py.
LABS = sorted((NOTEBOOKS / "labs").glob("*.ipynb"))
LAB_CHECKS = [test_every_cell_has_slide_metadata, test_saved_after_restart_and_run_all,
              test_outputs_are_png_and_errors_are_deliberate,
              test_every_figure_has_a_text_description_under_it,
              test_few_cells_escape_output_comparison, test_no_hard_coded_results_and_few_asserts,
              test_presenter_notes_exist, test_no_machine_paths_or_memory_addresses_in_outputs,
              test_presenter_notes_look_like_presenter_notes, test_every_heading_states_its_point,
              test_ends_with_a_claim_a_summary_and_exercises]


@pytest.mark.parametrize("check", LAB_CHECKS, ids=lambda check: check.__name__[5:])
@pytest.mark.parametrize("path", LABS, ids=lambda path: path.stem)
def test_a_lab_keeps_the_conventions_of_every_notebook(path, check):
    check((f"labs/{path.stem}", json.loads(path.read_text(encoding="utf-8"))))


@pytest.mark.parametrize("path", LABS, ids=lambda path: path.stem)
def test_a_lab_opens_with_goals_needs_and_links_that_resolve(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = source(cells[0])
    assert first.startswith("# Lab · "), first[:40]
    for heading in ("What you will learn", "What you need", "(../00_start_here.ipynb)"):
        assert heading in first, f"{path.name}: opening cell lacks '{heading}'"
    links = {m for c in cells if c["cell_type"] == "markdown"
             for m in re.findall(r"\]\(([^)#\s]+\.ipynb)", source(c))}
    broken = sorted(link for link in links if not (path.parent / link).resolve().exists())
    assert broken == [], f"{path.name}: broken links {broken}"
    assert any(re.search(r"^#+ .*Summary", source(c), re.M) for c in cells), path.name


@pytest.mark.parametrize("path", LABS, ids=lambda path: path.stem)
def test_a_labs_exercises_import_their_checker_and_are_answered_by_the_solutions(path):
    """As test_exercise_cells_are_excused_and_answered_by_the_solutions, for a lab: each
    exercise cell imports posattn.exercises.NAME itself, is excused from nbval, and
    solutions/NAME_solutions.py defines every answer it leaves as `...`."""
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if is_exercise(c)]
    assert cells, f"{path.name}: no cell tagged 'exercise'"
    solutions = importlib.import_module(f"solutions.{path.stem}_solutions")
    for cell in cells:
        assert "nbval-ignore-output" in tags(cell), f"{path.name}: exercise cell not excused"
        assert f"from posattn.exercises import {path.stem}" in source(cell), source(cell)[:60]
        answers = [answer for answer, _, _ in placeholders(source(cell))]
        assert answers and all(hasattr(solutions, a) for a in answers), (path.name, answers)


@pytest.mark.parametrize("path", LABS, ids=lambda path: path.stem)
def test_a_lab_reads_within_the_budget_and_the_readme_says_its_minutes(path):
    """A lab is in the series' walk (issue 42): a row of the README's table, "| lab | [title]
    (notebooks/labs/NAME.ipynb)… | minutes |", its minutes as reading_minutes computes them, at
    most 20 like every notebook's, and the total line says them."""
    minutes = reading_minutes(json.loads(path.read_text(encoding="utf-8")))
    assert minutes <= 20, f"{path.name}: {minutes:.1f} reading minutes (at most 20)"
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| lab \| \[[^\]]+\]\(notebooks/labs/{re.escape(path.name)}\)[^\n]*"
                    r"\| (\d+) \|$", readme, re.M)
    assert row, f"the README's table has no row for {path.name}"
    assert row[1] == str(round(minutes)), (path.name, row[1], round(minutes, 1))
    if len(LABS) == 1:
        assert f"; the opt-in lab, {round(minutes)} more." in readme


def test_the_default_nbval_run_leaves_the_labs_out():
    """`make test` runs in .venv, which has no PyTorch: nbval there must not collect a lab."""
    assert LABS, "notebooks/labs/ holds no lab"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        config = pytest.Config.fromdictargs({}, [])  # pyproject.toml's [tool.pytest.ini_options]
        skipped = config.getini("norecursedirs")
    assert any(Path("notebooks/labs").match(pattern) for pattern in skipped), skipped

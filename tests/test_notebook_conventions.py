"""The conventions every notebook keeps (CURRICULUM.md), checked on the committed files.

nbval re-runs each notebook and compares outputs; these tests check what nbval
does not: the series is complete, navigable, presentable and saved executed.
"""

import importlib
import json
import re
from pathlib import Path

import pytest

from tests.answers import is_exercise, placeholders

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


def test_reading_time_fits_a_course():
    """Budgets (CURRICULUM.md): each notebook ≤ 20 min, up to the explorer ≤ 75, all ≤ 155."""
    minutes = {name: reading_minutes(load(name)) for name in SERIES}
    long = {name: round(m) for name, m in minutes.items() if m > 20}
    assert long == {}, f"notebooks over 20 minutes: {long}"
    explorer = next(i for i, name in enumerate(SERIES) if name.endswith("dog_bites_man_explorer"))
    assert sum(list(minutes.values())[:explorer + 1]) <= 75, minutes
    assert sum(minutes.values()) <= 155, minutes


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


def test_the_45_minute_lecture_fits_45_minutes_with_time_for_questions():
    readme = " ".join((NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8").split())
    path = re.search(r"For a 45-minute lecture: ([\d, and]+) \(", readme)
    numbers = re.findall(r"\d\d", path[1])
    minutes = {name[:2]: reading_minutes(load(name)) for name in SERIES}
    assert len(numbers) >= 3 and sum(minutes[n] for n in numbers) <= 40, numbers  # CURRICULUM.md
    assert re.search(rf"about {round(sum(minutes[n] for n in numbers))} minutes", readme)


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
              "autograd", "np.einsum"]
    missing = [t for t in needed if not any(t.lower() in term.lower() for term in terms)]
    assert missing == [], f"glossary lacks {missing}"

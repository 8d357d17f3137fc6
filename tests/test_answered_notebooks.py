"""A student who answers every exercise still gets a green `make test` (issue 10 §3).

nbval runs each notebook once. Right after each exercise cell, in the same kernel, it runs the
cell's answered copy (its placeholders replaced by the answers in ``solutions/``), which must
say "✅ Right", and the cells after it must still match their stored outputs: see
tests/answers.py, wired in by tests/conftest.py. These tests check that wiring.
"""

from nbval.plugin import IPyNbCell

from tests.answers import WITH_EXERCISES, is_exercise


def test_there_are_exercises_to_answer():
    assert len(WITH_EXERCISES) >= 8, [p.name for p in WITH_EXERCISES]


def test_every_exercise_is_followed_by_its_answered_copy_in_the_same_run(request):
    cells = [item for item in request.session.items if isinstance(item, IPyNbCell)]
    exercises = [item for item in cells if is_exercise(item.cell)
                 and not item.name.endswith(" answered")]
    assert exercises  # tests/answers.py collects the notebooks when the session has none
    for item in exercises:
        after = cells[cells.index(item) + 1]
        assert (after.name, after.parent) == (f"{item.name} answered", item.parent)
        assert "from solutions.nb" in after.cell.source and "..." not in after.cell.source

"""Notebook 09 §6's setup grid: accuracy at the longest rows against training steps and width.

    python -m tools.run.setup_grid            (re-make src/posattn/experiments/setup_grid.json)

A trained result is a result of its setup. For each scheme (and no positions) and each task of
``ex.length_curves``, one model per held-out seed (``ex.HELD_OUT``, never used to tune the
recipe) is trained at every number of steps in STEPS and every width in WIDTHS, on rows of 2–8
words as in notebook 09, and tested as notebook 09 tests (200 new rows of each length of
CURVE_LENGTHS, so the 100-step, width-12 column is the notebook's own); LENGTHS are stored.
The grid is too large to train in a notebook (about four minutes on one core), so it is stored
with the package and read by ``ex.setup_grid()``; tests/test_setup_grid.py trains cells of it
again and compares them with the stored numbers, so the file cannot drift from the code. Run it
after changing the training recipe, the tasks or a scheme, then re-run notebook 09.
"""

import json
import re
from pathlib import Path

from posattn import SCHEMES
from posattn import experiments as ex

OUT = Path(ex.__file__).with_name("setup_grid.json")
STEPS = (100, 200, 400, 800)
WIDTHS = (8, 12, 24)
LENGTHS = (8, 16, 32)  # stored of the test lengths; the rows are drawn for all of CURVE_LENGTHS
LABELS = ("none", *SCHEMES)  # "none": no positions


def cell(label: str, task: str, steps: int, width: int) -> dict[int, list[float]]:
    """One setup: {length: accuracy per held-out seed} at each of LENGTHS."""
    result = ex.length_curves(None if label == "none" else label, task, seeds=ex.HELD_OUT,
                              steps=steps, width=width)  # test_lens: CURVE_LENGTHS
    return {n: result["test_accuracy"][n] for n in LENGTHS}


def main() -> None:
    accuracy = {task: {label: {f"{steps},{width}": {str(n): a for n, a in
                                                    cell(label, task, steps, width).items()}
                               for steps in STEPS for width in WIDTHS}
                       for label in LABELS}
                for task in ex.TASKS}
    grid = {"seeds": list(ex.HELD_OUT), "steps": list(STEPS), "widths": list(WIDTHS),
            "lengths": list(LENGTHS), "train_max_len": 8, "accuracy": accuracy}
    write_grid(grid, OUT)


def write_grid(grid: dict, out: Path) -> None:
    """A stored grid as JSON, each list on one line, and where it went."""
    text = json.dumps(grid, indent=1)
    text = re.sub(r"\[[^\[\]{}]*\]", lambda m: " ".join(m[0].split()), text)  # a list a line
    out.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out.name}")


if __name__ == "__main__":
    main()

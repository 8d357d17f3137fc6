"""Notebook 11's stored result: a trained RoPE model on longer rows, under each method.

    python -m tools.run.context_grid          (re-make src/posattn/experiments/context_grid.json)

For each task of ``ex.TASKS``, one RoPE model per seed of 0–29 (the tuning seeds ``ex.SEEDS`` and
the held-out ``ex.HELD_OUT``) is trained as notebook 09 trains (rows of 2–8 words, 100 steps,
width 12), then tested on 200 new rows of each length of LENGTHS with the frequencies of each
method (``ex.context_extension``), YaRN with each ramp of RAMPS. Thirty seeds on two tasks take
longer than a notebook may, so the result is stored and read by ``ex.context_grid()``;
tests/test_context_grid.py trains seeds of it again and compares them with the stored numbers.
Run it after changing the training recipe, the tasks, RoPE or a method, then re-run notebook 11.
"""

from pathlib import Path

from posattn import experiments as ex
from tools.run.setup_grid import write_grid

OUT = Path(ex.__file__).with_name("context_grid.json")
LENGTHS = (8, 16, 32)
RAMPS = ((1.0, 32.0), (1.0, 4.0), (0.5, 4.0), (0.5, 2.0), (0.25, 2.0))  # the paper's first
SEEDS = [*ex.SEEDS, *ex.HELD_OUT]


def cell(task: str, seeds=SEEDS) -> dict:
    """One task: train_accuracy and test_accuracy {label: {length: per seed}}."""
    return ex.context_extension(task, seeds=seeds, test_lens=LENGTHS, ramps=RAMPS)


def main() -> None:
    results = {task: cell(task) for task in ex.TASKS}
    grid = {"seeds": SEEDS, "tuning": list(ex.SEEDS), "held_out": list(ex.HELD_OUT),
            "lengths": list(LENGTHS), "ramps": [list(r) for r in RAMPS], "train_max_len": 8,
            "train_accuracy": {task: r["train_accuracy"] for task, r in results.items()},
            "accuracy": {task: {label: {str(n): a for n, a in by_length.items()}
                                for label, by_length in r["test_accuracy"].items()}
                         for task, r in results.items()}}
    write_grid(grid, OUT)


if __name__ == "__main__":
    main()

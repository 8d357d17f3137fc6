"""`make notebooks`: restart-and-run-all in place with nbconvert, widget state kept, no timings."""

import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def test_make_notebooks_runs_in_place_keeping_widget_state_and_no_timing(tmp_path):
    path = tmp_path / "widget.ipynb"
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "language": "python",
                                                           "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(7)"),
                nbformat.v4.new_code_cell("print(6 * 7)")]
    nbformat.write(nb, path)
    make = ["make", "--no-print-directory", "-o", ".venv/.installed", "notebooks",
            f"BIN={Path(sys.executable).parent}", f"NBS={path}"]  # this environment's jupyter
    subprocess.run(make, cwd=ROOT, check=True, capture_output=True, timeout=300)
    ran = nbformat.read(path, as_version=4)
    assert ran.cells[1].outputs[0].text == "42\n"
    state = ran.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    sliders = [m["state"] for m in state.values() if m["model_name"] == "IntSliderModel"]
    assert [slider["value"] for slider in sliders] == [7]
    assert [cell.metadata for cell in ran.cells] == [{}, {}]  # no "execution" timings

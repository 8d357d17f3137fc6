"""Click to new pixels in JupyterLab: the explorer's Shuffle against swapping a ready PNG.

    python -m benchmarks.bench_explorer_browser [--rounds 21]     (from the repository's root)

One private JupyterLab server (as the browser tests start it), one headless Chromium, one notebook
holding three buttons, each of which puts a new picture into an ``ipywidgets.Image``:
- explorer: the explorer's Shuffle (attention, blitted figure, PNG, status line, Y table);
- png swap: the floor, two PNGs of the explorer's own figure made beforehand, swapped on click;
- naive: a new ``plotting.attention_pair`` figure drawn per click, sent as a PNG.
Each click is timed in the page in two ways, both from the click:
- first frame: polled on every animation frame, until the first frame whose img holds the new
  picture (its source changed and the image is complete);
- painted: until the img's source changed, ``decode()`` resolved and two animation frames passed.
Rounds interleave the three. Target: explorer at most 2.5× the PNG swap, by either measure.
"""

import argparse
import os
import statistics
import tempfile
from pathlib import Path

import nbformat

from tools.run.lab_driver import launch_chromium, open_notebook, run_all, serving

TARGET = 2.5
SETUP = '''\
import ipywidgets as widgets
import matplotlib.pyplot as plt
from posattn import plotting
from posattn.explorer import ShuffleExplorer
from posattn.explorer.figure import png
from posattn.explorer.model import compute_view

explorer = ShuffleExplorer("dog bites man", seed=0)
pictures = [bytes(explorer.image.value)]
explorer.shuffle_button.click()
pictures.append(bytes(explorer.image.value))
orders = [[2, 1, 0], [1, 2, 0]]


def button_and_image(name, on_click):
    button, image = widgets.Button(description=name), widgets.Image(value=pictures[0], format="png")
    button.add_class(f"bench-{name}")
    image.add_class(f"bench-{name}-image")
    button.on_click(lambda _: on_click(image))
    return widgets.VBox([button, image])


def swap(image):
    pictures.reverse()
    image.value = pictures[0]


def naive(image):
    orders.reverse()
    view = compute_view(explorer.tokens, orders[0])
    figure = plotting.attention_pair(view.A, view.labels, view.A_shuffled, view.shuffled_labels)
    figure.canvas.draw()
    image.value = png(figure.canvas)
    plt.close(figure)


widgets.VBox([explorer, button_and_image("swap", swap), button_and_image("naive", naive)])
'''
# The time from a click to the new picture on screen, measured in the page.
CLICK = """async ([button, picture]) => {
  const img = document.querySelector(picture), before = img.src, start = performance.now();
  const changed = new Promise(done => new MutationObserver((_, observer) => {
    if (img.src !== before) { observer.disconnect(); done(); }
  }).observe(img, {attributes: true, attributeFilter: ["src"]}));
  document.querySelector(button).click();
  await changed;
  await img.decode();
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return performance.now() - start;
}"""
# The first animation frame whose img holds the new picture, polled from the click.
FIRST_FRAME = """async ([button, picture]) => {
  const img = document.querySelector(picture), before = img.src, start = performance.now();
  document.querySelector(button).click();
  return await new Promise(done => {
    const poll = now => (img.src !== before && img.complete) ? done(now - start)
                                                             : requestAnimationFrame(poll);
    requestAnimationFrame(poll);
  });
}"""
MEASURES = {"first frame": FIRST_FRAME, "painted": CLICK}
SIDES = {"explorer": ("button.pp-shuffle", "img.pp-figure"),
         "png swap": ("button.bench-swap", "img.bench-swap-image"),
         "naive": ("button.bench-naive", "img.bench-naive-image")}


class Folders:
    """The one method of pytest's tmp_path_factory that tools.run.lab_driver.serving uses."""

    def __init__(self, root: Path):
        self.root = root

    def mktemp(self, name: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.root))


def measure(page, rounds: int) -> dict[tuple[str, str], list[float]]:
    times = {(how, side): [] for how in MEASURES for side in SIDES}
    for round_ in range(rounds + 1):  # round 0 warms up
        order = list(SIDES) if round_ % 2 else list(SIDES)[::-1]
        for how, script in MEASURES.items():
            for side in order:
                elapsed = page.evaluate(script, list(SIDES[side]))
                if round_:
                    times[how, side].append(elapsed)
                page.wait_for_timeout(150)  # let the kernel settle between clicks
    return times


def main(rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as home, serving("lab", Folders(Path(home))) as lab:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
        nbformat.write(nb, lab["root"] / "bench_explorer_browser.ipynb")
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 2400})
            open_notebook(page, lab, "bench_explorer_browser.ipynb")
            run_all(page)
            page.locator("img.bench-naive-image").wait_for(state="visible", timeout=60_000)
            times = measure(page, rounds)
            browser.close()
    median = {key: statistics.median(t) for key, t in times.items()}
    print(f"click to new pixels in JupyterLab, median of {rounds} clicks each, interleaved "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; on a busy machine "
          "the explorer's drawing waits for a core and the ratios grow):")
    for how in MEASURES:
        swap = median[how, "png swap"]
        print(f"  {how}:")
        for side in SIDES:
            t = median[how, side]
            print(f"    {side:9s} {t:7.1f} ms   ({t / swap:.1f}× the PNG swap)")
        verdict = "met" if median[how, "explorer"] <= TARGET * swap else "NOT met"
        print(f"    target: explorer ≤ {TARGET}× the PNG swap: {verdict}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    main(parser.parse_args().rounds)

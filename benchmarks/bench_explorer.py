"""How long one click of the "dog bites man" explorer takes, measured in one run on the same data.

    python benchmarks/bench_explorer.py

For n = 3 and n = 12 words, the time from a new order to new PNG bytes, as medians over repeats:
- explorer: ``ShuffleExplorer``, order set on its control (attention, blitted update, PNG, status
  line and Y table: the whole click);
- naive: a new ``plotting.attention_pair`` figure drawn per click (plus the same attention and PNG);
- floor: one full redraw of the explorer's own, unchanged figure to PNG.
Then the PNG alone: the explorer's writer (``figure.png``) against Pillow's encoder at its fastest
level, on the same pixels; and the n = 3 click with its texts stamped (``figure.StampedText``)
against the same click with matplotlib's plain Text, and with no stamp cached (every text drawn
afresh, as for words and values not seen before). Prints the ratios; absolute times are noisy on a
shared machine.
"""

import io
import statistics
import time
from functools import partial

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from posattn import plotting  # noqa: E402
from posattn.explorer import ShuffleExplorer  # noqa: E402
from posattn.explorer.figure import StampedText, _image_of, png  # noqa: E402
from posattn.explorer.model import compute_view, format_order  # noqa: E402

SENTENCES = {3: "dog bites man", 12: "the quick brown fox jumps over a lazy dog near my house"}


def medians(approaches: dict, repeats: int) -> dict:
    """Median time of each approach; rounds interleave them so machine load hits all alike."""
    times = {name: [] for name in approaches}
    for f in approaches.values():
        f()  # warm up: font caches, first layout
    for _ in range(repeats):
        for name, f in approaches.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def orders(n: int):
    """Two orders to alternate between, so every click changes what is shown."""
    return [list(range(n))[::-1], list(range(1, n)) + [0]]


def explorer_click(explorer: ShuffleExplorer, n: int):
    cycle = [format_order(p) for p in orders(n)]

    def click():
        cycle.reverse()
        explorer.order.value = cycle[0]
    return click


def naive_click(tokens: list[str], n: int):
    cycle = orders(n)

    def click():
        cycle.reverse()
        view = compute_view(tokens, cycle[0])
        figure = plotting.attention_pair(view.A, view.labels, view.A_shuffled, view.shuffled_labels)
        figure.canvas.draw()
        png(figure.canvas)
        plt.close(figure)
    return click


def floor_redraw(explorer: ShuffleExplorer):
    def redraw():
        explorer.figure.canvas.draw()
        png(explorer.figure.canvas)
    return redraw


def pillow_png(canvas) -> bytes:
    """The same picture through Pillow's PNG encoder at its fastest level (zlib level 1)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).convert("RGB").save(
        buffer, "png", compress_level=1)
    return buffer.getvalue()


def main(repeats: int = 21) -> None:
    plt.style.use(plotting.STYLE)
    print(f"median of {repeats} clicks, to PNG bytes   explorer     naive     floor"
          "   naive/explorer  explorer/floor")
    for n, sentence in SENTENCES.items():
        explorer = ShuffleExplorer(sentence)
        approaches = {"explorer": explorer_click(explorer, n),
                      "naive": naive_click(explorer.tokens, n), "floor": floor_redraw(explorer)}
        t = medians(approaches, repeats)
        ours, naive, floor = t["explorer"], t["naive"], t["floor"]
        print(f"n = {n:2d} {'':29s} {ours * 1e3:7.1f} ms {naive * 1e3:6.1f} ms "
              f"{floor * 1e3:6.1f} ms {naive / ours:12.1f}×  {ours / floor:12.2f}×")
        explorer.close()
    compare_png_writers(repeats)
    compare_text_drawing(repeats)


def compare_png_writers(repeats: int) -> None:
    """The n = 3 figure to PNG bytes: the explorer's ``png`` against Pillow, on the same pixels."""
    explorer = ShuffleExplorer(SENTENCES[3])
    canvas = explorer.figure.canvas
    t = medians({"ours": partial(png, canvas), "pillow": partial(pillow_png, canvas)}, repeats)
    print(f"PNG of the n = 3 figure, median of {repeats}: png {t['ours'] * 1e3:.1f} ms, Pillow "
          f"{t['pillow'] * 1e3:.1f} ms ({t['pillow'] / t['ours']:.1f}× png's time)")
    explorer.close()


def compare_text_drawing(repeats: int) -> None:
    """The n = 3 click: texts stamped and cached; stamped with nothing cached; plain Text."""
    stamped, plain = ShuffleExplorer(SENTENCES[3]), ShuffleExplorer(SENTENCES[3])
    for text in plain.figure.findobj(StampedText):  # the yardstick: every text drawn each time
        text.__class__ = Text
    click = explorer_click(stamped, 3)

    def cold():
        _image_of.cache_clear()
        click()
    t = medians({"stamped": click, "cold": cold, "plain": explorer_click(plain, 3)}, repeats)
    print(f"n = 3 click, median of {repeats}: texts stamped {t['stamped'] * 1e3:.1f} ms, plain "
          f"Text {t['plain'] * 1e3:.1f} ms ({t['plain'] / t['stamped']:.1f}× stamped), stamped "
          f"with nothing cached {t['cold'] * 1e3:.1f} ms ({t['cold'] / t['plain']:.1f}× plain)")
    stamped.close()
    plain.close()


if __name__ == "__main__":
    main()

"""The explorer's StampedText (issue 43 §3, click to pixels): a text drawn once and then put down
as an image must show the pixels matplotlib's own Text draws with its anchor on the nearest whole
pixel, in every colour, size and alignment, and fall back to the Text's drawing where it cannot."""

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

from posattn.explorer import ShuffleExplorer
from posattn.explorer.figure import StampedText

# the same strings in two colours and two sizes: an image cached for one is never shown for another
CASES = [("0.52", "black", 18, "center", "center"), ("0.52", "white", 18, "center", "center"),
         ("0.52", "black", 15, "center", "center"), (".07", "#21918c", 18, "center", "center"),
         ("bites", "0.2", 18, "right", "center"), ("man′", "black", 18, "center", "bottom"),
         ("Wq", (1.0, 0.0, 0.0, 0.5), 18, "left", "baseline"),
         ("WWW — jumps", "black", 40, "right", "top")]  # wide glyphs, large: none cut off
ANCHORS = [(150.0, 100.0), (150.3, 99.8), (149.7, 100.4)]  # whole, then nearest (150, 100) again


def drawn(cls, text, colour, size, ha, va, at, background="#7ad151", **properties):
    """The pixels of one text drawn on a 3 × 2 inch canvas, its anchor at display point ``at``."""
    figure = Figure(figsize=(3, 2), dpi=100)
    figure.patch.set_facecolor(background)
    FigureCanvasAgg(figure)
    figure.add_artist(cls(*at, text, color=colour, fontsize=size, ha=ha, va=va,
                          transform=IdentityTransform(), **properties))
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba()).copy()


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1]}-{case[2]}")
@pytest.mark.parametrize("at", ANCHORS)
def test_a_stamped_text_has_the_pixels_of_the_text_at_the_nearest_whole_pixel(case, at):
    whole = (150, 100)  # every anchor here is nearest to it
    expected = drawn(Text, *case, whole)
    assert (expected[..., :3] != drawn(Text, *case, whole, background="white")[..., :3]).any()
    np.testing.assert_array_equal(drawn(StampedText, *case, at), expected)


@pytest.mark.parametrize("properties", [{"rotation": 90}, {"alpha": 0.5},
                                        {"bbox": {"facecolor": "white"}}, {"parse_math": True}])
def test_what_a_stamp_cannot_show_is_drawn_by_the_text_itself(properties):
    text = "$x_1$" if "parse_math" in properties else "0.52"  # math: drawn as math, not stamped
    case = (text, "black", 18, "center", "center")
    np.testing.assert_array_equal(drawn(StampedText, *case, (150.3, 99.8), **properties),
                                  drawn(Text, *case, (150.3, 99.8), **properties))


def test_the_explorers_values_and_words_are_stamped():
    explorer = ShuffleExplorer("dog bites man", seed=0)
    for ax in explorer.figure.axes[:2]:
        texts = [*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels()]
        assert len(texts) == 9 + 3 + 3
        assert all(isinstance(text, StampedText) for text in texts)
    explorer.close()


def test_a_text_of_only_spaces_puts_nothing_down():
    case = ("   ", "black", 18, "center", "center")
    blank = drawn(Text, "", *case[1:], (150, 100))
    np.testing.assert_array_equal(drawn(StampedText, *case, (150.3, 99.8)), blank)

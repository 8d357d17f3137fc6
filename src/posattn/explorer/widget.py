"""The "dog bites man" explorer: shuffle a sentence and watch A' = P A Pᵀ (ipywidgets).

Controls in display and Tab order, then the status line, the A | A' figure, the figure in words
and Y | Y'; CSS classes ``pp-<name>`` are the browser tests' handles.
"""

from base64 import b64encode
from html import escape

import numpy as np

from .._checks import check_int, check_perm
from .._extras import needs_extra
from . import model

try:
    import IPython
    import ipywidgets as widgets

    from .figure import TITLES, ExplorerFigure, fonts_for
except ModuleNotFoundError as missing:  # `pip install .` brings numpy only
    raise needs_extra("widgets", "posattn.explorer", missing) from None


def css(name: str) -> dict:
    return {"_dom_classes": [f"pp-{name}"]}


def _close_tree(widget: widgets.Widget) -> None:
    """Close a widget, its children, and its layout and style (widgets of their own)."""
    for child in getattr(widget, "children", ()):
        _close_tree(child)
    for part in (getattr(widget, "layout", None), getattr(widget, "style", None)):
        if isinstance(part, widgets.Widget):
            part.close()
    widgets.Widget.close(widget)


_MADE_BY_CELL: dict[str, tuple[str, list]] = {}  # cell id -> (its last run, the explorers it made)


def _replaces_earlier_run(explorer) -> None:
    """A notebook cell run again closes the explorers its earlier run made, so re-running it stays
    flat. JupyterLab and Notebook 7 send the cell's id with each run (``cellId`` in the request's
    metadata); nbclient 0.11 (nbconvert, nbval) sends none, and then nothing is closed here."""
    kernel = getattr(IPython.get_ipython(), "kernel", None)
    request = (kernel.get_parent() if kernel is not None else None) or {}
    cell, run = request.get("metadata", {}).get("cellId"), request.get("header", {}).get("msg_id")
    if cell is None:
        return
    earlier_run, made = _MADE_BY_CELL.get(cell, (run, []))
    if earlier_run != run:  # the cell runs again: its earlier explorers go
        for old in made:
            old.close()
        made = []
    _MADE_BY_CELL[cell] = (run, [*made, explorer])


def outputs_table(view: model.View) -> str:
    """Y and Y' side by side as HTML tables, rows labelled by token: the same rows, moved."""
    def table(title: str, labels, Y: np.ndarray) -> str:
        rows = "".join(f"<tr><th>{escape(t)}</th>" + "".join(f"<td>{v:.2f}</td>" for v in row + 0.0)
                       + "</tr>" for t, row in zip(labels, Y.round(2), strict=True))
        return f"<table class='pp-table'><caption>{title}</caption>{rows}</table>"

    return (f"<div style='display:flex;gap:2em'>{table('Y, original order', view.labels, view.Y)}"
            f"{table('Y′, shuffled order', view.shuffled_labels, view.Y_shuffled)}</div>")


class ShuffleExplorer(widgets.VBox):
    """Type a sentence, reorder it, and compare the attention of both orders side by side.

    Controls: ``.text``, ``.scheme`` ("none" or a scheme), ``.order`` (text like ``"2 0 1"``),
    ``.shuffle_button``, ``.reset_button``, ``.unshuffle``. State: ``.view`` (A, A', Y, Y', the
    errors), ``.perm`` (π), ``.tokens``, ``.figure`` (Axes 0: A, 1: A'), ``.status``.

    ``order`` is the order shown first (indices like ``[2, 1, 0]`` or text like ``"2 1 0"``;
    default: the sentence's own). Displayed, it also sends a still picture of the figure, which a
    page where no kernel runs (a static book or deck, GitHub) shows instead of dead controls.

    >>> explorer = ShuffleExplorer("dog bites man", seed=0, order=[2, 1, 0])
    >>> explorer.status.value.startswith("A' = P A Pᵀ for π = (2, 1, 0)")
    True
    >>> explorer.close()
    """

    def __init__(self, sentence: str = "dog bites man", seed: int | None = 0,
                 order: str | list[int] | None = None):
        tokens = model.parse_sentence(sentence)  # bad arguments raise here, before anything exists
        fonts_for(model.labels(tokens))  # a word no installed font can draw
        if order is not None:
            order = (model.parse_order(order, len(tokens)) if isinstance(order, str)
                     else check_perm(order, len(tokens), name="order"))
        seed = None if seed is None else check_int("seed", seed, minimum=0)
        self._rng = np.random.default_rng(seed)  # None: fresh orders; a seed: the same each run
        super().__init__()
        self._busy = False  # True while the explorer itself writes to its controls
        self._plot = ExplorerFigure()
        self.figure = self._plot.figure
        self.text = widgets.Text(value=sentence, description="Sentence", continuous_update=False,
                                 layout={"width": "28em"}, **css("sentence"),
                                 tooltip=f"2 to {model.MAX_WORDS} words; press Enter to apply")
        self.scheme = widgets.Dropdown(description="Positions", options=("none", *model.NAMES),
                                       **css("scheme"))  # "none": scheme=None
        self.order = widgets.Combobox(description="Order π", ensure_option=False,
                                      placeholder="e.g. 2 0 1", continuous_update=False,
                                      tooltip="Each position 0 … n−1 once; press Enter",
                                      **css("order"))
        self.shuffle_button = widgets.Button(description="Shuffle", icon="random", **css("shuffle"))
        self.reset_button = widgets.Button(description="Reset", icon="undo", **css("reset"))
        # the label at its own width (a fixed-width checkbox cut it: "un-shuffle view: show Pᵀ…")
        self.unshuffle = widgets.Checkbox(indent=False, description="un-shuffle view: show Pᵀ A' P",
                                          layout={"width": "auto"}, **css("unshuffle"))
        self.status, self.caption, self.outputs = (widgets.HTML(**css(name)) for name in
                                                    ("status", "caption", "outputs"))
        self.image = widgets.Image(format="png", layout={"max_width": "100%"}, **css("figure"))
        self.children = [widgets.HBox([self.text, self.scheme]),
                         widgets.HBox([self.order, self.shuffle_button, self.reset_button,
                                       self.unshuffle], layout={"flex_flow": "row wrap"}),
                         self.status, self.image, self.caption, self.outputs]
        self._sentence = sentence  # the text of the sentence on screen
        self._draw(model.compute_view(tokens, order))
        self.text.observe(lambda change: self._on(change["new"], None), names="value")
        for control in (self.scheme, self.unshuffle):
            control.observe(lambda _: self._on(self.view.tokens, self.view.perm), names="value")
        self.order.observe(lambda change: self._on(self.view.tokens, change["new"]), names="value")
        self.shuffle_button.on_click(lambda _: self.shuffle())
        self.reset_button.on_click(lambda _: self._on(self.view.tokens, None))  # π = identity
        _replaces_earlier_run(self)

    def __repr__(self) -> str:  # deterministic text/plain for notebooks; the scheme as listed
        return (f"ShuffleExplorer(tokens={self.tokens}, perm={self.perm.tolist()}, "
                f"scheme={self.scheme.value!r})")

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live view, and the figure as a PNG for pages with no widget renderer: Jupyter
        draws the view, a static page (tools/publish/build_book.py, tools/publish/build_slides.py)
        the picture."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.image.value:
            bundle["image/png"] = b64encode(self.image.value).decode("ascii")
        return bundle

    def shuffle(self) -> None:
        """A new random order, never the one on screen (seeded, so a lesson replays)."""
        self._check_open()
        perm = self.view.perm
        while (perm == self.view.perm).all():
            perm = self._rng.permutation(perm.size)
        self._on(self.view.tokens, perm)

    def _check_open(self) -> None:
        if self._plot.figure is None:
            raise ValueError("the explorer must be open to change; got one that was closed "
                             "(close() let go of its figure). Make a new one: "
                             "ShuffleExplorer('dog bites man').")

    def _on(self, tokens, perm) -> None:
        """Show the next view, or say why the input cannot be used and keep the last one, the
        controls included: the boxes go back to the sentence and order on screen."""
        if self._busy:
            return
        self._check_open()
        typed = tokens if isinstance(tokens, str) else None
        try:
            tokens = model.parse_sentence(tokens) if typed is not None else list(tokens)
            perm = model.parse_order(perm, len(tokens)) if isinstance(perm, str) else perm
            scheme = None if self.scheme.value in ("none", None) else self.scheme.value
            fonts_for(model.labels(tokens))
            view = model.compute_view(tokens, perm, scheme)
        except (TypeError, ValueError) as error:
            self.status.value = escape(model.error_line(error, self.view), quote=False)
            self._show_controls(self.view)
            return
        if typed is not None:
            self._sentence = typed
        self._draw(view)

    def _show_controls(self, view: model.View) -> None:
        """The sentence, order and scheme of view in their controls, without them firing back."""
        self._busy = True
        try:
            self.text.value = self._sentence
            self.order.options = model.order_options(view.tokens)  # unchanged: nothing is sent
            self.order.value = model.format_order(view.perm)
            self.scheme.value = view.scheme or "none"  # never blank, even after value = None
        finally:
            self._busy = False

    def _draw(self, view: model.View) -> None:
        """Show ``view``: figure, caption, controls (without them firing back), status, outputs."""
        back = self.unshuffle.value
        A2, labels2 = ((view.A_put_back, view.labels) if back
                       else (view.A_shuffled, view.shuffled_labels))
        titles = (TITLES[0], TITLES[2 if back else 1])
        heading = "no positions" if view.scheme is None else f"positions: {view.scheme!r}"
        self.image.value = self._plot.update(view.A, view.labels, A2, labels2, titles, heading)
        self.caption.value = escape(f"Figure ({heading}), left: {titles[0]}, rows and columns "
                                    f"{', '.join(view.labels)}. Right: {titles[1]}, rows and "
                                    f"columns {', '.join(labels2)}.", quote=False)
        self.view, self.tokens, self.perm = view, list(view.tokens), view.perm.copy()
        self._show_controls(view)
        self.status.value = escape(model.status_line(view), quote=False)
        self.outputs.value = outputs_table(view)

    def close(self) -> None:
        """Release the figure, its canvas and the picture's bytes, and close every widget of the
        explorer (its views leave the page). What is left is small, wherever it is still held
        (IPython's output history ``Out`` keeps what a cell returned)."""
        if self.comm is None:  # closed already (ipywidgets also calls close when collecting)
            return
        _close_tree(self)
        self._plot.close()
        self.figure, self.image.value = None, b""  # closed: the new value is sent nowhere

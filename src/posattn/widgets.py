"""The "dog bites man" explorer: shuffle a sentence and watch A' = P A Pᵀ (ipywidgets).

Controls, in display and Tab order: the sentence, the positional scheme, the
order π (a list of every order up to 4 words, a typed field such as ``2 0 1``
beyond), Shuffle (seeded), Reset, the un-shuffle view. Below: the status line,
the A | A' figure (a PNG of one persistent matplotlib Figure) and Y | Y'.
Bad input puts a message in the status line and keeps the last good state.

The rules live in :mod:`posattn.explorer_state`, the figure in :mod:`posattn.explorer_figure`.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from . import explorer_state as state
from .explorer_figure import TITLES, ExplorerFigure


class ShuffleExplorer(widgets.VBox):
    """Type a sentence, reorder it, and compare the attention of both orders side by side.

    Controls: ``.text``, ``.scheme`` (values: ``posattn.SCHEMES``), ``.order``, ``.shuffle_button``,
    ``.reset_button``, ``.unshuffle``. ``.order`` is the order control on screen, and its ``.value``
    is always text like ``"2 0 1"``: a Dropdown of every order up to 4 words (labels add the
    reordered sentence), a Text field (Enter applies) beyond; the explorer swaps them itself.
    State: ``.perm`` is π (the shuffled tokens are ``tokens[perm]``), ``.tokens``, ``.view``
    (A, A', Y, Y' and the measured errors), ``.figure`` (Axes 0: A, Axes 1: A'), ``.status``.

    >>> explorer = ShuffleExplorer("dog bites man", seed=0)
    >>> explorer.order.value = "2 1 0"
    >>> explorer.status.value.startswith("A' = P A Pᵀ for π = (2, 1, 0)")
    True
    """

    def __init__(self, sentence: str = "dog bites man", seed: int = 0):
        super().__init__()
        self._rng = np.random.default_rng(seed)  # the same clicks replay the same orders
        self._busy = False  # True while the explorer itself writes to its controls
        self._plot = ExplorerFigure()
        self._build_controls()
        self._style()
        tokens = state.parse_sentence(sentence)  # a bad argument raises here, before anything is shown
        self.text.value = sentence
        self.view = state.compute_view(tokens, np.arange(len(tokens)), self.scheme.value)
        self._controls = widgets.HBox([self.order, self.shuffle_button, self.reset_button, self.unshuffle])
        self.children = [widgets.HBox([self.text, self.scheme]), self._controls, self.status, self.image, self.caption,
                         self.outputs]
        self._draw(self.view)
        self._connect()

    def _build_controls(self) -> None:
        self.text = widgets.Text(value="", description="Sentence", continuous_update=False,
                                 tooltip=f"2 to {state.MAX_WORDS} different words; press Enter to apply")
        self.scheme = widgets.Dropdown(options=state.SCHEMES, value="none", description="Positions",
                                       tooltip="How position enters attention ('none' = plain self-attention)")
        self._order_list = widgets.Dropdown(description="Order π", tooltip="Every order of the words")
        self._order_field = widgets.Text(description="Order π", placeholder="e.g. 2 0 1", continuous_update=False,
                                         tooltip="Each position 0 … n−1 once, separated by spaces; press Enter")
        self.shuffle_button = widgets.Button(description="Shuffle", icon="random", tooltip="A new random order (seeded)")
        self.reset_button = widgets.Button(description="Reset", icon="undo", tooltip="Back to the original order")
        self.unshuffle = widgets.Checkbox(description="un-shuffle view: show Pᵀ A' P", indent=False,
                                          tooltip="Put A' back in the original order to compare it with A")
        self.status = widgets.HTML()
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.caption = widgets.HTML()  # the figure in words, for readers who cannot see it
        self.outputs = widgets.HTML()

    @property
    def order(self) -> widgets.Dropdown | widgets.Text:
        """The order control on screen: the Dropdown for ≤ 4 words, else the Text field."""
        return self._order_list if len(self.view.tokens) <= state.MAX_LISTED else self._order_field

    @property
    def perm(self) -> np.ndarray:
        return self.view.perm.copy()

    @property
    def tokens(self) -> list[str]:
        return list(self.view.tokens)

    @property
    def figure(self):
        return self._plot.figure

    def __repr__(self) -> str:  # deterministic text/plain for notebooks
        return f"ShuffleExplorer(tokens={self.tokens}, perm={self.perm.tolist()}, scheme={self.view.scheme!r})"

    def _style(self) -> None:
        for control, name in ((self.text, "sentence"), (self.scheme, "scheme"), (self._order_list, "order"),
                              (self._order_field, "order"), (self.shuffle_button, "shuffle"),
                              (self.reset_button, "reset"), (self.unshuffle, "unshuffle"),
                              (self.status, "status"), (self.image, "figure"), (self.caption, "caption"),
                              (self.outputs, "outputs")):
            control.add_class(f"pp-{name}")
        self.text.layout.width = "28em"

    def _connect(self) -> None:
        self.text.observe(lambda change: self._on_sentence(change["new"]), names="value")
        self.scheme.observe(lambda change: self._guarded(self.view.tokens, self.view.perm), names="value")
        self.unshuffle.observe(lambda change: self._draw(self.view), names="value")
        for control in (self._order_list, self._order_field):
            control.observe(lambda change: self._on_order(change["new"]), names="value")
        self.shuffle_button.on_click(lambda _: self.shuffle())
        self.reset_button.on_click(lambda _: self.reset())

    def shuffle(self) -> None:
        """A new random order, never the one on screen (seeded, so a lesson replays)."""
        n = len(self.view.tokens)
        perm = self._rng.permutation(n)
        while (perm == self.view.perm).all():
            perm = self._rng.permutation(n)
        self._guarded(self.view.tokens, perm)

    def reset(self) -> None:
        """Back to the original order, π = identity."""
        self._guarded(self.view.tokens, np.arange(len(self.view.tokens)))

    def _on_sentence(self, text: str) -> None:
        if not self._busy:
            self._guarded(text, None)

    def _on_order(self, text: str) -> None:
        if not self._busy:
            self._guarded(self.view.tokens, text)

    def _guarded(self, tokens, perm) -> None:
        """Compute the next view; a refused input becomes a message and nothing else changes."""
        try:
            tokens = state.parse_sentence(tokens) if isinstance(tokens, str) else list(tokens)
            perm = np.arange(len(tokens)) if perm is None else perm
            perm = state.parse_order(perm, len(tokens)) if isinstance(perm, str) else perm
            view = state.compute_view(tokens, perm, self.scheme.value)
        except ValueError as error:
            self.status.value = html.escape(state.error_line(error, self.view), quote=False)
            return
        self._draw(view)

    def _draw(self, view: state.View) -> None:
        """Show ``view``: figure, controls, status line and outputs."""
        back = self.unshuffle.value
        A2, labels2 = (view.A_put_back, view.tokens) if back else (view.A_shuffled, view.shuffled_tokens)
        where = "" if view.scheme == "none" else f", {view.scheme!r} positions"
        titles = (f"A (original order{where})", TITLES[2] if back else f"A' (shuffled{where})")
        self.image.value = self._plot.update(view.A, view.tokens, A2, labels2, titles)
        self.caption.value = html.escape(f"Figure, left: {titles[0]}, rows and columns {', '.join(view.tokens)}. "
                                         f"Right: {titles[1]}, rows and columns {', '.join(labels2)}.", quote=False)
        self.view = view
        self._sync_order(view)
        self.status.value = html.escape(state.status_line(view), quote=False)
        self.outputs.value = state.outputs_table(view)
        if self._controls.children[0] is not self.order:  # crossing 4 words swaps list and field
            self._controls.children = (self.order, *self._controls.children[1:])

    def _sync_order(self, view: state.View) -> None:
        """Make the order control show π without it firing back."""
        self._busy = True
        try:
            if len(view.tokens) <= state.MAX_LISTED:
                options = state.order_options(view.tokens)
                if self._order_list.options != tuple(options):
                    self._order_list.options = options
            self.order.value = state.format_order(view.perm)
        finally:
            self._busy = False

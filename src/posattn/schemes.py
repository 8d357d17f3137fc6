"""The positional schemes: one object each, in one registry.

A scheme puts position back in one or more of three places (notebook 04): the input, X + E_p;
the queries and keys, q_i and k_j turned by their positions; or the scores, a mask and a bias B.
Each scheme is one object that holds what varies from scheme to scheme, side by side: its
options and their checks (the door), its change at each place (the forward), and its trainable
part with that part's gradient (the backward, beside its forward, as in micrograd). Attention,
the trained models of ``experiments``, the explorer and the plots ask the registry; none of
them names a scheme. No positions at all is ``scheme=None``, the base :class:`Scheme`.

Adding a scheme is one class here, registered with ``@_register``, and its row in
tests/test_schemes.py, which checks every registered scheme's gradient, symmetry and door.
"""

import math

import numpy as np

from ._checks import (
    as_matrix,
    check_even,
    check_number,
    check_projections,
    finite_result,
    quiet_overflow,
    shown,
)
from .attention import _attention, _project
from .positions import (
    LEARNED_ROWS,
    RELATIVE_CLIP,
    _alibi_bias,
    _causal_mask,
    _check_length,
    _check_relative,
    _learned_table,
    _relative_bias,
    _relative_entries,
    _relative_table,
    _sinusoids,
    _table_rows,
)
from .rope import _rotate, _rotate_halves

REGISTRY: dict = {}  # every scheme by name, in the order defined below: what a scheme= may name
SCHEMES: dict = {}  # the series' own schemes (all but those with series = False): its tables


def _one_hot(index, size: int):
    """(..., size): 1.0 where the last axis equals index, 0.0 elsewhere."""
    return (np.asarray(index)[..., None] == np.arange(size)).astype(np.float64)


class Scheme:
    """No positions: Q, K, V = X W_Q, X W_K, X W_V, no mask, no bias. Every scheme's base.

    A scheme changes some of the three places below; the others stay as they are here. The
    trained models of ``experiments`` stack S seeds: their arrays are (S, B, n, ·), and a
    trained table is given with an axis for the B sequences, (S, 1, …).
    """

    name: str | None = None  # None: no positions
    options: tuple[str, ...] = ()  # the keyword options of attention_with_positions
    trained = False  # True: the option "table" is the scheme's trainable part
    series = True  # one of the series' own schemes (SCHEMES), compared in its tables
    remedies: tuple[str, ...] = ()  # the remedies of experiments.REMEDIES that move its positions

    def check(self, options: dict, n: int, d: int, d_k: int) -> dict:
        """The door: the options' values, checked for X (n, d) and queries of length d_k."""
        return dict(options)

    def check_trained(self, params: dict, n: int, d: int, d_k: int):
        """The door of a trained model's weights (one seed's): its checked table, or None."""
        return None

    # ---- the forward pass, place by place --------------------------------------------------

    def input(self, X, p, **options):
        """The rows attention reads: X itself."""
        return X

    def turn(self, Z, p):
        """The queries or keys Z, as they are."""
        return Z

    def scores(self, n: int, **options):
        """The mask and the bias B on the (n, n) scores: none."""
        return None, None

    def forward(self, X, W_Q, W_K, W_V, p, **options):
        """X' = X + E_p;  Q, K, V = X' W_Q, X' W_K, X' W_V;  q_i, k_j turned by p;  mask, B.

        p: the positions of X's n rows, 0 … n − 1 by default; a trained model may give others.
        """
        X = self.input(X, p, **options)  # (..., n, d)
        Q, K, V = _project(X, W_Q, W_K, W_V)  # (..., n, d) @ (d, d_k) -> (..., n, d_k)
        mask, bias = self.scores(X.shape[-2], **options)  # (n, n) each, or None
        return X, self.turn(Q, p), self.turn(K, p), V, mask, bias

    def __call__(self, X, W_Q, W_K, W_V, **options):
        """Q, K, V, mask and B for attention, at the positions 0 … n − 1 of X (..., n, d)."""
        return self.forward(X, W_Q, W_K, W_V, np.arange(X.shape[-2]), **options)[1:]

    # ---- the trainable part and the backward pass ------------------------------------------

    def init(self, rng, max_len: int, d: int):
        """One seed's trainable table at the start: none."""
        return None

    def turn_back(self, dZ, p):
        """∂L/∂Z from ∂L/∂(Z turned): nothing was turned."""
        return dZ

    def gradient(self, dX, dS, p, table):
        """∂L/∂table from ∂L/∂X' (S, B, n, d) and ∂L/∂S (S, B, n, n): no table."""
        return None


def _register(cls):
    """Add one scheme to the registry (and to SCHEMES, unless it says series = False)."""
    scheme = cls()
    REGISTRY[scheme.name] = scheme
    if scheme.series:
        SCHEMES[scheme.name] = scheme
    return cls


@_register
class Sinusoidal(Scheme):
    """X + E with E[p, 2i] = sin(p ω_i), E[p, 2i+1] = cos(p ω_i): added to the input."""

    name = "sinusoidal"
    remedies = ("randomized",)  # random positions in training (Ruoss et al. 2023)

    def input(self, X, p):
        """X + E_p, at positions p: any real numbers, (n,) or one set per sequence."""
        return X + _sinusoids(p, X.shape[-1])  # (..., n, d)


@_register
class Learned(Scheme):
    """X + E with E = rows 0 … n − 1 of a (max_len, d) table: added to the input.

    ``table`` defaults to the fixed random one of :func:`learned_positions`; pass a trained one.
    """

    name = "learned"
    options = ("table",)
    trained = True
    remedies = ("randomized",)  # every row of the table trained (Ruoss et al. 2023)

    def check(self, options, n, d, d_k):
        checked, table = dict(options), options.get("table")
        if table is not None:
            checked["table"] = as_matrix("table", table, ("max_len", d), f" to match X's {d} "
                                         "features")
        _check_length(n, LEARNED_ROWS if table is None else np.shape(checked["table"])[0])
        return checked

    def check_trained(self, params, n, d, d_k):
        table = as_matrix("params['table']", params["table"], ("max_len", d), f" to match X's "
                          f"{d} features")
        if n > len(table):
            raise ValueError(f"sentence must have at most {len(table)} words, the rows of the "
                             f"learned table in params; got {n} words. A learned table knows no "
                             "position it never saw: use a shorter sentence.")
        return table

    def input(self, X, p, table=None):
        """X + E_p, E_p row p of the table E: whole numbers p below its length."""
        E = _learned_table(LEARNED_ROWS, X.shape[-1]) if table is None else table  # (max_len, d)
        return X + _table_rows(E, p)

    def init(self, rng, max_len, d):
        """The spread of learned_positions; rows never used get no gradient."""
        return rng.normal(0.0, 1.0 / math.sqrt(2.0), (max_len, d))  # (max_len, d)

    def gradient(self, dX, dS, p, table):
        """∂L/∂E_r = Σ of ∂L/∂X' over every word at position r: (S, max_len, d)."""
        S, d = len(dX), dX.shape[-1]
        at = _one_hot(np.broadcast_to(p, dX.shape[:-1]), table.shape[-2])  # (S, B, n, max_len)
        return at.reshape(S, -1, at.shape[-1]).swapaxes(-1, -2) @ dX.reshape(S, -1, d)


@_register
class Rope(Scheme):
    """q_i, k_j turned by the angles i·ω and j·ω (RoPE): the score q_i·k_j sees i − j only."""

    name = "rope"
    remedies = ("interpolation",)  # positions squeezed into the trained range (Chen et al. 2023)

    def check(self, options, n, d, d_k):
        check_even("W_Q", d_k, " (q and k are turned pair by pair)")
        return dict(options)

    def check_trained(self, params, n, d, d_k):
        check_even("params['W_Q']", d_k, " (q and k are turned pair by pair)")

    def turn(self, Z, p):
        """[z'_2i, z'_2i+1] = R(p ω_i) [z_2i, z_2i+1]: each pair turned by its position's angle."""
        return _rotate(Z, p)

    def turn_back(self, dZ, p):
        """A turn by p is undone by the turn by −p, its transpose."""
        return self.turn(dZ, -p)


@_register
class Alibi(Scheme):
    """S_ij − m·(i − j) on keys j ≤ i, with the causal mask: the paper's ALiBi.

    Press et al. 2022, "Train Short, Test Long": a penalty that grows with the distance
    back to each earlier key, designed so that a model trained on short sequences keeps
    working on longer ones (length extrapolation).
    """

    name = "alibi"
    options = ("slope",)

    def check(self, options, n, d, d_k):
        checked = dict(options)
        if "slope" in options:
            checked["slope"] = check_number("slope", options["slope"], above=0.0)
        return checked

    def scores(self, n, slope=0.5):
        return _causal_mask(n), _alibi_bias(n, slope)  # B = −m·(i − j) where j ≤ i


@_register
class AlibiSymmetric(Alibi):
    """S_ij − m·|i − j| on every key, no mask: sees distances, not direction (blind to reversal)."""

    name = "alibi_symmetric"

    def scores(self, n, slope=0.5):
        return None, _alibi_bias(n, slope)


@_register
class Causal(Scheme):
    """α_ij = 0 for j > i (S_ij = −inf): token i sees itself and earlier tokens only."""

    name = "causal"

    def scores(self, n):
        return _causal_mask(n), None


@_register
class Relative(Scheme):
    """S_ij + b[clip(j − i, −k, k)]: a learned number per offset j − i, clipped at ±k.

    In the spirit of Shaw et al. 2018 (who learn a vector per clipped offset, on the keys'
    and the values' side) and of T5 (Raffel et al. 2020: a number per bucket of offsets, on
    the scores). ``table`` b holds 2k + 1 numbers, for the offsets −k … k (default: a fixed
    random one, standing in for a trained one); ``max_distance`` is k (default: from the
    table's length, else RELATIVE_CLIP). Every offset of +k or more gets the end entry b[2k],
    every offset of −k or less b[0]: the blind spot. No buckets here: one entry per offset.
    """

    name = "relative"
    options = ("table", "max_distance")
    trained = True

    def check(self, options, n, d, d_k):
        checked = dict(options)
        table, k = _check_relative(options.get("table"), options.get("max_distance"))
        checked.update({"table": table} if "table" in options else {})
        checked.update({"max_distance": k} if "max_distance" in options else {})
        return checked

    def check_trained(self, params, n, d, d_k):
        return as_matrix("params['table']", params["table"], (2 * RELATIVE_CLIP + 1,),
                         f", one bias per offset −{RELATIVE_CLIP} … {RELATIVE_CLIP}")

    def scores(self, n, table=None, max_distance=None):
        k = max_distance if max_distance is not None else (
            RELATIVE_CLIP if table is None else (np.shape(table)[-1] - 1) // 2)
        b = _relative_table(k) if table is None else table  # (2k + 1,)
        return None, _relative_bias(n, b, k)

    def init(self, rng, max_len, d):
        """One bias per offset −k … k (k = RELATIVE_CLIP), the spread of the scores at the start."""
        return rng.normal(0.0, 1.0 / math.sqrt(d), 2 * RELATIVE_CLIP + 1)  # (2k + 1,)

    def gradient(self, dX, dS, p, table):
        """∂L/∂b_o = Σ of ∂L/∂S_ij over every score at offset o: (S, 2k + 1)."""
        (S, _, n, _), k = dS.shape, (table.shape[-1] - 1) // 2
        entries = _relative_entries(n, k).ravel()  # (n·n,)
        return dS.sum(axis=1).reshape(S, n * n) @ _one_hot(entries, 2 * k + 1)


@_register
class RopeHalves(Rope):
    """q_i, k_j turned by i·ω and j·ω, coordinate m paired with m + d_k/2: RoPE as Llama codes it.

    Su et al. 2021 (RoFormer) turn neighbours, the pairs (z_2i, z_2i+1): "rope". The code of
    GPT-NeoX and Llama (their ``rotate_half``) pairs z_m with z_m+d_k/2 instead: the first half
    of a query with its second. The angles are the same, so the score still sees i − j only;
    the two are one turn with the columns reordered (evens first, then odds), so weights
    trained in one layout work in the other only once W_Q's and W_K's columns are reordered.
    """

    name = "rope_halves"
    series = False  # a layout used in practice, not one of the series' schemes

    def turn(self, Z, p):
        """[z'_m, z'_m+h] = R(p ω_m) [z_m, z_m+h], h = d_k/2: the halves turned pair by pair."""
        return _rotate_halves(Z, p)


NO_POSITIONS = Scheme()  # scheme=None


def _scheme_of(name) -> Scheme:
    """The scheme object of a name the door has let in (None: no positions)."""
    return NO_POSITIONS if name is None else REGISTRY[name]


def _check_scheme(scheme, options: dict) -> Scheme:
    """The scheme's object (NO_POSITIONS for None), once its name and options' names are checked."""
    if scheme is not None and (not isinstance(scheme, str) or scheme not in REGISTRY):
        raise ValueError(f"scheme must be one of {', '.join(map(repr, REGISTRY))}, or None for "
                         f"no positions; got {shown(scheme)}.")
    allowed = _scheme_of(scheme).options
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"options for scheme {scheme!r} must be among ({', '.join(allowed)}); "
                        f"got {', '.join(unknown)}.")
    return _scheme_of(scheme)


def _with_positions(X, W_Q, W_K, W_V, scheme=None, **options):
    """Y, A = attention(Q, K, V, mask, B), the scheme making Q, K, V, mask and B (None: none)."""
    return _attention(*_scheme_of(scheme)(X, W_Q, W_K, W_V, **options))  # Q, K, V, mask, bias


def attention_with_positions(X, W_Q, W_K, W_V, scheme: str | None = None,
                             **options) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention with position put back by one scheme from :data:`SCHEMES`.

    ``scheme=None`` is exactly :func:`self_attention`; ``options`` go to the scheme
    (``table=`` for "learned", ``slope=`` for the two ALiBi schemes, ``table=`` and
    ``max_distance=`` for "relative"). X is (n, d), or
    (B, n, d) for B sequences of length n: each gets the same positions 0 … n − 1.

    >>> X, (W_Q, W_K, W_V) = np.eye(3, 8), [np.eye(8, 4)] * 3
    >>> [attention_with_positions(X, W_Q, W_K, W_V, s)[1].shape for s in (None, "rope")]
    [(3, 3), (3, 3)]
    """
    chosen = _check_scheme(scheme, options)
    X, W_Q, W_K, W_V = check_projections(X, W_Q, W_K, W_V)
    n, d = np.shape(X)[-2:]
    options = chosen.check(options, n, d, np.shape(W_Q)[1])
    with quiet_overflow():
        Y, A = _with_positions(X, W_Q, W_K, W_V, scheme, **options)
    arguments = ", ".join(["X", "W_Q", "W_K", "W_V", *options])
    return finite_result(" and".join(arguments.rsplit(",", 1)), "attention", Y, A)

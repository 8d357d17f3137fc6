"""Checkers for notebook 11 (positions in practice): sinusoids, RoPE's two layouts, ALiBi slopes."""

import numpy as np

from ..positions import alibi_slopes
from ..rope import _frequencies, rope
from . import NotYet, as_array, call, checker, close, read_only

SHAPES = ((6, 8), (10, 4), (5, 16), (3, 2))  # exercise 1: (n, d)


def _gram_row(n: int, d: int):
    """(E Eᵀ)[0, k] = Σ_i cos(k ω_i) for k = 0 … n − 1: what the invariant must hold."""
    return np.cos(np.outer(np.arange(n), _frequencies(d))).sum(axis=1)  # (n,)


@checker("a function sinusoids(n, d)")
def check_sinusoids(sinusoids):
    """Exercise 1: sinusoidal positions, checked by an invariant: E·Eᵀ depends only on i − j."""
    for n, d in SHAPES:
        E = as_array(call(sinusoids, n, d, name="sinusoids"), f"sinusoids({n}, {d})")
        if E.shape == (d, n) and n != d:
            raise NotYet(f"sinusoids({n}, {d}) has shape {E.shape}: rows are positions, so E is "
                         "(n, d), one row per position.")
        if E.shape != (n, d):
            raise NotYet(f"sinusoids({n}, {d}) must have shape ({n}, {d}); got {E.shape}.")
        G = E @ E.T  # (n, n): G[i, j] = E_i · E_j
        if not close(np.diag(G), np.full(n, d / 2)):
            raise NotYet(f"every row of sinusoids({n}, {d}) should have squared length d/2 = "
                         f"{d / 2:g} (sin² + cos² = 1 for a pair at one angle): is a cosine "
                         "missing, or a sine and its cosine at different angles?")
        if not close(G[1:, 1:], G[:-1, :-1]):
            raise NotYet(f"E·Eᵀ of sinusoids({n}, {d}) depends on more than i − j: the angle "
                         "of each pair must grow in step with the position, p·ω_i.")
        if not close(G[0], _gram_row(n, d)):
            raise NotYet(f"E·Eᵀ of sinusoids({n}, {d}) depends on i − j only, but not with the "
                         "paper's frequencies: ω_i = 10000^(−2i/d), with i counting pairs, not "
                         "coordinates.")
    return ("E_i·E_j = Σ_k cos((i − j) ω_k): it depends on i − j only, in either column order "
            "(interleaved or split), which this check cannot and need not tell apart.")


LAYOUTS = ("interleaved", "halves")


def _mixed(Z, p, layout: str):
    """The classic slip: the cos and sin tables of one layout, the partners of the other."""
    d_k, h = Z.shape[-1], Z.shape[-1] // 2
    theta = np.outer(p, _frequencies(d_k))  # (n, d_k/2)
    if layout == "halves":  # interleaved tables with the halves' partner
        cos, sin = (np.repeat(f(theta), 2, axis=1) for f in (np.cos, np.sin))
        return Z * cos + np.concatenate([-Z[:, h:], Z[:, :h]], axis=1) * sin
    cos, sin = (np.tile(f(theta), 2) for f in (np.cos, np.sin))  # halves' tables, pairs' partner
    partner = Z[:, np.arange(d_k) ^ 1] * np.tile([-1.0, 1.0], h)
    return Z * cos + partner * sin


def _one_layout(rope_by_hand, layout: str, Z, p):
    """NotYet unless rope_by_hand(Z, p, layout) turns Z as the layout does."""
    got = as_array(call(rope_by_hand, Z, p, layout, name="rope_by_hand"),
                   f"rope_by_hand(Z, positions, {layout!r})", Z.shape)
    if close(got, rope(Z, p, layout=layout)):
        return
    other = LAYOUTS[1 - LAYOUTS.index(layout)]
    pairs = {"interleaved": "neighbours (2i, 2i + 1)", "halves": "m with m + d_k/2"}
    if close(got, rope(Z, p, layout=other)):
        raise NotYet(f"for layout {layout!r} your function turns the {other} layout's pairs, "
                     f"{pairs[other]}; {layout!r} pairs {pairs[layout]}.")
    if close(got, rope(Z, -p, layout=layout)):
        raise NotYet(f"layout {layout!r}: your turn goes the other way (by −p ω): the first of "
                     "each pair gets z cos − partner sin.")
    at_zero = p == 0
    if close(got[at_zero], Z[at_zero]) and close(got, _mixed(Z, p, layout)):
        raise NotYet(f"layout {layout!r}: right at position 0, wrong after it: your cos and sin "
                     "tables are laid out for one layout and the partners taken from the other. "
                     "At p = 0 every angle is 0 (cos 1, sin 0), so any pairing gives z back.")
    if not close(np.linalg.norm(got, axis=1), np.linalg.norm(Z, axis=1)):
        raise NotYet(f"layout {layout!r}: the rows change length, and a turn keeps it. Check the "
                     "signs: z cos − partner sin, then z sin + partner cos.")
    if close(got[at_zero], Z[at_zero]):
        raise NotYet(f"layout {layout!r}: right at position 0 (no turn), wrong after it: check "
                     "the angle p·ω_i of each pair, ω_i = 10000^(−2i/d_k), and the partner of "
                     "each coordinate.")
    raise NotYet(f"layout {layout!r}: the rows are not turned by p·ω_i as the layout pairs them.")


@checker("a function rope_by_hand(Z, positions, layout)")
def check_rope_by_hand(rope_by_hand):
    """Exercise 2: RoPE in both layouts; each is told apart from the other and from their mix."""
    rng = np.random.default_rng(11)
    for n, d_k in ((6, 8), (5, 4), (4, 12)):
        Z = rng.normal(size=(n, d_k))  # (n, d_k): queries or keys
        for p in (np.arange(n, dtype=float), np.array([0.0, 2.5, 7.0, 1.0, 30.0, 4.0])[:n]):
            for layout in LAYOUTS:
                _one_layout(rope_by_hand, layout, Z, p)
    return ("both layouts turn each pair by p·ω_i; they pair different coordinates, so weights "
            "trained in one work in the other only with W_Q's and W_K's columns reordered.")


HEADS = (1, 2, 4, 8, 16, 3, 5, 6, 12, 24, 20)  # exercise 3: powers of two, then others


def _power_rule(H):
    return 2.0 ** (-8.0 * np.arange(1, H + 1) / H)


def _lower(H):
    return 1 << (H.bit_length() - 1)


SLIPS = (  # (a slip's slopes for H heads, its hint): the hint names the slip
    (_power_rule, "for a head count that is not a power of two you used 2^(−8h/H) all the same; "
                  "the paper builds those from the slopes of powers of two."),
    (lambda H: 2.0 ** (-8.0 * np.arange(H) / H),
     "your first slope is 1: h counts heads from 1, so the first slope is 2^(−8/H)."),
    (lambda H: np.concatenate([_power_rule(_lower(H)), _power_rule(2 * _lower(H))[:H - _lower(H)]]),
     "after the P slopes of the power of two P below H you took the first H − P slopes of 2P "
     "heads; the rule takes every other one of them."),
    (lambda H: np.concatenate([_power_rule(_lower(H)),
                               _power_rule(2 * _lower(H))[1::2][:H - _lower(H)]]),
     "every other slope of 2P heads, yes, but counting from its first one, 2^(−8/(2P))."),
    (lambda H: _power_rule(2 * _lower(H))[:H],
     "P is the largest power of two below H, not above it: its P slopes come first."),
)


@checker("a function alibi_slopes(heads)")
def check_alibi_slopes(alibi_slopes_by_hand):
    """Exercise 3: ALiBi's slopes for any number of heads, checked against the paper's rule."""
    for H in HEADS:
        got = as_array(call(alibi_slopes_by_hand, H, name="alibi_slopes"),
                       f"alibi_slopes({H})").ravel()
        expected = alibi_slopes(H)
        if close(got, expected):
            continue
        if got.shape != expected.shape:
            raise NotYet(f"alibi_slopes({H}) must hold one slope per head, {H}; got {got.size}.")
        for slip, hint in SLIPS:
            if close(got, slip(H)):
                raise NotYet(f"alibi_slopes({H}): {hint}")
        if close(np.sort(got), np.sort(expected)):
            raise NotYet(f"alibi_slopes({H}) holds the right slopes in another order: the P slopes "
                         "of the power of two below H come first, then the others, in order.")
        raise NotYet(f"alibi_slopes({H}) differs from the paper's rule: for H a power of two the "
                     "slopes are a geometric sequence that starts at 2^(−8/H).")
    return ("the paper's slopes for every head count: powers of two get a geometric sequence, "
            "other counts borrow every other slope of the next power of two.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

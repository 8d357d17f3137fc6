"""The notebook 11 checkers: right answers in any form are Right, plausible mistakes are Not yet
with a hint that names the mistake and never gives the answer away."""

import math

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb11
from solutions import nb11_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb11.check_sinusoids(SOL.sinusoids).ok
    assert nb11.check_rope_by_hand(SOL.rope_by_hand).ok
    assert nb11.check_alibi_slopes(SOL.alibi_slopes).ok


# Exercise 1: sinusoids, checked by the invariant -------------------------------------------------

def _loops(n, d):
    return [[math.sin(p / 10000 ** (2 * (c // 2) / d)) if c % 2 == 0
             else math.cos(p / 10000 ** (2 * (c // 2) / d)) for c in range(d)] for p in range(n)]


@pytest.mark.parametrize("build", [
    SOL.sinusoids, pa.sinusoidal_positions, _loops,
    lambda n, d: pa.sinusoidal_positions(n, d, layout="split"),  # sines first: same invariant
    lambda n, d: pa.sinusoidal_positions(n, d).astype(np.float32),
    lambda n, d: pa.sinusoidal_positions(n + 3, d)[3:],  # positions from 3: offsets unchanged
])
def test_sinusoids_in_any_form_or_layout_are_right(build):
    feedback = nb11.check_sinusoids(build)
    assert feedback.ok, feedback


def _sines_only(n, d):  # a sine where the cosine belongs
    E = pa.sinusoidal_positions(n, d)
    E[:, 1::2] = E[:, 0::2]
    return E


def _per_coordinate(n, d):  # ω over coordinates, 10000^(−c/d), each column its own frequency
    omega = 10000.0 ** (-np.arange(d) / d)
    E = np.outer(np.arange(n), omega)
    E[:, 0::2], E[:, 1::2] = np.sin(E[:, 0::2]), np.cos(E[:, 1::2])
    return E


def _wrong_exponent(n, d):  # 10000^(−i/d) for pair i: frequencies fall too slowly
    theta = np.outer(np.arange(n), 10000.0 ** (-np.arange(d // 2) / d))
    return np.stack([np.sin(theta), np.cos(theta)], axis=-1).reshape(n, d)


@pytest.mark.parametrize(("build", "names_the_mistake"), [
    (_sines_only, "squared length d/2"),
    (_per_coordinate, "a sine and its cosine at different angles?"),
    (_wrong_exponent, "not with the paper's frequencies"),
    (lambda n, d: pa.sinusoidal_positions(n * n, d)[np.arange(n) ** 2],  # positions 0, 1, 4, 9 …
     "depends on more than i − j: the angle of each pair must grow in step with the position"),
    (lambda n, d: pa.sinusoidal_positions(n, d).T, "rows are positions"),
    (lambda n, d: np.zeros((n, d)), "squared length d/2"),
    (lambda n, d: pa.sinusoidal_positions(n, d)[:-1], "must have shape"),
    (lambda n: None, "raised TypeError"),
])
def test_wrong_sinusoids_get_a_hint_that_names_the_mistake(build, names_the_mistake):
    feedback = nb11.check_sinusoids(build)
    assert not feedback.ok
    assert names_the_mistake in feedback.message, feedback.message


# Exercise 2: RoPE in both layouts ---------------------------------------------------------------

def _by_package(Z, positions, layout):
    return pa.rope(Z, positions, layout=layout)


def _float32(Z, positions, layout):
    return SOL.rope_by_hand(np.asarray(Z, np.float32), positions, layout).astype(np.float32)


def _complex(Z, positions, layout):  # pairs as complex numbers, turned by e^{i p ω}
    Z = np.asarray(Z, float)
    d_k = Z.shape[1]
    order = np.arange(d_k) if layout == "interleaved" else np.r_[0:d_k // 2, d_k // 2:d_k]
    first, second = ((Z[:, 0::2], Z[:, 1::2]) if layout == "interleaved"
                     else (Z[:, :d_k // 2], Z[:, d_k // 2:]))
    w = np.exp(1j * np.outer(positions, 10000.0 ** (-np.arange(d_k // 2) * 2 / d_k)))
    turned = (first + 1j * second) * w
    out = np.empty_like(Z)
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = turned.real, turned.imag
    else:
        out[:, :d_k // 2], out[:, d_k // 2:] = turned.real, turned.imag
    return out[:, order]


@pytest.mark.parametrize("build", [SOL.rope_by_hand, _by_package, _float32, _complex])
def test_rope_in_any_form_is_right(build):
    feedback = nb11.check_rope_by_hand(build)
    assert feedback.ok, feedback


def _swapped_layouts(Z, positions, layout):
    return pa.rope(Z, positions, layout="halves" if layout == "interleaved" else "interleaved")


def _always_interleaved(Z, positions, layout):
    return pa.rope(Z, positions)


def _mixed(Z, positions, layout):  # halves asked: interleaved tables, rotate_half partners
    if layout == "interleaved":
        return pa.rope(Z, positions)
    Z = np.asarray(Z, float)
    theta = np.outer(positions, pa.frequencies(Z.shape[1]))
    cos, sin = np.repeat(np.cos(theta), 2, axis=1), np.repeat(np.sin(theta), 2, axis=1)
    h = Z.shape[1] // 2
    return Z * cos + np.concatenate([-Z[:, h:], Z[:, :h]], axis=1) * sin


def _mixed_other_way(Z, positions, layout):  # interleaved asked: halves tables, pairs' partner
    if layout == "halves":
        return pa.rope(Z, positions, layout="halves")
    Z = np.asarray(Z, float)
    theta = np.outer(positions, pa.frequencies(Z.shape[1]))
    cos, sin = np.tile(np.cos(theta), 2), np.tile(np.sin(theta), 2)
    partner = Z[:, np.arange(Z.shape[1]) ^ 1] * np.tile([-1.0, 1.0], Z.shape[1] // 2)
    return Z * cos + partner * sin


def _backwards(Z, positions, layout):
    return pa.rope(Z, -np.asarray(positions, float), layout=layout)


def _wrong_base(Z, positions, layout):  # right at 0, wrong after, not the mix
    return pa.rope(Z, positions, base=100.0, layout=layout)


def _one_sign(Z, positions, layout):  # + sin on the first of each pair too: not a turn
    Z = np.asarray(Z, float)
    theta = np.outer(positions, pa.frequencies(Z.shape[1]))
    first, second = Z[:, 0::2], Z[:, 1::2]
    out = np.empty_like(Z)
    out[:, 0::2] = first * np.cos(theta) + second * np.sin(theta)
    out[:, 1::2] = first * np.sin(theta) + second * np.cos(theta)
    return out


@pytest.mark.parametrize(("build", "names_the_mistake"), [
    (_swapped_layouts, "turns the halves layout's pairs, m with m + d_k/2"),
    (_always_interleaved, "for layout 'halves' your function turns the interleaved layout's"),
    (_mixed, "right at position 0, wrong after it: your cos and sin tables are laid out for one "
             "layout and the partners taken from the other"),
    (_mixed_other_way, "layout 'interleaved': right at position 0, wrong after it: your cos and "
                       "sin tables"),
    (_backwards, "your turn goes the other way"),
    (_wrong_base, "right at position 0 (no turn), wrong after it: check the angle"),
    (_one_sign, "the rows change length"),
    (lambda Z, positions, layout: np.asarray(Z)[:, :2], "must have shape"),
    (lambda Z, positions: Z, "raised TypeError"),
])
def test_wrong_ropes_get_a_hint_that_names_the_mistake(build, names_the_mistake):
    feedback = nb11.check_rope_by_hand(build)
    assert not feedback.ok
    assert names_the_mistake in feedback.message, feedback.message


# Exercise 3: ALiBi's slopes -------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    SOL.alibi_slopes, pa.alibi_slopes,
    lambda H: pa.alibi_slopes(H).astype(np.float32),
    lambda H: tuple(pa.alibi_slopes(H).tolist()),
    lambda H: pa.alibi_slopes(H)[:, None],  # a column: one slope a row, as a bias broadcasts
])
def test_slopes_in_any_form_are_right(build):
    feedback = nb11.check_alibi_slopes(build)
    assert feedback.ok, feedback


def _lower(H):
    return 2 ** int(math.log2(H))


def _power_rule(H):
    return [2 ** (-8 * h / H) for h in range(1, H + 1)]


@pytest.mark.parametrize(("build", "names_the_mistake"), [
    (_power_rule, "you used 2^(−8h/H) all the same"),
    (lambda H: [2 ** (-8 * h / H) for h in range(H)], "your first slope is 1"),
    (lambda H: _power_rule(_lower(H)) + _power_rule(2 * _lower(H))[:H - _lower(H)],
     "you took the first H − P slopes of 2P heads"),
    (lambda H: _power_rule(_lower(H)) + _power_rule(2 * _lower(H))[1::2][:H - _lower(H)],
     "counting from its first one"),
    (lambda H: _power_rule(2 * _lower(H))[:H], "P is the largest power of two below H"),
    (lambda H: sorted(SOL.alibi_slopes(H)), "the right slopes in another order"),
    (lambda H: _power_rule(H)[:-1], "one slope per head"),
    (lambda H: [0.5] * H, "differs from the paper's rule"),
])
def test_wrong_slopes_get_a_hint_that_names_the_mistake(build, names_the_mistake):
    feedback = nb11.check_alibi_slopes(build)
    assert not feedback.ok
    assert names_the_mistake in feedback.message, feedback.message
    assert "0.7071" not in feedback.message  # a slope is never shown

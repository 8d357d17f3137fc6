"""RoPE's two layouts, ALiBi's slopes for any head count, and the frequencies of the methods
for longer rows (posattn.scaling): each against an oracle written from its paper or its code,
a property it must keep, and its door."""

import math

import numpy as np
import pytest

import posattn as pa
from posattn.schemes import REGISTRY

# ---- RoPE's two layouts -----------------------------------------------------------------------

def _halves_loop(Z, p, base=10000.0):
    """Llama's rotate_half, written out: q·cos + rotate_half(q)·sin, cos and sin concatenated."""
    n, d_k = Z.shape
    h = d_k // 2
    out = np.empty_like(Z)
    for r in range(n):
        for m in range(h):
            a = p[r] * base ** (-2.0 * m / d_k)
            out[r, m] = Z[r, m] * math.cos(a) - Z[r, m + h] * math.sin(a)
            out[r, m + h] = Z[r, m + h] * math.cos(a) + Z[r, m] * math.sin(a)
    return out


def test_the_halves_layout_is_llamas_rotate_half_written_out():
    Z, p = np.random.default_rng(0).normal(size=(5, 8)), np.array([0.0, 1.0, 2.5, 7.0, 30.0])
    assert np.allclose(pa.rope(Z, p, layout="halves"), _halves_loop(Z, p), atol=1e-12)
    assert np.allclose(REGISTRY["rope_halves"].turn(Z, p), _halves_loop(Z, p), atol=1e-12)


def test_the_two_layouts_are_one_turn_on_reordered_columns_and_differ_otherwise():
    Z, p = np.random.default_rng(1).normal(size=(6, 8)), np.arange(6.0)
    order = np.r_[0:8:2, 1:8:2]  # evens, then odds
    assert np.allclose(pa.rope(Z[:, order], p, layout="halves"), pa.rope(Z, p)[:, order])
    assert np.abs(pa.rope(Z, p, layout="halves") - pa.rope(Z, p)).max() > 0.1


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
def test_a_rope_score_depends_on_the_offset_only_in_either_layout(layout):
    q, k = np.random.default_rng(2).normal(size=(2, 1, 8))

    def score(m, n):
        return (pa.rope(q, [m], layout=layout) @ pa.rope(k, [n], layout=layout).T).item()

    assert math.isclose(score(3, 1), score(10, 8), rel_tol=1e-12)
    assert not math.isclose(score(3, 1), score(3, 2), rel_tol=1e-3)  # the offset does count


def test_rope_refuses_an_unknown_layout():
    with pytest.raises(ValueError, match=r"layout must be one of 'interleaved', 'halves'; got"):
        pa.rope(np.ones((2, 4)), layout="split")


# ---- ALiBi's slopes ---------------------------------------------------------------------------

def _paper_slopes(n):
    """Press et al.'s get_slopes, as in the ALiBi repository."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + _paper_slopes(2 * closest)[0::2][:n - closest]


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 6, 7, 8, 12, 16, 20, 24, 40, 96])
def test_alibi_slopes_are_the_papers_for_any_number_of_heads(heads):
    assert np.allclose(pa.alibi_slopes(heads), _paper_slopes(heads), rtol=1e-13, atol=0)


def test_eight_heads_get_the_papers_printed_slopes_and_twelve_fill_in_between():
    assert pa.alibi_slopes(8).tolist() == [2.0 ** -k for k in range(1, 9)]  # 1/2 … 1/256
    assert np.allclose(pa.alibi_slopes(12)[8:], 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5]))


@pytest.mark.parametrize(("heads", "error", "match"), [
    (0, ValueError, "heads must be"), (2.5, TypeError, "heads must be an integer"),
    (True, TypeError, "heads must be an integer")])
def test_alibi_slopes_refuse_what_is_not_a_head_count(heads, error, match):
    with pytest.raises(error, match=match):
        pa.alibi_slopes(heads)


# ---- the frequencies for longer rows ----------------------------------------------------------

def _llama3_loop(d, base, factor, low, high, original):
    """Llama 3.1's rope_scaling, pair by pair, as its reference code writes it."""
    out = []
    for i in range(d // 2):
        w = base ** (-2.0 * i / d)
        wavelength = 2 * math.pi / w
        if wavelength < original / high:
            out.append(w)
        elif wavelength > original / low:
            out.append(w / factor)
        else:
            smooth = (original / wavelength - low) / (high - low)
            out.append((1 - smooth) * w / factor + smooth * w)
    return out


def test_llama_3_1s_rope_scaling_is_yarns_ramp_with_its_factors_as_the_ends():
    got = pa.scaled_frequencies(128, "yarn", 8.0, base=500000.0, original=8192, alpha=1, beta=4)
    assert np.allclose(got, _llama3_loop(128, 500000.0, 8.0, 1.0, 4.0, 8192), rtol=1e-13)


def test_interpolation_divides_every_frequency_and_none_keeps_them():
    omega = pa.frequencies(16)
    assert np.allclose(pa.scaled_frequencies(16, "interpolation", 4.0), omega / 4)
    assert np.array_equal(pa.scaled_frequencies(16, "none", 4.0), omega)


def test_ntk_keeps_the_fastest_pair_and_divides_the_slowest_by_the_factor():
    omega, ntk = pa.frequencies(16), pa.scaled_frequencies(16, "ntk", 4.0)
    assert ntk[0] == omega[0] == 1.0
    assert math.isclose(ntk[-1], omega[-1] / 4, rel_tol=1e-12)
    assert np.all((ntk <= omega) & (ntk >= omega / 4 * (1 - 1e-12)))


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_blends_between():
    omega = pa.frequencies(128)
    yarn = pa.scaled_frequencies(128, "yarn", 4.0, original=4096, alpha=1, beta=32)
    turns = 4096 / pa.wavelengths(omega)  # r_i: turns in L positions
    assert np.array_equal(yarn[turns >= 32], omega[turns >= 32])
    assert np.allclose(yarn[turns <= 1], omega[turns <= 1] / 4)
    between = (turns > 1) & (turns < 32)
    assert between.any() and np.all((yarn[between] < omega[between])
                                     & (yarn[between] > omega[between] / 4))


def test_yarn_temperature_is_the_papers_and_one_for_rows_no_longer():
    assert math.isclose(pa.yarn_temperature(8.0), 0.1 * math.log(8.0) + 1, rel_tol=1e-15)
    assert pa.yarn_temperature(1.0) == pa.yarn_temperature(0.5) == 1.0


def test_decay_bound_is_notebook_10s_mean_of_the_partial_sums():
    omega, r = pa.frequencies(16), np.arange(0, 40, 7)
    literal = [np.mean([abs(sum(np.exp(1j * x * omega[m]) for m in range(k + 1)))
                        for k in range(len(omega))]) for x in r]
    assert np.allclose(pa.decay_bound(r, omega), literal, rtol=1e-12)
    assert pa.decay_bound([0], omega)[0] == (len(omega) + 1) / 2


def test_wavelengths_are_two_pi_over_the_frequency():
    assert np.allclose(pa.wavelengths([1.0, 0.5]) * [1.0, 0.5], 2 * math.pi)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: pa.scaled_frequencies(12, "linear"), ValueError, "method must be one of"),
    (lambda: pa.scaled_frequencies(12, "ntk", 0.5), ValueError, "factor must be at least 1"),
    (lambda: pa.scaled_frequencies(13), ValueError, "d must be even"),
    (lambda: pa.scaled_frequencies(12, alpha=4, beta=1), ValueError, "beta must be above alpha"),
    (lambda: pa.scaled_frequencies(12, base=1.0), ValueError, "base must be a finite number"),
    (lambda: pa.wavelengths([1.0, 0.0]), ValueError, "omega must hold positive frequencies"),
    (lambda: pa.yarn_temperature(-1), ValueError, "factor must be a finite number above 0"),
    (lambda: pa.decay_bound([[0, 1]], [1.0]), ValueError, "offsets must"),
])
def test_the_door_names_the_argument_and_what_came(call, error, match):
    with pytest.raises(error, match=match):
        call()

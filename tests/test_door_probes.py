"""The door's second pass (issue 30 §1): every probe a clear error or a true answer, within
2 GB of address space and 10 s of CPU time (tests/door_probes.py runs them in a child process).

A clear error is the project's template: a ValueError or TypeError that names the argument
("<name> must …"), shows what came in ("got …") and says what was expected.
"""

import re

import numpy as np
import pytest

import posattn as pa
from posattn import experiments as ex
from tests import door_probes

S = "np.dtypes.StringDType()"
W = "*pa.default_projections()"
HUGE = ("10**400", "10**5000", "2**70")
DRAWN = "(lambda drawn: drawn.figure.canvas.draw())"  # a figure's errors show when it is drawn

STRINGS = {  # numpy 2's variable-length text (numpy 1 has no StringDType: these are left out)
    "StringDType": f"pa.softmax(np.array(['a', 'b'], dtype={S}))",
    "StringDType X": f"pa.self_attention(np.array([['a'] * 8], dtype={S}), {W})",
    "StringDType perm": f"pa.inverse_permutation(np.array(['0'], dtype={S}))",
} if hasattr(np, "dtypes") and hasattr(np.dtypes, "StringDType") else {}

REFUSED = {  # each must be refused with a clear error
    **STRINGS,
    "complex, empty": "pa.softmax(np.zeros(0, complex))",
    "complex, empty X": f"pa.self_attention(np.zeros((0, 8), complex), {W})",
    **{f"huge {f} {h}": f"{f}({h})" for h in HUGE for f in (
        "pa.causal_mask", "pa.alibi_bias", "pa.random_permutation", "pa.frequencies",
        "pa.default_projections", "pa.conv_kernel", "pa.rnn_weights")},
    **{f"huge {h} in {what}": code.format(h=h) for h in HUGE for what, code in {
        "sinusoidal n": "pa.sinusoidal_positions({h}, 8)",
        "sinusoidal d": "pa.sinusoidal_positions(4, {h})",
        "learned n": "pa.learned_positions({h}, 8)",
        "all_permutations": "next(pa.all_permutations({h}))",
        "init_encoder_params": "pa.init_encoder_params({h}, 2, 16)",
        "embed d": "pa.embed(['dog'], d={h})",
        "relative_bias n": "pa.relative_bias({h}, [0.0], 0)",
        "sinusoidal_shift d": "pa.sinusoidal_shift(1, {h})",
        "multi_head_attention heads": f"pa.multi_head_attention(np.ones((3, 8)), {W}, "
                                      "np.ones((4, 8)), {h})",
        "who_bites_whom seeds": "ex.who_bites_whom(seeds=range({h}))",
        "step_size steps": "ex.step_size(1, {h})",
        "step_size t": "ex.step_size({h}, 100)",
        "length_curves lengths": "ex.length_curves(test_lens=({h},))",
        "position_probes seeds": "ex.position_probes(True, range({h}))",
        "who_bites_whom steps": "ex.who_bites_whom(steps={h})",
        "length_curves width": "ex.length_curves(width={h})",
    }.items()},
    "fmt huge width": "ex.spread([0.5], fmt='{:>10000000000}')",
    "fmt wide": "ex.spread([0.5], fmt='{:>400000000}')",
    "surrogate token": "pa.embed(['\\ud800'])",
    "surrogate sentence": "pa.tokenize('dog \\ud800')",
    "shift_error fewer rows": "pa.shift_error(lambda X: X[:-1], np.ones((5, 2)))",
    **{f"arity {name}": f"pa.{name}(lambda X, Y: X, {args})" for name, args in {
        "equivariance_error": "np.ones((3, 2)), [1, 0, 2]",
        "invariance_error": "np.ones((3, 2)), [1, 0, 2]",
        "shift_error": "np.ones((5, 2))",
        "symmetries": "np.ones((3, 2)), [[1, 0, 2]]",
        "influence": "np.ones((3, 2))"}.items()},
    "Y of Q K V, n × d_v": "pa.scaled_dot_product_attention(np.ones((10**5, 1)), np.ones((1, 1)), "
                           "np.ones((1, 10**5)))",
    "influence n × n": "pa.influence(lambda X: X, np.ones((10**5, 1)))",
    "attention of a long sentence": "ex.attention(ex.who_bites_whom(seeds=[0])['params'][0], "
                                    "'dog ' * 20000)",
    "broadcast view": "pa.softmax(np.broadcast_to(0.0, (10**5, 10**5)))",
    "broadcast X": f"pa.self_attention(np.broadcast_to(1.0, (10**5, 8)), {W})",
    # (input, call): the input is built outside the time limit, which times the door alone
    "inverse of a long permutation": ("np.arange(10**8)", "pa.inverse_permutation(given)"),
    "inverse of a long list": ("[0] * (3 * 10**7)", "pa.inverse_permutation(given)"),
    "softmax of a long list": ("[0.0] * (3 * 10**7)", "pa.softmax(given)"),
    "a training budget past a minute": "ex.length_generalisation('rope', 64, 64, "
                                       "seeds=range(100), steps=2000, width=64)",
    "masked softmax": "pa.softmax(np.ma.array([0.0, 1.0], mask=[0, 1]))",
    "masked X": f"pa.self_attention(np.ma.array(np.ones((3, 8)), mask=np.eye(3, 8)), {W})",
    "influence nudge vanishes": "pa.influence(lambda X: X, [[1e17], [1e17]], nudge=1e-300)",
    "influence of a long X": "pa.influence(lambda X: X, np.ones((5000, 2)))",
    "label that cannot be typeset": DRAWN + "(plotting.heatmap(np.eye(2), title='$\\\\frac$'))",
    "tick label that cannot be typeset": DRAWN + "(plotting.heatmap(np.eye(2), "
                                                 "row_labels=['$\\\\frac$', 'b']))",
    "weighted sum off the chart": DRAWN + "(plotting.weighted_sum(np.full((3, 2), 1e308), "
                                          "[1, 1, 1]))",
    "steps off the chart": DRAWN + "(plotting.loss_bands({'a': [[1.0, 0.5]]}, steps=[0, 1e308]))",
    "3-D axes": "plotting.heatmap(np.eye(2), ax=__import__('matplotlib.pyplot').pyplot"
                ".figure().add_subplot(projection='3d'))",
    "annotated 300 × 300": DRAWN + "(plotting.heatmap(np.zeros((300, 300)), values=True))",
    "heatmap of 10,000 rows": DRAWN + "(plotting.heatmap(np.zeros((10**4, 2))))",
}

QUICK = {  # each must return (or give a clear error) within the time and memory limits
    **({"StringDType tokens": f"pa.embed(np.array(['dog', 'man'], dtype={S}))"} if STRINGS else {}),
    "embed a million words": "pa.embed(['w'] * 10**6)",
    "length with 1000 seeds": "ex.length_generalisation('rope', 64, 64, seeds=range(1000))",
    "probes with 1000 seeds": "ex.position_probes(True, range(1000))",
    "a permutation of 10**8": "pa.random_permutation(10**8)",
    "the literal loop on 1,000 rows": f"pa.attention_loop(np.ones((1000, 8)), {W})",
    "spread near float64's end": "ex.spread([1e308] * 3)",
    "softmax under seterr(raise)": "(np.seterr(all='raise'), pa.softmax([[0.0, -1000.0]]))",
    "attention under seterr(raise)": "(np.seterr(all='raise'), pa.self_attention("
                                     f"np.full((3, 8), 30.0), {W}))",
    "a trained model under seterr(raise)": "(np.seterr(all='raise'), "
                                           "ex.who_bites_whom(seeds=[0]))",
}

TEMPLATE = re.compile(r"\bmust\b.*\bgot\b", re.S)


@pytest.fixture(scope="module")
def verdicts():
    probes = [list(p) if isinstance(p, tuple) else p for p in [*REFUSED.values(), *QUICK.values()]]
    found = door_probes.run(probes)
    names = list(REFUSED) + list(QUICK)
    return {names[v["probe"]]: v for v in found}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_bad_input_gets_the_clear_error_within_the_limits(verdicts, name):
    verdict = verdicts[name]
    assert verdict["result"] in ("ValueError", "TypeError"), verdict
    assert TEMPLATE.search(verdict["message"]), verdict
    assert len(verdict["message"]) < 400, verdict


@pytest.mark.parametrize("name", list(QUICK))
def test_an_allowed_call_answers_in_seconds_or_says_what_it_allows(verdicts, name):
    verdict = verdicts[name]
    assert verdict["result"] == "ok" or (verdict["result"] in ("ValueError", "TypeError")
                                         and TEMPLATE.search(verdict["message"])), verdict


def test_the_limit_counts_the_work_a_call_does_and_stops_one_that_waits():
    """The limit is the child's CPU time, whatever else the machine runs (issue 37); a call that
    sleeps is stopped by the wall-clock backstop; building a probe's input is not timed."""
    busy, asleep, built = door_probes.run(
        ["exec('while True: pass')", "__import__('time').sleep(30)",
         ["sum(range(10**8))", "given + 1"]], seconds=0.5, backstop=4)
    # The kernel charges CPU time to the timer in ticks, so the busy call stops near 0.5 s of
    # CPU, not at it (0.44 s was measured on CI): the test asks for "about the limit".
    assert busy["result"] == "timeout" and 0.25 <= busy["cpu"] < 1.5, busy
    assert asleep["result"] == "timeout" and 3.9 <= asleep["wall"] < 12, asleep
    assert asleep["cpu"] < 0.25, asleep  # a sleep costs no CPU: the backstop stopped it
    assert built["result"] == "ok" and built["cpu"] < 0.1, built


def test_influence_sees_a_change_next_to_huge_values():
    """The nudge is relative to X's size: 1e17 + 1 is 1e17 in float64."""
    seen = pa.influence(lambda X: X, [[1e17], [1e17]])
    np.testing.assert_array_equal(seen, np.eye(2, dtype=bool))


def test_public_functions_run_under_their_own_error_state():
    previous = np.seterr(all="raise")
    try:
        A = pa.softmax([[0.0, -1000.0]])
        assert np.geterr()["under"] == "raise"
    finally:
        np.seterr(**previous)
    np.testing.assert_allclose(A, [[1.0, 0.0]])


def test_a_masked_array_is_refused_not_read_as_unmasked():
    with pytest.raises(TypeError, match="S must be a plain array of numbers; got a masked array"):
        pa.softmax(np.ma.array([0.0, 1.0], mask=[0, 1]))


def test_spread_of_values_near_the_end_of_float64_is_right():
    assert ex.spread([1e308] * 3, fmt="{:.0e}") == "1e+308 (1e+308–1e+308)"


def test_every_doctest_of_the_package_passes_when_numpy_raises_on_every_floating_point_event():
    """Each public function runs under its own error state: a learner's np.seterr(all="raise")
    (set to catch their own overflow) does not turn a harmless underflow inside into an error."""
    import doctest
    import importlib
    import pkgutil

    import posattn
    modules = [importlib.import_module(m.name) for m in
               pkgutil.walk_packages(posattn.__path__, "posattn.")
               if not m.name.startswith(("posattn.explorer.widget", "posattn.explorer.figure"))]
    previous = np.seterr(all="raise")
    try:
        results = {m.__name__: doctest.testmod(m, optionflags=doctest.ELLIPSIS) for m in modules}
    finally:
        np.seterr(**previous)
    assert sum(r.attempted for r in results.values()) > 50
    assert not any(r.failed for r in results.values()), results

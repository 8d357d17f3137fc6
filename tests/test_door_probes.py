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
REPEAT = "__import__('itertools').repeat"  # an iterator that never ends
# an object with a ._value that is not autograd's box: one that holds itself, one that holds S
SELF_HELD = "(lambda B: (setattr(B, '_value', B), B)[1])(type('B', (), {})())"
HOLDER = "type('Holder', (), {'_value': [1.0, 2.0]})()"

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
    # (3·10**7 entries, past MAX_ENTRIES: 240 MB to build, where 10**8 took 800 MB and up to 3 s)
    "inverse of a long permutation": ("np.arange(3 * 10**7)", "pa.inverse_permutation(given)"),
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
    # issue 39 §3: the door's last edges
    "a huge axis": "pa.softmax([1.0, 2.0], 10**5000)",
    "a huge slope": "pa.alibi_bias(3, 10**5000)",
    "a huge fmt": "ex.spread([0.5], 10**5000)",
    "a huge sentence": "pa.tokenize(10**5000)",
    "a huge label": "plotting.heatmap(np.eye(2), row_labels=[10**5000, 'b'])",
    "a huge result label": "plotting.loss_bands({10**5000: [[1.0, 0.5]]})",
    "a huge width in fmt": "ex.spread([0.5], fmt='{:>' + '9' * 5000 + '}')",
    "a self-referencing ._value": f"pa.softmax({SELF_HELD})",
    "a plain holder of ._value": f"pa.softmax({HOLDER})",
    "a holder of ._value as X": "pa.self_attention("
                                f"{HOLDER.replace('[1.0, 2.0]', 'np.ones((3, 8))')}, {W})",
    "softmax of range(10**9)": "pa.softmax(range(10**9))",
    "softmax of range(10**20)": "pa.softmax(range(10**20))",
    "softmax of nested ranges": "pa.softmax([range(10**8)] * 10)",
    "softmax of a list of long arrays": ("[np.zeros(10**7)] * 10", "pa.softmax(given)"),
    "inverse of range(10**9)": "pa.inverse_permutation(range(10**9))",
    "embed an endless iterator": f"pa.embed({REPEAT}('dog'))",
    "embed range(10**9)": "pa.embed(range(10**9))",
    "length_curves of range(2, 10**9)": "ex.length_curves(None, 'first', range(2, 10**9))",
    "length_curves of nested lengths": "ex.length_curves(None, 'first', [[8], [16]])",
    "symmetries of an endless iterator": f"pa.symmetries(lambda X: X, np.ones((3, 2)), "
                                         f"{REPEAT}([2, 0, 1]))",
    "symmetries of 30 permutations of a 160 MB X": (
        "np.ones((2 * 10**7 // 8, 8))", "pa.symmetries(lambda X: X, given, "
        "[np.roll(np.arange(len(given)), k) for k in range(30)])"),
    "symmetries of 10**6 permutations": "pa.symmetries(lambda X: X, np.ones((2, 1)), "
                                        "[[1, 0]] * 10**6)",
    "a nested field in fmt": "ex.spread([0.5, 0.5], '{0:{0}}')",
    "a nested field and huge values": "ex.spread([1e9, 1e9], '{0:{0}}')",
    "spread near float64's end": "ex.spread([1e308] * 3)",
    "spread of a loss": "ex.spread([2.5, 0.1], fmt='{:.2f}')",
    "shift_error of an f that loses rows when shifted": (
        "pa.shift_error(lambda X: X if X[0, 0] == 0 else X[1:], np.arange(6.0)[:, None])"),
    "a bar label that cannot be typeset": DRAWN + "(plotting.accuracy_bars({'a': {'t': 0.5}}, "
                                                  "{'$\\frac$': 't'}, reference=(0.5, 'r')))",
    "a scheme label that cannot be typeset": DRAWN + "(plotting.accuracy_bars({'$\\frac$': "
                                                     "{'t': 0.5}}, {'x': 't'}, "
                                                     "reference=(0.5, 'r')))",
    "a curve label that cannot be typeset": DRAWN + "(plotting.loss_bands({'$\\frac$': "
                                                    "[[1.0, 0.5]]}))",
    "a band label that cannot be typeset": DRAWN + "(plotting.accuracy_bands({'$\\frac$': "
                                                   "[[1.0, 0.5]]}, [1, 2], reference=(0.5, 'r')))",
    "text_colours of one number": "plotting.text_colours(3)",
    "a title of 10**5 characters": DRAWN + "(plotting.heatmap(np.eye(2), title='a' * 10**5))",
    "a tick label of 10**5 characters": DRAWN + "(plotting.heatmap(np.eye(2), "
                                                "row_labels=['a' * 10**5, 'b']))",
    "1,000 tick labels of 100 characters": DRAWN + "(plotting.heatmap(np.zeros((1000, 2)), "
                                                   "row_labels=['a' * 100] * 1000))",
    "a legend label of 10**5 characters": DRAWN + "(plotting.loss_bands({'a' * 10**5: "
                                                  "[[1.0, 0.5]]}))",
    "endless tick labels": f"plotting.heatmap(np.eye(2), row_labels={REPEAT}('a'))",
    "an f with a huge default": "pa.shift_error(eval('lambda X, Y, z=10**5000: X'), "
                                "np.ones((5, 2)))",
    "assert_shift_equivariant of range(10**20) shifts": "__import__('posattn.testing').testing"
        ".assert_shift_equivariant(lambda X: X, np.ones((5, 2)), range(10**20))",
    "assert_equivariant of 10**6 permutations": "__import__('posattn.testing').testing"
        ".assert_equivariant(lambda X: X, np.ones((2, 1)), [[1, 0]] * 10**6)",
}

QUICK = {  # each must return (or give a clear error) within the time and memory limits
    **({"StringDType tokens": f"pa.embed(np.array(['dog', 'man'], dtype={S}))"} if STRINGS else {}),
    "embed a million words": "pa.embed(['w'] * 10**6)",
    "length with 1000 seeds": "ex.length_generalisation('rope', 64, 64, seeds=range(1000))",
    "probes with 1000 seeds": "ex.position_probes(True, range(1000))",
    "a permutation of 10**8": "pa.random_permutation(10**8)",
    "the literal loop on 1,000 rows": f"pa.attention_loop(np.ones((1000, 8)), {W})",
    "softmax under seterr(raise)": "(np.seterr(all='raise'), pa.softmax([[0.0, -1000.0]]))",
    "attention under seterr(raise)": "(np.seterr(all='raise'), pa.self_attention("
                                     f"np.full((3, 8), 30.0), {W}))",
    "a trained model under seterr(raise)": "(np.seterr(all='raise'), "
                                           "ex.who_bites_whom(seeds=[0]))",
    "text_colours of the most entries": "plotting.text_colours(np.zeros(2 * 10**7))",
    "symmetries of 20 permutations of a 1 MB X": "pa.symmetries(lambda X: X, np.ones((10**5, 1)), "
                                                 "[np.arange(10**5)[::-1]] * 20)",
    "embed an iterator of words": "pa.embed(iter(['dog', 'bites', 'man']))",
    "accuracy_bars of 200-character labels": DRAWN + "(plotting.accuracy_bars({'a' * 200: "
                                                     "{'t': 0.5}}, {'b' * 200: 't'}, "
                                                     "reference=(0.5, 'r')))",
}

# ---- every argument of every public function, replaced in turn by an odd value -------------

TINY = "dict(seeds=[0], steps=1)"  # a model trained for one step: the probes time the door
BASES = {  # each public function with arguments that work (test_every_base_call_works)
    "pa.alibi_bias": {"n": "3", "slope": "0.5"},
    "pa.all_permutations": {"n": "3"},
    "pa.attention_loop": {"X": "np.ones((3, 8))", "W_Q": "np.ones((8, 4))",
                          "W_K": "np.ones((8, 4))", "W_V": "np.ones((8, 4))"},
    "pa.attention_with_positions": {"X": "np.ones((3, 8))", "W_Q": "np.ones((8, 4))",
                                    "W_K": "np.ones((8, 4))", "W_V": "np.ones((8, 4))",
                                    "scheme": "'alibi'", "slope": "0.5"},
    "pa.causal_mask": {"n": "3"},
    "pa.cross_attention": {"X": "np.ones((3, 8))", "Z": "np.ones((5, 6))", "W_Q": "np.ones((8, 4))",
                           "W_K": "np.ones((6, 4))", "W_V": "np.ones((6, 2))", "mask": "None"},
    "pa.conv1d": {"X": "np.ones((5, 8))", "kernel": "np.ones((3, 8, 4))"},
    "pa.conv_kernel": {"width": "3", "d": "8", "d_out": "4", "seed": "0"},
    "pa.default_projections": {"d": "8", "d_k": "4", "d_v": "4", "seed": "0"},
    "pa.embed": {"tokens": "['dog', 'man']", "d": "8", "seed": "0"},
    "pa.encoder": {"X": "np.ones((3, 8))", "layers": "[pa.init_encoder_params(8, 2, 16)]",
                   "mask": "None"},
    "pa.encoder_block": {"X": "np.ones((3, 8))", "params": "pa.init_encoder_params(8, 2, 16)",
                         "mask": "None"},
    "pa.equivariance_error": {"f": "lambda X: X", "X": "np.ones((3, 2))", "perm": "[1, 0, 2]"},
    "pa.feed_forward": {"X": "np.ones((3, 8))", "W_1": "np.ones((8, 16))", "b_1": "np.ones(16)",
                        "W_2": "np.ones((16, 8))", "b_2": "np.ones(8)"},
    "pa.frequencies": {"d": "8", "base": "10000.0"},
    "pa.influence": {"f": "lambda X: X", "X": "np.ones((3, 2))", "nudge": "None"},
    "pa.init_encoder_params": {"d_model": "8", "n_heads": "2", "d_ff": "16", "seed": "0"},
    "pa.invariance_error": {"f": "lambda X: X", "X": "np.ones((3, 2))", "perm": "[1, 0, 2]"},
    "pa.inverse_permutation": {"perm": "[2, 0, 1]"},
    "pa.layer_norm": {"X": "np.ones((3, 8))", "gamma": "None", "beta": "None", "eps": "1e-5"},
    "pa.learned_positions": {"n": "3", "d": "8", "max_len": "64", "seed": "0"},
    "pa.multi_head_attention": {"X": "np.ones((3, 8))", "W_Q": "np.ones((8, 8))",
                                "W_K": "np.ones((8, 8))", "W_V": "np.ones((8, 8))",
                                "W_O": "np.ones((8, 8))", "n_heads": "2", "mask": "None"},
    "pa.padding_mask": {"length": "2", "n": "3"},
    "pa.permutation_matrix": {"perm": "[2, 0, 1]"},
    "pa.random_permutation": {"n": "3", "rng": "None"},
    "pa.relative_bias": {"n": "3", "table": "[0.0, 0.5, 1.0]", "max_distance": "1"},
    "pa.rnn": {"X": "np.ones((3, 8))", "W_x": "np.ones((8, 4))", "W_h": "np.ones((4, 4))"},
    "pa.rnn_weights": {"d": "8", "d_h": "4", "seed": "0"},
    "pa.rope": {"Z": "np.ones((3, 4))", "positions": "None", "base": "10000.0",
                "layout": "'halves'"},
    "pa.alibi_slopes": {"heads": "12"},
    "pa.scaled_frequencies": {"d": "12", "method": "'yarn'", "factor": "4.0", "base": "1e4",
                              "original": "8.0", "alpha": "1.0", "beta": "32.0"},
    "pa.wavelengths": {"omega": "[1.0, 0.1]"},
    "pa.yarn_temperature": {"factor": "8.0"},
    "pa.decay_bound": {"offsets": "[0, 16]", "omega": "[1.0, 0.1]"},
    "pa.scaled_dot_product_attention": {"Q": "np.ones((3, 4))", "K": "np.ones((3, 4))",
                                        "V": "np.ones((3, 4))", "mask": "None", "bias": "None"},
    "pa.self_attention": {"X": "np.ones((3, 8))", "W_Q": "np.ones((8, 4))",
                          "W_K": "np.ones((8, 4))", "W_V": "np.ones((8, 4))", "mask": "None",
                          "bias": "None"},
    "pa.shift_error": {"f": "lambda X: X", "X": "np.ones((5, 2))", "k": "1", "margin": "1"},
    "pa.sinusoidal_positions": {"n": "3", "d": "8", "layout": "'interleaved'", "base": "1e4"},
    "pa.sinusoidal_shift": {"k": "1.0", "d": "8", "base": "10000.0"},
    "pa.softmax": {"S": "[1.0, 2.0]", "axis": "-1"},
    "pa.symmetries": {"f": "lambda X: X", "X": "np.ones((3, 2))", "perms": "[[1, 0, 2]]",
                      "tol": "1e-9"},
    "pa.tokenize": {"sentence": "'dog bites man'"},
    "ex.noun_pairs": {"seed": "0"},
    "ex.step_size": {"t": "1", "steps": "100"},
    "ex.who_bites_whom": {"scheme": "None", "seeds": "[0]", "readout": "'mean'", "steps": "1",
                          "width": "12"},
    "ex.attention": {"params": f"ex.who_bites_whom(**{TINY})['params'][0]",
                     "sentence": "'dog bites man'", "scheme": "None"},
    "ex.length_generalisation": {"scheme": "None", "train_max_len": "8", "test_len": "16",
                                 "seeds": "[0]", "readout": "'mean'", "remedy": "None",
                                 "steps": "1", "width": "12"},
    "ex.length_curves": {"scheme": "None", "task": "'first'", "test_lens": "[8]",
                         "seeds": "[0]", "readout": "None", "train_max_len": "8", "steps": "1",
                         "width": "12"},
    "ex.position_probe": {"causal": "True", "seed": "0", "start": "True", "scheme": "None",
                          "steps": "1", "width": "12"},
    "ex.position_probes": {"causal": "True", "seeds": "[0]", "start": "True", "scheme": "None",
                           "steps": "1", "width": "12"},
    "ex.frozen_position_probes": {"causal": "True", "seeds": "[0]", "start": "True",
                                  "steps": "1", "width": "12", "readout": "None",
                                  "task": "'first'"},
    "ex.setup_grid": {},
    "ex.context_grid": {},
    "ex.context_extension": {"task": "'first'", "seeds": "[0]", "test_lens": "[8, 16]",
                             "ramps": "[(1.0, 32.0)]", "train_max_len": "8", "steps": "1",
                             "width": "12"},
    "ex.setup_table": {"task": "'first'", "length": "32"},
    "ex.climbs_back": {"loss": "[2.5, 0.1]"},
    "ex.spread": {"values": "[0.5]", "fmt": "'{:.0%}'"},
    "ex.table": {"rows": "{'a': ['1']}", "columns": "['x']", "corner": "'scheme'"},
    "plotting.text_colours": {"M": "np.eye(2)", "vmin": "0.0", "vmax": "1.0",
                              "cmap": "'viridis'"},
    "plotting.heatmap": {"M": "np.eye(2)", "ax": "None", "row_labels": "None",
                         "col_labels": "None", "title": "None", "cmap": "'RdBu_r'",
                         "vmin": "None", "vmax": "None", "values": "None", "fmt": "'{:.2f}'"},
    "plotting.attention_heatmap": {"A": "np.eye(2)", "tokens": "None", "ax": "None",
                                   "title": "None", "values": "None"},
    "plotting.attention_pair": {"A": "np.eye(2)", "tokens": "['a', 'b']", "A2": "np.eye(2)",
                                "tokens2": "['a', 'b']", "titles": "('x', 'y')"},
    "plotting.permutation_heatmap": {"perm": "[1, 0]", "tokens": "None", "ax": "None"},
    "plotting.weighted_sum": {"V": "np.ones((2, 2))", "weights": "[0.5, 0.5]", "tokens": "None",
                              "ax": "None", "order": "None", "title": "None"},
    "plotting.cell_grid": {"ax": "plotting.heatmap(np.eye(2)).axes", "colour": "'0.6'"},
    "plotting.accuracy_bars": {"results": "{'a': {'t': [0.5]}}", "bars": "{'x': 't'}",
                               "reference": "(0.5, 'r')", "ylabel": "'accuracy'",
                               "title": "None", "ax": "None"},
    "plotting.loss_bands": {"curves": "{'a': [[1.0, 0.5]]}", "steps": "None", "dashed": "()",
                            "title": "None", "ax": "None"},
    "plotting.accuracy_bands": {"curves": "{'a': [[1.0, 0.5]]}", "lengths": "[1, 2]",
                                "reference": "(0.5, 'r')", "dashed": "()", "title": "None",
                                "ax": "None", "xlabel": "'x'"},
    "explorer.ShuffleExplorer": {"sentence": "'dog bites man'", "seed": "0", "order": "None"},
    "testing.assert_equivariant": {"f": "lambda X: X", "X": "np.ones((5, 2))", "perms": "None",
                                   "axes": "(0,)", "samples": "20", "rng": "0", "atol": "None"},
    "testing.assert_invariant": {"f": "lambda X: X", "X": "np.ones((5, 2))", "perms": "None",
                                 "samples": "20", "rng": "0", "atol": "None"},
    "testing.assert_shift_equivariant": {"f": "lambda X: X", "X": "np.ones((5, 2))",
                                         "shifts": "None", "margin": "1", "samples": "20",
                                         "rng": "0", "atol": "None"},
}
EXPLORER = "__import__('posattn.explorer').explorer"  # the probes' scope has no explorer
TESTING = "__import__('posattn.testing').testing"  # nor posattn.testing
ODD = {  # (input built outside the limits, or None; the value)
    "a huge integer": (None, "10**5000"),
    "a text of a million characters": ("'7' * 10**6", "given"),
    "an endless iterator": (None, f"{REPEAT}(1)"),
    "range(10**9)": (None, "range(10**9)"),
    "a list of 10**8 numbers, nested": ("[[0.0] * 10**4] * 10**4", "given"),
}


def _call(function: str, arguments: dict) -> str:
    function = function.replace("explorer.", f"{EXPLORER}.").replace("testing.", f"{TESTING}.")
    return f"{function}({', '.join(f'{k}={v}' for k, v in arguments.items())})"


ODD_ARGUMENTS = {f"{kind} as {function}'s {name}": (setup, _call(function, {**arguments,
                                                                         name: value}))
                 for function, arguments in BASES.items() for name in arguments
                 for kind, (setup, value) in ODD.items()}

TEMPLATE = re.compile(r"\bmust\b.*\bgot\b", re.S)


@pytest.fixture(scope="module")
def verdicts():
    every = {**REFUSED, **QUICK, **ODD_ARGUMENTS,
             **{f"base {f}": _call(f, arguments) for f, arguments in BASES.items()}}
    probes = [list(p) if isinstance(p, tuple) else p for p in every.values()]
    found = door_probes.run(probes)
    return {list(every)[v["probe"]]: v for v in found}


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


@pytest.mark.parametrize("name", list(ODD_ARGUMENTS))
def test_an_odd_value_in_any_argument_gets_the_clear_error_or_an_answer(verdicts, name):
    """A huge integer, a long text or an endless iterator, in each argument of each public
    function in turn: an answer or the template, within the limits, and the message shows a
    bounded rendering of what came (Python will not write 10**5000: its own "Exceeds the limit
    (4300 digits)" error was the message)."""
    verdict = verdicts[name]
    assert verdict["result"] == "ok" or (verdict["result"] in ("ValueError", "TypeError")
                                         and TEMPLATE.search(verdict["message"])), verdict
    assert "Exceeds the limit" not in verdict.get("message", ""), verdict
    assert len(verdict.get("message", "")) < 400, verdict


@pytest.mark.parametrize("function", list(BASES))
def test_every_base_call_works_so_each_odd_argument_is_what_a_probe_measures(verdicts, function):
    assert verdicts[f"base {function}"]["result"] == "ok", verdicts[f"base {function}"]


def test_every_public_function_has_its_odd_argument_probes():
    import inspect

    from posattn import explorer, plotting, testing
    public = {f"pa.{n}" for n in pa.__all__ if callable(getattr(pa, n))}
    public |= {f"testing.{n}" for n in testing.__all__ if callable(getattr(testing, n))}
    public |= {f"ex.{n}" for n in ex.__all__ if callable(getattr(ex, n))}
    public |= {f"plotting.{n}" for n, f in vars(plotting).items() if inspect.isfunction(f)
               and f.__module__ == plotting.__name__ and not n.startswith("_")}
    public |= {"explorer.ShuffleExplorer"}
    assert public == set(BASES)
    for function, arguments in BASES.items():  # every parameter of each is probed
        scope = {"pa": pa, "ex": ex, "plotting": plotting, "explorer": explorer,
                 "testing": testing}
        f = eval(function, scope)  # noqa: S307 - the names above
        names = [p.name for p in inspect.signature(f).parameters.values()
                 if p.kind is not p.VAR_KEYWORD]
        assert set(names) <= set(arguments), (function, set(names) - set(arguments))


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


def test_spread_refuses_values_that_are_not_accuracies():
    """It printed "inf% (inf–inf%)" for [1e308] * 3; a spread is of accuracies, from 0 to 1."""
    with pytest.raises(ValueError, match=r"values must hold accuracies from 0 to 1; got 1e\+308 "
                                         r"at index 0\. Give fractions"):
        ex.spread([1e308] * 3, fmt="{:.0e}")
    assert ex.spread([0.0, 1.0], fmt="{:.1f}") == "0.5 (0.0–1.0)"


def test_a_nested_field_in_fmt_is_refused_before_it_takes_its_width_from_the_number():
    with pytest.raises(ValueError, match=r"fmt must be a format string for one number, such as "
                                         r"'\{:\.0%\}'; got '\{0:\{0\}\}' \(a field nested"):
        ex.spread([0.5], "{0:{0}}")


def test_a_huge_integer_is_shown_by_its_size_never_written_out():
    from posattn._checks import shown
    assert shown(10**5000) == "an integer of about 5,001 digits"
    assert shown([1, -10**5000]) == "[1, a negative integer of about 5,001 digits]"
    assert shown("a" * 10**6, 40) == "'aaaaaaaaaaaaaa'… (1,000,000 characters)"
    assert shown(list(range(10**6))) == "[0, 1, 2, 3, 4, 5, 6, 7, ...]"
    with pytest.raises(ValueError, match="slope must be a finite number above 0.0; got an "
                                         "integer of about 5,001 digits."):
        pa.alibi_bias(3, 10**5000)


def test_only_autograd_boxes_are_looked_inside():
    """A plain object with a ._value reached the kernels (and one holding itself hung softmax);
    autograd's own box still passes, and is differentiated."""
    holder = type("Holder", (), {"_value": [1.0, 2.0]})()
    with pytest.raises(TypeError, match="S must be an array of numbers; got Holder"):
        pa.softmax(holder)
    from autograd import grad
    slope = grad(lambda S: pa.softmax(S)[0])(np.array([1.0, 1.0]))
    np.testing.assert_allclose(slope, [0.25, -0.25])


def test_shift_error_names_f_when_its_output_for_the_shifted_x_loses_rows():
    with pytest.raises(ValueError, match=r"f must return one row per token \(6\) to be compared "
                                         r"row by row; got shape \(5, 1\) for X shifted\."):
        pa.shift_error(lambda X: X if X[0, 0] == 0 else X[1:], np.arange(6.0)[:, None])


def test_symmetries_keeps_one_output_at_a_time_and_answers_as_before():
    perms = [[1, 0, 2, 3], [3, 2, 1, 0]]
    assert pa.symmetries(lambda X: X.sum(axis=0), np.eye(4), perms) == {
        "invariant": True, "permutation-equivariant": None}
    assert pa.symmetries(lambda X: 2 * X, np.eye(4), perms) == {
        "invariant": False, "permutation-equivariant": True}
    assert pa.symmetries(lambda X: np.cumsum(X, axis=0), np.eye(4), perms) == {
        "invariant": False, "permutation-equivariant": False}


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


class TensorLike:
    """An array of another library, as a PyTorch tensor is one: numpy reads it whole through
    ``__array__``; indexed, it gives more of its kind, down to a 0-d one whose ``len`` raises."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def __len__(self):
        if self.values.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.values)

    def __getitem__(self, index):
        return TensorLike(self.values[index])


def test_an_array_of_another_library_is_read_whole_as_numpy_reads_it():
    """pa.rope(torch_tensor) raised "len() of a 0-d tensor": the door walked a tensor as nested
    lists, down to a 0-d entry (notebooks/labs/torch_bridge.ipynb applies pa.rope to tensors)."""
    X = pa.embed(pa.tokenize("dog bites man"))  # (3, 8)
    np.testing.assert_array_equal(pa.rope(TensorLike(X)), pa.rope(X))
    W_Q, W_K, W_V = pa.default_projections()
    np.testing.assert_array_equal(pa.self_attention(TensorLike(X), W_Q, W_K, W_V)[0],
                                  pa.self_attention(X, W_Q, W_K, W_V)[0])

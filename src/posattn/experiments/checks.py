"""The door of the experiments: each public function's arguments checked once, here and through
the package's ``_checks`` (and the registry's, ``schemes``), before any kernel runs."""

import numpy as np

from .._checks import (
    as_matrix,
    check_choice,
    check_finite,
    check_format,
    check_int,
    check_number,
    length,
    real_array,
    shown,
    shown_int,
)
from ..schemes import REGISTRY, _scheme_of
from .tasks import NOUNS, VERBS

MAX_SEEDS = 100  # seeds train side by side: 10 take about a second per scheme, 100 about ten
MAX_PROBE_SEEDS = 30  # a probe's models are larger: 30 seeds take about six seconds
MAX_ROW_LEN = 64  # length_generalisation's longest rows: longer ones make the training slow
# remedy: the schemes whose positions it changes (each scheme names its own: Scheme.remedies)
REMEDIES = {remedy: tuple(sorted(name for name, s in REGISTRY.items() if remedy in s.remedies))
            for remedy in ("randomized", "interpolation")}
PROBE_SCHEMES = ("rope", "relative", "alibi", "alibi_symmetric")  # the probe's relative schemes
MAX_STEPS = 2000  # AdamW steps: the series trains 100 (200 for the probe) and varies 100 … 800
MAX_WIDTH = 64  # the model's width d: the series uses 12 and varies 8 … 24
# A call's work: seeds × steps × (WORK_PER_STEP + n·(n + d)·d), n the longest training row and d
# the width (a step's fixed cost, then its scores and projections). Measured on one core: about
# 25 ns a unit, so MAX_WORK is about a minute. The series' largest call (20 seeds × 800 steps,
# rows of up to 8 words, width 24) is a sixth of it.
WORK_PER_STEP = 20_000
MAX_WORK = 24 * 10**8


def _check_budget(steps, width, seeds, longest: int) -> tuple[int, int]:
    """steps (1 … MAX_STEPS) and an even width (2 … MAX_WIDTH), and their work with these seeds
    and rows of at most ``longest`` words within MAX_WORK."""
    steps = check_int("steps", steps, maximum=MAX_STEPS)
    width = check_int("width", width, minimum=2, maximum=MAX_WIDTH)
    if width % 2:
        raise ValueError(f"width must be even (RoPE turns q and k pair by pair, and sinusoidal "
                         f"positions come in sine–cosine pairs); got {width}.")
    work = len(seeds) * steps * (WORK_PER_STEP + longest * (longest + width) * width)
    if work > MAX_WORK:
        raise ValueError(f"steps and width must fit one call's budget (about a minute of training) "
                         f"with {len(seeds)} seeds on rows of up to {longest} words; got "
                         f"steps={steps:,}, width={width}: {work / MAX_WORK:.1f}× the budget. Use "
                         "fewer steps or seeds, or a smaller width.")
    return steps, width


def _check_seeds(seeds, most: int = MAX_SEEDS) -> list[int]:
    """A non-empty list of at most ``most`` seeds, each an integer ≥ 0 (a range is fine)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (list, tuple, range)):
        raise TypeError(f"seeds must be a list of integers (one seed: seeds=[3]); got "
                        f"{type(seeds).__name__} {shown(seeds, 60)}.")
    if not seeds:
        raise ValueError("seeds must be a non-empty list of integers; got an empty one.")
    try:
        count = len(seeds)
    except OverflowError:  # a range longer than sys.maxsize
        count = abs(seeds.stop - seeds.start) // abs(seeds.step)
    if count > most:
        raise ValueError(f"seeds must hold at most {most:,} seeds here, each of which trains its "
                         f"own model (so that a call takes seconds); got {shown_int(count)}. Use "
                         "fewer seeds: 10 show the spread.")
    return [check_int("seeds[i]", s, minimum=0) for s in seeds]


def _check_row_length(name: str, value) -> int:
    """A row length of 2 to MAX_ROW_LEN words."""
    value = check_int(name, value, minimum=2)
    if value > MAX_ROW_LEN:
        raise ValueError(f"{name} must be at most {MAX_ROW_LEN}; got {value}. Longer rows make "
                         "the training slow: keep them short.")
    return value


def _check_lengths(name: str, values) -> list[int]:
    """A non-empty list of distinct row lengths, each of 2 to MAX_ROW_LEN words."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, range)):
        raise TypeError(f"{name} must be a list of row lengths, such as [8, 16, 32]; got "
                        f"{type(values).__name__} {shown(values, 60)}.")
    count = length(values)  # a range may be long: measured, not read
    if not 0 < count < MAX_ROW_LEN:
        raise ValueError(f"{name} must be a non-empty list of distinct row lengths; got "
                         f"{shown_int(count)} entries (at most {MAX_ROW_LEN - 1}, 2 … "
                         f"{MAX_ROW_LEN}, can be distinct).")
    lengths = [_check_row_length(f"{name}[i]", n) for n in values]  # ints: set() can take them
    if len(set(lengths)) != len(lengths):
        raise ValueError(f"{name} must be a non-empty list of distinct row lengths; got "
                         f"{shown(lengths, 60)}.")
    return lengths


def _check_params(params, scheme, n: int) -> tuple[np.ndarray, ...]:
    """One seed's trained weights: embed (words, d − 1), W_Q, W_K, W_V (d, ·), and the scheme's
    trained table if it has one, as the scheme's own door checks it."""
    chosen = _scheme_of(scheme)
    keys = ["embed", "W_Q", "W_K", "W_V"] + (["table"] if chosen.trained else [])
    if not isinstance(params, dict):
        raise TypeError(f"params must be one seed's weights, a dict such as "
                        f"who_bites_whom(scheme)['params'][0]; got {type(params).__name__} "
                        f"{shown(params, 60)}.")
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"params must hold the weights {', '.join(keys)} for scheme {scheme!r}; "
                         f"got no {', '.join(missing)}. Pass an entry of the 'params' of "
                         "who_bites_whom trained with this scheme.")
    embed = as_matrix("params['embed']", params["embed"], (len(NOUNS) + len(VERBS), "d − 1"),
                      " (one row per word of NOUNS and VERBS)")
    d = embed.shape[1] + 1  # X adds a column of 1s
    W_Q = as_matrix("params['W_Q']", params["W_Q"], (d, "d_k"), f" to match X's {d} features")
    W_K = as_matrix("params['W_K']", params["W_K"], W_Q.shape, ", the shape of W_Q")
    W_V = as_matrix("params['W_V']", params["W_V"], (d, "d_v"), f" to match X's {d} features")
    table = chosen.check_trained(params, n, d, W_Q.shape[1])
    return (embed, W_Q, W_K, W_V) + (() if table is None else (table,))


def _check_numbers(name: str, values) -> list[float]:
    """A non-empty 1-D list of finite numbers, as Python floats."""
    array = real_array(name, values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty list of numbers; got shape {array.shape}.")
    return check_finite(name, array, "Give finite numbers.").tolist()


def _check_accuracies(name: str, values) -> list[float]:
    """A non-empty 1-D list of accuracies, each a fraction from 0 to 1, as Python floats."""
    values = _check_numbers(name, values)
    outside = next(((i, v) for i, v in enumerate(values) if not 0.0 <= v <= 1.0), None)
    if outside is not None:
        raise ValueError(f"{name} must hold accuracies from 0 to 1; got {outside[1]!r} at index "
                         f"{outside[0]}. Give fractions: 0.95 for 95%.")
    return values


def _check_fmt(fmt) -> str:
    """A format string for one number, such as "{:.0%}"."""
    return check_format("fmt", fmt, "{:.0%}")


def _check_grid_length(length, lengths: list[int]) -> None:
    """One of the stored grid's test lengths."""
    if check_int("length", length) not in lengths:
        raise ValueError(f"length must be one of the grid's test lengths, "
                         f"{', '.join(map(str, lengths))}; got {length}.")


def _check_table(rows, columns, corner) -> tuple[dict, list[str], str]:
    """rows: {label: one text per column}; columns: their headers; corner: the labels' header.
    Every text one line, so the table stays aligned (and a deck can read it back)."""
    if isinstance(columns, (str, bytes)) or not isinstance(columns, (list, tuple)) or not columns:
        raise TypeError(f"columns must be a non-empty list of column headers; got "
                        f"{type(columns).__name__} {shown(columns, 60)}.")
    if not isinstance(rows, dict) or not rows:
        raise TypeError(f"rows must be a non-empty dict from a row label to its cells, such as "
                        f"{{'rope': ['100%']}}; got {type(rows).__name__} {shown(rows, 60)}.")
    texts = [("corner", corner), *((f"columns[{i}]", c) for i, c in enumerate(columns))]
    for label, cells in rows.items():
        if isinstance(cells, (str, bytes)) or not isinstance(cells, (list, tuple)):
            raise TypeError(f"rows[{shown(label, 40)}] must be a list of cells; got "
                            f"{type(cells).__name__} {shown(cells, 60)}.")
        if len(cells) != len(columns):
            raise ValueError(f"rows[{shown(label, 40)}] must hold one cell per column "
                             f"({len(columns)}); got {len(cells)}.")
        texts += [(f"rows[{shown(label, 40)}]'s label", label),
                  *((f"rows[{shown(label, 40)}][{i}]", c) for i, c in enumerate(cells))]
    for name, text in texts:  # the corner may be empty (a table of one row, say)
        if not isinstance(text, str) or "\n" in text or not (text.strip() or name == "corner"):
            raise TypeError(f"{name} must be one line of text; got {type(text).__name__} "
                            f"{shown(text, 60)}.")
    return rows, list(columns), corner


def _check_remedy(remedy, scheme) -> None:
    """None, or a remedy of REMEDIES that applies to the scheme."""
    if remedy is None:
        return
    check_choice("remedy", remedy, tuple(REMEDIES))
    if remedy not in _scheme_of(scheme).remedies:
        schemes = " and ".join(map(repr, REMEDIES[remedy]))
        raise ValueError(f"remedy {remedy!r} changes the positions of {schemes} only; got scheme "
                         f"{scheme!r}. Use remedy=None with this scheme.")


def _check_flag(name: str, value, meaning: str) -> bool:
    """True or False (a numpy bool too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False ({meaning}); got {type(value).__name__} "
                        f"{shown(value, 60)}.")
    return bool(value)


def _check_probe(causal, start, scheme):
    """The scheme the probe's head uses (None, "causal", or one of PROBE_SCHEMES), and start."""
    causal = _check_flag("causal", causal, "True: the causal mask; False: bidirectional")
    start = _check_flag("start", start, "True: rows open with a start token")
    if scheme is None:
        return ("causal" if causal else None), start
    check_choice("scheme", scheme, PROBE_SCHEMES)
    if causal:
        raise ValueError(f"causal must be False with scheme {scheme!r}: the scheme brings its own "
                         "mask (\"alibi\" is causal, the others bidirectional); got causal=True.")
    return scheme, start


def _check_ramps(ramps) -> list[tuple[float, float]]:
    """A non-empty list of at most 10 pairs (α, β) of finite numbers, α < β: YaRN's ramps."""
    if isinstance(ramps, (str, bytes)) or not isinstance(ramps, (list, tuple)) or not ramps \
            or len(ramps) > 10:
        raise TypeError(f"ramps must be a list of 1 to 10 pairs (alpha, beta), such as "
                        f"[(1, 32)]; got {type(ramps).__name__} {shown(ramps, 60)}.")
    checked = []
    for pair in ramps:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(f"ramps must hold pairs (alpha, beta); got {shown(pair, 60)}.")
        alpha, beta = (check_number(f"ramps' {k}", v)
                       for k, v in zip(("alpha", "beta"), pair, strict=True))
        if not alpha < beta:
            raise ValueError(f"each ramp must rise: alpha below beta; got {shown(pair, 60)}.")
        checked.append((alpha, beta))
    return checked

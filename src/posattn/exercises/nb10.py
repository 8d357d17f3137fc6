"""Checkers for notebook 10 (where position hides: relative positions and their clip)."""

import numpy as np

from ..embeddings import default_projections
from ..positions import relative_bias
from ..schemes import attention_with_positions
from . import NotYet, as_array, as_rows, checker, close, read_only, returned, say

N_WORDS, CLIP, SWAP = 10, 2, (6, 9)  # exercise 1: ten words, k = 2, words 6 and 9 swap places


def _moved_rows() -> dict[int, float]:
    """For each query whose word stays, how far its row of Y moves when the two words swap."""
    rng = np.random.default_rng(10)
    X = rng.normal(size=(N_WORDS, 8))  # (n, d): ten different words
    table = rng.normal(size=2 * CLIP + 1)  # one bias per offset −k … k, all different
    weights = default_projections()
    swapped = X.copy()
    swapped[list(SWAP)] = X[list(SWAP[::-1])]
    Y, Y_swapped = (attention_with_positions(x, *weights, "relative", table=table,
                                             max_distance=CLIP)[0] for x in (X, swapped))
    return {i: float(np.abs(Y_swapped[i] - Y[i]).max()) for i in range(N_WORDS) if i not in SWAP}


def _why_changed(i: int) -> str:
    """Why query i's row changes when the words at SWAP trade places."""
    a, b = SWAP
    if a < i < b:
        return (f"query {i} sees word {a} on its left and word {b} on its right; the clip keeps "
                "the direction (offsets of −k or less and of +k or more use different end "
                "entries of b), so after the swap each word sits behind a different bias.")
    near = min(abs(i - a), abs(i - b))
    return (f"query {i} is only {near} from a word that moves, closer than k = {CLIP}: an offset "
            "that short has an entry of b of its own, so the swap changes the biases that row "
            "sees.")


def _why_same(i: int) -> str:
    """A question that points at why query i's row stays the same."""
    near = min(abs(i - w) for w in SWAP)
    if near == CLIP:
        return (f"query {i} is missing. It is exactly k = {CLIP} from word {SWAP[0]}: which "
                f"entry of b does an offset of +k get, and which does an offset of "
                f"+{SWAP[1] - i}?")
    return (f"query {i} is missing. Look at its offsets to words {SWAP[0]} and {SWAP[1]}: which "
            "entry of b does each get, before and after the swap?")


@checker("a list of the queries whose row of Y stays the same")
def check_unchanged(rows) -> str:
    """Exercise 1: which rows of Y keep their value when words 6 and 9 of ten trade places?"""
    chosen = as_rows(rows, "unchanged", N_WORDS)
    moved = [i for i in chosen if i in SWAP]
    if moved:
        raise NotYet(f"rows {moved} hold a word that moves; the exercise asks about the queries "
                     "whose own word stays where it is.")
    change = _moved_rows()
    same = [i for i, c in change.items() if c < 1e-12]  # measured: below rounding
    wrong = [i for i in chosen if i not in same]
    if wrong:
        raise NotYet(_why_changed(wrong[0]))
    missing = [i for i in same if i not in chosen]
    if missing:
        raise NotYet(_why_same(missing[-1]))
    return (f"measured: rows {same} stay the same (below 1e-12); every other row moves by at "
            f"least {min(c for i, c in change.items() if i not in same):.2g}.")


CASES = ((5, 2), (4, 1), (3, 0), (6, 3), (1, 2), (9, 2))  # (n, k): clipped, unclipped, k = 0, n = 1


def _tables():
    """Each case with its own random table b of 2k + 1 different numbers."""
    rng = np.random.default_rng(11)
    return [(n, rng.normal(size=2 * k + 1), k) for n, k in CASES]


def _offsets(n: int, k: int):
    i = np.arange(n)
    return i[None, :] - i[:, None], k  # j − i, (n, n)


SLIPS = (  # (what a known slip computes from b, j − i and k; the hint that names it)
    (lambda b, d, k: b[np.clip(-d, -k, k) + k],
     "your B is the transpose of the scheme's: the offset is j − i (the key's position minus the "
     "query's), so B[0, 1] is the entry for the offset +1."),
    (lambda b, d, k: b[np.clip(np.abs(d), -k, k) + k],
     "your B is the same above and below the diagonal: the offsets +1 and −1 must use different "
     "entries of b (the scheme sees direction)."),
    (lambda b, d, k: b[np.clip(d, -k, k)],
     "the entry for the offset −k is b[0] and for the offset 0 is b[k]: shift the clipped "
     "offset by k before looking it up."),
    (lambda b, d, k: b[(d + k) % len(b)],
     "offsets beyond ±k wrap around the table instead of sticking at its ends: clip them to "
     "−k … k first."),
)


def _call(f, n: int, table, k: int):
    """The learner's B, or NotYet naming what went wrong."""
    if not callable(f):
        raise NotYet(f"relative_bias_by_hand must be a function; got {type(f).__name__}.")
    try:
        out = f(n, table.copy(), k)
    except IndexError as exc:
        raise NotYet(f"relative_bias_by_hand({n}, b, {k}) raised {say(exc)}: an offset beyond "
                     "±k has no entry of its own; clip it to −k … k first.") from None
    except NameError:  # named where it is defined, as every checker names it
        raise
    except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
        raise NotYet(f"relative_bias_by_hand raised {say(exc)}") from None
    out = returned(out, "relative_bias_by_hand")
    return as_array(out, f"relative_bias_by_hand({n}, b, {k})", (n, n))


@checker("a function relative_bias_by_hand(n, table, max_distance)")
def check_relative_bias(relative_bias_by_hand) -> str:
    """Exercise 2: build B[i, j] = b[clip(j − i, −k, k) + k] yourself."""
    answers = []
    for n, b, k in _tables():
        try:
            answers.append((n, b, k, _call(relative_bias_by_hand, n, b, k)))
        except NotYet as hint:
            answers.append((n, b, k, hint))
    wrong = [(n, b, k, got) for n, b, k, got in answers
             if isinstance(got, NotYet) or not close(got, relative_bias(n, b, k))]
    if wrong and all(k != CLIP for n, b, k, got in wrong):  # right whenever k is exercise 1's
        n, b, k, got = wrong[0]
        raise NotYet(f"relative_bias_by_hand is right when max_distance = {CLIP}, exercise 1's "
                     f"k, but not for relative_bias_by_hand({n}, b, {k}): is {CLIP} written into "
                     "your function? Use its argument max_distance.")
    if wrong and isinstance(wrong[0][3], NotYet):
        raise wrong[0][3]
    if not wrong:
        return ("B depends on j − i alone, and every offset of ±k or more gets an end entry: "
                "the same as pa.relative_bias.")
    n, b, k, got = wrong[0]
    for slip, hint in SLIPS:  # a slip that explains this answer
        if close(got, slip(b, *_offsets(n, k))):
            raise NotYet(f"relative_bias_by_hand({n}, b, {k}): {hint}")
    raise NotYet(f"relative_bias_by_hand({n}, b, max_distance={k}) differs from the scheme's "
                 "bias. Work out one entry by hand from the exercise's formula and compare.")


read_only(globals())  # the checkers' own data: an answer cannot write into it

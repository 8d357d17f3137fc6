"""Checkers for notebook 09 (who bites whom: a trained model)."""

import itertools

from ..experiments import noun_pairs, who_bites_whom
from ..schemes import SCHEMES
from . import NotYet, as_array, as_choice, call, checker, close, read_only

# Where the notebook defines the names an answer may use (a NameError's hint names the cell).
DEFINED_IN = {
    "pairs": "in the cell of \"Test pairs are new\" (`pairs = ex.noun_pairs(seed=0)`)",
    "who": "in section 4's first code cell (`who = {label: ex.who_bites_whom(…) …}`)",
}

BLIND = ("none", "alibi_symmetric")
WHY_BLIND = {  # the question that shows why a blind scheme is blind
    "none": "Without positions, what does attention do to the rows of 'Y bites X' compared with "
            "'X bites Y', and what does the mean of Y's rows do then? (section 3)",
    "alibi_symmetric": "Its bias −m·|i − j| depends on distance only: does reading a three-word "
                       "sentence backwards change any distance |i − j|? (section 3)",
}
WHY_AWARE = ("Does this scheme make the first word of a sentence look different from the last "
             "one? If it does, a read-out can learn to pick the first noun (section 3).")


@checker('a scheme name ("none" or None for no positions) and a prediction, "chance" or "learns"',
         none_is_an_answer=("scheme",))
def check_prediction(scheme, prediction) -> str:
    """Exercise 1: predict a scheme's mirrored accuracy on another split (seed 2), then measure.

    ``scheme=None`` means no positions, as it does in ``pa.attention_with_positions``.
    """
    scheme = as_choice("none" if scheme is None else scheme, ("none", *SCHEMES), "scheme")
    prediction = as_choice(prediction, ("chance", "learns"), "prediction")
    scheme_or_none = None if scheme == "none" else scheme
    measured = who_bites_whom(scheme_or_none, seeds=[2])["mirrored_accuracy"][0]
    outcome = "chance" if measured <= 0.5 else "learns" if measured >= 0.95 else "in between"
    if outcome == "in between":  # neither prediction holds: say so, it is a measurement
        raise NotYet(f"measured on seed 2: {measured:.0%} on mirrored pairs, neither at most 50% "
                     "nor at least 95%. Try another scheme.")
    if prediction != outcome:
        why = WHY_BLIND[scheme] if scheme in BLIND else WHY_AWARE
        raise NotYet(f"the measurement on seed 2 does not match {prediction!r} for {scheme!r}. "
                     + why)
    return f"measured on seed 2: {measured:.0%} on mirrored pairs, as you predicted."


def _cases() -> list[list[tuple[int, int]]]:
    """Lists of pairs to try: small ones first, then the notebook's own training pairs."""
    return [[(0, 1), (1, 0)], [(0, 1), (2, 3)], [(0, 1), (1, 0), (0, 2)],
            list(itertools.permutations(range(4), 2)), noun_pairs(0)["train"]]


def _mirrored(pairs) -> int:
    """How many pairs of the list have their mirror in it too (each mirrored pair counts twice)."""
    return sum((o, s) in pairs for s, o in pairs)


SLIPS = (  # (what a known slip returns, the hint that names it)
    (lambda pairs: 1 - _mirrored(pairs) / len(pairs),
     "you counted both sentences of a mirrored pair as mistakes, but one answer fits one of "
     "the two: a pair costs one."),
    (lambda pairs: _mirrored(pairs) / 2 / len(pairs),
     "that is the fraction of sentences a blind model must get wrong; the exercise asks for "
     "the fraction it can get right."),
    (lambda pairs: len(pairs) - _mirrored(pairs) / 2,
     "that is a count of sentences; return a fraction of the list, between 0 and 1."),
)


def _number(answer) -> float:
    """One number, whether it comes as a float, a float32, a Fraction or a one-entry array."""
    array = as_array(answer, "ceiling(pairs)")
    if array.size != 1:
        raise NotYet(f"ceiling(pairs) must return one number; got shape {array.shape}.")
    return float(array.ravel()[0])


@checker("a function ceiling(pairs) that returns a number between 0 and 1")
def check_ceiling(ceiling) -> str:
    """Exercise 2: the best accuracy any no-position model can reach on a list of noun pairs."""
    answers = [(pairs, _number(call(ceiling, list(pairs), name="ceiling"))) for pairs in _cases()]
    wrong = [(pairs, got) for pairs, got in answers
             if not close(got, 1 - _mirrored(pairs) / 2 / len(pairs))]
    if not wrong:
        return "a sentence and its mirror get one answer, so each mirrored pair costs one mistake."
    pairs, got = wrong[0]
    shown = pairs if len(pairs) <= 12 else f"pairs['train'] ({len(pairs)} pairs)"
    hint = next((hint for slip, hint in SLIPS  # a slip that explains every answer
                 if all(close(g, slip(p)) for p, g in answers)), None)
    if hint is None:
        hint = ("an accuracy lies between 0 and 1." if not 0 <= got <= 1 else
                "a pair whose mirror is also in the list costs one mistake per two sentences; "
                "a pair without its mirror costs none.")
    raise NotYet(f"ceiling({shown}) gave {got:.3g}: {hint}")


read_only(globals())  # the checkers' own data: an answer cannot write into it

"""Checkers for notebook 09 (who bites whom: a trained model)."""

import itertools

from ..experiments import who_bites_whom
from ..positions import SCHEMES
from . import NotYet, as_array, as_choice, call, checker


@checker('a scheme name ("none" for no positions) and a prediction, "chance" or "learns"')
def check_prediction(scheme, prediction) -> str:
    """Exercise 1: predict a scheme's mirrored accuracy on another split (seed 2), then measure."""
    scheme = as_choice(scheme, ("none", *SCHEMES), "scheme")
    prediction = as_choice(prediction, ("chance", "learns"), "prediction")
    measured = who_bites_whom(None if scheme == "none" else scheme, seed=2)["mirrored_accuracy"]
    outcome = "chance" if measured <= 0.5 else "learns" if measured >= 0.95 else "in between"
    if prediction != outcome:
        raise NotYet(f"measured on seed 2: {measured:.0%} on mirrored pairs, so the answer is "
                     f"{outcome!r}. Can this scheme tell a sentence from its mirror image?")
    return f"measured on seed 2: {measured:.0%} on mirrored pairs, as you predicted."


@checker("a function ceiling(pairs) that returns a number between 0 and 1")
def check_ceiling(ceiling) -> str:
    """Exercise 2: the best accuracy any no-position model can reach on a list of noun pairs."""
    cases = [[(0, 1), (1, 0)], [(0, 1), (2, 3)], [(0, 1), (1, 0), (0, 2)],
             list(itertools.permutations(range(4), 2))]
    for pairs in cases:
        got = float(as_array(call(ceiling, list(pairs), name="ceiling"), "ceiling(pairs)", ()))
        mirrored = sum((o, s) in pairs for s, o in pairs)  # counts each mirrored pair twice
        expected = 1 - mirrored / 2 / len(pairs)
        if abs(got - expected) > 1e-9:
            raise NotYet(f"ceiling({pairs}) gave {got:.3g}; expected {expected:.3g}. A pair whose "
                         "mirror is also in the list costs one mistake per two sentences.")
    return "a sentence and its mirror get one answer, so each mirrored pair costs one mistake."

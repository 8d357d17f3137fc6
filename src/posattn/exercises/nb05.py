"""Checkers for notebook 05 (the explorer): orders that swap only equal words change nothing."""

from collections.abc import Iterator, Mapping, Set
from itertools import permutations

from ..embeddings import tokenize
from . import NotYet, as_array, call, checker, read_only

ROSE = tuple(tokenize("a rose is a rose"))
SENTENCES = tuple(tuple(tokenize(s)) for s in ("the dog bit the man", "a rose is a rose",
                                               "dog bites man", "la la la"))


def _invisible(tokens) -> set[tuple[int, ...]]:
    """Every order that puts an equal word in every slot (P X = X), from the words alone."""
    return {p for p in permutations(range(len(tokens)))
            if tuple(tokens[i] for i in p) == tuple(tokens)}


def _order(answer, n: int, name: str) -> tuple[int, ...]:
    """The answer as an order of range(n), or NotYet."""
    got = as_array(answer, name, (n,)).tolist()
    if sorted(got) != list(range(n)):
        raise NotYet(f"{name} must hold each of 0 … {n - 1} once; got {got}.")
    return tuple(int(i) for i in got)


def _missed(tokens, found, expected, complete) -> str:
    """The hint for a search that found only some of the orders that change nothing."""
    said = (f"for {tokens} you found {len(found)} of the {len(expected)} orders that put an "
            "equal word in every slot (for each, X[order] is X itself).")
    rounding = ("identical rows computed in different places can differ in the last bit, so "
                "compare with a tolerance (np.allclose) rather than exactly.")
    if complete:  # the search found every order of a sentence with twins before
        return (f"{said} Your function found every such order of {complete[-1]}, so it tries "
                f"every order: where it compares numbers, {rounding}")
    return (f"{said} Did you try every order (pa.all_permutations)? If you did: {rounding}")


@checker("an order of the five words, such as [1, 0, 2, 3, 4]")
def check_rose_order(rose_order):
    """Exercise 1: an order of "a rose is a rose" that moves four words and changes nothing."""
    order = _order(rose_order, len(ROSE), "rose_order")
    moved = sum(i != p for i, p in enumerate(order))
    if order not in _invisible(ROSE):
        raise NotYet(f"this order makes '{' '.join(ROSE[i] for i in order)}': a different "
                     "sentence, so the picture moves. Send each word to a slot holding the "
                     "same word.")
    if moved != 4:
        raise NotYet(f"this order changes nothing, but it moves {moved} words, not 4. "
                     "Which words have a twin to trade places with?")
    return "both pairs of twins trade places: P X = X, so A and Y cannot change at all."


@checker("a function invisible_orders(tokens) that returns a list of orders")
def check_invisible_orders(invisible_orders):
    """Exercise 2: every order of a sentence that leaves its picture exactly as it was."""
    complete = []  # the sentences with more than one such order whose orders were all found
    for sentence in SENTENCES:
        tokens = list(sentence)  # the learner's function gets a list, as pa.tokenize returns
        out = call(invisible_orders, tokens, name="invisible_orders")
        if isinstance(out, (Set, Mapping, Iterator)):
            raise NotYet(f"invisible_orders should return a list of orders (each a list of "
                         f"{len(tokens)} numbers); for {tokens} it returned a "
                         f"{type(out).__name__}. Put the orders in a list.")
        got = as_array(out, "the returned orders")
        if got.size and (got.ndim != 2 or got.shape[1] != len(tokens)):
            raise NotYet(f"for {tokens} return a list of orders, each {len(tokens)} numbers; "
                         f"got an array of shape {got.shape}.")
        orders = [_order(row, len(tokens), "each order") for row in got.reshape(-1, len(tokens))]
        found, expected = set(orders), _invisible(tokens)
        if len(orders) != len(found):
            twice = next(order for order in orders if orders.count(order) > 1)
            raise NotYet(f"for {tokens}: the order {list(twice)} is returned more than once; "
                         "return each order once.")
        if tuple(range(len(tokens))) not in found:
            raise NotYet(f"for {tokens}: the original order changes nothing either; include it.")
        if extra := sorted(found - expected):
            raise NotYet(f"for {tokens}: the order {list(extra[0])} makes "
                         f"'{' '.join(tokens[i] for i in extra[0])}', so the picture changes.")
        if found != expected:
            raise NotYet(_missed(tokens, found, expected, complete))
        if len(expected) > 1:
            complete.append(tokens)
    return "an order is invisible exactly when it only swaps equal words: P X = X."


read_only(globals())  # the checkers' own data: an answer cannot write into it

"""Checkers for notebook 04 (where could position enter?)."""

from ..attention import self_attention
from ..embeddings import default_projections, embed, tokenize
from ..permutations import permutation_matrix
from . import NotYet, as_array, as_choice, as_rows, checker, close, read_only

PERM = (1, 2, 0)  # the order of exercise 1: "dog bites man" -> "bites man dog"


@checker("a 3×3 array built from A and perm")
def check_shuffled_attention(A_shuffled):
    """Exercise 1: the attention matrix of "dog bites man" reordered by PERM, from A alone.

    A' = P A Pᵀ,  i.e.  A'[i, j] = A[perm[i], perm[j]]
    """
    got = as_array(A_shuffled, "A_shuffled", (3, 3))
    A = self_attention(embed(tokenize("dog bites man")), *default_projections())[1]  # (n, n)
    P = permutation_matrix(PERM)
    if close(got, P @ A @ P.T):
        return "the rows and the columns both move with the tokens: A' = P A Pᵀ."
    if close(got, A):
        raise NotYet("that is A itself; the tokens moved, so the weights move with them.")
    if close(got, P @ A) or close(got, A @ P.T):
        raise NotYet("only one side moved: each token is both a query (a row) and a key "
                     "(a column).")
    if close(got, P.T @ A @ P):
        raise NotYet("that reorders by the inverse of perm: it sends token i to slot perm[i], "
                     "but slot i of the new sentence holds token perm[i].")
    if close(got.T, P @ A @ P.T) or close(got, A.T):
        raise NotYet("rows and columns are swapped: row i holds query i's weights, and each "
                     "row of an attention matrix sums to 1.")
    raise NotYet("row i of the new matrix belongs to token perm[i]; which column holds its weight "
                 "for token perm[j]?")


@checker("a list of row indices such as [0, 6]")
def check_changed_rows(changed_rows):
    """Exercise 2: which output rows change when tokens 1 and 4 of a 7-token sentence swap?"""
    got = set(as_rows(changed_rows, "changed_rows", 7))
    listed = as_array(list(changed_rows) if isinstance(changed_rows, (set, frozenset))
                      else changed_rows, "changed_rows").ravel().tolist()
    if len(listed) != len(got):
        twice = next(int(r) for r in listed if listed.count(r) > 1)
        raise NotYet(f"row {twice} is listed more than once: name each row that changes once.")
    if got == {1, 4}:
        return "only the two swapped rows change, and they simply trade places: Y' = P Y."
    if got == {2, 5}:
        raise NotYet("rows are numbered from 0 here, as in numpy (row 0 is the first token): "
                     "did you count from 1?")
    if not got:
        raise NotYet("something does change: two tokens moved, so their outputs move too.")
    if got > {1, 4}:
        raise NotYet("too many: a token that stayed put sees the same bag of keys and values, "
                     "so its output is unchanged.")
    raise NotYet("think of Y' = P Y: which rows does this P move?")


_WRONG = {
    "a": "W_Q is shared by every position, so a different W_Q changes every token alike; "
         "positions still never enter.",
    "b": "a different scale still uses only q_i·k_j, which depends on the two words, "
         "not on where they sit.",
    "d": "a sum does not depend on the order of its terms (up to rounding), so nothing about "
         "position gets in.",
}


@checker('one of "a", "b", "c", "d"')
def check_position_entry(choice):
    """Exercise 3: which change to the score lets α_ij depend on where tokens sit? One letter."""
    letter = as_choice(choice, ("a", "b", "c", "d"))
    if letter != "c":
        raise NotYet(_WRONG[letter])
    return "a term in i − j uses the indices as numbers: now where tokens sit changes the weights."


read_only(globals())  # the checkers' own data: an answer cannot write into it

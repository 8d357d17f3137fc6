"""Words to vectors: a tokenizer, stable token embeddings, default projections.

The same word gets the same embedding in every process and on every machine:
its row is drawn from a generator seeded by a SHA-256 digest of the word (never
Python's ``hash()``, which is salted per process).
"""

import re
import unicodedata
from collections.abc import Iterable, Sized

import numpy as np

from ._checks import (
    MAX_ENTRIES,
    bounded_list,
    check_int,
    check_size,
    length,
    shown,
    shown_int,
)

_JOINERS = "'’-_"  # inside a word they join two runs: dog's, well-known, dog_bites
_DROPPED = set('.,;:!?"()–—' + _JOINERS)  # sentence punctuation, and joiners that join nothing


def _kind(c: str) -> str:
    """w: part of a word (a letter with its marks, a digit); j: a joiner; space; ?: unreadable."""
    if unicodedata.category(c)[0] in "LMN":
        return "w"
    return "j" if c in _JOINERS else " " if c.isspace() or c in _DROPPED else "?"


def _words(text: str) -> list[str]:
    """The maximal runs of word characters, joined by single apostrophes, hyphens or underscores."""
    kinds = "".join(map(_kind, text))  # one letter per character of text
    return [text[m.start():m.end()] for m in re.finditer(r"w+(?:jw+)*", kinds)]


def _has_utf8(word: str) -> bool:
    try:
        word.encode()
    except UnicodeEncodeError:
        return False
    return True


def _word_seed(word: str, seed: int) -> int:
    import hashlib  # on first use, not at import: `import posattn` stays light

    digest = hashlib.sha256(f"{seed}\x00{word}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _embed(tokens: list, d: int, seed: int):
    """Row t of X is a standard normal vector drawn from a generator seeded by token t's digest
    (drawn once per distinct word, then gathered: a million tokens of few words is quick)."""
    words = {t: i for i, t in enumerate(dict.fromkeys(tokens))}  # each distinct word, in order
    rows = np.stack([np.random.default_rng(_word_seed(t, seed)).standard_normal(d) for t in words])
    return rows[[words[t] for t in tokens]]  # (n, d)


def _projections(d: int, d_k: int, d_v: int, seed: int):
    """W_Q (d, d_k), W_K (d, d_k), W_V (d, d_v), drawn in that order, entries N(0, 1/d)."""
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(0.0, 1.0 / np.sqrt(d), (d, cols)) for cols in (d_k, d_k, d_v))


def tokenize(sentence: str) -> list[str]:
    """Split a sentence into case-folded words; sentence punctuation is dropped.

    A word is a maximal run of letters (with their accents and other combining marks) and
    digits, in which a single apostrophe, hyphen or underscore may join two runs: "dog's",
    "well-known" and "dog_bites" are one word each. The text is first put in Unicode's
    composed form (NFC) and case-folded, so a pasted "café" whose accent is a separate
    character is the same word as "café", and "İstanbul" stays one word. Any other character
    is refused, shown escaped when it is invisible.

    >>> tokenize("Dog bites man.")
    ['dog', 'bites', 'man']
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a string; got {type(sentence).__name__} "
                        f"{shown(sentence)}.")
    text = unicodedata.normalize("NFC", unicodedata.normalize("NFC", sentence).casefold())
    unreadable = sorted({c for c in set(text) if _kind(c) == "?"})
    if unreadable:
        listed = ", ".join(map(repr, unreadable[:10]))  # repr escapes invisible characters
        raise ValueError("sentence must hold words and ordinary punctuation; got characters it "
                         f"cannot read: {listed}. Use letters, digits and . , ; : ! ? ' - ( ).")
    return _words(text)


def embed(tokens, d: int = 8, seed: int = 0) -> np.ndarray:
    """Stack one stable, standard normal embedding per token into X, shape (n, d).

    >>> X = embed(["dog", "bites", "man"])
    >>> X.shape, bool((embed(["man"]) == X[2]).all())
    ((3, 8), True)
    """
    if isinstance(tokens, str):
        raise TypeError(f"tokens must be a list of words; got the string {shown(tokens)}. "
                        "Use tokenize(sentence) first.")
    if not isinstance(tokens, Iterable):
        raise TypeError(f"tokens must be a list of words; got {type(tokens).__name__} "
                        f"{shown(tokens)}. Use tokenize(sentence) first.")
    d, seed = check_int("d", d), check_int("seed", seed, minimum=0)
    count = length(tokens) if isinstance(tokens, Sized) else 1  # an iterator: one row, then read
    check_size("d", f"{shown_int(count)} tokens and d = {d}", count * d, "X (n, d)",
               "Use a smaller d.")
    tokens = bounded_list("tokens", tokens, MAX_ENTRIES // d, f"X (n, d) with d = {d}")
    if not tokens:
        raise ValueError("tokens must hold at least one word; got an empty list.")
    bad = [t for t in tokens if not isinstance(t, str) or not t]
    if bad:
        raise TypeError(f"tokens must be non-empty strings; got {shown(bad[0])}.")
    unwritable = next((t for t in dict.fromkeys(tokens) if not _has_utf8(t)), None)
    if unwritable is not None:
        raise ValueError(f"tokens must be readable text; got {shown(unwritable)}, which holds a "
                         "lone surrogate (half of a UTF-16 pair) that no text encoding can "
                         "write. Use tokenize(sentence), or the word's whole character.")
    return _embed(tokens, d, seed)


def default_projections(d: int = 8, d_k: int = 4, d_v: int = 4, seed: int = 0):
    """Fixed random W_Q, W_K (d, d_k) and W_V (d, d_v), standing in for trained ones.

    Entries are normal with standard deviation 1/√d, so q, k and v have
    entries of order 1 for embeddings of order 1.

    >>> [W.shape for W in default_projections(8, 4, 2)]
    [(8, 4), (8, 4), (8, 2)]
    """
    d, d_k, d_v = check_int("d", d), check_int("d_k", d_k), check_int("d_v", d_v)
    check_size("d", f"d = {d}, d_k = {d_k} and d_v = {d_v}", d * max(d_k, d_v), "each W",
               "Use smaller sizes.")
    return _projections(d, d_k, d_v, check_int("seed", seed, minimum=0))

"""Results shown as typeset formulas: LaTeX where it renders, plain text where it does not.

A notebook cell that ends with a `Typeset` shows the formula typeset: JupyterLab, the decks and
the book all render an output's ``text/latex`` with MathJax. Its ``text/plain`` stays readable
(a terminal, a diff), and nbval compares both, so the measured numbers are still checked.
"""

import numpy as np

from ._checks import shown as bounded


class Typeset:
    """A result as a display formula (``latex``, without delimiters) and as plain ``text``."""

    def __init__(self, latex: str, text: str):
        self.latex, self.text = latex, text

    def _repr_latex_(self) -> str:
        return f"$$\n{self.latex}\n$$"

    def __repr__(self) -> str:
        return self.text


def number(x: float, digits: int = 3) -> str:
    """``x`` rounded to ``digits`` decimals, without trailing zeros: 0.5, -1.185, 1, -inf.

    >>> number(-1.18512), number(-0.50), number(2.0), number(-0.0001), number(-np.inf)
    ('-1.185', '-0.5', '2', '0', '-inf')
    """
    if np.isinf(x):
        return "-inf" if x < 0 else "inf"
    return np.format_float_positional(round(float(x), digits) + 0.0, trim="-")  # no "-0"


def latex_value(text: str) -> str:
    r"""A printed value as LaTeX: numbers as math (1e-12 as $10^{-12}$, inf as $\infty$), words
    upright.

    >>> latex_value("below 1e-12"), latex_value("-inf"), latex_value("1.9")
    ('\\text{below } 10^{-12}', '-\\infty', '1.9')
    """
    parts, words = [], []
    for word in text.split():
        try:
            float(word)
        except ValueError:
            words.append(word)
            continue
        if words:
            parts.append(rf"\text{{{' ' if parts else ''}{' '.join(words)} }}")
            words = []
        mantissa, _, exponent = word.partition("e")
        power = f"10^{{{int(exponent)}}}" if exponent else ""
        mantissa = mantissa.replace("inf", r"\infty")
        parts.append(power if mantissa in ("1", "1.0") and power
                     else rf"{mantissa} \times {power}" if power else mantissa)
    if words:
        parts.append(rf"\text{{{' ' if parts else ''}{' '.join(words)}}}")
    return " ".join(parts)


def matrix(M, name: str = "", text_name: str = "", digits: int = 3) -> Typeset:
    r"""A 2-D array as a bracketed matrix, ``name =`` in front when given; text as numpy prints it.

    >>> matrix([[0, -np.inf], [-0.5, 0]], name="B").latex
    'B = \\begin{bmatrix} 0 & -\\infty \\\\ -0.5 & 0 \\end{bmatrix}'
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2:
        raise ValueError(f"M must be a 2-D array; got shape {M.shape}. Pass one matrix.")
    rows = " \\\\ ".join(" & ".join(latex_value(number(x, digits)) for x in row) for row in M)
    latex = rf"\begin{{bmatrix}} {rows} \end{{bmatrix}}"
    text = np.array2string(np.round(M, digits) + 0.0)  # + 0.0: no "-0."
    return Typeset(f"{name} = {latex}" if name else latex,
                   f"{text_name or name} =\n{text}" if (text_name or name) else text)


def results(rows) -> Typeset:
    r"""Measured results, one per line: (LaTeX of the quantity, its plain text, the value); a
    value is printed text (typeset by `latex_value`) or a `Typeset`, such as a `matrix`.

    >>> results([(r"E_p \cdot E_q", "E_p · E_q", "below 1e-12")])
    E_p · E_q   below 1e-12
    >>> results([(r"E_p \cdot E_q", "E_p · E_q", "below 1e-12")]).latex
    '\\begin{aligned} E_p \\cdot E_q &\\quad \\text{below } 10^{-12} \\end{aligned}'
    """
    rows = [tuple(row) for row in rows]
    if not rows or any(len(row) != 3 for row in rows):
        raise ValueError(f"rows must be (latex, text, value) triples; got {bounded(rows)}.")
    width = max(len(text) for _, text, _ in rows)
    shown = [value if isinstance(value, Typeset) else Typeset(latex_value(value), value)
             for _, _, value in rows]
    lines = " \\\\ ".join(rf"{latex} &\quad {value.latex}"
                          for (latex, _, _), value in zip(rows, shown, strict=True))
    return Typeset(rf"\begin{{aligned}} {lines} \end{{aligned}}",
                   "\n".join(f"{text:{width}}   {value.text}"
                             for (_, text, _), value in zip(rows, shown, strict=True)))

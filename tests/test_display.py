"""posattn.display: a result typeset where LaTeX renders, and readable as plain text."""

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from posattn import display


def bundle(obj) -> dict:
    """The mime bundle a notebook saves for obj as a cell's result."""
    data, _ = DisplayFormatter().format(obj)
    return data


def test_a_typeset_result_is_saved_as_latex_and_as_readable_text():
    data = bundle(display.Typeset(r"x^2", "x squared"))
    assert data["text/latex"] == "$$\nx^2\n$$"
    assert data["text/plain"] == "x squared"


def test_a_matrix_is_a_bracketed_matrix_with_infinities_and_numpys_printout():
    M = np.array([[0.0, -np.inf], [-0.5, 0.0]])
    shown = display.matrix(M, name="B")
    assert shown.latex == r"B = \begin{bmatrix} 0 & -\infty \\ -0.5 & 0 \end{bmatrix}"
    assert repr(shown) == "B =\n" + np.array2string(M)


def test_a_matrix_rounds_like_the_printout():
    shown = display.matrix([[1.23456, -2.0]], digits=2)
    assert r"1.23 & -2 \end" in shown.latex
    assert repr(shown) == np.array2string(np.round([[1.23456, -2.0]], 2))


def test_a_matrix_names_a_wrong_shape():
    with pytest.raises(ValueError, match=r"M must be a 2-D array; got shape \(3,\)"):
        display.matrix([1.0, 2.0, 3.0])


def test_results_align_in_text_and_typeset_each_value():
    shown = display.results([(r"E_p \cdot E_q", "E_p · E_q", "below 1e-12"),
                             (r"E_p W_Q W_K^\top E_q^\top", "E_p W_Q W_Kᵀ E_qᵀ", "1.9")])
    assert repr(shown).splitlines() == ["E_p · E_q           below 1e-12",
                                        "E_p W_Q W_Kᵀ E_qᵀ   1.9"]
    assert shown.latex.startswith(r"\begin{aligned} E_p \cdot E_q &\quad \text{below } 10^{-12}")
    assert shown.latex.endswith(r"E_p W_Q W_K^\top E_q^\top &\quad 1.9 \end{aligned}")


@pytest.mark.parametrize("rows", [[], [("x", "x")], [("x", "x", "1", "2")]])
def test_results_name_rows_that_are_not_triples(rows):
    with pytest.raises(ValueError, match="rows must be"):
        display.results(rows)


@pytest.mark.parametrize(("printed", "latex"), [
    ("below 1e-12", r"\text{below } 10^{-12}"),
    ("2.5e-07", r"2.5 \times 10^{-7}"),
    ("-inf", r"-\infty"),
    ("0.133", "0.133"),
    ("at most 3 rows", r"\text{at most } 3 \text{ rows}"),
])
def test_printed_values_become_latex(printed, latex):
    assert display.latex_value(printed) == latex


def test_a_result_can_be_a_matrix():
    shown = display.results([(r"\alpha_t", "alpha_t", display.matrix([[1.0, 0.25]]))])
    assert shown.latex == (r"\begin{aligned} \alpha_t &\quad "
                           r"\begin{bmatrix} 1 & 0.25 \end{bmatrix} \end{aligned}")
    assert repr(shown) == "alpha_t   [[1.   0.25]]"

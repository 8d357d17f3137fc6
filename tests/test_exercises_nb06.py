"""Notebook 06 (the whole Transformer): the checkers accept every correct form of an answer and
say "Not yet", with a hint that names the mistake, to the plausible wrong ones."""

import numpy as np
import pytest

import posattn as pa
from posattn.exercises import nb06
from solutions import nb06_solutions as SOL


def test_solutions_pass_their_checkers():
    assert nb06.check_layer_norm(SOL.my_layer_norm).ok
    assert nb06.check_breaking_change(SOL.breaking_change).ok
    assert nb06.check_set_vector(SOL.set_vector).ok
    assert nb06.check_reordered_cross_attention(SOL.Y_expected).ok


def _centred(X):
    return X - X.mean(axis=1, keepdims=True)


@pytest.mark.parametrize("answer", [
    lambda X: _centred(X) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5),  # np.var
    lambda X: _centred(X) / np.sqrt(X.std(axis=1, keepdims=True) ** 2 + 1e-5),  # np.std
    lambda X: np.array([(x - x.mean()) / np.sqrt(x.var() + 1e-5) for x in X]),  # a loop
    lambda X: SOL.my_layer_norm(X.astype(np.float32)),  # float32
], ids=["var", "std", "loop", "float32"])
def test_every_form_of_layer_norm_is_right(answer):
    feedback = nb06.check_layer_norm(answer)
    assert feedback.ok, feedback


@pytest.mark.parametrize(("answer", "message"), [
    (lambda X: (X - X.mean(axis=0)) / X.std(axis=0), "columns have mean 0"),  # the wrong axis
    (lambda X: X - 1.0, "should have mean 0"),
    (lambda X: X / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5), "should have mean 0"),
    (lambda X: _centred(X), "wrong spread: divide by √(variance + 1e-5)"),  # not normalised
    (lambda X: _centred(X) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + 1e-5), "ddof=1"),
    (lambda X: _centred(X) / X.std(axis=1, keepdims=True), "the 1e-5 is missing"),
    (lambda X: _centred(X) / (X.var(axis=1, keepdims=True) + 1e-5), "not by the variance"),
    (lambda X: _centred(X)[:, :2], "shape (5, 6)"),
])
def test_wrong_layer_norms_get_a_hint(answer, message):
    feedback = nb06.check_layer_norm(answer)
    assert not feedback.ok and message in feedback.message, feedback


@pytest.mark.parametrize("answer", ["e", "E", "(e)", " e "])
def test_the_window_is_right_in_any_spelling(answer):
    assert nb06.check_breaking_change(answer).ok


@pytest.mark.parametrize(("answer", "message"), [
    ("a", "GELU"), (" B ", "more heads"), ("c", "a mean is invariant"), ("d", "P M Pᵀ = M"),
    ("f", "it is invariant"), ("g", "must be one of"),
])
def test_each_wrong_change_gets_its_reason(answer, message):
    feedback = nb06.check_breaking_change(answer)
    assert not feedback.ok and message in feedback.message, feedback


W = np.random.default_rng(1).standard_normal((2, 8))  # φ's weights for a Deep Sets answer
b = np.random.default_rng(2).standard_normal(8)


def _moments(P):  # power sums with cross terms: Σ x^a y^c
    return np.array([(P[:, 0] ** a * P[:, 1] ** c).sum() for a in range(3) for c in range(3)])


@pytest.mark.parametrize("answer", [
    lambda P: SOL.set_vector(P).astype(np.float32),  # float32
    lambda P: np.tanh(P @ W + b).sum(axis=0),  # Deep Sets: Σ φ(x_i)
    lambda P: sum(np.tanh(p @ W + b) for p in P),  # the same, as a loop
    lambda P: np.tanh(np.tanh(P @ W + b).sum(axis=0) @ W.T),  # with a ρ
    lambda P: P[np.lexsort(P.T[::-1])].ravel(),  # another valid choice: sort whole points
    _moments,
], ids=["float32", "deep sets", "loop", "rho", "sorted points", "moments"])
def test_every_invariant_set_function_that_tells_sets_apart_is_right(answer):
    feedback = nb06.check_set_vector(answer)
    assert feedback.ok, feedback


@pytest.mark.parametrize(("answer", "message"), [
    (lambda P: P[0], "another order"),
    (lambda P: np.ones(3), "did not change"),
    (lambda P: np.tanh(P @ W + b).max(axis=0), "did not change"),
    (lambda P: P.mean(axis=0), "same mean and size"),
    (lambda P: (P @ W).sum(axis=0), "same mean and size"),  # a linear φ keeps only the mean
    (lambda P: np.sort(P, axis=0).ravel(), "loses which x goes with which y"),  # issue 18
    (lambda P: (P ** 2).sum(axis=0), "each coordinate on its own"),
    (lambda P: np.tanh(P).sum(axis=0), "An odd φ"),  # issue 18: tanh sums to 0 on mirror sets
    (lambda P: np.tanh(P @ W).sum(axis=0), "An odd φ"),
    (lambda P: np.array([np.linalg.norm(P, axis=1).sum(), (P ** 2).sum()]), "turned by 90°"),
    (lambda P: P.sum(axis=0, keepdims=True), "one vector"),
])
def test_wrong_set_functions_get_a_hint(answer, message):
    feedback = nb06.check_set_vector(answer)
    assert not feedback.ok and message in feedback.message, feedback


def test_the_tanh_hint_no_longer_says_transform_each_point():
    # the student did transform each point: the hint names why it failed instead
    feedback = nb06.check_set_vector(lambda P: np.tanh(P).sum(axis=0))
    assert "transform each point" not in feedback.message.lower()
    assert "mirror" in feedback.message


def test_a_layer_norm_written_in_place_is_told_so_not_praised_with_a_wrong_error():
    def in_place(X):
        X -= X.mean(axis=1, keepdims=True)
        X /= np.sqrt((X ** 2).mean(axis=1, keepdims=True) + 1e-5)
        return X

    feedback = nb06.check_layer_norm(in_place)
    assert not feedback.ok and "changes its input X in place" in feedback.message


# Issue 40: hints name the mistake that was made; the reference is the checker's own

@pytest.mark.parametrize(("answer", "says"), [
    (lambda P: np.maximum(P, 0.0).sum(axis=0), ["φ(t·x) = t·φ(x)", "ray"]),  # ReLU
    (lambda P: np.abs(P).sum(axis=0), ["φ(t·x) = t·φ(x)", "ray"]),  # |p|, coordinate-wise
    (lambda P: np.linalg.norm(P, axis=1, keepdims=True).sum(axis=0), ["φ(t·x) = t·φ(x)"]),
], ids=["ReLU", "abs", "norm"])
def test_a_phi_that_is_linear_along_a_ray_is_told_so_not_that_it_is_linear(answer, says):
    """"Transform each point by a non-linear φ" was false: ReLU and |p| are non-linear."""
    feedback = nb06.check_set_vector(answer)
    assert not feedback.ok, feedback.message
    for words in says:
        assert words in feedback.message, feedback.message
    assert "non-linear φ before pooling" not in feedback.message, feedback.message


def test_a_layer_norm_without_keepdims_gets_a_hint_not_numpys_bare_error():
    feedback = nb06.check_layer_norm(lambda X: (X - X.mean(axis=1)) / X.std(axis=1))
    assert not feedback.ok and "keepdims" in feedback.message, feedback.message
    assert "(5, 1)" in feedback.message, feedback.message


def test_the_reference_layer_norm_is_the_checkers_own_whatever_pa_layer_norm_is():
    """`pa.layer_norm = <a wrong LayerNorm>` before the checker module was first imported made that
    wrong answer Right ("matches pa.layer_norm"): the checker took its reference from posattn."""
    import subprocess
    import sys
    script = (
        "import numpy as np, posattn as pa\n"
        "def wrong(X):  # the spread of the whole array, not of each row\n"
        "    Z = X - X.mean(axis=1, keepdims=True)\n"
        "    return Z / np.sqrt(Z.var() + 1e-5)\n"
        "pa.layer_norm = wrong\n"
        "from posattn.exercises import nb06\n"
        "print(nb06.check_layer_norm(wrong).ok)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


# ---- exercise 4: the reordered cross-attention -------------------------------------------

def _recomputed():  # pa.cross_attention run again on the reordered inputs: a legitimate answer
    return pa.cross_attention(SOL.X_dec[SOL.perm_x], SOL.Z_enc[SOL.perm_z],
                              *pa.default_projections())[0]


def _by_loop():  # row by row: row i of the new output is row perm_x[i] of Y
    return np.array([SOL.Y_dec[j] for j in SOL.perm_x])


@pytest.mark.parametrize("answer", [
    lambda: SOL.Y_dec[SOL.perm_x], lambda: SOL.Y_dec[SOL.perm_x].tolist(),
    lambda: SOL.Y_dec[SOL.perm_x].astype(np.float32), _recomputed, _by_loop,
    lambda: pa.permutation_matrix(SOL.perm_x) @ SOL.Y_dec,  # P Y
], ids=["index", "list", "float32", "recomputed", "loop", "P @ Y"])
def test_every_form_of_the_reordered_output_is_right(answer):
    feedback = nb06.check_reordered_cross_attention(answer())
    assert feedback.ok, feedback


def _keys_alone():  # K reordered, V left as it was
    W_Q, W_K, W_V = pa.default_projections()
    Q, K, V = SOL.X_dec[SOL.perm_x] @ W_Q, SOL.Z_enc @ W_K, SOL.Z_enc @ W_V
    return pa.scaled_dot_product_attention(Q, K[SOL.perm_z], V)[0]


@pytest.mark.parametrize(("answer", "message"), [
    (lambda: SOL.Y_dec, "that is Y_dec as it was"),  # the queries' order forgotten
    (lambda: SOL.Y_dec[pa.inverse_permutation(SOL.perm_x)], "the inverse order"),
    (lambda: SOL.Y_dec[SOL.perm_z], "perm_z reorders the keys and values, not the output rows"),
    (lambda: SOL.Y_dec[SOL.perm_x][SOL.perm_z], "perm_z reorders the keys and values"),
    (_keys_alone, "moves the keys without their values"),
    (lambda: SOL.Y_dec[SOL.perm_x].T, "must have shape (5, 4)"),
    (lambda: SOL.Y_dec[SOL.perm_x] * 2, "not the reordered output"),
])
def test_wrong_reordered_outputs_get_a_hint(answer, message):
    feedback = nb06.check_reordered_cross_attention(answer())
    assert not feedback.ok and message in feedback.message, feedback

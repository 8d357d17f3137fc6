import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posattn as pa

perms = st.integers(1, 40).flatmap(lambda n: st.permutations(list(range(n))))


@given(perms)
def test_permutation_matrix_reorders_rows_like_indexing(perm):
    X = np.arange(len(perm) * 2, dtype=float).reshape(-1, 2)
    P = pa.permutation_matrix(perm)
    np.testing.assert_array_equal(P @ X, X[perm])


@given(perms)
def test_inverse_permutation_undoes_perm_and_is_the_transpose(perm):
    inverse = pa.inverse_permutation(perm)
    np.testing.assert_array_equal(np.asarray(perm)[inverse], np.arange(len(perm)))
    P = pa.permutation_matrix(perm)
    np.testing.assert_array_equal(pa.permutation_matrix(inverse), P.T)
    np.testing.assert_array_equal(P @ P.T, np.eye(len(perm)))


def test_random_permutation_is_seeded_and_valid():
    a = pa.random_permutation(10, np.random.default_rng(5))
    b = pa.random_permutation(10, 5)
    np.testing.assert_array_equal(a, b)
    assert sorted(a.tolist()) == list(range(10))


def test_all_permutations_lists_n_factorial_distinct_orders():
    orders = [tuple(p) for p in pa.all_permutations(4)]
    assert len(orders) == len(set(orders)) == 24
    assert orders[0] == (0, 1, 2, 3)


def test_cumulative_sum_is_far_from_equivariant():
    """Negative control: the check can fail."""
    X = np.random.default_rng(0).standard_normal((6, 3))
    assert pa.equivariance_error(lambda X: np.cumsum(X, axis=0), X, [5, 4, 3, 2, 1, 0]) > 0.5


def test_mean_is_invariant_but_not_equivariant():
    X = np.array([[3.0], [7.0], [2.0], [5.0]])
    mean = lambda X: X.mean(axis=0)  # noqa: E731
    assert pa.invariance_error(mean, X, [3, 2, 1, 0]) == 0.0
    with pytest.raises(ValueError, match="f must return one row per token .4. to be compared"):
        pa.equivariance_error(mean, X, [3, 2, 1, 0])


def test_errors_compare_the_first_element_of_a_tuple():
    X = np.array([[1.0], [2.0]])
    f = lambda X: (2 * X, "ignored")  # noqa: E731
    assert pa.equivariance_error(f, X, [1, 0]) == 0.0
    assert pa.invariance_error(f, X, [1, 0]) == 2.0


def test_perm_with_repeats_names_repeated_and_missing():
    with pytest.raises(ValueError, match=r"perm must be a permutation of range\(5\); "
                                         r"got \[0, 0, 2, 3, 4\] "
                                         r"\(repeated: 0; missing: 1\)"):
        pa.permutation_matrix([0, 0, 2, 3, 4])


def test_perm_of_wrong_length_for_x():
    with pytest.raises(ValueError, match=r"perm must be a permutation of range\(3\); "
                                         r"got \[1, 0\] \(missing: 2\)"):
        pa.equivariance_error(lambda X: X, np.ones((3, 2)), [1, 0])


def test_perm_out_of_range():
    with pytest.raises(ValueError, match=r"got \[0, 5\] \(missing: 1; out of range: 5\)"):
        pa.inverse_permutation([0, 5])


def test_perm_must_be_integers_and_one_dimensional():
    with pytest.raises(TypeError, match=r"perm must hold integers; got \[0.5, 1.0\]"):
        pa.permutation_matrix([0.5, 1.0])
    with pytest.raises(ValueError, match=r"perm must be 1-D.*got shape \(1, 2\)"):
        pa.permutation_matrix([[0, 1]])
    with pytest.raises(ValueError, match=r"perm must be 1-D.*got nested entries \[\[0\], 1\]"):
        pa.permutation_matrix([[0], 1])  # ragged
    with pytest.raises(TypeError, match="perm must be a sequence of integers; got str"):
        pa.permutation_matrix("012")


def test_n_and_rng_are_checked():
    with pytest.raises(ValueError, match="n must be at least 1; got 0"):
        pa.random_permutation(0)
    with pytest.raises(TypeError, match="n must be an integer; got float 3.0"):
        pa.random_permutation(3.0)
    with pytest.raises(TypeError, match="rng must be a numpy Generator or an integer seed; "
                                        "got str"):
        pa.random_permutation(3, "seed")
    with pytest.raises(ValueError, match="n must be at most 8 to list every order"):
        pa.all_permutations(9)


def test_f_must_be_callable():
    with pytest.raises(TypeError, match="f must be a function of X; got int 3"):
        pa.equivariance_error(3, np.ones((2, 2)), [1, 0])


@pytest.mark.parametrize("perm", [[True, False], [2.0, 1.0, 0.0], np.array([1.0, 0.0]), [0, "1"]])
def test_perm_refuses_booleans_floats_and_text(perm):
    with pytest.raises(TypeError, match=r"perm must hold integers; got \["):
        pa.permutation_matrix(perm)


def test_perm_with_a_huge_entry_gets_the_template_not_an_overflow():
    with pytest.raises(ValueError, match=r"got \[0, 1180591620717411303424\] "
                                         r"\(missing: 1; out of range: 1180591620717411303424\)"):
        pa.inverse_permutation([0, 2**70])


def test_a_long_permutation_is_checked_and_a_long_mistake_is_told_briefly():
    n = 50_000
    perm = np.random.default_rng(0).permutation(n)
    np.testing.assert_array_equal(pa.inverse_permutation(perm)[perm], np.arange(n))
    wrong = np.zeros(n, dtype=int)  # every entry 0: n − 1 missing values to report
    with pytest.raises(ValueError) as error:
        pa.permutation_matrix(wrong)
    message = str(error.value)
    assert len(message) < 400, message
    assert message.startswith("perm must be a permutation of range(50000); got [0, 0,")
    assert "repeated: 0; missing: 1, 2, 3" in message and "… (49999 entries)" in message

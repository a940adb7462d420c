"""Elementary symmetric sums P(S, k): coefficients of prod(1 + s x) against subset enumeration."""

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, strategies as st

from symq.arithmetic.elementary_symmetric import (elementary_symmetric_sum, elementary_symmetric_sums, identity_residuals,
                            reciprocal_identity_residual, removal_identity_residual)


def brute_force(elements, k):
    """The definition: sum over all k-subsets (by position, so a multiset counts twice)."""
    return sum((math.prod(c) for c in itertools.combinations(elements, k)), 0)


rationals = st.fractions(min_value=Fraction(-5), max_value=Fraction(5), max_denominator=7)


@given(st.lists(rationals, max_size=7))
def test_coefficients_match_subset_enumeration(elements):
    sums = elementary_symmetric_sums(elements)
    assert len(sums) == len(elements) + 1
    for k, value in enumerate(sums):
        assert value == brute_force(elements, k)


def test_symbolic_sums_match_subset_enumeration():
    mus = sympy.symbols("mu_1:6", positive=True)
    for k in range(7):
        assert sympy.expand(elementary_symmetric_sum(mus, k) - brute_force(mus, k)) == 0


def test_coefficients_are_those_of_the_product():
    """P(S, k) is the coefficient of x^k in prod(1 + s x)."""
    x = sympy.Symbol("x")
    mus = sympy.symbols("a b c d", positive=True)
    poly = sympy.Poly(sympy.prod([1 + m * x for m in mus]), x)
    assert [sympy.expand(c) for c in reversed(poly.all_coeffs())] == elementary_symmetric_sums(mus)


def test_out_of_range_k_is_zero_and_empty_set():
    assert elementary_symmetric_sum([1, 2], -1) == 0
    assert elementary_symmetric_sum([1, 2], 3) == 0
    assert elementary_symmetric_sums([]) == [1]
    assert elementary_symmetric_sum([], 0) == 1


def test_multiset_counts_repeated_rates():
    assert elementary_symmetric_sums([2, 2]) == [1, 4, 4]


@pytest.mark.parametrize("bad", [0.5, True])
def test_floats_and_bools_are_rejected(bad):
    with pytest.raises(TypeError, match="float|number"):
        elementary_symmetric_sums([1, bad])


def test_k_must_be_an_integer():
    with pytest.raises(TypeError, match="k must be an integer"):
        elementary_symmetric_sum([1, 2], 1.0)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_identities_hold_symbolically(n):
    """Removal of one element (Cabral, proof of Thm 2.1) and the reciprocal identity."""
    mus = sympy.symbols(f"mu_1:{n + 1}", positive=True)
    residuals = identity_residuals(mus)
    assert residuals and set(residuals.values()) == {0}


def test_identity_checker_reports_a_wrong_identity():
    """A deliberately wrong removal identity (k instead of k - 1) must leave a residual."""
    mus = sympy.symbols("mu_1:4", positive=True)
    wrong = (elementary_symmetric_sum(mus, 2) - mus[0] * elementary_symmetric_sum(mus[1:], 2)
             - elementary_symmetric_sum(mus[1:], 2))
    assert sympy.expand(wrong) != 0
    assert removal_identity_residual(mus, 0, 2) == 0
    assert reciprocal_identity_residual([2, 3, 5], 1) == 0
    # the reciprocal identity with the wrong index fails
    assert elementary_symmetric_sum([Fraction(1, 2), Fraction(1, 3), Fraction(1, 5)], 1) \
        != Fraction(elementary_symmetric_sum([2, 3, 5], 1), 30)

"""Correct rounding of decimals, and the truncated-chain solver on chains with known laws."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, strategies as st

import symq
from symq.engines.ctmc import build_chain, empty_mass, stationary_distribution, truncated_stationary
from symq.arithmetic.numeric import decimal_string, round_fraction


@pytest.mark.parametrize("value,digits,text", [
    (Fraction(21, 65), 30, "0.323076923076923076923076923077"),
    (Fraction(2, 3), 5, "0.66667"),
    (Fraction(1, 8), 2, "0.12"),       # half to even
    (Fraction(3, 8), 2, "0.38"),
    (Fraction(9999, 1000), 3, "10.0"),  # carry into a new digit
    (Fraction(123456), 3, "123000"),
    (Fraction(-1, 3), 3, "-0.333"),
    (Fraction(1, 10 ** 12), 2, "1.0e-12"),
])
def test_round_fraction(value, digits, text):
    assert round_fraction(value, digits) == text


def _parse_decimal(text):
    mantissa, _, exponent = text.partition("e")
    return Fraction(mantissa) * Fraction(10) ** int(exponent or 0)


@given(st.fractions(min_value=Fraction(1, 10 ** 6), max_value=10 ** 6), st.integers(1, 40))
def test_rounding_is_within_half_a_unit_in_the_last_place(value, digits):
    shown = _parse_decimal(round_fraction(value, digits))
    # half a unit in the last place of a D-digit decimal is at most value * 10^(1-D) / 2
    assert abs(shown - value) <= value * Fraction(1, 10 ** (digits - 1)) / 2


def test_irrational_decimal_is_certified():
    assert decimal_string(sympy.sqrt(2), 50) == "1.4142135623730950488016887242096980785696718753769"
    assert decimal_string(sympy.pi, 3) == "3.14"


def test_mm1_truncated_law_is_geometric():
    """Birth-death chain: the truncated law is exactly the conditioned geometric law."""
    chain = build_chain(0, lambda n: [(n + 1, Fraction(1, 2)), (n - 1, 1)] if n else
                        [(1, Fraction(1, 2))], keep=lambda n: n <= 5)
    law = stationary_distribution(chain, exact=True)
    norm = sum(Fraction(1, 2) ** k for k in range(6))
    assert law == {n: Fraction(1, 2) ** n / norm for n in range(6)}
    floats = stationary_distribution(chain, exact=False)
    assert all(abs(floats[n] - float(law[n])) < 1e-14 for n in law)


def test_chain_with_a_wrong_rate_gives_a_different_law():
    """The solver is not blind to its input: a changed rate changes the answer."""
    good = build_chain(0, lambda n: [(1 - n, 1 if n == 0 else 2)])
    bad = build_chain(0, lambda n: [(1 - n, 1 if n == 0 else 3)])
    assert stationary_distribution(good)[0] == Fraction(2, 3)
    assert stationary_distribution(bad)[0] == Fraction(3, 4)


def test_heterogeneous_two_servers_by_hand():
    """M/M/2 with rates 1, 2, ALIS, truncated at one job: states empty, {1 busy}, {2 busy}.

    ALIS from the idle order (1, 2): an arrival takes server 1 first; after server 1 finishes it
    joins the end of the idle queue, so the idle order alternates. Solve by hand on the full
    reachable chain at one job: states ((), (1,2)), ((), (2,1)), job on 1, job on 2."""
    m = symq.Model(compatibility={"a": ["1", "2"]}, arrival_rates={"a": 1},
                   service_rates={"1": 1, "2": 2})
    law = truncated_stationary(m, "alis", 1, exact=True)
    # balance: from idle (1,2) an arrival goes to 1; job on 1 ends -> idle (2,1);
    # from (2,1) an arrival goes to 2; job on 2 ends -> idle (1,2).
    # p(12)*1 = p(on2)*2, p(on1)*1 = p(12)*1, p(21)*1 = p(on1)*1, p(on2)*2 = p(21)*1
    # -> p(12) = p(on1) = p(21) = x, p(on2) = x/2, total 7x/2
    assert empty_mass(law) == Fraction(4, 7)

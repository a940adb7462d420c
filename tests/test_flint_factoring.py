"""python-flint's multivariate factoring in place of sympy's (symq.arithmetic.exact.factor_list,
factored_expr; the factored representation of symq.engines.balance): the same factors, the same
coefficients, the same expressions as sympy's factoring, and the RAIS balance check (whose
routing probabilities and product forms go through both) still proves the product form and
still fails on a wrong one.
"""

import random

import pytest
import sympy
from sympy import QQ

import symq
from symq.cli import main
from symq.arithmetic.exact import ExactField, factor_list, factored_expr, fraction_field
from symq.engines.balance import _Exact, verify
from symq.engines.processes import RandomAssignmentProcess

l1, l2, l3, m1, m2, m3 = sympy.symbols("lambda_1 lambda_2 lambda_3 mu_1 mu_2 mu_3")
SYMBOLS = [l1, l2, l3, m1, m2, m3]

#: slack factors and rate sums of the kind the product forms and the RAIS routings contain
SLACKS = [m1 - l1, m1 + m2 - l1 - l2, m1 + m2 + m3 - l1 - l2 - l3, l1 + l2 + 2 * l3,
          l1 + l3, m2 + m3, l1 * m2 - l2 * m1]


def _random_polynomials(count, seed=7):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        terms = []
        for _ in range(rng.randint(1, 3)):
            c = rng.choice([-3, -2, -1, 1, 2, 3])
            mono = sympy.Mul(*(s ** rng.randint(0, 2) for s in rng.sample(SYMBOLS, 2)))
            terms.append(c * mono)
        out.append(sympy.Add(*terms))
    return [p for p in out if p != 0]


def _inputs():
    """Rational functions: slack products, random polynomials with repeated factors and
    negative leading coefficients, rational coefficients, constants and zero."""
    rng = random.Random(11)
    polys = _random_polynomials(12)
    cases = [sympy.Integer(0), sympy.Integer(5), sympy.Rational(-3, 7), l1, -l1, 1 / (m1 - l1)]
    cases.append(l1 * (l1 + l3) * (l1 + l2 + l3) / (m1 ** 2 * (l1 + l2 + 2 * l3)))
    cases.append(SLACKS[0] ** 2 * SLACKS[1] / (SLACKS[2] ** 3 * SLACKS[3]))
    cases.append(-sympy.Rational(3, 4) * (l2 - l1) ** 3 * (m3 - m2) / (2 * (l1 - m1) ** 2))
    cases.append((l1 / 2 + l2 / 3) * (m1 - l3) / (sympy.Rational(5, 6) * (m2 + m3)))
    for _ in range(10):
        num = sympy.Mul(*(rng.choice(polys + SLACKS) ** rng.randint(1, 3) for _ in range(2)))
        den = sympy.Mul(*(rng.choice(polys + SLACKS) ** rng.randint(1, 2) for _ in range(2)))
        cases.append(rng.choice([-1, 1, sympy.Rational(2, 9)]) * num / den)
    return cases


INPUTS = _inputs()


def _sympy_representation(exact, expr):
    """The factored representation as balance.py built it with sympy's factoring."""
    frac = exact.fractions.from_expr(sympy.sympify(expr))
    coefficient = QQ.one
    exponents = {}
    for poly, sign in ((frac.numer, 1), (frac.denom, -1)):
        if not poly:
            return (QQ.zero, {})
        c, factors = poly.factor_list()
        coefficient = coefficient * c if sign == 1 else coefficient / c
        for f, e in factors:
            if f.LC < 0:
                f = -f
                if e % 2:
                    coefficient = -coefficient
            lc = f.LC
            if lc != 1:
                f = f.quo_ground(lc)
                coefficient = coefficient * lc ** e if sign == 1 else coefficient / lc ** e
            exponents[f] = exponents.get(f, 0) + sign * e
    return (coefficient, {f: e for f, e in exponents.items() if e})


@pytest.mark.parametrize("index", range(len(INPUTS)))
def test_balance_representation_equals_sympys(index):
    expr = INPUTS[index]
    exact = _Exact(set(SYMBOLS))
    expected = _sympy_representation(exact, expr)
    for form in (expr, sympy.expand(expr), sympy.cancel(expr), sympy.factor(expr)):
        got = _Exact(set(SYMBOLS))(form)  # a fresh cache: each form converted on its own
        assert got[0] == expected[0], form
        assert got[1] == expected[1], form
        assert all(f.ring == exact.ring and f.LC == 1 for f in got[1])


@pytest.mark.parametrize("index", range(len(INPUTS)))
def test_exactfield_expr_equals_sympy_factor(index):
    field = ExactField(SYMBOLS)
    value = field.value(INPUTS[index])
    expected = sympy.factor(value.as_expr())
    got = field.expr(value)
    assert sympy.cancel(got - expected) == 0
    assert got == expected  # the same expression, factored the same way
    assert field.expr(value, factor=False) == value.as_expr()


def test_factor_list_equals_sympys_on_polynomials():
    field = fraction_field(SYMBOLS)
    for p in _random_polynomials(30, seed=3) + SLACKS:
        for poly in (field.from_expr(p).numer, field.from_expr(p ** 2 * (SLACKS[1] - 4)).numer,
                     field.from_expr(-p / 3).numer):
            c, factors = factor_list(poly)
            c0, factors0 = poly.factor_list()
            assert c == c0 and dict(factors) == dict(factors0), poly
    with pytest.raises(ValueError, match="zero polynomial"):
        factor_list(field.ring.zero)


def test_signs_follow_sympys_order_of_generators():
    # lambda_10 sorts before lambda_2 by name, after it in sympy's order of generators
    a, b, c = sympy.symbols("lambda_10 lambda_2 mu_1")
    field = ExactField([a, b, c])
    for expr in ((b - a) / (c - a), (a - b) ** 3 * (a - c) / (b - c), -(a - b) / 2):
        value = field.value(expr)
        assert field.expr(value) == sympy.factor(value.as_expr())
        assert factored_expr(value) == sympy.factor(value.as_expr())


def test_rais_routing_probabilities_equal_sympy_factor():
    # the canonical routing goes through ExactField.expr: its probabilities are sympy.factor's
    process = RandomAssignmentProcess(symq.model("ring:3"))
    for row in process.routing.values():
        for probabilities in row.values():
            for p in probabilities.values():
                assert p == sympy.factor(p)
            assert sympy.cancel(sympy.Add(*probabilities.values()) - 1) == 0


@pytest.mark.parametrize("name", ["w", "ring:3", "n"])
def test_rais_product_form_still_proved(name):
    report = verify(symq.model(name), "rais", max_jobs=3)
    assert report.ok and report.nonzero_residuals == 0 and report.states_checked > 1


class OneActivationFactorChanged(RandomAssignmentProcess):
    """Theorem 3.10 with the second factor's activation rate replaced by an arrival rate."""

    def product_form_factors(self, state):
        factors = super().product_form_factors(state)
        if len(state) >= 2 and state[1][0] == "b":
            factors[1] = self.model.arrival_rates["1"] / self.service(self.busy(state)[:2])
        return factors


def test_rais_with_one_factor_changed_fails_and_names_the_equation():
    report = verify(OneActivationFactorChanged(symq.model("ring:3")), max_jobs=2)
    assert not report.ok and report.nonzero_residuals > 0
    failure = report.failures[0]
    assert failure.state.count("_b") >= 1 and "balance" in failure.equation
    assert sympy.cancel(failure.residual) != 0


@pytest.mark.slow
def test_verify_ring_4_rais_on_the_command_line(capsys):
    assert main(["verify", "ring:4", "--discipline", "rais", "--quiet"]) == 0
    assert ("ring:4 (rais), states with at most 4 jobs: 145 states, 745 equations (145 global, "
            "600 partial), 0 nonzero residuals: OK" in capsys.readouterr().out)

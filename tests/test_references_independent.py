"""Response-time and waiting-time laws against references obtained without symq (tests/REFERENCES.md):

* the M/M/1 and M/M/c FCFS closed forms (Erlang C), exact means and survival to 20 digits;
* the flexible class of the collaborative N model, whose response time is exponential with rate
  mu_1 + mu_2 - lambda_1 - lambda_2 (Gardner et al. 2016, the survey's nested closed form);
* ``independent_tagged_chain.py`` (a brute-force chain with a tagged job written from the verbal
  model; it does not import symq): means and second moments of collaborative W and N, within the
  truncation of that chain.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import mpmath
import pytest
import sympy

from symq import model
from symq.engines.distributions import THETA
from symq.engines.response_time import response_time_law, waiting_time_law
from symq.models.model import Model

from independent_tagged_chain import tagged_moments
from test_mutation_targets import decimal_round


def erlang_c(c: int, a: Fraction) -> Fraction:
    """P(an arrival waits) in M/M/c with offered load a = lambda/mu < c."""
    top = a ** c / factorial(c) * c / (c - a)
    return top / (sum(a ** k / factorial(k) for k in range(c)) + top)


@pytest.mark.parametrize("servers, lam, mu", [(1, Fraction(1, 3), Fraction(1)),
                                              (3, Fraction(2), Fraction(1)),
                                              (2, Fraction(3, 2), Fraction(5, 4))])
def test_mmc_fcfs_waiting_time_law(servers, lam, mu):
    """One class on c identical servers: ALIS and RAIS are M/M/c FCFS. P(W > t) = C e^{-(c mu -
    lambda) t}, E W = C/(c mu - lambda), E T = E W + 1/mu (Erlang C)."""
    names = [str(k) for k in range(1, servers + 1)]
    m = Model(compatibility={"1": names}, arrival_rates={"1": str(lam)},
              service_rates={s: str(mu) for s in names})
    c_wait = erlang_c(servers, lam / mu)
    rate = servers * mu - lam
    mpmath.mp.dps = 60
    try:
        for discipline in ("alis", "rais"):
            wait = waiting_time_law(m, "1", discipline)
            assert wait.atom == 1 - c_wait
            assert wait.mean() == c_wait / rate
            assert wait.second_moment() == 2 * c_wait / rate ** 2
            for t in (Fraction(1, 2), Fraction(3)):
                want = mpmath.mpf(c_wait.numerator) / c_wait.denominator * mpmath.exp(
                    -mpmath.mpf(rate.numerator) / rate.denominator * t.numerator / t.denominator)
                assert wait.survival_value(t, 20) == decimal_round(want, 20)
            assert response_time_law(m, "1", discipline).mean() == c_wait / rate + 1 / mu
    finally:
        mpmath.mp.dps = 15


def test_flexible_class_of_the_collaborative_n_model_is_exponential():
    lam1, lam2, mu1, mu2 = Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(3, 2)
    m = model("n").substitute({"lambda_1": str(lam1), "lambda_2": str(lam2), "mu_1": str(mu1),
                               "mu_2": str(mu2)})
    rate = mu1 + mu2 - lam1 - lam2
    law = response_time_law(m, "2", "collaborative")
    r = sympy.Rational(rate.numerator, rate.denominator)
    assert sympy.cancel(law.lst_expr() - r / (r + THETA)) == 0
    assert law.variance() == 1 / rate ** 2
    mpmath.mp.dps = 60
    try:
        want = mpmath.exp(-mpmath.mpf(rate.numerator) / rate.denominator)
        assert law.survival_value(Fraction(1), 20) == decimal_round(want, 20)
    finally:
        mpmath.mp.dps = 15


@pytest.mark.parametrize("name, rates, cap", [
    ("n", {"lambda_1": "1/3", "lambda_2": "1/2", "mu_1": "1", "mu_2": "3/2"}, 9),
    ("w", {"lambda_1": "1/4", "lambda_2": "1/8", "lambda_3": "1/4", "mu_1": "1", "mu_2": "2"}, 6),
])
def test_collaborative_moments_against_the_independent_tagged_chain(name, rates, cap):
    m = model(name).substitute(rates)
    comp = {c: list(m.compatibility[c]) for c in m.classes}
    lam = {c: float(Fraction(rates[f"lambda_{c}"])) for c in m.classes}
    mu = {s: float(Fraction(rates[f"mu_{s}"])) for s in m.servers}
    for c in m.classes:
        mean, second, top = tagged_moments(comp, lam, mu, c, cap)
        law = response_time_law(m, c, "collaborative")
        # the truncated chain loses the states past ``cap`` jobs (mass ``top`` at the cap)
        assert top < 1e-3
        assert abs(mean - float(law.mean())) <= 5 * top * float(law.mean()) + 1e-9, (c, mean)
        assert abs(second - float(law.second_moment())) <= 15 * top * float(
            law.second_moment()) + 1e-9, (c, second)
        if c != m.classes[0]:
            continue
        # must fail: one wrong rate in the reference chain moves the mean past the tolerance
        wrong, _, _ = tagged_moments(comp, lam, {**mu, m.servers[0]: mu[m.servers[0]] * 1.05},
                                     c, cap)
        assert abs(wrong - float(law.mean())) > 5 * top * float(law.mean())


def test_mm2_response_time_with_a_repeated_pole():
    """M/M/2, lambda = mu = 1: the wait is Exp(2 mu - lambda) = Exp(1) with probability C = 1/3
    (Erlang C), the service Exp(1): a double pole, P(T > t) = e^{-t} (1 + t/3)."""
    m = Model(compatibility={"1": ["1", "2"]}, arrival_rates={"1": "1"},
              service_rates={"1": "1", "2": "1"})
    assert erlang_c(2, Fraction(1)) == Fraction(1, 3)
    mpmath.mp.dps = 60
    try:
        for discipline in ("alis", "rais"):
            law = response_time_law(m, "1", discipline)
            assert any(j == 2 for _, j, _ in law.terms)  # the repeated pole is exercised
            for t in (Fraction(1, 2), Fraction(2), Fraction(5)):
                tt = mpmath.mpf(t.numerator) / t.denominator
                want = mpmath.exp(-tt) * (1 + tt / 3)
                assert law.survival_value(t, 20) == decimal_round(want, 20)
                assert sympy.simplify(law.survival_expr(t) - sympy.exp(-sympy.Rational(t)) *
                                      (1 + sympy.Rational(t) / 3)) == 0
    finally:
        mpmath.mp.dps = 15

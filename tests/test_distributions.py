"""Sums and mixtures of independent exponentials: closed forms against derivatives of the LST,
hand-derived laws and a seeded Monte Carlo sample."""

import random

import pytest
import sympy

from symq.engines.distributions import THETA, TIME, ExponentialMixture

lam, mu, a, b = sympy.symbols("lambda mu a b", positive=True)


def _check_moments(law):
    lst = law.lst(THETA)
    first = -sympy.diff(lst, THETA).subs(THETA, 0)
    second = sympy.diff(lst, THETA, 2).subs(THETA, 0)
    assert sympy.cancel(first - law.mean()) == 0
    assert sympy.cancel(second - first**2 - law.variance()) == 0


def _check_cdf(law):
    cdf = law.cdf(TIME)
    assert sympy.cancel(cdf.subs(TIME, 0) - law.atom()) == 0
    assert sympy.cancel(sympy.diff(cdf, TIME) - law.density(TIME)) == 0


LAWS = [ExponentialMixture.exponential(mu - lam),
        ExponentialMixture.gated(lam / mu, mu - lam),
        ExponentialMixture.hypoexponential([a, b]),
        ExponentialMixture.hypoexponential([a, a, b]),
        ExponentialMixture.exponential(a) + ExponentialMixture.gated(sympy.Rational(1, 3), b),
        ExponentialMixture.mixture([(sympy.Rational(1, 4), ExponentialMixture.zero()),
                                    (sympy.Rational(3, 4), ExponentialMixture.hypoexponential([a, b]))])]


@pytest.mark.parametrize("law", LAWS)
def test_mean_and_variance_are_derivatives_of_the_lst(law):
    _check_moments(law)


@pytest.mark.parametrize("law", LAWS)
def test_cdf_starts_at_the_atom_and_differentiates_to_the_density(law):
    _check_cdf(law)


def test_mm1_and_erlang_closed_forms():
    assert ExponentialMixture.exponential(mu).cdf(TIME) == 1 - sympy.exp(-mu * TIME)
    erlang = ExponentialMixture.hypoexponential([a, a])
    assert sympy.simplify(erlang.cdf(TIME) - (1 - sympy.exp(-a * TIME) * (1 + a * TIME))) == 0
    assert ExponentialMixture.gated(lam / mu, mu - lam).atom() == sympy.factor(1 - lam / mu)


def test_mixture_merges_equal_components():
    law = ExponentialMixture.mixture([(sympy.Rational(1, 2), ExponentialMixture.exponential(2)),
                                      (sympy.Rational(1, 2), ExponentialMixture.exponential(2))])
    assert len(law.components) == 1 and law.components[0][0] == 1


def test_latex():
    law = ExponentialMixture.exponential(mu) + ExponentialMixture.gated(sympy.Rational(1, 2), lam)
    assert law.latex("T") == r"T \sim \mathrm{Exp}\left(\mu\right) + B\left(\frac{1}{2}\right)\,\mathrm{Exp}\left(\lambda\right)"


def test_cdf_against_seeded_monte_carlo():
    """i.i.d. draws of a mixture of sums of gated exponentials; DKW: P(sup|F_n - F| > e) <=
    2 exp(-2 n e^2) = 2e-9 for n = 20000, e = 0.0237."""
    law = ExponentialMixture.mixture([
        (sympy.Rational(1, 3), ExponentialMixture.hypoexponential([1, 2])),
        (sympy.Rational(2, 3), ExponentialMixture.exponential(3) + ExponentialMixture.gated(
            sympy.Rational(1, 2), sympy.Rational(1, 2)))])
    rng = random.Random(20240501)
    samples = []
    for _ in range(20000):
        u, total = rng.random(), 0.0
        weight, terms = law.components[0] if u < float(law.components[0][0]) else law.components[1]
        for p, r in terms:
            if rng.random() < float(p):
                total += rng.expovariate(float(r))
        samples.append(total)
    samples.sort()
    import bisect
    for t in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0):
        empirical = bisect.bisect_right(samples, t) / len(samples)
        assert abs(empirical - float(law.cdf(TIME).subs(TIME, t))) < 0.0237, t

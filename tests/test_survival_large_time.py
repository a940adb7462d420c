"""Issue 25: the survival $P(T_c>t)$ at very large times (``--time 1e9``, ``1e100``, ``9**1000``)
ends in a fraction of a second with certified digits in exponent form, and the exact closed form
is never approximated (sympy orders a sum by numeric values, and $e^{-10^{4000}}$ takes minutes).

Independent routes: mpmath at a working precision above the digits of $rt$, on the sum of terms
$c\\,t^i e^{-rt}$ read from the exact closed form in $t$ (sympy, not the law's Arb evaluation);
and at huge $t$ the dominant exponential alone, after checking that the other terms are below
$10^{-40}$ of it. Every comparison asks for an error of at most half a unit of the last digit,
and a must-fail test shows that a value one unit off fails that check.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy

from symq import model
from symq.cli import main
from symq.engines.distributions import TIME
from symq.engines.response_time import response_time_law, waiting_time_law
from symq.engines.response_time import law as law_module
from symq.engines.response_time.law import RationalLaw, certified_decimal
from symq.errors import ModelError

RATES = {"lambda_1": "1/2", "lambda_2": "1/4", "lambda_3": "1/2", "mu_1": "1", "mu_2": "2"}
W = model("w").substitute(RATES)
SETS = [part for name, value in RATES.items() for part in ("--set", f"{name}={value}")]
TIMES = [Fraction(3), Fraction(40), Fraction(10**9), Fraction(10**100)]


def _terms(law: RationalLaw) -> list[tuple[Fraction, int, Fraction]]:
    """``[(c, i, r)]`` with $P(T>t)=\\sum c\\,t^i e^{-rt}$, read from the exact closed form in t."""
    out = []
    for term in sympy.Add.make_args(sympy.expand(law.survival_expr(TIME))):
        (power,) = term.atoms(sympy.exp)
        rate = sympy.Rational(-power.args[0] / TIME)
        poly = sympy.Poly(term / power, TIME)
        for (i,), c in poly.terms():
            out.append((Fraction(int(c.p), int(c.q)), i, Fraction(int(rate.p), int(rate.q))))
    return out


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _reference(law: RationalLaw, t: Fraction, digits: int) -> mpmath.mpf:
    """The sum of terms in mpmath, at a precision above the digits of $rt$ plus ``digits``."""
    size = len(str(t.numerator)) + len(str(t.denominator))
    with mpmath.workdps(digits + size + 60):
        tt = _mp(t)
        return +mpmath.fsum(_mp(c) * tt ** i * mpmath.exp(-_mp(r) * tt)
                            for c, i, r in _terms(law))


def _within_half_unit(text: str, reference: mpmath.mpf, digits: int) -> bool:
    """``text`` (``digits`` significant digits) is ``reference`` rounded: at most half a unit of
    its last digit away (ties cannot occur: the values are transcendental)."""
    mantissa, _, exponent = text.partition("e")
    significant = mantissa.replace(".", "").replace("-", "").lstrip("0")
    assert len(significant) == digits, text
    with mpmath.workdps(digits + 40 + len(exponent)):
        shown = mpmath.mpf(text)
        first = int(exponent) if exponent else int(mpmath.floor(mpmath.log10(abs(shown))))
        unit = mpmath.mpf(10) ** (first - digits + 1)
        return abs(shown - reference) <= unit / 2


@functools.lru_cache(maxsize=None)
def _law(kind: str, discipline: str, job_class: str) -> RationalLaw:
    function = response_time_law if kind == "response" else waiting_time_law
    return function(W, job_class, discipline)


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
@pytest.mark.parametrize("kind", ["response", "waiting"])
def test_survival_matches_mpmath_at_every_time(kind, discipline):
    for job_class in W.classes:
        law = _law(kind, discipline, job_class)
        for t in TIMES:
            text = law.survival_value(t, 25)
            assert _within_half_unit(text, _reference(law, t, 25), 25), (job_class, t, text)
            if t >= 10**9:
                assert re.fullmatch(r"\d\.\d{24}e-\d+", text), text


def test_survival_at_9_to_the_1000_matches_mpmath():
    """t = 9**1000 (955 digits; mpmath needs about a second per term there, so one law)."""
    law = _law("response", "alis", "3")
    text = law.survival_value(Fraction(9**1000), 20)
    assert _within_half_unit(text, _reference(law, Fraction(9**1000), 20), 20), text


def test_a_value_one_unit_off_fails_the_comparison():
    """Must fail: the check above rejects the printed value with its last digit moved by one,
    at a moderate and at a huge time."""
    law = _law("response", "alis", "1")
    for t in (Fraction(40), Fraction(10**100)):
        text = law.survival_value(t, 25)
        mantissa, _, exponent = text.partition("e")
        last = int(mantissa[-1])
        wrong = mantissa[:-1] + str(last + 1 if last < 9 else last - 1) + \
            ("e" + exponent if exponent else "")
        assert not _within_half_unit(wrong, _reference(law, t, 25), 25)


@pytest.mark.parametrize("t", [10**9, 10**100])
def test_the_dominant_exponential_gives_every_digit(t):
    r"""Asymptotic form: for collaborative class 1, $P(T>t)=\frac{49}{45}e^{-t/2}
    -\frac{4}{45}e^{-7t/4}$; at these times the second term is below $10^{-40}$ of the first,
    so the first alone gives all 30 digits."""
    law = _law("response", "collaborative", "1")
    terms = sorted(_terms(law), key=lambda term: term[2])
    assert terms == [(Fraction(49, 45), 0, Fraction(1, 2)), (Fraction(-4, 45), 0, Fraction(7, 4))]
    with mpmath.workdps(200):
        tt = mpmath.mpf(t)
        ratio_log10 = -(mpmath.mpf(7) / 4 - mpmath.mpf(1) / 2) * tt / mpmath.log(10) + \
            mpmath.log10(mpmath.mpf(4) / 49)
        assert ratio_log10 < -40
        dominant = mpmath.mpf(49) / 45 * mpmath.exp(-tt / 2)
        text = law.survival_value(Fraction(t), 30)
        assert _within_half_unit(text, dominant, 30), text
    if t == 10**9:
        assert text == "1.21718797292093883964493373463e-217147241"


def test_class_3_is_a_single_exponential():
    """Collaborative class 3 waits for nobody it can share with: $P(T_3>t)=e^{-7t/4}$; the
    exponent of $10$ is $\\lfloor -\\frac74 t\\log_{10}e\\rfloor$ exactly."""
    law = _law("response", "collaborative", "3")
    t = 10**100
    text = law.survival_value(Fraction(t), 20)
    with mpmath.workdps(250):
        logarithm = -mpmath.mpf(7) / 4 * t / mpmath.log(10)
        exponent = int(mpmath.floor(logarithm))
        mantissa = mpmath.mpf(10) ** (logarithm - exponent)
        assert abs(mpmath.mpf(text.partition("e")[0]) - mantissa) <= mpmath.mpf(10) ** -19 / 2
    assert text.endswith(f"e{exponent}")


def test_scientific_route_agrees_with_the_fraction_route(monkeypatch):
    """Where both apply (a value near 1e-65), the route through the decimal logarithm prints the
    same digits as the exact rounding of the ball's ends."""
    law = _law("response", "rais", "2")
    plain = law.survival_value(Fraction(80), 40)
    monkeypatch.setattr(law_module, "FAR_BITS", 8)
    far = law.survival_value(Fraction(80), 40)
    assert plain == far and "e-" in plain


def test_rounding_carries_into_the_exponent():
    """0.99996 to 4 digits is 1.000e0; a mantissa below 1 moves the exponent down."""
    assert law_module._scientific_digits(Fraction(99996, 100000), 5, 4) == (1000, 5)
    assert law_module._scientific_digits(Fraction(12345, 1000), -7, 3) == (123, -6)
    with law_module._precision(128):
        ball = flint.arb(flint.fmpq(99996, 100000)) * flint.arb(10) ** -20000
    assert law_module._scientific(ball, 4, 128) == "1.000e-20000"


def test_a_tiny_ball_around_zero_is_not_printed_as_zero():
    """A survival is never 0 at t > 0: ``nonzero=True`` refines a ball around 0 (and gives up
    with an error), where the general routine would print 0."""
    ball = flint.arb(0, flint.arb(2) ** -100000)
    assert certified_decimal(lambda bits: ball, 5) == "0.0000"
    with pytest.raises(ModelError, match="could not certify"):
        certified_decimal(lambda bits: ball, 5, nonzero=True)


def test_the_exact_form_at_a_huge_time_is_not_approximated():
    """At t = 1e9 the closed form at t is printed (exponents of 10 digits); at 9**1000 it is the
    form in t with the time substituted unevaluated, which prints at once."""
    law = _law("response", "alis", "1")
    small = law.survival_at(Fraction(10**9))
    assert small == law.survival_expr(Fraction(10**9))
    big = law.survival_at(Fraction(9**1000))
    assert isinstance(big, sympy.Subs) and big.args[0] == law.survival_expr(TIME)
    assert big.args[2] == (sympy.Integer(9**1000),)
    assert str(big).startswith("Subs(") and "\\right|_{" in sympy.latex(big)


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
def test_cli_at_huge_times(capsys, discipline):
    expected = {t: {c: _law("response", discipline, c).survival_value(Fraction(value), 12)
                    for c in W.classes}
                for t, value in (("1e9", 10**9), ("1e100", 10**100), ("9**1000", 9**1000))}
    for t, values in expected.items():
        assert main(["evaluate", "w", "response-time-survival", "--time", t, "--digits", "12",
                     "--discipline", discipline, *SETS]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.rsplit(" = ", 1)[1] for line in lines] == list(values.values())


def test_a_time_past_the_grammar_says_why(capsys):
    assert main(["evaluate", "w", "response-time-survival", "--time", "1e100000", *SETS]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 4000 digits" in err, err

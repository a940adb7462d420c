"""The percentile at thousands of digits (issue 37): ``--digits 4920`` printed 0.5000... for
every class, a bisection that gave up at 2^14 bits returning its first midpoint. The medians of
the W model under ALIS at the issue's rates are checked against an independent route: mpmath's
root finder on the closed-form CDF that symq prints (``cdf 1: 1 - 196*exp(-t)/251 + ...``,
derived by partial fractions), at 60 digits; the 4,920-digit values must agree with it and with
the 30-digit ones."""

import contextlib
import io
from fractions import Fraction

import mpmath
import pytest

from symq.cli import main

RATES = ["--discipline", "alis", "--set", "lambda_1=3/10", "--set", "lambda_2=1/5", "--set",
         "lambda_3=1/2", "--set", "mu_1=1", "--set", "mu_2=4/5"]


def _survival(t):
    """P(T > t) of the three classes, from the CDFs symq prints at these rates."""
    e = mpmath.exp
    return {"1": 196 * e(-t) / 251 - 1225 * e(-4 * t / 5) / 251 + 1280 * e(-7 * t / 10) / 251,
            "2": -336 * (5 * t / 4 + mpmath.mpf(25) / 16) * e(-4 * t / 5) / 1255
            + 980 * e(-3 * t / 5) / 251 - 624 * e(-4 * t / 5) / 251,
            "3": 672 * (5 * t / 4 + mpmath.mpf(25) / 16) * e(-4 * t / 5) / 6275
            - 588 * e(-t) / 1255 + 1633 * e(-4 * t / 5) / 1255}


def _medians(digits):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["evaluate", "w", "response-time", *RATES, "--percentile", "50",
                     "--digits", str(digits)]) == 0
    return {line.split()[1].rstrip(":"): line.split()[2] for line in out.getvalue().splitlines()
            if line.startswith("percentile ")}


def _independent():
    with mpmath.workdps(60):
        return {c: mpmath.findroot(lambda t, c=c: _survival(t)[c] - mpmath.mpf(1) / 2, 1.5)
                for c in "123"}


def test_thirty_digit_medians_match_the_independent_root():
    reference = _independent()
    medians = _medians(30)
    assert [m[:6] for m in medians.values()] == ["1.4552", "1.7765", "1.1444"]
    for c, text in medians.items():
        assert abs(Fraction(text) - Fraction(mpmath.nstr(reference[c], 50))) < Fraction(1, 10 ** 28)


def test_4920_digit_medians_are_right():
    reference = _independent()
    thirty = _medians(30)
    long = _medians(4920)
    for c, text in long.items():
        assert len(text.replace(".", "")) == 4920
        assert not text.startswith("0.5")
        assert text[:30] == thirty[c][:30]
        assert abs(Fraction(text[:56]) - Fraction(mpmath.nstr(reference[c], 55))) < Fraction(1, 10 ** 50)


def test_percentile_errors_name_the_percentile(capsys):
    assert main(["evaluate", "w", "response-time", *RATES, "--percentile", "1e-300"]) == 2
    assert capsys.readouterr().err.strip() == (
        "symq: error: --percentile is written with more than 60 digits; give a percent with at "
        "most 60 (1e-30 or 99.9999 are fine)")
    assert main(["evaluate", "w", "response-time", *RATES, "--percentile", "150"]) == 2
    assert "--percentile must lie strictly between 0 and 100" in capsys.readouterr().err

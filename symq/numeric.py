r"""Exact values to decimal strings: the one place where symq leaves exact arithmetic.

Rationals are rounded exactly with integer arithmetic (round half to even), so every printed digit
is correct. Other real constants (square roots, ...) are evaluated by mpmath inside a scoped
``workdps`` with guard digits, and the result is accepted only when two precisions agree on every
printed digit.

Examples
--------
>>> import sympy
>>> from symq.numeric import decimal_string
>>> decimal_string(sympy.Rational(21, 65), 30)
'0.323076923076923076923076923077'
>>> decimal_string(sympy.sqrt(2), 20)
'1.4142135623730950488'
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from .errors import ModelError
from .expressions import as_expression

__all__ = ["decimal_string", "round_fraction"]


def round_fraction(value: Fraction, digits: int) -> str:
    """``value`` with ``digits`` significant digits, correctly rounded (half to even)."""
    if value == 0:
        return "0." + "0" * (digits - 1) if digits > 1 else "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    exponent = len(str(value.numerator // value.denominator)) - 1 if value >= 1 else \
        -len(str(value.denominator // value.numerator))  # first guess of floor(log10(value))
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    scaled = value / Fraction(10) ** (exponent - digits + 1)
    integer = round(scaled)  # Fraction rounding is exact, half to even
    if integer >= 10 ** digits:  # rounding carried into a new digit
        integer //= 10
        exponent += 1
    text = str(integer)
    return sign + _place_point(text, exponent)


def _place_point(mantissa: str, exponent: int) -> str:
    """Digits ``mantissa`` (first digit at 10^exponent) in plain or scientific notation."""
    if -8 <= exponent < 0:
        return "0." + "0" * (-exponent - 1) + mantissa
    if 0 <= exponent < len(mantissa):
        whole, fraction = mantissa[:exponent + 1], mantissa[exponent + 1:]
        return whole + ("." + fraction if fraction else "")
    if 0 <= exponent < 30:
        return mantissa + "0" * (exponent + 1 - len(mantissa))
    rest = mantissa[1:]
    return mantissa[0] + ("." + rest if rest else "") + f"e{exponent}"


def decimal_string(value: sympy.Expr, digits: int = 30) -> str:
    """``value`` as a decimal string with ``digits`` significant digits, every digit correct.

    Raises
    ------
    ModelError
        ``digits`` below 1, or a value that still contains symbols.
    """
    if not isinstance(digits, int) or digits < 1 or digits > 100000:
        raise ModelError(f"--digits must be a whole number from 1 to 100000, not {digits!r}")
    value = as_expression(value)
    if value.free_symbols:
        names = ", ".join(sorted(s.name for s in value.free_symbols))
        raise ModelError(f"cannot print a decimal value: set the symbols {names} with --set NAME=VALUE")
    if value.is_Rational:
        return round_fraction(Fraction(int(value.p), int(value.q)), digits)
    guard = 15
    while guard < 400:
        first = _mp_string(value, digits, digits + guard)
        second = _mp_string(value, digits, digits + 2 * guard)
        if first == second:
            return first
        guard *= 2
    raise ModelError(f"could not certify {digits} digits of {value}")


def _mp_string(value: sympy.Expr, digits: int, working: int) -> str:
    """Round an evaluation at ``working`` digits (sympy's evalf drives mpmath) to ``digits``."""
    with mpmath.workdps(working):
        approximation = sympy.N(value, working)
    if not approximation.is_real or not approximation.is_Number:
        raise ModelError(f"the value {value} is not a real number")
    exact = sympy.Rational(approximation)  # the exact binary value of the approximation
    return round_fraction(Fraction(int(exact.p), int(exact.q)), digits)

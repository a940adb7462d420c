r"""Exact values to decimal strings: the one place where symq leaves exact arithmetic.
Rationals are rounded exactly with integer arithmetic (round half to even), so every printed digit
is correct. Other real constants (square roots, ...) are evaluated by mpmath inside a scoped
``workdps`` with guard digits, and the result is accepted only when two precisions agree on every
printed digit.

Examples
--------
>>> import sympy
>>> from symq.arithmetic.numeric import decimal_string
>>> decimal_string(sympy.Rational(21, 65), 30)
'0.323076923076923076923076923077'
>>> decimal_string(sympy.sqrt(2), 20)
'1.4142135623730950488'
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

import mpmath
import sympy

from symq.errors import ModelError
from symq.arithmetic.expressions import as_expression

__all__ = ["decimal_string", "round_fraction", "digit_count", "full_int_strings", "exact_string",
           "EXACT_DIGITS", "Evaluated"]

#: an exact rational whose numerator or denominator has more digits is summarised by
#: :func:`exact_string` unless the caller asks for it in full (``evaluate --full-exact``)
EXACT_DIGITS = 4300


def digit_count(n: int) -> int:
    r"""The number of decimal digits of ``abs(n)`` (1 for 0), without converting it to a string.

    Parameters
    ----------
    n : int
        Any integer, of any size.

    Returns
    -------
    int

    Examples
    --------
    >>> digit_count(0), digit_count(-999), digit_count(10**5000)
    (1, 3, 5001)

    Running time: one power of ten of the size of ``n``.
    """
    n = abs(int(n))
    if n < 10:
        return 1
    digits = (n.bit_length() - 1) * 301029995 // 10**9 + 1  # a lower bound (log10 2 > 0.301029995)
    power = 10 ** digits
    while n >= power:
        digits += 1
        power *= 10
    return digits


@contextmanager
def full_int_strings() -> Iterator[None]:
    r"""Within the block, integers of any size convert to decimal strings.

    Python refuses ``str(n)`` beyond 4300 digits (a guard against quadratic-time conversion of
    untrusted input); symq converts its own exact results, whose size the work limits of
    :mod:`symq.limits` bound, so it lifts the guard here only, and restores it afterwards.

    Yields
    ------
    None

    Examples
    --------
    >>> with full_int_strings():
    ...     len(str(10**5000))
    5001

    Running time: O(1) to enter and leave.
    """
    getter = getattr(sys, "get_int_max_str_digits", None)
    if getter is None:  # Python without the guard
        yield
        return
    before = getter()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def exact_string(value: sympy.Expr, full: bool = False, max_digits: int = EXACT_DIGITS,
                 latex: bool = False) -> str:
    r"""``str(value)`` (or its LaTeX), or for a rational with more than ``max_digits`` digits in
    its numerator or denominator, a summary with the digit counts (unless ``full``).

    Parameters
    ----------
    value : sympy.Expr
        An exact value or expression.
    full : bool
        Print every digit however long (``evaluate --full-exact``).
    max_digits : int
        The summary threshold, :data:`EXACT_DIGITS` by default.
    latex : bool
        LaTeX instead of sympy's string form.

    Returns
    -------
    str

    Examples
    --------
    >>> exact_string(sympy.Rational(21, 65))
    '21/65'
    >>> exact_string(sympy.Rational(10**5000 + 1, 3))
    'exact rational with 5001/1 digits (numerator/denominator; --full-exact prints it)'

    Running time: O(d^2) for d digits (Python's integer-to-string conversion); O(d) for the
    summary.
    """
    value = sympy.sympify(value)
    if not full and value.is_Rational and max(digit_count(value.p), digit_count(value.q)) > max_digits:
        return (f"exact rational with {digit_count(value.p)}/{digit_count(value.q)} digits "
                "(numerator/denominator; --full-exact prints it)")
    with full_int_strings():
        return sympy.latex(value) if latex else str(value)


def round_fraction(value: Fraction, digits: int) -> str:
    r"""``value`` with ``digits`` significant digits, correctly rounded (half to even).

    Parameters
    ----------
    value : Fraction
        Exact.
    digits : int
        Significant digits, at least 1.

    Returns
    -------
    str
        Plain notation from $10^{-8}$ to $10^{30}$, scientific (``1.5e40``) outside.

    Examples
    --------
    >>> round_fraction(Fraction(2, 3), 5), round_fraction(Fraction(5, 2), 1)
    ('0.66667', '2')

    Running time: O(digits + size of ``value``) big-integer operations.
    """
    if value == 0:
        return "0." + "0" * (digits - 1) if digits > 1 else "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    exponent = digit_count(value.numerator // value.denominator) - 1 if value >= 1 else \
        -digit_count(value.denominator // value.numerator)  # first guess of floor(log10(value))
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    scaled = value / Fraction(10) ** (exponent - digits + 1)
    integer = round(scaled)  # Fraction rounding is exact, half to even
    if integer >= 10 ** digits:  # rounding carried into a new digit
        integer //= 10
        exponent += 1
    with full_int_strings():
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
    r"""``value`` as a decimal string with ``digits`` significant digits, every digit correct: exact
    rounding for a rational; for other values two mpmath evaluations at growing working
    precision must agree.

    Parameters
    ----------
    value : sympy.Expr
        A number without free symbols (``sqrt(2)``, ``exp(-1)/3``).
    digits : int
        From 1 to 100000.

    Returns
    -------
    str

    Raises
    ------
    ModelError
        ``digits`` out of range, a value that still contains symbols or is not real, or digits
        that could not be certified.

    Examples
    --------
    >>> decimal_string(sympy.sqrt(2), 20)
    '1.4142135623730950488'

    Running time: O(digits) for a rational; a few evaluations at about ``digits`` + 15 to 400
    working digits otherwise.
    """
    if not isinstance(digits, int) or digits < 1 or digits > 100000:
        raise ModelError(f"--digits must be a whole number from 1 to 100000, not {digits!r}")
    value = as_expression(value)
    if value.free_symbols:
        names = ", ".join(sorted(s.name for s in value.free_symbols))
        raise ModelError(f"cannot print a decimal value: set the symbols {names} with --set NAME=VALUE")
    if value.is_Rational:
        return round_fraction(Fraction(int(value.p), int(value.q)), digits)
    _check_magnitude(value)
    guard = 15
    while guard < 400:
        first = _mp_string(value, digits, digits + guard)
        second = _mp_string(value, digits, digits + 2 * guard)
        if first == second:
            return first
        guard *= 2
    raise ModelError(f"could not certify {digits} digits of {value}")


#: the largest decimal exponent of a value :func:`decimal_string` prints (``exp(10**6)`` is
#: about 10^434294: its exact rounding alone took 9 s, ``exp(10**1000)`` never ended)
MAX_DECIMAL_EXPONENT = 100_000


def _check_magnitude(value: sympy.Expr) -> None:
    """Refuse a value whose size is beyond 10^(+-MAX_DECIMAL_EXPONENT), judged from one
    evaluation at 15 digits (milliseconds even for ``exp(10**1000)``)."""
    with mpmath.workdps(20):
        try:
            estimate = sympy.N(value, 15)
        except (ValueError, TypeError, OverflowError, ZeroDivisionError):
            return  # left to the certified evaluation and its message
        if not estimate.is_Number or estimate.is_zero or not estimate.is_finite:
            return
        exponent = int(mpmath.mag(mpmath.mpf(estimate))) * 30103 // 100000  # bits to digits
    if abs(exponent) > MAX_DECIMAL_EXPONENT:
        shown = str(value) if len(str(value)) <= 60 else str(value)[:57] + "..."
        size = f"{exponent:,}" if abs(exponent) < 10 ** 30 else \
            f"{'-' if exponent < 0 else ''}(a number of {len(str(abs(exponent))):,} digits)"
        raise ModelError(f"the value {shown} is about 10^{size}, beyond the "
                         f"10^(+-{MAX_DECIMAL_EXPONENT:,}) that symq prints in decimals")


def _mp_string(value: sympy.Expr, digits: int, working: int) -> str:
    """Round an evaluation at ``working`` digits (sympy's evalf drives mpmath) to ``digits``."""
    with mpmath.workdps(working):
        approximation = sympy.N(value, working)
    if not approximation.is_real or not approximation.is_Number:
        raise ModelError(f"the value {value} is not a real number")
    exact = sympy.Rational(approximation)  # the exact binary value of the approximation
    return round_fraction(Fraction(int(exact.p), int(exact.q)), digits)


@dataclass(frozen=True)
class Evaluated:
    """An exact value and its decimal string with the requested significant digits."""

    exact: sympy.Expr | None
    value: str

    def __str__(self) -> str:
        return self.value

    def _repr_latex_(self) -> str:
        """Jupyter shows the exact value and its decimal digits."""
        if self.exact is None:
            return f"${self.value}$"
        return f"${sympy.latex(self.exact)} \\approx {self.value}$"

    def as_json(self) -> dict[str, str]:
        result = {"value": self.value} if self.value else {}
        if self.exact is not None:
            result = {"exact": str(self.exact), **result}
        return result

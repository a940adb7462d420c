r"""Exact rates: parsing and validating the numbers and symbols a model is built from.

Rates are sympy expressions: symbols created ``positive=True`` (``lambda_1``, ``mu_2``), exact
rationals, or expressions in them. Floats are refused, because a float rate would turn every
derived formula into an approximation; the error says how to pass an exact value.

Examples
--------
>>> from symq.rates import parse_rate
>>> parse_rate("3/10", "arrival rate of class '1'")
3/10
>>> parse_rate("0.25", "arrival rate of class '1'")
1/4
>>> print(parse_rate("lambda_1", "arrival rate of class '1'").is_positive)
True
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import sympy

from .errors import ModelError

__all__ = ["parse_rate", "parse_value", "positive_symbol", "check_rate", "exact_string"]

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_NUMBERS = {"nan", "inf", "+inf", "-inf", "infinity", "-infinity", "oo", "-oo", "zoo"}
_ALLOWED_FUNCTIONS = {"sqrt": sympy.sqrt, "Rational": sympy.Rational}


def positive_symbol(name: str) -> sympy.Symbol:
    """The positive symbol ``name``: every rate symbol symq creates goes through here."""
    return sympy.Symbol(name, positive=True)


def _exact_number(text: str, what: str) -> sympy.Rational:
    """An exact rational from ``3/10``, ``2`` or the decimal ``0.25`` (read as 1/4)."""
    numerator, _, denominator = text.partition("/")
    try:
        value = Fraction(numerator)
        if denominator:
            value /= Fraction(denominator)
    except (ValueError, ZeroDivisionError):
        raise ModelError(f"{what}: {text!r} is not a number; use a value such as 3/10") from None
    return sympy.Rational(value.numerator, value.denominator)


def _parse_text(text: str, what: str) -> sympy.Expr:
    text = text.strip()
    if not text:
        raise ModelError(f"{what} is empty; give a symbol name or an exact number such as 3/10")
    if _NUMBER.match(text):
        return _exact_number(text, what)
    if text.lower() in _NOT_NUMBERS:
        raise ModelError(f"{what} is {text}; give a finite positive number or a symbol name")
    if _NAME.match(text):
        if text in _ALLOWED_FUNCTIONS:
            raise ModelError(f"{what}: {text!r} is a function name, not a rate")
        return positive_symbol(text)
    if len(text) > 200:
        raise ModelError(f"{what}: expression too long ({len(text)} characters)")
    if not re.fullmatch(r"[A-Za-z0-9_+\-*/(). ]+", text) or "**" in text:
        raise ModelError(f"{what}: {text!r} is not a rate expression; use symbols, numbers and + - * / ( )")
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    local = {name: _ALLOWED_FUNCTIONS.get(name) or positive_symbol(name) for name in names}
    try:
        expr = sympy.parse_expr(text, local_dict=local, global_dict={"Integer": sympy.Integer,
                                                                      "Rational": sympy.Rational,
                                                                      "Float": sympy.Float,
                                                                      "Symbol": sympy.Symbol,
                                                                      "sqrt": sympy.sqrt},
                                evaluate=True)
    except Exception:  # sympy's parser raises many kinds of errors on malformed text
        raise ModelError(f"{what}: cannot read {text!r} as a rate expression") from None
    if not isinstance(expr, sympy.Expr):
        raise ModelError(f"{what}: {text!r} is not a rate expression")
    return sympy.nsimplify(expr, rational=True) if expr.has(sympy.Float) else expr


def parse_value(value: Any, what: str) -> sympy.Expr:
    """Turn user input into an exact sympy expression, without checking its sign.

    Accepts sympy expressions, ``int``, :class:`fractions.Fraction` and strings (symbol names, exact
    numbers such as ``3/10`` or the decimal ``0.25`` read as 1/4, or expressions in them).

    Raises
    ------
    ModelError
        A float, a bool, a malformed string.
    TypeError
        Input of another type.
    """
    if isinstance(value, bool):
        raise ModelError(f"{what} is the boolean {value}; give a positive number or a symbol name")
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ModelError(f"{what} is {value}; give a finite positive number")
        exact = Fraction(repr(value))
        raise ModelError(f"{what} is the float {value!r}; pass \"{exact}\" (a string) or a symbol "
                         "so results stay exact")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, str):
        return _parse_text(value, what)
    if isinstance(value, sympy.Basic):
        expr = sympy.sympify(value)
        if expr.has(sympy.Float):
            raise ModelError(f"{what} contains the float {expr}; use sympy.Rational so results stay exact")
        # every rate symbol is positive: rebuild symbols given without that assumption
        return expr.xreplace({s: positive_symbol(s.name) for s in expr.free_symbols})
    raise TypeError(f"{what} must be a sympy expression, an int, a Fraction or a string, "
                    f"not {type(value).__name__}")


def check_rate(expr: sympy.Expr, what: str) -> sympy.Expr:
    """Refuse a rate that is provably not a finite positive number; symbolic rates pass.

    Follows sympy.stats: raise only when the condition is provably false.
    """
    if expr.has(sympy.nan) or expr is sympy.nan:
        raise ModelError(f"{what} is NaN; give a finite positive number")
    if expr.has(sympy.oo, -sympy.oo, sympy.zoo):
        raise ModelError(f"{what} is infinite; give a finite positive number")
    if expr.is_zero:
        raise ModelError(f"{what} is 0; give a positive number (remove the class or server instead)")
    if expr.is_positive is False or expr.is_extended_real is False:
        raise ModelError(f"{what} is {expr}, which is not positive; give a positive number")
    return expr


def parse_rate(value: Any, what: str) -> sympy.Expr:
    """Parse and check one rate: :func:`parse_value` then :func:`check_rate`."""
    return check_rate(parse_value(value, what), what)


def exact_string(expr: sympy.Expr) -> str:
    """A sympy-parsable string of an exact value (``21/65``)."""
    return str(expr)

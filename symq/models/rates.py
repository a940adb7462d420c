r"""Exact rates: parsing and validating the numbers and symbols a model is built from.
Rates are sympy expressions: symbols created ``positive=True`` (``lambda_1``, ``mu_2``), exact
rationals, or expressions in them. Floats are refused, because a float rate would turn every
derived formula into an approximation; the error says how to pass an exact value. Strings are
read by :mod:`symq.arithmetic.expressions`, a parser of its own that cannot run code.

Examples
--------
>>> from symq.models.rates import parse_rate
>>> parse_rate("3/10", "arrival rate of class '1'")
3/10
>>> parse_rate("0.25", "arrival rate of class '1'")
1/4
>>> print(parse_rate("lambda_1", "arrival rate of class '1'").is_positive)
True
>>> parse_rate("lambda/2", "arrival rate of class '1'")
lambda/2
"""

from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction
from typing import Any, Iterable, Mapping

import sympy

from symq.errors import ArgumentTypeError, ModelError



def _is_bool(value: Any) -> bool:
    """A Python or numpy bool (numpy's is no ``bool`` subclass; numpy is not imported for it)."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__name__ == "bool" and
                                       kind.__module__ == "numpy") or kind.__name__ == "bool_"
from symq.arithmetic.expressions import parse_expression, positive_symbol

__all__ = ["parse_rate", "parse_value", "positive_symbol", "check_rate", "value_names",
           "check_names", "INTERNAL_NAMES", "check_rate_name", "RateText"]

_NOT_NUMBERS = {"nan", "inf", "infinity", "oo", "zoo"}

#: names of symq's own variables, which no rate may take (a rate ``t`` would be read as the time
#: of a response-time law): the transform and time variables of
#: :mod:`symq.engines.distributions` (``THETA``, ``TIME``), with what each one is
INTERNAL_NAMES = {"theta": "the transform variable theta of response-time laws (their LST)",
                  "t": "the time variable t of response-time laws (CDF and survival function)"}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z][A-Za-z0-9_]*")  # (``_x``: the grammar's message)


def check_rate_name(name: str, what: str) -> None:
    r"""Refuse a rate name that clashes with a variable of symq's own: ``theta`` and ``t`` (the
    transform and time of response-time laws) and any name containing ``__`` (symq names the
    intermediate quantities of structured formulas ``H__1_2``, ``W__1``, ...), with a message
    that names the clash and a rename.

    Parameters
    ----------
    name : str
        A rate (symbol) name.
    what : str
        Names the rate in the message (``"arrival rate of class '1'"``).

    Raises
    ------
    ModelError
        A reserved name.

    Examples
    --------
    >>> check_rate_name("theta_1", "arrival rate of class '1'")
    >>> check_rate_name("t", "service rate of server '1'")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: service rate of server '1': the rate name 't' is symq's own: the time variable t of response-time laws (CDF and survival function); rename the rate, e.g. t_1

    Running time: O(len(name)).
    """
    if name in INTERNAL_NAMES:
        raise ModelError(f"{what}: the rate name {name!r} is symq's own: {INTERNAL_NAMES[name]}; "
                         f"rename the rate, e.g. {name}_1")
    if "__" in name:
        fixed = re.sub("_+", "_", name).strip("_") or "x"
        raise ModelError(f"{what}: the rate name {name!r} contains '__', which symq keeps for the "
                         "intermediate quantities of structured formulas (H__1_2, W__1); rename "
                         f"the rate with single underscores, e.g. {fixed}")


class RateText(str):
    r"""A value read once: the ``str`` is the exact value as symq prints it (``"1/4"`` for the
    ``0.25`` the user wrote, what JSON output shows), ``expr`` the parsed expression and
    ``written`` the text as the user wrote it. :func:`parse_value` takes ``expr`` as it is
    instead of reading the printed form again: a 29-character value whose number has thousands
    of digits would otherwise be refused for a length the user never wrote.

    Examples
    --------
    >>> value = RateText.read("0.25", "value of mu_1")
    >>> value, value.written, value.expr
    ('1/4', '0.25', 1/4)
    >>> parse_value(value, "value of mu_1") is value.expr
    True

    Running time: that of :func:`parse_rate` on the text.
    """

    expr: sympy.Expr
    written: str

    @classmethod
    def read(cls, text: str, what: str) -> "RateText":
        """Parse ``text`` (a positive rate, :func:`parse_rate`) once and keep both forms."""
        expr = parse_rate(text, what)
        from symq.arithmetic.numeric import full_int_strings
        with full_int_strings():  # a value of up to MAX_DIGITS digits prints in full
            shown = str(expr)
        value = cls(shown)
        value.expr, value.written = expr, text
        return value


def _parse_text(text: str, what: str) -> sympy.Expr:
    """A rate string through :func:`symq.arithmetic.expressions.parse_expression`: no code is ever run."""
    stripped = text.strip()
    if stripped.lower().lstrip("+-") in _NOT_NUMBERS:
        raise ModelError(f"{what} is {stripped}; give a finite positive number or a symbol name")
    for name in _WORD.findall(text):
        check_rate_name(name, what)
    return parse_expression(text, what)


def _check_symbols(expr: sympy.Expr, what: str) -> None:
    """A sympy expression given as a rate: each symbol name must be one the grammar reads (so
    that every output, text, JSON or LaTeX, prints it as a plain name) and not symq's own."""
    for symbol in sorted(expr.free_symbols, key=lambda s: s.name):
        name = symbol.name
        check_rate_name(name, what)
        if not _NAME.fullmatch(name):
            raise ModelError(f"{what}: the symbol name {name!r} is not a rate name: names start "
                             "with a letter and use letters, digits and single underscores")
        parsed = parse_expression(name, f"{what}: the symbol {name!r}")
        if not (isinstance(parsed, sympy.Symbol) and parsed.name == name):
            raise ModelError(f"{what}: the symbol name {name!r} is not a rate name (it reads as "
                             f"{parsed}); choose another name such as {name}_1")


def parse_value(value: Any, what: str) -> sympy.Expr:
    r"""Turn user input into an exact sympy expression, without checking its sign.

    Parameters
    ----------
    value : sympy.Expr, int, Fraction or str
        A string is a symbol name, an exact number such as ``3/10``, a decimal such as ``0.25``
        (read as 1/4), or an expression in them, in the grammar of :mod:`symq.arithmetic.expressions`.
    what : str
        Names the value in error messages (``"arrival rate of class '1'"``).

    Returns
    -------
    sympy.Expr
        Exact; every symbol is created ``positive=True``.

    Raises
    ------
    ModelError
        A float (Python's or numpy's), a bool, a malformed string, a number past the digit
        limit.
    ArgumentTypeError
        Input of another type (also a ``TypeError``).

    Examples
    --------
    >>> parse_value("-1/2", "shift")
    -1/2

    Running time: O(length of the text) for a string; O(size of the expression) otherwise.
    """
    if _is_bool(value):
        raise ModelError(f"{what} is the boolean {value}; give a positive number or a symbol name")
    if isinstance(value, numbers.Integral) and not isinstance(value, sympy.Basic):
        return _checked_number(sympy.Integer(int(value)), what)  # int, numpy integers
    if isinstance(value, Fraction):
        return _checked_number(sympy.Rational(value.numerator, value.denominator), what)
    if isinstance(value, numbers.Real) and not isinstance(value, sympy.Basic):
        # float, numpy floating (np.float64 is a float, np.float32 is not), decimal.Decimal
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            number = math.nan
        if math.isnan(number) or math.isinf(number):
            raise ModelError(f"{what} is {value}; give a finite positive number")
        kind = "float" if type(value) is float else type(value).__name__
        exact = Fraction(str(value)) if kind == "Decimal" else Fraction(repr(number))
        raise ModelError(f"{what} is the {kind} {number!r}; pass \"{exact}\" (a string) or a "
                         "symbol so results stay exact")
    if isinstance(value, RateText):
        return value.expr
    if isinstance(value, str):
        return _parse_text(value, what)
    if isinstance(value, sympy.Basic):
        expr = sympy.sympify(value)
        if expr.has(sympy.Float):
            raise ModelError(f"{what} contains the float {expr}; use sympy.Rational so results stay exact")
        for number in ([expr] if expr.is_Rational else expr.atoms(sympy.Rational)):
            _checked_number(number, what)
        _check_symbols(expr, what)
        # every rate symbol is positive: rebuild symbols given without that assumption
        return expr.xreplace({s: positive_symbol(s.name) for s in expr.free_symbols})
    raise ArgumentTypeError(f"{what} must be a sympy expression, an int, a Fraction or a "
                            f"string, not {type(value).__name__}")


def _checked_number(number: sympy.Rational, what: str) -> sympy.Rational:
    """Refuse an exact number given in Python past the digit limit of the rate grammar
    (:data:`symq.arithmetic.expressions.MAX_DIGITS`), as a string of it would be refused:
    its digits are counted from the bit length, never by building the text."""
    from symq.arithmetic.expressions import MAX_DIGITS
    bits = max(int(number.p).bit_length(), int(number.q).bit_length())
    if bits * 0.30103 > MAX_DIGITS + 1:
        raise ModelError(f"{what} is a number of about {int(bits * 0.30103):,} digits; rates "
                         f"take at most {MAX_DIGITS:,} digits")
    return number


def check_rate(expr: sympy.Expr, what: str) -> sympy.Expr:
    r"""Refuse a rate that is provably not a finite positive number; symbolic rates pass (as in
    sympy.stats, only a condition that is provably false raises).

    Parameters
    ----------
    expr : sympy.Expr
        The parsed rate.
    what : str
        Names it in the error message.

    Returns
    -------
    sympy.Expr
        ``expr`` itself.

    Raises
    ------
    ModelError
        NaN, an infinity, zero, or a value that is provably negative or not real.

    Examples
    --------
    >>> check_rate(sympy.Integer(0), "service rate of server '1'")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: service rate of server '1' is 0; give a positive number (remove the class or server instead)

    Running time: sympy's assumption queries on ``expr``.
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
    r"""Parse and check one rate: :func:`parse_value` then :func:`check_rate`.

    Parameters
    ----------
    value : sympy.Expr, int, Fraction or str
        As :func:`parse_value`.
    what : str
        Names the rate in error messages.

    Returns
    -------
    sympy.Expr
        An exact positive (or symbolic) rate.

    Raises
    ------
    ModelError
        What :func:`parse_value` or :func:`check_rate` refuses.

    Examples
    --------
    >>> parse_rate("mu/3", "service rate of server '2'")
    mu/3

    Running time: that of :func:`parse_value` and :func:`check_rate`.
    """
    return check_rate(parse_value(value, what), what)


def value_names(values: Mapping[Any, Any] | None) -> dict[str, Any]:
    r"""``values`` keyed by symbol name: string keys stay, sympy symbols give their name.

    Parameters
    ----------
    values : mapping or None
        ``{symbol or name: value}``; ``None`` is the empty mapping.

    Returns
    -------
    dict
        ``{name: value}``.

    Raises
    ------
    ModelError
        A key that is neither a string nor a sympy symbol.

    Examples
    --------
    >>> value_names({positive_symbol("mu_1"): 2, "lambda_1": "1/2"})
    {'mu_1': 2, 'lambda_1': '1/2'}

    Running time: O(number of values).
    """
    result: dict[str, Any] = {}
    for key, value in dict(values or {}).items():
        if isinstance(key, sympy.Symbol):
            key = key.name
        if not isinstance(key, str):
            raise ModelError(f"values are keyed by symbol name (a string such as 'lambda_1'), "
                             f"not {key!r}")
        result[key] = value
    return result


def check_names(values: Mapping[str, Any], symbols: Iterable[sympy.Symbol], where: str) -> None:
    r"""Refuse a value given for a name that is not a symbol of ``where`` (a typo would otherwise
    be ignored silently).

    Parameters
    ----------
    values : mapping
        ``{name: value}`` as :func:`value_names` returns it.
    symbols : iterable of sympy.Symbol
        The symbols that may be given values.
    where : str
        What owns the symbols, for the message (``"the model"``).

    Raises
    ------
    ModelError
        A name of ``values`` that is not the name of one of ``symbols``.

    Examples
    --------
    >>> check_names({"lambda_9": 1}, [positive_symbol("lambda_1")], "the model")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: the model has no symbol 'lambda_9'; its symbols: lambda_1

    Running time: O(number of values + number of symbols).
    """
    known = {s.name for s in symbols}
    for name in values:
        if name not in known:
            names = ", ".join(sorted(known)) or "none (it has no symbol left)"
            raise ModelError(f"{where} has no symbol {name!r}; its symbols: {names}")

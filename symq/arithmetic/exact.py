r"""Exact arithmetic for symq: one place that converts sympy values into exact rationals
(python-flint's ``fmpq``, a core dependency; :class:`fractions.Fraction` if it cannot be imported) or into the field
of rational functions $\mathbb{Q}(\lambda,\mu,\dots)$ of sympy's sparse polynomials, and back.
Every exact algorithm of the library (the subset DPs, the balance residuals, the routings, the
stability max-flow) converts its rates with this module, so one rule decides what is exact: a sympy
``Rational`` (or an ``int``, ``Fraction``, ``fmpq``) is, a float or an irrational number is not and
is refused with a one-line error naming the value. :mod:`symq.engines.ctmc` and the derivation scripts
keep their own conversions on purpose: they are the independent second route.

Examples
--------
>>> import sympy
>>> from symq.arithmetic.exact import to_fraction, to_sympy, ExactField
>>> to_fraction(sympy.Rational(3, 10))
Fraction(3, 10)
>>> to_sympy(to_fraction(sympy.Rational(3, 10)) * 2)
3/5
>>> lam, mu = sympy.symbols("lambda mu")
>>> field = ExactField([lam, mu])
>>> field.expr(field.one / (field.value(mu) - field.value(lam)))
-1/(lambda - mu)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable

import sympy

from symq.errors import ModelError, UnsupportedError

__all__ = ["to_fraction", "to_sympy", "rational", "exact_arithmetic", "ExactField",
           "fraction_field", "flint_module", "HAVE_FLINT"]

try:  # python-flint fmpq, a core dependency (Fraction if it cannot be imported)
    from flint import fmpq as _fmpq
except ImportError:  # pragma: no cover - depends on the environment
    _fmpq = None

#: True when python-flint is importable (fast rationals ``fmpq`` and ball arithmetic ``arb``)
HAVE_FLINT = _fmpq is not None


def exact_arithmetic() -> str:
    """The exact rational type used for numeric rates.

    Returns
    -------
    str
        ``"fmpq"`` (python-flint) or ``"Fraction"`` (standard library).

    Examples
    --------
    >>> exact_arithmetic() in ("fmpq", "Fraction")
    True

    Running time: O(1) (the import of python-flint is tried once).
    """
    return "fmpq" if _fmpq is not None else "Fraction"


def flint_module() -> Any:
    r"""The ``flint`` module (python-flint, a core dependency) or ``None`` when it cannot be imported.

    Returns
    -------
    module or None

    Examples
    --------
    >>> flint_module() is None or hasattr(flint_module(), "fmpq")
    True

    Running time: O(1) after the first import.
    """
    if _fmpq is None:  # pragma: no cover - depends on the environment
        return None
    import flint
    return flint


def _is_fmpq(value: Any) -> bool:
    return _fmpq is not None and isinstance(value, _fmpq)


def to_fraction(value: Any, what: str = "value", hint: str = "",
                error: type[Exception] = ModelError) -> Fraction:
    """``value`` as a :class:`fractions.Fraction`, exactly.

    Parameters
    ----------
    value : sympy ``Rational``, ``int``, ``Fraction`` or ``fmpq``
    what : str
        Names the value in the error message (``"arrival rate of class '1'"``).
    hint : str
        The remedy appended to the error message.
    error : exception class
        Raised for a value that is not an exact rational (default :class:`ModelError`).

    Returns
    -------
    Fraction

    Raises
    ------
    ModelError
        (or ``error``) A float, an irrational number or a symbol.

    Examples
    --------
    >>> to_fraction(sympy.Rational(-7, 4))
    Fraction(-7, 4)
    >>> to_fraction(sympy.sqrt(2), "rate")
    Traceback (most recent call last):
    ...
    symq.errors.ModelError: rate is sqrt(2), not an exact rational number

    Running time: O(1) conversions of the numerator and denominator.
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool):
        raise error(f"{what} is {value}, not an exact rational number{hint}")
    if isinstance(value, int):
        return Fraction(value)
    if _is_fmpq(value):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sympy.Basic):
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
    elif hasattr(value, "numerator") and hasattr(value, "denominator"):  # gmpy2/sympy QQ elements
        return Fraction(int(value.numerator), int(value.denominator))
    raise error(f"{what} is {value}, not an exact rational number{hint}")


def rational(value: Any, what: str = "value", hint: str = "",
             error: type[Exception] = ModelError) -> Any:
    r"""``value`` as the fast exact rational type (``fmpq``, else ``Fraction``).

    Parameters
    ----------
    value, what, hint, error
        As :func:`to_fraction`.

    Returns
    -------
    fmpq or Fraction
        ``fmpq`` when python-flint is installed.

    Raises
    ------
    ModelError
        (or ``error``) A value :func:`to_fraction` refuses.

    Examples
    --------
    >>> str(rational(sympy.Rational(1, 3)) * 3)
    '1'

    Running time: that of :func:`to_fraction`, plus one ``fmpq`` construction.
    """
    f = to_fraction(value, what, hint, error)
    return _fmpq(f.numerator, f.denominator) if _fmpq is not None else f


def to_sympy(value: Any) -> sympy.Rational:
    r"""An exact rational (``Fraction``, ``fmpq``, ``int``, sympy ``Rational``) as a sympy ``Rational``.

    Parameters
    ----------
    value : Fraction, fmpq, int or sympy.Basic
        A sympy value is returned unchanged.

    Returns
    -------
    sympy.Rational

    Examples
    --------
    >>> to_sympy(Fraction(2, 6))
    1/3

    Running time: O(size of the numerator and denominator).
    """
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int):
        return sympy.Integer(value)
    return sympy.Rational(int(value.p), int(value.q))


def fraction_field(symbols: Iterable[sympy.Symbol]) -> Any:
    r"""The field $\mathbb{Q}(\text{symbols})$ of sympy sparse rational functions (a ``FracField``:
    ``field.from_expr(expr)`` converts in, ``element.as_expr()`` out), symbols in the given order.

    Parameters
    ----------
    symbols : iterable of sympy.Symbol
        The generators, in the order the field uses.

    Returns
    -------
    sympy.polys.fields.FracField

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> F = fraction_field([x])
    >>> (F.from_expr(x) ** 2 / F.from_expr(x)).as_expr()
    x

    Running time: O(number of symbols) (sympy caches the field).
    """
    from sympy.polys.fields import FracField
    return FracField(tuple(symbols), sympy.QQ)


class ExactField:
    r"""Exact arithmetic for one set of symbols: rationals (``fmpq`` or ``Fraction``) when there
    are none, the rational-function field $\mathbb{Q}(\text{symbols})$ otherwise.

    ``value(expr)`` converts a sympy expression in, ``expr(x)`` converts back (factored for
    rational functions); ``zero``, ``one`` and ``make(p, q)`` build constants. Only
    $+,-,\times,\div$ are used on the elements, so the DPs run unchanged on both.

    Parameters
    ----------
    symbols : iterable of sympy.Symbol
        The free symbols of the rates (sorted by name); empty for numeric rates.
    error : exception class
        Raised by :meth:`value` on a numeric value that is not rational (default
        :class:`UnsupportedError`).

    Examples
    --------
    >>> F = ExactField([])
    >>> F.kind in ("fmpq", "Fraction"), F.expr(F.value(sympy.Rational(1, 3)) + F.one)
    (True, 4/3)
    """

    def __init__(self, symbols: Iterable[sympy.Symbol] = (),
                 error: type[Exception] = UnsupportedError) -> None:
        symbols = sorted(symbols, key=lambda s: s.name)
        self.numeric = not symbols
        self.error = error
        if self.numeric:
            self.kind = exact_arithmetic()
            self.make = _fmpq if _fmpq is not None else Fraction
            self.field = None
        else:
            self.kind = "rational functions"
            self.make = None
            self.field = fraction_field(symbols)
        self.zero = self.value(0)
        self.one = self.value(1)

    @classmethod
    def for_model(cls, model: Any) -> "ExactField":
        """The field of a :class:`~symq.models.model.Model`'s rates (numeric when it has no symbol)."""
        return cls(() if model.is_numeric else model.symbols)

    def value(self, expr: Any) -> Any:
        """``expr`` (a sympy expression, ``int`` or rational) as an element."""
        if self.numeric:
            if isinstance(expr, sympy.Basic) and not expr.is_Rational:
                raise self.error(f"the exact algorithms need rational rates, not {expr}; "
                                 "give rates as fractions such as 3/10")
            f = to_fraction(expr, "rate", "; give rates as fractions such as 3/10", self.error)
            return self.make(f.numerator, f.denominator)
        if isinstance(expr, Fraction):
            expr = sympy.Rational(expr.numerator, expr.denominator)
        elif isinstance(expr, int):
            expr = sympy.Integer(expr)
        return self.field.from_expr(expr)

    def expr(self, value: Any, factor: bool = True) -> sympy.Expr:
        """An element as a sympy expression (rational functions factored unless ``factor=False``)."""
        if self.numeric:
            return to_sympy(value)
        out = value.as_expr()
        return sympy.factor(out) if factor else out

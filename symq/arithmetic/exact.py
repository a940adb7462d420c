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
           "fraction_field", "flint_module", "HAVE_FLINT", "factor_list", "factored_expr"]

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


def _sympy_generator_order(symbols: Iterable[sympy.Symbol]) -> tuple:
    """The symbols in the order sympy's ``factor`` gives the generators of an expression (its
    factors' leading coefficients are positive in the lex order of that order)."""
    try:
        from sympy.polys.polyutils import _sort_gens
        return tuple(_sort_gens(list(symbols)))
    except ImportError:  # pragma: no cover - a sympy without the helper
        return tuple(sorted(symbols, key=lambda s: s.name))


def factor_list(poly: Any, order: Iterable[sympy.Symbol] | None = None) -> tuple[Any, list]:
    r"""The factorization over $\mathbb{Q}$ of a nonzero sympy sparse polynomial, by python-flint.

    The same as sympy's ``poly.factor_list()`` (python-flint's multivariate factoring, a core
    dependency, is much faster; sympy's is used only when python-flint cannot be imported):
    ``poly = coefficient * prod(factor ** exponent)`` with irreducible factors that have
    coprime integer coefficients and a positive leading coefficient in the lex order of
    ``order``.

    Parameters
    ----------
    poly : sympy.polys.rings.PolyElement
        A nonzero polynomial of a ring over ``QQ`` (or ``ZZ``).
    order : iterable of sympy.Symbol, optional
        All the generators of ``poly.ring`` in the order that decides the sign of each factor
        (default: the ring's own order).

    Returns
    -------
    (coefficient, [(factor, exponent)])
        The coefficient in ``poly.ring.domain``; the factors are elements of ``poly.ring``.

    Raises
    ------
    ValueError
        ``poly`` is the zero polynomial.

    Examples
    --------
    >>> from sympy.polys.rings import ring
    >>> from sympy import QQ
    >>> R, x, y = ring("x, y", QQ)
    >>> factor_list(-2 * (x - y) ** 2 * (3 * y + 1) / 5)
    (-2/5, [(3*y + 1, 1), (x - y, 2)])
    >>> factor_list(y - x), factor_list(y - x, order=[R.symbols[1], R.symbols[0]])
    ((-1, [(x - y, 1)]), (1, [(-x + y, 1)]))

    Running time: that of python-flint's multivariate factoring, plus O(terms) conversions.
    """
    if not poly:
        raise ValueError("the zero polynomial has no factorization")
    ring = poly.ring
    symbols = tuple(ring.symbols)
    order = symbols if order is None else tuple(order)
    position = [order.index(s) for s in symbols]  # ring variable i is flint variable position[i]
    back = [position.index(j) for j in range(len(order))]
    flint = flint_module()
    if flint is None:  # pragma: no cover - depends on the environment
        coefficient, factors = poly.factor_list()
        result = []
        for f, e in factors:  # sympy's signs are for the ring's order: make them for ``order``
            lead = max(f.items(), key=lambda t: tuple(t[0][i] for i in back))[1]
            if lead < 0:
                f = -f
                coefficient = -coefficient if e % 2 else coefficient
            result.append((f, e))
        return coefficient, result
    ctx = flint.fmpq_mpoly_ctx.get(tuple(s.name for s in order), "lex")
    domain = ring.domain
    terms = {}
    for monomial, c in poly.items():
        f = to_fraction(c)
        terms[tuple(monomial[i] for i in back)] = _fmpq(f.numerator, f.denominator)
    content, factors = ctx.from_dict(terms).factor()
    result = []
    for f, e in factors:
        terms = {}
        for monomial, c in f.to_dict().items():
            terms[tuple(monomial[position[i]] for i in range(len(symbols)))] = \
                domain.convert(sympy.Rational(int(c.p), int(c.q)))
        result.append((ring.from_dict(terms), int(e)))
    return domain.convert(sympy.Rational(int(content.p), int(content.q))), result


def factored_expr(value: Any) -> sympy.Expr:
    r"""A sympy rational function (a ``FracElement`` of :func:`fraction_field`) as the same
    expression ``sympy.factor(value.as_expr())`` gives, factored by python-flint.

    Parameters
    ----------
    value : sympy.polys.fields.FracElement
        A reduced rational function (any element of a sympy ``FracField`` is).

    Returns
    -------
    sympy.Expr
        The coefficient times the irreducible factors of the numerator and the denominator (with
        negative exponents), normalized as ``sympy.factor`` normalizes them.

    Examples
    --------
    >>> lam, mu = sympy.symbols("lambda mu")
    >>> F = fraction_field([lam, mu])
    >>> factored_expr(F.from_expr((mu ** 2 - lam ** 2) / (2 * mu)))
    -(lambda - mu)*(lambda + mu)/(2*mu)

    Running time: two python-flint factorings (numerator and denominator).
    """
    from sympy.core.mul import _keep_coeff
    numer, denom = value.numer, value.denom
    if not numer:
        return sympy.Integer(0)
    order = _sympy_generator_order(numer.ring.symbols)
    coefficient = sympy.Integer(1)
    powers = []
    for poly, sign in ((numer, 1), (denom, -1)):
        c, factors = factor_list(poly, order)
        c = numer.ring.domain.to_sympy(c)
        coefficient = coefficient * c if sign == 1 else coefficient / c
        powers += [f.as_expr() ** (sign * e) for f, e in factors]
    return _keep_coeff(coefficient, sympy.Mul(*powers))


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
        if not factor:
            return value.as_expr()
        if flint_module() is None or not hasattr(value, "numer"):  # pragma: no cover
            return sympy.factor(value.as_expr())
        return factored_expr(value)

r"""Certified decimal digits of the normalization quantities by ball arithmetic: the subset DPs of
this package run unchanged on python-flint's ``arb`` balls (a midpoint and a rigorous radius) at
a working precision chosen from the number of digits asked for and the size of the problem, and
the precision is raised until every ball rounds to one $N$-digit decimal: a value is printed only
when both endpoints of its ball, hence every point of it and the exact value, round (half to
even, as :func:`symq.arithmetic.numeric.round_fraction` rounds exact rationals) to the same $N$ significant
digits. The DPs add and multiply positive numbers and divide by positive slacks $r(X)$, so the
radius stays a few ulps per level; the two places where the formulas subtract (the slacks
$r(X)=\mu(X)-\lambda(R(X))$ and the rates $L(I)=\lambda-\lambda(R(\mathcal M\setminus I))$ of
ALIS and RAIS, and $1-E[\text{busy}]/K$ of ``redundancy:K:D``) are computed exactly in integers
or rewritten as positive sums before any rounding, so no cancellation inflates a ball. Where a
value cannot be certified (the exact value is a rounding tie, say) the exact rational route
answers instead (the route table, :mod:`symq.queries.routes`, falls back to it). This module
holds the arithmetic (the ball field, certification of balls and intervals); the precision loop
and the choice of kernels or balls per component live in :mod:`symq.queries.compute`.

Examples
--------
>>> from flint import arb, ctx
>>> with ctx.workprec(128):
...     print(certify(arb(663) / 1216, 20).text)
0.54523026315789473684
>>> from sympy import Rational
>>> str(Rational(663, 1216).evalf(21))
'0.545230263157894736842'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from symq.errors import UnsupportedError
from symq.arithmetic.exact import HAVE_FLINT, flint_module, to_fraction
from symq.arithmetic.interval import Interval, certify_interval

__all__ = ["BallField", "Ball", "certify", "certify_intervals", "ball_endpoints", "QUANTITIES",
           "HAVE_FLINT", "flint_module"]

#: the quantities this module certifies (the names of :mod:`symq.queries.quantities`)
QUANTITIES = ("empty-probability", "normalizing-constant", "server-idle-probability",
              "mean-number", "mean-response-time")


class BallField:
    """The field interface of :mod:`symq.arithmetic.exact` on ``arb`` balls at the current flint precision.

    Only use it inside ``flint.ctx.workprec(prec)`` (see :func:`symq.queries.compute.certified_loop`): the
    precision of every operation is the context's.
    """

    numeric = True
    kind = "arb"

    def __init__(self) -> None:
        flint = flint_module()
        if flint is None:  # pragma: no cover - depends on the environment
            raise UnsupportedError("certified digits need python-flint, a core dependency of "
                                   "symq: reinstall symq (pip install -e .)")
        self._arb, self._fmpq = flint.arb, flint.fmpq
        self.zero = self._arb(0)
        self.one = self._arb(1)

    def value(self, expr: Any) -> Any:
        """An exact rational (sympy, ``Fraction``, ``int``) as a ball (radius one rounding)."""
        f = to_fraction(expr, "rate", "; give rates as fractions such as 3/10", UnsupportedError)
        if f.denominator == 1:
            return self._arb(f.numerator)
        return self._arb(self._fmpq(f.numerator, f.denominator))

    def make(self, p: int, q: int) -> Any:
        """The ball of $p/q$ for integers."""
        return self._arb(self._fmpq(p, q)) if q != 1 else self._arb(p)

    def expr(self, value: Any) -> Any:  # the entry point's exact conversions never reach here
        raise UnsupportedError("a ball has no exact value; use certify()")


@dataclass(frozen=True)
class Ball:
    """A certified value: its ``digits`` correct significant digits and the enclosing ball
    ``[lower, upper]`` (exact rationals) that certified them."""

    text: str
    lower: Fraction
    upper: Fraction

    def contains(self, value: Any) -> bool:
        """Whether an exact value lies in the ball."""
        return self.lower <= to_fraction(value) <= self.upper


def ball_endpoints(ball: Any) -> tuple[Fraction, Fraction]:
    """The exact endpoints of an ``arb`` ball (midpoint and radius are exact binary numbers).

    Parameters
    ----------
    ball : flint.arb
        A finite ball.

    Returns
    -------
    tuple of two Fraction
        ``(mid - rad, mid + rad)``, exact.

    Examples
    --------
    >>> from flint import arb
    >>> ball_endpoints(arb(1) / 4)
    (Fraction(1, 4), Fraction(1, 4))

    Running time: O(p) for a p-bit midpoint.
    """
    mid_m, mid_e = ball.mid().man_exp()
    rad_m, rad_e = ball.rad().man_exp()

    def exact(m, e):
        m, e = int(m), int(e)
        return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)
    mid, rad = exact(mid_m, mid_e), exact(rad_m, rad_e)
    return mid - rad, mid + rad


def certify(ball: Any, digits: int) -> Ball | None:
    """The ``digits``-digit decimal that every point of ``ball`` rounds to, or None.

    Rounding to $N$ significant digits is monotone, so it is enough that both endpoints round
    to the same string.

    Parameters
    ----------
    ball : flint.arb
        The enclosure.
    digits : int
        Significant digits wanted.

    Returns
    -------
    Ball or None
        The certified text with the ball's exact endpoints, or ``None`` (an infinite ball or
        endpoints that round differently).

    Examples
    --------
    >>> from flint import arb
    >>> certify(arb(1) / 3, 10).text
    '0.3333333333'
    >>> certify(arb("0.125 +/- 1e-30"), 2) is None   # a rounding tie inside the ball
    True

    Running time: O(digits^2) for the two roundings.
    """
    if not ball.is_finite():
        return None
    lower, upper = ball_endpoints(ball)
    text = certify_interval(lower, upper, digits)
    return None if text is None else Ball(text, lower, upper)


def certify_intervals(items: dict[Any, Interval], digits: int, bits: int
                      ) -> tuple[dict[Any, Ball] | None, int]:
    """Every interval as a :class:`Ball` with ``digits`` digits, or ``(None, more_bits)``: the
    bits to add, estimated from the widest relative width (at least 16).

    Parameters
    ----------
    items : dict
        Nonnegative intervals by key.
    digits : int
        Significant digits wanted.
    bits : int
        The working precision that computed them.

    Returns
    -------
    (dict or None, int)

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> certify_intervals({"x": Interval(F(1, 3), F(1, 3))}, 5, 64)[0]["x"].text
    '0.33333'

    Running time: O(digits^2) per interval.
    """
    out, grow = {}, 0
    for key, box in items.items():
        text = certify_interval(box.lower, box.upper, digits)
        if text is not None:
            out[key] = Ball(text, box.lower, box.upper)
            continue
        if box.lower <= 0:
            grow = max(grow, bits)
        else:
            width = (box.upper - box.lower) / box.lower
            need = (math.log2(width) if width > 0 else 0) + digits * math.log2(10) + 12
            grow = max(grow, 16, int(math.ceil(need)))
    return (out, 0) if not grow else (None, grow)

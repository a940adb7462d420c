r"""A law on $[0,\infty)$ given by a rational Laplace-Stieltjes transform, at exact rates.
Every law of :mod:`symq.engines.response_time` has an LST $\hat F(\theta)=N(\theta)/D(\theta)$ with rational
coefficients; :class:`RationalLaw` gives its atom, mean and second moment exactly, its exact
partial fractions over $\mathbb Q$, and its survival function (exact terms $t^ke^{-rt}$ for rational
poles, a ``RootSum`` evaluated in FLINT/Arb ball arithmetic for the others), with certified digits
and a percentile by bisection on the same balls. The formulas are in docs/response-times.md
(From the LST to numbers).

Examples
--------
>>> from fractions import Fraction
>>> import flint
>>> from symq.engines.response_time.law import RationalLaw
>>> mm1 = RationalLaw(flint.fmpq_poly([1]), flint.fmpq_poly([1, 2]))   # 1/(1+2 theta): Exp(1/2)
>>> str(mm1.mean()), mm1.survival_value(Fraction(1), 10)
('2', '0.6065306597')
>>> print(mm1.survival_expr(Fraction(1)))
exp(-1/2)

Running time: factoring $D$ (degree $d$) and $O(d^2)$ per evaluation; the percentile needs about
$3.3\cdot$ ``digits`` evaluations.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from functools import cached_property
from typing import Any

import flint
import sympy

from symq.engines.distributions import THETA, TIME
from symq.errors import ModelError, UnsupportedError
from symq.arithmetic.numeric import digit_count, round_fraction
from symq.display import Displayed, Math

__all__ = ["RationalLaw", "from_field_element", "certified_decimal"]


def _fraction(q: flint.fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def _rational(q: Any) -> sympy.Rational:
    return sympy.Rational(int(q.p), int(q.q)) if isinstance(q, flint.fmpq) else sympy.Rational(q)


@contextmanager
def _precision(bits: int):
    """Scoped FLINT precision (restored on exit)."""
    saved = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = saved


def _midpoint(ball: flint.arb) -> Fraction:
    """The exact midpoint of a real ball."""
    m, e = ball.mid().man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _dyadic_round(value: Fraction, bits: int) -> Fraction:
    """``value`` rounded to ``bits`` significant bits (keeps the secant's fractions small)."""
    if value == 0:
        return value
    shift = bits - (value.numerator.bit_length() - value.denominator.bit_length())
    scale = Fraction(2) ** shift
    return Fraction(round(value * scale)) / scale


def _rounding_interval(text: str, digits: int) -> tuple[Fraction, Fraction]:
    """The ends of the numbers that round to ``text`` at ``digits`` significant digits (a
    text ``1000...`` has a lower half-unit ten times smaller: below it one more digit shows)."""
    value = Fraction(text)
    exponent = digit_count(value.numerator // value.denominator) - 1 if value >= 1 else \
        -digit_count(value.denominator // value.numerator)
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    unit = Fraction(10) ** (exponent - digits + 1)
    below = unit / 10 if value == Fraction(10) ** exponent else unit
    return value - below / 2, value + unit / 2


def _dyadic(ball: flint.arb) -> tuple[Fraction, Fraction]:
    """Exact lower and upper ends of a real ball."""
    m, e = ball.mid().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    m, e = ball.rad().man_exp()
    rad = Fraction(int(m)) * Fraction(2) ** int(e)
    return mid - rad, mid + rad


#: a ball whose magnitude is past 2**FAR_BITS or below 2**-FAR_BITS is rounded from its decimal
#: logarithm (:func:`_scientific`) instead of exact fractions of its ends, which would hold
#: about FAR_BITS bits or more (a survival at t = 10^9 is near 2^-7*10^8)
FAR_BITS = 1 << 14


def _magnitude_bits(ball: flint.arb) -> int | None:
    """``k`` with ``|x| < 2**k`` for every ``x`` in the ball (``None`` for the exact zero)."""
    upper = ball.abs_upper()
    if upper.is_zero():
        return None
    m, e = upper.man_exp()
    return int(e) + int(m).bit_length()


def _scientific_digits(value: Fraction, exponent: int, digits: int) -> tuple[int, int]:
    """``(mantissa, exponent)`` with ``value * 10**exponent`` rounded to ``mantissa`` (``digits``
    digits, half to even) times ``10**(exponent - digits + 1)``; ``value`` lies within a factor
    10 or so of 1."""
    while value < 1:
        value, exponent = value * 10, exponent - 1
    while value >= 10:
        value, exponent = value / 10, exponent + 1
    integer = round(value * 10 ** (digits - 1))
    if integer == 10 ** digits:  # rounding carried into a new digit
        integer, exponent = integer // 10, exponent + 1
    return integer, exponent


def _scientific(ball: flint.arb, digits: int, bits: int) -> str | None:
    r"""``digits`` correct significant digits of the number in ``ball`` (of known sign, any
    magnitude), in exponent form ``1.2345e-434294481``: the decimal exponent
    $E=\lfloor\log_{10}|x|\rfloor$ from the ball's logarithm, the mantissa
    $|x|/10^E\in[1,10)$ as a ball whose ends are rounded alike; ``None`` when the ball is too
    wide to decide. Neither the number nor $10^E$ is ever written out in full."""
    from symq.arithmetic.numeric import full_int_strings
    negative = ball < 0
    size = abs(_magnitude_bits(ball) or 0)
    with _precision(bits + size.bit_length() + 64):
        absolute = -ball if negative else ball
        logarithm = absolute.log() / flint.arb(10).log()
        if not logarithm.is_finite():
            return None
        guess = int(logarithm.mid().floor().unique_fmpz())
        mantissa = absolute / flint.arb(10) ** flint.fmpz(guess)
    if not mantissa.is_finite():
        return None
    low, high = _dyadic(mantissa)
    if low <= 0:
        return None
    first = _scientific_digits(low, guess, digits)
    if first != _scientific_digits(high, guess, digits):
        return None
    integer, exponent = first
    with full_int_strings():
        text, power = str(integer), str(exponent)
    return ("-" if negative else "") + text[0] + ("." + text[1:] if digits > 1 else "") + \
        "e" + power


def certified_decimal(ball_at, digits: int, nonzero: bool = False) -> str:
    r"""``digits`` correct significant digits of a real number given by ``ball_at(bits)``, a
    function returning an Arb ball that contains it at working precision ``bits``.

    Parameters
    ----------
    ball_at : callable
        ``ball_at(bits)`` returns a python-flint ``arb`` containing the number.
    digits : int
        Significant digits wanted.
    nonzero : bool
        The number is known not to be 0: a ball around 0 is always refined (never printed as 0),
        however tiny (a survival function at a very large time).

    Returns
    -------
    str
        Every digit correct (both ends of the ball round alike). Plain notation as
        :func:`~symq.arithmetic.numeric.round_fraction`; a number past $2^{\pm 16384}$ in exponent
        form (``1.0888e-217147241``) from its decimal logarithm, without writing it out.

    Raises
    ------
    ModelError
        The ball does not shrink enough by 2**16 bits (say, an exact zero).

    Examples
    --------
    >>> import flint
    >>> certified_decimal(lambda bits: flint.arb(1) / 3, 5)
    '0.33333'
    >>> certified_decimal(lambda bits: (-flint.arb(10) ** 9).exp(), 5, nonzero=True)
    '1.2495e-434294482'

    Running time: a few evaluations of ``ball_at``, doubling the precision each time; a number
    past $2^{\pm 16384}$ adds one logarithm and one power of 10 at the working precision plus the
    bits of its exponent.
    """
    bits = max(64, int(digits * 3.33) + 32)
    while bits <= 1 << 16:
        with _precision(bits):
            ball = ball_at(bits)
        if ball.is_finite():
            size = _magnitude_bits(ball)
            known_sign = ball > 0 or ball < 0
            if size is not None and abs(size) > FAR_BITS:
                if known_sign:  # far from 1: never build its ends as fractions
                    text = _scientific(ball, digits, bits)
                    if text is not None:
                        return text
                elif not nonzero and size < -(digits + 40) * 10 // 3:
                    return round_fraction(Fraction(0), digits)  # as below: a tiny ball around 0
                bits *= 2
                continue
            low, high = _dyadic(ball)
            first, second = round_fraction(low, digits), round_fraction(high, digits)
            if first == second and (low > 0 or high < 0 or low == high):
                return first
            if not nonzero and low <= 0 <= high and \
                    high - low < Fraction(1, 10 ** (digits + 40)):
                return round_fraction(Fraction(0), digits)
        bits *= 2
    raise ModelError(f"could not certify {digits} digits")


def from_field_element(value) -> "RationalLaw":
    r"""A law from an element of $\mathbb Q(\theta)$ (the field of
    :class:`~symq.engines.response_time.setfunctions.SetFunctions` of a numeric model).

    Parameters
    ----------
    value : field element
        A Laplace-Stieltjes transform in $\theta$ with rational coefficients.

    Returns
    -------
    RationalLaw

    Raises
    ------
    ModelError
        An element with symbols other than $\theta$ (a model with symbolic rates).

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.response_time.laws import field_lst
    >>> from_field_element(field_lst(example_model("n"), "1", "collaborative", "response")).mean()
    Fraction(10, 7)

    Running time: O(d) for a transform of degree d.
    """
    numer, denom = value.numer, value.denom
    if len(numer.ring.gens) != 1:
        raise ModelError("a numeric law needs numeric rates; set every symbol with --set")

    def poly(p) -> flint.fmpq_poly:
        coefficients = [flint.fmpq(int(c.numerator), int(c.denominator))
                        for c in reversed(p.to_dense())]
        return flint.fmpq_poly(coefficients or [0])
    return RationalLaw(poly(numer), poly(denom))


class RationalLaw(Displayed):
    r"""The law with LST ``numerator(theta) / denominator(theta)`` (rational coefficients).

    In a notebook it shows as a table: the LST, the survival function when it has at most
    :attr:`SHOWN_TERMS` partial-fraction terms, the atom $P(T=0)$ and the moments.

    Raises
    ------
    ModelError
        The transform is not that of a law on $[0,\infty)$ (value at 0 is not 1, or it grows).
    """

    def __init__(self, numerator: flint.fmpq_poly, denominator: flint.fmpq_poly) -> None:
        g = numerator.gcd(denominator)
        if g.degree() > 0:
            numerator, denominator = numerator // g, denominator // g
        lead = denominator.leading_coefficient()
        self.numerator = numerator / lead
        self.denominator = denominator / lead
        if self.numerator.degree() > self.denominator.degree() or \
                self.numerator(0) != self.denominator(0):
            raise ModelError("internal: not the transform of a probability law")

    #: the survival function is shown in a notebook up to this many partial-fraction terms
    SHOWN_TERMS = 12

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        def frac(x: Fraction) -> str:
            return sympy.latex(sympy.Rational(x.numerator, x.denominator))
        rows = [("transform", Math("\\hat F(\\theta) = " + sympy.latex(self.lst_expr())))]
        if len(self.terms) <= self.SHOWN_TERMS:
            try:
                rows.append(("survival", Math("P(T > t) = " + sympy.latex(self.survival_expr()))))
            except UnsupportedError:
                pass
        rows += [("atom", Math("P(T = 0) = " + frac(self.atom))),
                 ("mean", Math("E\\,T = " + frac(self.mean()))),
                 ("second moment", Math("E\\,T^2 = " + frac(self.second_moment()))),
                 ("variance", Math("\\operatorname{Var} T = " + frac(self.variance())))]
        return "law", [(None, rows)]

    # ------------------------------------------------------------------ exact moments
    def lst_expr(self, theta: sympy.Symbol = THETA) -> sympy.Expr:
        """The LST as a sympy rational function of ``theta``."""
        def expr(p):
            return sympy.Add(*(_rational(c) * theta**k for k, c in enumerate(p.coeffs())))
        return sympy.factor(expr(self.numerator) / expr(self.denominator))

    def lst_at(self, theta: Fraction) -> Fraction:
        """The LST at a rational point."""
        q = flint.fmpq(theta.numerator, theta.denominator)
        return _fraction(self.numerator(q) / self.denominator(q))

    @cached_property
    def atom(self) -> Fraction:
        """$P(T=0)$."""
        if self.numerator.degree() < self.denominator.degree():
            return Fraction(0)
        return _fraction(self.numerator.leading_coefficient())

    def _derivatives_at_zero(self) -> tuple[Fraction, Fraction]:
        n, d = self.numerator, self.denominator
        n0, n1, n2 = (_fraction(n.coeffs()[k]) if k < len(n.coeffs()) else Fraction(0)
                      for k in range(3))
        d0, d1, d2 = (_fraction(d.coeffs()[k]) if k < len(d.coeffs()) else Fraction(0)
                      for k in range(3))
        # f = n/d with f(0) = 1: f' = (n1 - d1)/d0, f'' = (2 n2 - 2 d2 - 2 d1 f')/d0
        first = (n1 - d1) / d0
        second = (2 * n2 - 2 * d2 - 2 * d1 * first) / d0
        return first, second

    def mean(self) -> Fraction:
        """$E T=-\\hat F'(0)$."""
        return -self._derivatives_at_zero()[0]

    def second_moment(self) -> Fraction:
        """$E T^2=\\hat F''(0)$."""
        return self._derivatives_at_zero()[1]

    def variance(self) -> Fraction:
        """$\\operatorname{Var}T$."""
        return self.second_moment() - self.mean() ** 2

    # ------------------------------------------------------------------ partial fractions
    @cached_property
    def terms(self) -> list[tuple[flint.fmpq_poly, int, flint.fmpq_poly]]:
        """``[(q, j, P)]`` with $\\hat F-P(T=0)=\\sum P/q^j$, ``q`` monic irreducible."""
        atom = flint.fmpq(self.atom.numerator, self.atom.denominator)
        proper = self.numerator - atom * self.denominator
        if proper.is_zero():
            return []
        _, factors = self.denominator.factor()
        out = []
        for q, m in factors:
            q = q / q.leading_coefficient()
            power = q ** m
            rest = self.denominator // power
            g, s, _ = rest.xgcd(power)
            x = (proper * s / g.leading_coefficient()) % power
            for j in range(m, 0, -1):
                digit = x % q
                x = x // q
                if not digit.is_zero():
                    out.append((q, j, digit))
        return out

    @cached_property
    def is_closed_form(self) -> bool:
        """True when every pole is rational (the survival function is a finite sum of
        $A t^i e^{-rt}$ with rational $A$, $r$)."""
        return all(q.degree() == 1 for q, _, _ in self.terms)

    def _check_supported(self) -> None:
        for q, j, _ in self.terms:
            if q.degree() > 1 and j > 1:
                raise UnsupportedError("a repeated irrational pole: the survival function of this "
                                       "law is not implemented")

    # ------------------------------------------------------------------ survival function
    def survival_expr(self, t: Any = TIME) -> sympy.Expr:
        """$P(T>t)$ exactly, as a sympy expression (``RootSum`` for irrational poles)."""
        self._check_supported()
        t = sympy.sympify(t) if not isinstance(t, Fraction) else sympy.Rational(t.numerator,
                                                                                 t.denominator)
        parts = []
        x = sympy.Dummy("x")
        for q, j, p in self.terms:
            if q.degree() == 1:
                r = _rational(q.coeffs()[0])
                a = _rational(p.coeffs()[0])
                parts.append(a * sympy.exp(-r * t) * sympy.Add(*(
                    t**i / (sympy.factorial(i) * r**(j - i)) for i in range(j))))
            else:
                qx = sympy.Add(*(_rational(c) * x**k for k, c in enumerate(q.coeffs())))
                px = sympy.Add(*(_rational(c) * x**k for k, c in enumerate(p.coeffs())))
                dq = sympy.diff(qx, x)
                parts.append(sympy.RootSum(sympy.Poly(qx, x),
                                           sympy.Lambda(x, -px / (dq * x) * sympy.exp(x * t))))
        return sympy.Add(*parts)

    #: exponents $r t$ of more digits than this are not written out: sympy orders the terms of
    #: a sum by their numeric values, and $e^{-10^{4000}}$ takes minutes to approximate
    EXPONENT_DIGITS = 100

    def survival_at(self, t: Fraction) -> sympy.Expr:
        r"""The exact closed form of $P(T>t)$ at a rational time, never expanded: the sum of
        $A t^i e^{-rt}$ with each $e^{-rt}$ unevaluated; when some exponent $rt$ has more than
        :attr:`EXPONENT_DIGITS` digits, the form in $t$ with the time substituted unevaluated
        (``Subs(..., t, T)``, printed $\left. \dots \right|_{t=T}$).

        Parameters
        ----------
        t : Fraction
            A non-negative time.

        Returns
        -------
        sympy.Expr
            Exact; its printing never approximates an exponential of a huge argument.

        Raises
        ------
        UnsupportedError
            A repeated irrational pole (as :meth:`survival_expr`).

        Examples
        --------
        >>> mm1 = RationalLaw(flint.fmpq_poly([1]), flint.fmpq_poly([1, 2]))
        >>> mm1.survival_at(Fraction(3))
        exp(-3/2)
        >>> str(mm1.survival_at(Fraction(10**200)))[:23]
        'Subs(exp(-t/2), t, 1000'

        Running time: that of :meth:`survival_expr`.
        """
        t = Fraction(t)
        from symq.arithmetic.numeric import digit_count
        largest = max((abs(_fraction(q.coeffs()[0])) * t for q, _, _ in self.terms
                       if q.degree() == 1), default=Fraction(0))
        if max(digit_count(largest.numerator), digit_count(largest.denominator)) <= \
                self.EXPONENT_DIGITS:
            return self.survival_expr(t)
        return sympy.Subs(self.survival_expr(TIME), TIME, sympy.Rational(t.numerator,
                                                                          t.denominator))

    def cdf_expr(self, t: Any = TIME) -> sympy.Expr:
        """$P(T\\le t)=1-P(T>t)$ for $t\\ge0$."""
        return 1 - self.survival_expr(t)

    def survival_ball(self, t: Fraction) -> flint.arb:
        """A ball containing $P(T>t)$ at the current FLINT precision."""
        self._check_supported()
        tt = flint.arb(flint.fmpq(t.numerator, t.denominator))
        total = flint.arb(0)
        for q, j, p in self.terms:
            if q.degree() == 1:
                r = flint.arb(q.coeffs()[0])
                a = flint.arb(p.coeffs()[0])
                inner = flint.arb(0)
                power = flint.arb(1)
                for i in range(j):
                    inner += power / (math.factorial(i) * r ** (j - i))
                    power *= tt
                total += a * (-r * tt).exp() * inner
            else:
                qa = flint.acb_poly([flint.acb(c) for c in q.coeffs()])
                pa = flint.acb_poly([flint.acb(c) for c in p.coeffs()])
                dqa = qa.derivative()
                acc = flint.acb(0)
                for root, _ in q.complex_roots():
                    acc += -pa(root) / (dqa(root) * root) * (root * tt).exp()
                total += acc.real
        return total

    def survival_value(self, t: Fraction, digits: int) -> str:
        """$P(T>t)$ with ``digits`` correct significant digits."""
        t = Fraction(t)
        if t < 0:
            raise ModelError(f"--time must be non-negative, not {t}")
        if t == 0:
            return round_fraction(1 - self.atom, digits)
        # a law with terms has P(T>t) > 0 at every t (a non-zero analytic function cannot
        # vanish on a half-line): a ball around 0 is refined, never printed as 0
        return certified_decimal(lambda bits: self.survival_ball(t), digits,
                                 nonzero=bool(self.terms))

    def percentile(self, percent: Fraction, digits: int) -> str:
        r"""The ``percent``-th percentile $t_p=\inf\{t: P(T\le t)\ge p\}$ with ``digits``
        correct significant digits.

        A bracket by doubling and a bisection to about 20 bits, then secant steps on the
        midpoints of certified balls of $P(T>t)$ at a working precision that doubles up to
        ``digits`` x 3.33 + 64 bits; the rounded value ``s`` is printed only once the signs of
        $P(T>t)-(1-p)$ at both ends of the interval of numbers that round to ``s`` are
        certified (positive at the lower end, negative at the upper one, so $t_p$ lies
        between, as $P(T>t)$ decreases), else the precision is doubled again (three times at
        most, then a :class:`~symq.errors.ModelError`). Until 2026 a bisection that gave up at
        2^14 bits printed its first midpoint, 0.5000..., at 4,920 digits.

        Parameters
        ----------
        percent : Fraction
            Strictly between 0 and 100.
        digits : int
            Significant digits.

        Returns
        -------
        str

        Raises
        ------
        ModelError
            ``percent`` outside $(0, 100)$ (named as ``--percentile``), or digits that could
            not be certified.

        Examples
        --------
        >>> mm1 = RationalLaw(flint.fmpq_poly([1]), flint.fmpq_poly([1, 1]))  # Exp(1)
        >>> mm1.percentile(Fraction(50), 25)  # log 2
        '0.6931471805599453094172321'

        Running time: about 3.33 x digits bits; O(log(digits)) secant rounds of
        $O(\text{terms})$ ball evaluations, the last at the full precision.
        """
        percent = Fraction(percent)
        if not 0 < percent < 100:
            raise ModelError(f"--percentile must lie strictly between 0 and 100, not {percent}")
        if max(percent.numerator.bit_length(), percent.denominator.bit_length()) > 200:
            raise ModelError("--percentile is written with more than 60 digits; give a "
                             "percent with at most 60 (1e-30 or 99.9999 are fine)")
        target = 1 - percent / 100
        if self.atom >= 1 - target:
            return round_fraction(Fraction(0), digits)
        # a percent near 0 or 100 (1e-3000) needs its own bits on top of the digits asked
        base = 64 + max(target.numerator.bit_length(), target.denominator.bit_length())
        goal = base + int(digits * 3.33)
        target_ball = lambda: flint.arb(flint.fmpq(target.numerator, target.denominator))

        def excess(t: Fraction, bits: int) -> flint.arb:
            """A ball around $P(T>t) - (1-p)$ at ``bits`` bits."""
            with _precision(bits):
                return self.survival_ball(t) - target_ball()

        def side(t: Fraction, bits: int) -> int:
            """+1 when P(T>t) > 1-p, -1 when below, 0 when undecided up to 4 x ``bits``."""
            b = bits
            while b <= 4 * bits:
                ball = excess(t, b)
                if ball > 0:
                    return 1
                if ball < 0:
                    return -1
                b *= 2
            return 0

        low, high = Fraction(0), Fraction(1)
        while side(high, base) > 0:
            low, high = high, high * 2
        for _ in range(24):  # a bracket good to about 2^-20 of its length
            middle = (low + high) / 2
            s = side(middle, base)
            if s == 0:
                break
            low, high = (middle, high) if s > 0 else (low, middle)
        x0, x1 = low, high
        bits = base
        for _ in range(3 + max(1, goal.bit_length())):
            bits, previous = min(goal, bits * 2), bits
            # a second point at about the previous precision's error: the secant needs two
            x0 = x1 - x1 / Fraction(2) ** max(previous - 24, 8)
            for _ in range(60):
                f0, f1 = (_midpoint(excess(x, bits)) for x in (x0, x1))
                if f1 == f0:
                    break
                x2 = _dyadic_round(x1 - f1 * (x1 - x0) / (f1 - f0), bits + 32)
                if x2 <= 0:
                    x2 = x1 / 2
                x0, x1 = x1, x2
                if abs(x1 - x0) <= abs(x1) / Fraction(2) ** (bits - 8):
                    break
            if bits == goal:
                text = round_fraction(x1, digits)
                lower, upper = _rounding_interval(text, digits)
                if side(lower, bits + 32) > 0 and side(upper, bits + 32) < 0:
                    return text
                goal *= 2  # the percentile lies near a rounding boundary: more bits
        raise ModelError(f"could not certify {digits} digits of the "
                         f"{round_fraction(percent, 6)}th percentile; ask for fewer digits")

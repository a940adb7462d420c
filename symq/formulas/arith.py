r"""Evaluation of structured definitions, in order, in an exact domain: rationals at a point
(:class:`fractions.Fraction`, for the tests' second route) or rational functions of the rate
symbols as pairs of python-flint ``fmpz_mpoly`` polynomials cancelled by their gcd after every
operation (the expanded form; sympy's ``FracField`` is the slow alternative it replaces).

Running time: one field operation per term of every definition; a rational-function
operation costs one or two multivariate gcds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

import sympy

from ..errors import UnsupportedError
from .build import Definition

__all__ = ["evaluate_definitions", "at_point", "RationalFunctions", "to_sympy", "to_text"]


def _walk(expr: sympy.Expr, leaf, number, cache: dict) -> Any:
    """``expr`` (sums, products, integer powers of symbols and numbers) in a domain."""
    if expr in cache:
        return cache[expr]
    if expr.is_Rational:
        out = number(expr)
    elif expr.is_Symbol:
        out = leaf(expr)
    elif expr.is_Add:
        parts = [_walk(a, leaf, number, cache) for a in expr.args]
        out = parts[0]
        for p in parts[1:]:
            out = out + p
    elif expr.is_Mul:
        parts = [_walk(a, leaf, number, cache) for a in expr.args]
        out = parts[0]
        for p in parts[1:]:
            out = out * p
    elif expr.is_Pow and expr.exp.is_Integer:
        base = _walk(expr.base, leaf, number, cache)
        e = int(expr.exp)
        out = base ** e if e >= 0 else (number(sympy.Integer(1)) / base) ** (-e)
    else:
        raise UnsupportedError(f"rate expression {expr} is not a rational function of the "
                               "symbols; use the expanded form through sympy")
    cache[expr] = out
    return out


def evaluate_definitions(definitions: list[Definition], leaf, number) -> dict[str, Any]:
    """Every definition's value: ``leaf(symbol)`` gives a rate symbol's value and ``number``
    a sympy rational's, in one domain with ``+ * /``."""
    cache: dict = {}
    env: dict[str, Any] = {}
    one = number(sympy.Integer(1))

    def conv(coef):
        return _walk(sympy.sympify(coef), leaf, number, cache)
    for d in definitions:
        acc = None
        for t in d.terms:
            v = conv(t.coef) if t.coef != 1 else None
            for n in t.names:
                v = env[n] if v is None else v * env[n]
            if v is None:
                v = one
            acc = v if acc is None else acc + v
        if acc is None:
            acc = number(sympy.Integer(0))
        if d.scale != 1:
            acc = conv(d.scale) * acc
        den = conv(d.denom) if d.denom != 1 else None
        for n in d.denom_names:
            den = env[n] if den is None else den * env[n]
        env[d.name] = acc / den if den is not None else acc
    return env


def at_point(definitions: list[Definition], values: Mapping[sympy.Symbol, Any]) -> dict[str, Fraction]:
    """Exact rational values of every definition with the rate symbols at ``values``."""
    point = {s: Fraction(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for s, v in values.items()}
    return evaluate_definitions(definitions, lambda s: point[s],
                                lambda r: Fraction(int(r.p), int(r.q)))


# ------------------------------------------------------------------------ rational functions
class RationalFunctions:
    """The field of fractions of $\\mathbb Z[x_1,\\dots,x_n]$ for the given symbols, by
    python-flint ``fmpz_mpoly`` numerator/denominator pairs kept cancelled."""

    def __init__(self, symbols: list[sympy.Symbol]) -> None:
        import flint
        self.flint = flint
        self.symbols = list(symbols)
        names = tuple(s.name for s in self.symbols) or ("x",)
        self.ctx = flint.fmpz_mpoly_ctx.get(names, "degrevlex")
        gens = self.ctx.gens()
        self.gens = {s: g for s, g in zip(self.symbols, gens)}

    def element(self, num, den=None) -> "RF":
        return RF(self, num, den if den is not None else self.ctx.from_dict({(0,) * self.ctx.nvars(): 1}))

    def leaf(self, symbol: sympy.Symbol) -> "RF":
        return self.element(self.gens[symbol])

    def number(self, r: sympy.Rational) -> "RF":
        z = (0,) * self.ctx.nvars()
        return RF(self, self.ctx.from_dict({z: int(r.p)}) if r.p else self.ctx.from_dict({}),
                  self.ctx.from_dict({z: int(r.q)}))

    def poly_expr(self, p) -> sympy.Expr:
        gens = self.symbols or [sympy.Symbol("x")]
        d = {tuple(int(e) for e in k): int(c) for k, c in p.to_dict().items()}
        if not d:
            return sympy.Integer(0)
        return sympy.Poly.from_dict(d, gens).as_expr()

    def factored(self, p) -> sympy.Expr:
        content, factors = p.factor()
        out = sympy.Integer(int(content))
        for f, e in factors:
            out *= self.poly_expr(f) ** int(e)
        return out

    # printers straight from the polynomials (sympy's printers take seconds on large ones)
    def poly_text(self, p) -> str:
        return str(p).replace("^", "**")

    def poly_latex(self, p) -> str:
        if not hasattr(self, "_sym_tex"):
            self._sym_tex = [sympy.latex(s) for s in self.symbols] or ["x"]
        d = p.to_dict()
        if not d:
            return "0"
        out = []
        for k in sorted(d, key=lambda k: (-sum(k), tuple(-e for e in k))):
            c = int(d[k])
            mono = " ".join(t if e == 1 else f"{t}^{{{e}}}" for t, e in zip(self._sym_tex, k) if e)
            sign = "-" if c < 0 else "+"
            c = abs(c)
            body = mono if c == 1 and mono else (f"{c} {mono}".strip())
            out.append((sign, body))
        text = ("-" if out[0][0] == "-" else "") + out[0][1]
        for sign, body in out[1:]:
            text += f" {sign} {body}"
        return text

    def factored_parts(self, p, printer) -> str:
        content, factors = p.factor()
        parts = []
        c = int(content)
        for f, e in factors:
            t = printer(f)
            many = len(f.to_dict()) > 1
            if printer == self.poly_latex:
                t = rf"\left({t}\right)" if many else t
                parts.append(t if e == 1 else f"{t}^{{{int(e)}}}")
            else:
                t = f"({t})" if many else t
                parts.append(t if e == 1 else f"{t}**{int(e)}")
        sep = " " if printer == self.poly_latex else "*"
        body = sep.join(parts)
        if not parts:
            return str(c)
        if c == 1:
            return body
        if c == -1:
            return "-" + body
        return f"{c}{sep}{body}"


class RF:
    """One cancelled rational function (denominator with a positive leading coefficient)."""

    __slots__ = ("field", "num", "den")

    def __init__(self, field: RationalFunctions, num, den, reduce: bool = True) -> None:
        self.field = field
        if reduce:
            if num.is_zero():
                den = field.ctx.from_dict({(0,) * field.ctx.nvars(): 1})
            else:
                g = num.gcd(den)
                if not g.is_one():
                    num, den = num / g, den / g
            if den.leading_coefficient() < 0:
                num, den = -num, -den
        self.num, self.den = num, den

    def __add__(self, other: "RF") -> "RF":
        if self.den == other.den:
            return RF(self.field, self.num + other.num, self.den)
        g = self.den.gcd(other.den)
        a, b = self.den / g, other.den / g
        return RF(self.field, self.num * b + other.num * a, a * other.den)

    def __sub__(self, other: "RF") -> "RF":
        return self + RF(self.field, -other.num, other.den, reduce=False)

    def __neg__(self) -> "RF":
        return RF(self.field, -self.num, self.den, reduce=False)

    def __mul__(self, other: "RF") -> "RF":
        g1 = self.num.gcd(other.den)
        g2 = other.num.gcd(self.den)
        n1 = self.num / g1 if not g1.is_one() else self.num
        d2 = other.den / g1 if not g1.is_one() else other.den
        n2 = other.num / g2 if not g2.is_one() else other.num
        d1 = self.den / g2 if not g2.is_one() else self.den
        out = RF(self.field, n1 * n2, d1 * d2, reduce=False)
        if out.den.leading_coefficient() < 0:
            out.num, out.den = -out.num, -out.den
        return out

    def __truediv__(self, other: "RF") -> "RF":
        if other.num.is_zero():
            raise ZeroDivisionError("division by a zero rational function")
        return self * RF(self.field, other.den, other.num, reduce=False)._signed()

    def __pow__(self, e: int) -> "RF":
        return RF(self.field, self.num ** e, self.den ** e, reduce=False)

    def _signed(self) -> "RF":
        if self.den.leading_coefficient() < 0:
            self.num, self.den = -self.num, -self.den
        return self


def to_text(value: RF, form: str = "expanded", latex: bool = False) -> str:
    """A cancelled rational function printed directly from its polynomials: text that
    :func:`symq.expressions.parse_formula` reads, or LaTeX."""
    f = value.field
    printer = f.poly_latex if latex else f.poly_text
    if form == "factored":
        num, den = f.factored_parts(value.num, printer), f.factored_parts(value.den, printer)
    else:
        num, den = printer(value.num), printer(value.den)
        if not latex and len(value.num.to_dict()) > 1:
            num = f"({num})"
    if den == "1":
        return num
    if latex:
        return rf"\frac{{{num}}}{{{den}}}"
    return f"{num}/({den})"


def to_sympy(value: RF, form: str = "expanded") -> sympy.Expr:
    """A cancelled rational function as sympy: ``expanded`` (numerator and denominator
    multiplied out) or ``factored`` (each factored over the integers by flint)."""
    f = value.field
    if form == "factored":
        return f.factored(value.num) / f.factored(value.den)
    return f.poly_expr(value.num) / f.poly_expr(value.den)

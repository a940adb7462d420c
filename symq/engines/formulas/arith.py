r"""Evaluation of structured definitions, in order, in an exact domain: rationals at a point
(:class:`fractions.Fraction`, for the tests' second route) or rational functions of the rate
symbols (the expanded form) in python-flint ``fmpz_mpoly`` arithmetic, where
:class:`FactoredFunctions` keeps each denominator as a product of known irreducible factors so
that cancelling is an exact division, never a multivariate gcd (:class:`RationalFunctions`, which
cancels by the gcd after every operation, is the simple version it replaces). Running time: one
polynomial product per term of every definition, about five seconds per million terms of the
result (printing included), see ``benchmarks/formulas_bench.py`` and docs/formulas.md.
"""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from typing import Any, Mapping

import sympy

from symq.errors import UnsupportedError
from symq.engines.formulas.build import Definition

__all__ = ["evaluate_definitions", "at_point", "RationalFunctions", "FactoredFunctions", "to_sympy",
           "to_text", "result_degrees"]


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
    a sympy rational's, in one domain with ``+ * /``.

    Parameters
    ----------
    definitions : list of Definition
        The definitions of a :class:`~symq.engines.formulas.Structured`, each after those it uses.
    leaf : callable
        ``sympy.Symbol -> value``.
    number : callable
        ``sympy.Rational -> value``.

    Returns
    -------
    dict of str to value
        Each definition's value in the domain of ``leaf`` and ``number``, by definition name,
        the names used in ``definitions`` included.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symq.engines.formulas import structured
    >>> f = structured("n", "empty-probability")
    >>> rates = {"lambda_1": Fraction(1, 4), "lambda_2": Fraction(1, 4), "mu_1": 1, "mu_2": 1}
    >>> env = evaluate_definitions(f.definitions, lambda s: Fraction(rates[s.name]),
    ...                            lambda r: Fraction(int(r.p), int(r.q)))
    >>> env["P__empty"]
    Fraction(9, 14)

    Running time: one domain operation per name and coefficient of every term of every
    definition (linear in the size of the definitions), times the domain's cost.
    """
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
    """Exact rational values of every definition with the rate symbols at ``values``.

    Parameters
    ----------
    definitions : list of Definition
        As :func:`evaluate_definitions`.
    values : mapping
        ``{sympy.Symbol: rational}`` for every rate symbol the definitions use.

    Returns
    -------
    dict of str to Fraction
        The exact value of every definition, by name.

    Examples
    --------
    The empty probability of model ``n`` with every arrival rate 1/4 and every service rate 1:

    >>> import sympy
    >>> from symq.engines.formulas import structured
    >>> defs = structured("n", "empty-probability")
    >>> point = {s: sympy.Rational(1, 4) if s.name.startswith("lambda") else 1
    ...          for s in defs.model.symbols}
    >>> at_point(defs.definitions, point)["P__empty"]
    Fraction(9, 14)

    Running time: that of :func:`evaluate_definitions` in exact rationals.
    """
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

    #: polynomials with more terms are not given to flint's factoring (a 261,000-term
    #: normalizing constant took 150 s and 18 GB before it was stopped); they are divided by
    #: the factors already known and the rest is shown as one factor
    factor_terms = 5000

    def factor_list(self, p, known=None) -> tuple[Any, list]:
        """``(content, [(factor, exponent)])`` of ``p``: flint's factorization when ``p``
        has at most :attr:`factor_terms` terms; otherwise the factors ``known`` (a list of
        ``(factor, exponent)``: the denominator's own factors) or those of the field's table
        that divide it, and the rest unfactored."""
        if len(p) <= self.factor_terms:
            return p.factor()
        if known is not None:
            content, parts = known
            out = []
            for f, e in parts:
                c, fs = self.factor_list(f)
                content *= int(c) ** e
                out += [(g, k * e) for g, k in fs]
            return content, out
        content = p.content()
        p = p / content if int(content) != 1 else p
        out = []
        ev = self.at(p) if hasattr(self, "factors") else 0
        for i, f in enumerate(getattr(self, "factors", [])):
            e = 0
            while len(f) < len(p):
                got = _div_exact(self, p, ev, i)
                if got is None:
                    break
                (p, ev), e = got, e + 1
            if e:
                out.append((f, e))
        return content, out + [(p, 1)]

    def factored(self, p, known=None) -> sympy.Expr:
        content, factors = self.factor_list(p, known)
        out = sympy.Integer(int(content))
        for f, e in factors:
            out *= self.poly_expr(f) ** int(e)
        return out

    # printers straight from the polynomials (sympy's printers take seconds on large ones)
    def _printed(self, p, kind: str, make) -> str:
        """``make(p)``, reusing the text of an equal polynomial printed before (the
        per-class and per-server results often share their denominator)."""
        memo = self.__dict__.setdefault("_memo", [])
        for q, k, text in memo:
            if k == kind and (q is p or (len(q) == len(p) and q == p)):
                return text
        text = make(p)
        if len(p) > 1000:
            memo.append((p, kind, text))
            del memo[:-8]
        return text

    def poly_text(self, p) -> str:
        return self._printed(p, "text", lambda p: str(p).replace("^", "**"))

    def poly_latex(self, p) -> str:
        """LaTeX of a polynomial, rewritten from flint's text by one regular expression
        (rate names to their LaTeX, ``^k`` to ``^{k}``, ``*`` to a space): about a second
        for ten megabytes, where a loop over the terms takes ten times longer."""
        if not hasattr(self, "_tex_re"):
            tex = {s.name: sympy.latex(s) for s in self.symbols}
            names = sorted(tex, key=len, reverse=True) or ["x"]
            self._tex = tex or {"x": "x"}
            self._tex_re = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names))
                                      + r")(?:\^(\d+))?(?![A-Za-z0-9_])")

        def name(m: re.Match) -> str:
            t = self._tex[m.group(1)]
            return t if m.group(2) is None else f"{t}^{{{m.group(2)}}}"
        if p.is_zero():
            return "0"
        return self._printed(p, "latex",
                             lambda p: self._tex_re.sub(name, str(p)).replace("*", " "))

    def factored_parts(self, p, printer, known=None) -> str:
        content, factors = self.factor_list(p, known)
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

    __slots__ = ("field", "num", "den", "den_factors")

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
        self.den_factors = None  # (q, [(factor, exponent)]) when known (FactoredFunctions)

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


# ------------------------------------------------------------------ factored denominators
class FactoredFunctions(RationalFunctions):
    r"""Rational functions kept as ``num / (q * prod f_i^{e_i})``: a numerator polynomial, a
    positive integer ``q`` and exponents of *known* irreducible factors $f_i$ (primitive, with
    a positive leading coefficient), kept in one table for the whole computation.

    The denominators of the structured definitions are slacks $r(X)$, arrival-rate sums
    $\Lambda_I$ (linear, hence irreducible once their integer content is removed) and the
    numerators of earlier values (normalizing constants), factored once by flint when they are
    first divided by; one of more than ``split_terms`` (2,000) terms is kept whole as a
    *composite* factor, and its coprimality with the result's numerator is proved at the end
    (:meth:`coprime`; a multivariate gcd only if that proof fails). So cancellation needs no
    multivariate gcd: a factor $f$ of the denominator divides the numerator only if $f(p)$
    divides the numerator's value at a fixed integer point $p$ (every value carries that
    integer along), and only then is the exact division done (which fails if it does not
    divide). The test is exact, never probabilistic:
    a value $f(p)\nmid N(p)$ proves $f\nmid N$ (Gauss: $N=fg$ with $g$ integral gives
    $N(p)=f(p)g(p)$), and a division either succeeds or raises.

    Every stored value is cancelled: no irreducible factor of its denominator divides its
    numerator (the integer content, the composite factors and any factor registered after a
    composite that contains it are dealt with at the end, by :meth:`finish`). When two values with
    different exponents of $f$ are added, $f$ cannot divide the sum's numerator, so only
    the factors with equal exponents on both sides are tested.

    Running time: one polynomial product per term (as any route), one integer test per
    candidate factor, one exact division per factor that really cancels; flint factors each
    polynomial divided by once (the normalizing constants: the largest cost of the 4-server
    models after the products).
    """

    def __init__(self, symbols: list[sympy.Symbol], seed: int = 14, line: bool = False,
                 axis: int | None = None) -> None:
        super().__init__(symbols)
        rng = random.Random(seed)
        self.line = line
        if line:  # the image on a random line x = u + t v: degrees only
            self.ctx = self.flint.fmpz_mpoly_ctx.get(("t",), "lex")
            t = self.ctx.gens()[0]
            self.gens = {s: self.ctx.from_dict({(0,): rng.randrange(1, 1 << 30)})
                         + rng.randrange(1, 1 << 30) * t for s in self.symbols}
            if axis is not None:  # only symbol ``axis`` varies: the degrees in it
                self.gens = {s: t if k == axis else
                             self.ctx.from_dict({(0,): rng.randrange(1, 1 << 30)})
                             for k, s in enumerate(self.symbols)}
        n = self.ctx.nvars()
        self.point = tuple(rng.randrange(1 << 40, 1 << 41) for _ in range(n))
        self._line_ctx = self.flint.fmpz_mpoly_ctx.get(("t",), "lex")
        t = self._line_ctx.gens()[0]
        self._line = [self._line_ctx.from_dict({(0,): rng.randrange(1, 1 << 16)})
                      + rng.randrange(1, 1 << 16) * t for _ in range(n)]
        self._point_fmpz = [self.flint.fmpz(v) for v in self.point]
        self.factors: list = []      # the known irreducible factors
        self.values: list[int] = []  # each factor at the point
        self._index: dict[str, int] = {}
        self._split: dict[int, tuple] = {}
        self.composite: set[int] = set()  # factors not known to be irreducible
        self._images: dict[int, tuple] = {}  # composite factors restricted to the line
        self.split_terms = 0 if line else 2000  # larger divisors are kept whole (composite)
        self._pow: dict[tuple[int, int], Any] = {}
        self.one_poly = self.ctx.from_dict({(0,) * n: 1})
        self.zero_poly = self.ctx.from_dict({})

    # ------------------------------------------------------------------ factors
    def at(self, p) -> int:
        """``p`` at the fixed integer point."""
        if p.is_zero():
            return 0
        return int(p.leading_coefficient()) if p.is_constant() else int(p(*self._point_fmpz))

    def _register(self, f) -> int:
        key = str(f)
        i = self._index.get(key)
        if i is None:
            i = len(self.factors)
            self.factors.append(f)
            self.values.append(self.at(f))
            self._index[key] = i
        return i

    def split(self, p) -> tuple[int, dict[int, int]]:
        """``p = c * prod f_i^{e_i}`` over known (registered) irreducible factors."""
        cached = self._split.get(id(p))
        if cached is not None and cached[0] is p:
            return cached[1]
        if p.is_constant():
            out = (int(p.leading_coefficient()), {})
        elif p.total_degree() == 1:
            c = int(p.content())
            f = p / c if c != 1 else p
            if f.leading_coefficient() < 0:
                f, c = -f, -c
            out = (c, {self._register(f): 1})
        elif len(p) > self.split_terms:
            out = self._composite(p)
        else:
            content, parts = p.factor()
            c = int(content)
            den: dict[int, int] = {}
            for f, e in parts:
                e = int(e)
                if f.leading_coefficient() < 0:
                    f = -f
                    c = -c if e % 2 else c
                i = self._register(f)
                den[i] = den.get(i, 0) + e
            out = (c, den)
        self._split[id(p)] = (p, out)
        return out

    def _composite(self, p) -> tuple[int, dict[int, int]]:
        """A large polynomial kept unfactored (flint's factoring of a 10^5-term polynomial
        takes minutes): the registered factors that divide it are split off, and the rest
        is registered as one *composite* factor, whose coprimality with the numerator is
        checked at the end (:meth:`finish`)."""
        c = int(p.content())
        if c != 1:
            p = p / c
        if p.leading_coefficient() < 0:
            p, c = -p, -c
        den: dict[int, int] = {}
        ev = self.at(p)
        for i in range(len(self.factors)):
            while True:
                got = _div_exact(self, p, ev, i)
                if got is None:
                    break
                p, ev = got
                den[i] = den.get(i, 0) + 1
        if not p.is_constant():
            i = self._register(p)
            self.composite.add(i)
            den[i] = den.get(i, 0) + 1
        return c, den

    def power(self, i: int, e: int):
        key = (i, e)
        if key not in self._pow:
            self._pow[key] = self.factors[i] ** e
        return self._pow[key]

    def product(self, den: Mapping[int, int]):
        """``prod f_i^{e_i}`` multiplied out (small factors first)."""
        out = self.one_poly
        for i in sorted(den, key=lambda i: len(self.factors[i])):
            if den[i]:
                out = out * self.power(i, den[i])
        return out

    # ------------------------------------------------------------------ values
    def element(self, num, den=None) -> "FD":
        return FD(self, num, self.at(num), {}, 1) if den is None else \
            FD(self, num, self.at(num), {}, 1) / FD(self, den, self.at(den), {}, 1)

    def leaf(self, symbol: sympy.Symbol) -> "FD":
        g = self.gens[symbol]
        return FD(self, g, self.at(g), {}, 1)

    def number(self, r: sympy.Rational) -> "FD":
        p, q = int(r.p), int(r.q)
        z = (0,) * self.ctx.nvars()
        return FD(self, self.ctx.from_dict({z: p}) if p else self.zero_poly, p, {}, q)

    def cancel(self, num, ev: int, den: dict[int, int], q: int, candidates) -> "FD":
        """Divide ``num`` by every candidate factor of ``den`` that divides it (as often as
        it does)."""
        if num.is_zero():
            return FD(self, num, 0, {}, 1)
        for i in candidates:
            while den.get(i, 0) > 0:
                got = _div_exact(self, num, ev, i)
                if got is None:
                    break
                num, ev = got
                den[i] -= 1
        return FD(self, num, ev, {i: e for i, e in den.items() if e}, q)

    def coprime(self, a, b) -> bool:
        r"""True when ``gcd(a, b)`` is proved constant; False when undecided.

        The proof restricts both to a line $x=u+tv$ (fixed integer vectors): when the image
        of ``b`` keeps the total degree of ``b`` (its top-degree part does not vanish at
        $v$), the image of every factor $h$ of ``b`` keeps the degree of $h$ (the top part
        of $h$ divides that of ``b``), so univariate images without a common factor leave
        no common factor of positive degree. Cost: two compositions with a line (about
        five evaluations of ``a``) and one univariate gcd."""
        key = id(b)
        if key not in self._images or self._images[key][0] is not b:
            bl = b.compose(*self._line, ctx=self._line_ctx)  # once per factor
            ok = bl.total_degree() == b.total_degree()
            self._images[key] = (b, self._univariate(bl) if ok else None)
        ub = self._images[key][1]
        if ub is None:
            return False
        al = a.compose(*self._line, ctx=self._line_ctx)
        if al.is_zero():
            return False
        return ub.gcd(self._univariate(al)).degree() <= 0

    def _univariate(self, p):
        coeffs = {int(k[0]): int(c) for k, c in zip(p.monoms(), p.coeffs())}
        return self.flint.fmpz_poly([coeffs.get(k, 0) for k in range(max(coeffs) + 1)])

    def finish(self, value: "FD") -> "RF":
        """The value as one cancelled :class:`RF` (numerator and denominator multiplied out;
        the integer content cancelled); the factored denominator is kept in ``den_factors``.

        A composite (unfactored) factor of the denominator is proved coprime to the
        numerator by :meth:`coprime`; if that is undecided, a multivariate gcd cancels."""
        num, q = value.num, value.q
        if not num.is_zero():
            g = math.gcd(int(num.content()), q)
            if g > 1:
                num, q = num / g, q // g
        else:
            q = 1
        den_e = dict(value.den)
        ev = value.ev
        for i in list(den_e):  # a factor registered late may divide a composite one
            while i not in self.composite and den_e[i] and not num.is_zero():
                got = _div_exact(self, num, ev, i)
                if got is None:
                    break
                num, ev = got
                den_e[i] -= 1
        parts = [(self.factors[i], e) for i, e in den_e.items() if e]
        proved = self.line or all(self.coprime(num, self.factors[i]) for i, e in den_e.items()
                                  if e and i in self.composite and not num.is_zero())
        den = self.one_poly * q
        for f, e in sorted(parts, key=lambda fe: len(fe[0])):
            den = den * (f ** e)
        out = RF(self, num, den, reduce=not proved)  # undecided: one multivariate gcd
        if not proved:
            parts = None
        out.den_factors = (q, parts) if parts is not None else None
        return out


def _div_exact(field: FactoredFunctions, num, ev: int, i: int):
    """``num / f_i`` when ``f_i`` divides ``num`` (else None), tested at the point first."""
    fv = field.values[i]
    if abs(fv) > 1 and ev % fv:
        return None
    try:
        out = num / field.factors[i]
    except Exception:  # noqa: BLE001 - flint's DomainError: not exact
        return None
    return out, (ev // fv if fv else field.at(out))


class FD:
    """``num / (q * prod f_i^{e_i})`` of a :class:`FactoredFunctions`; ``ev`` is ``num`` at
    the field's point."""

    __slots__ = ("field", "num", "ev", "den", "q")

    def __init__(self, field: FactoredFunctions, num, ev: int, den: dict[int, int], q: int) -> None:
        self.field, self.num, self.ev, self.den, self.q = field, num, ev, den, q

    def __add__(self, other: "FD") -> "FD":
        f = self.field
        if self.num.is_zero():
            return other
        if other.num.is_zero():
            return self
        den: dict[int, int] = {}
        ma: list[tuple[int, int]] = []
        mb: list[tuple[int, int]] = []
        equal = []
        for i in set(self.den) | set(other.den):
            ea, eb = self.den.get(i, 0), other.den.get(i, 0)
            e = max(ea, eb)
            den[i] = e
            if e > ea:
                ma.append((i, e - ea))
            if e > eb:
                mb.append((i, e - eb))
            if ea == eb:
                equal.append(i)
        q = self.q * other.q // math.gcd(self.q, other.q)
        na, eva = self.num, self.ev
        if q != self.q:
            na, eva = na * (q // self.q), eva * (q // self.q)
        nb, evb = other.num, other.ev
        if q != other.q:
            nb, evb = nb * (q // other.q), evb * (q // other.q)
        for i, k in ma:
            na, eva = na * f.power(i, k), eva * f.values[i] ** k
        for i, k in mb:
            nb, evb = nb * f.power(i, k), evb * f.values[i] ** k
        return f.cancel(na + nb, eva + evb, den, q, equal)

    def __neg__(self) -> "FD":
        return FD(self.field, -self.num, -self.ev, dict(self.den), self.q)

    def __sub__(self, other: "FD") -> "FD":
        return self + (-other)

    def __mul__(self, other: "FD") -> "FD":
        f = self.field
        a, eva = self.num, self.ev
        b, evb = other.num, other.ev
        if a.is_zero() or b.is_zero():
            return FD(f, f.zero_poly, 0, {}, 1)
        den = dict(self.den)
        for i, e in other.den.items():
            den[i] = den.get(i, 0) + e
        # a factor of one side's denominator may divide the other side's numerator
        for i in other.den:
            while den[i] > 0 and not a.is_constant():
                got = _div_exact(f, a, eva, i)
                if got is None:
                    break
                a, eva = got
                den[i] -= 1
        for i in self.den:
            while den.get(i, 0) > 0 and not b.is_constant():
                got = _div_exact(f, b, evb, i)
                if got is None:
                    break
                b, evb = got
                den[i] -= 1
        q = self.q * other.q
        num = a * b
        ev = eva * evb
        g = math.gcd(q, int(num.content())) if q > 1 else 1
        if g > 1:
            num, ev, q = num / g, ev // g, q // g
        return FD(f, num, ev, {i: e for i, e in den.items() if e}, q)

    def __truediv__(self, other: "FD") -> "FD":
        f = self.field
        if other.num.is_zero():
            raise ZeroDivisionError("division by a zero rational function")
        c, new = f.split(other.num)
        den = dict(self.den)
        num, ev = self.num, self.ev
        for i, e in other.den.items():  # other's denominator moves up, cancelling first
            k = min(e, den.get(i, 0))
            if k:
                den[i] -= k
            if e > k:
                num, ev = num * f.power(i, e - k), ev * f.values[i] ** (e - k)
        if other.q != 1:
            num, ev = num * other.q, ev * other.q
        q = self.q * abs(c)
        if c < 0:
            num, ev = -num, -ev
        for i, e in new.items():
            den[i] = den.get(i, 0) + e
        out = f.cancel(num, ev, den, q, list(new))
        g = math.gcd(out.q, int(out.num.content())) if out.q > 1 and not out.num.is_zero() else 1
        if g > 1:
            out.num, out.ev, out.q = out.num / g, out.ev // g, out.q // g
        return out

    def __pow__(self, e: int) -> "FD":
        out = self
        for _ in range(e - 1):
            out = out * self
        return out


def to_text(value: RF, form: str = "expanded", latex: bool = False) -> str:
    """A cancelled rational function printed directly from its polynomials: text that
    :func:`symq.arithmetic.expressions.parse_formula` reads, or LaTeX.

    Parameters
    ----------
    value : RF
        The cancelled rational function to print.
    form : {"expanded", "factored"}
        Numerator and denominator multiplied out, or each factored over the integers.
    latex : bool, default False
        Print LaTeX (``\\frac{num}{den}``) instead of parseable text.

    Returns
    -------
    str
        The numerator over the denominator (text ``num/(den)``), or the numerator alone
        when the denominator is 1.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> value = structured("n", "empty-probability").expanded_values()
    >>> print(to_text(value, "factored"))
    -(lambda_1 - mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))

    Running time: linear in the number of terms (``"factored"``: plus flint's factoring of
    the numerator and of the denominator past its known factors).
    """
    f = value.field
    printer = f.poly_latex if latex else f.poly_text
    if form == "factored":
        num = f.factored_parts(value.num, printer)
        den = f.factored_parts(value.den, printer, value.den_factors)
    else:
        num, den = printer(value.num), printer(value.den)
        if not latex and len(value.num) > 1:
            num = f"({num})"
    if den == "1":
        return num
    if latex:
        return rf"\frac{{{num}}}{{{den}}}"
    return f"{num}/({den})"


def to_sympy(value: RF, form: str = "expanded") -> sympy.Expr:
    """A cancelled rational function as sympy: ``expanded`` (numerator and denominator
    multiplied out) or ``factored`` (each factored over the integers by flint).

    Parameters
    ----------
    value : RF
        The rational function.
    form : str
        ``"expanded"`` or ``"factored"``.

    Returns
    -------
    sympy.Expr
        Numerator over denominator.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> value = structured("n", "empty-probability").expanded_values()
    >>> to_sympy(value, "factored")
    (-lambda_1 + mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))

    Running time: linear in the number of terms (``"factored"``: plus flint's factoring, as
    :func:`to_text`), and sympy's construction of the expression.
    """
    f = value.field
    if form == "factored":
        return f.factored(value.num) / f.factored(value.den, value.den_factors)
    return f.poly_expr(value.num) / f.poly_expr(value.den)


def result_degrees(definitions: list[Definition], results: list[str], symbols: list[Any],
                   axis: int | None = None) -> list[tuple[int, int]]:
    """``[(numerator degree, denominator degree)]`` of the named ``results`` once multiplied
    out, from the definitions evaluated on the image of ``symbols`` on a random line
    (:class:`FactoredFunctions` with ``line=True``: univariate, so cheap; the degrees of the
    image are those of the rational function unless the line is special, when they are
    lower); with ``axis`` (an index into ``symbols``) the degrees in that symbol alone, the
    others fixed at random integers.

    Parameters
    ----------
    definitions : list of Definition
        The structured definitions, each after those it uses.
    results : list of str
        Names of the definitions whose degrees are wanted.
    symbols : list of sympy.Symbol
        The variables (sorted as the caller wants ``axis`` to index them); none: no degrees.
    axis : int, optional
        Degrees in one variable only.

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> f = structured("n", "empty-probability")
    >>> result_degrees(f.definitions, [name for _, name in f.result_names()],
    ...                sorted(f.model.symbols, key=lambda s: s.name))
    [(2, 2)]

    Running time: one univariate operation per term of every definition (milliseconds for
    4 servers).
    """
    if not symbols:
        return []
    field = FactoredFunctions(symbols, line=True, axis=axis)
    env = evaluate_definitions(definitions, field.leaf, field.number)
    out = []
    for name in results:
        v = field.finish(env[name])
        out.append((v.num.total_degree(), v.den.total_degree()))
    return out

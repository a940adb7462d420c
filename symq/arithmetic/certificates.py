r"""Sign certificates for rational functions of positive variables, usable for any claim: to prove
that a difference $d$ has the sign of $s\,f$ for a known factor $f$ (say $\mu_l - \mu_m$), write
$d = f \cdot s \cdot N/D$ with $N$ and $D$ polynomials whose coefficients are all positive, so that
both are positive whenever every variable is (a constraint such as stability enters by a
substitution, e.g. $\mu^n = \lambda + \delta$ with $\delta > 0$). :func:`find_sign_certificate`
searches such a representation exactly and says why when it finds none, never claiming what it did
not show; :func:`check_certificate` re-checks a certificate independently against the original
expression; :func:`to_field`, :func:`numerator_denominator` and :func:`same_rational_function` are
the exact rational-function conversions they use, over the fields of :mod:`symq.arithmetic.exact`.
:mod:`symq.studies.uninformed` uses them to prove Theorem 2.1 of [Cab]_.

Examples
--------
>>> import sympy
>>> lam, mu_1, mu_2 = sympy.symbols("lambda mu_1 mu_2", positive=True)
>>> cert = find_sign_certificate((mu_1 - mu_2) * lam / (mu_1 + lam), mu_1 - mu_2, 1,
...                              (lam, mu_1, mu_2), claim="demo")
>>> cert.proved, cert.numerator, cert.denominator
(True, lambda, lambda + mu_1)

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (the uninformed model; see ``docs/uninformed.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import sympy

from symq.errors import ModelError
from symq.arithmetic.exact import fraction_field
from symq.display import Displayed, Math, text_latex

__all__ = ["SignCertificate", "find_sign_certificate", "check_certificate", "to_field",
           "numerator_denominator", "same_rational_function", "positive_coefficients"]


# ---------------------------------------------------------------------------- exact conversions
def to_field(expr: sympy.Expr, domain: Any) -> Any:
    """``expr`` as an element of the fraction field ``domain``, built term by term.

    Much faster than ``together``/``cancel`` on nested sums of fractions: each sum, product and
    integer power is formed in the field, which keeps every intermediate result cancelled.

    Parameters
    ----------
    expr : sympy expression
        A rational function of the field's symbols.
    domain : FracField
        A field of :func:`symq.arithmetic.exact.fraction_field`.

    Returns
    -------
    An element of ``domain``.

    Raises
    ------
    ValueError
        (from sympy) ``expr`` is not a rational function of the field's symbols.

    Notes
    -----
    Running time: one field operation per node of the expression tree.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> to_field(1 / x + 1 / (x + 1), fraction_field([x])).as_expr()
    (2*x + 1)/(x**2 + x)
    """
    if expr.is_Add:
        return sum((to_field(a, domain) for a in expr.args), domain.zero)
    if expr.is_Mul:
        result = domain.one
        for a in expr.args:
            result *= to_field(a, domain)
        return result
    if expr.is_Pow and expr.exp.is_Integer:
        return to_field(expr.base, domain) ** int(expr.exp)
    return domain.from_expr(expr)


def numerator_denominator(expr: sympy.Expr, gens: Sequence[sympy.Symbol]
                          ) -> tuple[sympy.Poly, sympy.Poly]:
    """The coprime numerator and denominator of a rational function, as polynomials in ``gens``.

    Parameters
    ----------
    expr : sympy expression
        A rational function of ``gens``.
    gens : sequence of sympy.Symbol
        The variables, in order.

    Returns
    -------
    (Poly, Poly)
        Numerator and denominator over QQ, without common factor.

    Raises
    ------
    ModelError
        ``expr`` has a symbol outside ``gens``.

    Notes
    -----
    Running time: that of :func:`to_field`.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> top, bottom = numerator_denominator(x / y + 1, (x, y))
    >>> top.as_expr(), bottom.as_expr()
    (x + y, y)
    """
    missing = sympy.sympify(expr).free_symbols - set(gens)
    if missing:
        raise ModelError(f"the expression has symbols {sorted(map(str, missing))} outside the "
                         f"variables {[str(g) for g in gens]}")
    value = to_field(sympy.sympify(expr), fraction_field(gens))
    return (sympy.Poly.from_dict(dict(value.numer), *gens, domain=sympy.QQ),
            sympy.Poly.from_dict(dict(value.denom), *gens, domain=sympy.QQ))


def same_rational_function(left: sympy.Expr, right: sympy.Expr) -> bool:
    """Whether two expressions are the same rational function of their symbols.

    Exact: both sides are converted into one fraction field over QQ (:func:`to_field`) and
    compared there; expressions without symbols are compared by ``simplify``.

    Parameters
    ----------
    left, right : sympy expressions

    Returns
    -------
    bool

    Notes
    -----
    Running time: that of :func:`to_field` on both sides.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> same_rational_function(1 / x - 1 / (x + 1), 1 / (x**2 + x))
    True
    >>> same_rational_function(x, x + 1)
    False
    """
    left, right = sympy.sympify(left), sympy.sympify(right)
    symbols = sorted(left.free_symbols | right.free_symbols, key=str)
    if not symbols:
        return sympy.simplify(left - right) == 0
    domain = fraction_field(symbols)
    return to_field(left, domain) == to_field(right, domain)


def positive_coefficients(poly: sympy.Poly) -> bool:
    """Whether every coefficient of ``poly`` is positive (so it is positive for positive variables).

    Parameters
    ----------
    poly : sympy.Poly
        In the variables of the certificate.

    Returns
    -------
    bool
        True when every coefficient is positive (callers pass nonzero polynomials).

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> positive_coefficients(sympy.Poly(x**2 + 3, x)), positive_coefficients(sympy.Poly(x - 1, x))
    (True, False)

    Running time: O(number of terms).
    """
    return all(c > 0 for c in poly.coeffs())


# ---------------------------------------------------------------------------- certificates
@dataclass(frozen=True)
class SignCertificate(Displayed):
    r"""A proof (or a failed search for one) that ``difference`` has the sign of ``sign * factor``.

    In a notebook it shows as a table: the claim, the verdict, the factor, $N$ and $D$ (or why no
    certificate was found).

    When ``proved``: ``difference == factor * sign * numerator / denominator`` as rational
    functions of ``variables`` (with the substitution stated), and ``numerator`` and
    ``denominator`` have only positive coefficients, so they are positive for positive variables.

    Attributes
    ----------
    claim, claim_latex : str
        The claim in text and LaTeX.
    difference : sympy expression
        The quantity whose sign is claimed.
    factor : sympy expression
        The known factor $f$.
    sign : int
        +1 or -1.
    variables : tuple of sympy.Symbol
        The positive variables.
    substitution : str
        The substitution that makes the variables independent and positive.
    proved : bool
    numerator, denominator : sympy expressions or None
        $N$ and $D$ when proved.
    reason : str
        Why no certificate was found.
    inequality : str
        A label of the claim for the caller (e.g. ``"busy"`` for Theorem 2.1).
    pair : tuple of str
        Another label for the caller (e.g. the servers $(l, m)$).
    """

    claim: str
    claim_latex: str
    difference: sympy.Expr
    factor: sympy.Expr
    sign: int
    variables: tuple[sympy.Symbol, ...]
    substitution: str
    proved: bool
    numerator: sympy.Expr | None = None
    denominator: sympy.Expr | None = None
    reason: str = ""
    inequality: str = ""
    pair: tuple[str, str] = ()

    @property
    def minus(self) -> str:
        """``"-"`` for a negative sign, else ``""`` (for the displays)."""
        return "" if self.sign > 0 else "-"

    def text(self) -> str:
        """A plain-text account of the certificate.

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> print(find_sign_certificate(x - 1, x, 1, (x,), claim="x > 1").text())
        x > 1: NO CERTIFICATE FOUND (x does not divide the numerator)
        """
        if not self.proved:
            return f"{self.claim}: NO CERTIFICATE FOUND ({self.reason})"
        factor = sympy.sstr(self.factor, order='none')
        variables = ", ".join(map(str, self.variables))
        return (f"{self.claim}: difference = {self.minus}({factor}) * N/D with "
                f"{self.substitution};\n  N = {self.numerator}\n  D = {self.denominator}\n"
                f"  N and D have only positive coefficients in {variables}: PROVED")

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        rows = [("claim", Math(self.claim_latex) if self.claim_latex else self.claim),
                ("verdict", "proved" if self.proved else "no certificate found")]
        if self.proved:
            factor = sympy.latex(self.factor, order="none")
            rows += [("difference", Math(f"{self.minus}\\left({factor}\\right)\\frac{{N}}{{D}}")),
                     ("substitution", self.substitution),
                     ("N", Math(sympy.latex(self.numerator))),
                     ("D", Math(sympy.latex(self.denominator))),
                     ("variables", Math(", ".join(sympy.latex(v) for v in self.variables)))]
        else:
            rows.append(("reason", self.reason))
        return "sign certificate", [(None, rows)]

    def latex(self) -> str:
        """The certificate as a LaTeX display."""
        if not self.proved:
            return f"\\text{{{self.claim}: no certificate found ({self.reason})}}"
        factor = sympy.latex(self.factor, order='none')
        return (f"{self.claim_latex}:\\quad \\text{{difference}} = {self.minus}\\left({factor}"
                f"\\right)\\frac{{N}}{{D}},\\\\\nN = {sympy.latex(self.numerator)},\\\\\n"
                f"D = {sympy.latex(self.denominator)}")

    def as_json(self) -> dict[str, Any]:
        """JSON-ready fields (expressions as sympy-parsable strings)."""
        data = {"claim": self.claim, "proved": self.proved, "factor": str(self.factor),
                "sign": self.sign, "substitution": self.substitution,
                "variables": [str(v) for v in self.variables]}
        if self.proved:
            data.update(numerator=str(self.numerator), denominator=str(self.denominator),
                        numerator_terms=len(sympy.Poly(self.numerator, *self.variables).terms()),
                        denominator_terms=len(sympy.Poly(self.denominator,
                                                         *self.variables).terms()))
        else:
            data["reason"] = self.reason
        return data


def find_sign_certificate(difference: sympy.Expr, factor: sympy.Expr, sign: int,
                          variables: Sequence[sympy.Symbol], claim: str = "",
                          claim_latex: str = "", substitution: str = "",
                          inequality: str = "", pair: tuple[str, str] = ()) -> SignCertificate:
    r"""Search a certificate that ``difference / factor`` has the sign ``sign`` (+1 or -1).

    Divides the numerator of ``difference`` by ``factor`` (it must divide exactly), cancels, and
    accepts when $\mathrm{sign}\cdot$numerator and the denominator (after making the latter's
    coefficients positive, if they are all negative) have only positive coefficients as
    polynomials in ``variables``. Anything else (a remainder, a mixed-sign polynomial, the wrong
    sign) returns ``proved=False`` with the reason: the search never claims what it did not show.

    Parameters
    ----------
    difference : sympy expression, or an element of a fraction field over QQ in ``variables``
        The quantity whose sign is claimed.
    factor : sympy expression
        A polynomial factor of the numerator with a known sign.
    sign : int
        The claimed sign of ``difference / factor``.
    variables : sequence of sympy.Symbol
        The variables, all positive.
    claim, claim_latex, substitution, inequality, pair
        Labels stored in the certificate.

    Returns
    -------
    SignCertificate

    Raises
    ------
    ValueError
        ``sign`` is not +1 or -1.
    ModelError
        ``difference`` has a symbol outside ``variables``.

    Notes
    -----
    Running time: one polynomial division and one gcd in ``len(variables)`` variables.

    Examples
    --------
    >>> lam, mu_1, mu_2 = sympy.symbols("lambda mu_1 mu_2", positive=True)
    >>> find_sign_certificate((mu_1 - mu_2) * (lam - mu_1), mu_1 - mu_2, 1,
    ...                       (lam, mu_1, mu_2)).reason
    'the numerator has the coefficient -1 at mu_1, so no sign follows from this representation'
    """
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, not {sign!r}")
    gens = tuple(variables)
    result = dict(claim=claim, claim_latex=claim_latex or claim, difference=difference,
                  factor=factor, sign=sign, variables=gens, substitution=substitution,
                  inequality=inequality, pair=tuple(pair))
    if hasattr(difference, "numer"):  # already an element of a fraction field over gens
        num_poly, den_poly = (sympy.Poly.from_dict(dict(part), *gens, domain=sympy.QQ)
                              for part in (difference.numer, difference.denom))
        result["difference"] = num_poly.as_expr() / den_poly.as_expr()
    else:
        num_poly, den_poly = numerator_denominator(difference, gens)
    quotient, remainder = num_poly.div(sympy.Poly(factor, *gens))
    if not remainder.is_zero:
        return SignCertificate(proved=False, reason=f"{factor} does not divide the numerator",
                               **result)
    common = quotient.gcd(den_poly)
    quotient, den_poly = quotient.exquo(common), den_poly.exquo(common)
    if all(c < 0 for c in den_poly.coeffs()):
        quotient, den_poly = -quotient, -den_poly
    numerator = quotient * sign
    for poly, what in ((den_poly, "denominator"), (numerator, "numerator")):
        if not positive_coefficients(poly):
            bad = next((m, c) for m, c in poly.terms() if c <= 0)
            monomial = sympy.Mul(*[g ** e for g, e in zip(gens, bad[0])])
            return SignCertificate(
                proved=False, reason=f"the {what} has the coefficient {bad[1]} at {monomial}, "
                "so no sign follows from this representation", **result)
    return SignCertificate(proved=True, numerator=numerator.as_expr(),
                           denominator=den_poly.as_expr(), **result)


def check_certificate(certificate: SignCertificate, original: sympy.Expr,
                      relation: Mapping[sympy.Symbol, sympy.Expr]) -> list[str]:
    """Check a proved certificate independently of the search that found it.

    Every coefficient of $N$ and $D$ must be positive, and ``original == factor * sign * N / D``
    must hold after ``relation`` (e.g. ``delta -> mu_1 + ... - lambda``), as the polynomial
    identity $A D' - s f N' B = 0$ with ``original`` $= A/B$.

    Parameters
    ----------
    certificate : SignCertificate
    original : sympy expression or an element of a sympy fraction field
        The difference in the original variables.
    relation : mapping of sympy.Symbol to sympy expression
        Undoes the certificate's substitution.

    Returns
    -------
    list of str
        The problems found; empty when the certificate is valid.

    Notes
    -----
    Running time: one polynomial product and comparison.

    Examples
    --------
    >>> x, y = sympy.symbols("x y", positive=True)
    >>> cert = find_sign_certificate((x - y) / (x + y), x - y, 1, (x, y), claim="x > y")
    >>> check_certificate(cert, (x - y) / (x + y), {})
    []
    >>> check_certificate(cert, (x - y) / (x + 2 * y), {})
    ['x > y: factorization is not an identity (residual has 2 terms)']
    """
    if not certificate.proved:
        return [f"{certificate.claim}: not proved ({certificate.reason})"]
    problems = []
    for expr, what in ((certificate.numerator, "N"), (certificate.denominator, "D")):
        poly = sympy.Poly(expr, *certificate.variables)
        if not poly.coeffs() or not positive_coefficients(poly):
            problems.append(f"{certificate.claim}: {what} has a non-positive coefficient")
    # original == factor * sign * N / D  <=>  A * D' - sign * factor * N' * B == 0 as polynomials,
    # with original = A / B and N', D' the certificate's polynomials after the relation
    relation = dict(relation)
    if hasattr(original, "numer"):  # an element of a fraction field: use its generators
        gens = list(original.field.symbols)
        top, bottom = (sympy.Poly.from_dict(dict(part), *gens, domain=sympy.QQ)
                       for part in (original.numer, original.denom))
    else:
        gens = sorted(sympy.sympify(original).free_symbols | certificate.factor.free_symbols
                      | {s for e in relation.values() for s in sympy.sympify(e).free_symbols},
                      key=str)
        top, bottom = numerator_denominator(original, gens)
    num, den = (sympy.Poly(e.xreplace(relation), *gens)
                for e in (certificate.numerator, certificate.denominator))
    residual = top * den - bottom * num * sympy.Poly(certificate.sign * certificate.factor, *gens)
    if not residual.is_zero:
        problems.append(f"{certificate.claim}: factorization is not an identity "
                        f"(residual has {len(residual.terms())} terms)")
    return problems

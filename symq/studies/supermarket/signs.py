r"""The sign decisions of symbolic supermarket decompositions: :func:`holds_for_all_positive`
decides whether an expression is non-negative (or positive) for every positive value of its
symbols, exactly for the linear expressions of the cluster validity conditions and the drift
$V_1$, and conservatively (False when unproven) otherwise.
"""

from __future__ import annotations

import sympy

__all__ = ["holds_for_all_positive"]


def holds_for_all_positive(expr: sympy.Expr, strict: bool) -> bool:
    r"""Whether ``expr`` $\ge0$ (or $>0$) for every positive value of its symbols.

    Exact for expressions linear in the symbols (the case of the cluster validity conditions):
    $c+\sum a_s s\ge0$ on the open positive orthant iff $c\ge0$ and every $a_s\ge0$ (and, for
    $>0$, $c>0$ or some $a_s>0$). Otherwise non-negative polynomial coefficients suffice, and sympy's assumptions are
    asked last; anything unproven counts as False.

    Parameters
    ----------
    expr : sympy expression
    strict : bool
        Decide $> 0$ instead of $\ge 0$.

    Returns
    -------
    bool
        True only when proved.

    Notes
    -----
    Running time: one expansion and one pass over the coefficients.

    Examples
    --------
    >>> lam, mu = sympy.symbols("lambda mu", positive=True)
    >>> holds_for_all_positive(2 * mu + lam, strict=True), holds_for_all_positive(lam - mu, False)
    (True, False)
    """
    expr = sympy.expand(expr)
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if not symbols:
        return bool(expr > 0) if strict else bool(expr >= 0)
    try:
        poly = sympy.Poly(expr, *symbols)
    except sympy.PolynomialError:
        poly = None
    if poly is not None and all(c.is_Rational for c in poly.coeffs()):
        constant = poly.coeff_monomial(1)
        others = [c for m, c in zip(poly.monoms(), poly.coeffs()) if any(m)]
        if all(c >= 0 for c in others) and constant >= 0:
            return not strict or constant > 0 or any(c > 0 for c in others)
        if poly.total_degree() <= 1:
            return False
    answer = expr.is_positive if strict else expr.is_nonnegative
    return bool(answer)

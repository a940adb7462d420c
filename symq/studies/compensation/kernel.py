r"""Kernel equations: symbolic derivation and numerical roots with the selection rule.
A product form $a^{q_1}b^{q_2}$ solves a region's interior balance equations iff $(a,b)$ lies on
that region's kernel; in $\alpha=ab^s$, the decay per boundary step, these are the polynomials
$K_U(\alpha,b)$ and $K_L(\alpha,b)$, which :func:`product_form_kernels` derives from the balance
equations of :mod:`symq.studies.compensation.models`. The functions here compute their roots at the
working precision and raise :class:`~symq.errors.VerificationError` unless, for $0<|\alpha|<1$,
exactly $s$ roots of $K_U(\alpha,\cdot)$ have $|b|^s<|\alpha|$ and exactly one root of
$K_L(\alpha,\cdot)$ has $|b|>1$ (the selection rule proved by Rouché's theorem). The kernels and the
rule are written out in docs/theory-compensation.md (§3.3, §4.3).
"""

from __future__ import annotations

import mpmath
import sympy

from symq.errors import VerificationError
from symq.display import QuantityResult
from symq.studies.compensation.models import incoming

__all__ = ["product_form_kernels", "kernel_polynomials", "kernels_latex", "upper_roots",
           "lower_root"]


def product_form_kernels(s: int = 1) -> dict[str, sympy.Expr]:
    r"""The kernels in $(a, b)$, derived from the interior balance equations.

    Substitutes $p(q_1,q_2)=a^{q_1}b^{q_2}$ into the balance equation of a representative interior
    state of each region and divides by $a^{q_1}b^{q_2}$.

    Parameters
    ----------
    s : int
        1 for JSQ (symbolic $\mu_1,\mu_2$), the server-2 speed for SED ($\mu_1=1$, $\mu_2=s$).

    Returns
    -------
    dict
        ``{"upper": expr, "lower": expr}``; the product form solves the region's inner equations iff
        ``expr == 0``.

    Examples
    --------
    >>> k = product_form_kernels(1)
    >>> print(k["upper"])
    a*mu_1 + b*mu_2 - lambda - mu_1 - mu_2 + lambda/a

    Running time: O(s) sympy operations (two balance equations of at most 5 terms).
    """
    lam = sympy.Symbol("lambda", positive=True)
    mu1, mu2 = sympy.Symbol("mu_1", positive=True), sympy.Symbol("mu_2", positive=True)
    if s > 1:
        mu1, mu2 = sympy.Integer(1), sympy.Integer(s)
    q = sympy.Symbol("q", nonnegative=True)
    a, b = sympy.symbols("a b")
    result = {}
    for name, x in (("upper", (4, s * 8)), ("lower", (8, s * 4))):
        expr = sympy.Integer(0)
        for y, rate in incoming(x, s, lam, mu1, mu2, q):
            expr += rate * a ** (y[0] - x[0]) * b ** (y[1] - x[1])
        result[name] = sympy.expand(expr)
    return QuantityResult(result)  # a dict shown as a table in Jupyter


def kernel_polynomials(s: int = 1) -> dict[str, sympy.Expr]:
    r"""$K_U(\alpha,b)$ and $K_L(\alpha,b)$: the kernels after $a=\alpha/b^s$, cleared of denominators.

    Parameters
    ----------
    s : int
        As :func:`product_form_kernels`.

    Returns
    -------
    dict
        ``{"upper": K_U, "lower": K_L}``, polynomials in ``alpha`` and ``b`` with a positive
        leading coefficient.

    Running time: that of :func:`product_form_kernels` plus two sympy expansions of degree
    O(s).

    Examples
    --------
    >>> k = kernel_polynomials(1)
    >>> print(k["lower"])
    alpha*mu_1 + b**2*mu_2 - b*lambda - b*mu_1 - b*mu_2 + lambda
    """
    alpha, a, b = sympy.symbols("alpha a b")
    result = {}
    for name, expr in product_form_kernels(s).items():
        num, _ = sympy.fraction(sympy.together(expr.subs(a, alpha / b ** s)))
        poly = sympy.Poly(sympy.expand(num), alpha, b)
        low = (min(m[0] for m in poly.monoms()), min(m[1] for m in poly.monoms()))
        kernel = sympy.expand(poly.as_expr() / (alpha ** low[0] * b ** low[1]))
        if sympy.Poly(kernel, alpha, b).LC().could_extract_minus_sign():
            kernel = -kernel
        result[name] = kernel
    return QuantityResult(result)  # a dict shown as a table in Jupyter


def kernels_latex(s: int = 1) -> str:
    r"""Both kernel equations in LaTeX, e.g. for the ``--format latex`` output.

    Parameters
    ----------
    s : int
        The server-2 speed (1 for JSQ), passed on to :func:`kernel_polynomials`.

    Returns
    -------
    str
        ``K_U(\alpha,b) = ... = 0,\qquad K_L(\alpha,b) = ... = 0``.

    Examples
    --------
    >>> print(kernels_latex(1).split(r"\qquad ")[1])
    K_L(\alpha,b) = \alpha \mu_{1} + b^{2} \mu_{2} - b \lambda - b \mu_{1} - b \mu_{2} + \lambda = 0

    Running time: that of :func:`kernel_polynomials`.
    """
    k = kernel_polynomials(s)
    return ("K_U(\\alpha,b) = " + sympy.latex(k["upper"]) + " = 0,\\qquad "
            "K_L(\\alpha,b) = " + sympy.latex(k["lower"]) + " = 0")


# ---------------------------------------------------------------------------------------------
# numerical roots
# ---------------------------------------------------------------------------------------------

def _newton(coeffs, x, tol_digits):
    """Polish a root of the polynomial ``coeffs`` (highest first) by Newton's method."""
    eps = mpmath.mpf(10) ** (-tol_digits)
    for _ in range(60):
        value, deriv = mpmath.polyval(coeffs, x, derivative=True)
        if deriv == 0:
            break
        dx = value / deriv
        x = x - dx
        if abs(dx) <= eps * abs(x):
            break
    return x


def _approximate_roots(coeffs):
    """All roots at low precision (a starting point for Newton)."""
    with mpmath.workdps(30):
        c = [mpmath.mpc(x) for x in coeffs]
        return mpmath.polyroots(c, maxsteps=200, extraprec=60, error=False)


def upper_roots(alpha, s, lam, mu1, mu2):
    r"""The $s$ roots $b$ of $K_U(\alpha,b)=0$ with $|b|^s<|\alpha|$ (§3.3, §4.3).

    Uses the scaled variable $b=\alpha^{1/s}z$, in which the roots wanted are those of
    $\lambda z^{2s}+\mu_2\alpha^{1/s}z^{s+1}-\sigma z^s+\mu_1=0$ with $|z|<1$ (§4.3 and §7 item 4).
    For $s=1$ the root is the closed form $b=2\mu_1\alpha/(\sigma+\sqrt{\sigma^2-4\mu_1(\lambda+\mu_2\alpha)})$.

    Parameters
    ----------
    alpha : mpmath number
        The group's decay $\alpha$.
    s : int
        1 for JSQ, the server-2 speed for SED.
    lam, mu1, mu2 : mpmath numbers
        The rates at the working precision.

    Returns
    -------
    list
        The $s$ roots $b$ (mpmath numbers; complex for $s>1$).

    Examples
    --------
    >>> import mpmath
    >>> with mpmath.workdps(20):
    ...     [mpmath.nstr(b, 10) for b in upper_roots(mpmath.mpf(1) / 4, 1, 1, 1, 1)]
    ['0.1']

    Running time: O(1) for $s=1$; otherwise an O(s^2) polynomial root approximation and
    Newton refinement of the $s$ roots at the current precision.

    Raises
    ------
    VerificationError
        If the number of roots inside is not $s$.
    """
    sigma = lam + mu1 + mu2
    if s == 1:
        disc = sigma ** 2 - 4 * mu1 * (lam + mu2 * alpha)
        root = mpmath.sqrt(disc)
        b = 2 * mu1 * alpha / (sigma + root)
        if not abs(b) < abs(alpha):
            raise VerificationError(f"upper kernel root {b} is not inside |b| < |alpha| = {abs(alpha)}")
        return [b]
    scale = mpmath.root(alpha, s)
    coeffs = [mpmath.mpc(0)] * (2 * s + 1)
    # coefficients of z^(2s), ..., z^0 (highest first)
    coeffs[0] = lam
    coeffs[2 * s - (s + 1)] = mu2 * scale
    coeffs[2 * s - s] = coeffs[2 * s - s] - sigma
    coeffs[2 * s] = mu1
    approx = _approximate_roots(coeffs)
    inside = [z for z in approx if abs(z) < 1]
    if len(inside) != s:
        raise VerificationError(f"expected {s} upper kernel roots inside the unit disk at "
                                f"alpha = {mpmath.nstr(alpha, 10)}, found {len(inside)}")
    dps = mpmath.mp.dps
    return [scale * _newton(coeffs, mpmath.mpc(z), dps - 3) for z in inside]


def lower_root(alpha, s, lam, mu1, mu2):
    r"""The root $b$ of $K_L(\alpha,b)=0$ with $|b|>1$ (§3.3, §4.3).

    For $s=1$: $b=(\sigma+\sqrt{\sigma^2-4\mu_2(\lambda+\mu_1\alpha)})/(2\mu_2)$.

    Parameters
    ----------
    alpha, s, lam, mu1, mu2
        As for `upper_roots`: the decay $\alpha$, the server-2 speed $s$ (1 for JSQ) and the
        rates $\lambda,\mu_1,\mu_2$ at the working precision.

    Returns
    -------
    mpmath number
        The root $b$ with $|b|>1$.

    Examples
    --------
    >>> import mpmath
    >>> with mpmath.workdps(20):
    ...     mpmath.nstr(lower_root(mpmath.mpf(1) / 4, 1, 1, 1, 1), 10)
    '2.5'

    Running time: O(1) for $s=1$; otherwise an O(s^2) polynomial root approximation and
    one Newton refinement at the current precision.

    Raises
    ------
    VerificationError
        If not exactly one root lies outside the unit disk.
    """
    sigma = lam + mu1 + mu2
    if s == 1:
        b = (sigma + mpmath.sqrt(sigma ** 2 - 4 * mu2 * (lam + mu1 * alpha))) / (2 * mu2)
        if not abs(b) > 1:
            raise VerificationError(f"lower kernel root {b} is not outside the unit disk")
        return b
    coeffs = [mpmath.mpc(0)] * (s + 2)
    coeffs[0] = mu2
    coeffs[1] = -sigma
    coeffs[2] = lam
    coeffs[s + 1] = mu1 * alpha
    approx = _approximate_roots(coeffs)
    outside = [z for z in approx if abs(z) > 1]
    if len(outside) != 1:
        raise VerificationError(f"expected one lower kernel root outside the unit disk at "
                                f"alpha = {mpmath.nstr(alpha, 10)}, found {len(outside)}")
    return _newton(coeffs, mpmath.mpc(outside[0]), mpmath.mp.dps - 3)

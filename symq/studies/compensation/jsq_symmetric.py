r"""The closed-form chain of Adan, Wessels and Zijm for symmetric JSQ (§2, [AWZ90]_).
An independent route for the symmetric case: a single chain of $(\alpha_i,\beta_i)$ with rational
recursions and closed-form coefficients $c_i$, starting at $\alpha_0=\rho^2$, in the lumped
coordinates $m=\min(q_1,q_2)$, $n=|q_1-q_2|$, evaluated in mpmath at the working precision (the
rationals grow quickly). The recursions, the normalising constant and the convergence rate are
in docs/theory-compensation.md (§2).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

__all__ = ["symmetric_chain", "symmetric_probability", "symmetric_mean_number"]


def symmetric_chain(rho: Fraction, levels: int):
    r"""The terms $(c, \alpha, \beta)$ of the chain, levels $0..L$, at the current precision.

    Parameters
    ----------
    rho : Fraction
        The load $\rho<1$.
    levels : int
        The number of levels $L$ (each adds a vertical and a horizontal term).

    Returns
    -------
    list of tuple
        ``(c, alpha, beta)`` as mpmath numbers, $2L+1$ of them.

    Examples
    --------
    >>> from fractions import Fraction
    >>> len(symmetric_chain(Fraction(1, 2), 2))
    5

    Running time: O(L) operations at the current mpmath precision.
    """
    r = mpmath.mpf(rho.numerator) / rho.denominator
    two_r = 2 * r

    def v(a, b):
        return (two_r + 1) * b - a - b * b

    def h(a, b):
        return b * (2 * (r + 1) - (two_r + a) * (two_r + 2 * a) / (2 * a * (r + 1)) - (two_r + a) * b / a)

    alpha, beta, c = r * r, r * r / (2 + r), mpmath.mpf(1)
    terms = [(c, alpha, beta)]
    for _ in range(levels):
        alpha_new = two_r * beta ** 2 / alpha
        c = -c * v(alpha, beta) / v(alpha_new, beta)
        terms.append((c, alpha_new, beta))
        beta_new = alpha_new ** 2 / ((alpha_new + two_r) * beta)
        c = -c * h(alpha_new, beta) / h(alpha_new, beta_new)
        terms.append((c, alpha_new, beta_new))
        alpha, beta = alpha_new, beta_new
    return terms


def _constant(rho: Fraction):
    r = mpmath.mpf(rho.numerator) / rho.denominator
    return 4 * (2 - r) * (1 - r * r) / (r * (2 + r))


def symmetric_probability(rho: Fraction, state, levels: int):
    r"""$P(q_1,q_2)$ from the pure chain truncated after ``levels`` levels (§2).

    Parameters
    ----------
    rho : Fraction
        The load $\rho<1$.
    state : tuple of int
        $(q_1, q_2)$.
    levels : int
        Levels of the chain.

    Returns
    -------
    mpmath.mpf
        The probability at the current precision.

    Examples
    --------
    >>> import mpmath
    >>> from fractions import Fraction
    >>> with mpmath.workdps(20):
    ...     print(mpmath.nstr(symmetric_probability(Fraction(1, 2), (0, 0), 12), 10))
    0.315967498

    Running time: O(L) powers at the current mpmath precision.
    """
    r = mpmath.mpf(rho.numerator) / rho.denominator
    terms = symmetric_chain(rho, levels)
    const = _constant(rho)

    def lumped(m, n):
        return const * sum((c * a ** m * b ** n for c, a, b in terms), 0)

    q1, q2 = state
    m, n = min(q1, q2), abs(q1 - q2)
    if n >= 1:
        return lumped(m, n) / 2
    if m >= 1:
        return (2 * r * lumped(m - 1, 1) + lumped(m, 1)) / (2 * r + 2)
    return lumped(0, 1) / (2 * r)


def symmetric_mean_number(rho: Fraction, levels: int):
    r"""$E[q_1+q_2]$ from the closed-form sums of §2.

    Parameters
    ----------
    rho : Fraction
        The load $\rho<1$.
    levels : int
        Levels of the chain.

    Returns
    -------
    mpmath.mpf
        The mean number in system at the current precision.

    Examples
    --------
    >>> import mpmath
    >>> from fractions import Fraction
    >>> with mpmath.workdps(20):
    ...     print(mpmath.nstr(symmetric_mean_number(Fraction(1, 2), 12), 10))
    1.426320751

    Running time: O(L) operations at the current mpmath precision.
    """
    r = mpmath.mpf(rho.numerator) / rho.denominator
    const = _constant(rho)
    total = 0
    for c, a, b in symmetric_chain(rho, levels):
        total += c * (2 * a * b / ((1 - a) ** 2 * (1 - b)) + b / ((1 - a) * (1 - b) ** 2))
        total += 2 * c * b * (2 * r + a) / ((1 - a) ** 2 * (2 * r + 2))
    return const * total

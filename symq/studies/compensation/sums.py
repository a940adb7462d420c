r"""Closed-form sums of a compensation term outside the near-origin box (§5).
For an upper term, a lower term or a group's boundary values, the functions here give the sums
$S_0=\sum p$, $S_1=\sum q_1p$ and $S_2=\sum q_2p$ over the complement of the box
$\{q_1<N_0,\ q_2<sN_0\}$ in closed form, from $G_0(x)=\sum_{j\ge N_0}x^j$ and
$G_1(x)=\sum_{j\ge N_0}jx^j$, re-derived from the finite geometric sums and checked against
brute-force summation in the tests. The formulas are in docs/theory-compensation.md (§5).
"""

from __future__ import annotations

__all__ = ["tail_sums"]


def _g0(x, n0):
    return x ** n0 / (1 - x)


def _g1(x, n0):
    return x ** n0 * (n0 - (n0 - 1) * x) / (1 - x) ** 2


def tail_sums(group, s, n0):
    r"""$(S_0, S_1, S_2)$ of one group (its terms and boundary values) outside the box of size ``n0``.

    Parameters
    ----------
    group
        A group of :func:`~symq.studies.compensation.tree.build_levels` (``terms``, ``h``, ``alpha``).
    s : int
        1 for JSQ, the server-2 speed for SED.
    n0 : int
        The box size $N_0$.

    Returns
    -------
    tuple
        $(S_0, S_1, S_2)$, unnormalised mpmath numbers (module docstring).

    Examples
    --------
    >>> import mpmath
    >>> from symq.studies.compensation import symmetric_jsq
    >>> from symq.studies.compensation.steps import NumericModel
    >>> from symq.studies.compensation.tree import build_levels
    >>> with mpmath.workdps(20):
    ...     group = next(build_levels(NumericModel(symmetric_jsq("1/2")), [(0, 0)]))[0]
    ...     [mpmath.nstr(x, 8) for x in tail_sums(group, 1, 3)]
    ['0.099722222', '0.2745679', '0.2745679']

    Running time: O(T s) operations for a group of T terms, at the current precision.
    """
    s0 = s1 = s2 = 0
    for t in group.terms:
        a, b, c = t.a, t.b, t.coef
        y = a * b ** s
        if t.kind == "upper":
            x = b ** s
            r0 = sum((b ** r for r in range(s)), 0)
            r1 = sum((r * b ** r for r in range(s)), 0)
            g0x, g0y, g1x, g1y = _g0(x, n0), _g0(y, n0), _g1(x, n0), _g1(y, n0)
            s0 += c * r0 * (g0x - g0y) / (1 - a)
            s1 += c * r0 * (a * g0x - (1 - a) * g1y - a * g0y) / (1 - a) ** 2
            s2 += c * (s * r0 * (g1x - g1y) + r1 * (g0x - g0y)) / (1 - a)
        else:
            g0a, g0y, g1a, g1y = _g0(a, n0), _g0(y, n0), _g1(a, n0), _g1(y, n0)
            s0 += c * (g0a - g0y) / (1 - b)
            s1 += c * (g1a - g1y) / (1 - b)
            s2 += c * (b * g0a - s * (1 - b) * g1y - b * g0y) / (1 - b) ** 2
    h0 = sum(group.h, 0)
    h1 = sum((r * h for r, h in enumerate(group.h)), 0)
    g0, g1 = _g0(group.alpha, n0), _g1(group.alpha, n0)
    s0 += h0 * g0
    s1 += h0 * g1
    s2 += s * h0 * g1 + h1 * g0
    return s0, s1, s2

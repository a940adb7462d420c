r"""Elementary symmetric sums $P(\mathcal S, k)$ and the identities Cabral's proof uses.
Cabral [Cab]_ (Table 1) writes $P(\mathcal S, k)$ for the sum of all distinct products of $k$
elements of a multiset $\mathcal S$ (the elementary symmetric polynomial $e_k(\mathcal S)$);
:func:`elementary_symmetric_sums` reads them off as the coefficients of
$\prod_{s \in \mathcal S} (1 + s x)$, multiplied out one factor at a time
($O(|\mathcal S|^2)$ exact operations, never the $2^{|\mathcal S|}$ subsets), and
:func:`identity_residuals` checks the removal identity of the proof of Theorem 2.1 of [Cab]_ and
the reciprocal identity (each residual must simplify to 0). The conventions and the identities:
see docs/uninformed.md.

Examples
--------
>>> from sympy import symbols, latex
>>> a, b, c = symbols("a b c", positive=True)
>>> elementary_symmetric_sums([a, b, c])
[1, a + b + c, a*b + a*c + b*c, a*b*c]
>>> print(latex(elementary_symmetric_sum([1/a, 1/b, 1/c], 2)))
\frac{1}{b c} + \frac{1}{a c} + \frac{1}{a b}

References
----------
.. [Cab] F. B. Cabral, *Queues with heterogeneous servers and uninformed customers: who works the
   most?* (symq/papers 001); the law itself is from F. B. Cabral, *The slow server problem for
   uninformed customers*, Queueing Systems 50(4) (2005) 353-370.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Sequence

import sympy

from symq.arithmetic.expressions import as_expression

__all__ = ["elementary_symmetric_sums", "elementary_symmetric_sum", "removal_identity_residual",
           "reciprocal_identity_residual", "identity_residuals"]


def _exact(value: Any) -> Any:
    """An exact element: ints and Fractions stay (fast), everything else is sympified."""
    if isinstance(value, bool):
        raise TypeError(f"elements of P(S, k) must be numbers or sympy expressions, not {value!r}")
    if isinstance(value, (int, Fraction)):
        return value
    if isinstance(value, float):
        raise TypeError(f"the float {value!r} is not exact; pass a Fraction, a sympy Rational "
                        "or a string such as '3/10'")
    expr = as_expression(value, "element of P(S, k)")
    if expr.has(sympy.Float):
        raise TypeError(f"the element {expr} contains a float; pass exact numbers")
    return expr


def _expand(value: Any) -> Any:
    return sympy.expand(value) if isinstance(value, sympy.Basic) else value


def elementary_symmetric_sums(elements: Iterable[Any]) -> list[Any]:
    r"""All $P(\mathcal S, k)$, $k = 0, \dots, |\mathcal S|$, as the coefficients of
    $\prod_{s}(1 + s x)$.

    Parameters
    ----------
    elements : iterable of ints, Fractions or sympy expressions (a multiset)

    Returns
    -------
    list
        ``[P(S, 0), ..., P(S, n)]``; ints/Fractions stay ints/Fractions, sympy input gives
        expanded sympy expressions.

    Raises
    ------
    TypeError
        A float or a non-numeric element.

    Examples
    --------
    >>> elementary_symmetric_sums([1, 2, 3])
    [1, 6, 11, 6]

    Running time: O(n^2) multiplications and additions for n elements.
    """
    coefficients: list[Any] = [1]
    for element in map(_exact, elements):
        # multiply the polynomial by (1 + element x): c_k <- c_k + element * c_{k-1}
        shifted = [0] + [_expand(element * c) for c in coefficients]
        coefficients = [_expand(a + b) for a, b in zip(coefficients + [0], shifted)]
    if coefficients and isinstance(coefficients[0], int):
        coefficients[0] = sympy.Integer(1) if any(isinstance(c, sympy.Basic)
                                                  for c in coefficients) else 1
    return coefficients


def elementary_symmetric_sum(elements: Iterable[Any], k: int) -> Any:
    r"""$P(\mathcal S, k)$: the sum of all products of $k$ distinct elements (0 outside
    $0 \le k \le |\mathcal S|$); [Cab]_ writes the law of the uninformed queue with it.

    Parameters
    ----------
    elements : iterable
        The multiset $\mathcal S$: ints, Fractions or sympy expressions.
    k : int
        Any integer.

    Returns
    -------
    int, Fraction or sympy.Expr
        Of the type of :func:`elementary_symmetric_sums`.

    Raises
    ------
    TypeError
        ``k`` is not an integer, or an element is a float.

    Examples
    --------
    >>> elementary_symmetric_sum([1, 2, 3], 2)
    11
    >>> elementary_symmetric_sum([1, 2, 3], -1)
    0

    Running time: O(n^2) for n elements (all the sums are formed).
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer, not {k!r}")
    sums = elementary_symmetric_sums(elements)
    return sums[k] if 0 <= k < len(sums) else 0


def _without(elements: Sequence[Any], index: int) -> list[Any]:
    return list(elements[:index]) + list(elements[index + 1:])


def removal_identity_residual(elements: Sequence[Any], index: int, k: int) -> sympy.Expr:
    r"""$P(\mathcal S, k) - s P(\mathcal S - \{s\}, k-1) - P(\mathcal S - \{s\}, k)$ with
    $s$ = ``elements[index]``, simplified (0 when the identity holds).

    Parameters
    ----------
    elements : sequence
        The multiset $\mathcal S$.
    index : int
        Position of the removed element $s$.
    k : int
        The order of the sum; identities hold for every integer.

    Returns
    -------
    sympy.Expr
        The cancelled residual.

    Examples
    --------
    >>> removal_identity_residual([1, 2, 3], 0, 2)
    0

    Running time: O(n^2) for the three sums, plus ``sympy.cancel``.
    """
    s = elements[index]
    rest = _without(elements, index)
    value = (elementary_symmetric_sum(elements, k) - s * elementary_symmetric_sum(rest, k - 1)
             - elementary_symmetric_sum(rest, k))
    return sympy.cancel(sympy.sympify(value))


def reciprocal_identity_residual(elements: Sequence[Any], k: int) -> sympy.Expr:
    r"""$P(\mathcal S^{-1}, k) - P(\mathcal S, |\mathcal S| - k)/\prod_{s} s$, simplified.

    Parameters
    ----------
    elements : sequence
        Nonzero elements of $\mathcal S$.
    k : int
        From 0 to $|\mathcal S|$.

    Returns
    -------
    sympy.Expr
        Zero when the reciprocal identity holds.

    Examples
    --------
    >>> reciprocal_identity_residual([1, 2, 3], 1)
    0

    Running time: O(n^2) for the two sums, plus ``sympy.cancel``.
    """
    product = sympy.Mul(*[sympy.sympify(_exact(s)) for s in elements])
    value = (elementary_symmetric_sum([1 / sympy.sympify(_exact(s)) for s in elements], k)
             - elementary_symmetric_sum(elements, len(elements) - k) / product)
    return sympy.cancel(sympy.sympify(value))


def identity_residuals(elements: Sequence[Any]) -> dict[str, sympy.Expr]:
    r"""Residuals of both identities for every element and every $k$ from $-1$ to $n+1$.

    Parameters
    ----------
    elements : sequence
        The multiset $\mathcal S$ (symbols make it a proof for all values).

    Returns
    -------
    dict
        ``"removal s=<i> k=<k>"`` / ``"reciprocal k=<k>"`` to the simplified residual; all values
        are 0 when the identities hold.

    Examples
    --------
    >>> from sympy import symbols
    >>> x, y = symbols("x y", positive=True)
    >>> set(identity_residuals([x, y]).values())
    {0}

    Running time: O(n^4) for the n (n + 3) residuals of O(n^2) each.
    """
    elements = list(elements)
    n = len(elements)
    residuals: dict[str, sympy.Expr] = {}
    for k in range(-1, n + 2):
        for index in range(n):
            residuals[f"removal s={index} k={k}"] = removal_identity_residual(elements, index, k)
        if 0 <= k <= n:
            residuals[f"reciprocal k={k}"] = reciprocal_identity_residual(elements, k)
    return residuals

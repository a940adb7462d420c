r"""The set functions of a compatibility model, written once: for a server set $X$, $\mu(X)$ (its
service rate), $\lambda(R(X))$ (the arrival rate of the classes $R(X)$ served only inside $X$),
the slack $r(X)=\mu(X)-\lambda(R(X))$, for an idle set $I$ the rate $L(I)=\lambda(C(I))$ of the
classes compatible with a server of $I$, and the idle-order weights $\widetilde W(I)$ of
[GR20]_ Thm 3.9 summed over the orders of $I$ (they also give the forced activation rates of
RAIS, Thm 3.10). Two forms share one definition: functions of a model on frozensets of server
names (sympy values, for the processes and the aggregated laws), and full tables on bitmasks
(elements of any exact field or ball field, for the subset dynamic programs).

Examples
--------
>>> from symq import model
>>> from symq.engines.set_functions import slack, compatible_arrival_rate, idle_order_weights
>>> w = model("w")
>>> slack(w, {"1", "2"})
-lambda_1 - lambda_2 - lambda_3 + mu_1 + mu_2
>>> compatible_arrival_rate(w, {"1"})
lambda_1 + lambda_3
>>> idle_order_weights(w)[frozenset({"1"})]
1/(lambda_1 + lambda_3)
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Callable, Iterable, Sequence

import sympy

from symq.models.model import Model

__all__ = ["service_rate", "required_arrival_rate", "slack", "compatible_arrival_rate",
           "idle_order_weights", "bits", "zeta", "required_arrival_table", "service_table",
           "compatible_arrival_table", "idle_order_table", "subsets_by_size"]


# ---------------------------------------------------------------------------- on frozensets
def service_rate(model: Model, servers: Iterable[str]) -> sympy.Expr:
    r"""$\mu(X)=\sum_{s\in X}\mu_s$, the service rate of a server set ([GR20]_ section 2).

    Parameters
    ----------
    model : Model
        Its service rates $\mu_s$ (symbolic or numeric) are summed.
    servers : iterable of str
        $X$, server names of the model.

    Returns
    -------
    sympy.Expr
        Zero for the empty set.

    Examples
    --------
    >>> from symq import model
    >>> service_rate(model("n"), ["1", "2"])
    mu_1 + mu_2

    Running time: O(|X|) additions.
    """
    return sympy.Add(*(model.service_rates[s] for s in servers))


def required_arrival_rate(model: Model, servers: Iterable[str]) -> sympy.Expr:
    r"""$\lambda(R(X))$: the classes whose whole server set lies in $X$ ([GR20]_ section 2).

    Parameters
    ----------
    model : Model
        Its classes, server sets $S_c$ and rates $\lambda_c$.
    servers : iterable of str
        $X$; class $c$ counts when $S_c\subseteq X$.

    Returns
    -------
    sympy.Expr
        The total arrival rate of $R(X)$ (zero when no class fits inside $X$).

    Examples
    --------
    >>> from symq import model
    >>> required_arrival_rate(model("n"), ["1"])
    lambda_1

    Running time: O(J) set inclusions for J classes.
    """
    x = frozenset(servers)
    return sympy.Add(*(model.arrival_rates[c] for c in model.classes
                       if frozenset(model.compatibility[c]) <= x))


def slack(model: Model, servers: Iterable[str]) -> sympy.Expr:
    r"""$r(X)=\mu(X)-\lambda(R(X))$, positive for every union of class server sets exactly when
    the model is stable ([GR20]_ section 2).

    Parameters
    ----------
    model : Model
        Any compatibility model.
    servers : iterable of str
        $X$, usually a union of class server sets.

    Returns
    -------
    sympy.Expr
        $\mu(X)-\lambda(R(X))$.

    Examples
    --------
    >>> from symq import example_model
    >>> slack(example_model("w"), {"1"})
    17/20

    Running time: O(|X| + J) additions.
    """
    servers = frozenset(servers)
    return service_rate(model, servers) - required_arrival_rate(model, servers)


def compatible_arrival_rate(model: Model, servers: Iterable[str]) -> sympy.Expr:
    r"""$L(I)=\lambda(C(I))$: the arrival rate of the classes compatible with a server of $I$ (the
    denominators of the ALIS idle-order factors, [GR20]_ Thm 3.9).

    Parameters
    ----------
    model : Model
        Its classes and rates $\lambda_c$.
    servers : iterable of str
        $I$; class $c$ counts when $S_c\cap I\ne\emptyset$.

    Returns
    -------
    sympy.Expr
        The total rate of $C(I)$.

    Examples
    --------
    >>> from symq import model
    >>> compatible_arrival_rate(model("n"), ["1"])
    lambda_1 + lambda_2

    Running time: O(J M) set intersections for J classes and M servers.
    """
    x = frozenset(servers)
    return sympy.Add(*(model.arrival_rates[c] for c in model.classes
                       if x.intersection(model.compatibility[c])))


def subsets_by_size(items: Sequence[str]) -> list[frozenset]:
    r"""All subsets of ``items``, smaller first (a topological order for inclusion).

    Parameters
    ----------
    items : sequence of str
        The ground set, for example ``model.servers``.

    Returns
    -------
    list of frozenset
        $2^{n}$ sets for $n$ items, the empty set first.

    Examples
    --------
    >>> [sorted(s) for s in subsets_by_size(["1", "2"])]
    [[], ['1'], ['2'], ['1', '2']]

    Running time: O(2^n n).
    """
    return [frozenset(c) for r in range(len(items) + 1) for c in combinations(items, r)]


def idle_order_weights(model: Model, convert: Callable[[sympy.Expr], Any] | None = None
                       ) -> dict[frozenset, Any]:
    r"""$\widetilde W(I)$ for every server set $I$: $\widetilde W(\emptyset)=1$,
    $\widetilde W(I)=L(I)^{-1}\sum_{s\in I}\widetilde W(I\setminus s)$, the sum over the orders
    $s_1..s_k$ of $I$ of $\prod_j1/\lambda(C(s_1..s_j))$ ([GR20]_ Thm 3.9, the idle-order factor
    without its $\mu$ numerators).

    Parameters
    ----------
    model : Model
    convert : callable, optional
        Maps a sympy rate into the field to compute in (for example
        :meth:`symq.arithmetic.exact.ExactField.value`); by default the weights are cancelled sympy
        expressions.

    Returns
    -------
    dict
        ``{frozenset of servers: weight}`` for all $2^M$ server sets.

    Examples
    --------
    >>> from symq import example_model
    >>> idle_order_weights(example_model("w"))[frozenset({"1", "2"})]
    75/7

    Running time: O(2^M M) field operations.
    """
    if convert is None:
        from symq.arithmetic.exact import ExactField
        field = ExactField.for_model(model)
        weights = idle_order_weights(model, field.value)
        return {idle: field.expr(w) for idle, w in weights.items()}
    weights = {frozenset(): convert(sympy.Integer(1))}
    for idle in subsets_by_size(model.servers)[1:]:
        total = None
        for s in idle:
            total = weights[idle - {s}] if total is None else total + weights[idle - {s}]
        weights[idle] = total / convert(compatible_arrival_rate(model, idle))
    return weights


# ---------------------------------------------------------------------------- on bitmasks
def bits(x: int) -> list[int]:
    r"""The positions of the set bits of ``x``, lowest first.

    Parameters
    ----------
    x : int
        A bitmask (server $j$ is bit $j$).

    Returns
    -------
    list of int

    Examples
    --------
    >>> bits(0b101)
    [0, 2]

    Running time: O(number of set bits).
    """
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def zeta(table: list[Any], size: int) -> None:
    r"""In place: ``table[X] = sum(table[Y] for Y subset of X)``, the subset-sum (zeta) transform.

    Parameters
    ----------
    table : list
        One value per bitmask, ``2**size`` entries of any ring with ``+``; overwritten.
    size : int
        The number of bits.

    Returns
    -------
    None
        ``table`` holds the transform.

    Examples
    --------
    >>> t = [1, 2, 3, 4]
    >>> zeta(t, 2); t
    [1, 3, 4, 10]

    Running time: O(2^size size) additions. Elements whose type has ``zeta_block`` (the
    recording elements of :mod:`symq.engines.sensitivity`) do the whole transform as one
    recorded operation.
    """
    block = getattr(type(table[0]), "zeta_block", None) if table else None
    if block is not None:
        table[:] = block(table, size)
        return
    n = len(table)
    for j in range(size):
        bit = 1 << j
        for base in range(0, n, 2 * bit):  # the sets with bit j: [base + bit, base + 2 bit)
            high = base + bit
            table[high:high + bit] = [a + b for a, b in zip(table[high:high + bit],
                                                            table[base:high])]


def required_arrival_table(masks: Sequence[int], lam: Sequence[Any], size: int, zero: Any
                           ) -> list[Any]:
    r"""$\lambda(R(X))$ for every bitmask $X$ (the zeta transform of the class rates placed at
    their server sets $S_c$).

    Parameters
    ----------
    masks : sequence of int
        $S_c$ of each class as a bitmask.
    lam : sequence
        $\lambda_c$ of each class, in the field to compute in.
    size : int
        $M$, the bits of a mask.
    zero : field element
        Zero of that field (the value where no class fits).

    Returns
    -------
    list
        ``2**size`` values indexed by mask.

    Examples
    --------
    >>> required_arrival_table([0b01, 0b10, 0b11], [1, 2, 4], 2, 0)
    [0, 1, 2, 7]

    Running time: O(2^M M) additions.
    """
    table = [zero] * (1 << size)
    for m, rate in zip(masks, lam):
        table[m] = table[m] + rate
    zeta(table, size)
    return table


def service_table(mu: Sequence[Any], size: int, zero: Any) -> list[Any]:
    r"""$\mu(X)$ for every bitmask $X$.

    Parameters
    ----------
    mu : sequence
        $\mu_j$ of each server, in bit order.
    size : int
        The number of servers $M$.
    zero : field element
        The field's zero.

    Returns
    -------
    list
        ``2**size`` values, ``table[0] == zero``.

    Examples
    --------
    >>> service_table([1, 5], 2, 0)
    [0, 1, 5, 6]

    Running time: O(2^M) additions.
    """
    table = [zero] * (1 << size)
    for x in range(1, 1 << size):
        low = x & -x
        table[x] = table[x ^ low] + mu[low.bit_length() - 1]
    return table


def compatible_arrival_table(required: Sequence[Any], lam_total: Any, size: int) -> list[Any]:
    r"""$L(I)=\lambda-\lambda(R(\mathcal M\setminus I))$ for every bitmask $I$ (a class is compatible
    with $I$ unless all its servers are outside $I$).

    Parameters
    ----------
    required : sequence
        $\lambda(R(X))$ of :func:`required_arrival_table`.
    lam_total : field element
        $\lambda$, the total arrival rate.
    size : int
        $M$ servers.

    Returns
    -------
    list
        ``2**size`` values, ``L(0) == 0``.

    Examples
    --------
    >>> compatible_arrival_table([0, 1, 2, 7], 7, 2)
    [0, 5, 6, 7]

    Running time: O(2^M) subtractions.
    """
    full = (1 << size) - 1
    return [lam_total - required[full ^ x] for x in range(1 << size)]


def idle_order_table(arrivals: Sequence[Any], size: int, zero: Any, one: Any) -> list[Any]:
    r"""$\widetilde W(I)$ of :func:`idle_order_weights` for every bitmask $I$, from $L(I)$:
    $\widetilde W(\emptyset)=1$, $\widetilde W(I)=L(I)^{-1}\sum_{s\in I}\widetilde W(I\setminus s)$.

    Parameters
    ----------
    arrivals : sequence
        $L(I)$ of :func:`compatible_arrival_table` (positive for $I\ne\emptyset$).
    size : int
        The number of servers $M$.
    zero, one : field elements
        The field's zero and one.

    Returns
    -------
    list
        ``2**size`` weights.

    Examples
    --------
    >>> from fractions import Fraction
    >>> idle_order_table([0, 5, 6, 7], 2, Fraction(0), Fraction(1))
    [Fraction(1, 1), Fraction(1, 5), Fraction(1, 6), Fraction(11, 210)]

    Running time: O(2^M M) field operations. Elements whose type has ``idle_order_block``
    (the recording elements of :mod:`symq.engines.sensitivity`) do the whole table as one
    recorded operation.
    """
    block = getattr(type(arrivals[0]), "idle_order_block", None) if len(arrivals) else None
    if block is not None:
        return block(list(arrivals), size)
    n = 1 << size
    tilde = [zero] * n
    tilde[0] = one
    singles = [1 << j for j in range(size)]
    for x in range(1, n):
        tilde[x] = sum([tilde[x ^ b] for b in singles if x & b], zero) / arrivals[x]
    return tilde

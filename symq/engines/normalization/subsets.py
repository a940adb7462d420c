r"""The subset machinery of the normalization DPs: a model as bitmasks (server $j$ is bit $j$,
class $c$ is the mask of $S_c$) with its rates in one exact field (or ball field), the unions of
the class server sets (the only sets on which the collaborative weights live; increasing integer
order is a topological order for inclusion), and the full subset tables $\lambda(R(X))$,
$\mu(X)$, $r(X)$, $L(I)$, $\widetilde W(I)$, $W(I)$ and $D(B)$ of the noncollaborative
disciplines ([GR20]_ Thm 3.9, 3.10), built from :mod:`symq.engines.set_functions`.

Examples
--------
>>> from symq import model
>>> from symq.engines.normalization.subsets import SubsetGraph, unions
>>> g = SubsetGraph(model("w"))
>>> g.masks, unions(g.masks)
([1, 2, 3], [0, 1, 2, 3])
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from typing import Any

from symq.arithmetic.exact import ExactField
from symq.models.model import Model
from symq.engines.set_functions import (bits, compatible_arrival_table, idle_order_table,
                             required_arrival_table, service_table, zeta)

__all__ = ["SubsetGraph", "IdleTables", "unions", "union_rates", "bits", "zeta", "is_numeric"]


@lru_cache(maxsize=64)
def is_numeric(model: Model) -> bool:
    """``model.is_numeric``, cached (it scans every rate's free symbols)."""
    return model.is_numeric


class SubsetGraph:
    r"""A model as bitmasks with its rates in one field.

    Parameters
    ----------
    model : Model
    field : optional
        An object with ``value(expr)``, ``zero``, ``one`` and ``numeric`` (default: the model's
        :class:`~symq.arithmetic.exact.ExactField`; :mod:`symq.engines.normalization.certified` passes a ball field).

    Attributes
    ----------
    masks : list of int
        $S_c$ per class, in ``model.classes`` order.
    lam, mu : list
        Class and server rates as field elements.
    """

    def __init__(self, model: Model, field: Any = None) -> None:
        self.model = model
        self.arith = field if field is not None else ExactField.for_model(model)
        value = self.arith.value
        self.servers = model.servers
        self.classes = model.classes
        index = {s: j for j, s in enumerate(self.servers)}
        self.size = len(self.servers)
        self.full = (1 << self.size) - 1
        self.masks = [sum(1 << index[s] for s in model.compatibility[c]) for c in self.classes]
        self.lam = [value(model.arrival_rates[c]) for c in self.classes]
        self.mu = [value(model.service_rates[s]) for s in self.servers]
        self.lam_total = sum(self.lam, self.arith.zero)
        self.scale = None
        if getattr(self.arith, "make", None) is not None and is_numeric(model):
            # integer rates over a common denominator: every set sum and every slack r(X) is
            # exact in integers and enters the field by one conversion (no subtraction of
            # rounded values in ball arithmetic)
            rates = [*model.arrival_rates.values(), *model.service_rates.values()]
            scale = math.lcm(*(int(r.q) for r in rates))
            self.scale = scale
            self.lam_int = [int(model.arrival_rates[c].p) * (scale // int(model.arrival_rates[c].q))
                            for c in self.classes]
            self.mu_int = [int(model.service_rates[s].p) * (scale // int(model.service_rates[s].q))
                           for s in self.servers]

    def mu_and_r(self, x: int) -> tuple[Any, Any]:
        r"""$(\mu(X), r(X))$ for one mask (O(M + J))."""
        if self.scale is None:
            mu = sum((self.mu[j] for j in bits(x)), self.arith.zero)
            lam = sum((l for l, m in zip(self.lam, self.masks) if m & ~x == 0), self.arith.zero)
            return mu, mu - lam
        mu = sum(self.mu_int[j] for j in bits(x))
        lam = sum(l for l, m in zip(self.lam_int, self.masks) if m & ~x == 0)
        make = self.arith.make
        return make(mu, self.scale), make(mu - lam, self.scale)


def unions(masks: list[int], limit: int | None = None) -> list[int] | None:
    """All unions of the class server sets (with the empty set), increasing; ``None`` when there
    are more than ``limit`` (cached: the stability check and the DP share one enumeration).

    Parameters
    ----------
    masks : list of int
        The class server sets $S_c$ as bit masks.
    limit : int, optional
        Give up (return ``None``) once there are more than ``limit`` unions.

    Returns
    -------
    list of int or None
        The union masks in increasing order, or ``None`` past ``limit``.

    Running time: O(U J) for U unions and J classes.

    Examples
    --------
    >>> unions([0b011, 0b110])
    [0, 3, 6, 7]
    >>> unions([0b001, 0b010, 0b100], limit=3) is None
    True
    """
    key = tuple(sorted(set(masks)))
    found = _UNIONS.get(key)
    if found is None:
        found = _enumerate_unions(key, limit)
        if found is None:
            return None
        if len(_UNIONS) >= 8:
            _UNIONS.pop(next(iter(_UNIONS)))
        _UNIONS[key] = found
    return None if limit is not None and len(found) > limit else list(found)


_UNIONS: dict[tuple[int, ...], tuple[int, ...]] = {}  # a few recent models (stability, then DP)


def _enumerate_unions(masks: tuple[int, ...], limit: int | None) -> tuple[int, ...] | None:
    reach = {0}
    frontier = [0]
    while frontier:
        new = []
        for x in frontier:
            for m in masks:
                y = x | m
                if y not in reach:
                    reach.add(y)
                    new.append(y)
        if limit is not None and len(reach) > limit:
            return None
        frontier = new
    return tuple(sorted(reach))


def union_rates(graph: "SubsetGraph", order: list[int]) -> tuple[list[int], list[int]]:
    r"""Integer $\mu(X)\cdot s$ and $\lambda(R(X))\cdot s$ for the masks ``order`` ($s$ the
    common denominator ``graph.scale``), vectorized with numpy when the sums fit in 62 bits.

    Parameters
    ----------
    graph : SubsetGraph
        A graph with integer rates (``graph.scale`` set: numeric rates).
    order : list of int
        The masks $X$.

    Returns
    -------
    tuple of two lists of int
        $(\mu(X) s, \lambda(R(X)) s)$ for each mask in ``order``.

    Examples
    --------
    >>> from symq import example_model
    >>> g = SubsetGraph(example_model("w"))
    >>> g.scale, union_rates(g, [0, 1, 2, 3])
    (20, ([0, 20, 16, 36], [0, 3, 2, 10]))

    Running time: O(|order| (M + J)), in C with numpy.
    """
    mu_int, lam_int, masks = graph.mu_int, graph.lam_int, graph.masks
    bound = max(sum(mu_int), sum(lam_int))
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a core dependency
        np = None
    if np is None or bound >= 2 ** 62 or graph.size > 62:
        mus = [sum(mu_int[j] for j in bits(x)) for x in order]
        lams = [sum(l for l, m in zip(lam_int, masks) if m & ~x == 0) for x in order]
        return mus, lams
    xs = np.array(order, dtype=np.int64)
    mus = np.zeros(len(order), dtype=np.int64)
    for j, rate in enumerate(mu_int):
        mus += ((xs >> j) & 1) * rate
    lams = np.zeros(len(order), dtype=np.int64)
    for m, rate in zip(masks, lam_int):
        lams += ((xs & m) == m) * rate
    return [int(v) for v in mus], [int(v) for v in lams]


class IdleTables:
    r"""Full subset tables of the noncollaborative disciplines ([GR20]_ Thm 3.9, 3.10):
    $\lambda(R(X))$, $\mu(X)$, $\mu^\times(X)$, $r(X)$, $L(I)$, $\widetilde W(I)$, $D(B)$ and
    $\Phi(B)=\widetilde W(\mathcal M\setminus B)/\widetilde W(\mathcal M)$.

    $D(\emptyset)=1$, $D(B)=\frac1{r(B)}\sum_{s\in B}D(B\setminus s)$: the busy-set weight of the
    RAIS law summed over busy orders. Running time and memory: O(2^M M).
    """

    def __init__(self, graph: SubsetGraph) -> None:
        self.graph = graph
        arith = graph.arith
        zero, one = arith.zero, arith.one
        size, full = graph.size, graph.full
        n = full + 1
        if graph.scale is not None:  # exact integer tables, one conversion each
            make, scale = graph.arith.make, graph.scale
            self._lam_int = required_arrival_table(graph.masks, graph.lam_int, size, 0)
            self._mu_int = service_table(graph.mu_int, size, 0)
            total = sum(graph.lam_int)
            self.arrivals = [make(total - self._lam_int[full ^ x], scale) for x in range(n)]
        else:
            self._lam_int = None
            self.arrivals = compatible_arrival_table(self.lam_req, graph.lam_total, size)
        mu_prod = [one] * n
        for x in range(1, n):
            low = x & -x
            mu_prod[x] = mu_prod[x ^ low] * graph.mu[low.bit_length() - 1]
        self.mu_prod = mu_prod
        self.tilde = idle_order_table(self.arrivals, size, zero, one)

    # the tables below are built on first use (ALIS needs none of them)
    @cached_property
    def lam_req(self) -> list[Any]:
        g = self.graph
        if self._lam_int is not None:
            return [g.arith.make(v, g.scale) for v in self._lam_int]
        return required_arrival_table(g.masks, g.lam, g.size, g.arith.zero)

    @cached_property
    def mu(self) -> list[Any]:
        g = self.graph
        if self._lam_int is not None:
            return [g.arith.make(v, g.scale) for v in self._mu_int]
        return service_table(g.mu, g.size, g.arith.zero)

    @cached_property
    def r(self) -> list[Any]:
        g = self.graph
        if self._lam_int is not None:
            return [g.arith.make(m - v, g.scale) for m, v in zip(self._mu_int, self._lam_int)]
        return [m - v for m, v in zip(self.mu, self.lam_req)]

    @cached_property
    def d(self) -> list[Any]:
        g = self.graph
        zero = g.arith.zero
        r = self.r
        d = [zero] * (g.full + 1)
        d[0] = g.arith.one
        for x in range(1, g.full + 1):
            d[x] = sum((d[x ^ (1 << j)] for j in bits(x)), zero) / r[x]
        return d

    @cached_property
    def phi(self) -> list[Any]:
        full, tilde = self.graph.full, self.tilde
        return [tilde[full ^ x] / tilde[full] for x in range(full + 1)]

    def idle_weights(self) -> list[Any]:
        r"""$W(I)=\mu^\times(I)\widetilde W(I)$ (Thm 3.9's idle-order factor summed over orders)."""
        return [p * t for p, t in zip(self.mu_prod, self.tilde)]

    def queue_per_class(self, c: int) -> list[Any]:
        r"""$D_c(B)=\frac1{r(B)}\bigl[\sum_sD_c(B\setminus s)+[c\in R(B)]\lambda_cD(B)\bigr]$."""
        g = self.graph
        zero = g.arith.zero
        mask, lam = g.masks[c], g.lam[c]
        out = [zero] * (g.full + 1)
        for x in range(1, g.full + 1):
            acc = sum((out[x ^ (1 << j)] for j in bits(x)), zero)
            if mask & ~x == 0:
                acc += lam * self.d[x]
            out[x] = acc / self.r[x]
        return out

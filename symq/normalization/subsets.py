r"""The subset machinery of the normalization DPs: a model as bitmasks (server $j$ is bit $j$,
class $c$ is the mask of $S_c$) with its rates in one exact field (or ball field), the unions of
the class server sets (the only sets on which the collaborative weights live; increasing integer
order is a topological order for inclusion), and the full subset tables $\lambda(R(X))$,
$\mu(X)$, $r(X)$, $L(I)$, $\widetilde W(I)$, $W(I)$ and $D(B)$ of the noncollaborative
disciplines ([GR20]_ Thm 3.9, 3.10), built from :mod:`symq.set_functions`.

Examples
--------
>>> from symq import model
>>> from symq.normalization.subsets import SubsetGraph, unions
>>> g = SubsetGraph(model("w"))
>>> g.masks, unions(g.masks)
([1, 2, 3], [0, 1, 2, 3])
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from ..exact import ExactField
from ..model import Model
from ..set_functions import (bits, compatible_arrival_table, idle_order_table,
                             required_arrival_table, service_table, zeta)

__all__ = ["SubsetGraph", "IdleTables", "unions", "bits", "zeta", "is_numeric"]


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
        :class:`~symq.exact.ExactField`; :mod:`symq.normalization.certified` passes a ball field).

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
        if getattr(self.arith, "kind", "") in ("fmpq", "Fraction"):
            # integer rates over a common denominator: set sums in machine integers
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


def unions(masks: list[int]) -> list[int]:
    """All unions of the class server sets (with the empty set), increasing.

    Running time: O(U J) for U unions and J classes.

    Examples
    --------
    >>> unions([0b011, 0b110])
    [0, 3, 6, 7]
    """
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
        frontier = new
    return sorted(reach)


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
        self.lam_req = required_arrival_table(graph.masks, graph.lam, size, zero)
        self.mu = service_table(graph.mu, size, zero)
        mu_prod = [one] * n
        for x in range(1, n):
            low = x & -x
            mu_prod[x] = mu_prod[x ^ low] * graph.mu[low.bit_length() - 1]
        self.mu_prod = mu_prod
        self.r = [self.mu[x] - self.lam_req[x] for x in range(n)]
        self.arrivals = compatible_arrival_table(self.lam_req, graph.lam_total, size)
        self.tilde = idle_order_table(self.arrivals, size, zero, one)
        d = [zero] * n
        d[0] = one
        for x in range(1, n):
            d[x] = sum((d[x ^ (1 << j)] for j in bits(x)), zero) / self.r[x]
        self.d = d
        tilde = self.tilde
        self.phi = [tilde[full ^ x] / tilde[full] for x in range(n)]

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

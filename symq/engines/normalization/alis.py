r"""The noncollaborative FCFS-ALIS discipline ([GR20]_ Thm 3.9: with idle set $I$ the job queue is
the collaborative system $\vdash I$): normalizing constant, idle probabilities and mean numbers
by subset DPs, and the matching rates $r_{c,s}$ that give the mean numbers in service (the
idle-order weights $W(I)$ and $G_{\rm ALIS}$ are written out in docs/theory-subset-dp.md,
section 4.7).

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization.alis import alis_values
>>> from symq.engines.normalization.subsets import SubsetGraph
>>> str(alis_values(SubsetGraph(example_model("w")), per_class=False)["empty"])
'663/1216'
"""

from __future__ import annotations

from typing import Any

from symq.engines.normalization.collaborative import CollaborativeTables
from symq.engines.normalization.subsets import IdleTables, SubsetGraph, bits, zeta

__all__ = ["alis_values", "matching_rates", "in_service"]


def alis_values(graph: SubsetGraph, per_class: bool, idle: bool = True) -> dict[str, Any]:
    r"""$G_{\rm ALIS}$, $P(\emptyset)$, per-server idle probabilities and (if ``per_class``) the
    mean numbers in system ``"L"`` and in queue ``"LQ"`` ([GR20]_ Thm 3.9).

    The idle law is $P(\text{idle set}=I)=W(I)\hat H(\mathcal M\setminus I)/G$.

    Parameters
    ----------
    graph : SubsetGraph
        The model's subset tables (exact field or a ball field).
    per_class : bool
        Also compute the per-class mean numbers ``"L"`` and ``"LQ"``.
    idle : bool
        Also compute the per-server idle probabilities.

    Returns
    -------
    dict
        Field elements; ``"W"`` is $W(\mathcal M)$; ``"idle"`` is ``None`` unless ``idle``.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> out = alis_values(SubsetGraph(example_model("w")), per_class=True)
    >>> out["G"], out["idle"]["1"], out["LQ"]["3"]
    (24320/1547, 221/304, 155/7904)

    Running time: O(2^M M + U J) for U unions; mean numbers add O(2^M M + J 2^{M-|S_c|}).
    """
    t = IdleTables(graph)
    coll = CollaborativeTables(graph, False)
    arith = graph.arith
    full = graph.full
    w = t.idle_weights()
    omega = list(w)
    zeta(omega, graph.size)
    g = sum((h * omega[full ^ x] for x, h in coll.weight.items()), arith.zero)
    out = {"G": g, "empty": w[full] / g, "W": w[full]}
    h_hat = coll.zeta() if idle or per_class else None
    out["idle"] = None
    if idle:
        idle_law = [w[i] * h_hat[full ^ i] for i in range(full + 1)]
        out["idle"] = {s: sum([v for i, v in enumerate(idle_law) if i >> j & 1], arith.zero) / g
                       for j, s in enumerate(graph.servers)}
    if per_class:
        v = coll.suffix_weights(lambda x: omega[full ^ x])
        sums = coll.class_sums(v)
        queue = {c: sums[k] / g for k, c in enumerate(graph.classes)}
        service = in_service(graph, t, coll, omega=omega, h_hat=h_hat, g=g, v=v)
        out["L"] = {c: queue[c] + service[c] for c in graph.classes}
        out["LQ"] = queue
    return out


def matching_rates(graph: SubsetGraph, t: IdleTables, coll: CollaborativeTables,
                   omega=None, h_hat=None, g=None, v=None) -> dict[tuple[str, str], Any]:
    r"""Matching rates $r_{c,s}=r^q_{c,s}+r^{\rm imm}_{c,s}$ of ALIS (equal for canonical RAIS):
    the rate at which class-$c$ jobs start service on server $s$, from the queue or on arrival.

    $r^q_{c,s}=\frac{\lambda_c\mu_s}{G}\sum_{A\not\ni s}H(A)\frac{V(A\cup S_c)}{\mu(A\cup S_c)}$,
    $V(X)=\frac{\mu(X)}{r(X)}\bigl[\Omega(\mathcal M\setminus X)+\sum_{c'}\lambda_{c'}
    \frac{V(X\cup S_{c'})}{\mu(X\cup S_{c'})}\bigr]$;
    $r^{\rm imm}_{c,s}=\frac{\lambda_c}G\sum_{P\subseteq\mathcal M\setminus S_c}W(P)
    \frac{\mu_sY(P\cup s)}{L(P\cup s)}$, $Y(Q)=\hat H(\mathcal M\setminus Q)+\sum_{t\notin Q}
    \frac{\mu_tY(Q\cup t)}{L(Q\cup t)}$ (Thm 3.9 summed over the states where $s$ takes a
    class-$c$ job). Every term is positive: no subtraction.

    Parameters
    ----------
    graph : SubsetGraph
        The model's subset tables.
    t : IdleTables
        The idle-order tables of ``graph``.
    coll : CollaborativeTables
        The collaborative tables of ``graph`` (``per_class=False``).
    omega, h_hat, g, v : optional
        Tables :func:`alis_values` already has ($\Omega$, $\hat H$, $G$, $V$); computed here
        when ``None``.

    Returns
    -------
    dict
        ``{(class, server): rate}`` for compatible pairs; $\sum_c r_{c,s}=\mu_s P(s\text{ busy})$.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.collaborative import CollaborativeTables
    >>> from symq.engines.normalization.subsets import IdleTables, SubsetGraph
    >>> g = SubsetGraph(example_model("w"))
    >>> matching_rates(g, IdleTables(g), CollaborativeTables(g, False))[("3", "1")]
    187/1520

    Running time: O(2^M M + sum_c |S_c| (U + 2^{M-|S_c|})).
    """
    arith = graph.arith
    zero = arith.zero
    full = graph.full
    w = t.idle_weights()
    if omega is None:
        omega = list(w)
        zeta(omega, graph.size)
    if h_hat is None:
        h_hat = coll.zeta()
    if g is None:
        g = sum((h * omega[full ^ x] for x, h in coll.weight.items()), zero)
    masks, lam, mu = graph.masks, graph.lam, graph.mu
    if v is None:
        v = coll.suffix_weights(lambda x: omega[full ^ x])
    y_table = [zero] * (full + 1)
    for q in range(full, -1, -1):
        acc = h_hat[full ^ q]
        for j in bits(full ^ q):
            u = q | (1 << j)
            acc += mu[j] * y_table[u] / t.arrivals[u]
        y_table[q] = acc
    rates = {}
    for c, m in enumerate(masks):
        for j in bits(m):
            s_bit = 1 << j
            queued = sum((h * v[a | m] / coll.mu[a | m] for a, h in coll.weight.items()
                          if not a & s_bit), zero)
            queued = lam[c] * mu[j] * queued / g
            immediate = zero
            outside = full & ~m
            p = outside
            while True:  # all P subset of M \ S_c
                u = p | s_bit
                immediate += w[p] * mu[j] * y_table[u] / t.arrivals[u]
                if p == 0:
                    break
                p = (p - 1) & outside
            rates[graph.classes[c], graph.servers[j]] = queued + lam[c] * immediate / g
    return rates


def in_service(graph: SubsetGraph, t: IdleTables, coll: CollaborativeTables, **known
               ) -> dict[str, Any]:
    r"""Mean number of class-$c$ jobs in service, $\sum_s r_{c,s}/\mu_s$ (Little's law per server).

    Parameters
    ----------
    graph, t, coll
        As in :func:`matching_rates`.
    **known
        Tables passed on to :func:`matching_rates` (``omega``, ``h_hat``, ``g``, ``v``).

    Returns
    -------
    dict
        ``{class: mean number in service}`` as field elements.

    Examples
    --------
    Model W, with the tables this module already imports:

    >>> from symq import example_model
    >>> g = SubsetGraph(example_model("w"))
    >>> in_service(g, IdleTables(g), CollaborativeTables(g, False))
    {'1': 3/20, '2': 1/8, '3': 1713/6080}

    Running time: that of :func:`matching_rates`, plus O(J M).
    """
    rates = matching_rates(graph, t, coll, **known)
    mu = dict(zip(graph.servers, graph.mu))
    out = {c: graph.arith.zero for c in graph.classes}
    for (c, s), rate in rates.items():
        out[c] += rate / mu[s]
    return out

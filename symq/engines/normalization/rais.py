r"""The noncollaborative FCFS-RAIS discipline ([GR20]_ Thm 3.10, with the forced activation rates
$\lambda^a_s(B)=\widetilde W(I\setminus s)/\widetilde W(I)$ of the canonical routing, which
routes an arriving job to the server that would have been idle longest under ALIS and so equals
ALIS in every quantity here): the busy-set law $P(\text{busy set}=B)=\Phi(B)D(B)/G_{\rm RAIS}$
with $\Phi(B)=\widetilde W(\mathcal M\setminus B)/\widetilde W(\mathcal M)$ and
$D(B)=\frac1{r(B)}\sum_{s\in B}D(B\setminus s)$, $G_{\rm RAIS}=1/P(\emptyset)=\sum_B\Phi(B)D(B)$.
It is an independent route from the ALIS module's for $\pi(\emptyset)$ and the idle
probabilities; the mean numbers in service reuse the ALIS matching rates.

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization import rais, subsets
>>> values = rais.rais_values(subsets.SubsetGraph(example_model("w")), per_class=False)
>>> values["empty"], values["idle"]
(663/1216, {'1': 221/304, '2': 871/1216})
"""

from __future__ import annotations

from typing import Any

from symq.engines.normalization.alis import alis_values, in_service
from symq.engines.normalization.collaborative import CollaborativeTables
from symq.engines.normalization.subsets import IdleTables, SubsetGraph

__all__ = ["rais_values"]


def rais_values(graph: SubsetGraph, per_class: bool, idle: bool = True) -> dict[str, Any]:
    r"""$G_{\rm RAIS}$, $P(\emptyset)$, per-server idle probabilities and (if ``per_class``) the
    mean numbers ``"L"`` and in queue ``"LQ"`` ($D_c$ of
    :meth:`~symq.engines.normalization.subsets.IdleTables.queue_per_class` weighted by $\Phi$).

    Parameters
    ----------
    graph : SubsetGraph
        The model's subset tables; RAIS reads only their idle-order tables ($\Phi$, $D$).
    per_class, idle : bool
        Whether to add the mean numbers ``"L"`` and ``"LQ"``, and the per-server idle
        probabilities (``"idle"`` is ``None`` without them).

    Returns
    -------
    dict
        ``"G"``, ``"empty"``, ``"idle"`` (and ``"L"``, ``"LQ"``) as elements of the graph's field.

    Examples
    --------
    >>> from symq import example_model
    >>> out = rais_values(SubsetGraph(example_model("w")), per_class=True)
    >>> out["empty"], out["idle"]["2"], out["LQ"]["3"]
    (663/1216, 871/1216, 155/7904)

    Running time: O(2^M M); mean numbers O(J 2^M M) more.
    """
    t = IdleTables(graph)
    arith = graph.arith
    busy_weight = [p * d for p, d in zip(t.phi, t.d)]
    g = sum(busy_weight, arith.zero)
    out = {"G": g, "empty": arith.one / g}
    out["idle"] = None
    if idle:
        out["idle"] = {s: sum([w for x, w in enumerate(busy_weight) if not x >> j & 1],
                              arith.zero) / g for j, s in enumerate(graph.servers)}
    if per_class and getattr(arith, "kind", "") == "arb":
        # balls: the mean numbers of canonical RAIS equal ALIS's (module docstring), and the
        # ALIS route costs O(2^M M + U J) instead of the O(J 2^M M) per-class tables below
        alis = alis_values(graph, True, idle=False)
        out["L"], out["LQ"] = alis["L"], alis["LQ"]
    elif per_class:
        queue = {}
        for k, c in enumerate(graph.classes):
            dc = t.queue_per_class(k)
            queue[c] = sum((p * v for p, v in zip(t.phi, dc)), arith.zero) / g
        service = in_service(graph, t, CollaborativeTables(graph, False))
        out["L"] = {c: queue[c] + service[c] for c in graph.classes}
        out["LQ"] = queue
    return out

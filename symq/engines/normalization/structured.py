r"""Structured models that avoid the $2^M$ work of the general subset DPs: ``redundancy:K:D``
(every $D$-subset of $K$ equal servers is one class, all class rates equal), whose tables depend
only on the size of a set, so every DP becomes a recursion over the number of busy servers;
nested models, through their nesting tree (:mod:`symq.engines.nested`, [GR20]_ Thm 4.5); and models
whose compatibility graph is disconnected, which factor over their components.

Examples
--------
>>> from symq import model
>>> from symq.engines.normalization.structured import is_symmetric_redundancy, redundancy_values
>>> r = model("redundancy:3:2")
>>> is_symmetric_redundancy(r)
True
"""

from __future__ import annotations

import math
from typing import Any

from symq.arithmetic.exact import ExactField, to_fraction
from symq.models.model import Model

__all__ = ["is_symmetric_redundancy", "redundancy_values", "components"]


def is_symmetric_redundancy(model: Model) -> bool:
    """True for ``redundancy:K:D`` shapes: the classes are exactly the D-subsets of the servers
    (each once), all class rates equal and all server rates equal.

    Parameters
    ----------
    model : Model
        Symbolic or numeric; rates are compared exactly.

    Returns
    -------
    bool
        Whether the symmetric redundancy route (:func:`redundancy_values`) applies.

    Examples
    --------
    >>> from symq import model
    >>> is_symmetric_redundancy(model("n")), is_symmetric_redundancy(model("redundancy:4:2"))
    (False, True)

    Running time: O(J D).
    """
    servers = model.servers
    sets = {frozenset(s) for s in model.compatibility.values()}
    if not sets or len(sets) != len(model.classes):
        return False
    degree = len(next(iter(sets)))
    if any(len(s) != degree for s in sets) or len(sets) != math.comb(len(servers), degree):
        return False
    return len(set(model.arrival_rates.values())) == 1 and len(set(model.service_rates.values())) == 1


def redundancy_values(model: Model, discipline: str, per_class: bool, field: Any = None
                      ) -> dict[str, Any]:
    r"""$G$, $\pi(\emptyset)$, idle probabilities and mean numbers of ``redundancy:K:D`` by size.

    With $K$ servers and $N=\binom KD$ classes of rate $\lambda/N$: $\lambda(R(X))=\lambda\binom
    kD/N$ for $|X|=k$, $L(I)=\lambda(1-\binom{K-i}D/N)$; the exact-cover weight of a set of
    size $k'$ collects the sets $X$ of size $k$ whose union with a class set is it, in
    $\binom{k'}k\binom k{D-(k'-k)}$ ways ([GR20]_ Thm 3.3, 3.9, 3.10 specialised by symmetry).

    Parameters
    ----------
    model : Model
        A model with :func:`is_symmetric_redundancy`.
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``
    per_class : bool
        Unused (the mean numbers cost nothing more); kept for the common signature.
    field : optional
        The field to compute in (default the model's :class:`~symq.arithmetic.exact.ExactField`).

    Returns
    -------
    dict
        ``{"G", "empty", "idle", "L", "arith"}``.

    Examples
    --------
    >>> from symq import model
    >>> r = model("redundancy:3:2").substitute({"lambda": "1", "mu": "1"})
    >>> str(redundancy_values(r, "collaborative", False)["empty"])
    '5/9'
    >>> from symq.engines.normalization import empty_probability
    >>> empty_probability(r)   # the general subset DP, the second route
    5/9

    Running time: O(K D) field operations.
    """
    arith = field if field is not None else ExactField.for_model(model)
    K, D = len(model.servers), len(next(iter(model.compatibility.values())))
    N = math.comb(K, D)
    rate = next(iter(model.arrival_rates.values()))
    service = next(iter(model.service_rates.values()))
    lam = arith.value(rate) * N
    mu = arith.value(service)
    zero, one = arith.zero, arith.one
    lam_req = [lam * math.comb(k, D) / N for k in range(K + 1)]
    if model.is_numeric:  # slacks and L(I) exactly, then one conversion (no rounded subtraction)
        rate, service = to_fraction(rate), to_fraction(service)
        r = [arith.value(k * service - rate * math.comb(k, D)) for k in range(K + 1)]
        arrivals = [arith.value(rate * (N - math.comb(K - i, D))) for i in range(K + 1)]
    else:
        r = [k * mu - lam_req[k] for k in range(K + 1)]
        arrivals = [lam - lam_req[K - i] for i in range(K + 1)]
    out: dict[str, Any] = {}
    if discipline == "collaborative":
        h = [zero] * (K + 1)
        h_tot = [zero] * (K + 1)
        h[0] = one
        per = lam / N
        for k2 in range(1, K + 1):
            acc = zero
            acc_tot = zero
            for k in range(max(0, k2 - D), k2):
                ways = math.comb(k2, k) * math.comb(k, D - (k2 - k))
                if ways:
                    acc += ways * per * h[k]
                    acc_tot += ways * per * (h_tot[k] + h[k])
            h[k2] = acc / r[k2]
            h_tot[k2] = (acc_tot + lam_req[k2] * h[k2]) / r[k2]
        g = sum((math.comb(K, k) * h[k] for k in range(K + 1)), zero)
        out["G"] = g
        out["empty"] = one / g
        idle = sum((math.comb(K - 1, k) * h[k] for k in range(K)), zero) / g
        total = sum((math.comb(K, k) * h_tot[k] for k in range(K + 1)), zero) / g
    else:
        tilde = [one] + [zero] * K
        d = [one] + [zero] * K
        d_tot = [zero] * (K + 1)
        for i in range(1, K + 1):
            tilde[i] = i * tilde[i - 1] / arrivals[i]
            d[i] = i * d[i - 1] / r[i]
            d_tot[i] = (i * d_tot[i - 1] + lam_req[i] * d[i]) / r[i]
        phi = [tilde[K - b] / tilde[K] for b in range(K + 1)]
        busy = [math.comb(K, b) * phi[b] * d[b] for b in range(K + 1)]
        g = sum(busy, zero)
        out["G"] = g * mu ** K * tilde[K] if discipline == "alis" else g
        out["empty"] = one / g
        mean_busy = sum((b * busy[b] for b in range(K + 1)), zero) / g
        # P(a given server idle) = sum over busy sets without it (= 1 - E[busy]/K, no subtraction)
        idle = sum((math.comb(K - 1, b) * phi[b] * d[b] for b in range(K)), zero) / g
        queue = sum((math.comb(K, b) * phi[b] * d_tot[b] for b in range(K + 1)), zero) / g
        total = queue + mean_busy
    out["idle"] = {s: idle for s in model.servers}
    out["L"] = {c: total / N for c in model.classes}
    out["arith"] = arith
    return out


def _connected_parts(model: Model) -> list[set[tuple[str, str]]]:
    """The node sets ``("class", i)``/``("server", j)`` of the connected components of the
    compatibility graph (what networkx's connected_components gives on ``model.graph()``, without
    importing networkx: start-up time)."""
    parent = {("server", j): ("server", j) for j in model.servers}

    def root(node):
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for i, servers in model.compatibility.items():
        parent[("class", i)] = ("class", i)
        for j in servers:
            a, b = root(("class", i)), root(("server", j))
            if a != b:
                parent[a] = b
    parts: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for node in parent:
        parts.setdefault(root(node), set()).add(node)
    return list(parts.values())


def components(model: Model) -> list[Model]:
    r"""The connected components of the compatibility graph, as models (one when connected).

    The stationary law of every discipline here factors over components (they share no server
    and no class), so $\pi(\emptyset)$ is the product of the components' and the mean numbers
    are those of each class's component.

    Parameters
    ----------
    model : Model
        Possibly disconnected.

    Returns
    -------
    list of Model
        One per component, in the order of their first classes; each keeps the model's name.

    Examples
    --------
    >>> from symq import model
    >>> len(components(model("w")))
    1

    Running time: O(M + J + edges).
    """
    parts = _connected_parts(model)
    if len(parts) <= 1 or any(not any(n[0] == "class" for n in p) for p in parts):
        return [model]  # connected, or a server without classes (left to the general DP)
    order = {c: k for k, c in enumerate(model.classes)}
    parts.sort(key=lambda p: min(order[n[1]] for n in p if n[0] == "class"))
    out = []
    for part in parts:
        keep = {n[1] for n in part if n[0] == "class"}
        out.append(model.remove_classes([c for c in model.classes if c not in keep]))
    return out
